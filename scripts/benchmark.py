"""Every speed figure of the project in one run, beside a peer measured in the same run.

Rows:
  * core: random playouts through :mod:`trap_env.core` (a random legal move, a random
    legal throw target, a sampled landing), in plies per second, where a ply is one
    ``apply`` (a move, a throw or a landing);
  * PettingZoo ``connect_four_v3`` ``env()`` random play, our AEC env (``trap_env.env()``)
    and our Gymnasium env (``trap_env/Trap-v0`` against the ``random`` opponent), in agent
    steps per second (an agent step is one ``step`` call with a random legal action);
  * each of the above as a ratio to connect_four's rate, measured in the same run;
  * the ``expectiminimax`` agent's search (:class:`agents.search.Search` on
    :class:`agents.search.TrapGame`, the agent's default settings): nodes per second,
    and the depth of the deepest iteration finished in 1 s and 5 s, from the start and
    from a middle-game position;
  * node counts at equal depth: plain expectimax (every node) against alpha-beta alone,
    with Star1, with Star1 and Star2, with the transposition table too, and (a smaller
    tree, the agent's default) with the misses of each throw searched two plies shallower;
  * the batched engine: :class:`trap_env.vector_env.TrapVectorEnv` against ``random`` at
    B = 1, 64, 1024 and 8192 in learner steps per second (masks and observations
    produced), beside the single Gym env and Gymnasium's ``SyncVectorEnv`` over it, and the
    gate: B = 8192 over the single env, at least 50;
  * the batched peer, where pgx is installed (else a row saying how): pgx's
    ``connect_four`` on the CPU at B = 1024 and 8192, random legal actions, in learner
    steps per second (jit compilation excluded), and TrapVectorEnv's B = 8192 over pgx's;
  * the ``mcts`` search's own work, in simulations per second from the start, with a
    network of uniform priors and zero values that costs nothing (the network's forward
    pass is the same for every row, so it is left out): one scalar
    :class:`agents.mcts.search.Tree` (how the agent searches), 32 scalar trees with one
    batched evaluation per simulation step (the self-play of before), and
    :class:`agents.mcts.batched.BatchedTree` over the batched engine at B = 32 and 256
    (self-play now), with the ratio of B = 256 to the 32 trees;
  * MaskablePPO ``learn`` steps per second, and those of its rollouts alone (policy and
    env, without the updates), on the batched SB3 VecEnv against ``SubprocVecEnv`` over
    single envs (``--ppo-timesteps``; skipped by ``--quick``).

Example:
    trap-benchmark
    trap-benchmark --quick --json benchmark.json
"""

from __future__ import annotations

import importlib
import json
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from trap_scripts._cli import CliError, Parser, fail, positive_float, positive_int

from agents.files import check_writable_file, write_text_atomically
from trap_env.core import (
    GameConfig,
    Phase,
    State,
    apply,
    initial_state,
    legal_actions,
    outcome,
    resolve_turn_limit,
    sample_landing,
)

PROG = "trap-benchmark"
PEER = "connect_four_v3 env()"


@dataclass
class Figure:
    """One measured figure."""

    name: str
    value: float
    unit: str
    note: str = ""


def timed_loop(body: Callable[[], int], seconds: float) -> float:
    """Call ``body`` (which returns a count of steps) until ``seconds`` pass; steps per second."""
    count, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        count += body()
    return count / elapsed


def core_playout(rng: random.Random, board_size: int = 7) -> int:
    """One random game through the core; returns the number of plies (``apply`` calls)."""
    state = initial_state(GameConfig(board_size))
    plies, limit = 0, resolve_turn_limit(None, board_size)
    while outcome(state, limit) is None:
        if state.phase is Phase.LANDING:
            action = sample_landing(state, rng)
        else:
            action = rng.choice(legal_actions(state))
        state = apply(state, action)
        plies += 1
    return plies


def aec_episode(env: Any, rng: np.random.Generator, seed: int) -> int:
    """One random game of a PettingZoo AEC env; returns the number of ``step`` calls."""
    env.reset(seed=seed)
    steps = 0
    for _agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        env.step(action)
        steps += 1
    return steps


def gym_episode(env: Any, rng: np.random.Generator, seed: int) -> int:
    """One random game of the Gymnasium env; returns the number of ``step`` calls."""
    _, info = env.reset(seed=seed)
    steps, done = 0, False
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        steps += 1
    return steps


def env_figures(seconds: float) -> list[Figure]:
    """Core plies/s, the three envs' agent steps/s, and ratios to connect_four."""
    rng = random.Random(0)
    core_rate = timed_loop(lambda: core_playout(rng), seconds)
    rates = {"core": core_rate}
    for name, make in _env_makers().items():
        rates[name] = _episode_rate(name, make, seconds)
    peer = rates.get(PEER)
    figures = [Figure("core random playout", core_rate, "plies/s", "move, throw, landing")]
    figures += [
        Figure(name, rate, "agent-steps/s") for name, rate in rates.items() if name != "core"
    ]
    if peer:
        figures += [
            Figure(f"{name} / connect_four", rate / peer, "ratio")
            for name, rate in rates.items()
            if name != PEER
        ]
    return figures


def _env_makers() -> dict[str, Callable[[], Any]]:
    def connect_four() -> Any:
        import pettingzoo

        try:
            import pygame  # noqa: F401  (connect_four imports it for rendering)
        except ImportError as error:
            raise CliError(
                "the peer, PettingZoo's connect_four_v3, needs pygame: "
                'pip install "trap_env[render]"'
            ) from error

        if hasattr(pettingzoo, "make"):  # the registry; the module import is deprecated there
            return pettingzoo.make("aec", "classic/connect_four-v3")
        from pettingzoo.classic import connect_four_v3

        return connect_four_v3.env()

    def trap_aec() -> Any:
        import trap_env

        return trap_env.env()

    def trap_gym() -> Any:
        import gymnasium

        import trap_env  # noqa: F401  (registers trap_env/Trap-v0)

        return gymnasium.make("trap_env/Trap-v0", opponent="random")

    return {PEER: connect_four, "trap_v0 AEC env()": trap_aec, "Trap-v0 Gym env": trap_gym}


def _episode_rate(name: str, make: Callable[[], Any], seconds: float) -> float:
    env = make()
    rng = np.random.default_rng(0)
    seeds = iter(range(10**9))
    episode = gym_episode if "Gym" in name else aec_episode
    try:
        return timed_loop(lambda: episode(env, rng, next(seeds)), seconds)
    finally:
        env.close()


def middle_game(board_size: int = 7, turns: int = 10, seed: int = 2) -> State:
    """A reproducible middle-game position: ``turns`` random turns from the start."""
    rng = random.Random(seed)
    state = initial_state(GameConfig(board_size))
    while state.turn < turns:
        previous = state
        if state.phase is Phase.LANDING:
            state = apply(state, sample_landing(state, rng))
        else:
            state = apply(state, rng.choice(legal_actions(state)))
        if outcome(state) is not None:
            return (
                previous
                if previous.phase is Phase.MOVE
                else middle_game(board_size, turns, seed + 1)
            )
    return state


def search_figures(seconds: Sequence[float]) -> list[Figure]:
    """Nodes/s and the depth finished within each time limit, from two positions."""
    figures = []
    for label, state in (("start", initial_state()), ("middle game", middle_game())):
        for limit in seconds:
            depth, nodes, elapsed = deepest_iteration(state, limit)
            figures.append(Figure(f"search depth in {limit:g} s, {label}", depth, "plies"))
            figures.append(
                Figure(f"search speed in {limit:g} s, {label}", nodes / elapsed, "nodes/s")
            )
    return figures


def deepest_iteration(state: State, seconds: float) -> tuple[int, int, float]:
    """The expectiminimax agent's search (default settings) iterating for ``seconds``.

    Returns the deepest finished depth, the nodes and the seconds used.
    """
    from agents.search.agent import ExpectiminimaxAgent
    from agents.search.expectimax import timed_iterations

    search = ExpectiminimaxAgent().search
    start = time.perf_counter()
    results = timed_iterations(search, state, seconds)
    depth = results[-1].depth if results else 0
    return depth, search.nodes, time.perf_counter() - start


def plain_expectimax_nodes(game: Any, state: State, depth: int) -> int:
    """The nodes of the full depth-limited expectimax tree (counted as the search counts)."""
    if game.is_terminal(state) or (depth <= 0 and not game.is_chance(state)):
        return 1
    if game.is_chance(state):
        children = [game.apply(state, cell) for cell, _ in game.chance_outcomes(state)]
        return 1 + sum(plain_expectimax_nodes(game, child, depth) for child in children)
    return 1 + sum(
        plain_expectimax_nodes(game, game.apply(state, action), depth - 1)
        for action in game.legal_actions(state)
    )


def pruning_figures(depth: int) -> list[Figure]:
    """Node counts at ``depth`` from the middle-game position, plain against pruned."""
    from agents.search.expectimax import Search
    from agents.search.game import TrapGame

    game = TrapGame()
    state = middle_game()
    plain = plain_expectimax_nodes(game, state, depth)
    figures = [Figure(f"nodes at depth {depth}: plain expectimax", plain, "nodes", "middle game")]
    variants = {
        "alpha-beta only": {"use_table": False, "star1": False, "star2": False},
        "alpha-beta + Star1": {"use_table": False, "star1": True, "star2": False},
        "alpha-beta + Star1 + Star2": {"use_table": False, "star1": True, "star2": True},
        "all + table": {"use_table": True, "star1": True, "star2": True},
        "all + table, misses 2 plies shallower": {"chance_reduction": 2},
    }
    for label, options in variants.items():
        search = Search(game, **options)
        search.value(state, depth)
        note = f"{search.nodes / plain:.1%} of plain"
        figures.append(Figure(f"nodes at depth {depth}: {label}", search.nodes, "nodes", note))
    return figures


# --- The batched engine (trap_env.vector) ---------------------------------------------

BATCH_SIZES = (1, 64, 1024, 8192)
"""The batch sizes of the batched env's rows."""
GATE_RATIO = 50.0
"""The batched env at B = 8192 must reach this multiple of the single Gym env."""
SYNC_ENVS = 16
"""Gymnasium's SyncVectorEnv row runs this many single envs."""


def batched_rate(num_envs: int, seconds: float, board_size: int = 7) -> float:
    """Learner steps/s of the batched env against ``random``, a random legal action each.

    Every step produces the masks and observations (as the env always does); the learner
    reads the masks and picks among the set bits of the legal bitboards.
    """
    from trap_env import vector
    from trap_env.vector_env import TrapVectorEnv

    envs = TrapVectorEnv(num_envs, opponent="random", board_size=board_size)
    envs.reset(seed=0)
    keys = vector.game_keys(1, np.arange(num_envs), 0)
    plies = iter(range(2**62))

    def step() -> int:
        envs.action_masks()
        legal = vector.legal_bitboards(envs.tables, envs.batch)
        words = vector.random_words(keys, next(plies), 0)
        envs.step(vector.choose_bits(legal, words, envs.tables.num_cells))
        return num_envs

    return timed_loop(step, seconds)


def sync_vector_rate(seconds: float, num_envs: int = SYNC_ENVS) -> float:
    """Learner steps/s of Gymnasium's ``SyncVectorEnv`` over single envs, random actions."""
    import gymnasium

    import trap_env  # noqa: F401  (registers trap_env/Trap-v0)

    envs = gymnasium.make_vec(
        "trap_env/Trap-v0", num_envs=num_envs, vectorization_mode="sync", opponent="random"
    )
    rng = np.random.default_rng(0)
    _, info = envs.reset(seed=0)

    def step() -> int:
        nonlocal info
        actions = [_random_cell(mask, rng) for mask in info["action_mask"]]
        _, _, _, _, info = envs.step(np.array(actions))
        return num_envs

    try:
        return timed_loop(step, seconds)
    finally:
        envs.close()


def _random_cell(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    return int(rng.choice(legal)) if len(legal) else 0  # an ended env ignores its action


def batched_figures(seconds: float) -> list[Figure]:
    """The batched env at each of :data:`BATCH_SIZES`, the single Gym env, SyncVectorEnv,
    and the gate: the batched env at B = 8192 over the single env, same run."""
    single = _episode_rate("Trap-v0 Gym env", _env_makers()["Trap-v0 Gym env"], seconds)
    figures = [
        Figure("batch: single Gym env (Trap-v0)", single, "learner-steps/s"),
        Figure(
            f"batch: SyncVectorEnv, {SYNC_ENVS} Gym envs",
            sync_vector_rate(seconds),
            "learner-steps/s",
        ),
    ]
    rates = {size: batched_rate(size, seconds) for size in BATCH_SIZES}
    figures += [
        Figure(f"batch: TrapVectorEnv B={size}", rate, "learner-steps/s", "opponent random")
        for size, rate in rates.items()
    ]
    ratio = rates[BATCH_SIZES[-1]] / single
    verdict = "pass" if ratio >= GATE_RATIO else "FAIL"
    gate = f"gate >= {GATE_RATIO:g}: {verdict}"
    figures.append(Figure(f"batch: B={BATCH_SIZES[-1]} / single Gym env", ratio, "ratio", gate))
    return figures + pgx_figures(seconds, rates[BATCH_SIZES[-1]])


# --- The batched peer: pgx's connect_four (JAX, on the CPU) ----------------------------

PGX_BATCH_SIZES = (1024, 8192)
"""The batch sizes of the pgx rows; the last is compared with TrapVectorEnv's largest."""
PGX_INSTALL = "pip install pgx==2.6.0 jax==0.5.3"
"""The peer and the jax it was measured on; not an extra (why: docs/benchmarks.md)."""
PGX_ROW = "batch peer: pgx connect_four"


def pgx_rate(num_envs: int, seconds: float) -> float:
    """Learner steps/s of pgx's ``connect_four``, ``num_envs`` games batched on the CPU.

    One jitted call draws a random legal action for every game (pgx's ``act_randomly``, a
    categorical draw over the legal mask), steps them all and resets the finished ones
    (pgx's ``auto_reset``), so each call is ``num_envs`` learner steps with the next
    observations and masks ready. The compilation runs before the clock starts.
    """
    # Held as Any: the peer is optional, typed in one venv and missing or untyped in another.
    jax: Any = importlib.import_module("jax")
    pgx: Any = importlib.import_module("pgx")
    experimental: Any = importlib.import_module("pgx.experimental")

    env = pgx.make("connect_four")
    step = jax.vmap(experimental.auto_reset(env.step, env.init))

    def play_once(state: Any, key: Any) -> tuple[Any, Any]:
        key, action_key, step_key = jax.random.split(key, 3)
        action = experimental.act_randomly(action_key, state.legal_action_mask)
        return step(state, action, jax.random.split(step_key, num_envs)), key

    play = jax.jit(play_once)
    with jax.default_device(jax.devices("cpu")[0]):
        key = jax.random.PRNGKey(0)
        state = jax.jit(jax.vmap(env.init))(jax.random.split(key, num_envs))
        state, key = jax.block_until_ready(play(state, key))  # compiles

        def body() -> int:
            nonlocal state, key
            state, key = jax.block_until_ready(play(state, key))
            return num_envs

        return timed_loop(body, seconds)


def pgx_figures(seconds: float, trap_rate: float) -> list[Figure]:
    """pgx at each of :data:`PGX_BATCH_SIZES`, and ``trap_rate`` (TrapVectorEnv at the
    largest B, same run) over pgx's; without pgx, one row saying how to install it."""
    try:
        importlib.import_module("pgx")
    except ImportError:
        return [Figure(PGX_ROW, 0.0, "skipped", f"pgx not installed ({PGX_INSTALL})")]
    rates = {size: pgx_rate(size, seconds) for size in PGX_BATCH_SIZES}
    figures = [
        Figure(f"{PGX_ROW} B={size}", rate, "learner-steps/s", "CPU, random legal actions")
        for size, rate in rates.items()
    ]
    size = PGX_BATCH_SIZES[-1]
    ratio = trap_rate / rates[size]
    return [*figures, Figure(f"batch: TrapVectorEnv B={size} / pgx B={size}", ratio, "ratio")]


# --- The mcts search: scalar trees and the batched tree ---------------------------------

MCTS_SIMULATIONS = 32
"""Simulations per search in the mcts rows (each measurement repeats whole searches)."""
MCTS_BATCHES = (32, 256)
"""The batched tree's batch sizes."""


def scalar_trees_rate(num_trees: int, seconds: float, board_size: int = 7) -> float:
    """Simulations/s of ``num_trees`` scalar trees from the start, each simulation step
    evaluating the leaves of all of them in one call of a free network."""
    from agents.mcts.search import Tree

    start = initial_state(GameConfig(board_size))
    cells = board_size * board_size

    def searches() -> int:
        trees = [
            Tree(start, max_turns=resolve_turn_limit(None, board_size)) for _ in range(num_trees)
        ]
        for _ in range(MCTS_SIMULATIONS):
            leaves = [(tree, leaf) for tree in trees if (leaf := tree.select()) is not None]
            for tree, leaf in leaves:  # the free network: uniform priors, value 0
                tree.expand(leaf, np.zeros(cells), 0.0)
        return num_trees * MCTS_SIMULATIONS

    return timed_loop(searches, seconds)


def batched_tree_rate(num_games: int, seconds: float, board_size: int = 7) -> float:
    """Simulations/s of :class:`agents.mcts.batched.BatchedTree` over ``num_games`` games
    from the start, with a free network."""
    from agents.mcts.batched import BatchedTree, uniform_evaluator
    from trap_env import vector

    t = vector.tables(board_size)
    roots = vector.initial_batch(t, num_games)
    engine = vector.Engine(t)
    network = uniform_evaluator(engine)

    def searches() -> int:
        limit = resolve_turn_limit(None, board_size)
        tree = BatchedTree(engine, roots, MCTS_SIMULATIONS, max_turns=limit)
        tree.run(network)
        return num_games * MCTS_SIMULATIONS

    return timed_loop(searches, seconds)


def mcts_figures(seconds: float) -> list[Figure]:
    """The mcts rows (see the module docstring): the search's work, no network."""
    scalar = {size: scalar_trees_rate(size, seconds) for size in (1, MCTS_BATCHES[0])}
    batched = {size: batched_tree_rate(size, seconds) for size in MCTS_BATCHES}
    unit = "simulations/s"
    return [
        Figure("mcts: scalar Tree, 1 game", scalar[1], unit, "the agent's search"),
        Figure(
            f"mcts: {MCTS_BATCHES[0]} scalar Trees, batched evaluations",
            scalar[MCTS_BATCHES[0]],
            unit,
            "self-play before the batched tree",
        ),
        *(Figure(f"mcts: BatchedTree B={size}", rate, unit) for size, rate in batched.items()),
        Figure(
            f"mcts: BatchedTree B={MCTS_BATCHES[-1]} / {MCTS_BATCHES[0]} scalar Trees",
            batched[MCTS_BATCHES[-1]] / scalar[MCTS_BATCHES[0]],
            "ratio",
        ),
    ]


def ppo_learn_rates(envs: Any, n_steps: int, timesteps: int) -> tuple[float, float]:
    """MaskablePPO on ``envs`` (trap-train's default network, one epoch per rollout): the
    ``learn`` steps/s, and the steps/s of its rollouts alone (policy and env, no update)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from agents.rl.policy import TrapPolicy, policy_kwargs

    class RolloutClock(BaseCallback):
        seconds = 0.0
        started = 0.0

        def _on_rollout_start(self) -> None:
            self.started = time.perf_counter()

        def _on_rollout_end(self) -> None:
            self.seconds += time.perf_counter() - self.started

        def _on_step(self) -> bool:
            return True

    rollout = n_steps * envs.num_envs
    model = MaskablePPO(
        TrapPolicy,
        envs,
        n_steps=n_steps,
        batch_size=min(256, rollout),
        n_epochs=1,
        policy_kwargs=policy_kwargs(32, 4, 128),
        device="cpu",
        seed=0,
    )
    clock = RolloutClock()
    start = time.perf_counter()
    model.learn(timesteps, callback=clock)
    elapsed = time.perf_counter() - start
    return model.num_timesteps / elapsed, model.num_timesteps / clock.seconds


def ppo_figures(timesteps: int, batch: int = 256, processes: int = 2) -> list[Figure]:
    """MaskablePPO learn and rollout steps/s: the batched SB3 VecEnv against
    SubprocVecEnv over single envs, same run, same rollout size."""
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv, VecMonitor

    from agents.rl.vec_env import TrapBatchedVecEnv

    rollout = max(timesteps // 4, batch)  # four updates per measurement
    batched = VecMonitor(TrapBatchedVecEnv(batch, opponent="random"))
    batched_rates = ppo_learn_rates(batched, max(rollout // batch, 1), timesteps)
    # "module:id" makes each worker process import trap_env, which registers the id.
    subprocess_envs = make_vec_env(
        "trap_env:trap_env/Trap-v0", n_envs=processes, seed=0, vec_env_cls=SubprocVecEnv
    )
    try:
        single_rates = ppo_learn_rates(subprocess_envs, rollout // processes, timesteps)
    finally:
        subprocess_envs.close()
    figures = []
    for index, what in enumerate(("learn", "rollouts")):
        figures += [
            Figure(f"ppo {what}: TrapBatchedVecEnv B={batch}", batched_rates[index], "steps/s"),
            Figure(
                f"ppo {what}: SubprocVecEnv, {processes} Gym envs", single_rates[index], "steps/s"
            ),
            Figure(
                f"ppo {what}: batched / SubprocVecEnv",
                batched_rates[index] / single_rates[index],
                "ratio",
            ),
        ]
    return figures


def run(
    env_seconds: float, search_seconds: Sequence[float], depth: int, ppo_timesteps: int = 0
) -> list[Figure]:
    """All figures (the PPO rows only with ``ppo_timesteps``)."""
    figures = env_figures(env_seconds) + search_figures(search_seconds) + pruning_figures(depth)
    figures += batched_figures(env_seconds) + mcts_figures(env_seconds)
    return figures + (ppo_figures(ppo_timesteps) if ppo_timesteps else [])


def format_table(figures: Sequence[Figure]) -> str:
    """The figures as an aligned text table."""
    width = max(len(figure.name) for figure in figures)
    lines = [f"{'figure'.ljust(width)}  {'value':>12}  unit"]
    for figure in figures:
        value = f"{figure.value:,.2f}" if figure.unit == "ratio" else f"{figure.value:,.0f}"
        value = "-" if figure.unit == "skipped" else value
        note = f"  ({figure.note})" if figure.note else ""
        lines.append(f"{figure.name.ljust(width)}  {value:>12}  {figure.unit}{note}")
    return "\n".join(lines)


def build_parser() -> Parser:
    """The command line."""
    parser = Parser(prog=PROG, description="Speed figures of the core, the envs and the search.")
    parser.add_argument(
        "--seconds",
        type=positive_float,
        default=3.0,
        metavar="S",
        help="seconds per env/core measurement (default 3)",
    )
    parser.add_argument(
        "--search-seconds",
        type=positive_float,
        nargs="+",
        default=[1.0, 5.0],
        metavar="S",
        help="search time limits (default 1 5)",
    )
    parser.add_argument(
        "--depth",
        type=positive_int,
        default=4,
        help="depth of the node-count comparison (default 4)",
    )
    parser.add_argument(
        "--ppo-timesteps",
        type=int,
        default=8192,
        metavar="T",
        help="MaskablePPO learn steps per PPO row (default 8192; 0 skips the PPO rows)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a short run for tests: 0.2 s measurements, 0.2 s search, depth 2, no PPO rows",
    )
    parser.add_argument(
        "--json", type=Path, default=None, metavar="FILE", help="also write the figures as JSON"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Measure and print; 0 on success, 2 on bad input."""
    args = build_parser().parse_args(argv)
    if args.quick:
        args.seconds, args.search_seconds, args.depth = 0.2, [0.2], 2
        args.ppo_timesteps = 0
    try:
        if args.json is not None:
            _check_writable(args.json)
        figures = run(args.seconds, args.search_seconds, args.depth, args.ppo_timesteps)
    except CliError as error:
        return fail(PROG, error)
    print(format_table(figures))
    if args.json is not None:
        payload = {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "figures": [asdict(figure) for figure in figures],
        }
        write_text_atomically(args.json, json.dumps(payload, indent=2) + "\n")
    return 0


def _check_writable(path: Path) -> None:
    try:
        check_writable_file(path, "JSON file")
    except ValueError as error:
        raise CliError(error) from None


if __name__ == "__main__":
    sys.exit(main())

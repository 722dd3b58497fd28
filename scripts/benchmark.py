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
    tree, the agent's default) with the misses of each throw searched two plies shallower.

Example:
    trap-benchmark
    trap-benchmark --quick --json benchmark.json
"""

from __future__ import annotations

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

from trap_env.core import (
    GameConfig,
    Phase,
    State,
    apply,
    initial_state,
    is_terminal,
    legal_actions,
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
    plies, limit = 0, 4 * board_size * board_size
    while not is_terminal(state) and state.turn < limit:
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
        if is_terminal(state):
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


def run(env_seconds: float, search_seconds: Sequence[float], depth: int) -> list[Figure]:
    """All figures."""
    return env_figures(env_seconds) + search_figures(search_seconds) + pruning_figures(depth)


def format_table(figures: Sequence[Figure]) -> str:
    """The figures as an aligned text table."""
    width = max(len(figure.name) for figure in figures)
    lines = [f"{'figure'.ljust(width)}  {'value':>12}  unit"]
    for figure in figures:
        value = f"{figure.value:,.2f}" if figure.unit == "ratio" else f"{figure.value:,.0f}"
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
        "--quick",
        action="store_true",
        help="a short run for tests: 0.2 s measurements, 0.2 s search, depth 2",
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
    try:
        if args.json is not None:
            _check_writable(args.json)
        figures = run(args.seconds, args.search_seconds, args.depth)
    except CliError as error:
        return fail(PROG, error)
    print(format_table(figures))
    if args.json is not None:
        payload = {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "figures": [asdict(figure) for figure in figures],
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


def _check_writable(path: Path) -> None:
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as error:
        raise CliError(f"cannot write {str(path)!r}: {error}") from None


if __name__ == "__main__":
    sys.exit(main())

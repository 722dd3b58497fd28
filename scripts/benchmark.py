"""Every speed figure of the project in one run, beside a peer measured in the same run.

Rows:
  * core: random playouts through :mod:`trap_env.trap.core` (a random legal move, a random
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
  * the batched engine: :class:`trap_env.trap.batched_env.TrapVectorEnv` against ``random`` at
    B = 1, 64, 1024 and 8192 in learner steps per second (masks and observations
    produced), beside the single Gym env and Gymnasium's ``SyncVectorEnv`` over it, and the
    gate: B = 8192 over the single env, at least 50;
  * training against the reference search: the batched env's learner steps per second
    against ``expectiminimax:depth=2``, its batched twin
    (:class:`agents.trap.batched_search.BatchedExpectiminimax`) at B = 1024 against the scalar
    agent asked game by game at B = 64, and the gate: at least 10 times;
  * the batched peer, where pgx is installed (else a row saying how): pgx's
    ``connect_four`` on the CPU at B = 1024 and 8192, random legal actions, in learner
    steps per second (jit compilation excluded), and TrapVectorEnv's B = 8192 over pgx's;
  * the ``mcts`` search's own work, in simulations per second from the start, with a
    network of uniform priors and zero values that costs nothing (the network's forward
    pass is the same for every row, so it is left out): one scalar
    :class:`agents.mcts.search.Tree` (how the agent searches), 32 scalar trees with one
    batched evaluation per simulation step, and :class:`agents.mcts.batched.BatchedTree`
    over the batched engine at B = 32 and 256 (what self-play runs), with the ratio of
    B = 256 to the 32 trees;
  * Othello's batched engine at B = 8192, in plies per second with random legal actions
    (pgx's unit): the batched env in self-play and the engine alone
    (:mod:`trap_scripts.benchmarks.othello`; pgx's own figure, from a side venv, is in
    ``docs/experiments.md``);
  * MaskablePPO ``learn`` steps per second, and those of its rollouts alone (policy and
    env, without the updates), on the batched SB3 VecEnv against ``SubprocVecEnv`` over
    single envs (``--ppo-timesteps``; skipped by ``--quick``).

Example:
    trap-benchmark
    trap-benchmark --quick --json benchmark.json
"""

from __future__ import annotations

import json
import platform
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from trap_scripts._cli import (
    CliError,
    Parser,
    fail,
    non_negative_int,
    path,
    positive_float,
    positive_int,
)
from trap_scripts.benchmarks._shared import Figure
from trap_scripts.benchmarks.batched import batched_figures
from trap_scripts.benchmarks.envs import env_figures
from trap_scripts.benchmarks.mcts import mcts_figures
from trap_scripts.benchmarks.othello import othello_figures
from trap_scripts.benchmarks.ppo import ppo_figures
from trap_scripts.benchmarks.search import pruning_figures, search_figures
from trap_scripts.benchmarks.search_opponent import search_opponent_figures

from agents.files import check_writable_file, write_text_atomically

PROG = "trap-benchmark"


def run(
    env_seconds: float, search_seconds: Sequence[float], depth: int, ppo_timesteps: int = 0
) -> list[Figure]:
    """All figures (the PPO rows only with ``ppo_timesteps``)."""
    figures = env_figures(env_seconds) + search_figures(search_seconds) + pruning_figures(depth)
    figures += batched_figures(env_seconds) + search_opponent_figures(env_seconds)
    figures += mcts_figures(env_seconds)
    figures += othello_figures(env_seconds)
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
        type=non_negative_int,
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
        "--json", type=path, default=None, metavar="FILE", help="also write the figures as JSON"
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


def _check_writable(file: Path) -> None:
    try:
        check_writable_file(file, "JSON file")
    except ValueError as error:
        raise CliError(error) from None


if __name__ == "__main__":
    sys.exit(main())

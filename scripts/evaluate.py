"""Evaluate agents against each other: the project's main job.

With no arguments, a round robin of the built-in agents on Trap! 7x7 (the learned ``mcts``
and expectiminimax at 0.1 s a turn, greedy, random, and the bundled PPO policy when it is
installed; 20 games per pairing) sized to finish within 3 minutes on two cores. It says
in one line what it plays and where it writes, prints a table per pairing and per agent
(win rates with Wilson 95% intervals, Elo ratings by maximum likelihood with 95%
intervals), writes ``results.jsonl`` (one line per game, replayable with ``trap-play
--replay``) with its ``results.settings.json``, ``summary.txt`` and ``evaluate.png``
(win-rate matrix and ratings, under the game, board and time control) to the output
folder, and names them.

Example:
    trap-evaluate
    trap-evaluate --agents "expectiminimax:time_limit=1.0" greedy --games 200 --output results/emm
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from trap_scripts._cli import (
    DEFAULT_GAME,
    CliError,
    Parser,
    add_run_options,
    chosen_game,
    fail,
    run_config,
    run_round_robin,
)

from agents.arena.tournament import RunConfig, probe_specs
from agents.registry import agent_names

DEFAULT_AGENTS = (
    "mcts:time_limit=0.1",
    "expectiminimax:time_limit=0.1",
    "greedy",
    "random",
    "ppo",
)
"""The candidates evaluated by default in Trap!; those not installed (yet) are left out."""
OTHER_GAMES_AGENTS = ("mcts", "expectiminimax", "greedy", "random")
"""The candidates evaluated by default in another game, those of its table."""
DEFAULT_GAMES = 20
DEFAULT_OUTPUT = "results/evaluate"


def available_agents(
    specs: Sequence[str] = DEFAULT_AGENTS,
    game: str = DEFAULT_GAME,
    params: dict[str, Any] | None = None,
) -> list[str]:
    """The specs among ``specs`` whose agent builds here (ppo needs torch) and plays the
    game under the rule parameters ``params`` (its defaults if None).

    Each is built in a guarded child process (see :func:`agents.arena.tournament.check_specs`).
    """
    config = RunConfig(game_name=game, params=params or None)
    problems = probe_specs(specs, config)
    for spec, problem in problems.items():
        if problem is not None:  # a missing agent, torch or model file: leave it out
            print(f"trap-evaluate: leaving out {spec!r}: {problem}", file=sys.stderr)
    return [spec for spec, problem in problems.items() if problem is None]


def _default_agents(game: str) -> tuple[str, ...]:
    if game == DEFAULT_GAME:
        return DEFAULT_AGENTS
    names = agent_names(game)
    return tuple(spec for spec in OTHER_GAMES_AGENTS if spec in names)


def build_parser(game: str = DEFAULT_GAME) -> Parser:
    """The command line; the help gives the rules and defaults of ``game``."""
    parser = Parser(
        prog="trap-evaluate",
        description="Round robin of a game's agents (Trap!'s unless --game): table, results "
        "file and plot.",
    )
    parser.add_argument(
        "--agents",
        nargs="+",
        metavar="SPEC",
        default=None,
        help="agent specs, e.g. random greedy 'expectiminimax:time_limit=1.0' "
        "'mypackage.module.MyAgent:key=value' (default: the built-in agents: "
        f"{', '.join(DEFAULT_AGENTS)}, those installed; in another game, its "
        f"{', '.join(OTHER_GAMES_AGENTS)})",
    )
    add_run_options(parser, games=DEFAULT_GAMES, output=DEFAULT_OUTPUT, game=game)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the evaluation; 0 on success, 2 on bad input."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(chosen_game(argv)).parse_args(argv)
    try:
        params = run_config(args).params  # the rules refused before any agent is built
        specs = args.agents or available_agents(_default_agents(args.game), args.game, params)
        run_round_robin(specs, args, plot_name="evaluate.png", prog="trap-evaluate")
    except CliError as error:
        return fail("trap-evaluate", error)
    return 0


if __name__ == "__main__":
    sys.exit(main())

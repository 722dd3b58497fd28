"""A round robin between any agent specs, with every option of the match runner.

Each pair of agents plays ``--games`` games, seats alternating, in parallel worker
processes; each turn has a CPU-time budget and a wall-clock ceiling, and an agent that runs
over, raises, or answers with an illegal cell or None loses that game (the reason is
recorded) while the run goes on. Every finished game is appended to
``OUTPUT/results.jsonl`` at once; ``--resume`` continues a run that was stopped.

A game's rules are ``--rule NAME=VALUE`` (``--board-size N`` said short); an integer rule
given as ``LOW-HIGH`` is drawn per game from the game's seed. ``--help`` gives the rules
and defaults of the game that ``--game`` names.

Example:
    trap-tournament random greedy "expectiminimax:time_limit=0.5" mypackage.agents.MyAgent \\
        --games 50 --time-budget 1 --workers 2 --output results/my-tournament
    trap-tournament random greedy --game colosseum --rule board_size=6-12 --games 20
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from trap_scripts._cli import (
    DEFAULT_GAME,
    CliError,
    Parser,
    add_run_options,
    chosen_game,
    fail,
    run_round_robin,
)

DEFAULT_GAMES = 10
DEFAULT_OUTPUT = "results/tournament"


def build_parser(game: str = DEFAULT_GAME) -> Parser:
    """The command line; the help gives the rules and defaults of ``game``."""
    parser = Parser(
        prog="trap-tournament",
        description="Round robin between agent specs of a game (Trap!'s unless --game; "
        "registered names or dotted class paths, with options as name:key=value,...).",
    )
    parser.add_argument("agents", nargs="+", metavar="SPEC", help="two or more agent specs")
    add_run_options(parser, games=DEFAULT_GAMES, output=DEFAULT_OUTPUT, game=game)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the tournament; 0 on success, 2 on bad input."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(chosen_game(argv)).parse_args(argv)
    try:
        run_round_robin(args.agents, args, plot_name="tournament.png", prog="trap-tournament")
    except CliError as error:
        return fail("trap-tournament", error)
    return 0


if __name__ == "__main__":
    sys.exit(main())

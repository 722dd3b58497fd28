"""Rate an agent against its game's ladder: one line a paper can quote, and a card.

The ladder is a fixed set of opponents that play without a clock, with published ratings
(``agents/rating/ladders``); the games are the same for every policy; the rating is the
maximum-likelihood one against the rungs' fixed ratings, with a 95% interval. The games go
to ``OUTPUT/results.jsonl`` as they finish (``--resume`` finishes a stopped run) and the
card to ``OUTPUT/card.json``.

``--calibrate`` plays instead the ladder's own round robin (the one its ratings come from)
and writes the ladder with the ratings it gives to ``OUTPUT/ladder.json``.

Example:
    trap-rate greedy --game othello
    trap-rate "ppo:path=runs/x/best/best_model.zip" --game trap --games 400 --workers 2
    trap-rate --calibrate --game colosseum --workers 2 --output results/ladder-colosseum
"""

from __future__ import annotations

import argparse
import datetime
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from trap_scripts._cli import (
    CliError,
    Parser,
    add_game_option,
    fail,
    finite_seconds,
    non_negative_int,
    path,
)

from agents.arena.tournament import BACKENDS, run_games
from agents.files import write_text_atomically
from agents.rating.ladder import Calibration, Ladder, calibration_tasks, fit_ratings, load_ladder
from agents.rating.run import DEFAULT_CPU_CAP, DEFAULT_GAMES, rate_spec


def even_games(text: str) -> int:
    """An even number of games >= 2."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 2 or value % 2 or value > 1_000_000:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an even number of games from 2 to 1000000"
        )
    return value


def build_parser() -> Parser:
    """The command line."""
    parser = Parser(
        prog="trap-rate",
        description="Rate an agent spec against the game's ladder of fixed opponents (Trap!'s "
        "unless --game), or --calibrate the ladder itself.",
    )
    parser.add_argument("spec", nargs="?", metavar="SPEC", help="the agent spec to rate")
    add_game_option(parser)
    parser.add_argument("--games", type=even_games, default=DEFAULT_GAMES, metavar="N",
                        help=f"games to play, an even number (default {DEFAULT_GAMES})")
    parser.add_argument("--seed", type=int, default=0,
                        help="the openings' seed (default 0: the ladder's standard games)")
    parser.add_argument("--cpu-cap", type=finite_seconds, default=DEFAULT_CPU_CAP, metavar="S",
                        help="CPU seconds per turn before a player loses by time "
                        f"(default {DEFAULT_CPU_CAP:g})")
    parser.add_argument("--workers", type=non_negative_int, default=None, metavar="W",
                        help="worker processes (default: all cores; 0: in this process)")
    parser.add_argument("--backend", choices=list(BACKENDS), default="process",
                        help="worker processes, or one Ray task per game (default process)")
    parser.add_argument("--address", default=None, metavar="ADDR",
                        help="with --backend ray: the HOST:PORT of a running Ray cluster")
    parser.add_argument("--output", type=path, default=None, metavar="DIR",
                        help="folder for results.jsonl and card.json (default "
                        "results/rate/GAME-SPEC)")
    existing = parser.add_mutually_exclusive_group()
    existing.add_argument("--resume", action="store_true",
                          help="keep the games already in DIR and play the rest")
    existing.add_argument("--overwrite", action="store_true",
                          help="replace the rating already in DIR")
    parser.add_argument("--calibrate", action="store_true",
                        help="play the ladder's round robin and write DIR/ladder.json")
    parser.add_argument("--ladder", type=path, default=None, metavar="FILE",
                        help="a ladder file to use instead of the game's shipped one, checked "
                        "when read: its rungs are agents of the game by name, without a clock")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Rate the spec (or calibrate the ladder); 0 on success, 2 on bad input."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if (args.spec is None) != args.calibrate:
        parser.error("give an agent SPEC to rate, or --calibrate (not both)")
    try:
        ladder = load_ladder(args.game, args.ladder)
        options = {"workers": args.workers, "backend": args.backend, "address": args.address}
        if args.calibrate:
            _calibrate(ladder, args, options, argv)
        else:
            _rate(ladder, args, options)
    except (ValueError, OSError) as error:
        return fail("trap-rate", error)
    except KeyboardInterrupt:
        return fail("trap-rate", "interrupted; finished games are kept, run again with --resume")
    return 0


def _rate(ladder: Ladder, args: argparse.Namespace, options: dict[str, object]) -> None:
    output = args.output or Path("results", "rate", f"{ladder.game}-{_slug(args.spec)}")
    print(f"rating {args.spec!r} on the {ladder.name} ({len(ladder.rungs)} opponents), "
          f"{args.games} games; results in {output}", flush=True)
    started = time.monotonic()
    card = rate_spec(
        ladder, args.spec, output, games=args.games, seed=args.seed, cpu_cap=args.cpu_cap,
        run_options=options, resume=args.resume, overwrite=args.overwrite,
        say=lambda line: print(line, flush=True),
    )
    for rung in card.opponents:
        print(f"  {rung.spec:48s} {rung.rating:7.1f}  {rung.wins}-{rung.draws}-{rung.losses}"
              + (f" ({rung.faults} faults)" if rung.faults else ""))
    print(f"{time.monotonic() - started:.0f} s; card: {output / 'card.json'}")
    print(card.line)


def _calibrate(
    ladder: Ladder, args: argparse.Namespace, options: dict[str, object],
    argv: Sequence[str] | None,
) -> None:
    output = args.output or Path("results", f"ladder-{ladder.game}")
    tasks = calibration_tasks(ladder)
    print(f"calibrating the {ladder.name}: {len(tasks)} games; results in {output}", flush=True)
    output.mkdir(parents=True, exist_ok=True)
    records = run_games(tasks, output / "results.jsonl", ladder.run_config(**options),
                        resume=args.resume, overwrite=args.overwrite)
    if len(records) < len(tasks):
        raise CliError(
            f"{len(tasks) - len(records)} games were left unplayed; run again with --resume"
        )
    words = sys.argv[1:] if argv is None else list(argv)
    calibration = Calibration(
        ladder.calibration.games_per_pairing, ladder.calibration.seed, len(records),
        shlex.join(["trap-rate", *words]), datetime.date.today().isoformat(),
    )
    rated = ladder.with_ratings(fit_ratings(records), calibration)
    write_text_atomically(output / "ladder.json", rated.to_json())
    for rung in sorted(rated.rungs, key=lambda rung: rung.rating):
        print(f"  {rung.spec:48s} {rung.rating:7.1f}")
    print(f"ladder: {output / 'ladder.json'}")


def _slug(spec: str) -> str:
    """A folder name for a spec: its letters and digits, other runs as one '-'."""
    slug = "".join(char if char.isalnum() else "-" for char in spec)
    return "-".join(part for part in slug.split("-") if part)[:60] or "spec"


if __name__ == "__main__":
    sys.exit(main())

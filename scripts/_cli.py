"""What the command-line tools share: one-line errors, number types, the run options."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from agents.arena.stats import format_report, plot_report
from agents.arena.tournament import RunConfig, check_specs, round_robin, run_games
from agents.base import SpecError

T = TypeVar("T")


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``prog: error: message``."""

    def error(self, message: str) -> NoReturn:
        """Print the error in one line and exit with status 2."""
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


class CliError(Exception):
    """A user's mistake to report in one line, with a non-zero exit."""


def fail(prog: str, message: object) -> int:
    """Print ``prog: error: message`` to stderr and return the exit status 2."""
    print(f"{prog}: error: {message}", file=sys.stderr)
    return 2


def positive_int(text: str) -> int:
    """An integer >= 1."""
    return _number(text, int, lambda value: value >= 1, "an integer >= 1")


def non_negative_int(text: str) -> int:
    """An integer >= 0."""
    return _number(text, int, lambda value: value >= 0, "an integer >= 0")


def positive_float(text: str) -> float:
    """A number > 0."""
    return _number(text, float, lambda value: value > 0, "a number > 0")


def non_negative_float(text: str) -> float:
    """A number >= 0."""
    return _number(text, float, lambda value: value >= 0, "a number >= 0")


def board_size(text: str) -> int:
    """A board size N >= 3."""
    return _number(text, int, lambda value: value >= 3, "an integer >= 3")


def seconds_or_none(text: str) -> float | None:
    """Positive seconds, or ``none`` for no limit."""
    if text.lower() == "none":
        return None
    return _number(text, float, lambda value: value > 0, "positive seconds or 'none'")


def _number(text: str, kind: Callable[[str], T], is_valid: Callable[[T], bool], expected: str) -> T:
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {expected}") from None
    if not is_valid(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not {expected}")
    return value


def add_run_options(parser: argparse.ArgumentParser, games: int, output: str) -> None:
    """The options of a round robin: games, board, time, workers, seed, output, resume."""
    group = parser.add_argument_group("run")
    group.add_argument(
        "--games",
        type=positive_int,
        default=games,
        metavar="N",
        help=f"games per pairing, seats alternating (default {games})",
    )
    group.add_argument(
        "--board-size", type=board_size, default=7, metavar="N", help="board side N (default 7)"
    )
    group.add_argument(
        "--max-turns",
        type=positive_int,
        default=None,
        metavar="T",
        help="draw by truncation after T turns (default 4*N*N)",
    )
    group.add_argument(
        "--time-budget",
        type=seconds_or_none,
        default=5.0,
        metavar="S",
        help="CPU seconds per turn, move and throw together; 'none' for no limit (default 5)",
    )
    group.add_argument(
        "--wall-ceiling",
        type=seconds_or_none,
        default=None,
        metavar="S",
        help="wall-clock seconds per turn before a worker is killed (default 2*budget+1)",
    )
    group.add_argument(
        "--workers",
        type=non_negative_int,
        default=None,
        metavar="W",
        help="worker processes (default: all cores; 0: in this process)",
    )
    group.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    group.add_argument(
        "--output",
        type=Path,
        default=Path(output),
        metavar="DIR",
        help=f"folder for results.jsonl, summary.txt and a plot (default {output})",
    )
    group.add_argument(
        "--resume",
        action="store_true",
        help="keep the games already in DIR/results.jsonl, play the rest",
    )
    group.add_argument("--no-plot", action="store_true", help="do not write the PNG plot")
    group.add_argument("--quiet", action="store_true", help="no progress bar")


def run_round_robin(specs: Sequence[str], args: argparse.Namespace, plot_name: str) -> None:
    """Check everything, play the round robin, print and save the report.

    Raises:
        CliError: for a bad spec, setting or output folder (before any game starts).
    """
    config = _run_config(args)
    try:
        tasks = round_robin(list(specs), args.games, args.seed)
        check_specs(specs)
    except (SpecError, ValueError) as error:
        raise CliError(error) from None
    results_path = args.output / "results.jsonl"
    _check_writable(args.output)
    started = time.monotonic()
    try:
        records = run_games(
            tasks, results_path, config, resume=args.resume, progress=not args.quiet
        )
    except ValueError as error:
        raise CliError(error) from None
    except KeyboardInterrupt:
        raise CliError(
            f"interrupted; finished games are in {results_path}, run again with "
            "--resume to play the rest"
        ) from None
    elapsed = time.monotonic() - started
    report = format_report(records)
    print(report)
    print(f"\n{len(records)} games in {elapsed:.0f} s; results: {results_path}")
    (args.output / "summary.txt").write_text(report + "\n", encoding="utf-8")
    if not args.no_plot:
        _plot(records, args.output / plot_name)


def _run_config(args: argparse.Namespace) -> RunConfig:
    try:
        return RunConfig(
            board_size=args.board_size,
            max_turns=args.max_turns,
            time_budget=args.time_budget,
            wall_ceiling=args.wall_ceiling,
            workers=args.workers,
        )
    except ValueError as error:
        raise CliError(error) from None


def _check_writable(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        raise CliError(f"cannot write to the output folder {str(folder)!r}: {error}") from None


def _plot(records: Sequence[dict[str, Any]], path: Path) -> None:
    try:
        plot_report(records, path)
    except ImportError as error:
        print(f"no plot: {error}", file=sys.stderr)
        return
    print(f"plot: {path}")

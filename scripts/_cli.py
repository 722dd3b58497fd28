"""What the command-line tools share: one-line errors, number types, the run options."""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from agents.arena.results import settings_path
from agents.arena.stats import format_report, plot_report, run_title
from agents.arena.tournament import BACKENDS, MAX_SECONDS, RunConfig, round_robin, run_games
from agents.files import check_writable_folder, write_text_atomically
from agents.options import given_rules, rule_pair
from agents.program import DEFAULT_MEMORY_LIMIT, MAX_MEMORY_LIMIT
from trap_env.game import played_params
from trap_env.games import game_names, get_game
from trap_env.trap.core import DEFAULT_DECAY, MAX_DECAY

DEFAULT_GAME = "trap"
"""The game every command plays unless told ``--game`` (Trap!, the suite's first)."""

MAX_GAMES = 1_000_000
"""The most games per pairing a run accepts (the task list is built in memory)."""

T = TypeVar("T")


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``prog: error: message``."""

    def error(self, message: str) -> NoReturn:
        """Print the error in one line and exit with status 2."""
        self.exit(2, f"{self.prog}: error: {one_line(message)} (see --help)\n")

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """Parse as argparse does, but refuse ``--flag=--``: argparse (3.11) drops the
        ``--`` and hands the option an empty list instead of a value."""
        words = sys.argv[1:] if args is None else list(args)
        for word in words:
            flag, sep, value = word.partition("=")
            if flag.startswith("-") and sep and value == "--":
                self.error(f"argument {flag}: expected a value, not '--'")
        return super().parse_known_args(words, namespace)


class CliError(Exception):
    """A user's mistake to report in one line, with a non-zero exit."""


def fail(prog: str, message: object) -> int:
    """Print ``prog: error: message`` to stderr and return the exit status 2."""
    print(f"{prog}: error: {one_line(str(message))}", file=sys.stderr)
    return 2


def one_line(text: str) -> str:
    """``text`` with line breaks and other control characters escaped, so it stays one line."""
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def path(text: str) -> Path:
    """A file or folder path: any text without a NUL character (no system takes one)."""
    if "\x00" in text:
        raise argparse.ArgumentTypeError(f"{text!r} is not a path: it holds a NUL character")
    return Path(text)


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


def board_size_or_range(text: str) -> int | tuple[int, int]:
    """A board size N >= 3, or a range ``LOW-HIGH`` of sizes to draw one from per game."""
    low, sep, high = text.partition("-")
    if not sep:
        return board_size(text)
    sizes = board_size(low), board_size(high)
    if sizes[0] > sizes[1]:
        raise argparse.ArgumentTypeError(f"{text!r} is not LOW-HIGH with LOW <= HIGH, e.g. 6-12")
    return sizes


def decay(text: str) -> int:
    """The throw's accuracy loss per step of distance beyond the first, per mille: 0 to 1000."""
    return _number(
        text, int, lambda value: 0 <= value <= MAX_DECAY, f"an integer per mille 0..{MAX_DECAY}"
    )


def add_decay_option(parser: argparse._ActionsContainer) -> None:
    """The ``--decay PER_MILLE`` option: Trap!'s rule ``decay`` (``--rule decay=PER_MILLE``)."""
    parser.add_argument(
        "--decay",
        type=decay,
        default=None,
        metavar="PER_MILLE",
        help="Trap!'s throw accuracy loss per step of distance beyond the first, per mille "
        f"(0..{MAX_DECAY}; 0: every throw lands on its target; default {DEFAULT_DECAY}, "
        "the game as specified); the rule decay=PER_MILLE said on its own",
    )


def add_game_option(parser: argparse._ActionsContainer) -> None:
    """The ``--game NAME`` option: which game of :mod:`trap_env.games` is played."""
    parser.add_argument(
        "--game",
        type=game_name,
        default=DEFAULT_GAME,
        metavar="NAME",
        help=f"the game played: {', '.join(game_names())}, or a game's path "
        f"'package.module:GAME' (default {DEFAULT_GAME})",
    )


def add_rule_option(parser: argparse._ActionsContainer) -> None:
    """The ``--rule KEY=VALUE`` option: a rule parameter of a game other than Trap!."""
    parser.add_argument(
        "--rule",
        type=rule_pair,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a rule parameter of the game (e.g. end_rule=course for othello, decay=30 for "
        "trap), repeatable",
    )


def rule_params(args: argparse.Namespace) -> dict[str, Any]:
    """The rule parameters that ``--board-size``, ``--rule`` and ``--decay`` give
    ``args.game`` (those not given: the game's defaults), as ``make_config`` takes them.

    Raises:
        CliError: for a rule given twice, or ``--decay`` with a game without that rule.
    """
    size = None if board_sizes(args) else args.board_size
    pairs = [*getattr(args, "rule", [])]
    if args.decay is not None:
        found = get_game(args.game)
        if "decay" not in played_params(found):
            raise CliError(f"--decay is a rule of Trap! only, not of {args.game!r}")
        pairs.append(("decay", args.decay))
    try:
        return given_rules(size, pairs)
    except ValueError as error:
        raise CliError(error) from None


def board_sizes(args: argparse.Namespace) -> tuple[int, int] | None:
    """The range of ``--board-size LOW-HIGH`` (a size drawn per game), or None."""
    return args.board_size if isinstance(args.board_size, tuple) else None


def game_name(text: str) -> str:
    """A registered game's name, or the path of a game (:func:`trap_env.games.get_game`)."""
    try:
        get_game(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def games_per_pairing(text: str) -> int:
    """A number of games per pairing, 1 to :data:`MAX_GAMES`."""
    return _number(text, int, lambda value: 1 <= value <= MAX_GAMES, f"an integer 1..{MAX_GAMES}")


def _is_unlimited(text: str) -> bool:
    return text.strip().lower() in ("none", "inf", "+inf", "infinity", "+infinity")


def _seconds(text: str) -> float:
    expected = f"positive seconds up to {MAX_SECONDS:.0f}, or 'none' for no limit"
    return _number(text, float, lambda value: 0 < value <= MAX_SECONDS, expected)


def seconds_or_none(text: str) -> float | None:
    """Positive seconds (at most :data:`MAX_SECONDS`), or ``none``/``inf`` for no limit."""
    return None if _is_unlimited(text) else _seconds(text)


def ceiling_seconds(text: str) -> float:
    """Positive seconds (at most :data:`MAX_SECONDS`), or ``none``/``inf`` (``math.inf``)."""
    return math.inf if _is_unlimited(text) else _seconds(text)


def memory_or_none(text: str) -> int | None:
    """Bytes, or a number with a unit ``K``, ``M`` or ``G`` (powers of 1024); ``none``: no limit."""
    if _is_unlimited(text):
        return None
    number, scale = text.strip(), 1
    unit = number[-1:].upper()
    if unit in _MEMORY_UNITS:
        number, scale = number[:-1], _MEMORY_UNITS[unit]
    expected = (
        f"a memory size such as 1073741824, 512M or 2G (at most {MAX_MEMORY_LIMIT} bytes, "
        "what RLIMIT_AS holds), or 'none'"
    )
    try:
        return _number(number, int, lambda n: 1 <= n * scale <= MAX_MEMORY_LIMIT, expected) * scale
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {expected}") from None


_MEMORY_UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def _number(text: str, kind: Callable[[str], T], is_valid: Callable[[T], bool], expected: str) -> T:
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {expected}") from None
    if not is_valid(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not {expected}")
    return value


def add_run_options(parser: argparse.ArgumentParser, games: int, output: str) -> None:
    """The options of a round robin: game, games, board, decay, time, workers, seed, output,
    resume."""
    group = parser.add_argument_group("run")
    add_game_option(group)
    group.add_argument(
        "--games",
        type=games_per_pairing,
        default=games,
        metavar="N",
        help=f"games per pairing, seats alternating (default {games})",
    )
    group.add_argument(
        "--board-size",
        type=board_size_or_range,
        default=None,
        metavar="N",
        help="board side N (default: the game's own; Trap!'s 7), or LOW-HIGH for a size "
        "drawn per game from the game's seed (e.g. 6-12)",
    )
    add_rule_option(group)
    group.add_argument(
        "--random-opening",
        type=non_negative_int,
        default=0,
        metavar="K",
        help="open each game with K uniformly random legal actions drawn from its seed, each "
        "opening played from both seats (default 0; e.g. 4 for Othello's deterministic "
        "searches)",
    )
    group.add_argument(
        "--max-turns",
        type=positive_int,
        default=None,
        metavar="T",
        help="draw by truncation after T turns (default 4*N*N)",
    )
    add_decay_option(group)
    group.add_argument(
        "--time-budget",
        type=seconds_or_none,
        default=5.0,
        metavar="S",
        help="CPU seconds per turn, move and throw together; 'none' for no limit (default 5)",
    )
    group.add_argument(
        "--wall-ceiling",
        type=ceiling_seconds,
        default=None,
        metavar="S",
        help="wall-clock seconds per turn before a worker is killed; 'none' for no ceiling "
        "(default 2*budget+1, none without a budget)",
    )
    group.add_argument(
        "--workers",
        type=non_negative_int,
        default=None,
        metavar="W",
        help="worker processes (default: all cores; 0: in this process); with --backend "
        "ray, the local cluster's CPUs, or at most W games at once on --address",
    )
    group.add_argument(
        "--backend",
        choices=list(BACKENDS),
        default="process",
        help="where games run: worker processes on this machine, or one Ray task per game "
        "(needs the extra 'distributed'; default process)",
    )
    group.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="with --backend ray: the HOST:PORT of a running Ray cluster (default: start a "
        "local one, listening on 127.0.0.1 only)",
    )
    group.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    group.add_argument(
        "--output",
        type=path,
        default=Path(output),
        metavar="DIR",
        help=f"folder for results.jsonl (its settings beside it), summary.txt and a "
        f"plot (default {output}); a second run into it at the same time is refused",
    )
    existing = group.add_mutually_exclusive_group()  # what to do with games already in DIR
    existing.add_argument(
        "--resume",
        action="store_true",
        help="keep the games already in DIR/results.jsonl (recorded with the same "
        "settings), play the rest",
    )
    existing.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the games already in DIR/results.jsonl",
    )
    group.add_argument("--no-plot", action="store_true", help="do not write the PNG plot")
    group.add_argument("--quiet", action="store_true", help="no progress bar")
    group.add_argument(
        "--memory-limit",
        type=memory_or_none,
        default=DEFAULT_MEMORY_LIMIT,
        metavar="SIZE",
        help="address space of each program agent (exec:COMMAND), e.g. 512M or 2G; "
        "'none' for no limit (default 1G)",
    )


def run_round_robin(specs: Sequence[str], args: argparse.Namespace, plot_name: str) -> None:
    """Check everything, say what runs, play the round robin, print and save the report,
    and name every file written.

    Raises:
        CliError: for a bad spec, setting or output folder (before any game starts), or
            games left unplayed (stalled by the machine, lost by the cluster, or whose
            workers died before they began, again and again).
    """
    config = _run_config(args)
    try:
        paired = bool(getattr(get_game(args.game), "paired_starts", False)) or bool(
            args.random_opening
        )
        tasks = round_robin(list(specs), args.games, args.seed, paired_seeds=paired)
    except ValueError as error:
        raise CliError(error) from None
    results_path = args.output / "results.jsonl"
    _check_writable(args.output)
    print(f"{_run_line(specs, config, args.games, len(tasks))}; writing to {args.output}",
          flush=True)  # fmt: skip
    started = time.monotonic()
    try:
        records = run_games(
            tasks,
            results_path,
            config,
            resume=args.resume,
            overwrite=args.overwrite,
            progress=not args.quiet,
        )
    except (ValueError, OSError) as error:  # specs, settings, results folder
        raise CliError(error) from None
    except KeyboardInterrupt:
        raise CliError(
            f"interrupted; finished games are in {results_path}, run again with "
            "--resume to play the rest"
        ) from None
    elapsed = time.monotonic() - started
    report = format_report(records)
    print(report)
    written = [results_path, settings_path(results_path), args.output / "summary.txt"]
    write_text_atomically(written[-1], report + "\n")
    if not args.no_plot and records and _plot(records, args.output / plot_name):
        written.append(args.output / plot_name)
    names = ", ".join(path.name for path in written)
    print(f"\n{len(records)} games in {elapsed:.0f} s; wrote in {args.output}: {names}")
    if len(records) < len(tasks):
        raise CliError(
            f"{len(tasks) - len(records)} games were left unplayed: the machine stalled them, "
            "the cluster lost them or their workers died before they began, again and again "
            "(see above); run again with --resume"
        )


def _run_line(specs: Sequence[str], config: RunConfig, games: int, num_games: int) -> str:
    """What a round robin plays: game, rules, time control, agents and games."""
    rules = get_game(config.game_name)
    played = [rules.config_params(game) for game in config.games]
    title = run_title(config.game_name, played, config.time_budget)
    return (
        f"{title}: {len(specs)} agents ({', '.join(specs)}), {games} games per pairing "
        f"({num_games} games)"
    )


def _run_config(args: argparse.Namespace) -> RunConfig:
    try:
        return RunConfig(
            params=rule_params(args) or None,
            board_sizes=board_sizes(args),
            opening_plies=args.random_opening,
            max_turns=args.max_turns,
            time_budget=args.time_budget,
            wall_ceiling=args.wall_ceiling,
            workers=args.workers,
            memory_limit=args.memory_limit,
            backend=args.backend,
            address=args.address,
            game_name=args.game,
        )
    except ValueError as error:
        raise CliError(error) from None


def _check_writable(folder: Path) -> None:
    try:
        check_writable_folder(folder, "output folder")
    except ValueError as error:
        raise CliError(error) from None


def _plot(records: Sequence[dict[str, Any]], path: Path) -> bool:
    """Save the plot; False (said on stderr) if matplotlib is missing."""
    try:
        plot_report(records, path)
    except ImportError as error:
        print(f"no plot: {error}", file=sys.stderr)
        return False
    return True

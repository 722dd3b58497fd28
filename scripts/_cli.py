"""What the command-line tools share: one-line errors, number types, the run options."""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from agents.arena.record_rules import DrawnRule
from agents.arena.results import settings_path
from agents.arena.stats import format_report, plot_report, run_title
from agents.arena.tournament import BACKENDS, MAX_SECONDS, RunConfig, round_robin, run_games
from agents.files import check_writable_folder, write_text_atomically
from agents.options import given_rules, rule_pair
from agents.program import DEFAULT_MEMORY_LIMIT, MAX_MEMORY_LIMIT
from trap_env.game import Game, played_params
from trap_env.games import game_names, get_game

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


def given_options(
    parser: argparse.ArgumentParser, words: Sequence[str], args: argparse.Namespace
) -> list[str]:
    """The options (by ``dest``, in the parser's order) that ``words`` give, told apart from
    their defaults: ``--seed 0`` is given though 0 is the default.

    ``words`` are parsed again into a namespace where every option of ``args`` (their parse)
    is already set, so argparse fills in no default: what it sets is what was given. An
    appending option starts from an empty list (argparse appends to what is there); an
    optional positional left out is set to its default all the same, and counts as not given.
    """
    unset = object()
    start = {dest: [] if isinstance(value, list) else unset for dest, value in vars(args).items()}
    found = vars(parser.parse_args(words, argparse.Namespace(**start)))
    positional = {action.dest for action in parser._actions if not action.option_strings}
    return [
        dest for dest, value in found.items()
        if value is not unset and value != []
        and not (dest in positional and value is parser.get_default(dest))
    ]  # fmt: skip


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


def chosen_game(argv: Sequence[str], default: str = DEFAULT_GAME) -> str:
    """The game that ``--game NAME`` names in ``argv``, read before the parse so that each
    option's help gives that game's rules and defaults: ``default`` when none is named, or
    the name is no game (the parse then says so).

    Example:
        >>> chosen_game(["random", "greedy", "--game=othello"])
        'othello'
    """
    name = default
    for index, word in enumerate(argv):
        if word == "--game" and index + 1 < len(argv):
            name = argv[index + 1]
        elif word.startswith("--game="):
            name = word.partition("=")[2]
    try:
        get_game(name)
    except ValueError:
        return default
    return name


def add_rule_options(parser: argparse._ActionsContainer, game: str) -> None:
    """The options that give a game its rules, with the rules and defaults of ``game`` (the
    game the command line names: :func:`chosen_game`) in their help.

    ``--rule NAME=VALUE``, repeatable, gives any rule of any game; an integer rule given as
    ``LOW-HIGH`` is drawn per game from the game's seed. ``--board-size N`` is
    ``--rule board_size=N`` said short; ``--decay D`` is ``--rule decay=D``, an alias kept
    for the command lines written before ``--rule``, which says so once
    (:func:`note_aliases`). :func:`rule_params` reads them (:data:`RULE_FLAGS`).
    """
    found = get_game(game)
    rules = played_params(found)
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule of the game, repeatable; an integer rule as NAME=LOW-HIGH is drawn per "
        f"game from the game's seed (e.g. board_size=6-12). {rules_text(found, rules)}",
    )
    size = rules.get("board_size")
    parser.add_argument(
        "--board-size",
        metavar="N",
        help="--rule board_size=N said short: the board's side, or LOW-HIGH for a size drawn "
        "per game "
        + (f"(default {size})" if size is not None else f"({found.title} has no board_size)"),
    )
    parser.add_argument(
        "--decay",
        metavar="PER_MILLE",
        help="Trap!'s throw accuracy loss per step of distance beyond the first, per mille "
        "(0: every throw lands on its target): an alias of --rule decay=PER_MILLE"
        + ("" if "decay" in rules else f" ({found.title} has no decay)"),
    )


RULE_FLAGS = {"board_size": False, "decay": True}
"""The rules with a flag of their own (``--board-size``, ``--decay``: the last one given
counts, as for any flag), and whether the flag is an alias kept for the command lines
written before ``--rule`` (:func:`note_aliases` says so)."""


def add_max_turns_option(parser: argparse._ActionsContainer, game: str, what: str) -> None:
    """The ``--max-turns T`` option, its default the turn limit of ``game`` (``what``: what
    happens after T turns)."""
    parser.add_argument(
        "--max-turns",
        type=positive_int,
        default=None,
        metavar="T",
        help=f"{what} after T turns (default: {turn_limit_text(game)})",
    )


def turn_limit_text(game: str) -> str:
    """The turn limit that ``game`` applies by default, in words: the limit under its
    default rules (the game's ``default_turn_limit``; other rules may give another).

    Example:
        >>> turn_limit_text("trap")
        "Trap!'s own limit, 196 under its default rules"
    """
    found = get_game(game)
    limit = found.default_turn_limit(found.make_config())
    return f"{found.title}'s own limit, {limit} under its default rules"


def rules_text(game: Game[Any, Any], rules: dict[str, Any]) -> str:
    """``"Trap!'s rules, at their defaults: board_size=7, decay=50"``."""
    listed = ", ".join(f"{name}={value}" for name, value in rules.items())
    return f"{game.title}'s rules, at their defaults: {listed or 'none'}"


def note_aliases(prog: str, args: argparse.Namespace) -> None:
    """Say once, on stderr, that each alias flag given (``--decay``) is a ``--rule``: when
    the command starts its work (an error is one line on its own)."""
    for name, is_alias in RULE_FLAGS.items():
        if is_alias and getattr(args, name, None) is not None:
            flag = "--" + name.replace("_", "-")
            print(f"{prog}: note: {flag} is an alias of --rule {name}=VALUE", file=sys.stderr)


def rule_params(args: argparse.Namespace) -> dict[str, Any]:
    """The rules that ``--rule``, ``--board-size`` and ``--decay`` give ``args.game``
    (:func:`parse_rules`).

    Raises:
        CliError: as :func:`parse_rules`.
    """
    flags = [f"{name}={getattr(args, name)}" for name in RULE_FLAGS
             if getattr(args, name, None) is not None]  # fmt: skip
    return parse_rules([*getattr(args, "rule", []), *flags], args.game)


def parse_rules(texts: Sequence[str], game: str) -> dict[str, Any]:
    """The rules of ``game`` that ``--rule`` texts (``NAME=VALUE``) give, as
    :class:`RunConfig`'s ``params`` takes them: an integer as an integer, ``LOW-HIGH`` as a
    rule drawn per game (:class:`DrawnRule`), anything else as text (the game's
    ``make_config`` says what each rule allows).

    Raises:
        CliError: for text that is not NAME=VALUE, a rule given twice, or a rule the game
            does not have; each naming the game's rules.
    """
    found = get_game(game)
    rules = played_params(found)
    known = rules_text(found, rules)
    try:
        pairs = [rule_pair(text) for text in texts]
    except argparse.ArgumentTypeError as error:
        raise CliError(f"--rule {error}; {known}") from None
    unknown = list(dict.fromkeys(name for name, _ in pairs if name not in rules))
    if unknown:
        raise CliError(f"{found.title} has no rule {', '.join(map(repr, unknown))}; {known}")
    try:
        params = given_rules(None, pairs)
    except ValueError as error:
        raise CliError(f"{error}; {known}") from None
    return {name: _drawn_or_value(name, value) for name, value in params.items()}


def _drawn_or_value(name: str, value: Any) -> Any:
    """A rule's value; ``LOW-HIGH`` a rule drawn per game (:class:`DrawnRule`).

    Raises:
        CliError: for ``LOW > HIGH``.
    """
    try:
        drawn = DrawnRule.parse(value) if isinstance(value, str) else None
    except ValueError as error:
        raise CliError(f"--rule {name}={value}: {error}") from None
    return value if drawn is None else drawn


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


def finite_seconds(text: str) -> float:
    """Positive seconds, at most :data:`MAX_SECONDS`: a limit that is one (not ``inf``)."""
    return _number(
        text, float, lambda value: 0 < value <= MAX_SECONDS, f"seconds > 0 and <= {MAX_SECONDS:.0f}"
    )


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


def add_run_options(
    parser: argparse.ArgumentParser, games: int, output: str, game: str = DEFAULT_GAME
) -> None:
    """The options of a round robin: game, games, rules, time, workers, seed, output,
    resume; the help of the rules and the turn limit is ``game``'s (:func:`chosen_game`)."""
    group = parser.add_argument_group("run")
    add_game_option(group)
    group.add_argument(
        "--games",
        type=games_per_pairing,
        default=games,
        metavar="N",
        help=f"games per pairing, seats alternating (default {games})",
    )
    add_rule_options(group, game)
    group.add_argument(
        "--random-opening",
        type=non_negative_int,
        default=0,
        metavar="K",
        help="open each game with K uniformly random legal actions drawn from its seed, each "
        "opening played from both seats (default 0; e.g. 4 for Othello's deterministic "
        "searches)",
    )
    add_max_turns_option(group, game, "draw by truncation")
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


def run_round_robin(
    specs: Sequence[str], args: argparse.Namespace, plot_name: str, prog: str
) -> None:
    """Check everything, say what runs, play the round robin, print and save the report,
    and name every file written (``prog``: the command, naming itself in a note).

    Raises:
        CliError: for a bad spec, setting or output folder (before any game starts), or
            games left unplayed (stalled by the machine, lost by the cluster, or whose
            workers died before they began, again and again).
    """
    config = run_config(args)
    try:
        paired = bool(getattr(get_game(args.game), "paired_starts", False)) or bool(
            args.random_opening
        )
        tasks = round_robin(list(specs), args.games, args.seed, paired_seeds=paired)
    except ValueError as error:
        raise CliError(error) from None
    results_path = args.output / "results.jsonl"
    _check_writable(args.output)
    note_aliases(prog, args)
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
    game = get_game(config.game_name)
    played = [game.config_params(rules) for rules in config.games]
    title = run_title(config.game_name, played, config.time_budget)
    return (
        f"{title}: {len(specs)} agents ({', '.join(specs)}), {games} games per pairing "
        f"({num_games} games)"
    )


def run_config(args: argparse.Namespace) -> RunConfig:
    """The :class:`RunConfig` of a round robin's options.

    Raises:
        CliError: for rules or settings the game or the runner refuses, naming what is
            allowed.
    """
    try:
        return RunConfig(
            params=rule_params(args) or None,
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
    except (TypeError, ValueError) as error:  # a game's make_config may refuse either way
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

"""Rate an agent against its game's ladder: one line a paper can quote, and a card.

The ladder is a fixed set of opponents that play without a clock, with published ratings;
a game owns its ladders (``agents/<game>/ladders/``), one per rules and version, and the
rating plays the one of the game (``--game``), its rules (``--board-size``, ``--rule``), or
the game and rules a model to play records (``ppo:path=ZIP``, ``mcts:path=FILE``; two that
differ are refused), and a version (``--ladder-version``, the newest by default).
The games are the same for every policy; the rating is the maximum-likelihood one against
the rungs' fixed ratings, with a 95% interval. The games go to ``OUTPUT/results.jsonl`` as
they finish (``--resume`` finishes a stopped run) and the card to ``OUTPUT/card.json``.

``--verify DIR`` makes the card of ``DIR/card.json`` afresh from its games
(``DIR/results.jsonl``, each replayed) and the ladder it names, and says whether they
agree: exit 0 when they do, 1 naming each field that differs, 2 for bad input. A folder
without a card is a calibration's: its ladder (``DIR/ladder.json``, or ``--ladder FILE``)
is rated afresh from its round robin's games.

``--compare A B`` tests instead whether B is stronger than A, head to head on the ladder's
openings in pairs of games (a sequential test, GSPRT on the pentanomial: ``--elo0``,
``--elo1``, ``--alpha``, ``--beta``, at most ``--max-games``); its last line is the decision,
``stronger``, ``not stronger`` or ``inconclusive``, and its card goes to ``OUTPUT/card.json``.
``--accuracy`` scores the spec instead on the board's shipped solved positions (no games,
no solver: :mod:`agents.rating.accuracy`): it prints one line, the share of optimal decisions
and the mean regret with their 95% intervals, and writes an accuracy card to
``OUTPUT/card.json``. A board without shipped positions is refused, naming those with them.
``--verify DIR`` of an accuracy card scores its spec again on its positions and compares.

``--calibrate`` plays instead the ladder's own round robin (the one its ratings come from)
and writes the ladder with the ratings it gives to ``OUTPUT/ladder.json``. With ``--rungs
SPEC ...`` it makes a new ladder of those rungs (``random`` among them) for the game and
rules, and writes it into the game's ladders folder (``--ladder-out FILE``: elsewhere).

Example:
    trap-rate greedy --game othello
    trap-rate "ppo:path=othello6.zip"   # the zip's stamp picks its game and rules' ladder
    trap-rate "ppo:path=runs/x/best/best_model.zip" --game trap --games 400 --workers 2
    trap-rate greedy --game trap --ladder-version 1
    trap-rate --verify results/rate/trap-greedy
    trap-rate --compare "mcts:simulations=100,time_limit=none" \\
        "mcts:simulations=200,time_limit=none" --game trap --workers 2
    trap-rate greedy --game trap --board-size 3 --accuracy
    trap-rate --calibrate --game colosseum --workers 2 --output results/ladder-colosseum
    trap-rate --calibrate --rungs random greedy "alphabeta:depth=2,time_limit=none" \\
        --game othello --board-size 6 --workers 2
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from trap_scripts._cli import (
    DEFAULT_GAME,
    CliError,
    Parser,
    add_game_option,
    add_rule_options,
    chosen_game,
    fail,
    finite_seconds,
    given_options,
    non_negative_int,
    note_aliases,
    path,
    rule_params,
)

from agents.arena.plan import MAX_OPENING_PLIES
from agents.arena.tournament import BACKENDS
from agents.files import check_writable_file
from agents.options import parse_spec
from agents.rating.accuracy import (
    accuracy,
    is_accuracy_card,
    verify_accuracy_card,
    write_card,
)
from agents.rating.calibrate import PACKED_FILE, calibrate_ladder
from agents.rating.comparison import DEFAULT_MAX_GAMES, SprtTest, compare
from agents.rating.fit import neighbour_errors
from agents.rating.ladder import (
    DEFAULT_GAMES_PER_PAIRING,
    DEFAULT_OPENING_PLIES,
    DEFAULT_PAIR_GAMES,
    DEFAULT_STAGED_GAMES_PER_PAIRING,
    Ladder,
    find_ladder,
    game_params,
    ladder_target,
    ladder_version,
    ladders_of,
    load_ladder,
    new_ladder,
    setting_name,
    write_ladder,
)
from agents.rating.run import DEFAULT_CPU_CAP, DEFAULT_GAMES, rate_spec, scale_line
from agents.rating.schedule import calibration_tasks
from agents.rating.verify import LADDER_FILE, verify_card, verify_ladder
from trap_env.game import played_params
from trap_env.games import get_game, recorded_game


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


def pairing_games(text: str) -> int:
    """An even number of games per pairing from 2 to 1000 (a ladder's round robin)."""
    value = even_games(text)
    if value > 1000:
        raise argparse.ArgumentTypeError(f"{text!r} is not an even number of games from 2 to 1000")
    return value


def neighbour_games(text: str) -> int:
    """0 (a calibration that is its round robin alone), or an even number of games per
    pairing from 2 to 1000."""
    return 0 if text.strip() == "0" else pairing_games(text)


def opening_plies(text: str) -> int:
    """A number of random opening plies, 0 to :data:`MAX_OPENING_PLIES`."""
    value = non_negative_int(text)
    if value > MAX_OPENING_PLIES:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an integer from 0 to {MAX_OPENING_PLIES}"
        )
    return value


def version(text: str) -> str:
    """A ladder version: ``v1`` or ``1``."""
    try:
        return ladder_version(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


GAME_DEFAULTS = {"games": DEFAULT_GAMES, "cpu_cap": DEFAULT_CPU_CAP, "backend": "process"}
"""The options of playing games, at their defaults: --accuracy plays none, so takes none."""


def build_parser(game: str = DEFAULT_GAME) -> Parser:
    """The command line (its rule options' help gives ``game``'s rules: :func:`chosen_game`)."""
    parser = Parser(
        prog="trap-rate",
        description="Rate an agent spec against the ladder of fixed opponents of its game "
        "(--game; else the one a ppo:path=ZIP or mcts:path=FILE model records; else Trap!), "
        "rules and version, or --calibrate a ladder.",
    )
    parser.add_argument("spec", nargs="?", metavar="SPEC", help="the agent spec to rate")
    add_game_option(parser)
    parser.set_defaults(game=None)  # None: the game a model to play records (_game_of)
    add_rule_options(parser, game)
    parser.add_argument("--ladder-version", type=version, default=None, metavar="V",
                        help="the ladder's version, e.g. 1 or v1 (default: the newest that "
                        "has the rules)")
    parser.add_argument("--games", type=even_games, default=DEFAULT_GAMES, metavar="N",
                        help=f"games to play, an even number (default {DEFAULT_GAMES})")
    parser.add_argument("--seed", type=int, default=0,
                        help="the openings' seed (default 0: the ladder's standard games); "
                        "with --accuracy, the seed of the agent's at each position")
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
                        help="folder for the games and the card (default results/rate/GAME-SPEC; "
                        "calibrating: calibration/GAME/VERSION-SETTING)")
    existing = parser.add_mutually_exclusive_group()
    existing.add_argument("--resume", action="store_true",
                          help="keep the games already in DIR and play the rest")
    existing.add_argument("--overwrite", action="store_true",
                          help="replace the rating (or the ladder file) already there")
    parser.add_argument("--ladder", type=path, default=None, metavar="FILE",
                        help="a ladder file to use instead of a shipped one, checked when "
                        "read: its rungs are agents of the game by name, without a clock")
    parser.add_argument("--verify", type=path, default=None, metavar="DIR",
                        help="make DIR/card.json (a calibration's DIR/ladder.json, or --ladder "
                        "FILE) afresh from DIR/results.jsonl and say whether they agree (exit 1 "
                        "if not); with a card, --ladder FILE is its ladder when not shipped")
    _add_compare_options(parser)
    parser.add_argument("--accuracy", action="store_true",
                        help="score SPEC on the board's solved positions instead (share of "
                        "optimal decisions, mean regret) and write an accuracy card to "
                        "DIR/card.json (default results/accuracy/GAME-BOARD-SPEC)")
    calibrating = parser.add_argument_group("calibrating a ladder")
    calibrating.add_argument("--calibrate", action="store_true",
                             help="play the ladder's round robin and write the ladder rated "
                             "by it (to DIR/ladder.json)")
    calibrating.add_argument("--rungs", nargs="+", default=None, metavar="SPEC",
                             help="with --calibrate: make a new ladder of these rungs "
                             "('random' among them; exec: and dotted paths allowed) for the "
                             "game and rules, written into the game's ladders folder "
                             "(agents/GAME/ladders/VERSION-SETTING.json)")
    calibrating.add_argument("--ladder-out", type=path, default=None, metavar="FILE",
                             help="with --calibrate: write the ladder to FILE instead")
    calibrating.add_argument("--games-per-pairing", type=pairing_games, default=None,
                             metavar="N", help="with --rungs: games of each pair of rungs in "
                             f"the round robin, even (default {DEFAULT_GAMES_PER_PAIRING} for "
                             f"a v1, {DEFAULT_STAGED_GAMES_PER_PAIRING} for a later version)")
    calibrating.add_argument("--pair-games", type=neighbour_games, default=None, metavar="N",
                             help="with --rungs: games of each pair of "
                             "neighbouring rungs by rating, played in stages after the round "
                             "robin (a quarter of them for next neighbours), even; 0: the "
                             f"round robin alone (default {DEFAULT_PAIR_GAMES} for a version "
                             "after v1, 0 for a v1)")
    calibrating.add_argument("--opening-plies", type=opening_plies, default=None, metavar="N",
                             help="with --rungs: random legal actions opening each game "
                             f"(default {DEFAULT_OPENING_PLIES})")
    return parser


def _add_compare_options(parser: Parser) -> None:
    """The options of ``--compare``: the specs and the sequential test."""
    comparing = parser.add_argument_group("comparing two specs")
    comparing.add_argument("--compare", nargs=2, default=None, metavar=("A", "B"),
                           help="test whether B is stronger than A, in pairs of games on the "
                           "ladder's openings, until a sequential test (GSPRT) decides")
    test = SprtTest()
    for flag, meaning in (("elo0", "H0: B's Elo over A"), ("elo1", "H1: B's Elo over A"),
                          ("alpha", "the rate of 'stronger' under H0"),
                          ("beta", "the rate of 'not stronger' under H1")):  # fmt: skip
        comparing.add_argument(f"--{flag}", type=float, default=None, metavar="X",
                               help=f"with --compare: {meaning} (default {getattr(test, flag):g})")
    comparing.add_argument("--max-games", type=even_games, default=None, metavar="N",
                           help="with --compare: games after which, undecided, it is "
                           f"inconclusive (default {DEFAULT_MAX_GAMES})")


def main(argv: Sequence[str] | None = None) -> int:
    """Rate the spec (or calibrate a ladder, or verify a card); 0 on success, 1 for a card
    its games do not give, 2 on bad input."""
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(chosen_game(words))
    args = parser.parse_args(words)
    misuse = _misuse(args, given_options(parser, words, args))
    if misuse:
        parser.error(misuse)
    try:
        recorded = _recorded_setting(_played_specs(args), args.game)
        args.game = _game_of(args.game, recorded)
        if args.verify is not None:
            return _verify(args.verify, args.ladder)
        rules = _rules_of(args, recorded)
        if args.accuracy:
            _accuracy(args, rules)
            return 0
        ladder = _chosen_ladder(args, rules)
        options = {"workers": args.workers, "backend": args.backend, "address": args.address}
        if args.compare is not None:
            _compare(ladder, args, options)
        elif args.calibrate:
            _calibrate(ladder, args, options, argv)
        else:
            _rate(ladder, args, options)
    except (CliError, ValueError, OSError) as error:
        return fail("trap-rate", error)
    except KeyboardInterrupt:
        return fail("trap-rate", "interrupted; finished games are kept, run again with --resume")
    return 0


def _misuse(args: argparse.Namespace, given: Sequence[str]) -> str:
    """What of the options does not go together ("" if nothing); ``given``: the options the
    command line gives (:func:`given_options`)."""
    if args.verify is not None:
        loose = [dest for dest in given if dest not in _VERIFY_OPTIONS]
        if not loose:
            return ""
        shown = "a SPEC" if loose[0] == "spec" else f"--{loose[0].replace('_', '-')}"
        return f"--verify goes alone (with --ladder FILE at most), not with {shown}"
    if args.compare is not None and (args.spec is not None or args.calibrate or args.accuracy):
        return ("--compare A B compares two specs: give no SPEC to rate, no --calibrate and "
                "no --accuracy")
    for flag in _COMPARE_FLAGS:
        if getattr(args, flag) is not None and args.compare is None:
            return f"--{flag.replace('_', '-')} goes with --compare"
    if args.accuracy:
        given = [flag for flag in ("calibrate", "resume") if getattr(args, flag)]
        given += [flag for flag in ("ladder", "ladder_version", "rungs", "workers", "address")
                  if getattr(args, flag) is not None]  # fmt: skip
        given += [flag for flag, default in GAME_DEFAULTS.items() if getattr(args, flag) != default]
        if args.spec is None or given:
            shown = f"not with --{given[0].replace('_', '-')}" if given else "give one"
            return f"--accuracy scores an agent SPEC on solved positions; {shown}"
    if args.compare is None and (args.spec is None) != args.calibrate:
        return "give an agent SPEC to rate, or --calibrate (not both)"
    for flag in ("rungs", "ladder_out"):
        if getattr(args, flag) is not None and not args.calibrate:
            return f"--{flag.replace('_', '-')} goes with --calibrate"
    for flag in ("games_per_pairing", "opening_plies", "pair_games"):
        if getattr(args, flag) is not None and args.rungs is None:
            return f"--{flag.replace('_', '-')} goes with --rungs (a new ladder's)"
    if args.rungs is not None and args.ladder is not None:
        return "--rungs makes a new ladder and --ladder reads one: give one of them"
    return ""


_COMPARE_FLAGS = ("elo0", "elo1", "alpha", "beta", "max_games")
_VERIFY_OPTIONS = ("verify", "ladder")
"""The options ``--verify`` reads: the card's folder and its ladder when not shipped (a
card records its game, rules, games and seeds; any other option would be ignored)."""


def _chosen_ladder(args: argparse.Namespace, rules: dict[str, Any] | None) -> Ladder:
    """The ladder of the game, its ``rules`` (:func:`_rules_of`) and version: a new one
    (``--rungs``), the file ``--ladder`` (which must be of the rules and version given), or
    the shipped one.

    Raises:
        ValueError: for a file of other rules or version, or rules and version without a
            shipped ladder (naming those that have one): before any game.
    """
    if args.rungs is not None:
        return new_ladder(
            args.game, rules, args.rungs, version=args.ladder_version,
            games_per_pairing=args.games_per_pairing, pair_games=args.pair_games,
            opening_plies=(
                DEFAULT_OPENING_PLIES if args.opening_plies is None else args.opening_plies
            ),
        )
    if args.ladder is None:
        return find_ladder(args.game, rules, args.ladder_version)
    ladder = load_ladder(args.game, args.ladder)
    if rules is not None and game_params(args.game, rules) != game_params(args.game, ladder.params):
        raise ValueError(
            f"{args.ladder} is a ladder of {ladder.game} {ladder.setting}, not of "
            f"{args.game} {setting_name(args.game, rules)}"
        )
    if args.ladder_version not in (None, ladder.version):
        raise ValueError(f"{args.ladder} is a ladder {ladder.version}, not {args.ladder_version}")
    return ladder


def _given_rules(args: argparse.Namespace) -> dict[str, Any] | None:
    """The rules ``--rule``, ``--board-size`` and ``--decay`` give (None: none is given); a
    rule drawn per game (``board_size=6-12``) picks the ladder that draws it.

    Raises:
        CliError: as :func:`~trap_scripts._cli.rule_params`.
    """
    return rule_params(args) or None


def _played_specs(args: argparse.Namespace) -> list[str]:
    """The specs the run plays against the ladder's rungs: SPEC, or ``--compare``'s A and B."""
    if args.compare is not None:
        return list(args.compare)
    return [] if args.spec is None else [args.spec]


Recorded = tuple[str, str, dict[str, Any]]
"""A model spec, and the game and every rule (:func:`game_params`) its model file records."""


def _recorded_setting(specs: Sequence[str], given: str | None) -> Recorded | None:
    """The game and rules the models among ``specs`` record (:func:`_model_record`, the
    game ``--game`` gives read as ``given``), with the first spec that records them; None if
    none records any.

    Raises:
        ValueError: for a model file that cannot be read, or two models of different games
            or rules (naming both: the games of a run are of one game and rules).
    """
    found: Recorded | None = None
    for spec in specs:
        record = _model_record(spec, given)
        if record is None:
            continue
        if found is None:
            found = (spec, *record)
        elif record != found[1:]:
            raise ValueError(
                f"{_model_words(found)} and {_model_words((spec, *record))}: two models of "
                "different games or rules play no game together"
            )
    return found


def _model_record(spec: str, given: str | None) -> tuple[str, dict[str, Any]] | None:
    """The game and every rule a ``ppo:path=ZIP`` or ``mcts:path=FILE`` spec's model file
    records; None for another spec or a zip that records none. A model of the game
    ``--game`` gives is of ``given`` (a game named by its path records only its name).

    Raises:
        ValueError: for a model file that cannot be read (naming the spec).
    """
    name, options = parse_spec(spec)
    if name not in ("ppo", "mcts") or "path" not in options:
        return None
    playing = None if given is None else get_game(given)
    try:
        if name == "ppo":
            from agents.rl.ppo import read_model_game  # the rl agents, for a ppo spec only

            record = read_model_game(options["path"], playing)
        else:
            from agents.mcts.network import read_network_game

            record = read_network_game(options["path"], playing)
    except OSError as error:  # a missing file: one line naming the spec
        raise ValueError(f"agent spec {spec.strip()!r}: {error}") from None
    if record is None:
        return None
    game, rules = record
    found = recorded_game(game, playing)
    if found is playing and given is not None:  # named as --game names it (maybe by path)
        game = given
    return game, played_params(found, rules)


def _model_words(recorded: Recorded) -> str:
    """``"the ppo model PATH plays GAME RULES"``, for refusals."""
    spec, game, rules = recorded
    name, options = parse_spec(spec)
    return f"the {name} model {options['path']} plays {game} {setting_name(game, rules)}"


def _game_of(given: str | None, recorded: Recorded | None) -> str:
    """The game played: ``--game``'s, else the one the models to play record (so that their
    record alone picks the ladder), else :data:`DEFAULT_GAME`."""
    if given is not None:
        return given
    return DEFAULT_GAME if recorded is None else recorded[1]


def _rules_of(args: argparse.Namespace, recorded: Recorded | None) -> dict[str, Any] | None:
    """The rules to play ``args.game`` by: those the models to play record (which ``--game``
    and the rules given must be), else those given (None: none is given).

    Raises:
        CliError: for rules given twice or not the game's (:func:`_given_rules`).
        ValueError: for a model of another game, or rules given that are not its own (naming
            the rules of the game that have a ladder).
    """
    rules = _given_rules(args)
    if recorded is None:  # no model, or unstamped ones: the rules are those given
        return rules
    spec, model_game, model_rules = recorded
    game, (name, options) = args.game, parse_spec(spec)
    if model_game != game:
        raise ValueError(
            f"the {name} model {options['path']} plays {model_game}, not {game}; play it with "
            f"--game {model_game}, or without --game"
        )
    if rules is not None and game_params(game, rules) != model_rules:
        raise ValueError(
            f"{_model_words(recorded)}, not the rules given ({setting_name(game, rules)}): "
            f"give none to play it under its own; {ladders_of(game)}"
        )
    return model_rules


def _rate(ladder: Ladder, args: argparse.Namespace, options: dict[str, object]) -> None:
    output = args.output or Path("results", "rate", f"{ladder.game}-{_slug(args.spec)}")
    header = (f"rating {args.spec!r} on the {ladder.name} ({len(ladder.rungs)} opponents), "
              f"{args.games} games; results in {output}")  # fmt: skip
    started = time.monotonic()
    card = rate_spec(
        ladder, args.spec, output, games=args.games, seed=args.seed, cpu_cap=args.cpu_cap,
        run_options=options, resume=args.resume, overwrite=args.overwrite,
        say=lambda line: print(line, flush=True), on_start=lambda: _announce(args, header),
    )
    for rung in card.opponents:
        print(f"  {rung.spec:48s} {rung.rating:7.1f}  {rung.wins}-{rung.draws}-{rung.losses}"
              + (f" ({rung.faults} faults)" if rung.faults else ""))
    print(f"{time.monotonic() - started:.0f} s; card: {output / 'card.json'}")
    print(card.line)
    print(scale_line(card))


def _compare(ladder: Ladder, args: argparse.Namespace, options: dict[str, object]) -> None:
    """Run the sequential test of ``--compare A B``; its decision is the last line."""
    a, b = args.compare
    test = SprtTest(**{flag: getattr(args, flag) for flag in _COMPARE_FLAGS
                       if getattr(args, flag) is not None})  # fmt: skip
    output = args.output or Path(
        "results", "compare", f"{ladder.game}-{_slug(a)}-vs-{_slug(b)}"[:120]
    )
    header = (f"is {b!r} stronger than {a!r}? Pairs of games on the {ladder.name}'s openings "
              f"until a GSPRT decides (elo0 {test.elo0:g}, elo1 {test.elo1:g}, alpha "
              f"{test.alpha:g}, beta {test.beta:g}, at most {test.max_games} games); results in "
              f"{output}")  # fmt: skip
    started = time.monotonic()
    card = compare(
        a, b, game=ladder.game, output=output, ladder=ladder, test=test, seed=args.seed,
        cpu_cap=args.cpu_cap, run_options=options, resume=args.resume, overwrite=args.overwrite,
        say=lambda line: print(line, flush=True), on_start=lambda: _announce(args, header),
    )
    print(f"{time.monotonic() - started:.0f} s; pentanomial {card.pentanomial}; card: "
          f"{output / 'card.json'}")
    print(card.line)


def _accuracy(args: argparse.Namespace, rules: dict[str, Any] | None) -> None:
    """Score the spec on the board's solved ``rules`` positions; print the card's line,
    write it."""
    output = args.output or Path(
        "results", "accuracy", f"{args.game}-{setting_name(args.game, rules)}-{_slug(args.spec)}"
    )
    card_path = check_writable_file(output / "card.json", "accuracy card", makes_folders=True)
    if card_path.exists() and not args.overwrite:
        raise CliError(f"{card_path} exists; --overwrite replaces it")
    card = accuracy(args.spec, game=args.game, params=rules, seed=args.seed)
    note_aliases("trap-rate", args)  # after the checks (scoring is one pass): a refusal is alone
    write_card(card, card_path)
    print(f"{card.line}; card: {card_path}")


def _verify(folder: Path, ladder_file: Path | None) -> int:
    """Print whether ``folder``'s card (a calibration's folder: its ladder) is what its
    games give (an accuracy card: what its spec scores on its positions); 0 if it is, 1 if
    not."""
    if is_accuracy_card(folder / "card.json"):
        return _report(folder / "card.json", verify_accuracy_card(folder / "card.json"),
                       "its spec scored again on its positions")  # fmt: skip
    if (folder / "card.json").exists():
        shown, differences = folder / "card.json", verify_card(folder, ladder_file)
    elif ladder_file is None and not (folder / LADDER_FILE).exists():
        raise CliError(f"{folder} holds no card.json (a rating's) and no {LADDER_FILE} (a "
                       "calibration's): nothing to verify")  # fmt: skip
    else:
        shown = ladder_file or folder / LADDER_FILE
        differences = verify_ladder(folder, ladder_file)
    games = folder / "results.jsonl"
    if not games.exists() and (folder / PACKED_FILE).exists():
        games = folder / PACKED_FILE
    return _report(shown, differences, f"its games ({games})")


def _report(shown: Path, differences: list[str], source: str) -> int:
    """Print whether ``shown`` agrees with ``source`` (each difference on a line); 0 if so."""
    if not differences:
        print(f"{shown}: agrees with {source}")
        return 0
    print(f"{shown}: does not agree with {source}:")
    for line in differences:
        print(f"  {line}")
    return 1


def _calibrate(
    ladder: Ladder, args: argparse.Namespace, options: dict[str, object],
    argv: Sequence[str] | None,
) -> None:
    """Play the ladder's calibration into ``--output`` and write it rated, with its
    fingerprints (and covariance): a new ladder (``--rungs``) into the game's ladders
    folder, another to ``DIR/ladder.json`` (``--ladder-out FILE``: there)."""
    output = args.output or Path("calibration", ladder.game, ladder.file_stem)
    default = None if args.rungs is not None else output / "ladder.json"
    target = ladder_target(
        ladder, args.ladder_out or default, overwrite=args.overwrite or args.resume
    )
    calibration = ladder.calibration
    how = (f"a round robin of {calibration.games_per_pairing} games a pair, then "
           f"{calibration.pair_games} games a pair of neighbours" if calibration.pair_games
           else f"a round robin of {len(calibration_tasks(ladder))} games")  # fmt: skip
    header = (f"calibrating the {ladder.name} ({ladder.game} {ladder.setting}, "
              f"{len(ladder.rungs)} rungs): {how}; results in {output}")  # fmt: skip
    words = sys.argv[1:] if argv is None else list(argv)
    rated = calibrate_ladder(
        ladder, output, run_options=options, resume=args.resume, overwrite=args.overwrite,
        command=shlex.join(["trap-rate", *words]), say=lambda line: print(line, flush=True),
        on_start=lambda: _announce(args, header),
    )
    write_ladder(rated, target)
    errors = neighbour_errors(rated) if rated.covariance is not None else {}
    if errors:
        print(f"  {'rung':48s} {'rating':>7s}  {'above the next':>14s}  "
              f"{'+- given neighbours':>19s}")
    for rung in sorted(rated.rungs, key=lambda rung: rung.rating):
        error = errors.get(rung.spec)
        against = "" if error is None else (
            f"  {error.gap:+7.1f} +- {error.gap_error:4.1f}  {error.error:19.1f}"
        )
        print(f"  {rung.spec:48s} {rung.rating:7.1f}{against}")
    print(f"ladder: {target}; games: {output / PACKED_FILE}")


def _announce(args: argparse.Namespace, header: str) -> None:
    """Say that the run starts, its checks passed: the notes of alias flags on stderr, then
    ``header`` (a refusal before it is its one line alone)."""
    note_aliases("trap-rate", args)
    print(header, flush=True)


def _slug(spec: str) -> str:
    """A folder name for a spec: its letters and digits, other runs as one '-'."""
    slug = "".join(char if char.isalnum() else "-" for char in spec)
    return "-".join(part for part in slug.split("-") if part)[:60] or "spec"


if __name__ == "__main__":
    sys.exit(main())

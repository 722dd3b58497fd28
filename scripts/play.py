"""Watch or play one game (Trap! by default), export it as a GIF, or replay a recorded game.

Two agent specs play one game shown turn by turn in the terminal; ``human`` as a spec
lets you play, entering cells as ``row,col`` (the legal choices are shown; ``q`` resigns).
``--gif FILE`` writes the game as an animated GIF (needs imageio, in the ``plot`` extra).
``--game NAME`` plays another game of :mod:`trap_env.games` (default ``trap``), and
``--rule NAME=VALUE`` one of its rule variants (``--board-size N`` is ``--rule
board_size=N``, ``--decay D`` an alias of ``--rule decay=D``: 0, every throw lands on its
target); an integer rule given as ``LOW-HIGH`` is drawn from ``--seed``, as a tournament
draws it for a game of that seed. ``--help`` gives the rules and defaults of the game
that ``--game`` names.
``--replay FILE --index N`` shows game N (counted from 0) of a results file written by
trap-evaluate or trap-tournament, under the rules it was played by (its game, board size
and decay); the record is first replayed through the rules core, and a record whose actions
are not a legal game, or whose stored outcome is not the one its actions lead to, is
refused with a one-line error.

Example:
    trap-play greedy random
    trap-play greedy random --rule decay=0
    trap-play human "expectiminimax:time_limit=1.0" --board-size 5
    trap-play greedy random --gif game.gif
    trap-play --replay results/evaluate/results.jsonl --index 0 --gif replay.gif
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from trap_scripts._cli import (
    DEFAULT_GAME,
    CliError,
    Parser,
    add_max_turns_option,
    add_rule_options,
    chosen_game,
    fail,
    non_negative_float,
    non_negative_int,
    note_aliases,
    path,
    positive_float,
    rule_params,
    seconds_or_none,
)

from agents.arena.match import LastChance, derive_seed, draw_rules, play_game, replay
from agents.arena.replays import replay_record
from agents.arena.results import ResultsError, read_results, record_game
from agents.files import check_writable_file, replace_atomically
from agents.registry import make_agent
from trap_env.agent import Agent, SpecError, UnsupportedGameError, check_supports
from trap_env.game import Game
from trap_env.games import UnknownGameError, game_names, get_game

HUMAN = "human"
PROG = "trap-play"


class HumanAgent:
    """An agent that asks a person at the terminal for each decision, in the game's action
    text (``game.action_from_text``; Trap!: ``row,col``).

    Args:
        read: reads one line of input (``input`` by default); EOF or ``q`` resigns.
        write: prints a line.
        game: the game played (Trap! by default).
    """

    def __init__(
        self,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
        game: Game[Any, Any] | None = None,
    ) -> None:
        self.read, self.write = read, write
        self.game: Game[Any, Any] = game or get_game(DEFAULT_GAME)
        self.resigned = False

    def reset(self, seed: int | None = None) -> None:
        """A new game."""
        self.resigned = False
        self._turn_shown = None

    def select_action(self, state: Any) -> int:
        """Ask until the person enters a legal action; resigns (raises) on EOF or ``q``."""
        game = self.game
        if game.turn(state) == self._turn_shown:  # a later decision of the same turn
            self.write(game.render_text(state))
        self._turn_shown = game.turn(state)
        legal = game.legal_actions(state)
        self.write(_choices_text(game, state, legal))
        while True:
            try:
                text = self.read("your choice (q resigns): ").strip()
            except EOFError:
                self.write("")
                text = "end of input"
            if text.lower() in ("q", "quit", "end of input"):
                self.resigned = True
                raise Resigned(f"you resigned ({text})")
            try:
                action: int | None = game.action_from_text(state, text)
            except ValueError:
                action = None
            if action in legal:
                return action
            self.write(f"not a legal choice: {text!r}. {_choices_text(game, state, legal)}")

    _turn_shown: int | None = None


class Resigned(Exception):
    """The person at the terminal gave up (``q`` or end of input)."""


def _choices_text(game: Game[Any, Any], state: Any, legal: list[int]) -> str:
    """``"move: one of 0,1 0,3"``, or, when most actions are legal, the exceptions."""
    decision = game.decision_name(state)
    others = sorted(set(range(game.num_actions(game.config_of(state)))) - set(legal))
    if len(others) < len(legal):
        return f"{decision}: any except " + " ".join(game.action_to_text(state, a) for a in others)
    return f"{decision}: one of " + " ".join(game.action_to_text(state, a) for a in legal)


def build_parser(game: str = DEFAULT_GAME) -> Parser:
    """The command line; the help gives the rules and defaults of ``game``."""
    parser = Parser(prog=PROG, description="Watch, play or replay one game (Trap! by default).")
    parser.add_argument(
        "agents",
        nargs="*",
        metavar="SPEC",
        help="two agent specs, seat 0 then seat 1; 'human' for you",
    )
    add_rule_options(parser, game)
    parser.add_argument("--seed", type=int, default=0, help="the game's seed (default 0)")
    add_max_turns_option(parser, game, "draw")
    parser.add_argument(
        "--time-budget",
        type=seconds_or_none,
        default=None,
        metavar="S",
        help="CPU seconds per turn for agents (default: none)",
    )
    parser.add_argument(
        "--delay",
        type=non_negative_float,
        default=0.0,
        metavar="S",
        help="pause between turns when watching (default 0)",
    )
    parser.add_argument(
        "--gif",
        type=path,
        default=None,
        metavar="FILE",
        help="write the game as an animated GIF instead of showing it",
    )
    parser.add_argument(
        "--frame-seconds",
        type=positive_float,
        default=0.6,
        metavar="S",
        help="seconds per GIF frame (default 0.6)",
    )
    parser.add_argument(
        "--replay",
        type=path,
        default=None,
        metavar="FILE",
        help="a results.jsonl file to replay a game from",
    )
    parser.add_argument(
        "--index",
        type=non_negative_int,
        default=None,
        metavar="N",
        help="with --replay: the game to replay, its line in the file, from 0 (default 0)",
    )
    parser.add_argument(
        "--game",
        default=None,
        metavar="NAME",
        help=f"the game played: {', '.join(game_names())} (default {DEFAULT_GAME}); with "
        "--replay, the record's game (a record naming its game by a path is replayed only "
        "when the same path is given here)",
    )
    return parser


def _game_and_index(args: argparse.Namespace) -> tuple[str, int]:
    """The game to play and the record to replay.

    Raises:
        CliError: for a game name that is not registered; a number as ``--game`` with
            ``--replay`` names ``--index``, the record's option (``--game N`` was its
            deprecated form).
    """
    game = args.game or DEFAULT_GAME
    if args.replay is not None and game.isdigit():
        raise CliError(
            f"--game takes a game's name, not a record's number: replay record {game} with "
            f"--index {game}"
        )
    try:
        get_game(game)
    except UnknownGameError as error:
        raise CliError(error) from None
    return game, args.index or 0


def main(argv: Sequence[str] | None = None) -> int:
    """Play or replay; 0 on success, 1 if the human resigned, 2 on bad input."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(chosen_game(argv)).parse_args(argv)
    try:
        if args.gif is not None:
            _check_writable(args.gif)
        args.game, args.index = _game_and_index(args)
        if args.replay is not None:
            return _replay(args)
        return _play(args)
    except CliError as error:
        return fail(PROG, error)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


def _play(args: argparse.Namespace) -> int:
    if len(args.agents) != 2:
        raise CliError(f"give two agent specs (seat 0, seat 1), got {len(args.agents)}")
    game = get_game(args.game)
    agents = [_build(spec, args.game, args.seed, seat) for seat, spec in enumerate(args.agents)]
    params = draw_rules(rule_params(args), args.seed)  # a rule LOW-HIGH: drawn from the seed
    try:
        config = game.make_config(**params)
    except (TypeError, ValueError) as error:  # a game's make_config may refuse either way
        raise CliError(error) from None
    for spec, agent in zip(args.agents, agents, strict=True):
        try:
            check_supports(agent, config)
        except UnsupportedGameError as error:
            raise CliError(f"{spec}: {error}") from None
    has_human = any(isinstance(agent, HumanAgent) for agent in agents)
    show = None
    if args.gif is None or has_human:
        show = _show_turn(game, args.game, params, args.delay, has_human)
    budget = None if has_human else args.time_budget
    note_aliases(PROG, args)
    result = play_game(
        agents,
        seed=args.seed,
        max_turns=args.max_turns,
        time_budget=budget,
        game=args.game,
        on_turn=show,
        params=params,
    )
    resigned = [a.resigned for a in agents if isinstance(a, HumanAgent)]
    if any(resigned):
        print(f"you resigned; seat {result.winner} ({args.agents[result.winner]}) wins")
    else:
        print(_outcome_text(result.to_dict(), list(args.agents)))
    if args.gif is not None:
        frames = list(replay(result.actions, game=args.game, params=params))
        _write_gif(game, frames, args.gif, args.frame_seconds)
    return 1 if any(resigned) else 0


def _check_writable(path: Path) -> None:
    try:
        check_writable_file(path, "GIF")
    except ValueError as error:
        raise CliError(error) from None


def _build(spec: str, game: str, seed: int, seat: int) -> Agent:
    """The agent of ``spec`` for ``game`` (a registered name or a game's path)."""
    if spec == HUMAN:
        return HumanAgent(game=get_game(game))
    try:
        return make_agent(spec, game=game, seed=derive_seed(seed, "seat", seat))
    except SpecError as error:
        raise CliError(error) from None


def _show_turn(
    game: Game[Any, Any], name: str, params: dict[str, Any], delay: float, has_human: bool
) -> Callable[[int, Any, list[int]], None]:
    def show(seat: int, state: Any, actions: list[int]) -> None:
        *_, (_, last_chance) = replay(actions, game=name, params=params)
        print(game.render_text(state, last_chance))
        print()
        if delay and not has_human:
            time.sleep(delay)

    return show


def _outcome_text(record: dict[str, Any], seats: list[str]) -> str:
    winner, reason, turns = record["winner"], record["reason"], record["turns"]
    if winner < 0:
        return f"draw after {turns} turns ({reason})"
    loser = 1 - winner
    detail = record.get("detail")
    why = f"{reason}: {detail}" if detail else reason
    return (
        f"seat {winner} ({seats[winner]}) won after {turns} turns; "
        f"seat {loser} ({seats[loser]}) lost ({why})"
    )


def _replay(args: argparse.Namespace) -> int:
    given = (args.game,)  # a record's game path is imported only if it is the one given
    record = _load_game(args.replay, args.index, given)
    try:
        frames = replay_record(record, allow_paths=given)
    except ValueError as error:
        raise CliError(f"game {args.index} of {args.replay} is not a valid game: {error}") from None
    game = get_game(record_game(record), allow_paths=given)
    if args.gif is not None:
        _write_gif(game, frames, args.gif, args.frame_seconds)
    else:
        for state, last_chance in frames:
            print(game.render_text(state, last_chance))
            print()
            if args.delay:
                time.sleep(args.delay)
    print(_outcome_text(record, record.get("seats", ["seat 0", "seat 1"])))
    return 0


def _load_game(path: Path, index: int, allow_paths: tuple[str, ...]) -> dict[str, Any]:
    try:
        records = read_results(path, allow_paths=allow_paths).records
    except OSError as error:
        raise CliError(f"cannot read {str(path)!r}: {error.strerror or error}") from None
    except ResultsError as error:
        raise CliError(error) from None
    if index >= len(records):
        raise CliError(
            f"{path} holds {len(records)} games"
            + (f" (0..{len(records) - 1})" if records else "")
            + f"; no game {index}"
        )
    return records[index]


def _write_gif(
    game: Game[Any, Any], states: list[tuple[Any, LastChance]], path: Path, frame_seconds: float
) -> None:
    try:
        import imageio.v3 as iio
    except ImportError:
        raise CliError("--gif needs imageio: pip install 'trap_env[plot]'") from None
    frames = [game.render_rgb(state, last_chance) for state, last_chance in states]
    frames.extend([frames[-1]] * 3)  # linger on the final position
    try:
        replace_atomically(
            path,
            lambda temporary: iio.imwrite(
                temporary, frames, duration=int(frame_seconds * 1000), loop=0
            ),
        )
    except OSError as error:
        raise CliError(f"cannot write {str(path)!r}: {error}") from None
    print(f"wrote {path} ({len(frames) - 3} frames)")


if __name__ == "__main__":
    sys.exit(main())

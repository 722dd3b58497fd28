"""Watch or play one game (Trap! by default), export it as a GIF, or replay a recorded game.

Two agent specs play one game shown turn by turn in the terminal; ``human`` as a spec
lets you play, entering cells as ``row,col`` (the legal choices are shown; ``q`` resigns).
``--gif FILE`` writes the game as an animated GIF (needs imageio, in the ``plot`` extra).
``--decay PER_MILLE`` plays a rule variant (0: every throw lands on its target).
``--game NAME`` plays another game of :mod:`trap_env.games` (default ``trap``).
``--replay FILE --index N`` shows game N (counted from 0) of a results file written by
trap-evaluate or trap-tournament, under the rules it was played by (its game, board size
and decay); the record is first replayed through the rules core, and a record whose actions
are not a legal game, or whose stored outcome is not the one its actions lead to, is
refused with a one-line error.

Example:
    trap-play greedy random
    trap-play greedy random --decay 0
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
    CliError,
    Parser,
    add_decay_option,
    add_rule_option,
    board_size,
    fail,
    non_negative_float,
    non_negative_int,
    positive_float,
    positive_int,
    rule_params,
    seconds_or_none,
)

from agents.arena.match import FAULTS, LastThrow, derive_seed, play_game, replay
from agents.arena.results import (
    ResultsError,
    end_reasons,
    read_results,
    record_decay,
    record_game,
)
from agents.base import Agent, SpecError, UnsupportedGameError, check_supports, make_agent
from agents.files import check_writable_file, replace_atomically
from trap_env.core import NO_PLAYER, IllegalActionError
from trap_env.game import TRUNCATED, Game
from trap_env.games import DEFAULT_GAME, UnknownGameError, game_names, get_game

HUMAN = "human"
PROG = "trap-play"
MAX_REPLAY_BOARD_SIZE = 100
"""The largest board a record may be replayed on (the rules tables grow as N * N)."""


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


def build_parser() -> Parser:
    """The command line."""
    parser = Parser(prog=PROG, description="Watch, play or replay one game (Trap! by default).")
    parser.add_argument(
        "agents",
        nargs="*",
        metavar="SPEC",
        help="two agent specs, seat 0 then seat 1; 'human' for you",
    )
    parser.add_argument(
        "--board-size", type=board_size, default=None, metavar="N", help="default 7 (Trap!)"
    )
    add_decay_option(parser)
    add_rule_option(parser)
    parser.add_argument("--seed", type=int, default=0, help="the game's seed (default 0)")
    parser.add_argument(
        "--max-turns",
        type=positive_int,
        default=None,
        metavar="T",
        help="draw after T turns (default 4*N*N)",
    )
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
        type=Path,
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
        type=Path,
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
        "--replay, the record's game",
    )
    return parser


def _game_and_index(args: argparse.Namespace) -> tuple[str, int]:
    """The game to play and the record to replay; ``--game N`` with ``--replay`` is the
    index, said the old way (deprecated for one release, with a note on stderr).

    Raises:
        CliError: for a game name that is not registered, or both an index and ``--index``.
    """
    game, index = args.game, args.index
    if args.replay is not None and game is not None and game.isdigit():
        print(f"{PROG}: note: --game N is deprecated for --index N", file=sys.stderr)
        if index is not None:
            raise CliError(f"give the game to replay once, as --index N, not also --game {game}")
        index, game = int(game), None
    try:
        get_game(game or DEFAULT_GAME)
    except UnknownGameError as error:
        raise CliError(error) from None
    return game or DEFAULT_GAME, index or 0


def main(argv: Sequence[str] | None = None) -> int:
    """Play or replay; 0 on success, 1 if the human resigned, 2 on bad input."""
    args = build_parser().parse_args(argv)
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
    params = rule_params(args)
    try:
        config = game.make_config(**params)
    except ValueError as error:
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
        frames = list(replay(None, result.actions, game=args.game, params=params))
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
        *_, (_, last_chance) = replay(None, actions, game=name, params=params)
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
    record = _load_game(args.replay, args.index)
    try:
        frames = replay_record(record)
    except ValueError as error:
        raise CliError(f"game {args.index} of {args.replay} is not a valid game: {error}") from None
    rules = get_game(record_game(record))
    if args.gif is not None:
        _write_gif(rules, frames, args.gif, args.frame_seconds)
    else:
        for state, last_throw in frames:
            print(rules.render_text(state, last_throw))
            print()
            if args.delay:
                time.sleep(args.delay)
    print(_outcome_text(record, record.get("seats", ["seat 0", "seat 1"])))
    return 0


def _load_game(path: Path, index: int) -> dict[str, Any]:
    try:
        records = read_results(path).records
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


def replay_record(record: dict[str, Any]) -> list[tuple[Any, LastThrow]]:
    """Replay a game record through its game's rules and check its stored outcome.

    The record's ``actions`` must be a legal game of its game (Trap! when it names none)
    under its rules (Trap!: its ``board_size`` and its ``decay``, the default when it names
    none; another game: its ``board_size`` if any and its ``rules``), and its
    ``winner``, ``reason`` and ``turns`` must be what those actions lead to: a trapped
    player, the turn limit, or a fault of the seat to act (before any action, a fault of
    either seat: its ``reset`` failed).

    Returns:
        The states at the start of each turn and the final one, with the last throw.

    Raises:
        ValueError: naming what is wrong with the record.
    """
    board_size, actions = record.get("board_size"), record.get("actions")
    game = record_game(record)
    if (board_size is not None or game == DEFAULT_GAME) and (
        isinstance(board_size, bool)
        or not isinstance(board_size, int)
        or not 3 <= board_size <= MAX_REPLAY_BOARD_SIZE
    ):
        raise ValueError(
            f"board_size must be an integer from 3 to {MAX_REPLAY_BOARD_SIZE}, "
            f"got {board_size!r:.40}"
        )
    if not isinstance(actions, list) or not all(_is_int(action) for action in actions):
        raise ValueError(f"actions must be a list of actions (integers), got {actions!r:.60}")
    rules, params = get_game(game), _record_params(record)
    state = rules.initial_state(rules.make_config(**params))
    for index, action in enumerate(actions):
        try:
            state = rules.apply(state, action)
        except IllegalActionError as error:
            raise ValueError(f"action {index} of the record: {error}") from None
    _check_outcome(record, state, has_actions=bool(actions))
    return list(replay(None, actions, game=game, params=params))


def _record_params(record: dict[str, Any]) -> dict[str, Any]:
    """A record's rule parameters: Trap!'s board size and decay; another game's board size
    (if it has one) and its ``rules``."""
    if record_game(record) == DEFAULT_GAME:
        return {"board_size": record["board_size"], "decay": record_decay(record)}
    size = record.get("board_size")
    return {**({} if size is None else {"board_size": size}), **record.get("rules", {})}


def _check_outcome(record: dict[str, Any], state: Any, has_actions: bool) -> None:
    """Check the record's ``winner``, ``reason`` and ``turns`` against its final ``state``."""
    rules = get_game(record_game(record))
    winner, turns = record.get("winner"), record.get("turns")
    max_turns, played = record.get("max_turns"), rules.turn(state)
    if not _is_int(turns) or turns != played:
        raise ValueError(f"the record says {turns!r:.20} turns; its actions play {played}")
    if not _is_int(max_turns) or played > max_turns:
        raise ValueError(
            f"max_turns must be an integer of at least the {played} turns played, "
            f"got {max_turns!r:.20}"
        )
    expected = _expected_winner(rules, record, state, has_actions)
    if not _is_int(winner) or winner != expected:
        raise ValueError(f"the record says winner {winner!r:.20}; its actions give {expected}")


def _expected_winner(
    rules: Game[Any, Any], record: dict[str, Any], state: Any, has_actions: bool
) -> int:
    """The winner that the record's reason and its final ``state`` give; -1 for a draw."""
    reason, max_turns = record.get("reason"), record["max_turns"]
    ended = rules.outcome(state)  # by the rules alone
    if ended is not None:
        if reason != ended.reason:
            raise ValueError(
                f"the record says the game ended by {reason!r:.20}; its actions end it by "
                f"{ended.reason} (seat {ended.winner} won)"
            )
        return NO_PLAYER if ended.winner is None else ended.winner
    if reason in rules.end_reasons:
        raise ValueError(f"the record says the game ended by {reason!r:.20}; its actions go on")
    if reason == TRUNCATED:
        cut = rules.outcome(state, max_turns)
        if cut is None or rules.turn(state) != max_turns:
            raise ValueError(
                f"the record says truncated at max_turns {max_turns}; its actions stop "
                f"at turn {rules.turn(state)}, deciding {rules.decision_name(state)}"
            )
        return NO_PLAYER
    if reason in FAULTS:
        # The seat at fault is the one to act, or before any action either seat (a reset).
        winner = record.get("winner")
        if has_actions or winner not in (0, 1):
            return 1 - rules.current_player(state)
        return int(winner)
    reasons = end_reasons(rules.name)
    raise ValueError(f"reason must be one of {', '.join(reasons)}; got {reason!r:.30}")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _write_gif(
    game: Game[Any, Any], states: list[tuple[Any, LastThrow]], path: Path, frame_seconds: float
) -> None:
    try:
        import imageio.v3 as iio
    except ImportError:
        raise CliError("--gif needs imageio: pip install 'trap_env[plot]'") from None
    frames = [game.render_rgb(state, last_chance) for state, last_chance in states]
    frames.extend([frames[-1]] * 3)  # linger on the final position
    try:
        replace_atomically(path, lambda temporary: iio.imwrite(
            temporary, frames, duration=int(frame_seconds * 1000), loop=0))
    except OSError as error:
        raise CliError(f"cannot write {str(path)!r}: {error}") from None
    print(f"wrote {path} ({len(frames) - 3} frames)")


if __name__ == "__main__":
    sys.exit(main())

"""A recorded game checked against its rules: its actions a legal game, its stored outcome
the one they lead to (what ``trap-play --replay`` and the web page's Replay check).

Example:
    >>> from agents import make_agent
    >>> from agents.arena.match import play_game
    >>> players = [make_agent("random", game="trap"), make_agent("random", game="trap")]
    >>> record = play_game(players, seed=1, game="trap", params={"board_size": 5}).to_dict()
    >>> final_state, last_throw = replay_record(record)[-1]
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, TypeGuard

from agents.arena.match import FAULTS, NO_WINNER, LastChance, replay
from agents.arena.record_rules import record_game, record_params
from agents.arena.results import end_reasons
from trap_env.game import TRUNCATED, Game, IllegalActionError
from trap_env.games import get_game

__all__ = ["MAX_REPLAY_BOARD_SIZE", "replay_record"]

MAX_REPLAY_BOARD_SIZE = 100
"""The largest board a record may be replayed on (the rules tables grow as N * N)."""


def replay_record(
    record: dict[str, Any], *, allow_paths: bool | Collection[str] = ()
) -> list[tuple[Any, LastChance]]:
    """Replay a game record through its game's rules and check its stored outcome.

    The record's ``actions`` must be a legal game of its game (Trap! when it names none)
    under its rules (:func:`~agents.arena.record_rules.record_params`, in whichever shape
    the record holds them; the game's defaults for those it leaves out), on a board of at
    most :data:`MAX_REPLAY_BOARD_SIZE` where its game has a ``board_size``; and its
    ``winner``, ``reason`` and ``turns`` must be what those actions lead to: a trapped
    player, the turn limit, or a fault of the seat to act in a game not over, the turn
    limit included (before any action, a fault of either seat: its ``reset`` failed).

    A record naming its game by a path is replayed only when ``allow_paths`` allows that
    path (:func:`trap_env.games.get_game`): reading a record never imports other code.

    Returns:
        The states at the start of each turn and the final one, with the last throw.

    Raises:
        ValueError: naming what is wrong with the record.
    """
    name, actions = record_game(record), record.get("actions")
    if not isinstance(record.get("rules", {}), dict):
        raise ValueError(f"rules must be an object of rule parameters, got {record['rules']!r:.40}")
    params = record_params(record)
    board_size = params.get("board_size")
    if ("board_size" in params or "game" not in record) and not (
        _is_int(board_size) and 3 <= board_size <= MAX_REPLAY_BOARD_SIZE
    ):
        raise ValueError(
            f"board_size must be an integer from 3 to {MAX_REPLAY_BOARD_SIZE}, "
            f"got {board_size!r:.40}"
        )
    if not isinstance(actions, list) or not all(_is_int(action) for action in actions):
        raise ValueError(f"actions must be a list of actions (integers), got {actions!r:.60}")
    game = get_game(name, allow_paths=allow_paths)
    state = game.initial_state(game.make_config(**params))
    for index, action in enumerate(actions):
        try:
            state = game.apply(state, action)
        except IllegalActionError as error:
            raise ValueError(f"action {index} of the record: {error}") from None
    _check_outcome(game, record, state, has_actions=bool(actions))
    return list(replay(actions, game=name, params=params))


def _check_outcome(
    game: Game[Any, Any], record: dict[str, Any], state: Any, has_actions: bool
) -> None:
    """Check the record's ``winner``, ``reason`` and ``turns`` against its final ``state``."""
    winner, turns = record.get("winner"), record.get("turns")
    max_turns, played = record.get("max_turns"), game.turn(state)
    if not _is_int(turns) or turns != played:
        raise ValueError(f"the record says {turns!r:.20} turns; its actions play {played}")
    if not _is_int(max_turns) or played > max_turns:
        raise ValueError(
            f"max_turns must be an integer of at least the {played} turns played, "
            f"got {max_turns!r:.20}"
        )
    expected = _expected_winner(game, record, state, has_actions)
    if not _is_int(winner) or winner != expected:
        raise ValueError(f"the record says winner {winner!r:.20}; its actions give {expected}")


def _expected_winner(
    game: Game[Any, Any], record: dict[str, Any], state: Any, has_actions: bool
) -> int:
    """The winner that the record's reason and its final ``state`` give; -1 for a draw."""
    reason, max_turns = record.get("reason"), record["max_turns"]
    ended = game.outcome(state)  # by the rules alone
    if ended is not None:
        if reason != ended.reason:
            raise ValueError(
                f"the record says the game ended by {reason!r:.20}; its actions end it by "
                f"{ended.reason} (seat {ended.winner} won)"
            )
        return NO_WINNER if ended.winner is None else ended.winner
    if reason in game.end_reasons:
        raise ValueError(f"the record says the game ended by {reason!r:.20}; its actions go on")
    if reason == TRUNCATED:
        cut = game.outcome(state, max_turns)
        if cut is None or game.turn(state) != max_turns:
            raise ValueError(
                f"the record says truncated at max_turns {max_turns}; its actions stop "
                f"at turn {game.turn(state)}, deciding {game.decision_name(state)}"
            )
        return NO_WINNER
    if reason in FAULTS:
        if game.outcome(state, max_turns) is not None:  # no seat acts in a finished game
            raise ValueError(
                f"the record says the game ended by {reason!r:.20}; its actions reach the "
                f"turn limit {max_turns}, where it was over"
            )
        # The seat at fault is the one to act, or before any action either seat (a reset).
        winner = record.get("winner")
        if has_actions or winner not in (0, 1):
            return 1 - game.current_player(state)
        return int(winner)
    reasons = end_reasons(record_game(record))  # a game already allowed (and imported)
    raise ValueError(f"reason must be one of {', '.join(reasons)}; got {reason!r:.30}")


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)

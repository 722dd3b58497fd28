"""Play the reference search inside the McGill COMP 424 (Winter 2022) *Colosseum Survival!*
engine: :class:`CoursePlayer` is the body of the engine agent that
``examples/colosseum_comp424_agent.py`` registers there.

The engine asks ``step(chess_board, my_pos, adv_pos, max_step)`` with the barriers as an
``(M, M, 4)`` bool array (sides up, right, down, left: the engine's ``constants.py``), the
positions as ``(row, col)`` tuples of numpy integers and K; the player answers
``((row, col), side)``. It reads and writes no file.

The search runs :data:`TIME_LIMIT` seconds of wall-clock time per move (the course's
tournament allowed 2 s; the environment variable ``COLOSSEUM_AGENT_TIME_LIMIT``
overrides it). If the search fails, the player says so on standard error and answers the
first legal move of the rules rather than leave the engine to walk at random; given a
board it cannot read (or a position no game reaches), it says so on standard error and
stays where it is, with a barrier on a free side of its cell (:func:`fallback_move`).
"""

from __future__ import annotations

import sys
from typing import Any

from agents.colosseum.search import SearchAgent, SearchSettings
from agents.timing import seconds_from_environment
from trap_env.agent import Agent
from trap_env.colosseum import rules
from trap_env.colosseum.rules import ColosseumState

__all__ = ["NAME", "TIME_LIMIT", "CoursePlayer", "fallback_move", "time_limit", "to_state"]

NAME = "trap_env_agent"
"""The name the engine agent is registered under (``--player_1 trap_env_agent``)."""
TIME_LIMIT = 1.5
"""Seconds of wall-clock time per move: the course's 2 s less a margin."""

Move = tuple[tuple[int, int], int]
"""The engine's answer: the cell to stand on, ``(row, col)``, and the side of its barrier."""


def to_state(chess_board: Any, my_pos: Any, adv_pos: Any, turn: int) -> ColosseumState:
    """The engine's arguments as a state of :mod:`trap_env.colosseum.rules`, this player
    (whichever of the engine's it is) to act as player 0.

    Raises:
        ValueError: for a position no game reaches (``rules.check_state``), or arguments
            of another shape.
    """
    n = int(chess_board.shape[0])
    if tuple(chess_board.shape) != (n, n, 4):
        raise ValueError(f"the board must be (M, M, 4), got shape {tuple(chess_board.shape)}")
    walls = (_barriers(chess_board, 0), _barriers(chess_board, 1),
             _barriers(chess_board, 2), _barriers(chess_board, 3))  # fmt: skip
    me = int(my_pos[0]) * n + int(my_pos[1])
    other = int(adv_pos[0]) * n + int(adv_pos[1])
    if not all(0 <= int(value) < n for value in (*my_pos, *adv_pos)):
        raise ValueError(f"the positions {my_pos} and {adv_pos} must be on the {n}x{n} board")
    state = ColosseumState(n, walls, (me, other), 0, turn)
    rules.check_state(state)
    return state


def _barriers(chess_board: Any, side: int) -> int:
    """The bitboard of the cells with a barrier on ``side`` in the engine's board."""
    flags = chess_board[:, :, side].reshape(-1).tolist()
    return sum(1 << cell for cell, flag in enumerate(flags) if flag)


def fallback_move(chess_board: Any, my_pos: Any) -> Move:
    """Stay, with a barrier on the first side of the cell that has none: legal whenever
    the cell has a free side; ``((0, 0), 0)`` if not even the position can be read."""
    try:
        row, col = int(my_pos[0]), int(my_pos[1])
        free = [side for side in range(4) if not chess_board[row, col, side]]
    except Exception:  # an answer in any case, never a traceback
        return (0, 0), 0
    return (row, col), (free[0] if free else 0)


def time_limit() -> float:
    """:data:`TIME_LIMIT`, or the environment's ``COLOSSEUM_AGENT_TIME_LIMIT``.

    Raises:
        ValueError: if the environment's value is not a positive number of seconds.
    """
    return seconds_from_environment("COLOSSEUM_AGENT_TIME_LIMIT", TIME_LIMIT)


def _say(message: str) -> None:
    """One line on stderr (the engine's output is its own)."""
    print(f"{NAME}: {message}", file=sys.stderr, flush=True)


class CoursePlayer:
    """The reference search behind one engine agent (one per player per game).

    Args:
        search: the agent to ask; by default the reference, built at the first move with
            :func:`time_limit` seconds of wall-clock time.
    """

    def __init__(self, search: Agent | None = None) -> None:
        self.turns = 0
        self._search = search

    def step(self, chess_board: Any, my_pos: Any, adv_pos: Any, max_step: int) -> Move:
        """The search's move as ``((row, col), side)``; if the search fails, the first legal
        move of the rules; for a position it cannot read (or one no game reaches), a line
        on standard error and :func:`fallback_move`."""
        self.turns += 1
        try:
            state = to_state(chess_board, my_pos, adv_pos, self.turns - 1)
        except Exception as error:  # an answer in any case, never a traceback
            _say(f"cannot read the engine's position ({str(error)[:200]}); staying put")
            return fallback_move(chess_board, my_pos)
        try:
            action = self._searcher().select_action(state)
        except Exception as error:  # never leave the move to the engine's random walk
            _say(f"the search failed ({str(error)[:200]}); playing the first legal move")
            legal = rules.legal_actions(state)
            if not legal:  # the game is over: the engine asks no more
                return fallback_move(chess_board, my_pos)
            action = legal[0]
        cell, side = rules.decode_action(action)
        row, col = divmod(cell, state.board_size)
        return (row, col), side

    def _searcher(self) -> Agent:
        """The agent to ask, the reference built at the first move if none was given."""
        if self._search is None:
            self._search = SearchAgent(SearchSettings(time_limit=time_limit(), clock="wall"))
        return self._search

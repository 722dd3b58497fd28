"""Play the reference search inside the McGill COMP 424 (Winter 2022) *Colosseum Survival!*
engine: :class:`CoursePlayer` is the body of the engine agent that
``examples/colosseum_comp424_agent.py`` registers there.

The engine asks ``step(chess_board, my_pos, adv_pos, max_step)`` with the barriers as an
``(M, M, 4)`` bool array (sides up, right, down, left: the engine's ``constants.py``), the
positions as ``(row, col)`` tuples of numpy integers and K; the player answers
``((row, col), side)``. It reads and writes no file.

The arguments are read strictly: the positions must be ``(row, col)`` pairs of integers
(numpy's too) on the board, and ``max_step`` the board's K = (M + 1) // 2, which the
rules take from the board's size; anything else is refused on standard error (nothing is
truncated or ignored) and answered with :func:`fallback_move`.

The search runs :data:`TIME_LIMIT` seconds of wall-clock time per move (the course's
tournament allowed 2 s; the environment variable ``COLOSSEUM_AGENT_TIME_LIMIT``, above 0
and below :data:`MAX_TIME_LIMIT`, overrides it). If the search fails (or the variable is
refused), the player says so on standard error and answers the first legal move of the
rules rather than leave the engine to walk at random; given a board it cannot read (or a
position no game reaches), it says so on standard error and stays where it is, with a
barrier on a free side of its cell (:func:`fallback_move`).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from agents.colosseum.search import SearchAgent, SearchSettings
from agents.timing import seconds_from_environment
from trap_env.agent import Agent
from trap_env.checks import describe, is_integral
from trap_env.colosseum import rules
from trap_env.colosseum.rules import ColosseumState

__all__ = [
    "MAX_TIME_LIMIT", "NAME", "TIME_LIMIT", "CoursePlayer", "fallback_move", "time_limit",
    "to_state",
]  # fmt: skip

NAME = "trap_env_agent"
"""The name the engine agent is registered under (``--player_1 trap_env_agent``)."""
TIME_LIMIT = 1.5
"""Seconds of wall-clock time per move: the course's 2 s less a margin."""
MAX_TIME_LIMIT = 30.0
"""The bound of ``COLOSSEUM_AGENT_TIME_LIMIT``: the handout's 30 s for the first move, its
longest turn (every later one has 2 s)."""

Move = tuple[tuple[int, int], int]
"""The engine's answer: the cell to stand on, ``(row, col)``, and the side of its barrier."""


def to_state(
    chess_board: Any, my_pos: Any, adv_pos: Any, max_step: Any, turn: int
) -> ColosseumState:
    """The engine's arguments as a state of :mod:`trap_env.colosseum.rules`, this player
    (whichever of the engine's it is) to act as player 0.

    Raises:
        ValueError: for a position no game reaches (``rules.check_state``), positions that
            are not pairs of integers on the board, a ``max_step`` that is not the board's
            K, or arguments of another shape.
    """
    n = int(chess_board.shape[0])
    if tuple(chess_board.shape) != (n, n, 4):
        raise ValueError(f"the board must be (M, M, 4), got shape {tuple(chess_board.shape)}")
    if not (is_integral(max_step) and max_step == rules.max_steps(n)):
        raise ValueError(
            f"max_step must be the {n}x{n} board's K = (M + 1) // 2 = {rules.max_steps(n)} "
            f"(the rules take K from the board), got {describe(max_step)}"
        )
    walls = (_barriers(chess_board, 0), _barriers(chess_board, 1),
             _barriers(chess_board, 2), _barriers(chess_board, 3))  # fmt: skip
    me, other = _cell(n, "my_pos", my_pos), _cell(n, "adv_pos", adv_pos)
    state = ColosseumState(n, walls, (me, other), 0, turn)
    rules.check_state(state)
    return state


def _cell(n: int, name: str, position: Any) -> int:
    """The cell of a ``(row, col)`` position of the engine's.

    Raises:
        ValueError: if it is not a pair of integers (numpy's too) on the ``n`` x ``n`` board.
    """
    if not (
        isinstance(position, tuple | list | np.ndarray) and len(position) == 2
        and all(is_integral(value) and 0 <= value < n for value in position)
    ):
        raise ValueError(
            f"{name} must be a (row, col) pair of integers from 0 to {n - 1}, got "
            f"{describe(position)}"
        )
    return int(position[0]) * n + int(position[1])


def _barriers(chess_board: Any, side: int) -> int:
    """The bitboard of the cells with a barrier on ``side`` in the engine's board."""
    flags = chess_board[:, :, side].reshape(-1).tolist()
    return sum(1 << cell for cell, flag in enumerate(flags) if flag)


def fallback_move(chess_board: Any, my_pos: Any) -> Move:
    """Stay, with a barrier on the first side of the cell that has none: legal whenever
    the cell has a free side; ``((0, 0), 0)`` if not even the position can be read."""
    try:
        n = int(chess_board.shape[0])
        row, col = divmod(_cell(n, "my_pos", my_pos), n)
        free = [side for side in range(4) if not chess_board[row, col, side]]
    except Exception:  # an answer in any case, never a traceback
        return (0, 0), 0
    return (row, col), (free[0] if free else 0)


def time_limit() -> float:
    """:data:`TIME_LIMIT`, or the environment's ``COLOSSEUM_AGENT_TIME_LIMIT``.

    Raises:
        ValueError: if the environment's value is not a number of seconds above 0 and
            below :data:`MAX_TIME_LIMIT`.
    """
    return seconds_from_environment("COLOSSEUM_AGENT_TIME_LIMIT", TIME_LIMIT, MAX_TIME_LIMIT)


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
            state = to_state(chess_board, my_pos, adv_pos, max_step, self.turns - 1)
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

"""Play any agent inside the course's engine: ``PlayerAI`` speaks the course's interface.

The course is the one that set the game, in its handout *AI Squid Game: Trap!*; its
grading engine behaves as ``docs/RULES.md`` records, and this project matches it.
Its ``Game.py`` calls ``getMove(grid)`` as a turn begins and ``getTrap(grid)`` after the
move; it numbers the players 1 and 2 (this project's 0 and 1), and ``grid.map`` is an
``N x N`` float array (0 empty, 1 and 2 the players, -1 a trap). ``PlayerAI`` rebuilds a
:class:`trap_env.trap.core.State` from the grid (phase ``MOVE`` for ``getMove``, ``THROW`` for
``getTrap``) and asks the wrapped agent. A grid it cannot read, or a position no game
reaches, gets a line on standard error and an answer the engine accepts where one exists
(a free neighbour to step to, a free cell to throw at), never a traceback.

The answer comes within the agent's time limit on every board the course's engine sets
(up to 1000x1000): the grid is read with NumPy in milliseconds, and a board the agent
declines (its ``check_game``: ``expectiminimax`` plays boards up to 100x100, where one
evaluation fits in a turn) is played by the one-ply ``greedy`` agent instead, which is said
once a game on standard error.

Example (in the course's ``Game.py``)::

    from agents.course import PlayerAI
    player_1 = PlayerAI("expectiminimax:time_limit=0.9")
"""

from __future__ import annotations

import numbers
import sys
from typing import Any, Protocol

import numpy as np

from agents.registry import make_agent
from agents.trap.heuristics import GreedyAgent
from trap_env.agent import Agent, UnsupportedGameError, check_supports
from trap_env.checks import describe, is_integral
from trap_env.trap import core
from trap_env.trap.core import GameConfig, Phase, State
from trap_env.trap.game import GAME

__all__ = ["PlayerAI", "fallback_cell", "state_from_grid"]

_PLAYER_VALUES = (1.0, 2.0)
_TRAP_VALUE = -1.0
_VALUES = np.array([0.0, _TRAP_VALUE, *_PLAYER_VALUES])


class CourseGrid(Protocol):
    """The part of the course's ``Grid`` that the adapter reads."""

    dim: int
    map: Any


def state_from_grid(grid: CourseGrid, player: int, phase: Phase, turn: int = 0) -> State:
    """The state of a course grid, with ``player`` (0 or 1) to act in ``phase``.

    Raises:
        TypeError: if ``grid.dim`` is not an integer or ``grid.map`` not rows of numbers.
        ValueError: if ``grid.map`` is not ``grid.dim`` rows of as many cells, does not hold
            each player exactly once, or holds a value other than 0, 1, 2 and -1.
    """
    n, values = _grid_cells(grid)
    unknown = np.unique(values[~np.isin(values, _VALUES)])
    if unknown.size:
        raise ValueError(f"grid values must be 0, 1, 2 or -1, found {unknown[:10].tolist()}")
    cells = []
    for number, mark in enumerate(_PLAYER_VALUES, start=1):
        found = np.flatnonzero(values == mark)
        if len(found) != 1:
            raise ValueError(
                f"the grid must hold player {number} once, found it {len(found)} times"
            )
        cells.append(int(found[0]))
    traps = _bitboard(values == _TRAP_VALUE)
    state = State(n, traps, (cells[0], cells[1]), player, phase, core.NO_PLAYER, turn, -1)
    core.validate_state(state)
    return state


def _bitboard(flags: np.ndarray) -> int:
    """The bitboard whose bit ``i`` is ``flags[i]`` (a million cells in a millisecond)."""
    return int.from_bytes(np.packbits(flags, bitorder="little").tobytes(), "little")


def _grid_cells(grid: CourseGrid) -> tuple[int, np.ndarray]:
    """A course grid's side ``N`` and its cells' values, row by row, checked for shape and
    type."""
    if not (hasattr(grid, "dim") and hasattr(grid, "map")):
        raise TypeError(f"grid must be the course's Grid, with dim and map, got {describe(grid)}")
    n = grid.dim
    if not is_integral(n):
        raise TypeError(f"grid.dim must be an integer board size, got {describe(n)}")
    n = int(n)
    shape = f"{n} rows of {n} numbers (0 empty, 1 and 2 the players, -1 a trap)"
    try:
        rows = [row if _is_number_row(row) else list(row) for row in grid.map]
    except TypeError:
        raise TypeError(f"grid.map must be {shape}, got {describe(grid.map)}") from None
    if len(rows) != n or any(len(row) != n for row in rows):
        lengths = [len(row) for row in rows][:10]
        raise ValueError(f"grid.map must be {shape}, got rows of lengths {lengths}")
    for row in rows:
        if not _is_number_row(row):  # the course's own rows are arrays of floats
            for value in row:
                if isinstance(value, bool) or not isinstance(value, numbers.Real):
                    raise TypeError(f"grid.map must be {shape}, found {describe(value)}")
    values = [np.asarray(row, dtype=np.float64) for row in rows]
    return n, np.concatenate(values) if values else np.zeros(0)


def _is_number_row(row: object) -> bool:
    """Whether a row of the grid is a NumPy row of integers or floats (read as a whole)."""
    return isinstance(row, np.ndarray) and row.ndim == 1 and row.dtype.kind in "iuf"


def fallback_cell(grid: Any, phase: Phase, position: tuple[int, int] | None) -> tuple[int, int]:
    """An answer the engine accepts, read from a grid as far as it can be: for a move, an
    empty neighbour of ``position``; for a throw, an empty cell; else ``position`` (or
    ``(0, 0)``), when no such cell can be read."""
    try:
        rows = [list(row) for row in grid.map]
        if phase is Phase.MOVE and position is not None:
            row, col = position
            cells = [(row + dr, col + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
        else:
            cells = [(row, col) for row in range(len(rows)) for col in range(len(rows[row]))]
        for row, col in cells:
            if 0 <= row < len(rows) and 0 <= col < len(rows[row]) and rows[row][col] == 0:
                return row, col
    except Exception:  # an answer in any case, never a traceback
        pass
    return position or (0, 0)


class PlayerAI:
    """The course's player interface around any agent (its camelCase method names kept).

    Args:
        agent: an agent object, or a spec string for :func:`agents.make_agent`.
        seed: seeds the agent built from a spec.
        **options: options for the agent built from a spec.

    Raises:
        TypeError: if ``agent`` is neither a spec string nor an agent (an object with
            ``select_action`` and ``reset``).
    """

    def __init__(
        self,
        agent: Agent | str = "expectiminimax:time_limit=0.9",
        seed: int | None = None,
        **options: Any,
    ) -> None:
        if isinstance(agent, str):
            agent = make_agent(agent, game="trap", seed=seed, **options)
        elif not all(callable(getattr(agent, name, None)) for name in ("select_action", "reset")):
            raise TypeError(
                "agent must be an agent spec string such as 'random' or an agent (an object "
                f"with select_action(state) and reset()), got {describe(agent)}"
            )
        elif options:
            raise ValueError(f"options {sorted(options)} apply only to an agent given as a spec")
        self.agent = agent
        self.player_num: int | None = None
        self.position: tuple[int, int] | None = None
        self._own_turns = 0
        self._seed = seed
        self._checked: GameConfig | None = None
        self._stand_in: Agent | None = None

    def setPlayerNum(self, num: int) -> None:
        """Set the course's player number, 1 or 2, as a game begins."""
        if not is_integral(num):
            raise TypeError(f"num, the player number, must be 1 or 2, got {describe(num)}")
        if num not in (1, 2):
            raise ValueError(f"the player number must be 1 or 2, got {num!r}")
        self.player_num = int(num)
        self._own_turns = 0
        self._checked = self._stand_in = None  # a new game: its board is checked again
        self.agent.reset()  # a new game: forget the last one's tables and trees

    def getPlayerNum(self) -> int | None:
        """The course's player number, 1 or 2 (None before ``setPlayerNum``)."""
        return self.player_num

    def setPosition(self, new_position: tuple[int, int]) -> None:
        """Record the player's ``(row, col)``."""
        if not (
            isinstance(new_position, tuple | list)
            and len(new_position) == 2
            and all(is_integral(value) for value in new_position)
        ):
            raise TypeError(
                f"new_position must be a (row, col) pair of integers, got {describe(new_position)}"
            )
        row, col = new_position
        self.position = (int(row), int(col))

    def getPosition(self) -> tuple[int, int] | None:
        """The player's ``(row, col)`` as the engine last set it."""
        return self.position

    def getMove(self, grid: CourseGrid) -> tuple[int, int]:
        """The ``(row, col)`` to step to, given the grid as the turn begins."""
        # The engine checks the move against getPosition() before it calls setPosition:
        # the position must stay the old one until then.
        return self._ask(grid, Phase.MOVE)

    def getTrap(self, grid: CourseGrid) -> tuple[int, int]:
        """The ``(row, col)`` to throw a trap at, given the grid after the move."""
        cell = self._ask(grid, Phase.THROW)
        self._own_turns += 1
        return cell

    def _ask(self, grid: CourseGrid, phase: Phase) -> tuple[int, int]:
        if self.player_num is None:
            raise ValueError("call setPlayerNum(1 or 2) before asking for a move or a trap")
        # Turns completed by both players: player 1 moves first, in turns 0, 2, 4, ...
        turn = 2 * self._own_turns + self.player_num - 1
        try:
            state = state_from_grid(grid, self.player_num - 1, phase, turn)
        except (TypeError, ValueError) as error:
            what = phase.name.lower()
            print(f"PlayerAI cannot read the grid ({error}); a fallback {what}", file=sys.stderr)
            return fallback_cell(grid, phase, self.position)
        row, col = divmod(int(self._player_of(state).select_action(state)), state.board_size)
        return row, col

    def _player_of(self, state: State) -> Agent:
        """The agent to ask: the wrapped one, or for a board it declines (its
        ``check_game``) the one-ply ``greedy`` agent, said once a game on stderr."""
        config = GAME.config_of(state)
        if config != self._checked:
            self._checked, self._stand_in = config, None
            try:
                check_supports(self.agent, config)
            except UnsupportedGameError as error:
                print(f"PlayerAI: {error}; playing greedy (one ply) on this board instead",
                      file=sys.stderr)  # fmt: skip
                self._stand_in = GreedyAgent(seed=self._seed)
        return self.agent if self._stand_in is None else self._stand_in

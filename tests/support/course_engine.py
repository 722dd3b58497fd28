"""A stand-in for the course's grading engine (its ``Grid`` and its turn loop), for tests.

It follows ``docs/RULES.md``'s paragraph "The engine's turn, in order" step by step, and it
is written from the course's interface alone, with no code of ``trap_env.trap.core``, so
that it checks the adapter against the engine rather than against our own rules:

1. ``move = player.getMove(grid.clone())``; the move is valid when its cell is empty
   and among ``grid.get_neighbors(player.getPosition())`` (the position *before* the
   move); only then is the piece moved and ``player.setPosition(move)`` called;
2. the mover wins if the opponent has no empty neighbour;
3. ``target = player.getTrap(grid.clone())``, valid unless it holds a player (or is off
   the board);
4. the landing is drawn with NumPy's ``choice`` over the target and its neighbours that
   hold no player: ``p = 1 - (a - 1) / 20`` on the target (``a`` the Manhattan distance,
   clamped to ``[0, 1]``), the rest shared equally by the neighbours;
5. the thrower wins if the opponent has no empty neighbour.

An invalid move or throw, an exception, or a call that uses more CPU time than
``time_limit`` (measured with ``time.process_time`` around each call) loses the game.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

Position = tuple[int, int]

EMPTY, TRAP = 0.0, -1.0


class CoursePlayer(Protocol):
    """The course's player interface."""

    def setPlayerNum(self, num: int) -> None: ...

    def getPlayerNum(self) -> int | None: ...

    def setPosition(self, new_position: Position) -> None: ...

    def getPosition(self) -> Position | None: ...

    def getMove(self, grid: Grid) -> Any: ...

    def getTrap(self, grid: Grid) -> Any: ...


class Grid:
    """The course's board: an ``N x N`` float map, 0 empty, 1 and 2 the players, -1 traps."""

    def __init__(self, dim: int = 7) -> None:
        self.dim = dim
        self.map = np.zeros((dim, dim), dtype=float)

    def find(self, value: int) -> tuple[np.intp, np.intp]:
        """The ``(row, col)`` holding ``value``, as NumPy integers (as the course's does)."""
        rows, cols = np.where(self.map == value)
        return rows[0], cols[0]

    def clone(self) -> Grid:
        """A copy that the player may change freely."""
        grid = Grid(self.dim)
        grid.map = self.map.copy()
        return grid

    def getAvailableCells(self) -> list[Position]:
        """The empty cells."""
        return [(int(r), int(c)) for r, c in zip(*np.where(self.map == EMPTY), strict=True)]

    def get_neighbors(self, pos: Position, only_available: bool = False) -> list[Position]:
        """The on-board 8-neighbourhood of ``pos``; with ``only_available``, the empty cells."""
        row, col = pos
        cells = [
            (r, c)
            for r in range(row - 1, row + 2)
            for c in range(col - 1, col + 2)
            if (r, c) != (row, col) and 0 <= r < self.dim and 0 <= c < self.dim
        ]
        return [cell for cell in cells if not only_available or self.map[cell] == EMPTY]

    def is_on_board(self, pos: Any) -> bool:
        """Whether ``pos`` is a pair of integers inside the board."""
        try:
            row, col = pos
            return (
                0 <= int(row) < self.dim
                and 0 <= int(col) < self.dim
                and (int(row) == row and int(col) == col)
            )
        except (TypeError, ValueError):
            return False


@dataclass
class CourseResult:
    """How an engine game ended: the winner (1 or 2, 0 for a draw) and why."""

    winner: int
    reason: str
    turns: int


def landing_distribution(
    grid: Grid, thrower: Position, target: Position
) -> list[tuple[Position, float]]:
    """The engine's landing cells and their probabilities, the target first."""
    distance = abs(thrower[0] - target[0]) + abs(thrower[1] - target[1])
    on_target = min(max(1 - (distance - 1) / 20, 0.0), 1.0)
    neighbours = [cell for cell in grid.get_neighbors(target) if grid.map[cell] not in (1, 2)]
    share = (1 - on_target) / len(neighbours) if neighbours else 0.0
    return [(target, on_target), *((cell, share) for cell in neighbours)]


class CourseEngine:
    """Plays whole games between two course players, as the course's ``Game.py`` does.

    Args:
        dim: the board side N.
        time_limit: CPU seconds allowed for each ``getMove`` and each ``getTrap`` call.
        seed: seeds the NumPy generator that draws the landings.
        max_turns: a draw after this many turns (the course had no limit; a test needs one).
    """

    def __init__(
        self, dim: int = 7, time_limit: float = 1.0, seed: int = 0, max_turns: int | None = None
    ) -> None:
        self.dim = dim
        self.time_limit = time_limit
        self.rng = np.random.RandomState(seed)
        self.max_turns = 4 * dim * dim if max_turns is None else max_turns

    def play(self, players: Sequence[CoursePlayer]) -> CourseResult:
        """Play one game from the standard start; ``players[0]`` is number 1 and moves first."""
        grid = Grid(self.dim)
        starts = [(0, self.dim // 2), (self.dim - 1, self.dim // 2)]
        for number, (player, start) in enumerate(zip(players, starts, strict=True), start=1):
            player.setPlayerNum(number)
            player.setPosition(start)
            grid.map[start] = number
        for turn in range(self.max_turns):
            index = turn % 2
            fault = self._turn(grid, players[index], index + 1)
            if fault is not None:
                winner = (2 - index) if fault != "won" else index + 1
                return CourseResult(winner, "trapped" if fault == "won" else fault, turn + 1)
        return CourseResult(0, "truncated", self.max_turns)

    def _turn(self, grid: Grid, player: CoursePlayer, number: int) -> str | None:
        """One turn; None if the game goes on, "won" if the player won, else its fault."""
        opponent = 3 - number
        move, fault = self._timed(player.getMove, grid.clone(), "move")
        if fault is not None:
            return fault
        position = player.getPosition()
        if (
            position is None
            or not grid.is_on_board(move)
            or grid.map[tuple(move)] != EMPTY
            or (tuple(move) not in grid.get_neighbors(position))
        ):
            return f"invalid move {move!r} from {position!r}"
        grid.map[position] = EMPTY
        grid.map[tuple(move)] = number
        player.setPosition(move)
        if not grid.get_neighbors(grid.find(opponent), only_available=True):
            return "won"
        target, fault = self._timed(player.getTrap, grid.clone(), "trap")
        if fault is not None:
            return fault
        if not grid.is_on_board(target) or grid.map[tuple(target)] in (1, 2):
            return f"invalid trap {target!r}"
        self._land(grid, tuple(move), tuple(target))
        if not grid.get_neighbors(grid.find(opponent), only_available=True):
            return "won"
        return None

    def _timed(self, call: Callable[[Grid], Any], grid: Grid, what: str) -> tuple[Any, str | None]:
        start = time.process_time()
        try:
            answer = call(grid)
        except Exception as error:  # the engine scores any exception as a loss
            return None, f"{what} raised {type(error).__name__}: {error}"
        seconds = time.process_time() - start
        if seconds > self.time_limit:
            return None, f"{what} took {seconds:.3f} s of CPU, limit {self.time_limit} s"
        return answer, None

    def _land(self, grid: Grid, thrower: Position, target: Position) -> None:
        outcomes = landing_distribution(grid, thrower, target)
        index = self.rng.choice(len(outcomes), p=[probability for _, probability in outcomes])
        grid.map[outcomes[index][0]] = TRAP

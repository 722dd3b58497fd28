"""Trap!'s rules as unchecked bitboard arithmetic: board geometry, the landing rule, transitions.

This module is the one statement of the rules. :mod:`trap_env.trap.core` validates an action
and then calls :func:`move`, :func:`throw` or :func:`land`; the search, the evaluation and
the heuristics take their king-step geometry from :func:`geometry`; :func:`is_trapped` is
the only test of whether a player has lost. Nothing here checks its input: callers pass
legal actions (``core.apply`` checks them), so the search can step through millions of
states without paying for it.

Board: a bitboard is a Python ``int`` whose bit ``row * N + col`` stands for the cell
``(row, col)``. A :class:`Geometry` holds one board size's tables; for boards up to
:data:`TABLE_MAX_BOARD_SIZE` they are plain tuples built once, above it each entry is
computed when read (a table of N*N masks of N*N bits grows as N**4: 125 GB at N = 1000).

Landing: a throw at Manhattan distance ``a`` lands on its target with probability
``p = 1 - (a - 1) * decay / 1000`` clamped to ``[0, 1]`` (:func:`on_target_per_mille`);
each of the target's ``n`` eligible neighbours (on the board, holding no player) gets
``(1 - p) / n``. ``decay`` is an integer per mille (the rules' 0.05 is 50), so the
rule is exact: every probability is a ratio of integers, rounded once to a float.

The names below are a stable API (the batched engine derives its NumPy tables from them):
:class:`State`, :class:`Phase`, :data:`NO_PLAYER`, :data:`DEFAULT_DECAY`,
:data:`MAX_DECAY`, :func:`geometry` (and :data:`cached_geometry`), :class:`Geometry`,
:func:`king_dilate`,
:func:`square_mask`, :func:`king_distance`, :func:`manhattan_distance`,
:func:`on_target_per_mille`, :func:`landing_distribution`, :func:`landings`,
:func:`is_trapped`, :func:`decided_winner`, :func:`move`, :func:`throw`, :func:`land`,
:func:`apply`.

Its bitboards are :mod:`trap_env.bits`'s. This module imports nothing outside the standard
library.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import NamedTuple, TypeVar, overload

from trap_env.bits import Bitboard, Cell, cells_of
from trap_env.cache import BoundedCache

__all__ = [
    "DEFAULT_DECAY",
    "MAX_DECAY",
    "NO_PLAYER",
    "PER_MILLE",
    "TABLE_MAX_BOARD_SIZE",
    "Geometry",
    "Outcomes",
    "Phase",
    "State",
    "apply",
    "cached_geometry",
    "decided_winner",
    "geometry",
    "is_trapped",
    "king_dilate",
    "king_distance",
    "land",
    "landing_distribution",
    "landings",
    "manhattan_distance",
    "move",
    "on_target_per_mille",
    "square_mask",
    "throw",
]

Outcomes = tuple[tuple[Cell, float], ...]
"""A landing distribution: ``(cell, probability)`` pairs."""

NO_PLAYER = -1
"""The ``winner`` (and ``target``) field's value when there is none."""
PER_MILLE = 1000
"""The unit of ``decay`` and of :func:`on_target_per_mille`."""
DEFAULT_DECAY = 50
"""The rules' accuracy loss, 0.05 per step of distance beyond the first, in per mille."""
MAX_DECAY = PER_MILLE
"""The largest decay: every throw beyond distance 1 misses its target."""
TABLE_MAX_BOARD_SIZE = 32
"""Boards up to this size get their geometry as tuples built at once (at most 128 KB)."""


class Phase(enum.IntEnum):
    """The step of a turn that the state is waiting for."""

    MOVE = 0
    THROW = 1
    LANDING = 2


class State(NamedTuple):
    """A position: a handful of ints, immutable and hashable.

    Attributes:
        board_size: N.
        traps: the cells holding a trap.
        cells: the cells of player 0 and player 1.
        player: the player to act; during ``LANDING``, the thrower.
        phase: what the state waits for: a move, a throw target, or chance.
        target: the pending throw's target during ``LANDING``, else ``NO_PLAYER`` (-1).
        turn: the number of turns completed (a turn is one player's move and throw).
        winner: 0 or 1 once the game is over, else ``NO_PLAYER`` (-1).
        decay: the throw's accuracy loss per step of distance beyond the first, in per
            mille (a rule of the game, so the state carries it: the landing depends on it).
    """

    board_size: int
    traps: Bitboard
    cells: tuple[Cell, Cell]
    player: int
    phase: Phase
    target: Cell
    turn: int
    winner: int
    decay: int = DEFAULT_DECAY


_MOVE, _THROW, _LANDING = Phase.MOVE, Phase.THROW, Phase.LANDING
# State(...) costs a keyword-capable __new__; the transitions build many states, so they
# call tuple.__new__ directly with all nine fields in order.
_new_state = tuple.__new__


# --- Geometry ---------------------------------------------------------------------------

T = TypeVar("T")


class Geometry(NamedTuple):
    """The tables of one board size (see :func:`geometry`).

    Attributes:
        board_size: N.
        num_cells: N * N.
        full: every cell.
        not_left: every cell outside column 0 (the cells that may shift one column left).
        not_right: every cell outside column N - 1.
        neighbours: ``neighbours[c]``, the cells one king step from ``c`` (up to 8).
        neighbour_cells: ``neighbour_cells[c]``, the same cells as an ascending tuple.
    """

    board_size: int
    num_cells: int
    full: Bitboard
    not_left: Bitboard
    not_right: Bitboard
    neighbours: Sequence[Bitboard]
    neighbour_cells: Sequence[tuple[Cell, ...]]


class _Computed(Sequence[T]):
    """A read-only sequence whose items are computed when read (tables too big to build)."""

    __slots__ = ("_item", "_length")

    def __init__(self, length: int, item: Callable[[int], T]) -> None:
        self._length = length
        self._item = item

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...

    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        if isinstance(index, slice):
            return tuple(self._item(i) for i in range(self._length)[index])
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(f"cell {index} is off a board of {self._length} cells")
        return self._item(index)


def _square_window(board_size: int, cell: Cell, radius: int) -> tuple[Bitboard, int]:
    """The cells within ``radius`` king steps of ``cell``, as ``(mask >> offset, offset)``.

    A small int and a shift, so that large boards pay for one big-int operation only.
    """
    n = board_size
    row, col = divmod(cell, n)
    top, bottom = max(0, row - radius), min(n - 1, row + radius)
    left, right = max(0, col - radius), min(n - 1, col + radius)
    row_bits = ((1 << (right - left + 1)) - 1) << left
    # 1 + 2**n + 2**(2n) + ...: one bit at the start of each row of the square.
    row_starts = ((1 << (bottom - top + 1) * n) - 1) // ((1 << n) - 1)
    return row_bits * row_starts, top * n


def square_mask(board_size: int, cell: Cell, radius: int) -> Bitboard:
    """The cells within ``radius`` king steps of ``cell``, ``cell`` included."""
    window, offset = _square_window(board_size, cell, radius)
    return window << offset


def _ring(board_size: int, cell: Cell) -> tuple[Bitboard, tuple[Cell, ...]]:
    """The cells one king step from ``cell``: as a mask and as ascending cells."""
    window, offset = _square_window(board_size, cell, 1)
    window ^= 1 << (cell - offset)
    return window << offset, tuple(cells_of(window, offset))


def _build_geometry(board_size: int) -> Geometry:
    n = board_size
    size = n * n
    full = (1 << size) - 1
    left_column = ((1 << size) - 1) // ((1 << n) - 1)  # bit 0 of every row
    neighbours: Sequence[Bitboard]
    neighbour_cells: Sequence[tuple[Cell, ...]]
    if n <= TABLE_MAX_BOARD_SIZE:
        rings = [_ring(n, cell) for cell in range(size)]
        neighbours = tuple(mask for mask, _ in rings)
        neighbour_cells = tuple(cells for _, cells in rings)
    else:
        neighbours = _Computed(size, lambda cell: _ring(n, cell)[0])
        neighbour_cells = _Computed(size, lambda cell: _ring(n, cell)[1])
    return Geometry(
        n,
        size,
        full,
        full & ~left_column,
        full & ~(left_column << (n - 1)),
        neighbours,
        neighbour_cells,
    )


_GEOMETRIES: BoundedCache[int, Geometry] = BoundedCache(16)
cached_geometry = _GEOMETRIES.get
"""``cached_geometry(N)``: the tables of a board size already built, else None.

A dict lookup, for hot paths: ``cached_geometry(n) or geometry(n)``.
"""


def geometry(board_size: int) -> Geometry:
    """The tables of the ``board_size`` x ``board_size`` board (built once, then cached)."""
    found = cached_geometry(board_size)
    if found is None:
        found = _build_geometry(board_size)
        if not _GEOMETRIES.put(board_size, found):
            _GEOMETRIES.clear()  # sixteen sizes in use: dropping them costs a rebuild, no more
            _GEOMETRIES.put(board_size, found)
    return found


def king_dilate(tables: Geometry, cells: Bitboard) -> Bitboard:
    """``cells`` together with every on-board cell one king step from them."""
    row = cells | (cells & tables.not_right) << 1 | (cells & tables.not_left) >> 1
    return (row | row << tables.board_size | row >> tables.board_size) & tables.full


def king_distance(board_size: int, a: Cell, b: Cell) -> int:
    """The number of king steps between cells ``a`` and ``b`` (the Chebyshev distance)."""
    (row_a, col_a), (row_b, col_b) = divmod(a, board_size), divmod(b, board_size)
    return max(abs(row_a - row_b), abs(col_a - col_b))


def manhattan_distance(board_size: int, a: Cell, b: Cell) -> int:
    """The Manhattan distance between cells ``a`` and ``b`` (the throw's distance)."""
    (row_a, col_a), (row_b, col_b) = divmod(a, board_size), divmod(b, board_size)
    return abs(row_a - row_b) + abs(col_a - col_b)


# --- The landing rule ---------------------------------------------------------------------


def on_target_per_mille(distance: int, decay: int) -> int:
    """The chance, in per mille, that a throw at Manhattan ``distance`` lands on its target.

    ``1000 - (distance - 1) * decay``, clamped to ``[0, 1000]``: exact, an integer.
    """
    return min(PER_MILLE, max(0, PER_MILLE - (distance - 1) * decay))


def landing_distribution(
    board_size: int, decay: int, thrower: Cell, other: Cell, target: Cell
) -> Outcomes:
    """The landing distribution of a throw from ``thrower`` at ``target``.

    The target comes first (left out when its chance is 0), then its eligible neighbours
    (the on-board cells one king step away, except ``thrower`` and ``other``, the two
    players' cells) in ascending order, each with an equal share of the rest (left out
    when the target's chance is 1). Each probability is the exact ratio rounded once.
    """
    distance = manhattan_distance(board_size, thrower, target)
    on_target = on_target_per_mille(distance, decay)
    outcomes: Outcomes = ((target, on_target / PER_MILLE),) if on_target else ()
    if on_target == PER_MILLE:
        return outcomes
    eligible = [
        cell
        for cell in (cached_geometry(board_size) or geometry(board_size)).neighbour_cells[target]
        if cell != thrower and cell != other
    ]
    share = (PER_MILLE - on_target) / (PER_MILLE * len(eligible))
    return outcomes + tuple((cell, share) for cell in eligible)


_LANDINGS: BoundedCache[tuple[int, int, Cell, Cell, Cell], Outcomes] = BoundedCache(1 << 17)
"""Distributions by (N, decay, thrower, other, target): every one on a 7x7 board fits."""
_cached_landings = _LANDINGS.get  # bound once: landings() runs twice per landing in a game


def landings(state: State) -> Outcomes:
    """The landing distribution of the pending throw of a ``LANDING`` state (cached)."""
    cells, player = state.cells, state.player
    key = (state.board_size, state.decay, cells[player], cells[1 - player], state.target)
    found = _cached_landings(key)
    if found is None:
        found = landing_distribution(*key)
        # Once full, new throws are computed each time (microseconds): no pause, ever.
        _LANDINGS.put(key, found)
    return found


# --- Wins and transitions -------------------------------------------------------------------


def is_trapped(ring: Bitboard, traps: Bitboard, other: Cell) -> bool:
    """Whether a player has no step: every cell of its ``ring`` holds a trap or the other player.

    Args:
        ring: the player's king-step neighbours, ``geometry(N).neighbours[its cell]``.
        traps: the traps on the board.
        other: the other player's cell.
    """
    # Written without ~: & with a negative int copies both operands into two's complement.
    return ring & (traps | 1 << other) == ring


def decided_winner(state: State) -> int:
    """The winner that the position implies (``NO_PLAYER`` while play goes on).

    In ``MOVE`` a player with no step loses; in ``THROW`` and ``LANDING`` the player to act
    has just moved and wins if the opponent has no step.
    """
    neighbours = geometry(state.board_size).neighbours
    player, traps, cells = state.player, state.traps, state.cells
    if state.phase is _MOVE:
        stuck = is_trapped(neighbours[cells[player]], traps, cells[1 - player])
        return 1 - player if stuck else NO_PLAYER
    stuck = is_trapped(neighbours[cells[1 - player]], traps, cells[player])
    return player if stuck else NO_PLAYER


def move(state: State, cell: Cell) -> State:
    """The state after the player to act steps to ``cell``; it wins if the opponent is trapped."""
    n, traps, cells, player = state.board_size, state.traps, state.cells, state.player
    other = cells[1 - player]
    tables = cached_geometry(n) or geometry(n)
    won = is_trapped(tables.neighbours[other], traps, cell)
    return _new_state(
        State,
        (
            n,
            traps,
            (cell, other) if player == 0 else (other, cell),
            player,
            _THROW,
            NO_PLAYER,
            state.turn,
            player if won else NO_PLAYER,
            state.decay,
        ),
    )


def throw(state: State, cell: Cell) -> State:
    """The state after the player to act names ``cell`` as its throw's target."""
    return _new_state(
        State,
        (
            state.board_size,
            state.traps,
            state.cells,
            state.player,
            _LANDING,
            cell,
            state.turn,
            NO_PLAYER,
            state.decay,
        ),
    )


def land(state: State, cell: Cell) -> State:
    """The state after the pending throw lands on ``cell``: the other player's turn begins.

    The thrower wins if the opponent is trapped now.
    """
    n, cells, player = state.board_size, state.cells, state.player
    traps = state.traps | 1 << cell
    tables = cached_geometry(n) or geometry(n)
    won = is_trapped(tables.neighbours[cells[1 - player]], traps, cells[player])
    return _new_state(
        State,
        (
            n,
            traps,
            cells,
            1 - player,
            _MOVE,
            NO_PLAYER,
            state.turn + 1,
            player if won else NO_PLAYER,
            state.decay,
        ),
    )


def apply(state: State, action: Cell) -> State:
    """The state after a legal ``action``: :func:`move`, :func:`throw` or :func:`land`, by phase.

    The action is not checked (see ``trap_env.trap.core.apply``).
    """
    phase = state.phase
    if phase is _MOVE:
        return move(state, action)
    if phase is _THROW:
        return throw(state, action)
    return land(state, action)

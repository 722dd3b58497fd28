"""Othello's fast bitboard arithmetic for the search: placements by shift-and-mask, flips by
ray masks, stable discs, all on Python ints with per-N tables built once.

Bit ``row * N + col`` is cell ``(row, col)``, as in :mod:`trap_env.othello.rules`; a
position is seen from the player to act, ``own`` and ``other``. :func:`geometry` builds
(and caches) one :class:`Geometry` per board side. The rules module stays the reference:
the tests check these functions against it.

Example:
    >>> from trap_env.othello.rules import initial_state, cells_of
    >>> state = initial_state()
    >>> cells_of(geometry(8).placements(state.dark, state.light))
    [19, 26, 37, 44]
"""

from __future__ import annotations

from trap_env.cache import per_board_size
from trap_env.othello.rules import Bitboard, Cell, check_board_size, full_board

__all__ = ["Geometry", "geometry"]

_STEPS = ((0, 1), (1, -1), (1, 0), (1, 1), (0, -1), (-1, 1), (-1, 0), (-1, -1))
"""The eight directions as (row step, column step); the first four raise the bit index."""
_AXES = ((0, 1), (1, 0), (1, 1), (1, -1))
"""The four lines through a cell, each as one of its two directions."""


class Geometry:
    """The masks and tables of one board side N (build through :func:`geometry`).

    Attributes:
        board_size: N.
        num_cells: N * N.
        full: every cell.
        corners: the four corners.
        x_squares: for each corner, (the corner's bit, the diagonal neighbour's bit).
        square_values: each cell's static ordering value (corners first, X-squares last).
    """

    def __init__(self, board_size: int) -> None:
        check_board_size(board_size)
        n = self.board_size = board_size
        self.num_cells = n * n
        self.full = full_board(n)
        first, last = _column(n, 0), _column(n, n - 1)
        not_first, not_last = self.full & ~first, self.full & ~last
        column_mask = {0: self.full, 1: not_first, -1: not_last}
        self._not_first, self._not_last = not_first, not_last
        self._shifts = tuple((dr * n + dc, column_mask[dc]) for dr, dc in _STEPS)
        self._rays = [_cell_rays(n, cell) for cell in range(self.num_cells)]
        edges = first | last | _row(n, 0) | _row(n, n - 1)
        self._axes = tuple(
            (dr * n + dc, column_mask[dc], column_mask[-dc], _axis_edge(n, dr, dc, edges))
            for dr, dc in _AXES
        )
        top, bottom = 0, (n - 1) * n
        corner_cells = (top, top + n - 1, bottom, bottom + n - 1)
        self.corners = sum(1 << cell for cell in corner_cells)
        diagonal = (top + n + 1, top + 2 * n - 2, bottom - n + 1, bottom - 2)
        self.x_squares = tuple(
            (1 << corner, 1 << x) for corner, x in zip(corner_cells, diagonal, strict=True)
        )
        self.square_values = _square_values(n, set(corner_cells), set(diagonal))

    def placements(self, own: Bitboard, other: Bitboard) -> Bitboard:
        """The empty cells where ``own``'s side may place (the fill along eight directions)."""
        empty = self.full & ~(own | other)
        found = 0
        repeats = range(self.board_size - 3)
        for delta, mask in self._shifts:
            line_mask = other & mask
            if delta > 0:
                line = (own << delta) & line_mask
                for _ in repeats:
                    line |= (line << delta) & line_mask
                found |= (line << delta) & mask & empty
            else:
                delta = -delta
                line = (own >> delta) & line_mask
                for _ in repeats:
                    line |= (line >> delta) & line_mask
                found |= (line >> delta) & mask & empty
        return found

    def flips(self, own: Bitboard, other: Bitboard, cell: Cell) -> Bitboard:
        """The discs of ``other`` that a disc of ``own``'s side on ``cell`` flips.

        Along a ray away from the cell the first cell that is not ``other``'s decides: if it
        is ``own``'s, the ``other`` discs before it flip. Rays that raise the bit index find
        it as the lowest such bit, the others as the highest.
        """
        flipped = 0
        rising, falling = self._rays[cell]
        for ray in rising:
            stop = ray & ~other
            if stop:
                nearest = stop & -stop
                if nearest & own:
                    flipped |= ray & (nearest - 1)
        for ray in falling:
            stop = ray & ~other
            if stop:
                nearest = 1 << (stop.bit_length() - 1)
                if nearest & own:
                    flipped |= ray & ~((nearest << 1) - 1)
        return flipped

    def neighbours(self, board: Bitboard) -> Bitboard:
        """The cells next to any cell of ``board`` in the eight directions."""
        row = board | ((board >> 1) & self._not_last) | ((board << 1) & self._not_first)
        return (row | (row << self.board_size) | (row >> self.board_size)) & self.full

    def stable(self, own: Bitboard) -> Bitboard:
        """Discs of ``own`` that can never flip, grown from the corners: a disc is stable
        if along each of the four lines through it one neighbour is off the board or a
        stable disc of its own colour (a lower bound on the truly stable discs)."""
        stable = own & self.corners
        if not stable:
            return 0
        while True:
            grown = own
            for delta, forward_mask, backward_mask, edge in self._axes:
                # A disc is protected along a line by an edge or a stable neighbour on
                # either side (``stable >> delta``: the neighbour one step ahead).
                ahead = (stable >> delta) & backward_mask
                behind = (stable << delta) & forward_mask
                grown &= edge | ahead | behind
            grown |= stable
            if grown == stable:
                return stable
            stable = grown


def _column(n: int, col: int) -> Bitboard:
    return sum(1 << (row * n + col) for row in range(n))


def _row(n: int, row: int) -> Bitboard:
    return ((1 << n) - 1) << (row * n)


def _axis_edge(n: int, dr: int, dc: int, edges: Bitboard) -> Bitboard:
    """The cells with a neighbour off the board along the line ``(dr, dc)`` (either way)."""
    found = 0
    for row in range(n):
        for col in range(n):
            outside = not (0 <= row + dr < n and 0 <= col + dc < n) or not (
                0 <= row - dr < n and 0 <= col - dc < n
            )
            found |= (1 << (row * n + col)) if outside else 0
    return found & edges


def _cell_rays(n: int, cell: Cell) -> tuple[tuple[Bitboard, ...], tuple[Bitboard, ...]]:
    """The rays from ``cell`` (two cells long at least), rising and falling bit order."""
    row, col = divmod(cell, n)
    rising: list[Bitboard] = []
    falling: list[Bitboard] = []
    for index, (dr, dc) in enumerate(_STEPS):
        ray, r, c = 0, row + dr, col + dc
        length = 0
        while 0 <= r < n and 0 <= c < n:
            ray |= 1 << (r * n + c)
            length += 1
            r, c = r + dr, c + dc
        if length >= 2:
            (rising if index < 4 else falling).append(ray)
    return tuple(rising), tuple(falling)


def _square_values(n: int, corners: set[int], x_squares: set[int]) -> tuple[int, ...]:
    """Static move-ordering values: corners first, then edges, X-squares last."""
    values = []
    for cell in range(n * n):
        row, col = divmod(cell, n)
        on_edge = row in (0, n - 1) or col in (0, n - 1)
        values.append(
            1_000_000 if cell in corners else -1_000_000 if cell in x_squares
            else 1_000 if on_edge else 0
        )  # fmt: skip
    return tuple(values)


@per_board_size()
def geometry(board_size: int) -> Geometry:
    """The :class:`Geometry` of an N x N board, built once per N."""
    return Geometry(board_size)

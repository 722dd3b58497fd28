"""The compiled core of Othello's exact solver (numba): bitboards in ``uint64``, negamax
alpha-beta on the final disc margin with a transposition table and fastest-first ordering.

Imported only by :mod:`agents.othello.solve`, which checks that numba is installed (the
``solve`` extra) and refuses in one line when it is not. Boards up to 8x8 (64 cells).

A position is ``(own, other)`` from the player to act, bit ``row * N + col`` for cell
``(row, col)`` as in :mod:`trap_env.othello.rules`. The value is the final margin
``own discs - other discs`` under perfect play (empty cells count for nobody, as in
:func:`trap_env.othello.rules.disc_counts`). ``passes`` is 1 under the standard end rule (a
blocked player passes; the game ends when neither can place), 0 under the course rule (the
game ends when the player to act is blocked).

The search state is one :class:`Tables` of NumPy arrays, kept between calls so that a
later search reuses what an earlier one learnt.
"""

# NumPy's scalar operators are typed as returning Any: these are numba's uint64 sums.
# mypy: disable-error-code="no-any-return"
from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
import numpy.typing as npt

__all__ = [
    "ETC_EMPTIES",
    "ORDERING_EMPTIES",
    "TABLE_EMPTIES",
    "Tables",
    "make_tables",
    "solve_window",
]

TABLE_EMPTIES = 6
"""Positions with fewer empty cells are not stored in the table (cheaper to search again)."""
ORDERING_EMPTIES = 6
"""Positions with more empty cells order their moves fastest-first (fewest replies)."""
ETC_EMPTIES = 12
"""Positions with this many empty cells or more look up their children in the table
first (an enhanced transposition cutoff)."""
_NO_MOVE = -1

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]


class Tables(NamedTuple):
    """The solver's arrays: the geometry, the transposition table, scratch, counters.

    Attributes:
        geo: ``[N, full, not first column, not last column, passes]``.
        keys: each table slot's ``(own, other)``, shape (slots, 2).
        bounds: each slot's ``(lower, upper, best cell, empties)``, int8, shape (slots, 4).
        scratch: per empties count, the moves and their order keys, shape (65, 2, 64).
        best: per empties count, the best cell of the last position searched with that many.
        nodes: ``[nodes searched]``.
    """

    geo: U64
    keys: U64
    bounds: I8
    scratch: I64
    best: I64
    nodes: I64


def make_tables(board_size: int, passes: bool, table_bits: int = 22) -> Tables:
    """Fresh tables for an N x N board (N * N <= 64), ``2**table_bits`` table slots."""
    n = board_size
    full = (1 << n * n) - 1
    first = sum(1 << (row * n) for row in range(n))
    last = first << (n - 1)
    not_first, not_last = full & ~first, full & ~last
    geo = np.array([n, full, not_first, not_last, int(passes)], dtype=np.uint64)
    slots = 1 << table_bits
    keys = np.zeros((slots, 2), dtype=np.uint64)
    bounds = np.zeros((slots, 4), dtype=np.int8)
    bounds[:, 3] = -1  # no entry yet
    scratch = np.zeros((65, 2, 64), dtype=np.int64)
    best = np.full(65, _NO_MOVE, dtype=np.int64)
    return Tables(geo, keys, bounds, scratch, best, np.zeros(1, dtype=np.int64))


@numba.njit(cache=True)
def _step(
    board: np.uint64, d: int, n: int, full: np.uint64, not_first: np.uint64, not_last: np.uint64
) -> np.uint64:
    """``board`` moved one cell in direction ``d`` (0-7), what leaves the board dropped."""
    if d == 0:
        return (board << np.uint64(1)) & not_first
    if d == 1:
        return (board >> np.uint64(1)) & not_last
    if d == 2:
        return (board << np.uint64(n)) & full
    if d == 3:
        return board >> np.uint64(n)
    if d == 4:
        return (board << np.uint64(n + 1)) & not_first
    if d == 5:
        return (board << np.uint64(n - 1)) & not_last
    if d == 6:
        return (board >> np.uint64(n - 1)) & not_first
    return (board >> np.uint64(n + 1)) & not_last


@numba.njit(cache=True)
def placements(own: np.uint64, other: np.uint64, geo: U64) -> np.uint64:
    """The empty cells where ``own``'s side may place."""
    n, full, not_first, not_last = int(geo[0]), geo[1], geo[2] & geo[1], geo[3] & geo[1]
    return _placements(own, other, n, full, not_first, not_last)


@numba.njit(cache=True)
def _placements(
    own: np.uint64,
    other: np.uint64,
    n: int,
    full: np.uint64,
    not_first: np.uint64,
    not_last: np.uint64,
) -> np.uint64:
    empty = full & ~(own | other)
    found = np.uint64(0)
    for d in range(8):
        line = _step(own, d, n, full, not_first, not_last) & other
        for _ in range(n - 3):
            line |= _step(line, d, n, full, not_first, not_last) & other
        found |= _step(line, d, n, full, not_first, not_last) & empty
    return found


@numba.njit(cache=True)
def flips(own: np.uint64, other: np.uint64, cell: int, geo: U64) -> np.uint64:
    """The discs of ``other`` that a disc of ``own``'s side on ``cell`` flips."""
    n, full, not_first, not_last = int(geo[0]), geo[1], geo[2] & geo[1], geo[3] & geo[1]
    return _flips(own, other, cell, n, full, not_first, not_last)


@numba.njit(cache=True)
def _flips(
    own: np.uint64,
    other: np.uint64,
    cell: int,
    n: int,
    full: np.uint64,
    not_first: np.uint64,
    not_last: np.uint64,
) -> np.uint64:
    flipped = np.uint64(0)
    start = np.uint64(1) << np.uint64(cell)
    for d in range(8):
        line = np.uint64(0)
        probe = _step(start, d, n, full, not_first, not_last)
        while probe & other:
            line |= probe
            probe = _step(probe, d, n, full, not_first, not_last)
        if probe & own:
            flipped |= line
    return flipped


@numba.njit(cache=True)
def _popcount(board: np.uint64) -> int:
    count = 0
    while board:
        board &= board - np.uint64(1)
        count += 1
    return count


@numba.njit(cache=True)
def _lowest_cell(board: np.uint64) -> int:
    cell = 0
    while not (board >> np.uint64(cell)) & np.uint64(1):
        cell += 1
    return cell


@numba.njit(cache=True)
def _slot(own: np.uint64, other: np.uint64, slots: int) -> int:
    """The first of the two table slots of a position (a multiplicative hash)."""
    mixed = own * np.uint64(0x9E3779B97F4A7C15) ^ (
        other + np.uint64(0x632BE59BD9B4E019)
    ) * np.uint64(0xBF58476D1CE4E5B9)
    return np.int64((mixed >> np.uint64(20)) & np.uint64(slots - 2))


@numba.njit(cache=True)
def _order(
    own: np.uint64,
    other: np.uint64,
    moves: np.uint64,
    hint: int,
    empties: int,
    n: int,
    full: np.uint64,
    not_first: np.uint64,
    not_last: np.uint64,
    scratch: I64,
) -> int:
    """Write the moves, best first, into ``scratch[empties, 0]``; the count.

    The table's move first, then fewest opponent replies (fastest first), corners before
    the rest on ties."""
    cells = scratch[empties, 0]
    keys = scratch[empties, 1]
    last = n * n - 1
    count = 0
    rest = moves
    while rest:
        cell = _lowest_cell(rest)
        rest &= rest - np.uint64(1)
        key = 0
        if empties > ORDERING_EMPTIES:
            flipped = _flips(own, other, cell, n, full, not_first, not_last)
            bit = np.uint64(1) << np.uint64(cell)
            replies = _placements(
                other & ~flipped, own | flipped | bit, n, full, not_first, not_last
            )
            key = 4 * _popcount(replies)
        if cell == 0 or cell == n - 1 or cell == last - n + 1 or cell == last:
            key -= 2
        if cell == hint:
            key = -1000
        # Insertion sort: a few moves.
        k = count
        while k > 0 and keys[k - 1] > key:
            cells[k], keys[k] = cells[k - 1], keys[k - 1]
            k -= 1
        cells[k], keys[k] = cell, key
        count += 1
    return count


@numba.njit(cache=True)
def _search(
    own: np.uint64,
    other: np.uint64,
    alpha: int,
    beta: int,
    n: int,
    full: np.uint64,
    not_first: np.uint64,
    not_last: np.uint64,
    passes: bool,
    keys: U64,
    bounds: I8,
    scratch: I64,
    best_cells: I64,
    nodes: I64,
) -> int:
    """Fail-soft alpha-beta (principal-variation search) on the final disc margin: exact
    inside ``(alpha, beta)``, else a bound on the correct side."""
    nodes[0] += 1
    moves = _placements(own, other, n, full, not_first, not_last)
    if not moves:
        if passes and _placements(other, own, n, full, not_first, not_last):
            return -_search(
                other,
                own,
                -beta,
                -alpha,
                n,
                full,
                not_first,
                not_last,
                passes,
                keys,
                bounds,
                scratch,
                best_cells,
                nodes,
            )
        return _popcount(own) - _popcount(other)
    empties = _popcount(full & ~(own | other))
    slot = -1
    hint = _NO_MOVE
    lower, upper = -64, 64
    if empties >= TABLE_EMPTIES:
        slot = _slot(own, other, keys.shape[0])
        for probe in (slot, slot + 1):
            if keys[probe, 0] == own and keys[probe, 1] == other and bounds[probe, 3] >= 0:
                lower, upper = int(bounds[probe, 0]), int(bounds[probe, 1])
                hint = int(bounds[probe, 2])
                if lower >= beta or lower == upper:
                    return lower
                if upper <= alpha:
                    return upper
                alpha, beta = max(alpha, lower), min(beta, upper)
                break
    if empties >= ETC_EMPTIES:
        cut = _child_cutoff(own, other, moves, beta, n, full, not_first, not_last, keys, bounds)
        if cut >= beta:
            return cut
    count = _order(own, other, moves, hint, empties, n, full, not_first, not_last, scratch)
    cells = scratch[empties, 0]
    best, best_cell = -65, _NO_MOVE
    low = alpha
    for i in range(count):
        cell = int(cells[i])
        flipped = _flips(own, other, cell, n, full, not_first, not_last)
        child_own = other & ~flipped
        child_other = own | flipped | (np.uint64(1) << np.uint64(cell))
        if i == 0:
            score = -_search(
                child_own,
                child_other,
                -beta,
                -low,
                n,
                full,
                not_first,
                not_last,
                passes,
                keys,
                bounds,
                scratch,
                best_cells,
                nodes,
            )
        else:
            score = -_search(
                child_own,
                child_other,
                -low - 1,
                -low,
                n,
                full,
                not_first,
                not_last,
                passes,
                keys,
                bounds,
                scratch,
                best_cells,
                nodes,
            )
            if low < score < beta:
                score = -_search(
                    child_own,
                    child_other,
                    -beta,
                    -score,
                    n,
                    full,
                    not_first,
                    not_last,
                    passes,
                    keys,
                    bounds,
                    scratch,
                    best_cells,
                    nodes,
                )
        if score > best:
            best, best_cell = score, cell
            if score > low:
                low = score
                if score >= beta:
                    break
    if slot >= 0:
        _store(keys, bounds, slot, own, other, best, alpha, beta, lower, upper, best_cell, empties)
    best_cells[empties] = best_cell
    return best


@numba.njit(cache=True)
def _child_cutoff(
    own: np.uint64,
    other: np.uint64,
    moves: np.uint64,
    beta: int,
    n: int,
    full: np.uint64,
    not_first: np.uint64,
    not_last: np.uint64,
    keys: U64,
    bounds: I8,
) -> int:
    """Enhanced transposition cutoff: the best value the table's upper bounds on the
    children prove, at least ``beta`` if one does (else -65)."""
    best = -65
    rest = moves
    while rest:
        cell = _lowest_cell(rest)
        rest &= rest - np.uint64(1)
        flipped = _flips(own, other, cell, n, full, not_first, not_last)
        child_own = other & ~flipped
        child_other = own | flipped | (np.uint64(1) << np.uint64(cell))
        slot = _slot(child_own, child_other, keys.shape[0])
        for probe in (slot, slot + 1):
            found = keys[probe, 0] == child_own and keys[probe, 1] == child_other
            if found and bounds[probe, 3] >= 0 and -int(bounds[probe, 1]) >= beta:
                return -int(bounds[probe, 1])
    return best


@numba.njit(cache=True)
def _store(
    keys: U64,
    bounds: I8,
    slot: int,
    own: np.uint64,
    other: np.uint64,
    best: int,
    alpha: int,
    beta: int,
    lower: int,
    upper: int,
    cell: int,
    empties: int,
) -> None:
    """Record the bound that ``best`` proves: the first slot keeps the larger subtree."""
    if best <= alpha:
        upper = min(upper, best)
    elif best >= beta:
        lower = max(lower, best)
    else:
        lower = upper = best
    target = slot + 1
    same = keys[slot, 0] == own and keys[slot, 1] == other
    if same or bounds[slot, 3] <= empties:
        target = slot
    keys[target, 0], keys[target, 1] = own, other
    bounds[target, 0], bounds[target, 1] = lower, upper
    bounds[target, 2], bounds[target, 3] = cell, empties


@numba.njit(cache=True)
def _solve_window(
    own: np.uint64,
    other: np.uint64,
    alpha: int,
    beta: int,
    geo: U64,
    keys: U64,
    bounds: I8,
    scratch: I64,
    best_cells: I64,
    nodes: I64,
) -> tuple[int, int]:
    n, full, not_first, not_last = int(geo[0]), geo[1], geo[2] & geo[1], geo[3] & geo[1]
    passes = geo[4] != 0
    value = _search(
        own,
        other,
        alpha,
        beta,
        n,
        full,
        not_first,
        not_last,
        passes,
        keys,
        bounds,
        scratch,
        best_cells,
        nodes,
    )
    if not _placements(own, other, n, full, not_first, not_last):
        return value, _NO_MOVE
    return value, int(best_cells[_popcount(full & ~(own | other))])


def solve_window(own: int, other: int, alpha: int, beta: int, tables: Tables) -> tuple[int, int]:
    """The fail-soft value of ``(own, other)`` within ``(alpha, beta)`` (exact inside it,
    else a bound on the correct side) and the best cell found (-1 when the player to act
    has no placement).

    A position with a placement writes its best cell last among the positions with as many
    empty cells (its descendants have fewer; a pass keeps the count, but only below it).
    """
    t = tables
    value, cell = _solve_window(
        np.uint64(own),
        np.uint64(other),
        alpha,
        beta,
        t.geo,
        t.keys,
        t.bounds,
        t.scratch,
        t.best,
        t.nodes,
    )
    return int(value), int(cell)

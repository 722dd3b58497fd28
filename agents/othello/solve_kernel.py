"""The compiled core of Othello's exact solver (numba): bitboards in ``uint64``, negamax
alpha-beta on the final disc margin with a transposition table, enhanced transposition
cutoffs and move ordering by the number of empty cells: a shallow search of an evaluation
far from the end, fastest-first (fewest opponent replies) in the middle, parity near the end.

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
    "SETTINGS",
    "Settings",
    "Tables",
    "make_tables",
    "solve_window",
    "stable",
]


class Settings(NamedTuple):
    """Where, by the number of empty cells, each technique of the search starts.

    None of them changes a value, only the work: the tests set them low to check every path
    on small boards against a plain negamax.

    Attributes:
        table: positions with this many empty cells or more are stored in the table (fewer
            are cheaper to search again).
        fastest_first: positions with more empty cells order their moves fastest-first
            (fewest opponent replies, corners counted twice); fewer order by parity (moves
            into a quadrant with an odd number of empty cells first).
        shallow: positions with this many empty cells or more order their moves by a
            shallow search of an evaluation (mobility, frontier, corners, X-squares).
        shallow_depth: that search's depth in plies at ``shallow`` empty cells; one more
            every ``shallow_step`` empty cells above.
        shallow_step: see ``shallow_depth``.
        etc: positions with this many empty cells or more look up their children in the
            table first (an enhanced transposition cutoff).
        few: positions with this many empty cells or fewer are searched by trying each
            empty cell's flips, without the placements' bitboard, the table or the ordering
            (parity apart); one empty cell is a count of its flips.
        stability: positions with this many empty cells or more, and above ``few``, end
            their search when the other side's stable discs (:func:`stable`) bound the
            margin at or below ``alpha``.
    """

    table: int = 6
    fastest_first: int = 3
    shallow: int = 12
    shallow_depth: int = 2
    shallow_step: int = 4
    etc: int = 12
    few: int = 3
    stability: int = 4


SETTINGS = Settings()
"""The settings the solver uses (measured on Feinstein's 6x6 line: docs/experiments.md)."""
_NO_MOVE = -1
# Indices into the settings array (a NumPy copy of a Settings, which numba reads).
_TABLE, _FASTEST, _SHALLOW, _DEPTH, _STEP, _ETC, _FEW, _STABILITY = range(8)
# Where the board's lines start in the geometry: rows, columns, both diagonals' ways.
_LINES = 18
# The evaluation's weights (the reference agent's, agents.othello.evaluation, as integers;
# stability is left out: it costs more than it orders).
_MOBILITY, _FRONTIER, _CORNERS, _X_SQUARES = 8, 3, 30, 15
_WIN = 10_000

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]


class Tables(NamedTuple):
    """The solver's arrays: the geometry, the settings, the transposition table, scratch,
    counters.

    Attributes:
        geo: ``[N, full, not first column, not last column, passes, corners, the four
            quadrants, the four X-squares, the four corners, the rows, the columns, the
            diagonals down-right, the diagonals down-left]`` (a corner's X-square is its
            diagonal neighbour).
        settings: a :class:`Settings` as an array.
        keys: each table slot's ``(own, other)``, shape (slots, 2).
        bounds: each slot's ``(lower, upper, best cell, empties)``, int8, shape (slots, 4).
        scratch: per empties count, the moves and their order keys, shape (65, 2, 64).
        best: per empties count, the best cell of the last position searched with that many.
        nodes: ``[positions searched, positions the ordering's shallow searches visited]``.
    """

    geo: U64
    settings: I64
    keys: U64
    bounds: I8
    scratch: I64
    best: I64
    nodes: I64


def make_tables(
    board_size: int, passes: bool, table_bits: int = 22, settings: Settings = SETTINGS
) -> Tables:
    """Fresh tables for an N x N board (N * N <= 64), ``2**table_bits`` table slots."""
    n = board_size
    full = (1 << n * n) - 1
    first = sum(1 << (row * n) for row in range(n))
    last = first << (n - 1)
    not_first, not_last = full & ~first, full & ~last
    corners = [(0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1)]
    x_squares = [(1, 1), (1, n - 2), (n - 2, 1), (n - 2, n - 2)]
    half = n // 2
    quadrants = [
        sum(1 << (r * n + c) for r in range(n) for c in range(n) if (r < half, c < half) == q)
        for q in ((True, True), (True, False), (False, True), (False, False))
    ]
    cells = [(r, c) for r in range(n) for c in range(n)]
    lines = (
        [[(r, c) for r, c in cells if r == k] for k in range(n)]
        + [[(r, c) for r, c in cells if c == k] for k in range(n)]
        + [[(r, c) for r, c in cells if c - r == k] for k in range(1 - n, n)]
        + [[(r, c) for r, c in cells if c + r == k] for k in range(2 * n - 1)]
    )
    geo = np.array(
        [n, full, not_first, not_last, int(passes), sum(1 << (r * n + c) for r, c in corners)]
        + quadrants
        + [1 << (r * n + c) for r, c in x_squares]
        + [1 << (r * n + c) for r, c in corners]
        + [sum(1 << (r * n + c) for r, c in line) for line in lines],
        dtype=np.uint64,
    )
    slots = 1 << table_bits
    keys = np.zeros((slots, 2), dtype=np.uint64)
    bounds = np.zeros((slots, 4), dtype=np.int8)
    bounds[:, 3] = -1  # no entry yet
    scratch = np.zeros((65, 2, 64), dtype=np.int64)
    best = np.full(65, _NO_MOVE, dtype=np.int64)
    return Tables(
        geo,
        np.array(settings, dtype=np.int64),
        keys,
        bounds,
        scratch,
        best,
        np.zeros(2, dtype=np.int64),
    )


@numba.njit(cache=True)
def _shape(geo: U64) -> tuple[int, np.uint64, np.uint64, np.uint64]:
    """The board's shape as the kernel's functions take it: ``(N, full, not first column,
    not last column)``, the masks within the board."""
    return int(geo[0]), geo[1], geo[2] & geo[1], geo[3] & geo[1]


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
    n, full, not_first, not_last = _shape(geo)
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
    # Discs that a line may cross sideways: none on the first or last column, so that no
    # shift by 1, n - 1 or n + 1 carries a line from one row's edge to the next row's.
    inner = other & not_first & not_last
    found = _ends(own, inner, np.uint64(1), n) | _ends(own, other, np.uint64(n), n)
    found |= _ends(own, inner, np.uint64(n - 1), n) | _ends(own, inner, np.uint64(n + 1), n)
    return found & empty


@numba.njit(cache=True)
def _ends(own: np.uint64, crossed: np.uint64, amount: np.uint64, n: int) -> np.uint64:
    """The cells just past a line of ``crossed`` discs that starts next to one of ``own``'s,
    shifted by ``amount`` both ways (the caller keeps the empty ones on the board)."""
    up = (own << amount) & crossed
    down = (own >> amount) & crossed
    for _ in range(n - 3):
        up |= (up << amount) & crossed
        down |= (down >> amount) & crossed
    return (up << amount) | (down >> amount)


@numba.njit(cache=True)
def flips(own: np.uint64, other: np.uint64, cell: int, geo: U64) -> np.uint64:
    """The discs of ``other`` that a disc of ``own``'s side on ``cell`` flips."""
    n, full, not_first, not_last = _shape(geo)
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
    start = np.uint64(1) << np.uint64(cell)
    inner = other & not_first & not_last  # as in _placements: no line wraps a row's edge
    flipped = _flanked(start, own, inner, np.uint64(1)) | _flanked(start, own, other, np.uint64(n))
    flipped |= _flanked(start, own, inner, np.uint64(n - 1))
    return flipped | _flanked(start, own, inner, np.uint64(n + 1))


@numba.njit(cache=True)
def _flanked(start: np.uint64, own: np.uint64, crossed: np.uint64, amount: np.uint64) -> np.uint64:
    """The ``crossed`` discs in a row from ``start`` that a disc of ``own`` closes, along
    the shift by ``amount`` both ways."""
    up = np.uint64(0)
    probe = start << amount
    while probe & crossed:
        up |= probe
        probe <<= amount
    if not probe & own:
        up = np.uint64(0)
    down = np.uint64(0)
    probe = start >> amount
    while probe & crossed:
        down |= probe
        probe >>= amount
    if not probe & own:
        down = np.uint64(0)
    return up | down


@numba.njit(cache=True)
def stable(own: np.uint64, other: np.uint64, geo: U64) -> np.uint64:
    """Discs of ``own`` that no play can flip: along each of its four lines, a disc is
    safe on the board's edge, in a full line, or beside a safe disc of its own (the
    closure of that from none)."""
    n, full, not_first, not_last = _shape(geo)
    return _stable(own, other, n, full, not_first, not_last, geo)


@numba.njit(cache=True)
def _stable(
    own: np.uint64,
    other: np.uint64,
    n: int,
    full: np.uint64,
    not_first: np.uint64,
    not_last: np.uint64,
    geo: U64,
) -> np.uint64:
    empty = full & ~(own | other)
    sides = full & ~(not_first & not_last)
    ends = full & ~((full << np.uint64(n)) & (full >> np.uint64(n)))
    # Per way (sideways, up-down, the two diagonals): the cells safe along it whatever lies
    # beside them, its full lines' cells and the edge's.
    across = _full_lines(empty, geo, _LINES, n) | sides
    down = _full_lines(empty, geo, _LINES + n, n) | ends
    right = _full_lines(empty, geo, _LINES + 2 * n, 2 * n - 1) | sides | ends
    left = _full_lines(empty, geo, _LINES + 4 * n - 1, 2 * n - 1) | sides | ends
    found = np.uint64(0)
    while True:
        grown = (
            own
            & _safe_along(found, across, 0, 1, n, full, not_first, not_last)
            & _safe_along(found, down, 2, 3, n, full, not_first, not_last)
            & _safe_along(found, right, 4, 7, n, full, not_first, not_last)
            & _safe_along(found, left, 5, 6, n, full, not_first, not_last)
        )
        if grown == found:
            return found
        found = grown


@numba.njit(cache=True)
def _safe_along(
    found: np.uint64,
    safe: np.uint64,
    d: int,
    e: int,
    n: int,
    full: np.uint64,
    not_first: np.uint64,
    not_last: np.uint64,
) -> np.uint64:
    """The cells safe along one way, its directions ``d`` and ``e`` (:func:`_step`): those
    ``safe`` along it whatever lies beside them, and those beside a ``found`` disc."""
    return (
        safe
        | _step(found, d, n, full, not_first, not_last)
        | _step(found, e, n, full, not_first, not_last)
    )


@numba.njit(cache=True)
def _full_lines(empty: np.uint64, geo: U64, start: int, count: int) -> np.uint64:
    """The cells of the lines ``geo[start:start + count]`` without an empty cell."""
    cells = np.uint64(0)
    for i in range(start, start + count):
        if not geo[i] & empty:
            cells |= geo[i]
    return cells


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
    passes: bool,
    geo: U64,
    settings: I64,
    scratch: I64,
    nodes: I64,
) -> int:
    """Write the moves, best first, into ``scratch[empties, 0]``; the count.

    The table's move first; then, by the number of empty cells (:class:`Settings`), the
    shallow search's value, or fewest opponent replies (fastest first, corners counted
    twice), or parity (a quadrant with an odd number of empty cells first); corners before
    the rest on ties."""
    cells = scratch[empties, 0]
    keys = scratch[empties, 1]
    empty = full & ~(own | other)
    corners = geo[5]
    depth = -1
    if empties >= settings[_SHALLOW]:
        depth = settings[_DEPTH] + (empties - settings[_SHALLOW]) // settings[_STEP]
    count = 0
    rest = moves
    while rest:
        cell = _lowest_cell(rest)
        rest &= rest - np.uint64(1)
        bit = np.uint64(1) << np.uint64(cell)
        key = 0
        if empties > settings[_FASTEST]:
            flipped = _flips(own, other, cell, n, full, not_first, not_last)
            child_own, child_other = other & ~flipped, own | flipped | bit
            replies = _placements(child_own, child_other, n, full, not_first, not_last)
            key = 4 * (_popcount(replies) + _popcount(replies & corners))
            if depth > 0:
                guess = _shallow(
                    child_own, child_other, depth - 1, -_WIN * 2, _WIN * 2, n, full,
                    not_first, not_last, passes, geo, nodes,
                )  # fmt: skip
                key += 256 * guess
        else:
            for quadrant in geo[6:10]:
                if bit & quadrant and not _popcount(empty & quadrant) & 1:
                    key = 4  # an even region: the opponent gets its last cell
        if bit & corners:
            key -= 2
        if cell == hint:
            key = -(2**62)
        # Insertion sort: a few moves.
        k = count
        while k > 0 and keys[k - 1] > key:
            cells[k], keys[k] = cells[k - 1], keys[k - 1]
            k -= 1
        cells[k], keys[k] = cell, key
        count += 1
    return count


@numba.njit(cache=True)
def _shallow(
    own: np.uint64,
    other: np.uint64,
    depth: int,
    alpha: int,
    beta: int,
    n: int,
    full: np.uint64,
    not_first: np.uint64,
    not_last: np.uint64,
    passes: bool,
    geo: U64,
    nodes: I64,
) -> int:
    """Negamax alpha-beta of :func:`_evaluate`, ``depth`` plies deep: the move ordering's
    guess of a position's worth (a finished game's is its margin plus or minus ``_WIN``)."""
    nodes[1] += 1
    moves = _placements(own, other, n, full, not_first, not_last)
    if depth <= 0:
        return _evaluate(own, other, moves, n, full, not_first, not_last, geo)
    if not moves:
        if passes and _placements(other, own, n, full, not_first, not_last):
            return -_shallow(
                other, own, depth, -beta, -alpha, n, full, not_first, not_last, passes, geo, nodes
            )
        margin = _popcount(own) - _popcount(other)
        return margin + (_WIN if margin > 0 else -_WIN if margin < 0 else 0)
    best = -_WIN * 2
    rest = moves
    while rest:
        cell = _lowest_cell(rest)
        rest &= rest - np.uint64(1)
        flipped = _flips(own, other, cell, n, full, not_first, not_last)
        score = -_shallow(
            other & ~flipped, own | flipped | (np.uint64(1) << np.uint64(cell)), depth - 1,
            -beta, -max(alpha, best), n, full, not_first, not_last, passes, geo, nodes,
        )  # fmt: skip
        if score > best:
            best = score
            if best >= beta:
                break
    return best


@numba.njit(cache=True)
def _evaluate(
    own: np.uint64,
    other: np.uint64,
    own_moves: np.uint64,
    n: int,
    full: np.uint64,
    not_first: np.uint64,
    not_last: np.uint64,
    geo: U64,
) -> int:
    """The reference agent's evaluation for ``own``'s side without stability: mobility,
    frontier discs (against), corners, X-squares by an empty corner (against)."""
    other_moves = _placements(other, own, n, full, not_first, not_last)
    score = _MOBILITY * (_popcount(own_moves) - _popcount(other_moves))
    empty = full & ~(own | other)
    near = np.uint64(0)
    for d in range(8):
        near |= _step(empty, d, n, full, not_first, not_last)
    score -= _FRONTIER * (_popcount(own & near) - _popcount(other & near))
    corners = geo[5]
    score += _CORNERS * (_popcount(own & corners) - _popcount(other & corners))
    taken = own | other
    for i in range(4):
        x_square = geo[10 + i]
        if not taken & geo[14 + i]:
            if own & x_square:
                score -= _X_SQUARES
            elif other & x_square:
                score += _X_SQUARES
    return score


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
    geo: U64,
    settings: I64,
    keys: U64,
    bounds: I8,
    scratch: I64,
    best_cells: I64,
    nodes: I64,
) -> int:
    """Fail-soft alpha-beta (principal-variation search) on the final disc margin: exact
    inside ``(alpha, beta)``, else a bound on the correct side."""
    nodes[0] += 1
    empty = full & ~(own | other)
    empties = _popcount(empty)
    if empties <= settings[_FEW]:
        # Kept in this function: numba's cache loses a recursive function's calls into
        # another recursive one (numba issue 6061, a crash on the next run).
        if empties == 1:
            best_cells[1] = _lowest_cell(empty)
            return _last_one(own, other, best_cells[1], n, full, not_first, not_last, passes)
        odd = np.uint64(0)
        for quadrant in geo[6:10]:
            if _popcount(empty & quadrant) & 1:
                odd |= empty & quadrant
        best, best_cell = -65, _NO_MOVE
        for group in (odd, empty & ~odd):
            rest = group
            while rest and best < beta:
                cell = _lowest_cell(rest)
                rest &= rest - np.uint64(1)
                flipped = _flips(own, other, cell, n, full, not_first, not_last)
                if not flipped:
                    continue
                score = -_search(
                    other & ~flipped, own | flipped | (np.uint64(1) << np.uint64(cell)), -beta,
                    -max(alpha, best), n, full, not_first, not_last, passes, geo, settings, keys,
                    bounds, scratch, best_cells, nodes,
                )  # fmt: skip
                if score > best:
                    best, best_cell = score, cell
        if best > -65:
            best_cells[empties] = best_cell
            return best
        moves = np.uint64(0)  # no placement: the pass below
    else:
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
                geo,
                settings,
                keys,
                bounds,
                scratch,
                best_cells,
                nodes,
            )
        return _popcount(own) - _popcount(other)
    slot = -1
    hint = _NO_MOVE
    lower, upper = -64, 64
    if empties >= settings[_TABLE]:
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
    if empties >= settings[_STABILITY] and alpha >= n * n - 2 * _popcount(other):
        # The other side keeps its stable discs: own's margin is at most the rest less them.
        bound = n * n - 2 * _popcount(_stable(other, own, n, full, not_first, not_last, geo))
        if bound <= alpha:
            return bound
    if empties >= settings[_ETC]:
        cut = _child_cutoff(own, other, moves, beta, n, full, not_first, not_last, keys, bounds)
        if cut >= beta:
            return cut
    count = _order(
        own, other, moves, hint, empties, n, full, not_first, not_last, passes, geo, settings,
        scratch, nodes,
    )  # fmt: skip
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
                geo,
                settings,
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
                geo,
                settings,
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
                    geo,
                    settings,
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
def _last_one(
    own: np.uint64,
    other: np.uint64,
    cell: int,
    n: int,
    full: np.uint64,
    not_first: np.uint64,
    not_last: np.uint64,
    passes: bool,
) -> int:
    """The final margin with one empty cell, ``cell``: its flips for the side to act, else
    (when the rule lets it pass) for the other."""
    margin = _popcount(own) - _popcount(other)
    flipped = _popcount(_flips(own, other, cell, n, full, not_first, not_last))
    if flipped:
        return margin + 2 * flipped + 1
    if passes:
        flipped = _popcount(_flips(other, own, cell, n, full, not_first, not_last))
        if flipped:
            return margin - 2 * flipped - 1
    return margin


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
    settings: I64,
    keys: U64,
    bounds: I8,
    scratch: I64,
    best_cells: I64,
    nodes: I64,
) -> tuple[int, int]:
    n, full, not_first, not_last = _shape(geo)
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
        geo,
        settings,
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
        t.settings,
        t.keys,
        t.bounds,
        t.scratch,
        t.best,
        t.nodes,
    )
    return int(value), int(cell)

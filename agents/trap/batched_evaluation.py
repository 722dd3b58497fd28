"""The static evaluation of :mod:`agents.trap.evaluation`, for many positions at once.

:func:`board_values` restates :meth:`agents.trap.evaluation.Evaluator.board_value` for
arrays of positions on one board (traps as ``uint64`` bitboards, so N <= 8, as in
:mod:`trap_env.trap.batched`): the same terms (mobility, room, Voronoi territory with its
decay per step), the same weights, summed with the same floating-point operations in the
same order, then squashed by ``EVAL_BOUND * tanh(score / scale)``. The tests check it
against the scalar evaluation position by position (equal up to ``tanh``'s last bit).

Example:
    >>> import numpy as np
    >>> from agents.trap.evaluation import Evaluator
    >>> from trap_env.trap import batched as batched_trap
    >>> t = batched_trap.tables(5)
    >>> traps = np.array([0b111, 0], np.uint64)
    >>> values = board_values(t, traps, np.array([12, 0]), np.array([24, 24]))
    >>> scalar = [Evaluator().board_value(5, 0b111, 12, 24), Evaluator().board_value(5, 0, 0, 24)]
    >>> bool(np.allclose(values, scalar, rtol=0, atol=1e-12))
    True
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from agents.trap.evaluation import DEFAULT_WEIGHTS, EVAL_BOUND, Weights
from trap_env.batched import I64, U64
from trap_env.cache import per_board_size
from trap_env.trap import kernel
from trap_env.trap.batched import Tables

__all__ = ["board_values", "king_dilate", "raw_scores"]

F64 = NDArray[np.float64]


class _Shifts:
    """The masks and shift amounts of one board's king-step dilation, as NumPy scalars."""

    def __init__(self, board_size: int) -> None:
        g = kernel.geometry(board_size)
        self.full = np.uint64(g.full)
        self.not_left = np.uint64(g.not_left)
        self.not_right = np.uint64(g.not_right)
        self.one = np.uint64(1)
        self.row = np.uint64(board_size)


@per_board_size()
def _shifts(board_size: int) -> _Shifts:
    return _Shifts(board_size)


def _dilate(s: _Shifts, cells: U64) -> U64:
    """``cells`` and their king-step neighbours (:func:`trap_env.trap.kernel.king_dilate`)."""
    row = cells | (cells & s.not_right) << s.one | (cells & s.not_left) >> s.one
    dilated: U64 = (row | row << s.row | row >> s.row) & s.full
    return dilated


def king_dilate(board_size: int, cells: U64) -> U64:
    """Each bitboard's cells and their king-step neighbours
    (:func:`trap_env.trap.kernel.king_dilate` for arrays)."""
    return _dilate(_shifts(board_size), cells)


def _count(cells: U64) -> I64:
    counted: I64 = np.bitwise_count(cells).astype(np.int64)
    return counted


def _voronoi(s: _Shifts, free: U64, mine: U64, theirs: U64, decay: float) -> F64:
    """Cells reached first from ``mine`` minus those from ``theirs``, ``decay`` per step.

    The scalar loop for every position at once, run until every position's fronts are
    empty; the positions still spreading are kept apart once they are few (most fronts
    stop after a few steps, some cross the whole board).
    """
    unseen = free & ~mine & ~theirs
    balance = np.zeros(len(free))
    rows = np.arange(len(free))
    weight = 1.0
    while True:
        mine = _dilate(s, mine) & unseen
        theirs = _dilate(s, theirs) & unseen
        tied = mine & theirs
        unseen &= ~(mine | theirs)
        balance[rows] += weight * (_count(mine ^ tied) - _count(theirs ^ tied))
        weight *= decay
        spreading = (mine | theirs) != 0
        alive = np.count_nonzero(spreading)
        if not alive:
            return balance
        if 2 * alive < len(rows):
            rows, mine, theirs, unseen = (
                rows[spreading],
                mine[spreading],
                theirs[spreading],
                unseen[spreading],
            )


def raw_scores(
    t: Tables, traps: U64, cell0: I64, cell1: I64, weights: Weights = DEFAULT_WEIGHTS
) -> F64:
    """The weighted sum of the terms for player 0 (:func:`agents.trap.evaluation.raw_score`)."""
    s = _shifts(t.board_size)
    bit0, bit1 = t.bits[cell0], t.bits[cell1]
    free = s.full & ~traps & ~bit0 & ~bit1
    steps0 = _dilate(s, bit0) & free
    steps1 = _dilate(s, bit1) & free
    room0 = _dilate(s, steps0) & free
    room1 = _dilate(s, steps1) & free
    mobility = _count(steps0) - _count(steps1)
    room = _count(room0) - _count(room1)
    voronoi = _voronoi(s, free, bit0, bit1, weights.voronoi_decay)
    score: F64 = weights.mobility * mobility + weights.room * room + weights.voronoi * voronoi
    return score


def board_values(
    t: Tables, traps: U64, cell0: I64, cell1: I64, weights: Weights = DEFAULT_WEIGHTS
) -> F64:
    """The evaluation for player 0 of each position (traps and the players' cells), strictly
    inside ``±EVAL_BOUND``: :meth:`agents.trap.evaluation.Evaluator.board_value` for arrays."""
    if len(traps) == 0:
        return np.zeros(0)
    values: F64 = EVAL_BOUND * np.tanh(raw_scores(t, traps, cell0, cell1, weights) / weights.scale)
    return values

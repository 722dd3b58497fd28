"""Trap!'s placements on a small board: the positions a solve values, numbered.

A placement is ``(me, other, traps)``: the mover's cell, the other player's and the traps as
a bitboard, with the players apart and neither on a trap. :class:`Placements` numbers every
placement of a board by ascending ``(me * N*N + other) * 2**(N*N) + traps``;
:mod:`agents.trap.solve` holds its value tables over them and :mod:`agents.trap.certify`
its game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from trap_env.trap.core import State

__all__ = ["Placements", "pairs_of"]

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Placements:
    """The placements of a board: ``(me, other, traps)`` with the players apart and off traps.

    Attributes:
        board_size: N.
        me: the mover's cell, per placement.
        other: the other player's cell, per placement.
        traps: the traps, per placement, as a bitboard.
        index: placement number by ``(me * N*N + other) * 2**(N*N) + traps``, -1 where none.
    """

    board_size: int
    me: IntArray
    other: IntArray
    traps: IntArray
    index: IntArray

    @classmethod
    def of(cls, board_size: int) -> Placements:
        """Every placement of the ``board_size`` board, in ascending key order."""
        cells = board_size * board_size
        every = np.arange(1 << cells, dtype=np.int64)
        index = np.full(cells * cells << cells, -1, dtype=np.int64)
        me, other, traps = [], [], []
        count = 0
        for a, b in pairs_of(cells):  # pair by pair: no array of the whole key space but the index
            free = every[every & (1 << a | 1 << b) == 0]
            index[((a * cells + b) << cells) + free] = np.arange(count, count + free.size)
            count += free.size
            me.append(np.full(free.size, a))
            other.append(np.full(free.size, b))
            traps.append(free)
        joined = [np.concatenate(part) for part in (me, other, traps)]
        return cls(board_size, joined[0], joined[1], joined[2], index)

    def __len__(self) -> int:
        return len(self.me)

    def at(self, me: IntArray | int, other: IntArray | int, traps: IntArray | int) -> Any:
        """The placement number(s) of ``(me, other, traps)``."""
        cells = self.board_size * self.board_size
        key = (np.asarray(me, dtype=np.int64) * cells + other << cells) + traps
        return self.index[key]

    def of_state(self, state: State) -> int:
        """The placement number of a state, seen from its player to act."""
        me, other = state.cells[state.player], state.cells[1 - state.player]
        return int(self.at(me, other, state.traps))


def pairs_of(cells: int) -> list[tuple[int, int]]:
    """The pairs of players' cells ``(me, other)`` in the placements' order."""
    return [(a, b) for a in range(cells) for b in range(cells) if a != b]

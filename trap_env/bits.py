"""Python-int bitboards, the board of every game's rules: bit ``row * N + col`` is cell
``(row, col)``.

Each game's rules (:mod:`trap_env.trap.kernel`, :mod:`trap_env.othello.rules`,
:mod:`trap_env.colosseum.rules`) keep sets of cells as one ``int``, any board size. This
module imports nothing.

Example:
    >>> cells_of(0b1010_0001)
    [0, 5, 7]
"""

from __future__ import annotations

__all__ = ["Bitboard", "Cell", "cells_of"]

Bitboard = int
"""A set of cells: bit ``row * N + col`` is set when cell ``(row, col)`` is in the set."""
Cell = int
"""A flat cell index, ``row * N + col``."""


def cells_of(cells: Bitboard, offset: int = 0) -> list[Cell]:
    """The cells of a bitboard, ascending (each plus ``offset``).

    Costs a few operations per cell in the set, not per cell of the board.
    """
    found = []
    while cells:
        lowest = cells & -cells
        found.append(offset + lowest.bit_length() - 1)
        cells ^= lowest
    return found

"""The bitboards of every game's rules: a cell is bit ``row * N + col``."""

from __future__ import annotations

import doctest

from hypothesis import given
from hypothesis import strategies as st

from trap_env import bits


def test_the_module_example_runs() -> None:
    assert doctest.testmod(bits).failed == 0


@given(st.sets(st.integers(0, 200)), st.integers(0, 50))
def test_cells_of_lists_the_set_bits_ascending_plus_the_offset(
    cells: set[int], offset: int
) -> None:
    board = sum(1 << cell for cell in cells)
    assert bits.cells_of(board, offset) == [cell + offset for cell in sorted(cells)]

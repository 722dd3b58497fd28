"""Tests for trap_env.trap.kernel: the geometry against brute force and the grid oracle, the
landing rule's numbers, the win test, and the transitions against the checked core."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support import grid_oracle as oracle
from trap_env.bits import cells_of
from trap_env.trap import core, kernel
from trap_env.trap.kernel import (
    TABLE_MAX_BOARD_SIZE,
    geometry,
    is_trapped,
    king_dilate,
    king_distance,
    manhattan_distance,
    on_target_per_mille,
    square_mask,
)


def brute_king_distance(n: int, a: int, b: int) -> int:
    return max(abs(a // n - b // n), abs(a % n - b % n))


@pytest.mark.parametrize("n", [3, 4, 5, 7, 9])
def test_neighbour_tables_are_the_oracles_king_steps(n: int) -> None:
    tables = geometry(n)
    assert (tables.board_size, tables.num_cells, tables.full) == (n, n * n, (1 << n * n) - 1)
    assert isinstance(tables.neighbours, tuple) and isinstance(tables.neighbour_cells, tuple)
    for cell in range(n * n):
        expected = sorted(
            oracle.to_index(n, c) for c in oracle.neighbours(n, oracle.to_coord(n, cell))
        )
        assert list(tables.neighbour_cells[cell]) == expected
        assert tables.neighbours[cell] == sum(1 << c for c in expected)


def test_large_boards_compute_their_tables_on_access() -> None:
    n = TABLE_MAX_BOARD_SIZE + 1
    tables = geometry(n)
    assert not isinstance(tables.neighbours, tuple) and len(tables.neighbours) == n * n
    for cell in [0, n - 1, n, n * n // 2, n * n - n, n * n - 1]:
        expected = [c for c in range(n * n) if brute_king_distance(n, cell, c) == 1]
        assert list(tables.neighbour_cells[cell]) == expected
        assert tables.neighbours[cell] == sum(1 << c for c in expected)
    assert tables.neighbours[-1] == tables.neighbours[n * n - 1]
    assert list(tables.neighbours[:2]) == [tables.neighbours[0], tables.neighbours[1]]
    with pytest.raises(IndexError, match="off a board"):
        tables.neighbours[n * n]


def test_the_column_masks_stop_shifts_from_wrapping() -> None:
    tables = geometry(4)
    left = sum(1 << row * 4 for row in range(4))
    assert tables.not_left == tables.full & ~left
    assert tables.not_right == tables.full & ~(left << 3)


@pytest.mark.parametrize("n", [3, 5, 8])
def test_square_masks_and_distances_match_brute_force(n: int) -> None:
    for a in range(n * n):
        for radius in range(4):
            expected = sum(1 << b for b in range(n * n) if brute_king_distance(n, a, b) <= radius)
            assert square_mask(n, a, radius) == expected
        for b in range(n * n):
            assert king_distance(n, a, b) == brute_king_distance(n, a, b)
            assert manhattan_distance(n, a, b) == abs(a // n - b // n) + abs(a % n - b % n)


@settings(max_examples=100)
@given(n=st.integers(3, 12), data=st.data())
def test_king_dilate_is_the_union_of_rings(n: int, data: st.DataObject) -> None:
    cells = data.draw(st.integers(0, (1 << n * n) - 1))
    tables = geometry(n)
    expected = cells
    for cell in cells_of(cells):
        expected |= tables.neighbours[cell]
    assert king_dilate(tables, cells) == expected


def test_cells_of_lists_the_set_bits_in_order() -> None:
    assert cells_of(0) == []
    assert cells_of(0b101001) == [0, 3, 5]
    assert cells_of(1 << 500 | 1 << 3, offset=10) == [13, 510]


@pytest.mark.parametrize(
    ("distance", "decay", "per_mille"),
    [
        (1, 50, 1000),
        (1, 1000, 1000),
        (5, 50, 800),
        (20, 50, 50),
        (21, 50, 0),
        (40, 50, 0),
        (9, 0, 1000),
        (2, 1000, 0),
        (3, 137, 726),
        (8, 137, 41),
        (9, 137, 0),
    ],
)
def test_on_target_chance_in_per_mille(distance: int, decay: int, per_mille: int) -> None:
    assert on_target_per_mille(distance, decay) == per_mille


def test_is_trapped_agrees_with_mobility_on_random_states() -> None:
    rng = random.Random(5)
    checked = 0
    for _ in range(200):
        n = rng.choice([3, 4, 5])
        state = core.initial_state(core.GameConfig(n))
        while not core.is_terminal(state):
            tables = geometry(n)
            for player in (0, 1):
                ring = tables.neighbours[state.cells[player]]
                trapped = is_trapped(ring, state.traps, state.cells[1 - player])
                assert trapped == (core.mobility(state, player) == 0)
                checked += 1
            if state.phase is core.Phase.LANDING:
                action = core.sample_landing(state, rng)
            else:
                action = rng.choice(core.legal_actions(state))
            assert kernel.apply(state, action) == core.apply(state, action)
            state = core.apply(state, action)
        assert kernel.decided_winner(state) == state.winner
    assert checked > 1000


def test_the_stable_names_are_exported() -> None:
    for name in [
        "State",
        "Phase",
        "NO_PLAYER",
        "DEFAULT_DECAY",
        "MAX_DECAY",
        "Geometry",
        "geometry",
        "cached_geometry",
        "king_dilate",
        "square_mask",
        "king_distance",
        "manhattan_distance",
        "on_target_per_mille",
        "landing_distribution",
        "landings",
        "is_trapped",
        "decided_winner",
        "move",
        "throw",
        "land",
        "apply",
    ]:
        assert name in kernel.__all__ and hasattr(kernel, name)
    assert core.State is kernel.State and core.Phase is kernel.Phase

"""Trap!'s moves (trap_env.trap.core) as scenarios on ASCII boards: the destinations, the
phase after a move, the neighbour masks.
"""

from __future__ import annotations

import pytest

from tests.support.trap_boards import board, cells
from trap_env.trap.core import (
    Phase,
    apply,
    initial_state,
    legal_actions,
    mobility,
    move_mask,
    neighbour_mask,
)

# --- Moves ---------------------------------------------------------------------------

MOVE_SCENARIOS = [
    # (name, board, expected destinations)
    (
        "open centre: all 8 king steps, no staying",
        """
        .....
        .....
        ..0..
        .....
        ....1
        """,
        [(1, 1), (1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2), (3, 3)],
    ),
    (
        "corner: 3 steps, edges block",
        """
        0....
        .....
        .....
        .....
        ....1
        """,
        [(0, 1), (1, 0), (1, 1)],
    ),
    (
        "edge: 5 steps",
        """
        .....
        0....
        .....
        .....
        ....1
        """,
        [(0, 0), (0, 1), (1, 1), (2, 0), (2, 1)],
    ),
    (
        "traps and the opponent block",
        """
        .....
        .x1x.
        ..0x.
        .x...
        .....
        """,
        [(2, 1), (3, 2), (3, 3)],
    ),
]


@pytest.mark.parametrize(
    ("name", "rows", "expected"), MOVE_SCENARIOS, ids=[s[0] for s in MOVE_SCENARIOS]
)
def test_move_destinations(name: str, rows: str, expected: list[tuple[int, int]]) -> None:
    state = board(rows)
    assert legal_actions(state) == cells(state, *expected)
    assert move_mask(state, 0) == sum(1 << c for c in cells(state, *expected))
    assert mobility(state, 0) == len(expected)
    assert state.cells[0] not in legal_actions(state)


def test_move_then_phase_throw_same_player_same_turn() -> None:
    state = apply(initial_state(), 10)
    assert (state.phase, state.player, state.turn, state.cells) == (Phase.THROW, 0, 0, (10, 45))


def test_neighbour_mask_counts() -> None:
    assert neighbour_mask(7, 0).bit_count() == 3
    assert neighbour_mask(7, 3).bit_count() == 5
    assert neighbour_mask(7, 24).bit_count() == 8
    assert neighbour_mask(3, 4) == 0b111101111

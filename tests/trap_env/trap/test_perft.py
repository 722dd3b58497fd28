"""Trap!'s perft node counts (trap_env.trap.core and tests/support/grid_oracle.py) against
tests/data/perft.json.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import grid_oracle as oracle
from trap_env.trap.core import GameConfig, State, apply, initial_state, is_terminal, legal_actions

PERFT_TABLE = json.loads((Path(__file__).parents[2] / "data" / "perft.json").read_text())


# --- Perft ---------------------------------------------------------------------------------


def core_perft(state: State, depth: int) -> tuple[int, int]:
    """``(leaves, terminals)`` at ``depth`` actions, every phase (chance too) one action."""
    if depth == 0:
        return 1, int(is_terminal(state))
    leaves = terminals = 0
    for action in legal_actions(state):
        sub_leaves, sub_terminals = core_perft(apply(state, action), depth - 1)
        leaves += sub_leaves
        terminals += sub_terminals
    return leaves, terminals


def test_perft_table_covers_5x5_and_7x7() -> None:
    covered = {(row["board_size"], row["depth"]) for row in PERFT_TABLE}
    assert {(5, d) for d in range(1, 6)} | {(7, d) for d in range(1, 5)} <= covered
    assert any(row["terminals"] > 0 for row in PERFT_TABLE)


@pytest.mark.parametrize(
    "row",
    [row for row in PERFT_TABLE if row["leaves"] <= 100_000],
    ids=lambda row: f"{row['board_size']}x{row['board_size']}-d{row['depth']}",
)
def test_core_perft_matches_the_table(row: dict[str, int]) -> None:
    state = initial_state(GameConfig(row["board_size"]))
    assert core_perft(state, row["depth"]) == (row["leaves"], row["terminals"])


@pytest.mark.parametrize(
    "row",
    [row for row in PERFT_TABLE if row["leaves"] <= 10_000],
    ids=lambda row: f"{row['board_size']}x{row['board_size']}-d{row['depth']}",
)
def test_oracle_perft_matches_the_table(row: dict[str, int]) -> None:
    state = oracle.start(row["board_size"])
    assert oracle.perft(state, row["depth"]) == (row["leaves"], row["terminals"])


def test_core_perft_deepest_entries() -> None:
    """The deeper rows (a few hundred thousand leaves each) on the core only."""
    for row in PERFT_TABLE:
        if 100_000 < row["leaves"] <= 500_000:
            state = initial_state(GameConfig(row["board_size"]))
            assert core_perft(state, row["depth"]) == (row["leaves"], row["terminals"])

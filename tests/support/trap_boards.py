"""Trap!'s positions for the rules' tests: ASCII boards, flat cells, the exact landing
distribution in Fractions, a grid oracle's state as a core State, and the rules' invariants.
"""

from __future__ import annotations

import math
import textwrap
from fractions import Fraction

from tests.support import grid_oracle as oracle
from trap_env.trap.core import (
    NO_PLAYER,
    Phase,
    State,
    chance_outcomes,
    from_text,
    is_terminal,
    legal_action_mask,
    legal_actions,
    to_text,
    validate_state,
)

DECAYS = [0, 50, 137, 1000]
"""Decays under test: always on target, the rules' default, an odd one, never on target past 1."""



def board(
    rows: str, player: int = 0, phase: str = "move", target: str = "-", turn: int = 0
) -> State:
    """A state from a multi-line ASCII board ('.' empty, 'x' trap, '0'/'1' players)."""
    lines = [line.strip() for line in textwrap.dedent(rows).strip().splitlines()]
    return from_text(f"{'/'.join(lines)} {player} {phase} {target} {turn}")


def cell(state: State, row: int, col: int) -> int:
    """The flat index of (row, col) on the state's board."""
    return row * state.board_size + col


def cells(state: State, *coords: tuple[int, int]) -> list[int]:
    """Flat indices of the coordinates, ascending."""
    return sorted(cell(state, row, col) for row, col in coords)


def exact_landing(state: State) -> dict[int, Fraction]:
    """The rules' formula (docs/RULES.md) in Fractions: p on target, the rest shared."""
    n = state.board_size
    thrower = divmod(state.cells[state.player], n)
    target = divmod(state.target, n)
    distance = abs(thrower[0] - target[0]) + abs(thrower[1] - target[1])
    on_target = 1 - (distance - 1) * Fraction(state.decay, 1000)
    on_target = min(max(on_target, Fraction(0)), Fraction(1))
    eligible = [c for c in oracle.neighbours(n, target) if oracle.to_index(n, c) not in state.cells]
    result = {state.target: on_target} if on_target > 0 else {}
    for coord in eligible if on_target < 1 else []:
        result[oracle.to_index(n, coord)] = (1 - on_target) / len(eligible)
    return result


def to_core(grid_state: oracle.GridState) -> State:
    """The core State equal to an oracle state (built field by field, not via from_text)."""
    n = grid_state["n"]
    traps = sum(
        1 << oracle.to_index(n, (r, c))
        for r in range(n)
        for c in range(n)
        if grid_state["grid"][r][c] == "x"
    )
    target = grid_state["target"]
    won = grid_state["winner"]
    return State(
        n,
        traps,
        tuple(oracle.to_index(n, pos) for pos in grid_state["pos"]),
        grid_state["player"],
        Phase[grid_state["phase"].upper()],
        NO_PLAYER if target is None else oracle.to_index(n, target),
        grid_state["turn"],
        NO_PLAYER if won is None else won,
        grid_state["decay"],
    )


def check_invariants(state: State) -> None:
    """docs/RULES.md's 'What must never happen', plus the API's own consistency."""
    validate_state(state)
    assert state.cells[0] != state.cells[1]
    for player_cell in state.cells:
        assert not state.traps >> player_cell & 1
    actions = legal_actions(state)
    assert actions == sorted(set(actions))
    mask = legal_action_mask(state)
    assert len(mask) == state.board_size**2
    assert [i for i, bit in enumerate(mask) if bit] == actions
    assert is_terminal(state) == (actions == [])
    if state.phase is Phase.LANDING and not is_terminal(state):
        outcomes = chance_outcomes(state)
        assert all(0.0 <= p <= 1.0 for _, p in outcomes)
        assert math.isclose(sum(p for _, p in outcomes), 1.0)
        assert sorted(c for c, _ in outcomes) == actions
        assert not any(c in state.cells for c, _ in outcomes)
    copy = from_text(to_text(state))
    assert copy == state
    assert hash(copy) == hash(state)

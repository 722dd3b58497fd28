"""Trap!'s random playouts (trap_env.trap.core): state by state against the grid oracle
(tests/support/grid_oracle.py), the rules' invariants, replays from a seed, the module's
example, and a thousand-by-thousand board.
"""

from __future__ import annotations

import doctest
import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

import trap_env.trap.core
from tests.support import grid_oracle as oracle
from tests.support.positions import playout
from tests.support.trap_boards import DECAYS, check_invariants, to_core
from trap_env.trap.core import (
    GameConfig,
    Phase,
    State,
    apply,
    chance_outcomes,
    initial_state,
    is_terminal,
    legal_action_mask,
    legal_actions,
    sample_landing,
    validate_state,
    winner,
)

# --- Random playouts: core against the grid oracle, and the invariants --------------------


def compare_with_oracle(state: State, grid_state: oracle.GridState) -> None:
    """Assert that the core and the oracle agree on everything observable."""
    n = state.board_size
    assert state == to_core(grid_state)
    assert legal_actions(state) == [oracle.to_index(n, c) for c in oracle.actions(grid_state)]
    assert is_terminal(state) == (grid_state["winner"] is not None)
    assert winner(state) == grid_state["winner"]
    if state.phase is Phase.LANDING and not is_terminal(state):
        exact = {oracle.to_index(n, c): p for c, p in oracle.landing(grid_state).items()}
        outcomes = chance_outcomes(state)
        assert len(outcomes) == len(exact)
        for landing_cell, probability in outcomes:
            assert math.isclose(probability, float(exact[landing_cell]))


@settings(max_examples=80)
@given(
    n=st.integers(3, 8),
    decay=st.sampled_from(DECAYS),
    rng=st.randoms(use_true_random=False),
)
def test_core_agrees_with_the_grid_oracle_state_by_state(
    n: int, decay: int, rng: random.Random
) -> None:
    state = initial_state(GameConfig(n, decay))
    grid_state = oracle.start(n, decay)
    for _ in range(3 * 4 * n * n):
        compare_with_oracle(state, grid_state)
        if is_terminal(state):
            break
        # Throw preferably at empty cells, as the course's random player does, so games end.
        actions = legal_actions(state)
        if state.phase is Phase.THROW and rng.random() < 0.9:
            empty = [a for a in actions if not state.traps >> a & 1]
            actions = empty or actions
        is_chance = state.phase is Phase.LANDING
        action = sample_landing(state, rng) if is_chance else rng.choice(actions)
        state = apply(state, action)
        grid_state = oracle.step(grid_state, oracle.to_coord(n, action))


@settings(max_examples=60)
@given(
    n=st.sampled_from([3, 4, 5, 6, 7, 8, 9, 12, 40]),
    decay=st.sampled_from(DECAYS),
    rng=st.randoms(use_true_random=False),
)
def test_random_playouts_keep_the_invariants(n: int, decay: int, rng: random.Random) -> None:
    start = initial_state(GameConfig(n, decay))
    for state in playout(start, rng, max_steps=min(3 * n * n, 300)):
        check_invariants(state)


def test_random_playouts_end_and_replay_from_a_seed() -> None:
    results = []
    for seed in range(20):
        states = playout(initial_state(GameConfig(5)), random.Random(seed), 10_000)
        replay = playout(initial_state(GameConfig(5)), random.Random(seed), 10_000)
        assert states == replay
        assert is_terminal(states[-1])
        results.append(states[-1].winner)
    assert set(results) == {0, 1}


def test_module_docstring_example_runs() -> None:
    assert doctest.testmod(trap_env.trap.core).failed == 0


# --- Large boards ----------------------------------------------------------------------------


def test_a_thousand_by_thousand_board_plays_without_per_cell_tables() -> None:
    """No table grows as N**4: a few turns at N = 1000 take well under a second or a GB."""
    rng = random.Random(0)
    state = initial_state(GameConfig(1000))
    for _ in range(12):  # four turns
        if state.phase is Phase.THROW:
            assert len(legal_actions(state)) == 1000 * 1000 - 2
            mask = legal_action_mask(state)
            assert sum(mask) == 1000 * 1000 - 2 and mask[state.cells[0]] == 0
            action = state.cells[1 - state.player] - 1000  # next to the opponent
        elif state.phase is Phase.LANDING:
            action = sample_landing(state, rng)
        else:
            action = rng.choice(legal_actions(state))
        state = apply(state, action)
        check_invariants_cheaply(state)
    assert state.turn == 4


def check_invariants_cheaply(state: State) -> None:
    """:func:`check_invariants` without the checks that walk every cell of the board."""
    validate_state(state)
    assert legal_action_mask(state).count(1) == len(legal_actions(state))
    if state.phase is Phase.LANDING:
        assert math.isclose(sum(p for _, p in chance_outcomes(state)), 1.0)

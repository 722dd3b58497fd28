"""Trap!'s throws and landings (trap_env.trap.core): the targets, exact landing probabilities
for several decays on every small board, and sampling that follows them.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from tests.support.trap_boards import DECAYS, board, cell, cells, exact_landing
from trap_env.trap.core import (
    GameConfig,
    IllegalActionError,
    Phase,
    State,
    apply,
    chance_outcomes,
    from_text,
    initial_state,
    is_terminal,
    legal_actions,
    neighbour_mask,
    sample_landing,
)

# --- Throws and landings ---------------------------------------------------------------


def test_throw_targets_exclude_both_players_and_include_traps() -> None:
    state = board(
        """
        .0x
        ...
        .1.
        """,
        phase="throw",
    )
    assert legal_actions(state) == [0, 2, 3, 4, 5, 6, 8]
    assert 2 in legal_actions(state)
    for player_cell in state.cells:
        with pytest.raises(IllegalActionError, match="except the players' cells"):
            apply(state, player_cell)


def test_landing_on_an_existing_trap_changes_nothing_and_play_goes_on() -> None:
    state = board(
        """
        .....
        ..0..
        .....
        ..x..
        ..1..
        """,
        phase="landing",
        target="3,2",
    )
    after = apply(state, cell(state, 3, 2))
    assert after.traps == state.traps
    assert (after.player, after.phase, after.target, after.turn) == (1, Phase.MOVE, -1, 1)
    assert not is_terminal(after)


def test_landing_never_on_a_player() -> None:
    state = board(
        """
        .....
        .....
        .01..
        .....
        .....
        """,
        phase="landing",
        target="1,2",
    )
    outcome_cells = [c for c, _ in chance_outcomes(state)]
    assert state.cells[0] not in outcome_cells and state.cells[1] not in outcome_cells
    assert len(outcome_cells) == 1 + 6
    for player_cell in state.cells:
        with pytest.raises(IllegalActionError, match="phase LANDING"):
            apply(state, player_cell)


def test_distance_five_on_an_open_board() -> None:
    state = board(
        """
        .......
        .......
        .......
        ...0...
        .......
        .......
        ......1
        """,
        phase="landing",
        target="0,1",
    )
    # Thrower at (3,3), target (0,1): distance 3 + 2 = 5.
    outcomes = chance_outcomes(state)
    assert outcomes[0] == (cell(state, 0, 1), 0.8)
    assert len(outcomes) == 1 + 5
    state = board(
        """
        .......
        .......
        .......
        0......
        .......
        .......
        ......1
        """,
        phase="landing",
        target="2,4",
    )
    # Thrower at (3,0), target (2,4): distance 1 + 4 = 5; all 8 neighbours eligible.
    outcomes = chance_outcomes(state)
    assert outcomes[0] == (cell(state, 2, 4), 0.8)
    assert len(outcomes) == 9
    for _, probability in outcomes[1:]:
        assert math.isclose(probability, 0.025)
    assert math.isclose(sum(p for _, p in outcomes), 1.0)


def test_distance_one_gives_the_single_outcome() -> None:
    state = board(
        """
        .....
        .....
        ..0..
        .....
        ....1
        """,
        phase="landing",
        target="2,3",
    )
    assert chance_outcomes(state) == [(cell(state, 2, 3), 1.0)]
    assert legal_actions(state) == [cell(state, 2, 3)]
    with pytest.raises(IllegalActionError, match=r"one of \[13\]"):
        apply(state, cell(state, 2, 4))


@pytest.mark.parametrize(
    ("target", "expected_neighbours"),
    [
        ((0, 0), [(0, 1), (1, 0), (1, 1)]),
        ((0, 4), [(0, 3), (1, 3), (1, 4)]),
        ((4, 0), [(3, 0), (3, 1), (4, 1)]),
        ((0, 2), [(0, 1), (0, 3), (1, 1), (1, 2), (1, 3)]),
        ((2, 0), [(1, 0), (1, 1), (2, 1), (3, 0), (3, 1)]),
        ((4, 4), [(3, 3), (4, 3)]),  # corner beside player 1 at (3, 4)
        ((4, 3), [(3, 3), (4, 2), (4, 4)]),  # edge beside both players
    ],
)
def test_corner_and_edge_targets(
    target: tuple[int, int], expected_neighbours: list[tuple[int, int]]
) -> None:
    state = board(
        """
        .....
        .....
        .....
        ..0.1
        .....
        """,
        phase="landing",
        target="{},{}".format(*target),
    )
    outcomes = dict(chance_outcomes(state))
    expected = exact_landing(state)
    assert (
        sorted(outcomes) == sorted(expected) == sorted(cells(state, target, *expected_neighbours))
    )
    for landing_cell, probability in outcomes.items():
        assert math.isclose(probability, float(expected[landing_cell]), abs_tol=1e-15)


@pytest.mark.parametrize(
    ("thrower", "target", "on_target"),
    [
        ((0, 0), (10, 10), Fraction(1, 20)),  # distance 20
        ((0, 0), (10, 11), Fraction(0)),  # distance 21: p = 0, target excluded
        ((0, 0), (12, 12), Fraction(0)),  # distance 24: clamped
        ((0, 0), (24, 24), Fraction(0)),  # distance 48, corner: 3 neighbours share 1
        ((0, 0), (0, 24), Fraction(0)),  # distance 24, corner
    ],
)
def test_probability_clamps_on_a_large_board(
    thrower: tuple[int, int], target: tuple[int, int], on_target: Fraction
) -> None:
    n = 25
    grid = [["."] * n for _ in range(n)]
    grid[thrower[0]][thrower[1]] = "0"
    grid[n // 2][0] = "1"
    text = "/".join("".join(row) for row in grid) + " 0 landing {},{} 3".format(*target)
    state = from_text(text)
    outcomes = dict(chance_outcomes(state))
    expected = exact_landing(state)
    assert expected.get(state.target, Fraction(0)) == on_target
    assert (state.target in outcomes) == (on_target > 0)
    assert sorted(outcomes) == sorted(expected)
    neighbour_count = neighbour_mask(n, state.target).bit_count()
    for landing_cell, probability in outcomes.items():
        assert math.isclose(probability, float(expected[landing_cell]), abs_tol=1e-15)
        if on_target == 0:
            assert math.isclose(probability, 1 / neighbour_count)
    assert math.isclose(sum(outcomes.values()), 1.0)


@pytest.mark.parametrize("decay", DECAYS)
def test_every_landing_distribution_on_small_boards_matches_the_fractions(decay: int) -> None:
    for n in (3, 4, 5):
        size = n * n
        for p0 in range(size):
            for p1 in range(size):
                if p0 == p1:
                    continue
                for target in range(size):
                    if target in (p0, p1):
                        continue
                    state = State(n, 0, (p0, p1), 0, Phase.LANDING, target, 0, -1, decay)
                    outcomes = chance_outcomes(state)
                    expected = exact_landing(state)
                    assert len(outcomes) == len({c for c, _ in outcomes}) == len(expected)
                    for landing_cell, probability in outcomes:
                        assert 0.0 <= probability <= 1.0
                        # Each probability is the exact rational, rounded once.
                        assert probability == float(expected[landing_cell])
                    assert math.isclose(sum(p for _, p in outcomes), 1.0)
                    if expected.get(target, 0) > 0:
                        assert outcomes[0][0] == target


def test_with_no_decay_every_throw_lands_on_target() -> None:
    state = initial_state(GameConfig(9, decay=0))
    thrown = apply(apply(state, legal_actions(state)[0]), 80)  # the far corner
    assert chance_outcomes(thrown) == [(80, 1.0)]
    assert legal_actions(thrown) == [80]


def test_with_the_largest_decay_only_adjacent_throws_can_hit() -> None:
    state = initial_state(GameConfig(5, decay=1000))
    moved = apply(state, 7)  # player 0 to (1, 2)
    assert chance_outcomes(apply(moved, 8)) == [(8, 1.0)]  # distance 1
    two_away = chance_outcomes(apply(moved, 9))  # (1, 4): distance 2
    assert 9 not in dict(two_away)
    assert sorted(two_away) == [(3, 0.2), (4, 0.2), (8, 0.2), (13, 0.2), (14, 0.2)]


def test_chance_outcomes_outside_landing_raise() -> None:
    with pytest.raises(ValueError, match="needs a state in phase LANDING, got MOVE"):
        chance_outcomes(initial_state())


# --- Sampling --------------------------------------------------------------------------

DISTANCE_FIVE = board(
    """
    .......
    .......
    .......
    0......
    .......
    .......
    ......1
    """,
    phase="landing",
    target="2,4",
)


@pytest.mark.parametrize(
    "make_rng", [random.Random, np.random.default_rng], ids=["random.Random", "numpy"]
)
def test_sample_landing_frequencies_match_the_distribution(make_rng) -> None:  # type: ignore[no-untyped-def]
    rng = make_rng(1234)
    draws = 8000
    counts = Counter(sample_landing(DISTANCE_FIVE, rng) for _ in range(draws))
    outcomes = dict(chance_outcomes(DISTANCE_FIVE))
    assert set(counts) <= set(outcomes)
    chi_square = sum((counts[c] - draws * p) ** 2 / (draws * p) for c, p in outcomes.items())
    assert chi_square < 30.0  # 8 degrees of freedom: p < 0.001 above ~26
    first, second = make_rng(5), make_rng(5)
    assert [sample_landing(DISTANCE_FIVE, first) for _ in range(100)] == [
        sample_landing(DISTANCE_FIVE, second) for _ in range(100)
    ]


def test_sample_landing_survives_a_draw_at_the_top_of_the_range() -> None:
    class AlmostOne:
        def random(self) -> float:
            return 1.0 - 2**-53

    assert sample_landing(DISTANCE_FIVE, AlmostOne()) == chance_outcomes(DISTANCE_FIVE)[-1][0]

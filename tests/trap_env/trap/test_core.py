"""Tests for trap_env.trap.core: every rule of docs/RULES.md as a scenario, exact landing
probabilities (for several decays), perft node counts, random playouts against
tests/support/grid_oracle.py, large boards, and the text notation under fuzzing.
"""

from __future__ import annotations

import doctest
import json
import math
import random
import re
import textwrap
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trap_env.trap.core
from tests.support import grid_oracle as oracle
from tests.support.positions import playout
from trap_env.trap.core import (
    DEFAULT_DECAY,
    NO_PLAYER,
    GameConfig,
    IllegalActionError,
    Phase,
    State,
    apply,
    chance_outcomes,
    default_turn_limit,
    from_text,
    initial_state,
    is_terminal,
    legal_action_mask,
    legal_actions,
    mobility,
    move_mask,
    neighbour_mask,
    returns,
    sample_landing,
    to_ascii,
    to_text,
    validate_state,
    winner,
)

PERFT_TABLE = json.loads((Path(__file__).parents[2] / "data" / "perft.json").read_text())
DECAYS = [0, 50, 137, 1000]
"""Decays under test: always on target, the rules' default, an odd one, never on target past 1."""


# --- Helpers -------------------------------------------------------------------------


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


# --- The start and the configuration ------------------------------------------------


@pytest.mark.parametrize("n", [3, 4, 7, 10])
def test_initial_state_places_players_mid_top_and_mid_bottom(n: int) -> None:
    state = initial_state(GameConfig(board_size=n))
    assert state == State(n, 0, (n // 2, (n - 1) * n + n // 2), 0, Phase.MOVE, -1, 0, -1)
    assert initial_state() == initial_state(GameConfig(7))


@pytest.mark.parametrize("bad", [2, 1, 0, -7, True, False, 7.0, "7", None])
def test_game_config_rejects_bad_board_sizes(bad: object) -> None:
    with pytest.raises(ValueError, match=r"board_size must be an integer from 3 to "):
        GameConfig(board_size=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, 1001, 50.0, True, "50", None])
def test_game_config_rejects_bad_decays(bad: object) -> None:
    with pytest.raises(ValueError, match=r"decay must be an integer per mille in 0\.\.1000"):
        GameConfig(decay=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("decay", DECAYS)
def test_the_decay_is_part_of_the_state(decay: int) -> None:
    state = initial_state(GameConfig(5, decay=decay))
    assert state.decay == decay
    assert apply(apply(state, 3), 12).decay == decay
    assert initial_state().decay == DEFAULT_DECAY == 50


def test_the_turn_limit_is_four_n_squared() -> None:
    assert default_turn_limit(7) == 196
    assert default_turn_limit(3) == 36


def test_game_config_is_frozen() -> None:
    with pytest.raises(AttributeError):
        GameConfig().board_size = 5  # type: ignore[misc]


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


# --- Wins and losses -----------------------------------------------------------------


def test_move_that_traps_the_opponent_wins_at_once_without_a_throw() -> None:
    state = board(
        """
        1.0..
        xx...
        .....
        .....
        .....
        """
    )
    after = apply(state, cell(state, 0, 1))
    assert after.phase is Phase.THROW
    assert after.player == 0
    assert after.winner == 0 and winner(after) == 0
    assert is_terminal(after)
    assert legal_actions(after) == []
    assert legal_action_mask(after) == [0] * 25
    assert returns(after) == (1.0, -1.0)
    assert after.turn == 0
    with pytest.raises(IllegalActionError, match="game is over"):
        apply(after, 12)
    with pytest.raises(ValueError, match="LANDING"):
        chance_outcomes(after)
    assert from_text(to_text(after)) == after


def test_throw_that_traps_both_players_wins_for_the_thrower() -> None:
    state = board(
        """
        01x..
        x.x..
        .....
        .....
        .....
        """,
        phase="throw",
    )
    assert mobility(state, 0) == 1 and mobility(state, 1) == 1
    landing = apply(state, cell(state, 1, 1))
    assert landing.phase is Phase.LANDING and not is_terminal(landing)
    after = apply(landing, cell(state, 1, 1))
    assert mobility(after, 0) == 0 and mobility(after, 1) == 0
    assert after.winner == 0
    assert returns(after) == (1.0, -1.0)
    assert legal_actions(after) == []


def test_thrower_trapping_only_itself_plays_on() -> None:
    state = board(
        """
        0x...
        .x...
        .....
        .....
        ....1
        """,
        phase="throw",
    )
    after = apply(apply(state, cell(state, 1, 0)), cell(state, 1, 0))
    assert not is_terminal(after)
    assert mobility(after, 0) == 0
    assert (after.player, after.phase, after.turn) == (1, Phase.MOVE, 1)
    # Player 1 moves anywhere that leaves player 0 stuck: player 1 wins by moving.
    after_move = apply(after, cell(state, 3, 3))
    assert after_move.winner == 1


def test_player_without_a_move_when_its_turn_begins_loses() -> None:
    state = board(
        """
        0x...
        xx...
        .....
        .....
        ....1
        """
    )
    assert state.winner == 1
    assert is_terminal(state)
    assert legal_actions(state) == []
    assert returns(state) == (-1.0, 1.0)
    assert winner(state) == 1


def test_returns_and_winner_while_play_goes_on() -> None:
    assert returns(initial_state()) == (0.0, 0.0)
    assert winner(initial_state()) is None
    assert not is_terminal(initial_state())


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


# --- Turn counter and actions ------------------------------------------------------------


def test_turn_counter_counts_completed_turns() -> None:
    state = initial_state(GameConfig(5))
    rng = random.Random(3)
    for turn in range(3):
        assert (state.turn, state.player) == (turn, turn % 2)
        state = apply(state, legal_actions(state)[0])
        assert state.turn == turn
        state = apply(state, max(legal_actions(state)) if turn % 2 == 0 else 0)
        assert state.turn == turn
        state = apply(state, sample_landing(state, rng))
    assert state.turn == 3


@pytest.mark.parametrize("action", [np.int64(10), np.int32(10), np.intp(10)])
def test_numpy_integer_actions_are_accepted(action: object) -> None:
    assert apply(initial_state(), action) == apply(initial_state(), 10)  # type: ignore[arg-type]


@pytest.mark.parametrize("action", ["10", 10.0, None, (1, 3), np.float64(10)])
def test_non_integer_actions_raise_a_clear_error(action: object) -> None:
    with pytest.raises(IllegalActionError, match="an action is a flat cell index"):
        apply(initial_state(), action)  # type: ignore[arg-type]


def test_boolean_actions_are_rejected() -> None:
    with pytest.raises(IllegalActionError, match="an action is a flat cell index"):
        apply(initial_state(), True)


def test_illegal_action_error_names_action_phase_and_legal_choices() -> None:
    assert issubclass(IllegalActionError, ValueError)
    state = initial_state()
    with pytest.raises(IllegalActionError) as caught:
        apply(state, 24)
    message = str(caught.value)
    assert "illegal action 24" in message
    assert "phase MOVE" in message
    assert str(legal_actions(state)) in message
    with pytest.raises(IllegalActionError, match=r"illegal action 49 .*outside the 7x7 board"):
        apply(state, 49)
    with pytest.raises(IllegalActionError, match=r"illegal action -1 "):
        apply(state, -1)
    thrown = apply(state, 3 + 7)
    with pytest.raises(IllegalActionError, match=r"illegal action 10 .*phase THROW.*\[10, 45\]"):
        apply(thrown, 10)
    landing = apply(thrown, 24)
    with pytest.raises(IllegalActionError, match=r"illegal action 0 .*phase LANDING.*one of \["):
        apply(landing, 0)


# --- Text notation ----------------------------------------------------------------------


def test_to_text_of_the_start() -> None:
    assert (
        to_text(initial_state())
        == "...0.../......./......./......./......./......./...1... 0 move - 0"
    )


def test_to_ascii_draws_players_traps_and_target() -> None:
    state = board(
        """
        .0.
        x..
        .1.
        """,
        phase="landing",
        target="1,2",
        turn=4,
    )
    assert to_ascii(state) == "\n".join(
        ["  0 1 2", "0 . 0 .", "1 x . *", "2 . 1 .", "turn 4, player 0 to landing"]
    )


GOOD_TEXTS = [
    "...0.../......./......./......./......./......./...1... 0 move - 0",
    ".0./.x./.1. 1 throw - 12",
    ".0./.x./.1. 1 landing 1,1 12",
    ".0./.x./.1. 0 landing 0,0 0",
    "0x./xx./..1 0 move - 5",  # player 0 stuck: player 1 has won
    "1.0../xx.../...../...../..... 0 throw - 0",  # player 1 stuck after the move
    ".0./.x./.1. 1 landing 1,1 12 decay=137",
    ".0./.x./.1. 0 move - 0 decay=0",
    ".0./.x./.1. 0 move - 0 decay=1000",
]


@pytest.mark.parametrize("text", GOOD_TEXTS)
def test_text_round_trips_exactly(text: str) -> None:
    state = from_text(text)
    assert to_text(state) == text
    assert from_text(to_text(state)) == state


MALFORMED_TEXTS = [
    ("", "5 space-separated fields"),
    (".0./.../.1. 0 move -", "5 space-separated fields"),
    (".0./.../.1. 0 move - 0 extra", "6th field must be decay=D"),
    (".0./.../.1. 0 move - 0 decay=30 extra", "5 space-separated fields"),
    (".0./.../.1. 0 move - 0 decay=", "6th field must be decay=D"),
    (".0./.../.1. 0 move - 0 decay=-1", "6th field must be decay=D"),
    (".0./.../.1. 0 move - 0 decay=1001", "6th field must be decay=D"),
    (".0./.../.1. 0 move - 0 decay=0.5", "6th field must be decay=D"),
    (".0./.../.1. 0 move - 0 Decay=5", "6th field must be decay=D"),
    (".0./.../.1. 0 move - 0 decay=²", "6th field must be decay=D"),
    (".0./.../.1. 0 move - " + "9" * 5000, "turn must be a non-negative integer of at most"),
    (".0./.../.1 0 move - 0", "row lengths"),
    (".0/.1 0 move - 0", "row lengths"),
    (".0./..../.1. 0 move - 0", "row lengths"),
    (".0./.?./.1. 0 move - 0", "unknown board characters"),
    (".0./.2./.1. 0 move - 0", "unknown board characters"),
    (".../.../.1. 0 move - 0", "each player exactly once"),
    (".0./.0./.1. 0 move - 0", "each player exactly once"),
    (".0./.../... 0 move - 0", "each player exactly once"),
    (".0./.../.1. 2 move - 0", "player must be one of"),
    (".0./.../.1. x move - 0", "player must be one of"),
    (".0./.../.1. 0 MOVE - 0", "phase must be one of"),
    (".0./.../.1. 0 jump - 0", "phase must be one of"),
    (".0./.../.1. 0 move 1,1 0", "'-' outside phase landing"),
    (".0./.../.1. 0 landing - 0", "'row,col' in phase landing"),
    (".0./.../.1. 0 landing 1;1 0", "'row,col' in phase landing"),
    (".0./.../.1. 0 landing 1,-1 0", "'row,col' in phase landing"),
    (".0./.../.1. 0 landing 3,0 0", "off the 3x3 board"),
    (".0./.../.1. 0 landing 0,1 0", "target"),  # on a player
    (".0./.../.1. 0 landing ²,1 0", "'row,col' in phase landing"),
    (".0./.../.1. 0 move - -1", "turn must be a non-negative integer"),
    (".0./.../.1. 0 move - 1.5", "turn must be a non-negative integer"),
    (".0./.../.1. 0 move - ²", "turn must be a non-negative integer"),
    ("01x/xxx/... 0 landing 2,2 0", "already trapped"),
]


@pytest.mark.parametrize(("text", "problem"), MALFORMED_TEXTS)
def test_malformed_text_raises_value_error_naming_the_problem(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        from_text(text)


def test_the_default_decay_is_left_out_of_the_text_but_may_be_written() -> None:
    assert from_text(".0./.x./.1. 0 move - 0 decay=50") == from_text(".0./.x./.1. 0 move - 0")
    assert to_text(initial_state(GameConfig(3, decay=30))) == ".0./.../.1. 0 move - 0 decay=30"


def test_text_winner_follows_from_the_position() -> None:
    assert from_text("0x./xx./..1 0 throw - 0").winner == NO_PLAYER
    assert from_text("0x./xx./..1 1 move - 0").winner == NO_PLAYER
    assert from_text("0x./xx./..1 0 move - 0").winner == 1


# --- validate_state and State as a value --------------------------------------------------

START = initial_state(GameConfig(3))  # .0./.../.1.

MALFORMED_STATES = [
    (START._replace(board_size=2), "board_size"),
    (START._replace(traps=-1), "traps must be a bitboard"),
    (START._replace(traps=1 << 9), "traps must be a bitboard"),
    (START._replace(traps=0b10), "player 0 stands on a trap"),
    (START._replace(traps=1 << 7), "player 1 stands on a trap"),
    (START._replace(cells=(1, 1)), "both players stand on cell 1"),
    (START._replace(cells=(1, 9)), "cells must be two cells"),
    (START._replace(cells=(1,)), "cells must be two cells"),
    (START._replace(cells=[1, 7]), "cells must be"),
    (START._replace(player=2), "player must be 0 or 1"),
    (START._replace(player=True), "player must be 0 or 1"),
    (START._replace(phase=3), "phase"),
    (START._replace(phase=1), "phase"),
    (START._replace(target=4), "does not fit phase MOVE"),
    (START._replace(phase=Phase.LANDING), "does not fit phase LANDING"),
    (START._replace(phase=Phase.LANDING, target=1), "does not fit phase LANDING"),
    (START._replace(phase=Phase.LANDING, target=9), "target must be in 0..8"),
    (START._replace(turn=-1), "turn must be"),
    (START._replace(turn=1.0), "turn must be"),
    (START._replace(decay=1001), "decay must be an integer per mille"),
    (START._replace(decay=-1), "decay must be an integer per mille"),
    (START._replace(decay=True), "decay must be an integer per mille"),
    (START._replace(winner=0), "winner 0 contradicts the position"),
    (START._replace(winner=5), "winner"),
    (from_text("0x./xx./..1 0 move - 0")._replace(winner=NO_PLAYER), "winner -1 contradicts"),
]


@pytest.mark.parametrize(("state", "problem"), MALFORMED_STATES)
def test_validate_state_catches_malformed_states(state: State, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        validate_state(state)


def test_states_are_values() -> None:
    a = apply(initial_state(), 10)
    b = apply(initial_state(), 10)
    assert a == b and hash(a) == hash(b) and a is not b
    assert a != apply(initial_state(), 11)
    assert len({a, b, initial_state()}) == 2
    assert from_text(to_text(a)) == a
    with pytest.raises(AttributeError):
        a.turn = 3  # type: ignore[misc]


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


# --- Fuzzing the text notation ----------------------------------------------------------------


def reachable_states(draw: st.DrawFn) -> State:
    """A state reached by random play from the start, on a random board size and decay."""
    n = draw(st.integers(3, 9))
    decay = draw(st.sampled_from([*DECAYS, 1, 999]))
    rng = draw(st.randoms(use_true_random=False))
    states = playout(initial_state(GameConfig(n, decay)), rng, max_steps=4 * n * n)
    return draw(st.sampled_from(states))


reachable = st.composite(reachable_states)


def assert_clear_value_error(text: str) -> None:
    """``from_text`` either parses ``text`` into a state that round-trips, or raises a
    ``ValueError`` whose message is one short line."""
    try:
        state = from_text(text)
    except ValueError as error:
        message = str(error)
        assert type(error) is ValueError
        assert message and "\n" not in message and len(message) < 400, message
        return
    assert from_text(to_text(state)) == state


@settings(max_examples=300)
@given(state=reachable())
def test_text_round_trips_on_every_reachable_state(state: State) -> None:
    text = to_text(state)
    assert from_text(text) == state
    assert to_text(from_text(text)) == text


@settings(max_examples=300)
@given(text=st.text(max_size=120))
def test_arbitrary_text_gives_a_state_or_a_clear_value_error(text: str) -> None:
    assert_clear_value_error(text)


FIELD_NOISE = st.sampled_from(
    [
        "",
        " ",
        "-",
        "0",
        "1",
        "x",
        ".",
        "/",
        ",",
        "move",
        "throw",
        "landing",
        "decay=",
        "decay=7",
        "decay=1001",
        "99999",
        "9" * 5000,
        "²",
        "\x00",
        "\n",
        "0,0",
        "-1",
        "01",
        "xx/xx",
    ]
)


@settings(max_examples=400)
@given(state=reachable(), data=st.data())
def test_mutated_notations_give_a_state_or_a_clear_value_error(
    state: State, data: st.DataObject
) -> None:
    text = to_text(state)
    for _ in range(data.draw(st.integers(1, 3))):
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, min(len(text), start + 4)))
        noise = data.draw(FIELD_NOISE | st.text(max_size=3))
        text = text[:start] + noise + text[end:]
    assert_clear_value_error(text)


# --- Legal actions stated once; one outcome -----------------------------------------


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(3, 7), decay=st.sampled_from([0, 50, 300, 1000]))
def test_apply_accepts_exactly_the_legal_actions(seed: int, n: int, decay: int) -> None:
    rng = random.Random(seed)
    for state in playout(initial_state(GameConfig(n, decay)), rng, max_steps=3 * n * n):
        legal = set(legal_actions(state))
        for action in range(-1, n * n + 1):
            if action in legal:
                apply(state, action)
            else:
                with pytest.raises(IllegalActionError):
                    apply(state, action)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(3, 6), limit=st.integers(1, 30))
def test_outcome_is_the_rules_winner_or_the_turn_limit(seed: int, n: int, limit: int) -> None:
    for state in playout(initial_state(GameConfig(n)), random.Random(seed), 10 * n * n):
        ended = trap_env.trap.core.outcome(state, limit)
        if is_terminal(state):
            assert ended == trap_env.trap.core.Outcome(state.winner, "trapped")
            assert ended.returns() == returns(state)
        elif state.phase is Phase.MOVE and state.turn >= limit:
            assert ended == trap_env.trap.core.Outcome(None, "truncated")
            assert ended.returns() == (0.0, 0.0)
        else:
            assert ended is None
        assert trap_env.trap.core.outcome(state) == (ended if is_terminal(state) else None)


# --- Types at the edges -----------------------------------------------------------------

STATE_FUNCTIONS = [
    apply,
    chance_outcomes,
    is_terminal,
    legal_action_mask,
    legal_actions,
    returns,
    to_ascii,
    to_text,
    validate_state,
    winner,
    trap_env.trap.core.outcome,
]
"""The public functions whose first argument is a state, called with it alone (or an action)."""

NOT_STATES = st.one_of(
    st.none(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.binary(max_size=20),
    st.tuples(st.integers(), st.integers()),
    st.lists(st.integers(), max_size=9).map(tuple),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=3),
)


def _call(function, state: object) -> object:  # type: ignore[no-untyped-def]
    return function(state, 0) if function is apply else function(state)


@settings(max_examples=60, deadline=None)
@given(function=st.sampled_from(STATE_FUNCTIONS), value=NOT_STATES)
def test_anything_but_a_state_is_refused_naming_the_argument(function, value) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError, match=r"^state must be a trap_env\.trap\.core\.State"):
        _call(function, value)


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: from_text(None), "text must be a str in to_text's notation, got NoneType None"),
        (lambda: from_text(b"...0/..1 0 move - 0"), "text must be a str"),
        (lambda: initial_state(7), "config must be a GameConfig"),
        (lambda: sample_landing(None, random.Random(0)), "state must be"),
        (lambda: move_mask(initial_state(), "0"), "player must be 0 or 1, got str '0'"),
        (lambda: mobility(initial_state(), 1.0), "player must be 0 or 1, got float 1.0"),
        (lambda: neighbour_mask("7", 3), "board_size must be an int in 3..1000, got str '7'"),
        (lambda: neighbour_mask(7, 3.0), "cell must be an int"),
        (lambda: neighbour_mask(7, 49), "a cell in 0..board_size**2 - 1, got board_size 7"),
        (lambda: neighbour_mask(0, 0), "needs board_size in 3..1000"),
        (lambda: neighbour_mask(1001, 0), "needs board_size in 3..1000"),
        (lambda: default_turn_limit(7.0), "board_size must be an int"),
        (
            lambda: trap_env.trap.core.outcome(initial_state(), "9"),
            "max_turns must be an int or None",
        ),
    ],
)
def test_wrong_arguments_are_refused_naming_them(call, words: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises((TypeError, ValueError), match=re.escape(words)):
        call()


# --- Sizes and action text --------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(size=st.one_of(st.integers(-2, 12), st.integers(990, 1010)))
def test_one_size_range_for_the_config_and_the_text(size: int) -> None:
    """3 to :data:`trap_env.trap.core.MAX_BOARD_SIZE` (1000), in the config and in the text."""
    allowed = trap_env.trap.core.MIN_BOARD_SIZE <= size <= trap_env.trap.core.MAX_BOARD_SIZE
    rows = "/".join(["." * size] * size) if size >= 1 else ""
    text = f"{rows} 0 move - 0"
    if allowed:
        GameConfig(size)
        if size <= 12:  # the text of a 1000-cell-wide board is a megabyte: sizes near 3 only
            text = to_text(initial_state(GameConfig(size)))
            assert from_text(text).board_size == size
        return
    with pytest.raises(ValueError, match="board_size must be an integer from 3 to 1000"):
        GameConfig(size)
    if size >= 1:
        with pytest.raises(ValueError, match="N from 3 to 1000"):
            from_text(text)


@settings(max_examples=300, deadline=None)
@given(
    text=st.one_of(
        st.text(max_size=40),
        st.builds(
            ",".join, st.lists(st.sampled_from(["1", "٣", "²", " ", "9" * 5000]), max_size=3)
        ),
    )
)
def test_any_action_text_gives_a_cell_or_a_clear_value_error(text: str) -> None:
    from trap_env.trap.game import GAME

    state = initial_state(GameConfig(5))
    try:
        cell = GAME.action_from_text(state, text)
    except ValueError as error:
        assert "\n" not in str(error) and len(str(error)) < 300
        assert "Exceeds the limit" not in str(error)
    else:
        assert 0 <= cell < 25


@pytest.mark.parametrize("text", ["1,٣", "²", "٣", "1," + "1" * 5000])
def test_action_numbers_are_ascii_digits_of_at_most_4300(text: str) -> None:
    from trap_env.trap.game import GAME

    with pytest.raises(ValueError, match="a cell is 'row,col'"):
        GAME.action_from_text(initial_state(GameConfig(5)), text)

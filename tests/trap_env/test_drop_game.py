"""Drop (``tests/support/drop_game.py``), the test-only game on a board that is not square
whose actions are columns: its rules on ASCII boards, and the protocol's conformance checks
with the adapters."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.drop_game import GAME, DropState, RandomDropper
from trap_env.game import TRUNCATED, IllegalActionError, Outcome
from trap_env.games import get_game
from trap_env.grid import Grid, click_targets
from trap_env.testing import check_game, check_text

DROP = "tests.support.drop_game:GAME"


def test_drop_passes_the_conformance_checks_with_the_adapters() -> None:
    assert get_game(DROP) is GAME
    check_game(DROP, games=2, opponent=RandomDropper(seed=0))
    check_game(GAME, games=2, adapters=False, rows=3, cols=7)


@settings(max_examples=80, deadline=None)
@given(text=st.text(max_size=30) | st.lists(
    st.sampled_from(["...", "X.O", "/", " ", "-", "0", "2", "9", "XXX", "O"]), max_size=8
).map("".join))  # fmt: skip
def test_any_text_is_a_position_or_a_one_line_error(text: str) -> None:
    start = GAME.initial_state(GAME.make_config())
    check_text(GAME, text, [start])


@pytest.mark.parametrize(
    ("text", "outcomes"),
    [
        ("...../...../...../..... 2", [(1, 0.125), (2, 0.75), (3, 0.125)]),
        ("...../...../...../..... 0", [(0, 0.75), (1, 0.25)]),
        ("...../...../...../..... 4", [(3, 0.25), (4, 0.75)]),
        ("X..../O..../X..../O.... 1", [(1, 0.75), (2, 0.25)]),  # column 0 is full
        ("XO.../OX.../XO.../OX... 2", [(2, 0.75), (3, 0.25)]),
        (".X.O./.O.X./.X.O./.O.X. 2", [(2, 1.0)]),  # both neighbours full: it stays
    ],
)
def test_a_drop_lands_in_its_column_or_slips_to_a_neighbour_with_room(
    text: str, outcomes: list[tuple[int, float]]
) -> None:
    state = GAME.from_text(text)
    assert GAME.is_chance(state) and list(GAME.chance_outcomes(state)) == outcomes
    assert GAME.legal_actions(state) == [column for column, _ in outcomes]


def test_a_piece_falls_to_the_lowest_empty_cell_of_the_column_it_lands_in() -> None:
    state = GAME.from_text("...../...../...../..X.. 1")
    assert GAME.decision_name(state) == "landing" and GAME.current_player(state) == 1
    after = GAME.apply(state, 2)
    assert GAME.to_text(after) == "...../...../..O../..X.. -"
    assert GAME.decision_name(after) == "drop" and GAME.current_player(after) == 0
    assert GAME.turn(after) == 2


@pytest.mark.parametrize(
    ("text", "outcome"),
    [
        ("...../...../...../XXXOO -", Outcome(0, "three")),  # across
        ("...../X..../XO.../XO... -", Outcome(0, "three")),  # down
        ("...../..O../.OX../OXX.. -", Outcome(1, "three")),  # up to the right
        ("...../O..../XO.../XXO.. -", Outcome(1, "three")),  # down to the right
        ("XXOO/OOXX/XXOO -", Outcome(None, "full")),  # a full board without three: a draw
        ("...../...../...../XX.OO -", None),
    ],
)
def test_three_in_a_row_wins_and_a_full_board_draws(text: str, outcome: Outcome | None) -> None:
    state = GAME.from_text(text)
    assert GAME.outcome(state) == outcome
    assert (GAME.legal_actions(state) == []) == (outcome is not None)


def test_the_turn_limit_cuts_a_game_at_a_decision() -> None:
    state = GAME.from_text("...../...../...../XX.OO -")
    assert GAME.outcome(state, max_turns=4) == Outcome(None, TRUNCATED)
    assert GAME.outcome(GAME.apply(state, 2), max_turns=4) is None  # chance is never cut


@pytest.mark.parametrize(
    ("state", "words"),
    [
        (DropState(4, 5, "." * 20, 7), "pending column is 0..4"),
        (DropState(4, 5, "X" + "." * 19, -1), "floats above an empty cell"),
        (DropState(4, 5, "." * 15 + "XX...", -1), "as many pieces as O or one more"),
        (DropState(4, 5, "." * 15 + "OOO.X", -1), "as many pieces as O or one more"),
        (DropState(4, 5, "." * 10 + "OO..." + "XXX.O", -1), "only the last to drop (O)"),
        (DropState(4, 5, "." * 15 + "XXXOO", 0), "awaits chance, but"),
        (DropState(2, 5, "." * 10, -1), "rows must be an integer from 3 to 16"),
        (DropState(4, 5, "." * 19, -1), "20 characters"),
        (DropState(4, 5, "." * 19 + "x", -1), "of '.', 'X'"),
    ],
)
def test_a_state_no_game_reaches_is_refused(state: DropState, words: str) -> None:
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        GAME.check_state(state)


def test_a_column_is_the_only_action_and_chance_draws_once() -> None:
    start = GAME.initial_state(GAME.make_config(rows=3, cols=4))
    assert GAME.num_actions(GAME.make_config(rows=3, cols=4)) == 4
    assert GAME.action_from_text(start, "3") == 3
    with pytest.raises(ValueError, match=r"an action is a number 0\.\.3, got '4'"):
        GAME.action_from_text(start, "4")
    with pytest.raises(IllegalActionError, match="legal columns"):
        GAME.apply(start, 4)
    pending = GAME.apply(start, 1)
    for draw, column in [(0.0, 0), (0.124, 0), (0.126, 1), (0.874, 1), (0.876, 2)]:
        assert GAME.sample_chance(pending, _Fixed(draw)) == column


class _Fixed:
    """A random source that gives one number."""

    def __init__(self, value: float) -> None:
        self.value = value

    def random(self) -> float:
        return self.value


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), rows=st.integers(3, 6), cols=st.integers(3, 7))
def test_the_grid_is_the_board_and_a_click_on_any_cell_of_a_column_drops_there(
    seed: int, rows: int, cols: int
) -> None:
    rng = random.Random(seed)
    state = GAME.initial_state(GAME.make_config(rows=rows, cols=cols))
    while GAME.outcome(state) is None:
        grid = GAME.describe(state)["grid"]
        assert Grid.from_json(grid).to_json() == grid and (grid["rows"], grid["cols"]) == (rows,
                                                                                           cols)
        pieces = {int(cell): fields.get("piece", ".") for cell, fields in grid["cells"].items()}
        assert "".join(pieces.get(cell, ".") for cell in range(rows * cols)) == state.board
        targets = click_targets(grid)
        assert all(targets[c] == [(r * cols + c, None) for r in range(rows)] for c in range(cols))
        if GAME.is_chance(state):
            aim = [int(cell) for cell, fields in grid["cells"].items()
                   if fields.get("mark") == "aim"]  # fmt: skip
            assert len(aim) == 1 and aim[0] % cols == state.pending
            state = GAME.apply(state, GAME.sample_chance(state, rng))
        else:
            state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    final = GAME.describe(state)["grid"]["cells"]
    threes = [cell for cell, fields in final.items() if fields.get("mark") == "three"]
    assert len(threes) == (3 if GAME.outcome(state).winner is not None else 0)  # type: ignore[union-attr]

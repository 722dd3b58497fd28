"""Trap!'s text notation (trap_env.trap.core): the start, ASCII boards, exact round trips,
malformed texts named, fuzzing, and one size range for the config and the text.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trap_env.trap.core
from tests.support.positions import playout
from tests.support.trap_boards import DECAYS, board
from trap_env.trap.core import (
    NO_PLAYER,
    GameConfig,
    State,
    from_text,
    initial_state,
    to_ascii,
    to_text,
)

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

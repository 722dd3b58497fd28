"""Trap!'s actions (trap_env.trap.core): the turn counter, what counts as an action, the
legal actions stated once, and the one-line errors for anything but a state or its arguments.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trap_env.trap.core
from tests.support.positions import playout
from trap_env.trap.core import (
    GameConfig,
    IllegalActionError,
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

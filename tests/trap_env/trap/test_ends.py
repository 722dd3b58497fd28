"""How a game of Trap! ends (trap_env.trap.core): a trap by a move or a throw, a player
without a move, the returns and the winner, the turn limit.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trap_env.trap.core
from tests.support.positions import playout
from tests.support.trap_boards import board, cell
from trap_env.trap.core import (
    GameConfig,
    IllegalActionError,
    Phase,
    apply,
    chance_outcomes,
    from_text,
    initial_state,
    is_terminal,
    legal_action_mask,
    legal_actions,
    mobility,
    returns,
    to_text,
    winner,
)

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

"""Best responses and certified values of small stochastic games with cycles against every
pair of pure stationary strategies, each pair's Markov chain solved exactly."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.stochastic_game import StochasticGame, best_response, certify, end_components

Spec = list[tuple[float | None, int, list[list[tuple[int, int]]]]]
"""Per state: its payoff (None: not absorbing), its owner, its actions (outcomes as
(target, weight))."""


def build(spec: Spec) -> StochasticGame:
    payoff, owner, state_of, action_of, target, odds = [], [], [], [], [], []
    for state, (pay, who, actions) in enumerate(spec):
        payoff.append(np.nan if pay is None else pay)
        owner.append(who)
        for outcomes in [] if pay is not None else actions:
            total = sum(weight for _, weight in outcomes)
            for to, weight in outcomes:
                action_of.append(len(state_of))
                target.append(to)
                odds.append(weight / total)
            state_of.append(state)
    return StochasticGame(
        np.array(payoff), np.array(owner, dtype=np.int64), np.array(state_of, dtype=np.int64),
        np.array(action_of, dtype=np.int64), np.array(target, dtype=np.int64), np.array(odds),
    )  # fmt: skip


def chain_values(game: StochasticGame, choice: np.ndarray) -> np.ndarray:
    """Player 0's expected payoff from each state when ``choice`` (an action per state)
    is played: 0 where no absorbing state can be reached, else the linear system."""
    n = game.states
    step = np.zeros((n, n))
    absorbing = ~np.isnan(game.payoff)
    for state in np.flatnonzero(~absorbing):
        outcome = game.action_of == choice[state]
        np.add.at(step[state], game.target[outcome], game.odds[outcome])
    reaches = absorbing.copy()
    for _ in range(n):
        reaches |= (step[:, reaches] > 0).any(axis=1)
    values = np.where(absorbing, np.nan_to_num(game.payoff), 0.0)
    open_ = reaches & ~absorbing
    if open_.any():
        inner = step[np.ix_(open_, open_)]
        exits = step[np.ix_(open_, absorbing)] @ game.payoff[absorbing]
        values[open_] = np.linalg.solve(np.eye(int(open_.sum())) - inner, exits)
    return values


def every_strategy(game: StochasticGame, player: int) -> list[np.ndarray]:
    ruled = [s for s in range(game.states) if game.owner[s] == player and np.isnan(game.payoff[s])]
    options = [np.flatnonzero(game.state_of == s) for s in ruled]
    found = []
    for picks in itertools.product(*options):
        strategy = np.full(game.states, -1, dtype=np.int64)
        strategy[ruled] = picks
        found.append(strategy)
    return found


def joined(first: np.ndarray, second: np.ndarray, game: StochasticGame) -> np.ndarray:
    return np.where(game.owner == 0, first, second)


@st.composite
def games(draw: st.DrawFn) -> StochasticGame:
    n = draw(st.integers(2, 6))
    spec: Spec = []
    for _ in range(n):
        if draw(st.booleans()) and draw(st.booleans()):
            spec.append((draw(st.sampled_from([-1.0, -0.5, 0.5, 1.0])), 0, []))
            continue
        outcome = st.tuples(st.integers(0, n - 1), st.integers(1, 3))
        actions = draw(st.lists(st.lists(outcome, min_size=1, max_size=3), min_size=1, max_size=2))
        spec.append((None, draw(st.integers(0, 1)), actions))
    return build(spec)


@settings(max_examples=40, deadline=None)
@given(games(), st.data())
def test_a_best_response_is_the_best_of_every_pure_stationary_one(
    game: StochasticGame, data: st.DataObject
) -> None:
    player = data.draw(st.integers(0, 1))
    fixed = data.draw(st.sampled_from(every_strategy(game, player)))
    replies = [chain_values(game, joined(r, fixed, game) if player == 1 else joined(fixed, r, game))
               for r in every_strategy(game, 1 - player)]  # fmt: skip
    best = np.max(replies, axis=0) if player == 1 else np.min(replies, axis=0)
    found = best_response(game, player, fixed)
    assert (found.low <= best + 1e-9).all() and (best <= found.high + 1e-9).all()
    assert np.allclose(found.low, found.high, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(games(), st.data())
def test_certified_bounds_hold_the_value_and_meet_on_it(
    game: StochasticGame, data: st.DataObject
) -> None:
    firsts, seconds = every_strategy(game, 0), every_strategy(game, 1)
    table = np.array([[chain_values(game, joined(f, s, game)) for s in seconds] for f in firsts])
    value = table.min(axis=1).max(axis=0)  # pure stationary strategies optimal from each state
    at = data.draw(st.integers(0, game.states - 1))
    given_ = (data.draw(st.sampled_from(firsts)), data.draw(st.sampled_from(seconds)))
    found = certify(game, given_, at)
    assert (found.low <= value + 1e-9).all() and (value <= found.high + 1e-9).all()
    if found.high[at] - found.low[at] <= 1e-12:
        assert found.low[at] == pytest.approx(value[at], abs=1e-9)


def test_play_that_cycles_is_worth_0_where_leaving_loses() -> None:
    # Two players pass the turn back and forth; who leaves loses 0.9 of the time. Any v
    # with v(0) = v(1) in [-0.8, 0.8] solves the equations; the value is 0 (pass forever).
    game = build([
        (None, 0, [[(1, 1)], [(2, 9), (3, 1)]]),  # player 0: pass, or leave
        (None, 1, [[(0, 1)], [(3, 9), (2, 1)]]),  # player 1: pass, or leave
        (-1.0, 0, []),
        (1.0, 0, []),
    ])  # fmt: skip
    assert list(end_components(game)) == [0, 0, -1, -1]
    passing = np.array([0, 2, -1, -1])
    for player in (0, 1):
        found = best_response(game, player, passing)
        assert list(found.low[:2]) == list(found.high[:2]) == [0.0, 0.0]
    found = certify(game, (passing, passing), 0)
    assert (found.low[0], found.high[0]) == (0.0, 0.0) and found.rounds == 0


def test_a_state_with_no_action_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match=r"^every non-absorbing state needs an action"):
        StochasticGame(
            np.array([np.nan]), np.array([0]), np.array([], dtype=np.int64),
            np.array([], dtype=np.int64), np.array([], dtype=np.int64), np.array([]),
        )  # fmt: skip

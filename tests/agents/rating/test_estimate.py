"""Tests for agents.rating.estimate: the interval that counts pairs and the rungs' covariance."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agents.rating.cards import read_card
from agents.rating.estimate import (
    LIKELIHOOD_RATIO,
    SLOPE,
    best_rating,
    estimate_rating,
    expected_score,
    round_robin_covariance,
)
from agents.rating.ladder import ANCHOR, Ladder, Rung, find_ladder
from agents.rating.run import estimate_of, rung_covariance
from tests.support.results_roots import card_of, write_card

RATINGS = [1000.0, 1200.0, 1400.0, 1600.0]
COVARIANCE = round_robin_covariance(RATINGS, 16, anchor=0)

SCORES = st.sampled_from([0.0, 0.5, 1.0])
paired_games = st.lists(st.tuples(st.integers(0, 3), SCORES, SCORES), min_size=1, max_size=30)
"""Pairs: the rung both games are against and the policy's two scores."""


def unpack(pairs: list[tuple[int, float, float]]) -> dict:
    """``estimate_rating``'s arguments for ``pairs``."""
    games = [(RATINGS[rung], score) for rung, *scores in pairs for score in scores]
    return {"games": games, "pairs": [k for k in range(len(pairs)) for _ in (0, 1)],
            "rungs": [rung for rung, *_ in pairs for _ in (0, 1)]}  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(paired_games, st.floats(0.0, 4.0))
def test_the_rungs_covariance_only_widens_the_interval_about_the_same_rating(pairs, scale):
    arguments = unpack(pairs)
    exact = estimate_rating(**arguments)
    scaled = tuple(tuple(scale * value for value in row) for row in COVARIANCE)
    loose = estimate_rating(**arguments, covariance=scaled)
    assert loose.rating == exact.rating
    if loose.rating is not None:
        assert loose.low < loose.rating < loose.high
        expected = sum(expected_score(loose.rating, r) for r, _ in arguments["games"])
        assert expected == pytest.approx(loose.score, abs=1e-3)
    for wide, narrow in ((exact.low, loose.low), (loose.high, exact.high)):
        assert (wide is None) == (narrow is None)
        if wide is not None:
            assert narrow <= wide + 0.02


def test_pairs_that_split_narrow_the_interval_and_pairs_that_agree_widen_it():
    """The same 50 wins and 50 losses against one rung: as 50 split pairs, as 25 pairs of
    two wins and 25 of two losses, and as games alone."""
    games = [(1500.0, 1.0), (1500.0, 0.0)] * 50
    alone = estimate_rating(games)
    split = estimate_rating(games, pairs=[k // 2 for k in range(100)])
    agreeing = estimate_rating(sorted(games), pairs=[k // 2 for k in range(100)])
    assert alone.rating == split.rating == agreeing.rating == pytest.approx(1500.0, abs=0.01)
    assert split.high - split.low < 0.5 * (alone.high - alone.low)
    # two games that agree are one game's information: about sqrt(2) wider
    ratio = (agreeing.high - agreeing.low) / (alone.high - alone.low)
    assert 1.3 < ratio < 1.5


def test_the_ladder_s_variance_adds_in_quadrature_with_the_games():
    games = [(1600.0, 1.0)] * 50 + [(1600.0, 0.0)] * 50
    sigma = 100.0
    estimate = estimate_rating(games, rungs=[0] * 100, covariance=((sigma**2,),))
    games_only = 1 / math.sqrt(SLOPE**2 * 100 * 0.25)  # the games' standard error: 34.7
    assert estimate.rating == pytest.approx(1600.0, abs=0.01)
    half = 1.959964 * math.hypot(games_only, sigma)
    assert estimate.high - estimate.rating == pytest.approx(half, rel=0.03)
    assert estimate.rating - estimate.low == pytest.approx(half, rel=0.03)


def test_a_one_sided_bound_expects_about_2_7_losses_and_moves_out_by_the_ladder_s_term():
    games = [(1500.0, 1.0)] * 20
    bound = estimate_rating(games).low
    losses = 20 * (1 - expected_score(bound, 1500.0))
    # the score test's bound: (20 q)^2 / (20 p q) = 1.645^2
    assert losses / expected_score(bound, 1500.0) == pytest.approx(1.644854**2, abs=1e-3)
    assert estimate_rating(games, method=LIKELIHOOD_RATIO).low > bound  # the old one: 1.35
    loose = estimate_rating(games, rungs=[0] * 20, covariance=((80.0**2,),))
    assert loose.low == pytest.approx(bound - 1.644854 * 80.0, abs=0.05)
    lost = estimate_rating([(1500.0, 0.0)] * 20, rungs=[0] * 20, covariance=((80.0**2,),))
    assert lost.high == pytest.approx(3000.0 - bound + 1.644854 * 80.0, abs=0.05)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"pairs": [0]}, r"pairs gives one value per game: 1 for 2"),
        ({"rungs": [0, 0, 0]}, r"rungs gives one value per game: 3 for 2"),
        ({"covariance": ((1.0,),)}, r"each game's rung is one of its rows, 0 to 0"),
        ({"rungs": [0, 1], "covariance": ((1.0,),)}, r"each game's rung is one of its rows"),
        ({"rungs": [0, 0], "covariance": ((1.0, 0.0),)}, r"a square matrix of finite numbers"),
        ({"rungs": [0, 0], "covariance": ((math.nan,),)}, r"a square matrix of finite numbers"),
        ({"rungs": [0, 0], "games": [(1000.0, 1.0), (1200.0, 0.0)]}, r"rung 0 is given two"),
        ({"method": "wald"}, r"an interval's method is one of"),
    ],
)
def test_the_estimate_refuses_pairs_rungs_a_covariance_or_a_method_that_are_not_one(
    arguments, message
):
    with pytest.raises(ValueError, match=message):
        estimate_rating(**({"games": [(1000.0, 1.0), (1000.0, 0.0)]} | arguments))


def test_a_round_robin_s_covariance_is_its_inverse_information_with_the_anchor_fixed():
    two = round_robin_covariance([1000.0, 1200.0], 16, anchor=0)
    chance = expected_score(1200.0, 1000.0)
    assert two[0] == (0.0, 0.0) and two[1][0] == 0.0
    assert two[1][1] == pytest.approx(1 / (SLOPE**2 * 17 * chance * (1 - chance)))
    many = round_robin_covariance(RATINGS, 16, anchor=2)
    assert all(many[2][i] == many[i][2] == 0.0 for i in range(4))
    assert all(many[i][j] == pytest.approx(many[j][i]) for i in range(4) for j in range(4))
    assert round_robin_covariance([1000.0], 16, anchor=0) == ((0.0,),)


def test_a_ladder_s_own_covariance_is_used_and_a_v1_ladder_s_is_its_round_robin_s():
    ladder = find_ladder("trap", version="v1")
    assert ladder.covariance is None
    implied = rung_covariance(ladder)
    assert implied == round_robin_covariance(
        [rung.rating for rung in ladder.rungs], ladder.calibration.games_per_pairing,
        ladder.specs.index(ANCHOR),
    )  # fmt: skip
    # each v1 rung is known to 70-120 points (one standard error) relative to random
    errors = sorted(math.sqrt(implied[i][i]) for i in range(len(ladder.rungs)))
    assert errors[0] == 0.0 and 70 < errors[1] < errors[-1] < 120
    own = Ladder("trap", "v2", ladder.params, 2, 7, (Rung(ANCHOR, 1000.0), Rung("greedy", 1400.0)),
                 covariance=((0.0, 0.0), (0.0, 400.0)))  # fmt: skip
    assert rung_covariance(own) == own.covariance


def test_a_card_s_estimate_scores_its_games_by_pair():
    ladder = Ladder("trap", "v2", {}, 2, 7, (Rung(ANCHOR, 1000.0), Rung("greedy", 1400.0)),
                    covariance=((0.0, 0.0), (0.0, 0.0)))  # fmt: skip
    # the policy wins from seat 0 and loses from seat 1: every pair splits
    records = [{"game_id": f"greedy #{n}", "pairing": ["p", "greedy"], "winner": 0}
               for n in range(40)]  # fmt: skip
    paired = estimate_of(ladder, records)
    alone = estimate_rating([(1400.0, 1.0 - n % 2) for n in range(40)])
    assert paired.rating == pytest.approx(1400.0, abs=0.01)
    assert paired.high - paired.low < 0.5 * (alone.high - alone.low)


def test_the_schedule_s_rating_is_the_estimate_s_and_infinite_when_every_game_went_one_way():
    games = [(1000.0, 1.0), (1400.0, 0.5), (1400.0, 0.0)]
    assert best_rating(games) == estimate_rating(games).rating
    assert best_rating([(1000.0, 1.0)] * 3) == math.inf
    assert best_rating([(1000.0, 0.0)]) == -math.inf
    assert math.isnan(best_rating([]))


TOP = find_ladder("trap", version="v2")
"""A ladder that publishes its covariance: near its top the rungs' part of an interval is
most of it."""


@settings(max_examples=20, deadline=None)
@example(results=[(3, 0, 0)])  # every game won: a lower bound
@example(results=[(0, 0, 2)])  # every game lost: an upper bound
@given(results=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 1), st.integers(0, 4)),
                        min_size=1, max_size=3).filter(lambda results: sum(map(sum, results))))
def test_a_card_s_interval_on_the_ladder_s_scale_is_its_games_alone_within_its_interval(
    results, tmp_path_factory
):
    """Results against the ladder's top rungs: the card's ``scale_low``/``scale_high`` are
    the estimate's with the rungs' ratings exact (no covariance: the games' one-sided bound
    when every game went one way), bounded where the full interval is, within it, and the
    card reads."""
    rungs = TOP.rungs[-len(results):]
    card = card_of(TOP, "p", {rung.spec: counts for rung, counts in zip(rungs, results,
                                                                        strict=True)})
    games = [(rung.rating, score) for rung, (wins, draws, losses) in zip(rungs, results,
                                                                         strict=True)
             for score in [1.0] * wins + [0.5] * draws + [0.0] * losses]  # fmt: skip
    alone = estimate_rating(games)  # card_of numbers its games apart: every one a pair alone
    rounded = [None if end is None else round(end, 1) for end in (alone.low, alone.high)]
    assert [card["scale_low"], card["scale_high"]] == rounded
    for full, scale, inward in ((card["low"], card["scale_low"], 1),
                                (card["high"], card["scale_high"], -1)):  # fmt: skip
        assert (full is None) == (scale is None)
        if full is not None:
            assert inward * (scale - full) >= -0.1  # the root's hundredth, then rounding
    assert read_card(write_card(tmp_path_factory.mktemp("card"), card)) == card


def test_near_the_top_of_a_v2_ladder_the_scale_s_interval_is_the_games_alone():
    """200 games split against the top rungs: about ±50 on the ladder's scale, where the
    rungs' errors (relative to random) widen the full interval past twice that."""
    rungs = TOP.rungs[-3:]
    card = card_of(TOP, "p", {rung.spec: (34, 0, 33) for rung in rungs[:2]}
                   | {rungs[2].spec: (33, 0, 33)})  # fmt: skip
    assert 40 < (card["scale_high"] - card["scale_low"]) / 2 < 60
    assert card["high"] - card["low"] > 2 * (card["scale_high"] - card["scale_low"])

"""Tests for agents.rating.fit: a staged ladder is fitted by maximum likelihood without a
prior, with the inverse information as covariance and each rung's errors among its
neighbours; rungs without a finite fit are named."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest

from agents.arena.plan import pairing_tasks
from agents.rating.fit import fit_calibration, fit_ratings, neighbour_errors
from agents.rating.ladder import ANCHOR, ANCHOR_RATING, load_ladder, new_ladder
from tests.support.calibration_games import WEAK, games_by_strength


def test_a_staged_ladder_is_fitted_without_a_prior_with_the_inverse_information_as_covariance(
    tmp_path: Path,
) -> None:
    ladder = new_ladder("trap", {"board_size": 4}, WEAK[:3], version=2, pair_games=2)
    records = [record for pair in itertools.pairwise(WEAK[:3]) for record in games_by_strength(
        pairing_tasks(pair, range(30), 1, paired_seeds=True), {pair[0]: 0, pair[1]: 1}
    )]  # a chain: each stronger neighbour wins 20 of 30
    ratings, covariance = fit_calibration(ladder, records)
    assert ratings[ANCHOR] == ANCHOR_RATING
    step = 400 * math.log10(2)  # the odds 2 to 1, with no virtual draw to squeeze them
    assert [ratings[spec] for spec in WEAK[:3]] == pytest.approx([1000, 1000 + step,
                                                                 1000 + 2 * step], abs=1e-6)
    assert fit_ratings(records)[WEAK[2]] < ratings[WEAK[2]]  # the virtual draws squeeze it
    information = 30 * (2 / 3) * (1 / 3) * (math.log(10) / 400) ** 2  # a pair's, per point^2
    variance = 1 / information  # of a difference of neighbours; along the chain, they add
    expected = [[0, 0, 0], [0, variance, variance], [0, variance, 2 * variance]]
    assert [value for row in covariance for value in row] == pytest.approx(
        [value for row in expected for value in row]
    )
    rated = ladder.with_ratings(ratings, ladder.calibration, covariance)
    one = math.sqrt(1 / information)
    assert neighbour_errors(rated) == {
        ANCHOR: (0.0, 0.0, 0.0),
        WEAK[1]: (pytest.approx(step, abs=0.1), pytest.approx(one, 1e-3),
                  pytest.approx(one / math.sqrt(2), 1e-3)),  # placed by both neighbours
        WEAK[2]: (pytest.approx(step, abs=0.1), pytest.approx(one, 1e-3),
                  pytest.approx(one, 1e-3)),
    }
    path = tmp_path / "ladder.json"
    path.write_text(rated.to_json())
    assert load_ladder("trap", path) == rated  # the covariance kept as written


def test_rungs_that_won_or_lost_every_game_have_no_finite_fit_and_are_named():
    ladder = new_ladder("trap", {"board_size": 4}, WEAK[:3], version=2, pair_games=2)
    tasks = [task for pair in itertools.combinations(WEAK[:3], 2)
             for task in pairing_tasks(pair, range(3), 1, paired_seeds=True)]  # fmt: skip
    records = games_by_strength(tasks, {spec: index for index, spec in enumerate(WEAK[:3])})
    top, bottom = WEAK[2], ANCHOR
    for record in records:
        if top in record["pairing"]:
            record["winner_spec"] = top
    with pytest.raises(ValueError, match=rf"^'{top}' won every game they played against "
                       rf"'random', '{WEAK[1]}', so"):  # fmt: skip
        fit_calibration(ladder, records)
    for record in records:
        if bottom in record["pairing"]:
            record["winner_spec"] = next(spec for spec in record["pairing"] if spec != bottom)
    with pytest.raises(ValueError, match=rf"^'{WEAK[1]}', '{top}' won every game they played "
                       "against 'random', so"):  # fmt: skip
        fit_calibration(ladder, records)
    records = games_by_strength(tasks, {spec: index for index, spec in enumerate(WEAK[:3])})
    for record in records:  # the middle rung loses every game; random takes points from top
        if WEAK[1] in record["pairing"]:
            record["winner_spec"] = next(spec for spec in record["pairing"] if spec != WEAK[1])
    with pytest.raises(ValueError, match=rf"^'{WEAK[1]}' lost every game they played against"):
        fit_calibration(ladder, records)

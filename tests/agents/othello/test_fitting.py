"""Fitting the Othello evaluation's weights: the terms against the evaluation, the fit
against known weights, the samples file read strictly."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.othello import fitting
from agents.othello.bitboards import geometry
from agents.othello.evaluation import Weights, evaluate_bitboards, terms
from tests.support.positions import random_game
from trap_env.othello import rules
from trap_env.othello.game import GAME

WEIGHTS = st.builds(
    Weights, *[st.floats(-50, 50, allow_nan=False).map(lambda v: round(v, 2))] * 6
)


@settings(max_examples=60)
@given(board_size=st.sampled_from([4, 6, 8, 10]), seed=st.integers(0, 2**32 - 1),
       weights=WEIGHTS)
def test_the_evaluation_is_the_weighted_sum_of_its_terms(
    board_size: int, seed: int, weights: Weights
) -> None:
    geo = geometry(board_size)
    for state in random_game(GAME, seed, board_size=board_size)[::3]:
        own, other = rules.sides_of(state, state.player)
        found = terms(geo, own, other)
        total = sum(getattr(weights, name) * value for name, value in found.items())
        moves = geo.placements(own, other), geo.placements(other, own)
        assert math.isclose(
            evaluate_bitboards(geo, own, other, *moves, weights), total, abs_tol=1e-6
        )


def positions(count: int, seed: int) -> list[rules.OthelloState]:
    """Positions of random 8x8 games with 20 to 51 discs."""
    found: list[rules.OthelloState] = []
    while len(found) < count:
        seed += 1
        found += [
            state for state in random_game(GAME, seed, board_size=8)
            if 20 <= (state.dark | state.light).bit_count() <= 51
        ]
    return found[:count]


def test_the_terms_of_planes_are_those_of_their_positions() -> None:
    states = positions(50, 0)
    planes = np.stack([GAME.observe(s, s.player) for s in states])
    expected = [
        [terms(geometry(8), *rules.sides_of(s, s.player))[name] for name in fitting.NAMES]
        for s in states
    ]
    assert fitting.planes_terms(planes).tolist() == expected


def test_the_fit_finds_the_weights_that_decided_the_results() -> None:
    truth = Weights(discs=1.0, mobility=8.0, frontier=3.0, corners=40.0, stability=6.0,
                    x_squares=20.0)
    states = positions(8000, 1)
    planes = np.stack([GAME.observe(s, s.player) for s in states])
    scores = fitting.planes_terms(planes) @ np.array(
        [getattr(truth, name) for name in fitting.NAMES]
    ) / 10.0
    rng = np.random.default_rng(0)
    values = np.where(rng.random(len(states)) < 1 / (1 + np.exp(-scores)), 1.0, -1.0)
    fitted, count = fitting.fit_weights(planes, values)
    assert count == len(states) and fitted.mobility == 8.0
    for name in fitting.NAMES:
        assert getattr(fitted, name) == pytest.approx(getattr(truth, name), rel=0.35, abs=1.0)


def test_samples_must_be_othello_planes_and_game_results(tmp_path: Path) -> None:
    states = positions(200, 2)
    planes = np.stack([GAME.observe(s, s.player) for s in states])
    results = np.array([random.Random(i).choice([-1.0, 1.0]) for i in range(200)], np.float32)
    np.savez(tmp_path / "mixed.npz", observations=planes, values=results * 0.5)
    with pytest.raises(ValueError, match="--imitation-value-mix 0"):
        fitting.read_samples(tmp_path / "mixed.npz")
    np.savez(tmp_path / "other.npz", observations=planes[..., :3], values=results)
    with pytest.raises(ValueError, match="not Othello's planes"):
        fitting.read_samples(tmp_path / "other.npz")
    np.savez(tmp_path / "none.npz", values=results)
    with pytest.raises(ValueError, match="holds no observations"):
        fitting.read_samples(tmp_path / "none.npz")
    with pytest.raises(ValueError, match="only 0 decided positions"):
        fitting.fit_weights(planes, np.zeros(200, np.float32))


def test_the_command_prints_a_spec_or_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    states = positions(400, 3)
    planes = np.stack([GAME.observe(s, s.player) for s in states])
    mobility = fitting.planes_terms(planes)[:, fitting.NAMES.index("mobility")]
    values = np.where(mobility + np.random.default_rng(1).normal(0, 4, len(states)) > 0, 1.0, -1.0)
    np.savez(tmp_path / "imitation.npz", observations=planes, values=values.astype(np.float32))
    assert fitting.main([str(tmp_path / "imitation.npz")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("400 positions; expectiminimax:discs=") and "mobility=8," in out
    assert fitting.main([str(tmp_path / "missing.npz")]) == 1
    assert capsys.readouterr().err.count("\n") == 1

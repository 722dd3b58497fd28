"""Trap!'s board laid out as a stochastic game: its one step is the solver's sweep."""

from __future__ import annotations

import numpy as np
import pytest

from agents.trap.certify import TrapGame
from agents.trap.solve import Placements, _sweep, _Transitions


@pytest.fixture(scope="module")
def places() -> Placements:
    return Placements.of(3)


@pytest.mark.parametrize("decay", [50])
def test_the_games_one_step_is_the_sweep(places: Placements, decay: int) -> None:
    trap = TrapGame.of(places, decay)
    moves = np.random.default_rng(decay).uniform(-1, 1, len(places))
    swept_moves, swept_throws = _sweep(moves, _Transitions.of(places, decay))
    throws = trap.best(trap.worth(np.concatenate([moves, np.zeros(len(places))])))
    assert np.allclose(throws[len(places) :], swept_throws, atol=1e-15)
    after = trap.best(trap.worth(np.concatenate([np.zeros(len(places)), swept_throws])))
    assert np.allclose(after[: len(places)], swept_moves, atol=1e-15)

"""The evaluation for arrays against the scalar one, position by position."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.trap.batched_evaluation import board_values, king_dilate, raw_scores
from agents.trap.evaluation import CLASSIC_WEIGHTS, DEFAULT_WEIGHTS, Evaluator, Weights, raw_score
from tests.support.positions import random_position
from trap_env.trap import batched as batched_trap
from trap_env.trap import kernel

WEIGHTS = [DEFAULT_WEIGHTS, CLASSIC_WEIGHTS, Weights(room=1.0, voronoi_decay=0.5, scale=3.0)]


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    board_size=st.integers(3, 8),
    weights=st.sampled_from(WEIGHTS),
)
def test_board_values_are_the_scalar_evaluations(
    seed: int, board_size: int, weights: Weights
) -> None:
    rng = random.Random(seed)
    states = [random_position(rng, board_size, rng.randrange(8 * board_size)) for _ in range(16)]
    batch = batched_trap.from_states(states)
    t = batched_trap.tables(board_size)
    cells = batch.cells
    values = board_values(t, batch.traps, cells[:, 0], cells[:, 1], weights)
    scores = raw_scores(t, batch.traps, cells[:, 0], cells[:, 1], weights)
    evaluator = Evaluator(weights)
    for state, value, score in zip(states, values.tolist(), scores.tolist(), strict=True):
        assert score == raw_score(state, 0, weights)  # the same operations in the same order
        assert abs(value - evaluator(state, 0)) <= 1e-15


@settings(max_examples=30)
@given(board_size=st.integers(3, 8), cells=st.integers(0, 2**64 - 1))
def test_king_dilate_is_the_kernels(board_size: int, cells: int) -> None:
    tables = kernel.geometry(board_size)
    cells &= tables.full
    got = king_dilate(board_size, np.array([cells], np.uint64))
    assert int(got[0]) == kernel.king_dilate(tables, cells)


def test_no_position_gives_no_values() -> None:
    t = batched_trap.tables(5)
    empty = np.zeros(0, np.int64)
    assert board_values(t, np.zeros(0, np.uint64), empty, empty).shape == (0,)

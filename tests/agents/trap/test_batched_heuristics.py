"""The batched one-ply heuristics against the scalar GreedyAgent: the same best actions."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.trap import heuristics
from agents.trap.batched_heuristics import BATCHED_HEURISTICS, BatchedGreedy, best_actions
from agents.trap.heuristics import GreedyAgent
from tests.support.positions import random_position
from trap_env.bits import cells_of
from trap_env.trap import batched as batched_trap
from trap_env.trap import core
from trap_env.trap.batched_env import TrapVectorEnv
from trap_env.trap.core import Phase, State


def _scalar_best(state: State, heuristic: str) -> list[int]:
    """GreedyAgent's set of best actions (what its generator chooses among)."""
    agent = GreedyAgent(heuristic)
    if state.phase is Phase.MOVE:
        scored = [
            (heuristics._score(core.apply(state, c), state.player, agent.heuristic), c)
            for c in core.legal_actions(state)
        ]
    else:
        scored = [(agent._throw_value(state, c), c) for c in heuristics._throw_targets(state)]
    best = max(value for value, _ in scored)
    return sorted(cell for value, cell in scored if value == best)


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**32 - 1),
    board_size=st.integers(3, 8),
    decay=st.sampled_from([50, 50, 0, 200]),
    heuristic=st.sampled_from(BATCHED_HEURISTICS),
)
def test_best_actions_are_the_scalar_agents(
    seed: int, board_size: int, decay: int, heuristic: str
) -> None:
    rng = random.Random(seed)
    steps = [rng.randrange(6 * board_size) for _ in range(12)]
    states = [random_position(rng, board_size, n, decay) for n in steps]
    t = batched_trap.tables(board_size, decay)
    best = best_actions(t, batched_trap.from_states(states), heuristic)
    for state, bits in zip(states, best.tolist(), strict=True):
        assert cells_of(bits) == _scalar_best(state, heuristic), core.to_text(state)


def test_greedy_specs_play_batched_in_the_env() -> None:
    envs = TrapVectorEnv(32, board_size=5, opponent={"greedy": 0.5, "ocls": 0.5})
    assert all(isinstance(o, BatchedGreedy) for o in envs._opponents)
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(40):
        masks = envs.action_masks()
        envs.step(np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks]))
    eval_env = TrapVectorEnv(2, board_size=5, opponent="greedy:heuristic=eval")
    assert not isinstance(eval_env._opponents[0], BatchedGreedy)


def test_unknown_batched_heuristic_is_refused() -> None:
    with pytest.raises(ValueError, match="batched heuristics are is, ais, ocls"):
        BatchedGreedy("eval")

"""The warm start: samples from a teacher's games (expert iteration's imitation).

Part of :mod:`agents.rl.alphazero`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from agents.base import make_agent
from agents.rl.alphazero.config import AlphaZeroConfig
from agents.rl.alphazero.replay import Samples, _SampleRecorder
from trap_env import core
from trap_env.core import Phase
from trap_env.observation import observe


def imitation_samples(
    teacher: str, num_games: int, config: AlphaZeroConfig, rng: random.Random,
    progress: Callable[[int], None] | None = None,
) -> Samples:
    """Samples of ``num_games`` games of ``teacher`` against itself (one-hot policies).

    Value targets mix the outcome and the teacher's reported value (``imitation_value_mix``).

    Each game opens with 0..``config.imitation_random_actions`` uniformly random actions
    (not recorded), so that the deterministic teacher's games differ.
    """
    agents = [make_agent(teacher, seed=rng.getrandbits(32)) for _ in range(2)]
    parts = []
    for _ in range(num_games):
        parts.append(_teacher_game(agents, config, rng))
        if progress is not None:
            progress(1)
    return Samples.concatenate(parts)


def _teacher_game(agents: list[Any], config: AlphaZeroConfig, rng: random.Random) -> Samples:
    for agent in agents:
        agent.reset(seed=rng.getrandbits(32))
    state = core.initial_state(config.game)
    recorder = _SampleRecorder()
    random_actions = rng.randint(0, config.imitation_random_actions)
    decisions = 0
    while core.outcome(state, config.turn_limit) is None:
        if decisions < random_actions:
            action = rng.choice(core.legal_actions(state))
        else:
            teacher = agents[state.player]
            action = teacher.select_action(state)
            policy = np.zeros(state.board_size ** 2)
            policy[action] = 1.0
            mask = np.array(core.legal_action_mask(state), np.bool_)
            recorder.add(observe(state, state.player), mask, policy, state.player,
                         _teacher_value(teacher))
        decisions += 1
        state = core.apply(state, action)
        if state.phase is Phase.LANDING:
            state = core.apply(state, core.sample_landing(state, rng))
    if not recorder.rows:
        return Samples.empty(config.board_size)
    return recorder.finish(state.winner, config.imitation_value_mix)


def _teacher_value(teacher: Any) -> float:
    """The teacher's own value of its choice, if it reports one (search agents do)."""
    stats = getattr(teacher, "last_search", None)
    value = getattr(stats, "value", 0.0)
    return max(-1.0, min(1.0, float(value)))

"""The warm start: samples from a teacher's games (expert iteration's imitation).

Part of :mod:`agents.rl.alphazero`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from agents.registry import make_agent
from agents.rl.alphazero.config import AlphaZeroConfig
from agents.rl.alphazero.replay import Samples, _SampleRecorder
from agents.rl.teacher import teacher_game
from trap_env.batched import NO_WINNER
from trap_env.game import Game


def imitation_samples(
    teacher: str,
    num_games: int,
    config: AlphaZeroConfig,
    rng: random.Random,
    progress: Callable[[int], None] | None = None,
) -> Samples:
    """Samples of ``num_games`` games of ``teacher`` against itself (one-hot policies).

    Value targets mix the outcome and the teacher's reported value (``imitation_value_mix``).

    Each game opens with 0..``config.imitation_random_actions`` uniformly random actions
    (not recorded), so that the deterministic teacher's games differ.
    """
    agents = [
        make_agent(teacher, game=config.game_name, seed=rng.getrandbits(32)) for _ in range(2)
    ]
    parts = []
    for _ in range(num_games):
        parts.append(_teacher_game(agents, config, rng))
        if progress is not None:
            progress(1)
    return Samples.concatenate(parts)


def _teacher_game(agents: list[Any], config: AlphaZeroConfig, rng: random.Random) -> Samples:
    for agent in agents:
        agent.reset(seed=rng.getrandbits(32))
    opening = rng.randint(0, config.imitation_random_actions)
    rules = config.rulebook
    teacher = _BySide(agents, rules)
    start = rules.initial_state(config.game)
    game = teacher_game(teacher, start, rng, config.turn_limit, opening, game=rules)
    if not game.labels:
        return Samples.empty(*config.sample_shapes)
    recorder = _SampleRecorder()
    for label in game.labels:
        state, player = label.state, rules.current_player(label.state)
        policy = np.zeros(config.sample_shapes[1])
        policy[label.action] = 1.0
        mask = np.array(rules.legal_action_mask(state), np.bool_)
        recorder.add(rules.observe(state, player), mask, policy, player, label.value)
    ended = rules.outcome(game.final, config.turn_limit)
    winner = NO_WINNER if ended is None or ended.winner is None else ended.winner
    return recorder.finish(winner, config.imitation_value_mix)


class _BySide:
    """Two agents as one teacher: each state goes to the agent of its player to act."""

    def __init__(self, agents: list[Any], game: Game[Any, Any]) -> None:
        self.agents = agents
        self.game = game
        self.last: Any = None

    def select_action(self, state: Any) -> int:
        self.last = self.agents[self.game.current_player(state)]
        return int(self.last.select_action(state))

    @property
    def last_search(self) -> Any:
        return getattr(self.last, "last_search", None)

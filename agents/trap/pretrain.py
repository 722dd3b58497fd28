"""Warm-start a PPO policy by imitating an agent (behaviour cloning), before PPO proper.

PPO from scratch learns Trap! slowly: the reward comes once, at the end of a game of
many decisions, and a near-uniform policy's throws rarely matter, so a long stretch of
training goes by before it even beats the random agent. Cloning a one-ply agent first
(``greedy``) starts PPO from a policy that plays as the teacher does, and a value head
fitted to the teacher's results; PPO then improves on it against the curriculum (as
AlphaGo's supervised policy preceded its self-play).

The data are games of the teacher against itself, where each side plays a random legal
action with probability ``epsilon`` so that the states are varied; every visited state
is labelled with the teacher's choice (also where a random action was played), and with
the final result from the acting player's side, discounted by the number of that
player's decisions left, as the value target.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch.nn import functional

from agents.registry import make_agent
from agents.rl.teacher import teacher_game
from trap_env.trap.core import GameConfig, State, initial_state, resolve_turn_limit
from trap_env.trap.game import GAME as TRAP
from trap_env.trap.observation import action_mask, observe

__all__ = ["ImitationData", "imitation_data", "pretrain"]


@dataclass
class ImitationData:
    """Observations, masks, the teacher's actions and value targets, one row per decision."""

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    values: np.ndarray

    def __len__(self) -> int:
        return len(self.actions)


def imitation_data(
    teacher: str,
    num_games: int,
    board_size: int = 7,
    max_turns: int | None = None,
    epsilon: float = 0.1,
    gamma: float = 0.99,
    seed: int = 0,
) -> ImitationData:
    """Play ``num_games`` games of ``teacher`` against itself and label every decision.

    Args:
        teacher: the agent spec to imitate.
        num_games: the number of games.
        board_size: N.
        max_turns: truncate games after this many turns (default ``4 * N * N``).
        epsilon: the probability that a side plays a random legal action instead.
        gamma: the discount of the value targets, per decision of the acting player.
        seed: seeds the games, the teacher and the random actions.
    """
    rng = random.Random(seed)
    limit = resolve_turn_limit(max_turns, board_size)
    agent = make_agent(teacher, game="trap", seed=rng.randrange(2**31))
    rows: list[tuple[np.ndarray, np.ndarray, int, int]] = []
    values: list[float] = []
    for _ in range(num_games):
        agent.reset(seed=rng.randrange(2**31))
        start = initial_state(GameConfig(board_size))
        game = teacher_game(agent, start, rng, limit, epsilon=epsilon, game=TRAP)
        game_rows = [_row(label.state, label.action) for label in game.labels]
        rows += game_rows
        values += _value_targets(game_rows, game.final.winner, gamma)
    return ImitationData(
        np.stack([row[0] for row in rows]),
        np.stack([row[1] for row in rows]),
        np.array([row[2] for row in rows], dtype=np.int64),
        np.array(values, dtype=np.float32),
    )


def _row(state: State, label: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    """A decision's observation, mask, the teacher's action and the player to act."""
    return observe(state, state.player), action_mask(state).astype(bool), label, state.player


def _value_targets(
    rows: list[tuple[np.ndarray, np.ndarray, int, int]], winner: int, gamma: float
) -> list[float]:
    left = [0, 0]  # decisions each player still makes after this one
    targets = [0.0] * len(rows)
    for index in range(len(rows) - 1, -1, -1):
        player = rows[index][3]
        outcome = 0.0 if winner < 0 else (1.0 if winner == player else -1.0)
        targets[index] = outcome * gamma ** left[player]
        left[player] += 1
    return targets


def pretrain(
    policy: Any,
    data: ImitationData,
    epochs: int = 5,
    batch_size: int = 256,
    learning_rate: float = 1e-3,
    seed: int = 0,
) -> list[float]:
    """Fit ``policy`` (a MaskableActorCriticPolicy) to the data: cross-entropy + value MSE.

    Returns:
        The mean cross-entropy of each epoch.
    """
    generator = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    losses = []
    for _ in range(epochs):
        order = generator.permutation(len(data))
        total = 0.0
        for start in range(0, len(order), batch_size):
            batch = order[start : start + batch_size]
            observations = torch.as_tensor(data.observations[batch])
            distribution = policy.get_distribution(observations, action_masks=data.masks[batch])
            cross_entropy = -distribution.log_prob(torch.as_tensor(data.actions[batch])).mean()
            values = policy.predict_values(observations).flatten()
            loss = cross_entropy + 0.5 * functional.mse_loss(
                values, torch.as_tensor(data.values[batch])
            )
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(cross_entropy.detach()) * len(batch)
        losses.append(total / len(data))
    policy.set_training_mode(False)
    return losses

"""Learning from samples: the symmetries of the square, a training step, a pass.

Part of :mod:`agents.rl.alphazero`.
"""

from __future__ import annotations

import numpy as np
import torch

from agents.rl.alphazero.net import AlphaZeroNet
from agents.rl.alphazero.replay import ReplayBuffer, Samples


def augment(samples: Samples, symmetry: int) -> Samples:
    """``samples`` turned by one of the square's eight symmetries (0: identity); the
    actions beyond the cells (Othello's pass) stay where they are."""
    n = samples.observations.shape[1]

    def turn(boards: np.ndarray) -> np.ndarray:
        boards = np.rot90(boards, symmetry % 4, axes=(1, 2))
        return boards[:, :, ::-1] if symmetry >= 4 else boards

    def turn_flat(actions: np.ndarray) -> np.ndarray:
        cells = np.ascontiguousarray(turn(actions[:, : n * n].reshape(-1, n, n)))
        return np.concatenate([cells.reshape(-1, n * n), actions[:, n * n :]], axis=1)

    return Samples(
        np.ascontiguousarray(turn(samples.observations)),
        turn_flat(samples.masks),
        turn_flat(samples.policies),
        samples.values,
    )


def train_step(
    net: AlphaZeroNet, optimizer: torch.optim.Optimizer, batch: Samples
) -> tuple[float, float]:
    """One gradient step on ``batch``; returns (policy loss, value loss)."""
    ones = np.ones((*batch.observations.shape[:3], 1), np.float32)
    planes = torch.from_numpy(np.concatenate([batch.observations.astype(np.float32), ones], -1))
    logits, values = net(planes)
    masks = torch.from_numpy(batch.masks)
    logits = logits.masked_fill(~masks, -1e9)
    targets = torch.from_numpy(batch.policies)
    policy_loss = -(targets * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
    value_loss = ((values - torch.from_numpy(batch.values)) ** 2).mean()
    optimizer.zero_grad()
    (policy_loss + value_loss).backward()
    optimizer.step()
    return policy_loss.item(), value_loss.item()


def fit(
    net: AlphaZeroNet,
    optimizer: torch.optim.Optimizer,
    buffer: ReplayBuffer,
    steps: int,
    batch_size: int,
    rng: np.random.Generator,
) -> tuple[float, float]:
    """``steps`` gradient steps on random, randomly turned minibatches; mean losses."""
    policy_total = value_total = 0.0
    for _ in range(steps):
        batch = augment(buffer.sample(rng, batch_size), int(rng.integers(8)))
        policy_loss, value_loss = train_step(net, optimizer, batch)
        policy_total += policy_loss
        value_total += value_loss
    return policy_total / max(steps, 1), value_total / max(steps, 1)

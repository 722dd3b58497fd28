"""The ``mcts`` agent's network in torch, the twin of :class:`agents.mcts.network.Network`.

Part of :mod:`agents.rl.alphazero`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from agents.mcts.batched import PlanesEvaluator
from agents.mcts.network import (
    IncompatibleNetworkError,
    Network,
    input_planes,
    load_network,
    policy_layout,
)
from agents.rl.alphazero.config import AlphaZeroConfig
from trap_env.game import Game


class _Block(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv2(torch.relu(self.conv1(x)))
        return torch.relu(x + y)


class AlphaZeroNet(nn.Module):
    """The torch twin of :class:`agents.mcts.network.Network` (same weight names and shapes).

    Args:
        game: the game it plays.
        config: its rules (``game.make_config``'s).
        channels: the trunk's features (see :mod:`agents.mcts.network`).
        blocks: the residual blocks.
        hidden: the value head's hidden units.
    """

    def __init__(
        self, game: Game[Any, Any], config: Any, channels: int, blocks: int, hidden: int
    ) -> None:
        super().__init__()
        self.rulebook = game
        self.game_name = game.name
        self.rules = game.config_params(config)
        per_cell, pooled = policy_layout(game, config)
        self.stem = nn.Conv2d(input_planes(game, config), channels, 3, padding=1)
        self.blocks = nn.ModuleList(_Block(channels) for _ in range(blocks))
        self.policy = nn.Conv2d(channels, per_cell, 1) if per_cell else None
        self.policy_extra = nn.Linear(channels, pooled) if pooled else None
        self.value_hidden = nn.Linear(channels, hidden)
        self.value_out = nn.Linear(hidden, 1)

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits ``(batch, num_actions)`` and values ``(batch,)`` of inputs
        ``(batch, rows, cols, planes)``; the logits are laid out as
        :func:`~agents.mcts.network.policy_layout` says (a cell's logits side by side)."""
        x = torch.relu(self.stem(planes.permute(0, 3, 1, 2)))
        for block in self.blocks:
            x = block(x)
        pooled = x.mean(dim=(2, 3))
        heads = []
        if self.policy is not None:
            heads.append(self.policy(x).permute(0, 2, 3, 1).flatten(1))
        if self.policy_extra is not None:
            heads.append(self.policy_extra(pooled))
        logits = torch.cat(heads, dim=1) if len(heads) > 1 else heads[0]
        hidden = torch.relu(self.value_hidden(pooled))
        values = torch.tanh(self.value_out(hidden)).squeeze(1)
        return logits, values

    def to_network(self) -> Network:
        """The weights as a NumPy :class:`~agents.mcts.network.Network`."""
        weights = {
            name: tensor.detach().cpu().numpy().astype(np.float32)
            for name, tensor in self.state_dict().items()
        }
        return Network(weights, len(self.blocks), self.game_name, dict(self.rules), self.rulebook)

    def evaluator(self) -> PlanesEvaluator:
        """The network as the batched search's evaluator (no gradients)."""

        def evaluate(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            with torch.no_grad():
                logits, values = self(torch.from_numpy(planes))
            return logits.numpy(), values.numpy()

        return evaluate


def build_net(config: AlphaZeroConfig) -> AlphaZeroNet:
    """A network of the run's size: random, or the weights of ``initial_network``.

    Raises:
        ValueError: (:class:`~agents.mcts.network.IncompatibleNetworkError`) if the initial
            network cannot be read or is of another size or game.
    """
    net = AlphaZeroNet(
        config.rulebook, config.game, config.channels, config.blocks, config.hidden
    )
    if config.initial_network is not None:
        start = load_network(config.initial_network)
        ours = {name: tuple(tensor.shape) for name, tensor in net.state_dict().items()}
        theirs = {name: array.shape for name, array in start.weights.items()}
        game = (start.game_name, dict(start.rules))
        if ours != theirs or game != (net.game_name, net.rules):
            raise IncompatibleNetworkError(
                f"{config.initial_network} is a network of {start.channels} channels and "
                f"{start.blocks} blocks for {start.describe()}; this run needs "
                f"channels={config.channels}, blocks={config.blocks}, hidden={config.hidden} "
                f"for {net.to_network().describe()}"
            )
        net.load_state_dict(
            {name: torch.from_numpy(array.copy()) for name, array in start.weights.items()}
        )
    return net

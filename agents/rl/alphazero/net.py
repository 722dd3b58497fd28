"""The ``mcts`` agent's network in torch, the twin of :class:`agents.mcts.network.Network`.

Part of :mod:`agents.rl.alphazero`.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from agents.mcts.batched import PlanesEvaluator
from agents.mcts.network import INPUT_PLANES, IncompatibleNetworkError, Network, load_network
from agents.rl.alphazero.config import AlphaZeroConfig
from trap_env.core import DEFAULT_DECAY


class _Block(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv2(torch.relu(self.conv1(x)))
        return torch.relu(x + y)


class AlphaZeroNet(nn.Module):
    """The torch twin of :class:`agents.mcts.network.Network` (same weight names and shapes)."""

    def __init__(
        self,
        board_size: int,
        channels: int,
        blocks: int,
        hidden: int,
        decay: int = DEFAULT_DECAY,
    ) -> None:
        super().__init__()
        self.board_size = board_size
        self.decay = decay
        self.stem = nn.Conv2d(INPUT_PLANES, channels, 3, padding=1)
        self.blocks = nn.ModuleList(_Block(channels) for _ in range(blocks))
        self.policy = nn.Conv2d(channels, 1, 1)
        self.value_hidden = nn.Linear(channels, hidden)
        self.value_out = nn.Linear(hidden, 1)

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits ``(batch, N*N)`` and values ``(batch,)`` of inputs ``(batch, N, N, 5)``."""
        x = torch.relu(self.stem(planes.permute(0, 3, 1, 2)))
        for block in self.blocks:
            x = block(x)
        logits = self.policy(x).flatten(1)
        hidden = torch.relu(self.value_hidden(x.mean(dim=(2, 3))))
        values = torch.tanh(self.value_out(hidden)).squeeze(1)
        return logits, values

    def to_network(self) -> Network:
        """The weights as a NumPy :class:`~agents.mcts.network.Network`."""
        weights = {
            name: tensor.detach().cpu().numpy().astype(np.float32)
            for name, tensor in self.state_dict().items()
        }
        return Network(self.board_size, weights, len(self.blocks), self.decay)

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
        config.board_size, config.channels, config.blocks, config.hidden, config.decay
    )
    if config.initial_network is not None:
        start = load_network(config.initial_network)
        ours = {name: tuple(tensor.shape) for name, tensor in net.state_dict().items()}
        theirs = {name: array.shape for name, array in start.weights.items()}
        game = (start.board_size, start.decay)
        if ours != theirs or game != (config.board_size, config.decay):
            raise IncompatibleNetworkError(
                f"{config.initial_network} is a network of {start.channels} channels and "
                f"{start.blocks} blocks for board {start.board_size} decay {start.decay}; "
                f"this run needs channels={config.channels}, blocks={config.blocks}, "
                f"hidden={config.hidden} for board {config.board_size} decay {config.decay}"
            )
        net.load_state_dict(
            {name: torch.from_numpy(array.copy()) for name, array in start.weights.items()}
        )
    return net

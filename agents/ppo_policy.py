"""The PPO policy's network: a small CNN over the N x N observation planes.

Why a CNN. Trap! is local and translation-invariant: what matters about a cell is the
traps and players within a king step or two of it (mobility, where a throw can land),
wherever on the board that happens. 3x3 convolutions share one small set of weights over
every cell, so the policy learns "a trap next to the opponent is good" once instead of
49 times, and three of them see a 7x7 neighbourhood, the whole default board. A final
linear layer over the feature map keeps where things are, which the flat action space
(one logit per cell) needs. An MLP over the flat planes learns the same thing far more
slowly; an attention model is more than a 7x7 board needs.

Two details:

* The observation is channel-last ``(N, N, planes)`` int8 (the env's layout); the
  extractor moves channels first and casts to float itself, so SB3 neither treats it as
  an image nor rescales it.
* A constant plane of ones is added before the convolutions. Zero padding then marks
  the board's edge (outside cells read 0 in that plane), which a move's mobility hinges
  on; without it an empty edge cell and an off-board cell look the same in the MOVE
  phase, whose phase plane is all zeros.

The network is deliberately small (about 0.25 M parameters at 7x7 with the defaults), so
that the shipped model zip, which also stores the optimiser state, stays a few MB.

This module imports torch; import it only when the ``rl`` extra is installed.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

__all__ = ["TrapCNN", "default_policy_kwargs"]


class TrapCNN(BaseFeaturesExtractor):
    """Convolutions over the board planes, then one linear layer to ``features_dim``.

    Args:
        observation_space: a ``Box`` of shape ``(N, N, planes)``, channel last.
        features_dim: the size of the feature vector fed to the policy and value heads.
        channels: the channels of every convolution.
        num_layers: the number of 3x3 convolutions (padding 1, so the map stays N x N).
    """

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        features_dim: int = 128,
        channels: int = 32,
        num_layers: int = 3,
    ) -> None:
        super().__init__(observation_space, features_dim)
        shape = observation_space.shape
        if len(shape) != 3 or shape[0] != shape[1]:
            raise ValueError(
                f"TrapCNN needs observations of shape (N, N, planes), got {shape}"
            )
        board_size, _, planes = shape
        layers: list[nn.Module] = []
        in_channels = planes + 1  # + the constant plane that marks the board's edge
        for _ in range(num_layers):
            layers += [nn.Conv2d(in_channels, channels, 3, padding=1), nn.ReLU()]
            in_channels = channels
        self.convolutions = nn.Sequential(*layers)
        self.head = nn.Sequential(
            nn.Flatten(), nn.Linear(channels * board_size * board_size, features_dim), nn.ReLU()
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        """Features of a batch of observations shaped ``(batch, N, N, planes)``."""
        planes = observations.float().permute(0, 3, 1, 2)
        board = torch.ones_like(planes[:, :1])
        return self.head(self.convolutions(torch.cat([planes, board], dim=1)))


def default_policy_kwargs(
    features_dim: int = 128, channels: int = 32, num_layers: int = 3, hidden: int = 128
) -> dict[str, Any]:
    """``policy_kwargs`` for MaskablePPO: the CNN, then one hidden layer per head."""
    return {
        "features_extractor_class": TrapCNN,
        "features_extractor_kwargs": {
            "features_dim": features_dim,
            "channels": channels,
            "num_layers": num_layers,
        },
        "net_arch": {"pi": [hidden], "vf": [hidden]},
    }

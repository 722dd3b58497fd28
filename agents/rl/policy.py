"""The PPO policy's network: a small fully convolutional net over the N x N planes.

Why convolutions. Trap! is local and translation-invariant: what makes a cell a good
move or a good throw target is the traps and players within a king step or two of it
(its mobility, where a throw aimed at it can land), wherever on the board that happens.
3x3 convolutions share one small set of weights over every cell, so "a trap next to the
opponent is good" is learnt once instead of 49 times, and four of them see a 9x9
neighbourhood: the whole default board from any cell.

Why a convolutional policy head. The actions are cells, so the policy's logits are a
1x1 convolution of the last feature map, one logit per cell (as in AlphaZero's policy
head): the score of a cell is computed the same way everywhere. SB3's default head, a
linear layer over the flattened features, would have to learn "throw next to the
opponent" separately for each of the opponent's 49 cells, with none of what it learns
for one cell carried over to another. The value head does need the whole board: it
is a small MLP over the flattened feature map.

Two details:

* The observation is channel-last ``(N, N, planes)`` int8 (the env's layout); the
  extractor moves channels first and casts to float itself, so SB3 neither treats it as
  an image nor rescales it.
* A constant plane of ones is added before the convolutions. Zero padding then marks
  the board's edge (outside cells read 0 in that plane), which a move's mobility hinges
  on; without it an empty edge cell and an off-board cell look the same in the MOVE
  phase, whose phase plane is all zeros.

The network is small (about 0.23 M parameters at 7x7 with the defaults, most of them in
the value MLP), so the model zip, which also stores the optimiser state, is a few MB.

This module imports torch; import it only when the ``rl`` extra is installed.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.type_aliases import Schedule
from torch import nn

__all__ = ["CellLogits", "TrapCNN", "TrapPolicy", "policy_kwargs"]

HEAD_GAIN = 1.0


class TrapCNN(BaseFeaturesExtractor):
    """3x3 convolutions over the board planes; the features are the flattened last map.

    Args:
        observation_space: a ``Box`` of shape ``(N, N, planes)``, channel last.
        channels: the channels of every convolution.
        num_layers: the number of 3x3 convolutions (padding 1, so the map stays N x N).
    """

    def __init__(
        self, observation_space: gym.spaces.Box, channels: int = 32, num_layers: int = 4
    ) -> None:
        shape = observation_space.shape
        if shape is None or len(shape) != 3 or shape[0] != shape[1]:
            raise ValueError(f"TrapCNN needs observations of shape (N, N, planes), got {shape}")
        board_size, _, planes = shape
        super().__init__(observation_space, channels * board_size * board_size)
        layers: list[nn.Module] = []
        in_channels = planes + 1  # + the constant plane that marks the board's edge
        for _ in range(num_layers):
            layers += [nn.Conv2d(in_channels, channels, 3, padding=1), nn.ReLU()]
            in_channels = channels
        self.convolutions = nn.Sequential(*layers, nn.Flatten())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        """The flattened ``(channels, N, N)`` feature map of a batch ``(batch, N, N, planes)``."""
        planes = observations.float().permute(0, 3, 1, 2)
        board = torch.ones_like(planes[:, :1])
        features: torch.Tensor = self.convolutions(torch.cat([planes, board], dim=1))
        return features


class CellLogits(nn.Module):
    """The policy head: a 1x1 convolution of the feature map, one logit per cell."""

    def __init__(self, channels: int, board_size: int) -> None:
        super().__init__()
        self.channels, self.board_size = channels, board_size
        self.score = nn.Conv2d(channels, 1, 1)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """Logits ``(batch, N*N)`` from flattened feature maps ``(batch, channels*N*N)``."""
        n = self.board_size
        logits: torch.Tensor = self.score(features.view(-1, self.channels, n, n)).flatten(1)
        return logits


class TrapPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's actor-critic with :class:`TrapCNN` and the :class:`CellLogits` head.

    Use it with ``net_arch={"pi": [], "vf": [...]}`` (see :func:`policy_kwargs`): the
    policy head reads the feature map itself, the value head an MLP over it.
    """

    def _build(self, lr_schedule: Schedule) -> None:
        super()._build(lr_schedule)
        extractor = self.features_extractor
        if not isinstance(extractor, TrapCNN) or self.mlp_extractor.latent_dim_pi != (
            extractor.features_dim
        ):
            raise ValueError(
                "TrapPolicy needs the TrapCNN features extractor and net_arch pi=[] so that "
                "its head sees the feature map; use agents.rl.policy.policy_kwargs()"
            )
        board_size = int(self.observation_space.shape[0])  # type: ignore[index]
        channels = extractor.features_dim // (board_size * board_size)
        self.action_net = CellLogits(channels, board_size)
        nn.init.orthogonal_(self.action_net.score.weight, gain=HEAD_GAIN)
        if self.action_net.score.bias is not None:
            nn.init.zeros_(self.action_net.score.bias)
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )


def policy_kwargs(channels: int = 32, num_layers: int = 4, hidden: int = 128) -> dict[str, Any]:
    """``policy_kwargs`` for ``MaskablePPO(TrapPolicy, ...)``: the CNN and the value MLP."""
    return {
        "features_extractor_class": TrapCNN,
        "features_extractor_kwargs": {"channels": channels, "num_layers": num_layers},
        "net_arch": {"pi": [], "vf": [hidden]},
    }

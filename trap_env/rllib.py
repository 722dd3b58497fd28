"""RLlib's PPO with action masking on every game: one registration (extra ``rllib``).

RLlib's action-masking route (its new API stack) wants a dict observation,
``{"observations": float32, "action_mask": float32}``, and its ``ActionMaskingTorchRLModule``,
which adds ``log(mask)`` to the policy's logits so that no illegal action is ever sampled.
:func:`make_env` gives a game's Gymnasium env in that shape (the planes flattened, so that
RLlib's default MLP encoder fits every board size), :func:`register` registers it with RLlib
under the Gymnasium id, and :func:`masked_ppo_config` is a ``PPOConfig`` with both set.
RLlib pins its own Gymnasium version: install it in an environment of its own.

Example (not run by the doctests: it needs ``pip install -e ".[rllib]"``)::

    from trap_env.rllib import masked_ppo_config

    config = masked_ppo_config("trap_env/Othello-v0", board_size=6)
    algo = config.build_algo()
    result = algo.train()
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

__all__ = ["RLlibObservation", "make_env", "masked_ppo_config", "register"]


class RLlibObservation(
    gym.ObservationWrapper[dict[str, np.ndarray], np.int64, dict[str, np.ndarray]]
):
    """A game's env whose observations are RLlib's masked dict: the flat float32 planes
    under ``"observations"``, the float32 action mask under ``"action_mask"``.

    Args:
        env: an env of this package made with ``mask_in_observation=True``.

    Raises:
        ValueError: for an env whose observations are not the planes-and-mask dict.
    """

    def __init__(self, env: gym.Env[dict[str, np.ndarray], np.int64]) -> None:
        super().__init__(env)
        space = env.observation_space
        if not (isinstance(space, spaces.Dict) and set(space) == {"observation", "action_mask"}):
            raise ValueError(
                "RLlibObservation wraps an env made with mask_in_observation=True (a dict of "
                f"'observation' and 'action_mask'), got an observation space {space}"
            )
        planes, mask = space["observation"], space["action_mask"]
        self.observation_space = spaces.Dict(
            {
                "observations": spaces.Box(0.0, 1.0, (spaces.flatdim(planes),), np.float32),
                "action_mask": spaces.Box(0.0, 1.0, mask.shape, np.float32),
            }
        )

    def observation(self, observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The planes flattened and the mask, both as float32."""
        return {
            "observations": observation["observation"].astype(np.float32).ravel(),
            "action_mask": observation["action_mask"].astype(np.float32),
        }


def make_env(env_id: str, **kwargs: Any) -> RLlibObservation:
    """The Gymnasium env ``env_id`` (``gymnasium.make``, with ``kwargs``) in RLlib's masked
    dict shape; ``kwargs`` are the env's own (``board_size=5``, ``opponent="greedy"``)."""
    return RLlibObservation(gym.make(env_id, mask_in_observation=True, **kwargs))


def register(env_id: str) -> str:
    """Register ``env_id`` with RLlib (``ray.tune.registry.register_env``) under the same
    name, making :func:`make_env` envs of it with the run's ``env_config`` as arguments.

    Raises:
        ValueError: if ``env_id`` is not a Gymnasium id of this package's games.
    """
    from ray.tune.registry import register_env

    from trap_env.games import entries

    ids = [entry.gym_id for entry in entries() if entry.gym_id is not None]
    if env_id not in ids:
        raise ValueError(f"unknown env id {env_id!r}; the games' ids: {', '.join(ids)}")
    register_env(env_id, lambda env_config: make_env(env_id, **env_config))
    return env_id


def masked_ppo_config(env_id: str, **env_kwargs: Any) -> Any:
    """A ``PPOConfig`` on ``env_id`` (registered by :func:`register`, made with
    ``env_kwargs``) with RLlib's ``ActionMaskingTorchRLModule``: PPO that never samples an
    illegal action. Chain RLlib's own settings on it (``.training(...)``,
    ``.env_runners(...)``).

    Raises:
        ValueError: if ``env_id`` is not a Gymnasium id of this package's games.
    """
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    return (
        PPOConfig()  # type: ignore[no-untyped-call]
        .environment(register(env_id), env_config=env_kwargs)
        .rl_module(rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule))
    )

"""RLlib's PPO with action masking on every game: one registration (extra ``rllib``).

RLlib's action-masking route (its new API stack) wants a dict observation,
``{"observations": float32, "action_mask": float32}``, and its ``ActionMaskingTorchRLModule``,
which adds ``log(mask)`` to the policy's logits so that no illegal action is ever sampled.
:func:`make_env` gives a game's Gymnasium env in that shape (the planes flattened, so that
RLlib's default MLP encoder fits every board size), :func:`register` registers it with RLlib
under the Gymnasium id, and :func:`masked_ppo_config` is a ``PPOConfig`` with both set.
RLlib pins its own Gymnasium version: install it in an environment of its own. The id and the
env's arguments are checked up front (:func:`check_env_arguments`, which needs no RLlib), so
that a bad one fails in one line when the config is made, not in RLlib's env runners.

Example (not run by the doctests: it needs ``pip install -e ".[rllib]"``)::

    from trap_env.rllib import masked_ppo_config

    config = masked_ppo_config("trap_env/Othello-v0", board_size=6)
    algo = config.build_algo()
    result = algo.train()
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from trap_env.game import played_params
from trap_env.games import GameEntry, entries, get_game

__all__ = [
    "RLlibObservation",
    "check_env_arguments",
    "make_env",
    "masked_ppo_config",
    "register",
]

SET_BY_MAKE_ENV = "mask_in_observation"
"""The env argument :func:`make_env` sets itself (RLlib's masked dict needs it True)."""


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
    dict shape; ``kwargs`` are the env's own (``board_size=5``, ``opponent="greedy"``).

    Raises:
        ValueError: for an id of no game of this package, and a value the env refuses.
        TypeError: for an argument the env does not take, and a value of a wrong type.
    """
    check_env_arguments(env_id, kwargs)
    try:
        env = gym.make(env_id, mask_in_observation=True, **kwargs)
    except TypeError as error:
        # Gymnasium restates an env's TypeError with every argument (chained with ``from``
        # in later releases, raised inside its ``except`` in RLlib's pinned 1.2.2): the
        # env's own error says it.
        original = error.__cause__ or error.__context__
        if isinstance(original, TypeError):
            raise original from None
        raise
    return RLlibObservation(env)


def check_env_arguments(env_id: str, kwargs: Mapping[str, Any]) -> None:
    """Refuse an id of no game of this package, and an argument its env does not take.

    The arguments an env takes are its entry point's and, where it takes rule parameters
    (``**params``), the game's (``board_size``, ``end_rule``...); ``game=`` names the id's
    own game (:mod:`trap_env.entry_points`); :data:`SET_BY_MAKE_ENV` is :func:`make_env`'s.

    Raises:
        ValueError: ``"unknown env id ...; the games' ids: ..."``.
        TypeError: ``"ID takes no argument 'NAME'; its arguments: ..."``.
    """
    entry = _entry_of_id(env_id)
    allowed = _env_arguments(entry)
    unknown = sorted(set(kwargs) - set(allowed))
    if unknown:
        raise TypeError(
            f"{env_id} takes no argument {unknown[0]!r}; its arguments: {', '.join(allowed)} "
            f"({SET_BY_MAKE_ENV} is make_env's own)"
        )


def _entry_of_id(env_id: object) -> GameEntry:
    """The entry of the game whose Gymnasium id is ``env_id``.

    Raises:
        ValueError: naming the games' ids.
    """
    by_id = {entry.gym_id: entry for entry in entries() if entry.gym_id is not None}
    entry = by_id.get(env_id) if isinstance(env_id, str) else None
    if entry is None:
        raise ValueError(f"unknown env id {env_id!r:.80}; the games' ids: {', '.join(by_id)}")
    return entry


def _env_arguments(entry: GameEntry) -> list[str]:
    """The keyword arguments ``make_env`` passes on to ``entry``'s env, sorted."""
    from trap_env.entry_points import BoundEntryPoint

    parameters = inspect.signature(BoundEntryPoint("env", entry.name).target).parameters
    names = {"game"} | {
        name
        for name, parameter in parameters.items()
        if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)
    }
    if any(parameter.kind is parameter.VAR_KEYWORD for parameter in parameters.values()):
        names |= set(played_params(get_game(entry.name)))  # the rule parameters
    return sorted(names - {SET_BY_MAKE_ENV})


def register(env_id: str) -> str:
    """Register ``env_id`` with RLlib (``ray.tune.registry.register_env``) under the same
    name, making :func:`make_env` envs of it with the run's ``env_config`` as arguments.

    Raises:
        ValueError: if ``env_id`` is not a Gymnasium id of this package's games.
    """
    _entry_of_id(env_id)
    from ray.tune.registry import register_env

    register_env(env_id, lambda env_config: make_env(env_id, **env_config))
    return env_id


def masked_ppo_config(env_id: str, **env_kwargs: Any) -> Any:
    """A ``PPOConfig`` on ``env_id`` (registered by :func:`register`, made with
    ``env_kwargs``) with RLlib's ``ActionMaskingTorchRLModule``: PPO that never samples an
    illegal action. Chain RLlib's own settings on it (``.training(...)``,
    ``.env_runners(...)``).

    The env is made once first (and closed), so that a bad id or argument fails here, in
    the env's own words, rather than when RLlib builds the algorithm.

    Raises:
        ValueError: for an id of no game of this package, and a value the env refuses.
        TypeError: for an argument the env does not take, and a value of a wrong type.
    """
    make_env(env_id, **env_kwargs).close()
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

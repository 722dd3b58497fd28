"""A stable-baselines3 ``VecEnv`` over a batched engine: MaskablePPO on B games in one process.

SB3 resets an ended game in the same step (the observation it returns is the next
episode's first, and ``infos[i]["terminal_observation"]`` holds the last one), so this
class drives a game's :class:`trap_env.batched_env.GameVectorEnv` with its autoreset
disabled and resets the ended games itself. ``env_method("action_masks")`` gives the masks that
MaskablePPO asks for, and it works under ``VecMonitor``.

Example:
    >>> from sb3_contrib import MaskablePPO
    >>> from stable_baselines3.common.vec_env import VecMonitor
    >>> envs = VecMonitor(BatchedVecEnv(64, game="trap", opponent="random"))
    >>> model = MaskablePPO("MlpPolicy", envs, n_steps=32)  # doctest: +SKIP
    >>> model.learn(10_000)  # doctest: +SKIP

This module needs the ``rl`` extra (torch, stable-baselines3, sb3-contrib).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import gymnasium as gym
import numpy as np
from numpy.typing import NDArray
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnv,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from agents.options import require_game
from trap_env.batched_env import GameVectorEnv, observation_of
from trap_env.gym_env import GameSyncVectorEnv

__all__ = ["BatchedVecEnv"]


class BatchedVecEnv(VecEnv):
    """B games of a game with a batched engine as one SB3 ``VecEnv`` (same-step reset).

    Args:
        num_envs: B.
        game: the game (its name or path), which must have a batched engine; required
            unless ``vector_env`` is given.
        vector_env: instead of building one, the vector env to drive (``make_vec``'s, with
            ``autoreset_mode="disabled"``; :func:`agents.rl.sb3.to_sb3` checks it).
        **env_kwargs: :class:`~trap_env.batched_env.GameVectorEnv`'s arguments
            (``opponent``, ``seat``, ``max_turns``, ``illegal_action``) and the game's rule
            parameters (``board_size``; Trap!'s ``decay``).

    Raises:
        TypeError: without ``game`` or ``vector_env``.

    ``seed(s)`` keys every game of the batch by ``s`` (SB3 hands each env ``s + index``;
    the batch needs only the first). ``env_method("set_opponent", x)`` accepts what the
    batched env's ``set_opponent`` accepts (``trap-train``'s ``OpponentMix`` among them:
    an agent that is a mix); the mix applies to the whole batch whatever ``indices`` say,
    as each game draws its opponent per episode.
    """

    def __init__(
        self,
        num_envs: int,
        *,
        game: str | None = None,
        vector_env: GameVectorEnv | GameSyncVectorEnv | None = None,
        **env_kwargs: Any,
    ) -> None:
        if vector_env is None:
            game = require_game(game, "BatchedVecEnv()")
            vector_env = GameVectorEnv(game, num_envs, autoreset_mode="disabled", **env_kwargs)
        self.env: GameVectorEnv | GameSyncVectorEnv = vector_env
        super().__init__(num_envs, self.env.single_observation_space, self.env.single_action_space)
        self._actions: NDArray[np.int64] = np.zeros(num_envs, np.int64)
        self._mix_key: tuple[Any, ...] | None = None

    # --- VecEnv API ------------------------------------------------------------------

    def reset(self) -> VecEnvObs:
        """Start new games everywhere (keyed by the last ``seed()``, if any)."""
        seed = self._seeds[0]
        observations, _ = self.env.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        """Remember the actions for :meth:`step_wait`.

        Raises:
            ValueError: unless ``actions`` are ``num_envs`` integers (floats are not cast).
        """
        array = np.asarray(actions)
        if not np.issubdtype(array.dtype, np.integer) or array.size != self.num_envs:
            raise ValueError(
                f"actions must be {self.num_envs} integers (one per game), got "
                f"{array.dtype} of shape {array.shape}"
            )
        self._actions = array.astype(np.int64).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        """Step every game; reset the ended ones at once (SB3's convention)."""
        observations, rewards, terminated, truncated, info = self.env.step(self._actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        ended = np.flatnonzero(dones)
        if len(ended):
            illegal, fault = info["illegal_action"], info["opponent_fault"]
            for game in ended.tolist():
                infos[game] = {
                    "terminal_observation": observation_of(observations, game),
                    "TimeLimit.truncated": bool(truncated[game] and not terminated[game]),
                    "illegal_action": bool(illegal[game]),
                    "opponent_fault": bool(fault[game]),
                }
            observations, _ = self.env.reset(options={"reset_mask": dones})
        return observations, rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        """Nothing to release (one process)."""
        self.env.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The batched env's attribute, once per index (every game shares it)."""
        value = getattr(self.env, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of the batched env (for every game: there is one env)."""
        setattr(self.env, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """Call a method of the batched env; ``action_masks`` gives one row per game."""
        games = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.env.action_masks()
            return list(masks[games])
        if method_name == "set_opponent":
            self._set_opponent(*method_args, **method_kwargs)
            return [None for _ in games]
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result for _ in games]

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        """No game is wrapped (there are no single envs)."""
        return [False for _ in self._get_indices(indices)]

    def action_masks(self) -> NDArray[np.bool_]:
        """The legal actions of every game, ``(B, N*N)`` bool."""
        return self.env.action_masks()

    # --- Opponents --------------------------------------------------------------------

    def _set_opponent(self, opponent: Any) -> None:
        mix = getattr(opponent, "mix", None)
        key = tuple(mix().items()) if callable(mix) else None
        if key is None or key != self._mix_key:  # trap-train sends one mix per index
            self.env.set_opponent(opponent)
        self._mix_key = key

    def _get_indices(self, indices: VecEnvIndices) -> Iterable[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return indices

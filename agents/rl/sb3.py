"""``make_vec``'s output for stable-baselines3: one call, :func:`to_sb3`.

Example:
    >>> import gymnasium, trap_env
    >>> from sb3_contrib import MaskablePPO
    >>> from stable_baselines3.common.vec_env import VecMonitor
    >>> from agents.rl.sb3 import to_sb3
    >>> envs = gymnasium.make_vec("trap_env/Othello-v0", num_envs=8, board_size=6,
    ...                           autoreset_mode="disabled")
    >>> model = MaskablePPO("MlpPolicy", VecMonitor(to_sb3(envs)), n_steps=32)  # doctest: +SKIP

``VecMonitor`` records each episode's reward and length for SB3's logger, which monitors a
single env itself but no ``VecEnv``. This module needs the ``rl`` extra (torch,
stable-baselines3, sb3-contrib).
"""

from __future__ import annotations

from gymnasium.vector import AutoresetMode

from agents.rl.batched_vec_env import BatchedVecEnv
from trap_env.batched_env import GameVectorEnv
from trap_env.checks import describe
from trap_env.gym_env import GameSyncVectorEnv

__all__ = ["to_sb3"]


def to_sb3(envs: GameVectorEnv | GameSyncVectorEnv) -> BatchedVecEnv:
    """An SB3 ``VecEnv`` (with ``action_masks()`` for MaskablePPO) over a vector env of ours.

    SB3 restarts an ended game in the step that ends it, with the last observation in
    ``infos[i]["terminal_observation"]``; the returned env does that itself, so ``envs``
    must leave ended games to it (``autoreset_mode="disabled"``): every action is applied
    and no step of a finished game reaches the learner.

    Args:
        envs: ``gymnasium.make_vec(id, num_envs=N, autoreset_mode="disabled", ...)`` of any
            of our ids (a batched env, or the sync env of a game without one).

    Raises:
        TypeError: for anything but a vector env of ours.
        ValueError: for a vector env with another autoreset mode.
    """
    if not isinstance(envs, GameVectorEnv | GameSyncVectorEnv):
        raise TypeError(
            "to_sb3 takes gymnasium.make_vec(id, num_envs=N, autoreset_mode='disabled') of a "
            f"trap_env id, got {describe(envs)}"
        )
    mode = envs.metadata["autoreset_mode"]
    if mode is not AutoresetMode.DISABLED:
        raise ValueError(
            "to_sb3 needs the vector env made with autoreset_mode='disabled' (it restarts "
            f"ended games itself, as SB3 expects), got {mode.name.lower()}: "
            "gymnasium.make_vec(id, num_envs=N, autoreset_mode='disabled')"
        )
    return BatchedVecEnv(envs.num_envs, vector_env=envs)

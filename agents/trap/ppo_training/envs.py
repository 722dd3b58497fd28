"""The envs a PPO run trains and evaluates in: batched, or single envs in a vec env.

Part of :mod:`agents.trap.ppo_training`.
"""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
import torch
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecMonitor

import trap_env  # noqa: F401  (registers trap_env/Trap-v0)
from agents.rl.batched_vec_env import BatchedVecEnv
from agents.trap.ppo_training.config import TrainConfig
from agents.trap.ppo_training.shaping import MobilityShaping
from trap_env.agent import Agent
from trap_env.trap.batched import MAX_BOARD_SIZE

ENV_ID = "trap_env/Trap-v0"


def make_env_factory(
    config: TrainConfig, opponent: Agent | str, seed: int, shaping: float = 0.0
) -> Callable[[], gym.Env]:
    """A picklable function that builds one monitored env (for the vec env workers)."""

    def build() -> gym.Env:
        torch.set_num_threads(1)  # one torch thread per worker process
        env = gym.make(
            ENV_ID, opponent=opponent, board_size=config.board_size, max_turns=config.max_turns
        )
        env.reset(seed=seed)
        env.action_space.seed(seed)
        monitored = Monitor(env)
        return MobilityShaping(monitored, shaping, config.gamma) if shaping else monitored

    return build


def make_vec_env(config: TrainConfig, seed_offset: int = 0) -> VecEnv:
    """``config.num_envs`` training games, opponent set later.

    By default (``batched``) one batched env in this process
    (:class:`agents.rl.batched_vec_env.BatchedVecEnv` under ``VecMonitor``, ``num_envs`` games).
    Otherwise, and with reward shaping or a board over the batched engine's limit, single
    envs: ``SubprocVecEnv`` (``subprocess``) or ``DummyVecEnv``, each with its own seed.
    """
    if config.batched and config.shaping == 0 and config.board_size <= MAX_BOARD_SIZE:
        envs = BatchedVecEnv(
            config.num_envs,
            game="trap",
            board_size=config.board_size,
            max_turns=config.max_turns,
        )
        envs.seed(config.seed + seed_offset)
        return VecMonitor(envs)
    factories = [
        make_env_factory(
            config, "random", config.seed + seed_offset + 1000 * index, config.shaping
        )
        for index in range(config.num_envs)
    ]
    if config.subprocess and config.num_envs > 1:
        return SubprocVecEnv(factories)
    return DummyVecEnv(factories)


EVAL_GAMES_AT_ONCE = 50
"""The batched evaluation env plays this many games at once (or ``eval_episodes``)."""


def make_eval_env(config: TrainConfig) -> VecEnv:
    """The env of the periodic evaluation against ``config.eval_opponent``.

    Batched as the training envs are (``eval_episodes`` games at once, up to
    :data:`EVAL_GAMES_AT_ONCE`; an opponent with a batched twin, ``expectiminimax:depth=D``
    among them, plays them all at once), else one single env.
    """
    seed = config.seed + 999_983
    if config.batched and config.shaping == 0 and config.board_size <= MAX_BOARD_SIZE:
        envs = BatchedVecEnv(
            min(config.eval_episodes, EVAL_GAMES_AT_ONCE),
            opponent=config.eval_opponent,
            board_size=config.board_size,
            max_turns=config.max_turns,
            game="trap",
        )
        envs.seed(seed)
        return VecMonitor(envs)
    return DummyVecEnv([make_env_factory(config, config.eval_opponent, seed)])

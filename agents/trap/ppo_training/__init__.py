"""Train a MaskablePPO policy for Trap! against a curriculum of opponents.

The learner plays ``trap_env/Trap-v0`` (one step = one of its decisions; the opponent
plays inside the env), ``num_envs`` games at once on the batched engine
(:class:`agents.rl.batched_vec_env.BatchedVecEnv`), or with ``batched=False`` one single env
per process (``SubprocVecEnv``, one torch thread each).
What it plays against is a curriculum: a list of stages, each a mix of agent specs
(``"random"``, ``"greedy"``, ``"expectiminimax:depth=1"``), switched as the step count
passes each stage's share of the budget. Optionally, frozen snapshots of the learner
join the mix (a self-play pool).

A run lives in one folder: ``config.json`` (the exact :class:`TrainConfig`),
``checkpoints/``, ``pool/`` (self-play snapshots), ``best/best_model.zip`` (the best
model of the periodic evaluation against ``eval_opponent``), ``eval/`` (its log),
``final_model.zip``, and ``tb/`` (TensorBoard logs, when tensorboard is installed).

Example:
    >>> config = TrainConfig(run_dir="runs/demo", total_timesteps=200_000,
    ...                      stages=[["random"], ["greedy", "random"]])
    >>> train(config)  # doctest: +SKIP

This package needs the ``rl`` extra (torch, stable-baselines3, sb3-contrib).
"""

from agents.trap.ppo_training.callbacks import DivergedError
from agents.trap.ppo_training.checkpoints import checkpoints_newest_first, latest_checkpoint
from agents.trap.ppo_training.config import CONFIG_FILE, FIXED_ON_RESUME, TrainConfig, stage_at
from agents.trap.ppo_training.envs import make_eval_env, make_vec_env
from agents.trap.ppo_training.opponents import OpponentMix
from agents.trap.ppo_training.run import TrapPPO, train
from agents.trap.ppo_training.shaping import MobilityShaping

__all__ = [
    "CONFIG_FILE",
    "FIXED_ON_RESUME",
    "DivergedError",
    "MobilityShaping",
    "OpponentMix",
    "TrainConfig",
    "TrapPPO",
    "checkpoints_newest_first",
    "latest_checkpoint",
    "make_eval_env",
    "make_vec_env",
    "stage_at",
    "train",
]

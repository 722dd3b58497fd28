"""MaskablePPO learn and rollout rates: the batched SB3 VecEnv against SubprocVecEnv."""

from __future__ import annotations

import time
from typing import Any

from trap_scripts.benchmarks._shared import Figure


def ppo_learn_rates(envs: Any, n_steps: int, timesteps: int) -> tuple[float, float]:
    """MaskablePPO on ``envs`` (trap-train's default network, one epoch per rollout): the
    ``learn`` steps/s, and the steps/s of its rollouts alone (policy and env, no update)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from agents.rl.policy import TrapPolicy, policy_kwargs

    class RolloutClock(BaseCallback):
        seconds = 0.0
        started = 0.0

        def _on_rollout_start(self) -> None:
            self.started = time.perf_counter()

        def _on_rollout_end(self) -> None:
            self.seconds += time.perf_counter() - self.started

        def _on_step(self) -> bool:
            return True

    rollout = n_steps * envs.num_envs
    model = MaskablePPO(
        TrapPolicy,
        envs,
        n_steps=n_steps,
        batch_size=min(256, rollout),
        n_epochs=1,
        policy_kwargs=policy_kwargs(32, 4, 128),
        device="cpu",
        seed=0,
    )
    clock = RolloutClock()
    start = time.perf_counter()
    model.learn(timesteps, callback=clock)
    elapsed = time.perf_counter() - start
    return model.num_timesteps / elapsed, model.num_timesteps / clock.seconds


def ppo_figures(timesteps: int, batch: int = 256, processes: int = 2) -> list[Figure]:
    """MaskablePPO learn and rollout steps/s: the batched SB3 VecEnv against
    SubprocVecEnv over single envs, same run, same rollout size."""
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv, VecMonitor

    from agents.rl.batched_vec_env import BatchedVecEnv

    rollout = max(timesteps // 4, batch)  # four updates per measurement
    batched = VecMonitor(BatchedVecEnv(batch, opponent="random", game="trap"))
    batched_rates = ppo_learn_rates(batched, max(rollout // batch, 1), timesteps)
    # "module:id" makes each worker process import trap_env, which registers the id.
    subprocess_envs = make_vec_env(
        "trap_env:trap_env/Trap-v0", n_envs=processes, seed=0, vec_env_cls=SubprocVecEnv
    )
    try:
        single_rates = ppo_learn_rates(subprocess_envs, rollout // processes, timesteps)
    finally:
        subprocess_envs.close()
    figures = []
    for index, what in enumerate(("learn", "rollouts")):
        figures += [
            Figure(f"ppo {what}: BatchedVecEnv B={batch}", batched_rates[index], "steps/s"),
            Figure(
                f"ppo {what}: SubprocVecEnv, {processes} Gym envs", single_rates[index], "steps/s"
            ),
            Figure(
                f"ppo {what}: batched / SubprocVecEnv",
                batched_rates[index] / single_rates[index],
                "ratio",
            ),
        ]
    return figures

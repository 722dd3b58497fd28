"""The SB3 callbacks of a PPO run: curriculum and self-play pool, divergence, progress.

Part of :mod:`agents.trap.ppo_training`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from stable_baselines3.common.callbacks import BaseCallback
from tqdm.auto import tqdm

from agents.trap.ppo_training.checkpoints import _readable_snapshots
from agents.trap.ppo_training.config import TrainConfig, stage_at
from agents.trap.ppo_training.opponents import OpponentMix


class CurriculumCallback(BaseCallback):
    """Switches the envs' opponents between stages, and keeps the self-play pool.

    Every ``snapshot_every`` steps (with self-play on) it saves the learner to
    ``pool/`` and gives the envs new mixes that include the latest ``pool_size``
    snapshots. A resumed run starts from the latest ``pool_size`` snapshots in ``pool/``
    that read whole (a damaged one is reported and left out).
    """

    def __init__(self, config: TrainConfig, pool_dir: Path) -> None:
        super().__init__()
        self.config = config
        self.pool_dir = pool_dir
        self.stage = -1
        self.pool = _readable_snapshots(pool_dir, config.pool_size)
        self.next_snapshot = 0

    def _on_training_start(self) -> None:
        every = self.config.snapshot_every
        self.next_snapshot = (self.num_timesteps // every + 1) * every
        self._update(force=True)

    def _on_step(self) -> bool:
        if self.config.self_play_fraction > 0 and self.num_timesteps >= self.next_snapshot:
            self._snapshot()
            self._update(force=True)
        else:
            self._update(force=False)
        return True

    def _snapshot(self) -> None:
        path = self.pool_dir / f"snapshot_{self.num_timesteps}.zip"
        self.model.save(path)
        self.pool = [*self.pool, str(path)][-self.config.pool_size :]
        self.next_snapshot += self.config.snapshot_every

    def _update(self, force: bool) -> None:
        stage = stage_at(self.config, self.num_timesteps)
        if stage == self.stage and not force:
            return
        self.stage = stage
        specs = self.config.stages[stage]
        envs = self.training_env
        for index in range(envs.num_envs):
            seed = self.config.seed + 7919 * (index + 1) + 104_729 * stage + self.num_timesteps
            mix = OpponentMix(specs, self.pool, self.config.self_play_fraction, seed=seed)
            envs.env_method("set_opponent", mix, indices=[index])
        if self.verbose or self.logger is not None:
            self.logger.record("curriculum/stage", stage)
            self.logger.record("curriculum/pool_size", len(self.pool))


class DivergedError(ValueError):
    """Training made the policy's weights NaN or infinite."""


class DivergenceCallback(BaseCallback):
    """Stops the run when the policy's weights stop being finite, naming it as such.

    Checked before each rollout (after each update), so that no step is played, and no
    checkpoint saved, with a diverged network; the checks draw no random numbers.
    """

    def _on_rollout_start(self) -> None:
        if all(bool(torch.isfinite(p).all()) for p in self.model.policy.parameters()):
            return
        raise DivergedError(
            f"the network diverged after {self.num_timesteps} steps: its outputs are not "
            "finite (NaN or infinite weights); resume from the last checkpoint with a lower "
            "--learning-rate"
        )

    def _on_step(self) -> bool:
        return True


class ProgressBarCallback(BaseCallback):
    """A tqdm bar over the run's learner steps (SB3's own bar needs ``rich``)."""

    def __init__(self, total: int) -> None:
        super().__init__()
        self.total = total
        self.bar: Any = None

    def _on_training_start(self) -> None:
        self.bar = tqdm(
            total=self.total, initial=self.num_timesteps, unit="step", mininterval=2.0
        )

    def _on_step(self) -> bool:
        self.bar.update(self.num_timesteps - self.bar.n)
        return True

    def _on_training_end(self) -> None:
        self.bar.close()

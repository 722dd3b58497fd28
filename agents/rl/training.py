"""Train a MaskablePPO policy for Trap! against a curriculum of opponents.

The learner plays ``trap_env/Trap-v0`` (one step = one of its decisions; the opponent
plays inside the env), ``num_envs`` games at once on the batched engine
(:class:`agents.rl.batched_vec_env.TrapBatchedVecEnv`), or with ``batched=False`` one single env
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

This module needs the ``rl`` extra (torch, stable-baselines3, sb3-contrib).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import json
import random
import re
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
from stable_baselines3.common.callbacks import BaseCallback, CallbackList, CheckpointCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecMonitor
from tqdm.auto import tqdm

import trap_env  # noqa: F401  (registers trap_env/Trap-v0)
from agents.files import (
    DamagedRunFileError,
    check_writable_folder,
    replace_atomically,
    write_text_atomically,
)
from agents.registry import make_agent
from agents.rl.batched_vec_env import TrapBatchedVecEnv
from agents.rl.policy import TrapPolicy, policy_kwargs
from agents.rl.ppo import IncompatibleModelError, read_model_spec, read_parameters
from agents.rl.settings import Rule, check_fields, is_number, is_text, load_record
from agents.seeded import SeededAgent
from trap_env.agent import Agent, check_supports
from trap_env.batched_trap import MAX_BOARD_SIZE
from trap_env.core import Cell, GameConfig, State, mobility

__all__ = [
    "FIXED_ON_RESUME",
    "DivergedError",
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

ENV_ID = "trap_env/Trap-v0"
CONFIG_FILE = "config.json"
FIXED_ON_RESUME = (
    "board_size", "channels", "num_layers", "hidden",
    "pretrain_teacher", "pretrain_games", "pretrain_epochs", "pretrain_learning_rate",
)
"""The settings a resumed run cannot change: its network's shape and the warm start done
at its beginning."""


class TrapPPO(MaskablePPO):
    """MaskablePPO whose every save (checkpoints, snapshots, best and final models) is
    atomic: a run killed while saving leaves the previous file whole."""

    def save(self, path: Any, exclude: Any = None, include: Any = None) -> None:
        """Save as MaskablePPO does (``.zip`` added to a path without a suffix), atomically."""
        if not isinstance(path, str | Path):  # a file object: the caller owns it
            super().save(path, exclude, include)
            return
        target = Path(path) if Path(path).suffix else Path(f"{path}.zip")
        replace_atomically(target, lambda temporary: super(TrapPPO, self).save(
            temporary, exclude, include))


@dataclass
class TrainConfig:
    """Everything that defines a training run; saved as ``config.json`` in the run folder.

    Attributes:
        run_dir: the run folder (created; a new run refuses a folder that has a config).
        total_timesteps: learner decisions to train for, over all envs.
        stages: the curriculum: stage ``i`` is a list of agent specs played in equal
            shares (repeat a spec to weight it); the stages split the budget evenly
            unless ``stage_fractions`` says otherwise.
        stage_fractions: where each stage starts, as a fraction of ``total_timesteps``
            (first 0.0, increasing); empty for an even split.
        self_play_fraction: the share of games played against a frozen snapshot of the
            learner once the pool has one (0 disables self-play).
        shaping: the weight of the mobility-margin reward shaping (0 disables it; see
            :class:`MobilityShaping`).
        pretrain_teacher: the agent spec that the policy imitates before PPO starts.
        pretrain_games: the number of teacher games to imitate (0: no warm start; see
            :mod:`agents.rl.pretrain`).
        pretrain_epochs, pretrain_learning_rate: the imitation's epochs and step size.
        snapshot_every: learner steps between two snapshots added to the pool.
        pool_size: the number of most recent snapshots kept in the pool.
        board_size: N.
        max_turns: the env's truncation limit (None: its default, 4 * N * N).
        num_envs: the number of games played at once (see :func:`make_vec_env`).
        batched: play them in one batched env (:mod:`agents.rl.batched_vec_env`); False uses single
            envs, as reward shaping and boards over 8x8 always do.
        subprocess: run the envs in subprocesses (``SubprocVecEnv``); False runs them in
            this process (``DummyVecEnv``), which is faster for tiny runs and tests.
        seed: seeds the learner, every env and every opponent.
        learning_rate: MaskablePPO's learning rate; ``n_steps`` (per env), ``batch_size``,
            ``n_epochs``, ``gamma``, ``gae_lambda``, ``clip_range``, ``ent_coef`` and
            ``vf_coef`` are its other hyperparameters, under SB3's names.
        channels: the network's width; ``num_layers`` and ``hidden`` are its depth and
            the value head's size (see :mod:`agents.rl.policy`).
        eval_opponent: the agent spec of the periodic evaluation.
        eval_every: learner steps between evaluations (0 disables them).
        eval_episodes: games per evaluation (seats random).
        checkpoint_every: learner steps between checkpoints.
        torch_threads: torch threads in the learner process (workers always use one).
        progress_bar: show a tqdm bar.
    """

    run_dir: str
    total_timesteps: int = 1_000_000
    stages: list[list[str]] = field(default_factory=lambda: [["random"], ["greedy"]])
    stage_fractions: list[float] = field(default_factory=list)
    self_play_fraction: float = 0.0
    shaping: float = 0.0
    pretrain_teacher: str = "greedy"
    pretrain_games: int = 0
    pretrain_epochs: int = 8
    pretrain_learning_rate: float = 1e-3
    snapshot_every: int = 100_000
    pool_size: int = 5
    board_size: int = 7
    max_turns: int | None = None
    num_envs: int = 2
    batched: bool = True
    subprocess: bool = True
    seed: int = 0
    learning_rate: float = 3e-4
    n_steps: int = 1024
    batch_size: int = 256
    n_epochs: int = 4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    channels: int = 32
    num_layers: int = 4
    hidden: int = 128
    eval_opponent: str = "greedy"
    eval_every: int = 50_000
    eval_episodes: int = 100
    checkpoint_every: int = 100_000
    torch_threads: int = 1
    progress_bar: bool = True

    def __post_init__(self) -> None:
        """Check every field's type and range, so that a bad config fails before a run starts.

        Raises:
            ValueError: naming the first field that is wrong and what it must be.
        """
        check_fields(self, _FIELD_RULES, _OPTIONAL)
        if (
            not isinstance(self.stages, list)
            or not self.stages
            or not all(
                isinstance(stage, list) and stage and all(is_text(spec) for spec in stage)
                for stage in self.stages
            )
        ):
            raise ValueError(
                f"stages must be a non-empty list of non-empty lists of agent specs, "
                f"got {self.stages!r:.100}"
            )
        fractions = self.stage_fractions
        if not isinstance(fractions, list) or not all(is_number(f) for f in fractions):
            raise ValueError(f"stage_fractions must be a list of numbers, got {fractions!r:.100}")
        if fractions and (
            len(fractions) != len(self.stages)
            or fractions[0] != 0.0
            or any(b <= a for a, b in itertools.pairwise(fractions))
            or fractions[-1] >= 1.0
        ):
            raise ValueError(
                f"stage_fractions must give one increasing start in [0, 1) per stage, the "
                f"first 0.0; got {fractions} for {len(self.stages)} stages"
            )
        if not 0.0 <= self.self_play_fraction < 1.0:
            raise ValueError(
                f"self_play_fraction must be in [0, 1), got {self.self_play_fraction}"
            )
        GameConfig(self.board_size)
        rollout = self.n_steps * self.num_envs
        if not 2 <= self.batch_size <= rollout or rollout % self.batch_size:
            raise ValueError(
                f"batch_size must be at least 2 and divide the rollout of n_steps * num_envs "
                f"= {self.n_steps} * {self.num_envs} = {rollout} steps (for instance "
                f"{_divisors_text(rollout)}); got {self.batch_size}"
            )

    def save(self, path: Path) -> None:
        """Write the config as JSON (atomically: a killed run leaves the old file whole)."""
        write_text_atomically(path, json.dumps(dataclasses.asdict(self), indent=2) + "\n")

    @classmethod
    def load(cls, path: Path) -> TrainConfig:
        """Read a config written by :meth:`save`.

        Raises:
            FileNotFoundError: if there is no such file.
            ValueError: if the file is not a JSON object of :class:`TrainConfig`'s fields,
                naming the unknown or missing keys and the allowed ones, or a bad value.
        """
        return load_record(cls, path)

    def agent_specs(self) -> list[str]:
        """Every agent spec the run will build: the stages', the evaluation's, the teacher's."""
        specs = [spec for stage in self.stages for spec in stage]
        if self.eval_every > 0:
            specs.append(self.eval_opponent)
        if self.pretrain_games > 0:
            specs.append(self.pretrain_teacher)
        return list(dict.fromkeys(specs))

    def check_agents(self) -> None:
        """Build each agent of :meth:`agent_specs` once and ask it whether it plays the board.

        Raises:
            SpecError: for a spec that names no agent or an option it does not take.
            UnsupportedGameError: for an agent that cannot play ``board_size``.
        """
        config = GameConfig(self.board_size)
        for spec in self.agent_specs():
            check_supports(make_agent(spec, seed=self.seed), config)


_FIELD_RULES: dict[str, Rule] = {
    "run_dir": (str, lambda v: True, "a folder path"),
    "total_timesteps": (int, lambda v: v >= 1, "an integer >= 1"),
    "self_play_fraction": (float, lambda v: 0 <= v < 1, "a number in [0, 1)"),
    "shaping": (float, lambda v: v >= 0, "a number >= 0"),
    "pretrain_teacher": (str, lambda v: True, "an agent spec"),
    "pretrain_games": (int, lambda v: v >= 0, "an integer >= 0"),
    "pretrain_epochs": (int, lambda v: v >= 1, "an integer >= 1"),
    "pretrain_learning_rate": (float, lambda v: v > 0, "a number > 0"),
    "snapshot_every": (int, lambda v: v >= 1, "an integer >= 1"),
    "pool_size": (int, lambda v: v >= 1, "an integer >= 1"),
    "board_size": (int, lambda v: v >= 3, "an integer >= 3"),
    "max_turns": (int, lambda v: v >= 1, "an integer >= 1 or null (4 * N * N)"),
    "num_envs": (int, lambda v: v >= 1, "an integer >= 1"),
    "batched": (bool, lambda v: True, "true or false"),
    "subprocess": (bool, lambda v: True, "true or false"),
    "seed": (int, lambda v: True, "an integer"),
    "learning_rate": (float, lambda v: v > 0, "a number > 0"),
    "n_steps": (int, lambda v: v >= 1, "an integer >= 1"),
    "batch_size": (int, lambda v: v >= 2, "an integer >= 2"),
    "n_epochs": (int, lambda v: v >= 1, "an integer >= 1"),
    "gamma": (float, lambda v: 0 < v <= 1, "a number in (0, 1]"),
    "gae_lambda": (float, lambda v: 0 <= v <= 1, "a number in [0, 1]"),
    "clip_range": (float, lambda v: v > 0, "a number > 0"),
    "ent_coef": (float, lambda v: v >= 0, "a number >= 0"),
    "vf_coef": (float, lambda v: v >= 0, "a number >= 0"),
    "channels": (int, lambda v: v >= 1, "an integer >= 1"),
    "num_layers": (int, lambda v: v >= 1, "an integer >= 1"),
    "hidden": (int, lambda v: v >= 1, "an integer >= 1"),
    "eval_opponent": (str, lambda v: True, "an agent spec"),
    "eval_every": (int, lambda v: v >= 0, "an integer >= 0 (0: no evaluation)"),
    "eval_episodes": (int, lambda v: v >= 1, "an integer >= 1"),
    "checkpoint_every": (int, lambda v: v >= 1, "an integer >= 1"),
    "torch_threads": (int, lambda v: v >= 1, "an integer >= 1"),
    "progress_bar": (bool, lambda v: True, "true or false"),
}
"""Each scalar field's type, its range, and what to say it must be (lists are checked apart)."""

_OPTIONAL = {"max_turns"}
"""The fields that may also be None."""


def _divisors_text(number: int) -> str:
    divisors = [d for d in range(2, min(number, 4096) + 1) if number % d == 0][-4:]
    return ", ".join(map(str, divisors)) if divisors else "none: raise n_steps"


class OpponentMix(SeededAgent):
    """An opponent that is, for each game, one agent drawn from a mix of specs.

    A new game is one started by :meth:`reset`, or noticed when the turn counter goes
    back. With ``pool`` (paths of frozen learner snapshots), a game is played against a
    uniformly drawn snapshot with probability ``pool_fraction``, sampling its moves.
    Agents are built lazily, once per spec, in the process that plays them.

    Args:
        specs: agent specs, drawn uniformly.
        pool: paths of model zips of earlier learners.
        pool_fraction: the probability of a game against the pool (when non-empty).
        seed: seeds the draws and every agent built.
    """

    def __init__(
        self,
        specs: Sequence[str],
        pool: Sequence[str] = (),
        pool_fraction: float = 0.0,
        seed: int | None = None,
    ) -> None:
        super().__init__(seed)
        if not specs:
            raise ValueError("an opponent mix needs at least one agent spec")
        self.specs = list(specs)
        self.pool = list(pool)
        self.pool_fraction = pool_fraction
        self._agents: dict[str, Agent] = {}
        self._current: Agent | None = None
        self._last_turn = -1

    def __getstate__(self) -> dict[str, Any]:
        # Sent to env processes before any agent is built: ship the specs, not the agents.
        state = self.__dict__.copy()
        state["_agents"], state["_current"] = {}, None
        return state

    def mix(self) -> dict[str, float]:
        """The mix as ``{spec: probability}``: the specs in equal shares, and each pool
        snapshot (``ppo:path=...,deterministic=false``) a share of ``pool_fraction``.

        The batched env draws from it per episode and game (``set_opponent(mix)``); the
        single env plays this agent, which draws per game from its own generator.
        """
        share = 1.0 - self.pool_fraction if self.pool else 1.0
        weights: dict[str, float] = {}
        for spec in self.specs:
            weights[spec] = weights.get(spec, 0.0) + share / len(self.specs)
        for path in self.pool:
            spec = _pool_spec(path)
            weights[spec] = weights.get(spec, 0.0) + self.pool_fraction / len(self.pool)
        return weights

    def reset(self, seed: int | None = None) -> None:
        """Start a new game: reseed when asked, then draw the next opponent."""
        super().reset(seed)
        self._current = None

    def select_action(self, state: State) -> Cell:
        """The action of this game's opponent."""
        if self._current is None or state.turn < self._last_turn:
            self._current = self._draw()
        self._last_turn = state.turn
        return self._current.select_action(state)

    def _draw(self) -> Agent:
        if self.pool and self.rng.random() < self.pool_fraction:
            spec = _pool_spec(self.rng.choice(self.pool))
        else:
            spec = self.rng.choice(self.specs)
        if spec not in self._agents:
            self._agents[spec] = make_agent(spec, seed=self.rng.randrange(2**31))
        agent = self._agents[spec]
        agent.reset(seed=self.rng.randrange(2**31))
        return agent


def stage_at(config: TrainConfig, timesteps: int) -> int:
    """The index of the curriculum stage in force after ``timesteps`` learner steps."""
    count = len(config.stages)
    starts = config.stage_fractions or [i / count for i in range(count)]
    progress = timesteps / config.total_timesteps
    return max(i for i, start in enumerate(starts) if progress >= start)


class MobilityShaping(gym.Wrapper):
    """Potential-based reward shaping with the mobility margin (Ng, Harada, Russell 1999).

    The potential of a state is ``coef * (mobility(learner) - mobility(opponent)) / 8``
    (0 once the game is over), and each step adds ``gamma * potential(after) -
    potential(before)``. Shaping of this form leaves the optimal policy unchanged, but it
    rewards a throw that hems the opponent in at once instead of 30 turns later, which
    is most of what the first hundred thousand steps have to learn. Put it outside the
    ``Monitor``, so that episode returns stay the game's +1 / 0 / -1.
    """

    def __init__(self, env: gym.Env, coef: float, gamma: float) -> None:
        super().__init__(env)
        self.coef, self.gamma = coef, gamma
        self._potential = 0.0

    def _potential_now(self, terminated: bool) -> float:
        if terminated:
            return 0.0
        state, seat = self.env.unwrapped.game_state, self.env.unwrapped.seat  # type: ignore[attr-defined]
        return self.coef * (mobility(state, seat) - mobility(state, 1 - seat)) / 8

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        """Reset the env and the potential."""
        observation, info = self.env.reset(**kwargs)
        self._potential = self._potential_now(False)
        return observation, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step the env and add the change of potential to the reward."""
        observation, reward, terminated, truncated, info = self.env.step(action)
        potential = self._potential_now(terminated)
        shaped = float(reward) + self.gamma * potential - self._potential
        self._potential = potential
        return observation, shaped, terminated, truncated, info


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
    (:class:`agents.rl.batched_vec_env.TrapBatchedVecEnv` under ``VecMonitor``, ``num_envs`` games).
    Otherwise, and with reward shaping or a board over the batched engine's limit, single
    envs: ``SubprocVecEnv`` (``subprocess``) or ``DummyVecEnv``, each with its own seed.
    """
    if config.batched and config.shaping == 0 and config.board_size <= MAX_BOARD_SIZE:
        envs = TrapBatchedVecEnv(
            config.num_envs, board_size=config.board_size, max_turns=config.max_turns
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
        envs = TrapBatchedVecEnv(
            min(config.eval_episodes, EVAL_GAMES_AT_ONCE),
            opponent=config.eval_opponent,
            board_size=config.board_size,
            max_turns=config.max_turns,
        )
        envs.seed(seed)
        return VecMonitor(envs)
    return DummyVecEnv([make_env_factory(config, config.eval_opponent, seed)])


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


def _pool_spec(path: str) -> str:
    """The agent spec of a pool snapshot: its policy, sampling its moves."""
    return f"ppo:path={path},deterministic=false"


def _readable_snapshots(pool_dir: Path, count: int) -> list[str]:
    """The paths of the latest ``count`` snapshots in ``pool_dir`` that read whole, oldest
    first (read as the ``ppo`` agent reads them: metadata and weights, nothing unpickled)."""
    readable: list[str] = []
    for path in sorted(pool_dir.glob("snapshot_*.zip"), key=_step_of, reverse=True):
        if len(readable) == count:
            break
        try:
            read_model_spec(path)
            read_parameters(path)
        except IncompatibleModelError as error:
            print(f"trap-train: leaving out of the self-play pool a snapshot that cannot be "
                  f"read: {error}", file=sys.stderr, flush=True)
            continue
        readable.append(str(path))
    return readable[::-1]


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


def _step_of(path: str | Path) -> int:
    match = re.search(r"_(\d+)(?:_steps)?\.zip$", str(path))
    return int(match.group(1)) if match else -1


def latest_checkpoint(run_dir: str | Path) -> Path | None:
    """The checkpoint with the most steps in ``run_dir/checkpoints``, if any."""
    checkpoints = checkpoints_newest_first(run_dir)
    return checkpoints[0] if checkpoints else None


def checkpoints_newest_first(run_dir: str | Path) -> list[Path]:
    """The checkpoints in ``run_dir/checkpoints``, the one with the most steps first."""
    checkpoints = (Path(run_dir) / "checkpoints").glob("ppo_*_steps.zip")
    return sorted(checkpoints, key=_step_of, reverse=True)


def _new_model(config: TrainConfig, envs: VecEnv, tensorboard_dir: str | None) -> MaskablePPO:
    return TrapPPO(
        TrapPolicy,
        envs,
        learning_rate=config.learning_rate,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        clip_range=config.clip_range,
        ent_coef=config.ent_coef,
        vf_coef=config.vf_coef,
        policy_kwargs=policy_kwargs(config.channels, config.num_layers, config.hidden),
        tensorboard_log=tensorboard_dir,
        seed=config.seed,
        device="cpu",
        verbose=0,
    )


def _callbacks(config: TrainConfig, run: Path) -> list[BaseCallback]:
    per_env = config.num_envs
    callbacks: list[BaseCallback] = [
        DivergenceCallback(),
        CurriculumCallback(config, run / "pool"),
        CheckpointCallback(  # TrapPPO's saves are atomic
            max(config.checkpoint_every // per_env, 1), str(run / "checkpoints"), "ppo"
        ),
    ]
    if config.eval_every > 0:
        callbacks.append(
            MaskableEvalCallback(
                make_eval_env(config),
                n_eval_episodes=config.eval_episodes,
                eval_freq=max(config.eval_every // per_env, 1),
                best_model_save_path=str(run / "best"),
                log_path=str(run / "eval"),
                deterministic=True,
                verbose=0,
            )
        )
    if config.progress_bar:
        callbacks.append(ProgressBarCallback(config.total_timesteps))
    return callbacks


def train(config: TrainConfig, resume: bool = False) -> MaskablePPO:
    """Train (or, with ``resume``, continue) the run in ``config.run_dir``.

    A resumed run continues from its latest checkpoint up to ``total_timesteps``, with the
    curriculum stage and self-play pool that its step count implies.

    Returns:
        The trained model (also saved as ``final_model.zip`` in the run folder).

    A run resumed before its first checkpoint starts from the beginning.

    A resume reads its checkpoints without unpickling anything (:mod:`agents.rl.ppo`):
    the newest that reads whole is used, a damaged one is reported and skipped. The
    config is saved once the model is built, so that a failure before leaves the folder
    as it was.

    Raises:
        FileExistsError: for a new run in a folder that already holds a config.
        SpecError, UnsupportedGameError: for an agent spec of the config that does not
            build or cannot play its board; raised before the run folder is touched.
        DamagedRunFileError: if no checkpoint of a resumed run can be read, naming the
            newest and what to do.
        ValueError: if ``run_dir`` is a file or cannot be written.
    """
    run = Path(config.run_dir)
    config.check_agents()  # before the folder exists: a bad config must not leave a run
    if not resume and (run / CONFIG_FILE).exists():
        raise FileExistsError(
            f"{run} already holds a run; pass resume=True (--resume) to continue it, or "
            "choose a new run folder"
        )
    check_writable_folder(config.run_dir, "run folder (--run-dir)")
    for sub in ("checkpoints", "pool", "best", "eval"):
        (run / sub).mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(config.torch_threads)
    random.seed(config.seed)  # only for libraries that still draw from the global one
    tensorboard_dir = str(run / "tb") if importlib.util.find_spec("tensorboard") else None
    envs = make_vec_env(config)
    try:
        model = _load_or_create(config, envs, tensorboard_dir, resume)
        config.save(run / CONFIG_FILE)
        remaining = config.total_timesteps - model.num_timesteps
        if remaining > 0:
            # The eval env runs in this process whatever the training envs do; that is fine.
            warnings.filterwarnings("ignore", "Training and eval env are not of the same type")
            model.learn(
                remaining,
                callback=CallbackList(_callbacks(config, run)),
                reset_num_timesteps=not resume,
                tb_log_name="ppo",
            )
        model.save(run / "final_model.zip")
    finally:
        envs.close()
    return model


def _warm_start(config: TrainConfig, model: MaskablePPO) -> None:
    """Imitate the teacher (behaviour cloning), and save the result as ``pretrained.zip``."""
    from agents.rl.pretrain import imitation_data, pretrain

    data = imitation_data(
        config.pretrain_teacher,
        config.pretrain_games,
        config.board_size,
        config.max_turns,
        gamma=config.gamma,
        seed=config.seed,
    )
    losses = pretrain(
        model.policy,
        data,
        epochs=config.pretrain_epochs,
        learning_rate=config.pretrain_learning_rate,
        seed=config.seed,
    )
    print(
        f"imitated {config.pretrain_teacher} on {len(data)} decisions; cross-entropy per "
        f"epoch: {', '.join(f'{loss:.3f}' for loss in losses)}",
        flush=True,
    )
    model.save(Path(config.run_dir) / "pretrained.zip")


def _load_or_create(
    config: TrainConfig, envs: VecEnv, tensorboard_dir: str | None, resume: bool
) -> MaskablePPO:
    model = _resume_model(config, envs, tensorboard_dir) if resume else None
    if model is None:
        # A resumed run stopped before its first checkpoint has nothing to keep: begin it.
        model = _new_model(config, envs, tensorboard_dir)
        if config.pretrain_games > 0:
            _warm_start(config, model)
    return model


def _resume_model(
    config: TrainConfig, envs: VecEnv, tensorboard_dir: str | None
) -> MaskablePPO | None:
    """The model of the newest checkpoint that reads whole (None without checkpoints).

    A damaged checkpoint is reported on stderr and the one before it tried.

    Raises:
        DamagedRunFileError: if there are checkpoints and none of them can be read.
    """
    checkpoints = checkpoints_newest_first(config.run_dir)
    for checkpoint in checkpoints:
        try:
            return _model_from_checkpoint(config, envs, tensorboard_dir, checkpoint)
        except IncompatibleModelError as error:
            print(f"trap-train: skipping a checkpoint that cannot be read: {error}",
                  file=sys.stderr, flush=True)
    if checkpoints:
        raise DamagedRunFileError(
            f"none of the {len(checkpoints)} checkpoints in {checkpoints[0].parent} can be "
            f"read (the newest: {checkpoints[0].name}); restore a good copy, or delete them "
            "to train the run again from its start"
        )
    return None


def _model_from_checkpoint(
    config: TrainConfig, envs: VecEnv, tensorboard_dir: str | None, checkpoint: Path
) -> MaskablePPO:
    """A new model of the run's config with the checkpoint's weights, optimiser and counters.

    Nothing is unpickled: the step counters come from the zip's JSON metadata and the
    weights from ``torch.load(weights_only=True)``.

    Raises:
        IncompatibleModelError: if the checkpoint is damaged or holds another network.
    """
    spec = read_model_spec(checkpoint)
    params = read_parameters(checkpoint)
    shape = (spec.board_size, spec.channels, spec.num_layers, spec.hidden)
    if shape != (config.board_size, config.channels, config.num_layers, config.hidden):
        raise IncompatibleModelError(
            f"{checkpoint} holds a network of board {shape[0]}, channels {shape[1]}, "
            f"num_layers {shape[2]}, hidden {shape[3]}, not this run's"
        )
    model = _new_model(config, envs, tensorboard_dir)
    try:
        model.set_parameters(params, exact_match=True, device="cpu")
    except (KeyError, ValueError, RuntimeError) as error:
        raise IncompatibleModelError(
            f"{checkpoint}: its parameters do not fit the run's network ({str(error)[:120]})"
        ) from None
    model.num_timesteps = spec.num_timesteps
    model._n_updates = spec.counters["_n_updates"]
    model._episode_num = spec.counters["_episode_num"]
    model.set_random_seed(config.seed + model.num_timesteps)
    return model

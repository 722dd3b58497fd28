"""The settings of a PPO run: :class:`TrainConfig` and the rules of its fields.

Also the run folder's config file (:data:`CONFIG_FILE`), the settings a resume cannot change
(:data:`FIXED_ON_RESUME`), and the curriculum stage in force at a step (:func:`stage_at`).

Part of :mod:`agents.trap.ppo_training`.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path

from agents.files import write_text_atomically
from agents.registry import make_agent
from agents.rl.settings import Rule, check_fields, is_number, is_text, load_record
from trap_env.agent import check_supports
from trap_env.trap.core import MAX_BOARD_SIZE, MIN_BOARD_SIZE, GameConfig

CONFIG_FILE = "config.json"

FIXED_ON_RESUME = (
    "board_size", "channels", "num_layers", "hidden",
    "pretrain_teacher", "pretrain_games", "pretrain_epochs", "pretrain_learning_rate",
)
"""The settings a resumed run cannot change: its network's shape and the warm start done
at its beginning."""


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
            :mod:`agents.trap.ppo_training.shaping`).
        pretrain_teacher: the agent spec that the policy imitates before PPO starts.
        pretrain_games: the number of teacher games to imitate (0: no warm start; see
            :mod:`agents.trap.pretrain`).
        pretrain_epochs, pretrain_learning_rate: the imitation's epochs and step size.
        snapshot_every: learner steps between two snapshots added to the pool.
        pool_size: the number of most recent snapshots kept in the pool.
        board_size: N.
        max_turns: the env's truncation limit (None: its default, 4 * N * N).
        num_envs: the number of games played at once (see
            :func:`agents.trap.ppo_training.envs.make_vec_env`).
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
            check_supports(make_agent(spec, game="trap", seed=self.seed), config)


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
    "board_size": (
        int,
        lambda v: MIN_BOARD_SIZE <= v <= MAX_BOARD_SIZE,
        f"an integer from {MIN_BOARD_SIZE} to {MAX_BOARD_SIZE}",
    ),
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


def stage_at(config: TrainConfig, timesteps: int) -> int:
    """The index of the curriculum stage in force after ``timesteps`` learner steps."""
    count = len(config.stages)
    starts = config.stage_fractions or [i / count for i in range(count)]
    progress = timesteps / config.total_timesteps
    return max(i for i, start in enumerate(starts) if progress >= start)

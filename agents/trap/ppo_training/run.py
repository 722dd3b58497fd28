"""One PPO run: build the model (or resume it from a checkpoint), warm start it, learn, save.

Part of :mod:`agents.trap.ppo_training`.
"""

from __future__ import annotations

import importlib.util
import random
import sys
import warnings
from pathlib import Path
from typing import Any

from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
from stable_baselines3.common.callbacks import BaseCallback, CallbackList, CheckpointCallback
from stable_baselines3.common.vec_env import VecEnv

from agents.files import (
    DamagedRunFileError,
    check_writable_folder,
    replace_atomically,
)
from agents.rl.cpu import torch_on_cpu
from agents.rl.policy import TrapPolicy, policy_kwargs
from agents.rl.ppo import (
    IncompatibleModelError,
    TrapNetwork,
    read_model_spec,
    read_parameters,
    stamp_model,
)
from agents.trap.ppo_training.callbacks import (
    CurriculumCallback,
    DivergenceCallback,
    ProgressBarCallback,
)
from agents.trap.ppo_training.checkpoints import checkpoints_newest_first
from agents.trap.ppo_training.config import CONFIG_FILE, TrainConfig
from agents.trap.ppo_training.envs import make_eval_env, make_vec_env


class TrapPPO(MaskablePPO):
    """MaskablePPO whose every save (checkpoints, snapshots, best and final models) is
    atomic, a run killed while saving leaving the previous file whole, and records the
    game and rules it trains for (:func:`agents.rl.ppo.stamp_model`), so that the ``ppo``
    agent refuses the zip in another game or under other rules: Trap! on the board of its
    observations, under the default rules' other parameters (trap-train's)."""

    def save(self, path: Any, exclude: Any = None, include: Any = None) -> None:
        """Save as MaskablePPO does (``.zip`` added to a path without a suffix), atomically,
        and stamp the zip; a file object is written as MaskablePPO does (unstamped)."""
        if not isinstance(path, str | Path):  # a file object: the caller owns it
            super().save(path, exclude, include)
            return
        board_size = int(self.observation_space.shape[0])  # type: ignore[index]

        def write(temporary: Path) -> None:
            super(TrapPPO, self).save(temporary, exclude, include)
            stamp_model(temporary, game="trap", params={"board_size": board_size})

        replace_atomically(Path(path) if Path(path).suffix else Path(f"{path}.zip"), write)


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
    with torch_on_cpu(config.torch_threads):
        return _train(config, resume)


def _train(config: TrainConfig, resume: bool) -> MaskablePPO:
    """The run of :func:`train`, with torch set up."""
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
    from agents.trap.pretrain import imitation_data, pretrain

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
    network = spec.network
    if not isinstance(network, TrapNetwork):
        raise IncompatibleModelError(f"{checkpoint} holds an MlpPolicy, not this run's TrapPolicy")
    shape = (spec.observation_shape[0], network.channels, network.num_layers, network.hidden)
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

"""One AlphaZero run: iterations of self-play and learning, checkpoints, logs, networks.

Part of :mod:`agents.rl.alphazero`.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
import pickle
import random
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.files import (
    DamagedRunFileError,
    check_writable_folder,
    replace_atomically,
    write_text_atomically,
)
from agents.rl.alphazero.config import CHECKPOINT_FILE, CONFIG_FILE, REPLAY_FILE, AlphaZeroConfig
from agents.rl.alphazero.imitation import imitation_samples
from agents.rl.alphazero.ladder import evaluate_ladder
from agents.rl.alphazero.learning import fit
from agents.rl.alphazero.net import AlphaZeroNet, build_net
from agents.rl.alphazero.replay import ReplayBuffer
from agents.rl.alphazero.selfplay import SelfPlay
from agents.rl.cpu import torch_on_cpu

_LOG_FILE, _ELO_FILE = "log.csv", "elo.csv"
_LOGS = (_LOG_FILE, _ELO_FILE)
"""The logs a run appends to (and reads back, to append and to plot)."""


@dataclass
class _Progress:
    iteration: int = 0
    seconds: float = 0.0
    games: int = 0
    samples: int = 0
    imitation_done: bool = False


def train(config: AlphaZeroConfig, resume: bool = False) -> Path:
    """Run (or resume) training; return the path of the latest NumPy network.

    Nothing is written before the whole run is set up: the network (and the initial one),
    and on ``resume`` the checkpoint and the replay buffer, all read back.

    Raises:
        FileExistsError: if ``run_dir`` holds a run and ``resume`` is False.
        FileNotFoundError: if ``resume`` is True and there is no checkpoint.
        DamagedRunFileError: if ``resume`` meets a checkpoint or buffer that cannot be
            read (or one that is not plain data), or a log that is not text, naming the
            file and what to do.
        ValueError: if ``run_dir`` cannot be a run folder.
    """
    with torch_on_cpu(config.torch_threads):
        return _train(config, resume)


def _train(config: AlphaZeroConfig, resume: bool) -> Path:
    """The run of :func:`train`, with torch set up."""
    run = Path(config.run_dir)
    torch.manual_seed(config.seed)
    # A resumed run's weights come from its checkpoint, not from the initial network.
    net = build_net(dataclasses.replace(config, initial_network=None) if resume else config)
    optimizer = torch.optim.Adam(
        net.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
    )
    buffer = ReplayBuffer(*config.sample_shapes, config.replay_size)
    progress = _Progress()
    rng = random.Random(config.seed)
    np_rng = np.random.default_rng(config.seed)
    if resume:
        progress, rng, np_rng = _load_checkpoint(run, net, optimizer, buffer)
        _check_logs(run)
        for log in ("log.csv", "elo.csv"):  # the iterations after the checkpoint come again
            _drop_rows_after(run / log, progress.iteration)
        for group in optimizer.param_groups:  # the resumed run's settings, not the stored
            group["lr"], group["weight_decay"] = config.learning_rate, config.weight_decay
    else:
        if (run / CHECKPOINT_FILE).exists():
            raise FileExistsError(f"{run} already holds a run; use --resume to continue it")
        check_writable_folder(config.run_dir, "run folder (--run-dir)")
        (run / "networks").mkdir(parents=True, exist_ok=True)
    config.save(run / CONFIG_FILE)
    writer = _tensorboard(run)
    started = time.perf_counter() - progress.seconds
    if not progress.imitation_done:
        _imitate(config, net, optimizer, buffer, rng, np_rng, run)
        progress.imitation_done = True
        progress.seconds = time.perf_counter() - started
        _save_checkpoint(run, net, optimizer, buffer, progress, rng, np_rng)
    bar = _bar(config, progress)
    games = SelfPlay(config, np_rng)
    while not _is_done(config, progress):
        net.eval()
        samples, winners = games.play(net.evaluator(), config.decisions)
        buffer.add(samples)
        net.train()
        # Steps follow the decisions made, finished games or not (their samples come later).
        steps = (
            math.ceil(config.games * config.decisions * config.sample_reuse / config.batch_size)
            if len(buffer)
            else 0
        )
        losses = fit(net, optimizer, buffer, steps, config.batch_size, np_rng)
        _check_finite(net, losses, progress.iteration + 1)
        progress.iteration += 1
        progress.games += len(winners)
        progress.samples += len(samples)
        progress.seconds = time.perf_counter() - started
        network_path = _export(run, net, progress.iteration)
        row = _log(run, writer, progress, losses, winners)
        if config.eval_every and progress.iteration % config.eval_every == 0:
            ratings = evaluate_ladder(network_path, config, progress.iteration, run)
            _log_elo(run, writer, progress, ratings, network_path)
        if progress.iteration % config.checkpoint_every == 0 or _is_done(config, progress):
            _save_checkpoint(run, net, optimizer, buffer, progress, rng, np_rng)
        bar.update(1)
        bar.set_postfix(row)
    bar.close()
    plot_elo(run, run / "elo.png")
    return run / "latest.npz"


class DivergedError(ValueError):
    """Training made the network's weights or losses NaN or infinite."""


def _check_finite(net: nn.Module, losses: tuple[float, float], iteration: int) -> None:
    """Stop before a diverged network is exported or checkpointed.

    Raises:
        DivergedError: naming the iteration and what to do.
    """
    if all(map(math.isfinite, losses)) and all(
        bool(torch.isfinite(parameter).all()) for parameter in net.parameters()
    ):
        return
    raise DivergedError(
        f"the network diverged in iteration {iteration}: its outputs are not finite (losses "
        f"{losses[0]:.3g}, {losses[1]:.3g}); nothing of it was saved: resume from the last "
        "checkpoint with a lower --learning-rate"
    )


def _is_done(config: AlphaZeroConfig, progress: _Progress) -> bool:
    if config.iterations and progress.iteration >= config.iterations:
        return True
    return progress.seconds >= config.minutes * 60


def _imitate(
    config: AlphaZeroConfig,
    net: AlphaZeroNet,
    optimizer: torch.optim.Optimizer,
    buffer: ReplayBuffer,
    rng: random.Random,
    np_rng: np.random.Generator,
    run: Path,
) -> None:
    if not config.imitation_games:
        return
    from tqdm import tqdm

    with tqdm(
        total=config.imitation_games, desc="teacher games", disable=not config.progress_bar
    ) as bar:
        samples = imitation_samples(
            config.imitation_teacher, config.imitation_games, config, rng, bar.update
        )
    teacher = ReplayBuffer(*config.sample_shapes, len(samples))
    teacher.add(samples)
    teacher.save(run / "imitation.npz")
    steps = math.ceil(len(samples) * config.imitation_epochs / config.batch_size)
    net.train()
    policy_loss, value_loss = fit(net, optimizer, teacher, steps, config.batch_size, np_rng)
    buffer.add(samples)
    _export(run, net, 0)
    print(
        f"imitation: {len(samples)} samples, {steps} steps, policy loss {policy_loss:.3f}, "
        f"value loss {value_loss:.3f}",
        file=sys.stderr,
    )


def _export(run: Path, net: AlphaZeroNet, iteration: int) -> Path:
    """Save the NumPy weights as this iteration's and as the latest; return the former."""
    network = net.to_network()
    path = run / "networks" / f"iter_{iteration:04d}.npz"
    network.save(path)
    network.save(run / "latest.npz")
    return path


def _log(
    run: Path, writer: Any, progress: _Progress, losses: tuple[float, float], winners: list[int]
) -> dict[str, Any]:
    row = {
        "iteration": progress.iteration,
        "minutes": round(progress.seconds / 60, 2),
        "games": progress.games,
        "samples": progress.samples,
        "policy_loss": round(losses[0], 4),
        "value_loss": round(losses[1], 4),
        "first_player_wins": round(sum(w == 0 for w in winners) / max(len(winners), 1), 3),
    }
    _append_csv(run / _LOG_FILE, row)
    if writer is not None:
        for key in ("policy_loss", "value_loss", "first_player_wins"):
            writer.add_scalar(f"train/{key}", row[key], progress.iteration)
    return row


def _log_elo(
    run: Path, writer: Any, progress: _Progress, ratings: dict[str, float], network_path: Path
) -> None:
    anchor = ratings.get("random", 0.0)
    mine = next(value for spec, value in ratings.items() if str(network_path) in spec)
    row = {
        "iteration": progress.iteration,
        "minutes": round(progress.seconds / 60, 2),
        "elo_vs_random": round(mine - anchor, 1),
        **{
            f"elo_{rung}": round(value - anchor, 1)
            for rung, value in ratings.items()
            if not rung.startswith("mcts:")
        },
    }
    _append_csv(run / _ELO_FILE, row)
    if writer is not None:
        writer.add_scalar("eval/elo_vs_random", row["elo_vs_random"], progress.iteration)


def plot_elo(run: Path, path: Path) -> bool:
    """Draw the run's Elo (relative to ``random``) against training minutes into ``path``.

    Returns False, drawing nothing, without matplotlib or without evaluations yet (rows
    of ``elo.csv`` that do not read as numbers are left out).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = _elo_rows(run / _ELO_FILE)
    if not rows:
        return False
    figure, axes = plt.subplots(figsize=(6, 3.5))
    minutes = [row["minutes"] for row in rows]
    axes.plot(minutes, [row["elo_vs_random"] for row in rows], "o-", label="mcts")
    for rung in (key for key in rows[-1] if key.startswith("elo_") and key != "elo_vs_random"):
        axes.axhline(rows[-1][rung], linestyle=":", color="grey")
        axes.annotate(rung[4:], (minutes[0], rows[-1][rung]), fontsize=7)
    axes.set_xlabel("training time (minutes, wall clock)")
    axes.set_ylabel("Elo relative to random")
    axes.set_title("mcts network against the ladder during training")
    figure.tight_layout()
    replace_atomically(path, lambda temporary: figure.savefig(temporary, dpi=120))
    plt.close(figure)
    return True


def _elo_rows(path: Path) -> list[dict[str, float]]:
    """The rows of ``elo.csv`` whose values are all numbers (none if there is no file)."""
    if not path.is_file():
        return []
    rows = []
    with path.open(newline="", encoding="utf-8") as source:
        for row in csv.DictReader(source):
            try:
                rows.append({key: float(value) for key, value in row.items()})
            except (TypeError, ValueError):  # a row cut short, or of another header
                continue
    return [row for row in rows if "minutes" in row and "elo_vs_random" in row]


def _drop_rows_after(path: Path, iteration: int) -> None:
    """Keep the rows of the CSV log ``path`` up to ``iteration`` (and its header)."""
    if not path.is_file():
        return
    with path.open(newline="") as source:
        lines = source.read().splitlines(keepends=True)
    kept = lines[:1] + [
        line for line in lines[1:] if line.split(",", 1)[0].isdigit()
        and int(line.split(",", 1)[0]) <= iteration
    ]  # fmt: skip
    if len(kept) < len(lines):
        write_text_atomically(path, "".join(kept))


def _append_csv(path: Path, row: dict[str, Any]) -> None:
    """Add ``row`` to the CSV file ``path`` (a header first in a new file), atomically."""
    old = ""
    if path.is_file():
        with path.open(newline="", encoding="utf-8") as source:
            old = source.read()
    if old and not old.endswith("\n"):
        old += "\r\n"  # a line cut short by an interrupt stays apart from the new row
    new = io.StringIO()
    writer = csv.DictWriter(new, fieldnames=list(row))
    if not old:
        writer.writeheader()
    writer.writerow(row)
    write_text_atomically(path, old + new.getvalue())


def _tensorboard(run: Path) -> Any:
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(str(run / "tb"))


def _bar(config: AlphaZeroConfig, progress: _Progress) -> Any:
    from tqdm import tqdm

    return tqdm(
        total=config.iterations or None,
        initial=progress.iteration,
        desc="iterations",
        disable=not config.progress_bar,
    )


def _save_checkpoint(
    run: Path,
    net: AlphaZeroNet,
    optimizer: torch.optim.Optimizer,
    buffer: ReplayBuffer,
    progress: _Progress,
    rng: random.Random,
    np_rng: np.random.Generator,
) -> None:
    buffer.save(run / REPLAY_FILE)
    # Tensors, dicts, lists and numbers only: what torch.load(weights_only=True) reads back.
    version, internal, gauss = rng.getstate()
    state = {
        "net": net.state_dict(),
        "optimizer": optimizer.state_dict(),
        "progress": dataclasses.asdict(progress),
        "rng": [version, list(internal), gauss],
        "np_rng": np_rng.bit_generator.state,
    }
    # Each file is replaced whole: a killed run leaves the last whole checkpoint.
    replace_atomically(run / CHECKPOINT_FILE, lambda temporary: torch.save(state, temporary))


def _load_checkpoint(
    run: Path, net: AlphaZeroNet, optimizer: torch.optim.Optimizer, buffer: ReplayBuffer
) -> tuple[_Progress, random.Random, np.random.Generator]:
    """Restore the network, optimiser, buffer and generators of ``run``'s checkpoint.

    The checkpoint is read with ``torch.load(weights_only=True)``: tensors and plain data
    only, so that a crafted file in a shared folder cannot run code.
    """
    path = run / CHECKPOINT_FILE
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint to resume at {path}")
    state = _read_checkpoint(path)
    try:
        net.load_state_dict(state["net"])
        optimizer.load_state_dict(state["optimizer"])
        version, internal, gauss = state["rng"]
        rng = random.Random()
        rng.setstate((version, tuple(internal), gauss))
        np_rng = np.random.default_rng()
        np_rng.bit_generator.state = state["np_rng"]
        progress = _Progress(**state["progress"])
    except (KeyError, TypeError, ValueError, RuntimeError) as error:
        raise DamagedRunFileError(
            f"the checkpoint {path} does not fit this run's config.json or is damaged "
            f"({type(error).__name__}: {str(error)[:200]}); restore a good copy, or start a "
            "new run"
        ) from None
    if (run / REPLAY_FILE).is_file():
        buffer.load(run / REPLAY_FILE)
    return progress, rng, np_rng


def _check_logs(run: Path) -> None:
    """Refuse a log that the run could not append to: one that is not UTF-8 text."""
    for name in _LOGS:
        path = run / name
        try:
            if path.is_file():
                path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise DamagedRunFileError(
                f"the log {path} is damaged (it is not UTF-8 text); delete it or move it "
                "away to resume (a new log starts)"
            ) from None


def _read_checkpoint(path: Path) -> dict[str, Any]:
    """The checkpoint's contents, read as plain data (never unpickling code)."""
    try:
        state = torch.load(path, weights_only=True)
    except pickle.UnpicklingError as error:
        # weights_only refuses anything but tensors and plain data, before it runs.
        raise DamagedRunFileError(
            f"the checkpoint {path} holds more than tensors and plain data (refused unread: "
            f"{str(error).splitlines()[0][:160]}); use only checkpoints that trap-train "
            "wrote, or start a new run"
        ) from None
    except (RuntimeError, EOFError, OSError, ValueError, zipfile.BadZipFile) as error:
        raise DamagedRunFileError(
            f"the checkpoint {path} is damaged ({type(error).__name__}); restore a good "
            "copy, or start a new run (another --run-dir)"
        ) from None
    if not isinstance(state, dict):
        raise DamagedRunFileError(
            f"the checkpoint {path} is not a trap-train checkpoint (it holds a "
            f"{type(state).__name__}); restore a good copy, or start a new run"
        )
    return state

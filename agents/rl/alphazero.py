"""AlphaZero-style training of the ``mcts`` agent's network (``trap-train alphazero``).

Self-play runs on the batched engine (:mod:`trap_env.vector`): ``games`` games kept going at
once (a finished one is replaced at once), searched together by
:class:`agents.mcts.batched.BatchedTree`, which evaluates the leaves of all the games' trees
in one torch batch per simulation step. An iteration makes ``decisions`` decisions in every
game, then trains. A move or throw is chosen from the root's visit counts (sampled in
proportion to them for the first ``temperature_turns`` turns, the most visited after), with
Dirichlet noise on the root's priors; landings are drawn from the exact distribution. Every
decision becomes a sample: the position, the legal mask, the visit distribution (policy
target) and the value target, a mix of the game's outcome and the root's search value
(``value_mix``). Samples go to a replay buffer; the network then trains on minibatches drawn
from it, each turned by a random symmetry of the square (the rules are invariant under all
eight).

Optionally the run starts by imitating a teacher (expert iteration's warm start): games of
``imitation_teacher`` against itself, opened by a few uniformly random actions so that they
differ, give the teacher's choices as one-hot policy targets and the outcomes as value
targets.

Everything lands in ``run_dir``: ``config.json``, ``checkpoint.pt`` (network, optimiser,
counters), ``replay.npz``, ``networks/iter_NNNN.npz`` and ``latest.npz`` (NumPy weights for
the ``mcts`` agent), ``log.csv`` (losses), ``elo.csv`` and ``ladder.jsonl``/``eval.jsonl``
(evaluations against the ladder, rated with :func:`agents.arena.stats.elo_ratings`), and
TensorBoard logs in ``tb/`` when tensorboard is installed. ``--resume`` continues from
``checkpoint.pt``.

Example:
    trap-train alphazero --run-dir /tmp/az --minutes 30 --imitation-games 200
    trap-train alphazero --run-dir /tmp/az --resume --minutes 60

Needs torch (the ``rl`` extra).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import json
import math
import pickle
import random
import sys
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.base import make_agent
from agents.files import (
    DamagedRunFileError,
    check_writable_folder,
    replace_atomically,
    run_folder,
    save_npz_atomically,
    write_text_atomically,
)
from agents.mcts.batched import BatchedTree, PlanesEvaluator
from agents.mcts.network import INPUT_PLANES, IncompatibleNetworkError, Network, load_network
from agents.rl.settings import (
    Rule,
    check_fields,
    check_resume_overrides,
    is_text,
    load_record,
)
from trap_env import core, vector
from trap_env.core import DEFAULT_DECAY, GameConfig, Phase
from trap_env.observation import NUM_PLANES, observe

__all__ = [
    "AlphaZeroConfig",
    "AlphaZeroNet",
    "DamagedRunFileError",
    "DivergedError",
    "ReplayBuffer",
    "Samples",
    "SelfPlay",
    "imitation_samples",
    "main",
    "plot_elo",
    "train",
]

CONFIG_FILE = "config.json"
CHECKPOINT_FILE = "checkpoint.pt"
REPLAY_FILE = "replay.npz"
FIXED_ON_RESUME = (
    "board_size", "decay", "channels", "blocks", "hidden", "initial_network", "seed",
    "imitation_games", "imitation_teacher", "imitation_random_actions", "imitation_epochs",
    "imitation_value_mix",
)
"""The settings a resumed run cannot change: what its network, buffer and generators
were built from, and the warm start done at its beginning."""
DEFAULT_LADDER = ("random", "greedy", "alphabeta", "expectiminimax:time_limit=0.1")


@dataclass
class AlphaZeroConfig:
    """The settings of one training run.

    Attributes:
        run_dir: the run folder.
        board_size: N.
        decay: the rule variant (see :class:`trap_env.core.GameConfig`).
        channels, blocks, hidden: the network's size (see :mod:`agents.mcts.network`).
        initial_network: an ``mcts`` network file to start from (a warm start; its size
            must be ``channels``, ``blocks``, ``hidden``), or None for random weights.
        minutes: stop after this much training time (wall clock, summed over resumes).
        iterations: stop after this many self-play iterations (0: no limit but ``minutes``).
        games: self-play games played at once (their leaves are evaluated in one batch).
        decisions: decisions made in every game per iteration (between training phases).
        simulations: simulations per self-play decision.
        c_puct: PUCT's exploration weight.
        dirichlet_alpha, noise_fraction: the root noise of self-play.
        temperature_turns: turns during which moves are sampled by visit counts.
        value_mix: value target = (1 - value_mix) * outcome + value_mix * root value.
        max_turns: self-play games are draws after this many turns (default 4 * N * N).
        replay_size: samples kept in the replay buffer.
        batch_size: minibatch size.
        sample_reuse: training steps per iteration = new samples * reuse / batch size.
        learning_rate, weight_decay: Adam's settings.
        imitation_games: teacher games to imitate first (0: none).
        imitation_teacher: the teacher's agent spec.
        imitation_random_actions: uniformly random actions opening each teacher game (at
            most; the count is drawn from 0..this).
        imitation_epochs: passes over the teacher's samples.
        imitation_value_mix: teacher value target = (1 - mix) * outcome + mix * the
            teacher's own search value (for teachers that report one in ``last_search``).
        checkpoint_every: iterations between checkpoints (the replay buffer included).
        eval_every: iterations between evaluations against the ladder (0: none).
        eval_games: games per ladder opponent per evaluation (seats alternating).
        eval_time_limit: seconds per turn of every player in the evaluations.
        ladder: the agent specs of the ladder.
        seed: the run's seed.
        torch_threads: torch's intra-op threads.
        progress_bar: show a tqdm bar.
    """

    run_dir: str
    board_size: int = 7
    decay: int = DEFAULT_DECAY
    channels: int = 32
    blocks: int = 3
    hidden: int = 64
    initial_network: str | None = None
    minutes: float = 60.0
    iterations: int = 0
    games: int = 32
    decisions: int = 16
    simulations: int = 64
    c_puct: float = 1.5
    dirichlet_alpha: float = 0.3
    noise_fraction: float = 0.25
    temperature_turns: int = 3
    value_mix: float = 0.5
    max_turns: int | None = None
    replay_size: int = 100_000
    batch_size: int = 256
    sample_reuse: float = 4.0
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    imitation_games: int = 0
    imitation_teacher: str = "expectiminimax:depth=4,time_limit=none"
    imitation_random_actions: int = 4
    imitation_epochs: int = 4
    imitation_value_mix: float = 0.75
    checkpoint_every: int = 10
    eval_every: int = 0
    eval_games: int = 10
    eval_time_limit: float = 0.1
    ladder: list[str] = field(default_factory=lambda: list(DEFAULT_LADDER))
    seed: int = 0
    torch_threads: int = 1
    progress_bar: bool = True

    def __post_init__(self) -> None:
        """Check every field's type and range, so that a bad config fails before a run starts.

        Raises:
            ValueError: naming the first field that is wrong and what it must be.
        """
        check_fields(self, _FIELD_RULES, ("initial_network", "max_turns"))
        if not isinstance(self.ladder, list) or not all(is_text(spec) for spec in self.ladder):
            raise ValueError(f"ladder must be a list of agent specs, got {self.ladder!r:.100}")
        GameConfig(self.board_size, self.decay)
        if self.board_size > vector.MAX_BOARD_SIZE:
            raise ValueError(
                f"board_size must be at most {vector.MAX_BOARD_SIZE} (self-play runs on the "
                f"batched engine), got {self.board_size}"
            )
        if self.eval_every and self.decay != DEFAULT_DECAY:
            raise ValueError(
                f"the ladder evaluation plays the default rule (decay={DEFAULT_DECAY}); "
                f"with decay={self.decay} use eval_every=0"
            )
        if self.eval_every and "," in self.run_dir:
            raise ValueError(
                f"run_dir {self.run_dir!r} holds a comma: the ladder evaluation names the "
                "network in an agent spec (mcts:path=...), whose options commas separate; "
                "choose a folder without one, or eval_every=0"
            )

    @property
    def turn_limit(self) -> int:
        """The turn limit of self-play games."""
        return core.resolve_turn_limit(self.max_turns, self.board_size)

    @property
    def game(self) -> GameConfig:
        """The game the run trains for."""
        return GameConfig(self.board_size, self.decay)

    def save(self, path: Path) -> None:
        """Write the settings as JSON (atomically: a killed run leaves the old file whole)."""
        write_text_atomically(path, json.dumps(dataclasses.asdict(self), indent=2) + "\n")

    @classmethod
    def load(cls, path: Path) -> AlphaZeroConfig:
        """Read settings written by :meth:`save`.

        Raises:
            FileNotFoundError: if there is no such file (no run to resume).
            ValueError: if the file is not a JSON object of this record's fields.
        """
        if not path.is_file():
            raise FileNotFoundError(f"no run to resume: {path} does not exist")
        return load_record(cls, path)


_AT_LEAST_1: Rule = (int, lambda v: v >= 1, "an integer >= 1")
_AT_LEAST_0: Rule = (int, lambda v: v >= 0, "an integer >= 0")
_POSITIVE: Rule = (float, lambda v: v > 0, "a number > 0")
_SHARE: Rule = (float, lambda v: 0 <= v <= 1, "a number in [0, 1]")
_FIELD_RULES: dict[str, Rule] = {
    "run_dir": (str, lambda v: True, "a folder path"),
    "board_size": (int, lambda v: True, "an integer"),  # GameConfig checks the range
    "decay": (int, lambda v: True, "an integer"),
    "channels": _AT_LEAST_1,
    "blocks": _AT_LEAST_1,
    "hidden": _AT_LEAST_1,
    "initial_network": (str, lambda v: True, "a network file or null"),
    "minutes": _POSITIVE,
    "iterations": _AT_LEAST_0,
    "games": _AT_LEAST_1,
    "decisions": _AT_LEAST_1,
    "simulations": _AT_LEAST_1,
    "c_puct": _POSITIVE,
    "dirichlet_alpha": _POSITIVE,
    "noise_fraction": _SHARE,
    "temperature_turns": _AT_LEAST_0,
    "value_mix": _SHARE,
    "max_turns": (int, lambda v: v >= 1, "an integer >= 1 or null (4 * N * N)"),
    "replay_size": _AT_LEAST_1,
    "batch_size": _AT_LEAST_1,
    "sample_reuse": _POSITIVE,
    "learning_rate": _POSITIVE,
    "weight_decay": (float, lambda v: v >= 0, "a number >= 0"),
    "imitation_games": _AT_LEAST_0,
    "imitation_teacher": (str, lambda v: True, "an agent spec"),
    "imitation_random_actions": _AT_LEAST_0,
    "imitation_epochs": _AT_LEAST_0,
    "imitation_value_mix": _SHARE,
    "checkpoint_every": _AT_LEAST_1,
    "eval_every": _AT_LEAST_0,
    "eval_games": _AT_LEAST_1,
    "eval_time_limit": _POSITIVE,
    "seed": (int, lambda v: True, "an integer"),
    "torch_threads": _AT_LEAST_1,
    "progress_bar": (bool, lambda v: True, "true or false"),
}
"""What each field of :class:`AlphaZeroConfig` must be (``ladder``: a list of specs)."""


# --- The network, in torch ---------------------------------------------------------------


class _Block(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv2(torch.relu(self.conv1(x)))
        return torch.relu(x + y)


class AlphaZeroNet(nn.Module):
    """The torch twin of :class:`agents.mcts.network.Network` (same weight names and shapes)."""

    def __init__(
        self, board_size: int, channels: int, blocks: int, hidden: int,
        decay: int = DEFAULT_DECAY,
    ) -> None:
        super().__init__()
        self.board_size = board_size
        self.decay = decay
        self.stem = nn.Conv2d(INPUT_PLANES, channels, 3, padding=1)
        self.blocks = nn.ModuleList(_Block(channels) for _ in range(blocks))
        self.policy = nn.Conv2d(channels, 1, 1)
        self.value_hidden = nn.Linear(channels, hidden)
        self.value_out = nn.Linear(hidden, 1)

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits ``(batch, N*N)`` and values ``(batch,)`` of inputs ``(batch, N, N, 5)``."""
        x = torch.relu(self.stem(planes.permute(0, 3, 1, 2)))
        for block in self.blocks:
            x = block(x)
        logits = self.policy(x).flatten(1)
        hidden = torch.relu(self.value_hidden(x.mean(dim=(2, 3))))
        values = torch.tanh(self.value_out(hidden)).squeeze(1)
        return logits, values

    def to_network(self) -> Network:
        """The weights as a NumPy :class:`~agents.mcts.network.Network`."""
        weights = {
            name: tensor.detach().cpu().numpy().astype(np.float32)
            for name, tensor in self.state_dict().items()
        }
        return Network(self.board_size, weights, len(self.blocks), self.decay)

    def evaluator(self) -> PlanesEvaluator:
        """The network as the batched search's evaluator (no gradients)."""

        def evaluate(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            with torch.no_grad():
                logits, values = self(torch.from_numpy(planes))
            return logits.numpy(), values.numpy()

        return evaluate


def build_net(config: AlphaZeroConfig) -> AlphaZeroNet:
    """A network of the run's size: random, or the weights of ``initial_network``.

    Raises:
        ValueError: (:class:`~agents.mcts.network.IncompatibleNetworkError`) if the initial
            network cannot be read or is of another size or game.
    """
    net = AlphaZeroNet(
        config.board_size, config.channels, config.blocks, config.hidden, config.decay
    )
    if config.initial_network is not None:
        start = load_network(config.initial_network)
        ours = {name: tuple(tensor.shape) for name, tensor in net.state_dict().items()}
        theirs = {name: array.shape for name, array in start.weights.items()}
        game = (start.board_size, start.decay)
        if ours != theirs or game != (config.board_size, config.decay):
            raise IncompatibleNetworkError(
                f"{config.initial_network} is a network of {start.channels} channels and "
                f"{start.blocks} blocks for board {start.board_size} decay {start.decay}; "
                f"this run needs channels={config.channels}, blocks={config.blocks}, "
                f"hidden={config.hidden} for board {config.board_size} decay {config.decay}"
            )
        net.load_state_dict({name: torch.from_numpy(array.copy())
                             for name, array in start.weights.items()})
    return net


# --- Samples and the replay buffer -----------------------------------------------------


@dataclass
class Samples:
    """Training samples: observations ``(n, N, N, 4)`` int8, masks and policy targets
    ``(n, N*N)``, value targets ``(n,)``."""

    observations: np.ndarray
    masks: np.ndarray
    policies: np.ndarray
    values: np.ndarray

    def __len__(self) -> int:
        return len(self.values)

    @classmethod
    def empty(cls, board_size: int) -> Samples:
        """No samples."""
        n = board_size
        return cls(
            np.zeros((0, n, n, NUM_PLANES), np.int8),
            np.zeros((0, n * n), np.bool_),
            np.zeros((0, n * n), np.float32),
            np.zeros(0, np.float32),
        )

    @classmethod
    def concatenate(cls, parts: Sequence[Samples]) -> Samples:
        """The samples of ``parts``, in order."""
        return cls(*(np.concatenate([getattr(p, f.name) for p in parts])
                     for f in dataclasses.fields(cls)))

    def take(self, indices: np.ndarray) -> Samples:
        """The samples at ``indices``."""
        return Samples(*(getattr(self, f.name)[indices] for f in dataclasses.fields(self)))


class _SampleRecorder:
    """Collects one game's decisions; the value targets are filled in when it ends."""

    def __init__(self) -> None:
        self.rows: list[tuple[np.ndarray, np.ndarray, np.ndarray, int, float]] = []

    def add(
        self, observation: np.ndarray, mask: np.ndarray, policy: np.ndarray, player: int,
        search_value: float,
    ) -> None:
        """One decision: what its player saw, the legal mask, the policy target and the
        search's value of the position for that player."""
        self.rows.append((observation, mask, policy, player, search_value))

    def finish(self, winner: int, value_mix: float) -> Samples:
        values = []
        for *_, player, search_value in self.rows:
            outcome = 0.0 if winner == core.NO_PLAYER else (1.0 if winner == player else -1.0)
            values.append((1 - value_mix) * outcome + value_mix * search_value)
        return Samples(
            np.stack([row[0] for row in self.rows]),
            np.stack([row[1] for row in self.rows]),
            np.stack([row[2] for row in self.rows]).astype(np.float32),
            np.array(values, np.float32),
        )


class ReplayBuffer:
    """The latest ``capacity`` samples; minibatches drawn uniformly."""

    def __init__(self, board_size: int, capacity: int) -> None:
        self.capacity = capacity
        self.samples = Samples.empty(board_size)

    def __len__(self) -> int:
        return len(self.samples)

    def add(self, samples: Samples) -> None:
        """Append ``samples``, dropping the oldest beyond the capacity."""
        merged = Samples.concatenate([self.samples, samples])
        start = max(0, len(merged) - self.capacity)
        self.samples = merged.take(np.arange(start, len(merged)))

    def sample(self, rng: np.random.Generator, size: int) -> Samples:
        """``size`` samples drawn uniformly with replacement."""
        return self.samples.take(rng.integers(0, len(self.samples), size))

    def save(self, path: Path) -> None:
        """Write the buffer to ``path`` (``.npz``), atomically."""
        save_npz_atomically(path, dataclasses.asdict(self.samples))

    def load(self, path: Path) -> None:
        """Read a buffer written by :meth:`save` (for this buffer's board size).

        Raises:
            DamagedRunFileError: if the file cannot be read, lacks an array, or holds
                arrays of other shapes or kinds, naming the file and what to do.
        """
        empty = Samples.empty(self.samples.observations.shape[1])
        try:
            with np.load(path) as data:
                arrays = {item.name: np.asarray(data[item.name])
                          for item in dataclasses.fields(Samples)}
        except KeyError as error:
            raise _damaged_buffer(path, f"it has no array {error}") from None
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
            raise _damaged_buffer(path, f"{type(error).__name__}: {error}") from None
        for name, array in arrays.items():
            expected = getattr(empty, name)
            if array.dtype != expected.dtype or array.shape[1:] != expected.shape[1:]:
                raise _damaged_buffer(
                    path, f"its {name} are {array.dtype} {array.shape}, not "
                    f"{expected.dtype} (n, {', '.join(map(str, expected.shape[1:]))})"
                )
        if len({len(array) for array in arrays.values()}) != 1:
            raise _damaged_buffer(path, "its arrays hold different numbers of samples")
        self.samples = Samples(**arrays)
        self.add(Samples.empty(empty.observations.shape[1]))  # keep the latest ``capacity``


def _damaged_buffer(path: Path, problem: str) -> DamagedRunFileError:
    return DamagedRunFileError(
        f"the replay buffer {path} is damaged ({problem}); delete it to resume with an "
        "empty buffer (the checkpoint keeps the network), or restore a good copy"
    )


# --- Self-play ---------------------------------------------------------------------------


class SelfPlay:
    """``config.games`` self-play games on the batched engine (:mod:`trap_env.vector`).

    Every decision searches all the games at once (:class:`agents.mcts.batched.BatchedTree`,
    one network evaluation per simulation step for all of them), then plays each game's
    choice and draws the landings of its throws. A finished game is replaced at once, which
    keeps the batches full; a game in progress carries over to the next call of
    :meth:`play` (with the network of that time). Every draw comes from ``rng``.
    """

    def __init__(self, config: AlphaZeroConfig, rng: np.random.Generator) -> None:
        self.config = config
        self.rng = rng
        self.t = vector.tables(config.board_size, config.decay)
        self.games = vector.initial_batch(self.t, config.games)
        self.recorders = [_SampleRecorder() for _ in range(config.games)]

    def play(self, evaluate: PlanesEvaluator, num_decisions: int) -> tuple[Samples, list[int]]:
        """Make ``num_decisions`` decisions in every game; the samples and winners (-1: draw)
        of the games that ended meanwhile."""
        config = self.config
        finished: list[Samples] = [Samples.empty(config.board_size)]
        winners: list[int] = []
        for _ in range(num_decisions):
            tree = BatchedTree(
                vector.Engine(self.t), self.games, config.simulations, config.c_puct,
                config.turn_limit, (config.dirichlet_alpha, config.noise_fraction), self.rng,
            )
            tree.run(evaluate)
            self._record(tree)
            games = vector.apply(self.t, self.games, self._choose(tree))
            landing = games.phase == vector.LANDING
            words = self.rng.integers(0, 2**64, size=games.size, dtype=np.uint64)
            games = vector.apply_landings(
                self.t, games, vector.sample_landings(self.t, games, words), landing
            )
            ended = vector.is_over(games) | vector.is_truncated(games, config.turn_limit)
            for slot in np.flatnonzero(ended).tolist():
                winner = int(games.winner[slot])
                finished.append(self.recorders[slot].finish(winner, config.value_mix))
                winners.append(winner)
                self.recorders[slot] = _SampleRecorder()
            if ended.any():
                games = vector.scatter(
                    games, ended, vector.initial_batch(self.t, int(ended.sum()))
                )
            self.games = games
        return Samples.concatenate(finished), winners

    def _record(self, tree: BatchedTree) -> None:
        """A sample of every game's decision: the position, the visit distribution and
        the root's value (the priors where nothing was visited: one simulation)."""
        visits = tree.root_visits()
        totals = visits.sum(axis=1, keepdims=True)
        policies = np.where(totals > 0, visits / np.maximum(totals, 1), tree.root_priors())
        observations = vector.observations(self.t, self.games, self.games.player)
        masks = tree.root_legal().copy()  # rows outlive the tree: not views into it
        values = tree.root_values()
        for slot, recorder in enumerate(self.recorders):
            recorder.add(observations[slot], masks[slot], policies[slot],
                         int(self.games.player[slot]), float(values[slot]))

    def _choose(self, tree: BatchedTree) -> np.ndarray:
        """The most visited action; in the first ``temperature_turns`` turns one drawn in
        proportion to the visits."""
        actions = tree.best_actions()
        early = np.flatnonzero(self.games.turn < self.config.temperature_turns)
        if len(early):
            visits = tree.root_visits()[early]
            weights = np.where(visits.sum(axis=1, keepdims=True) > 0, visits,
                               tree.root_priors()[early])
            cumulative = np.cumsum(weights, axis=1)
            draws = self.rng.random(len(early)) * cumulative[:, -1]
            actions[early] = np.argmax(cumulative > draws[:, None], axis=1)
        return actions


# --- Imitation ----------------------------------------------------------------------------


def imitation_samples(
    teacher: str, num_games: int, config: AlphaZeroConfig, rng: random.Random,
    progress: Callable[[int], None] | None = None,
) -> Samples:
    """Samples of ``num_games`` games of ``teacher`` against itself (one-hot policies).

    Value targets mix the outcome and the teacher's reported value (``imitation_value_mix``).

    Each game opens with 0..``config.imitation_random_actions`` uniformly random actions
    (not recorded), so that the deterministic teacher's games differ.
    """
    agents = [make_agent(teacher, seed=rng.getrandbits(32)) for _ in range(2)]
    parts = []
    for _ in range(num_games):
        parts.append(_teacher_game(agents, config, rng))
        if progress is not None:
            progress(1)
    return Samples.concatenate(parts)


def _teacher_game(agents: list[Any], config: AlphaZeroConfig, rng: random.Random) -> Samples:
    for agent in agents:
        agent.reset(seed=rng.getrandbits(32))
    state = core.initial_state(config.game)
    recorder = _SampleRecorder()
    random_actions = rng.randint(0, config.imitation_random_actions)
    decisions = 0
    while core.outcome(state, config.turn_limit) is None:
        if decisions < random_actions:
            action = rng.choice(core.legal_actions(state))
        else:
            teacher = agents[state.player]
            action = teacher.select_action(state)
            policy = np.zeros(state.board_size ** 2)
            policy[action] = 1.0
            mask = np.array(core.legal_action_mask(state), np.bool_)
            recorder.add(observe(state, state.player), mask, policy, state.player,
                         _teacher_value(teacher))
        decisions += 1
        state = core.apply(state, action)
        if state.phase is Phase.LANDING:
            state = core.apply(state, core.sample_landing(state, rng))
    if not recorder.rows:
        return Samples.empty(config.board_size)
    return recorder.finish(state.winner, config.imitation_value_mix)


def _teacher_value(teacher: Any) -> float:
    """The teacher's own value of its choice, if it reports one (search agents do)."""
    stats = getattr(teacher, "last_search", None)
    value = getattr(stats, "value", 0.0)
    return max(-1.0, min(1.0, float(value)))


# --- Learning ----------------------------------------------------------------------------


def augment(samples: Samples, symmetry: int) -> Samples:
    """``samples`` turned by one of the square's eight symmetries (0: identity)."""
    n = samples.observations.shape[1]

    def turn(boards: np.ndarray) -> np.ndarray:
        boards = np.rot90(boards, symmetry % 4, axes=(1, 2))
        return boards[:, :, ::-1] if symmetry >= 4 else boards

    def turn_flat(cells: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(turn(cells.reshape(-1, n, n))).reshape(-1, n * n)

    return Samples(
        np.ascontiguousarray(turn(samples.observations)),
        turn_flat(samples.masks),
        turn_flat(samples.policies),
        samples.values,
    )


def train_step(
    net: AlphaZeroNet, optimizer: torch.optim.Optimizer, batch: Samples
) -> tuple[float, float]:
    """One gradient step on ``batch``; returns (policy loss, value loss)."""
    ones = np.ones((*batch.observations.shape[:3], 1), np.float32)
    planes = torch.from_numpy(np.concatenate([batch.observations.astype(np.float32), ones], -1))
    logits, values = net(planes)
    masks = torch.from_numpy(batch.masks)
    logits = logits.masked_fill(~masks, -1e9)
    targets = torch.from_numpy(batch.policies)
    policy_loss = -(targets * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
    value_loss = ((values - torch.from_numpy(batch.values)) ** 2).mean()
    optimizer.zero_grad()
    (policy_loss + value_loss).backward()
    optimizer.step()
    return policy_loss.item(), value_loss.item()


def fit(
    net: AlphaZeroNet,
    optimizer: torch.optim.Optimizer,
    buffer: ReplayBuffer,
    steps: int,
    batch_size: int,
    rng: np.random.Generator,
) -> tuple[float, float]:
    """``steps`` gradient steps on random, randomly turned minibatches; mean losses."""
    policy_total = value_total = 0.0
    for _ in range(steps):
        batch = augment(buffer.sample(rng, batch_size), int(rng.integers(8)))
        policy_loss, value_loss = train_step(net, optimizer, batch)
        policy_total += policy_loss
        value_total += value_loss
    return policy_total / max(steps, 1), value_total / max(steps, 1)


# --- Evaluation ----------------------------------------------------------------------------


def evaluate_ladder(
    network_path: Path, config: AlphaZeroConfig, iteration: int, run: Path
) -> dict[str, float]:
    """Play the network's ``mcts`` agent against the ladder; Elo ratings of all players.

    The ladder's own round robin is played once per run (``ladder.jsonl``) so that the fit
    knows how the rungs compare; each evaluation appends to ``eval.jsonl``.
    """
    from agents.arena.match import derive_seed
    from agents.arena.stats import elo_ratings
    from agents.arena.tournament import GameTask, RunConfig, load_results, round_robin, run_games

    # The agents keep their own clocks; the runner enforces none (a rung's rare slow turn
    # should not decide a game).
    settings = RunConfig(board_size=config.board_size, time_budget=None, workers=0)
    ladder_file = run / "ladder.jsonl"
    # Resumed, so that a round robin cut short by a stopped run is completed, never redone.
    tasks = round_robin(config.ladder, config.eval_games, config.seed)
    run_games(tasks, ladder_file, settings, resume=True, progress=False)
    spec = f"mcts:path={network_path},time_limit={config.eval_time_limit}"
    tasks = []
    for rung in config.ladder:
        for number in range(config.eval_games):
            seats = (spec, rung) if number % 2 == 0 else (rung, spec)
            tasks.append(GameTask(f"{iteration} {rung} #{number}", (spec, rung), seats,
                                  derive_seed(config.seed, iteration, rung, number)))
    eval_file = run / f"eval_{iteration:04d}.jsonl"
    # A resumed run may evaluate an iteration again (it was evaluated after the checkpoint
    # it resumes from): the new games replace the old.
    run_games(tasks, eval_file, settings, overwrite=True, progress=False)
    records = load_results(ladder_file)
    for path in sorted(run.glob("eval_*.jsonl")):
        records += load_results(path)
    return elo_ratings(records)


# --- The run -------------------------------------------------------------------------------


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
            read (or one that is not plain data), naming the file and what to do.
        ValueError: if ``run_dir`` cannot be a run folder.
    """
    run = Path(config.run_dir)
    torch.set_num_threads(config.torch_threads)
    torch.manual_seed(config.seed)
    # A resumed run's weights come from its checkpoint, not from the initial network.
    net = build_net(dataclasses.replace(config, initial_network=None) if resume else config)
    optimizer = torch.optim.Adam(
        net.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
    )
    buffer = ReplayBuffer(config.board_size, config.replay_size)
    progress = _Progress()
    rng = random.Random(config.seed)
    np_rng = np.random.default_rng(config.seed)
    if resume:
        progress, rng, np_rng = _load_checkpoint(run, net, optimizer, buffer)
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
        steps = math.ceil(config.games * config.decisions * config.sample_reuse
                          / config.batch_size) if len(buffer) else 0
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
    config: AlphaZeroConfig, net: AlphaZeroNet, optimizer: torch.optim.Optimizer,
    buffer: ReplayBuffer, rng: random.Random, np_rng: np.random.Generator, run: Path,
) -> None:
    if not config.imitation_games:
        return
    from tqdm import tqdm

    with tqdm(total=config.imitation_games, desc="teacher games",
              disable=not config.progress_bar) as bar:
        samples = imitation_samples(config.imitation_teacher, config.imitation_games, config,
                                    rng, bar.update)
    teacher = ReplayBuffer(config.board_size, len(samples))
    teacher.add(samples)
    teacher.save(run / "imitation.npz")
    steps = math.ceil(len(samples) * config.imitation_epochs / config.batch_size)
    net.train()
    policy_loss, value_loss = fit(net, optimizer, teacher, steps, config.batch_size, np_rng)
    buffer.add(samples)
    _export(run, net, 0)
    print(f"imitation: {len(samples)} samples, {steps} steps, policy loss {policy_loss:.3f}, "
          f"value loss {value_loss:.3f}", file=sys.stderr)


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
    _append_csv(run / "log.csv", row)
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
        **{f"elo_{rung}": round(value - anchor, 1) for rung, value in ratings.items()
           if not rung.startswith("mcts:")},
    }
    _append_csv(run / "elo.csv", row)
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
    rows = _elo_rows(run / "elo.csv")
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
    with path.open(newline="") as source:
        for row in csv.DictReader(source):
            try:
                rows.append({key: float(value) for key, value in row.items()})
            except (TypeError, ValueError):  # a row cut short, or of another header
                continue
    return [row for row in rows if "minutes" in row and "elo_vs_random" in row]


def _append_csv(path: Path, row: dict[str, Any]) -> None:
    """Add ``row`` to the CSV file ``path`` (a header first in a new file), atomically."""
    old = ""
    if path.is_file():
        with path.open(newline="") as source:
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

    return tqdm(total=config.iterations or None, initial=progress.iteration, desc="iterations",
                disable=not config.progress_bar)


def _save_checkpoint(
    run: Path, net: AlphaZeroNet, optimizer: torch.optim.Optimizer, buffer: ReplayBuffer,
    progress: _Progress, rng: random.Random, np_rng: np.random.Generator,
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


# --- Command line --------------------------------------------------------------------------


def _check_agents(config: AlphaZeroConfig) -> None:
    """Build the teacher and the ladder once, before an hour of training depends on them.

    Raises:
        ValueError: (``SpecError``, ``UnsupportedGameError``) naming the spec at fault.
    """
    from agents.arena.tournament import RunConfig, check_specs

    specs = [*config.ladder]
    if config.imitation_games:
        specs.append(config.imitation_teacher)
    check_specs(specs, RunConfig(board_size=config.board_size, decay=config.decay))


def build_parser(
    parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser,
) -> argparse.ArgumentParser:
    """The command line of ``trap-train alphazero`` (``parser_class``: the CLI's parser)."""
    parser = parser_class(
        prog="trap-train alphazero", description=__doc__,
        formatter_class=argparse.RawTextHelpFormatter,
    )
    parser.add_argument("--run-dir", required=True, help="the run folder")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in --run-dir; this builds the agent specs its config.json "
        "names (exec: commands and dotted paths run code): resume only folders you trust",
    )
    parser.add_argument("--ladder", nargs="+", metavar="SPEC", help="evaluation opponents")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    for item in dataclasses.fields(AlphaZeroConfig):
        if item.name in ("run_dir", "ladder", "progress_bar"):
            continue
        kind = {"int": int, "float": float, "str": str, "int | None": int,
                "str | None": str}[str(item.type)]
        parser.add_argument("--" + item.name.replace("_", "-"), type=kind)
    return parser


def config_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`AlphaZeroConfig` fields that the arguments set."""
    fields = {
        item.name: getattr(args, item.name)
        for item in dataclasses.fields(AlphaZeroConfig)
        if item.name not in ("run_dir", "progress_bar")
    }
    if args.no_progress:
        fields["progress_bar"] = False
    return {name: value for name, value in fields.items() if value is not None}


def main(
    argv: Sequence[str] | None = None,
    parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser,
) -> int:
    """Train, or resume, one AlphaZero run; print where the network is.

    The whole config (every setting, the agent specs of the teacher and the ladder, and on
    ``--resume`` the flags against the stored run) is checked before the run folder is
    created or changed. Note that ``--resume`` builds the agent specs stored in the run's
    ``config.json`` (``exec:`` commands and dotted paths run code): resume only runs whose
    folder you trust.
    """
    args = build_parser(parser_class).parse_args(argv)
    prog = "trap-train alphazero"
    try:
        config = _config(args)
        _check_agents(config)
        latest = train(config, resume=args.resume)
    except (OSError, ValueError) as error:  # FileExistsError, FileNotFoundError too
        print(f"{prog}: error: {str(error).replace(chr(10), ' ')}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prog}: error: interrupted; run again with --resume to continue from the last "
              "checkpoint", file=sys.stderr)
        return 1
    print(f"latest network: {latest}; per iteration: {Path(args.run_dir) / 'networks'}")
    return 0


def _config(args: argparse.Namespace) -> AlphaZeroConfig:
    """The run's config: new from the flags, or the stored one with the flags it can take.

    Raises:
        ValueError: for a bad run folder, setting or stored config, or a flag that a
            resumed run cannot honour (see :data:`FIXED_ON_RESUME`).
        FileNotFoundError: for ``--resume`` without a stored config.
    """
    run = run_folder(args.run_dir)
    overrides = config_from_args(args)
    if not args.resume:
        return AlphaZeroConfig(run_dir=args.run_dir, **overrides)
    saved = AlphaZeroConfig.load(run / CONFIG_FILE)
    check_resume_overrides(saved, overrides, FIXED_ON_RESUME, {})
    # The folder may have moved since the run began: it is where the run is now.
    return dataclasses.replace(saved, run_dir=args.run_dir, **overrides)



if __name__ == "__main__":
    sys.exit(main())

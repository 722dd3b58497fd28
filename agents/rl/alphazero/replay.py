"""Training samples and the replay buffer of an AlphaZero run.

Part of :mod:`agents.rl.alphazero`.
"""

from __future__ import annotations

import dataclasses
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.files import (
    DamagedRunFileError,
    save_npz_atomically,
)
from trap_env.batched import NO_WINNER


@dataclass
class Samples:
    """Training samples: observations ``(n, *observation_shape)`` int8, masks and policy
    targets ``(n, num_actions)``, value targets ``(n,)``."""

    observations: np.ndarray
    masks: np.ndarray
    policies: np.ndarray
    values: np.ndarray

    def __len__(self) -> int:
        return len(self.values)

    @classmethod
    def empty(cls, observation_shape: tuple[int, ...], num_actions: int) -> Samples:
        """No samples of a game whose observations and actions are of these sizes."""
        return cls(
            np.zeros((0, *observation_shape), np.int8),
            np.zeros((0, num_actions), np.bool_),
            np.zeros((0, num_actions), np.float32),
            np.zeros(0, np.float32),
        )

    @property
    def shapes(self) -> tuple[tuple[int, ...], int]:
        """The observation shape and the action count (:meth:`empty`'s arguments)."""
        return self.observations.shape[1:], self.masks.shape[1]

    @classmethod
    def concatenate(cls, parts: Sequence[Samples]) -> Samples:
        """The samples of ``parts``, in order."""
        return cls(
            *(np.concatenate([getattr(p, f.name) for p in parts]) for f in dataclasses.fields(cls))
        )

    def take(self, indices: np.ndarray) -> Samples:
        """The samples at ``indices``."""
        return Samples(*(getattr(self, f.name)[indices] for f in dataclasses.fields(self)))


class _SampleRecorder:
    """Collects one game's decisions; the value targets are filled in when it ends."""

    def __init__(self) -> None:
        self.rows: list[tuple[np.ndarray, np.ndarray, np.ndarray, int, float]] = []

    def add(
        self,
        observation: np.ndarray,
        mask: np.ndarray,
        policy: np.ndarray,
        player: int,
        search_value: float,
    ) -> None:
        """One decision: what its player saw, the legal mask, the policy target and the
        search's value of the position for that player."""
        self.rows.append((observation, mask, policy, player, search_value))

    def finish(self, winner: int, value_mix: float) -> Samples:
        """The game's samples, once it ended with ``winner`` (:data:`NO_WINNER`: a draw)."""
        values = []
        for *_, player, search_value in self.rows:
            outcome = 0.0 if winner == NO_WINNER else (1.0 if winner == player else -1.0)
            values.append((1 - value_mix) * outcome + value_mix * search_value)
        return Samples(
            np.stack([row[0] for row in self.rows]),
            np.stack([row[1] for row in self.rows]),
            np.stack([row[2] for row in self.rows]).astype(np.float32),
            np.array(values, np.float32),
        )


class ReplayBuffer:
    """The latest ``capacity`` samples; minibatches drawn uniformly."""

    def __init__(self, observation_shape: tuple[int, ...], num_actions: int, capacity: int) -> None:
        self.capacity = capacity
        self.samples = Samples.empty(observation_shape, num_actions)

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
        """Read a buffer written by :meth:`save` (for this buffer's game and board size).

        Raises:
            DamagedRunFileError: if the file cannot be read, lacks an array, or holds
                arrays of other shapes or kinds, naming the file and what to do.
        """
        empty = Samples.empty(*self.samples.shapes)
        try:
            with np.load(path) as data:
                arrays = {
                    item.name: np.asarray(data[item.name]) for item in dataclasses.fields(Samples)
                }
        except KeyError as error:
            raise _damaged_buffer(path, f"it has no array {error}") from None
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
            raise _damaged_buffer(path, f"{type(error).__name__}: {error}") from None
        for name, array in arrays.items():
            expected = getattr(empty, name)
            if array.dtype != expected.dtype or array.shape[1:] != expected.shape[1:]:
                raise _damaged_buffer(
                    path,
                    f"its {name} are {array.dtype} {array.shape}, not "
                    f"{expected.dtype} (n, {', '.join(map(str, expected.shape[1:]))})",
                )
        if len({len(array) for array in arrays.values()}) != 1:
            raise _damaged_buffer(path, "its arrays hold different numbers of samples")
        self.samples = Samples(**arrays)
        self.add(empty)  # keep the latest ``capacity``


def _damaged_buffer(path: Path, problem: str) -> DamagedRunFileError:
    return DamagedRunFileError(
        f"the replay buffer {path} is damaged ({problem}); delete it to resume with an "
        "empty buffer (the checkpoint keeps the network), or restore a good copy"
    )

"""The ``mcts`` agent's network, evaluated in NumPy: a small residual CNN over the board planes.

The same weights are trained in torch (:mod:`agents.rl.alphazero`) and saved as an ``.npz``
file; this module reads that file and runs the forward pass with NumPy alone, so playing
needs no torch.

Architecture (channel-last here, channel-first in torch; the weights are stored the torch
way, ``(out, in, kh, kw)``):

* input: the game's observation planes (``game.observe``; Trap!'s four of
  :func:`trap_env.observation.observe`) from the side to act, plus a plane of ones, so that
  the zero padding of the convolutions marks the board's edge; the planes' count is
  ``game.observation_shape(config)[-1] + 1`` (:func:`input_planes`);
* a 3x3 convolution to ``channels`` features, then ``blocks`` residual blocks of two 3x3
  convolutions (ReLU after the first, ReLU after the skip sum);
* policy head: a 1x1 convolution to one logit per cell (``N*N`` logits), used for the move
  and for the throw alike (the phase plane tells them apart);
* value head: the mean of the feature map over the cells, a hidden layer (ReLU) and one
  output through ``tanh``: the expected result for the player to act, in ``[-1, 1]``.

Example:
    >>> net = Network.initial(board_size=5, channels=8, blocks=1, hidden=8, seed=0)
    >>> logits, values = net.evaluate([initial_state(GameConfig(5))])
    >>> logits.shape, values.shape
    ((1, 25), (1,))
"""

from __future__ import annotations

import functools
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.files import save_npz_atomically
from trap_env.core import DEFAULT_DECAY, GameConfig, initial_state
from trap_env.game import Game
from trap_env.observation import NUM_PLANES
from trap_env.trap import GAME as TRAP

__all__ = [
    "FORMAT_VERSION",
    "INPUT_PLANES",
    "IncompatibleNetworkError",
    "Network",
    "encode",
    "input_planes",
    "load_network",
]

FORMAT_VERSION = 1
"""The layout of the saved weights; a file with another version is refused."""
INPUT_PLANES = NUM_PLANES + 1
"""Trap!'s observation planes plus the plane of ones."""

FloatArray = np.ndarray


class IncompatibleNetworkError(ValueError):
    """A weights file that is not an ``mcts`` network, or one this code cannot read."""


def input_planes(game: Game[Any, Any], config: Any) -> int:
    """The planes of the network's input for ``game``: its observation's and one of ones."""
    return game.observation_shape(config)[-1] + 1


def encode(states: Sequence[Any], game: Game[Any, Any] = TRAP) -> FloatArray:
    """The network's input for decision ``states`` of ``game``: ``(batch, N, N, planes + 1)``
    float32 (Trap!: 5 planes).

    Each state is seen from its player to act (``game.observe``); the last plane is all ones.
    """
    shape = game.observation_shape(game.config_of(states[0]))
    batch = np.ones((len(states), *shape[:-1], shape[-1] + 1), dtype=np.float32)
    for index, state in enumerate(states):
        batch[index, ..., :-1] = game.observe(state, game.current_player(state))
    return batch


@dataclass(frozen=True)
class Network:
    """The weights of one network and its NumPy forward pass.

    Attributes:
        board_size: the N it was trained for (its value head sees any N, but its play
            was learnt on this one, so other sizes are refused by the agent).
        weights: name -> float32 array, named as the torch module's ``state_dict``.
        blocks: the number of residual blocks.
        decay: the rule variant it was trained for (see :class:`trap_env.core.GameConfig`).
    """

    board_size: int
    weights: dict[str, FloatArray]
    blocks: int
    decay: int = DEFAULT_DECAY

    @classmethod
    def initial(
        cls,
        board_size: int,
        channels: int,
        blocks: int,
        hidden: int,
        seed: int = 0,
        planes: int = INPUT_PLANES,
    ) -> Network:
        """A randomly initialised network (for tests and as a starting point)."""
        rng = np.random.default_rng(seed)
        shapes = weight_shapes(channels, blocks, hidden, planes)
        weights = {
            name: (rng.standard_normal(shape) / np.sqrt(_fan_in(shape))).astype(np.float32)
            if len(shape) > 1
            else np.zeros(shape, dtype=np.float32)
            for name, shape in shapes.items()
        }
        return cls(board_size, weights, blocks)

    @property
    def channels(self) -> int:
        """The number of features of the trunk."""
        return int(self.weights["stem.weight"].shape[0])

    @property
    def input_planes(self) -> int:
        """The planes of its input (:func:`input_planes` of the game it plays)."""
        return int(self.weights["stem.weight"].shape[1])

    def evaluate(
        self, states: Sequence[Any], game: Game[Any, Any] = TRAP
    ) -> tuple[FloatArray, FloatArray]:
        """Policy logits ``(batch, N*N)`` and values ``(batch,)`` of decision states."""
        return self.forward(encode(states, game))

    def check_shapes(self, game: Game[Any, Any], config: Any) -> None:
        """Refuse a game whose observation or actions this network does not fit.

        Raises:
            IncompatibleNetworkError: naming the planes or actions that differ.
        """
        planes, actions = input_planes(game, config), game.num_actions(config)
        side = int(np.prod(game.observation_shape(config)[:-1]))
        if planes != self.input_planes or actions != side:
            raise IncompatibleNetworkError(
                f"an mcts network reads {self.input_planes} planes and gives one logit per "
                f"cell; {game.title} has {planes} input planes and {actions} actions on "
                f"{side} cells"
            )

    def forward(self, planes: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The forward pass of encoded inputs ``(batch, N, N, 5)``: (logits, values)."""
        w, matrices = self.weights, self._conv_matrices
        windows = _window_indices(planes.shape[1])
        x = _relu(_conv3x3(planes, matrices["stem"], w["stem.bias"], windows))
        for block in range(self.blocks):
            prefix = f"blocks.{block}."
            y = _relu(_conv3x3(x, matrices[prefix + "conv1"], w[prefix + "conv1.bias"], windows))
            y = _conv3x3(y, matrices[prefix + "conv2"], w[prefix + "conv2.bias"], windows)
            x = _relu(x + y)
        batch = x.shape[0]
        policy = w["policy.weight"].reshape(1, -1)
        logits = x.reshape(batch, -1, x.shape[-1]) @ policy.T + w["policy.bias"]
        pooled = x.mean(axis=(1, 2))
        hidden = _relu(pooled @ w["value_hidden.weight"].T + w["value_hidden.bias"])
        values = np.tanh(hidden @ w["value_out.weight"].T + w["value_out.bias"])
        return logits.reshape(batch, -1), values.reshape(batch)

    @functools.cached_property
    def _conv_matrices(self) -> dict[str, FloatArray]:
        """Each 3x3 convolution's weight ``(out, in, 3, 3)`` as a ``(9 * in, out)`` matrix,
        rows in the order of :func:`_window_indices` (kernel cell, then input channel)."""
        return {
            name.removesuffix(".weight"): np.ascontiguousarray(
                weight.transpose(2, 3, 1, 0).reshape(-1, weight.shape[0])
            )
            for name, weight in self.weights.items()
            if weight.ndim == 4 and weight.shape[2:] == (3, 3)
        }

    def save(self, path: str | Path) -> None:
        """Write the weights and the metadata to ``path`` (an ``.npz`` file), atomically."""
        meta = np.array([FORMAT_VERSION, self.board_size, self.blocks, self.decay], dtype=np.int64)
        arrays: dict[str, FloatArray] = {"__meta__": meta, **self.weights}
        save_npz_atomically(path, arrays)


def weight_shapes(
    channels: int, blocks: int, hidden: int, planes: int = INPUT_PLANES
) -> dict[str, tuple[int, ...]]:
    """Every weight's name and shape, in the torch module's layout (``planes``: the input's,
    :func:`input_planes`)."""
    shapes: dict[str, tuple[int, ...]] = {
        "stem.weight": (channels, planes, 3, 3),
        "stem.bias": (channels,),
    }
    for block in range(blocks):
        for conv in ("conv1", "conv2"):
            shapes[f"blocks.{block}.{conv}.weight"] = (channels, channels, 3, 3)
            shapes[f"blocks.{block}.{conv}.bias"] = (channels,)
    shapes.update(
        {
            "policy.weight": (1, channels, 1, 1),
            "policy.bias": (1,),
            "value_hidden.weight": (hidden, channels),
            "value_hidden.bias": (hidden,),
            "value_out.weight": (1, hidden),
            "value_out.bias": (1,),
        }
    )
    return shapes


def _fan_in(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape[1:]))


def _relu(x: FloatArray) -> FloatArray:
    return np.asarray(np.maximum(x, np.float32(0.0)))


@functools.cache
def _window_indices(board_size: int) -> np.ndarray:
    """For each cell, the flat indices of its 3x3 window in the zero-padded board."""
    side = board_size + 2
    return np.array(
        [
            [(row + dr) * side + col + dc for dr in range(3) for dc in range(3)]
            for row in range(board_size)
            for col in range(board_size)
        ]
    )


def _conv3x3(
    x: FloatArray, matrix: FloatArray, bias: FloatArray, windows: np.ndarray
) -> FloatArray:
    """A 3x3 convolution with zero padding 1 of channel-last maps ``(batch, N, N, C)``."""
    batch, n, _, channels = x.shape
    padded = np.zeros((batch, n + 2, n + 2, channels), dtype=np.float32)
    padded[:, 1:-1, 1:-1] = x
    columns = padded.reshape(batch, -1, channels)[:, windows]  # (batch, N*N, 9, C)
    out = columns.reshape(batch * n * n, -1) @ matrix + bias
    return np.asarray(out).reshape(batch, n, n, -1)


def load_network(path: str | Path) -> Network:
    """The network saved in ``path`` by :meth:`Network.save` (or by the trainer).

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        IncompatibleNetworkError: if the file is not such a network, or one of another
            format version.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no mcts network at {path}; give an .npz saved by trap-train")
    arrays = _read_arrays(path)
    meta = arrays.pop("__meta__", None)
    if (
        meta is None or meta.shape != (4,) or meta.dtype.kind not in "iu"
        or int(meta[0]) != FORMAT_VERSION
    ):
        raise IncompatibleNetworkError(
            f"{path} is not an mcts network of format version {FORMAT_VERSION} "
            f"(metadata {None if meta is None else meta.tolist()!r:.80}); retrain it with "
            "trap-train"
        )
    board_size, blocks, decay = (int(value) for value in meta[1:])
    if not 0 <= blocks <= len(arrays) // 4:  # each block has two weights and two biases
        raise IncompatibleNetworkError(
            f"{path}: its metadata says {blocks} blocks, but it holds {len(arrays)} arrays "
            "(4 a block); the file is damaged or not an mcts network"
        )
    weights = {name: array.astype(np.float32) for name, array in arrays.items()}
    network = Network(board_size, weights, blocks, decay)
    _check_weights(path, network)
    return network


def _read_arrays(path: Path) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` file: numbers only (no pickles), all finite.

    Raises:
        IncompatibleNetworkError: naming the file and what is wrong with it.
    """
    if not zipfile.is_zipfile(path):  # numpy would try it as a pickle and talk of those
        raise IncompatibleNetworkError(
            f"{path} is not an .npz weights file (not a zip archive, which an .npz saved by "
            "trap-train is)"
        )
    try:
        with np.load(path) as data:
            arrays = {name: np.asarray(data[name]) for name in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise IncompatibleNetworkError(
            f"{path} is not a readable .npz weights file ({type(error).__name__}: "
            f"{str(error)[:120]})"
        ) from error
    for name, array in arrays.items():
        if array.dtype.kind not in "iuf":
            raise IncompatibleNetworkError(
                f"{path}: the array {name!r} holds {array.dtype}, not numbers"
            )
        if not np.isfinite(array).all():
            raise IncompatibleNetworkError(
                f"{path}: the weight {name!r} is not finite (NaN or infinity: a network "
                "whose training diverged); use an earlier network"
            )
    return arrays


def _check_weights(path: Path, network: Network) -> None:
    try:
        channels = network.channels
        hidden = int(network.weights["value_hidden.weight"].shape[0])
    except KeyError as error:
        raise IncompatibleNetworkError(f"{path} lacks the weight {error}") from error
    expected = weight_shapes(channels, network.blocks, hidden)
    found = {name: array.shape for name, array in network.weights.items()}
    if found != expected:
        wrong = sorted(set(found.items()) ^ set(expected.items()))
        raise IncompatibleNetworkError(
            f"{path}: weights do not match a network of {channels} channels, "
            f"{network.blocks} blocks and {hidden} hidden units: {wrong[:4]}"
        )
    try:
        config = GameConfig(network.board_size, network.decay)
    except ValueError as error:
        raise IncompatibleNetworkError(f"{path}: {error}") from error
    network.evaluate([initial_state(config)])

"""The ``mcts`` agent's network, evaluated in NumPy: a small residual CNN over the board planes.

The same weights are trained in torch (:mod:`agents.rl.alphazero`) and saved as an ``.npz``
file; this module reads that file and runs the forward pass with NumPy alone, so playing
needs no torch. A network belongs to one game under one set of rules (``game_name`` and
``rules``, the game's :meth:`~trap_env.game.Game.config_params`), which its file records.

Architecture (channel-last here, channel-first in torch; the weights are stored the torch
way, ``(out, in, kh, kw)``):

* input: the game's observation planes (``game.observe``; Trap!'s four of
  :func:`trap_env.trap.observation.observe`, Othello's four) from the side to act, plus a plane
  of ones, so that the zero padding of the convolutions marks the board's edge; the
  planes' count is ``game.observation_shape(config)[-1] + 1`` (:func:`input_planes`), on a
  board of ``rows x cols`` cells (``observation_shape(config)[:2]``);
* a 3x3 convolution to ``channels`` features, then ``blocks`` residual blocks of two 3x3
  convolutions (ReLU after the first, ReLU after the skip sum);
* policy head: one logit per action of the game (``game.num_actions(config)``), laid out by
  :func:`policy_layout`: ``per_cell`` logits from each cell's features by a 1x1 convolution
  (action ``cell * per_cell + j``: Trap!'s and Othello's one per cell, Colosseum's four),
  then ``pooled`` logits from a linear layer on the mean of the feature map
  (``policy_extra``: Othello's pass, or every action of a game with fewer actions than
  cells); a head with no logits has no weights;
* value head: the mean of the feature map over the cells, a hidden layer (ReLU) and one
  output through ``tanh``: the expected result for the player to act, in ``[-1, 1]``.

The file (format version 2): ``__meta__`` ``[2, blocks]``, ``__game__`` the UTF-8 bytes
of ``{"game": NAME, "rules": {...}}``, and the weights by name. Version 1 files (Trap!
only: ``[1, board_size, blocks, decay]``) are read too. A game's bundled networks are the
files of ``agents/<game>/models/`` that are such networks, found by what they record
(:func:`bundled_network`), whatever their names.

Example:
    >>> from trap_env.trap.core import GameConfig, initial_state
    >>> from trap_env.trap.game import GAME
    >>> net = Network.initial(GameConfig(5), channels=8, blocks=1, hidden=8, seed=0, game=GAME)
    >>> logits, values = net.evaluate([initial_state(GameConfig(5))])
    >>> logits.shape, values.shape
    ((1, 25), (1,))
"""

from __future__ import annotations

import functools
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from agents.arena.record_rules import UNNAMED_GAME, record_params
from agents.files import Bundled, bundled_file, save_npz_atomically
from agents.options import rules_text
from agents.zips import UnreadableZipError, parse_json, read_npz
from trap_env.cache import per_board_size
from trap_env.game import Game, played_params
from trap_env.games import UnknownGameError, get_game, recorded_game

__all__ = [
    "FORMAT_VERSION",
    "IncompatibleNetworkError",
    "Network",
    "PolicyLayout",
    "bundled_network",
    "encode",
    "input_planes",
    "load_network",
    "policy_layout",
    "read_network_game",
]

FORMAT_VERSION = 2
"""The layout of the saved weights; a file of another version (but 1) is refused."""

FloatArray = np.ndarray


class IncompatibleNetworkError(ValueError):
    """A weights file that is not an ``mcts`` network, or one this code cannot read."""


def input_planes(game: Game[Any, Any], config: Any) -> int:
    """The planes of the network's input for ``game``: its observation's and one of ones."""
    return game.observation_shape(config)[-1] + 1


class PolicyLayout(NamedTuple):
    """How a network's logits cover a game's actions (:func:`policy_layout`).

    Attributes:
        per_cell: logits from each cell's own features: action ``cell * per_cell + j`` is
            the cell's ``j``-th (cells numbered row by row).
        pooled: logits from the whole board's pooled features, for the actions after those.
    """

    per_cell: int
    pooled: int

    def describe(self) -> str:
        """The logits in words: ``"1 per cell and 1 pooled"``."""
        return f"{self.per_cell} per cell and {self.pooled} pooled"


def policy_layout(game: Game[Any, Any], config: Any) -> PolicyLayout:
    """The policy head of a network for ``game`` under ``config``: one logit per action.

    As many whole sets of one logit per cell as the actions hold, the rest pooled: Trap!
    ``(1, 0)``, Othello ``(1, 1)`` (the pass), Colosseum ``(4, 0)`` (a cell and a side), a
    game of fewer actions than cells (a column to drop in) ``(0, actions)``. The layout
    only says which features each logit reads: any numbering of the actions trains, one
    that numbers them cell by cell lets the per-cell logits read their own cell's.
    """
    cells = int(np.prod(game.observation_shape(config)[:-1]))
    per_cell, pooled = divmod(game.num_actions(config), cells)
    return PolicyLayout(per_cell, pooled)


def encode(states: Sequence[Any], game: Game[Any, Any]) -> FloatArray:
    """The network's input for decision ``states`` of ``game``: ``(batch, rows, cols,
    planes + 1)`` float32 (Trap!: ``(batch, N, N, 5)``).

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
        weights: name -> float32 array, named as the torch module's ``state_dict``.
        blocks: the number of residual blocks.
        game_name: the game it plays, by its registered name (:mod:`trap_env.games`).
        rules: the rules it was trained for, ``game.config_params(config)`` (other rules,
            another board size included, are refused by the agent).
        rulebook: the game object it plays, where ``game_name`` is registered nowhere (a
            game named by its path); None: the game registered as ``game_name``.
    """

    weights: dict[str, FloatArray]
    blocks: int
    game_name: str
    rules: Mapping[str, Any]
    rulebook: Game[Any, Any] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def initial(
        cls,
        config: Any,
        channels: int,
        blocks: int,
        hidden: int,
        seed: int = 0,
        *,
        game: Game[Any, Any],
    ) -> Network:
        """A randomly initialised network for ``game`` under ``config`` (for tests and as a
        starting point)."""
        rng = np.random.default_rng(seed)
        shapes = weight_shapes(
            channels, blocks, hidden, input_planes(game, config), policy_layout(game, config)
        )
        weights = {
            name: (rng.standard_normal(shape) / np.sqrt(_fan_in(shape))).astype(np.float32)
            if len(shape) > 1
            else np.zeros(shape, dtype=np.float32)
            for name, shape in shapes.items()
        }
        return cls(weights, blocks, game.name, game.config_params(config), game)

    @functools.cached_property
    def game(self) -> Game[Any, Any]:
        """The game it plays (looked up once: every evaluation encodes with it)."""
        return self.rulebook if self.rulebook is not None else get_game(self.game_name)

    @property
    def config(self) -> Any:
        """The rules it plays, as the game's config."""
        return self.game.make_config(**self.rules)

    @property
    def channels(self) -> int:
        """The number of features of the trunk."""
        return int(self.weights["stem.weight"].shape[0])

    @property
    def input_planes(self) -> int:
        """The planes of its input (:func:`input_planes` of the game it plays)."""
        return int(self.weights["stem.weight"].shape[1])

    @functools.cached_property
    def layout(self) -> PolicyLayout:
        """Its policy head (:func:`policy_layout` of the game it plays)."""
        return PolicyLayout(
            _outputs(self.weights.get("policy.bias")),
            _outputs(self.weights.get("policy_extra.bias")),
        )

    def describe(self) -> str:
        """What it plays, in words: ``"othello (board_size=8, end_rule=standard)"``."""
        return f"{self.game_name} ({rules_text(self.rules)})"

    def evaluate(self, states: Sequence[Any]) -> tuple[FloatArray, FloatArray]:
        """Policy logits ``(batch, num_actions)`` and values ``(batch,)`` of decision states
        of its game."""
        return self.forward(encode(states, self.game))

    def check_shapes(self, game: Game[Any, Any], config: Any) -> None:
        """Refuse a game whose observation or actions this network does not fit.

        Raises:
            IncompatibleNetworkError: naming the planes or logits that differ.
        """
        planes, layout = input_planes(game, config), policy_layout(game, config)
        if (planes, layout) != (self.input_planes, self.layout):
            cells = int(np.prod(game.observation_shape(config)[:-1]))
            raise IncompatibleNetworkError(
                f"an mcts network of {self.input_planes} input planes gives "
                f"{self.layout.describe()} logits; {game.title} has {planes} input planes and "
                f"{game.num_actions(config)} actions on {cells} cells, which take "
                f"{layout.describe()}"
            )

    def forward(self, planes: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The forward pass of encoded inputs ``(batch, rows, cols, planes)``: (logits,
        values)."""
        w, matrices = self._weights_in_use, self._conv_matrices
        windows = _window_indices(planes.shape[1], planes.shape[2])
        x = _relu(_conv3x3(planes, matrices["stem"], w["stem.bias"], windows))
        for block in range(self.blocks):
            prefix = f"blocks.{block}."
            y = _relu(_conv3x3(x, matrices[prefix + "conv1"], w[prefix + "conv1.bias"], windows))
            y = _conv3x3(y, matrices[prefix + "conv2"], w[prefix + "conv2.bias"], windows)
            x = _relu(x + y)
        batch = x.shape[0]
        pooled = x.mean(axis=(1, 2))
        heads = []
        if self.layout.per_cell:
            policy = w["policy.weight"].reshape(self.layout.per_cell, -1)
            cells = x.reshape(batch, -1, x.shape[-1])
            heads.append((cells @ policy.T + w["policy.bias"]).reshape(batch, -1))
        if self.layout.pooled:
            heads.append(pooled @ w["policy_extra.weight"].T + w["policy_extra.bias"])
        logits = heads[0] if len(heads) == 1 else np.concatenate(heads, axis=1)
        hidden = _relu(pooled @ w["value_hidden.weight"].T + w["value_hidden.bias"])
        values = np.tanh(hidden @ w["value_out.weight"].T + w["value_out.bias"])
        return logits, values.reshape(batch)

    @functools.cached_property
    def _weights_in_use(self) -> dict[str, FloatArray]:
        """The weights the forward pass multiplies by: :attr:`weights` with the negligible
        ones (:data:`NEGLIGIBLE`) set to zero."""
        return {name: _without_negligible(weight) for name, weight in self.weights.items()}

    @functools.cached_property
    def _conv_matrices(self) -> dict[str, FloatArray]:
        """Each 3x3 convolution's weight ``(out, in, 3, 3)`` as a ``(9 * in, out)`` matrix,
        rows in the order of :func:`_window_indices` (kernel cell, then input channel)."""
        return {
            name.removesuffix(".weight"): np.ascontiguousarray(
                weight.transpose(2, 3, 1, 0).reshape(-1, weight.shape[0])
            )
            for name, weight in self._weights_in_use.items()
            if weight.ndim == 4 and weight.shape[2:] == (3, 3)
        }

    def save(self, path: str | Path) -> None:
        """Write the weights, the game and the rules to ``path`` (``.npz``), atomically."""
        meta = np.array([FORMAT_VERSION, self.blocks], dtype=np.int64)
        game = json.dumps({"game": self.game_name, "rules": dict(self.rules)}).encode()
        arrays: dict[str, FloatArray] = {
            "__meta__": meta, "__game__": np.frombuffer(game, np.uint8), **self.weights
        }
        save_npz_atomically(path, arrays)


def weight_shapes(
    channels: int, blocks: int, hidden: int, planes: int, layout: PolicyLayout
) -> dict[str, tuple[int, ...]]:
    """Every weight's name and shape, in the torch module's layout (``planes``: the input's,
    :func:`input_planes`; ``layout``: the policy head's, :func:`policy_layout`)."""
    shapes: dict[str, tuple[int, ...]] = {
        "stem.weight": (channels, planes, 3, 3),
        "stem.bias": (channels,),
    }
    for block in range(blocks):
        for conv in ("conv1", "conv2"):
            shapes[f"blocks.{block}.{conv}.weight"] = (channels, channels, 3, 3)
            shapes[f"blocks.{block}.{conv}.bias"] = (channels,)
    per_cell, pooled = layout
    if per_cell:
        shapes["policy.weight"], shapes["policy.bias"] = (per_cell, channels, 1, 1), (per_cell,)
    if pooled:
        shapes["policy_extra.weight"], shapes["policy_extra.bias"] = (pooled, channels), (pooled,)
    shapes.update(
        {
            "value_hidden.weight": (hidden, channels),
            "value_hidden.bias": (hidden,),
            "value_out.weight": (1, hidden),
            "value_out.bias": (1,),
        }
    )
    return shapes


NEGLIGIBLE = 1e-30
"""Weights smaller than this in magnitude are multiplied as zero. Training leaves some
weights subnormal (under 1.2e-38 in float32), or so small that their products are, and x86
processors multiply subnormal numbers up to a hundred times slower: the shipped Othello
network's convolutions ran 60 times slower with them. A product of such a weight is
lost in the rounding of any sum it joins, unless the sum itself is that small."""


def _without_negligible(weight: FloatArray) -> FloatArray:
    return np.where(np.abs(weight) < NEGLIGIBLE, np.float32(0.0), weight).astype(np.float32)


def _outputs(bias: FloatArray | None) -> int:
    """The outputs of a layer by its bias, 0 for a layer the network lacks."""
    return 0 if bias is None else int(bias.shape[0])


def _fan_in(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape[1:]))


def _relu(x: FloatArray) -> FloatArray:
    return np.asarray(np.maximum(x, np.float32(0.0)))


@per_board_size()
def _window_indices(rows: int, cols: int) -> np.ndarray:
    """For each cell, row by row, the flat indices of its 3x3 window in the zero-padded
    board."""
    side = cols + 2
    return np.array(
        [
            [(row + dr) * side + col + dc for dr in range(3) for dc in range(3)]
            for row in range(rows)
            for col in range(cols)
        ]
    )


def _conv3x3(
    x: FloatArray, matrix: FloatArray, bias: FloatArray, windows: np.ndarray
) -> FloatArray:
    """A 3x3 convolution with zero padding 1 of channel-last maps ``(batch, rows, cols, C)``."""
    batch, rows, cols, channels = x.shape
    padded = np.zeros((batch, rows + 2, cols + 2, channels), dtype=np.float32)
    padded[:, 1:-1, 1:-1] = x
    columns = padded.reshape(batch, -1, channels)[:, windows]  # (batch, cells, 9, C)
    out = columns.reshape(batch * rows * cols, -1) @ matrix + bias
    return np.asarray(out).reshape(batch, rows, cols, -1)


def load_network(path: str | Path, playing: Game[Any, Any] | None = None) -> Network:
    """The network saved in ``path`` by :meth:`Network.save` (or by the trainer).

    Args:
        path: the file.
        playing: the game it is read to play: a network of a game registered nowhere (one
            named by its path, as a runner's worker names it) is read for that game only.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        IncompatibleNetworkError: if the file is not such a network, or one of another
            format version, or of a game that is neither registered nor ``playing``.
    """
    path = Path(path)
    arrays = _read_arrays(path)
    blocks, game_name, rules = _read_header(path, arrays.pop("__meta__", None),
                                            arrays.pop("__game__", None), playing)  # fmt: skip
    if not 0 <= blocks <= len(arrays) // 4:  # each block has two weights and two biases
        raise IncompatibleNetworkError(
            f"{path}: its metadata says {blocks} blocks, but it holds {len(arrays)} arrays "
            "(4 a block); the file is damaged or not an mcts network"
        )
    weights = {name: array.astype(np.float32) for name, array in arrays.items()}
    rulebook = playing if playing is not None and playing.name == game_name else None
    network = Network(weights, blocks, game_name, rules, rulebook)
    _check_weights(path, network)
    return network


def read_network_game(
    path: str | Path, playing: Game[Any, Any] | None = None
) -> tuple[str, dict[str, Any]]:
    """The game and rules that the network file ``path`` records, its weights unread
    (``playing`` as in :func:`load_network`).

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        IncompatibleNetworkError: as :func:`load_network`, for a file that does not say.
    """
    path = Path(path)
    header = _read_arrays(path, ("__meta__", "__game__"))
    meta, game = header.get("__meta__"), header.get("__game__")
    _, game_name, rules = _read_header(path, meta, game, playing)
    return game_name, rules


def bundled_network(game: str, rules: Mapping[str, Any] | None = None) -> Path:
    """The network bundled with ``game``'s agents for ``rules``: the file of
    ``agents/<game>/models/`` that records that game and those rules, whatever its name.

    Args:
        game: the game's registered name.
        rules: its rule parameters; the game's defaults fill the ones left out (all, for
            None: the network the ``mcts`` agent plays without ``path``).

    Raises:
        ValueError: for a game without one, or rules without one (naming those there are).
    """
    found = get_game(game)
    wanted = played_params(found, rules)

    def read(path: Path) -> Bundled | None:
        try:
            name, plays = read_network_game(path, found)
        except IncompatibleNetworkError:  # another kind of file: the ppo agent's zip
            return None
        return Bundled(plays == wanted, rules_text(plays)) if name == found.name else None

    return bundled_file(
        found.name, "mcts network", rules_text(wanted), read,
        f"give one with path=FILE (trained by trap-train alphazero --game {found.name})",
    )  # fmt: skip


def _read_header(
    path: Path, meta: np.ndarray | None, game: np.ndarray | None, playing: Game[Any, Any] | None
) -> tuple[int, str, dict[str, Any]]:
    """The blocks, game and rules of a network file's ``__meta__`` and ``__game__`` arrays.

    Raises:
        IncompatibleNetworkError: for a file of another format, or one that does not say
            which game it plays.
    """
    numbers = (
        [] if meta is None or meta.ndim != 1 or meta.dtype.kind not in "iu" else meta.tolist()
    )
    if len(numbers) == 4 and numbers[0] == 1:  # version 1: Trap! only, before Othello
        _, board_size, blocks, decay = numbers  # its rules, read as an old record's are
        game_name = UNNAMED_GAME
        rules = record_params({"board_size": board_size, "decay": decay})
    elif len(numbers) == 2 and numbers[0] == FORMAT_VERSION:
        blocks = numbers[1]
        game_name, rules = _read_game(path, game, playing)
    else:
        raise IncompatibleNetworkError(
            f"{path} is not an mcts network of format version {FORMAT_VERSION} "
            f"(metadata {None if meta is None else meta.tolist()!r:.80}); retrain it with "
            "trap-train"
        )
    return blocks, game_name, rules


def _read_game(
    path: Path, game: np.ndarray | None, playing: Game[Any, Any] | None
) -> tuple[str, dict[str, Any]]:
    """The game's name and rules recorded in a file's ``__game__`` array.

    Raises:
        IncompatibleNetworkError: if it is missing, not that JSON, or names a game that is
            neither registered nor ``playing`` (:func:`trap_env.games.recorded_game`).
    """
    try:
        if game is None or game.dtype != np.uint8 or game.ndim != 1:
            raise ValueError("no __game__ bytes")
        record = parse_json(game.tobytes())
        name, rules = record["game"], record["rules"]
        if not isinstance(name, str) or not isinstance(rules, dict):
            raise ValueError("not {\"game\": NAME, \"rules\": {...}}")
    except (ValueError, KeyError, TypeError) as error:
        raise IncompatibleNetworkError(
            f"{path} does not say which game it plays ({error}); retrain it with trap-train"
        ) from None
    try:
        recorded_game(name, playing)
    except UnknownGameError as error:
        raise IncompatibleNetworkError(f"{path} is a network of {error}") from None
    return name, rules


def _read_arrays(path: Path, names: Collection[str] | None = None) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` file (those of ``names`` it holds, or all): numbers only
    (no pickles), all finite.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        IncompatibleNetworkError: naming the file and what is wrong with it.
    """
    if not path.is_file():
        raise FileNotFoundError(f"no mcts network at {path}; give an .npz saved by trap-train")
    try:
        arrays = read_npz(path, names=names)
    except UnreadableZipError as error:
        raise IncompatibleNetworkError(
            f"{path} is not an .npz weights file saved by trap-train ({error})"
        ) from None
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
        config = network.config
    except (ValueError, TypeError) as error:
        raise IncompatibleNetworkError(
            f"{path}: its rules {network.describe():.200} are not rules of the game ({error})"
        ) from None
    game = network.game
    try:
        channels = network.channels
        hidden = int(network.weights["value_hidden.weight"].shape[0])
    except KeyError as error:
        raise IncompatibleNetworkError(f"{path} lacks the weight {error}") from error
    expected = weight_shapes(
        channels,
        network.blocks,
        hidden,
        input_planes(game, config),
        policy_layout(game, config),
    )
    found = {name: array.shape for name, array in network.weights.items()}
    if found != expected:
        wrong = sorted(set(found.items()) ^ set(expected.items()))
        raise IncompatibleNetworkError(
            f"{path}: weights do not match a network of {channels} channels, "
            f"{network.blocks} blocks and {hidden} hidden units for "
            f"{network.describe()}: {wrong[:4]}"
        )
    network.check_shapes(game, config)
    network.evaluate([game.initial_state(config)])

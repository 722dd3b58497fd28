"""The optional batched-engine interface: B games of one configuration as NumPy arrays.

A game that offers it (:func:`batched_engine` below; Trap!'s is
:class:`trap_env.trap.batched.Engine`, Othello's :mod:`trap_env.othello.batched`) runs every
transition for a whole batch without a Python loop over games. Code written against
:class:`BatchedEngine` works for every game that has one: the batched PUCT search
(:class:`agents.mcts.batched.BatchedTree`), the batched Gymnasium env
(:class:`trap_env.batched_env.GameVectorEnv`) and the SB3 VecEnv
(:class:`agents.rl.batched_vec_env.BatchedVecEnv`).

A batch is a tuple of NumPy arrays (a ``NamedTuple``) whose first axis is the game, so
that :func:`num_games`, :func:`gather` and :func:`scatter` serve every engine. Actions and
chance outcomes are the game's own integers (:class:`trap_env.game.Game`); an engine is
checked against its game's scalar rules state by state. Engines on ``uint64`` bitboards
(bit ``row * N + col``, so N <= 8) share :func:`bitboards_to_masks`,
:func:`bitboards_to_planes` and :func:`select_bits`.

Randomness is counter-based, never a generator's hidden state: a draw is ``splitmix64`` of
a per-game key and a counter. :func:`game_keys` hashes ``(seed, game id, episode)`` into
the key; :func:`random_words` hashes the key with the game's ply (the engine's
``ply_index``, which no two decisions of one game share) and a stream number (chance,
opponent, seat, ...). So a game's course depends only on its seed, its game id (an env's
slot), its episode number and the actions played in it: not on B, not on its neighbours
in the batch, not on the order of calls.

Example:
    >>> from trap_env.trap.game import GAME
    >>> engine = batched_engine(GAME, GAME.make_config(board_size=5))
    >>> batch = engine.initial_batch(2)
    >>> engine.legal_masks(batch).sum(axis=1).tolist()
    [5, 5]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from trap_env.game import Game

__all__ = [
    "NO_WINNER",
    "STREAM_AGENT_SEED",
    "STREAM_CHANCE",
    "STREAM_MIX",
    "STREAM_OPPONENT",
    "STREAM_SEAT",
    "BatchedEngine",
    "batched_engine",
    "bitboards_to_masks",
    "bitboards_to_planes",
    "game_keys",
    "gather",
    "num_games",
    "random_words",
    "scatter",
    "select_bits",
    "uniform_below",
]

Bool = NDArray[np.bool_]
I8 = NDArray[np.int8]
I64 = NDArray[np.int64]
U64 = NDArray[np.uint64]
F64 = NDArray[np.float64]

B = TypeVar("B", bound=tuple[Any, ...])

NO_WINNER = -1
""":meth:`BatchedEngine.winners` of a game still on, drawn, or cut at its turn limit."""


class BatchedEngine(Protocol[B]):
    """B games of one configuration of a game, every method for the whole batch."""

    @property
    def config(self) -> Any:
        """The rules' configuration the engine plays (``game.make_config``'s)."""
        ...

    @property
    def num_actions(self) -> int:
        """The game's action count (``game.num_actions(config)``)."""
        ...

    @property
    def chance_slots(self) -> int:
        """The most outcomes a chance node has (0 for a game without chance): the width
        of :meth:`chance_outcomes`."""
        ...

    def initial_batch(self, num_games: int) -> B:
        """``num_games`` games at their start."""
        ...

    def from_states(self, states: Sequence[Any]) -> B:
        """The batch of the game's scalar ``states`` (of this configuration)."""
        ...

    def to_states(self, batch: B) -> list[Any]:
        """The game's scalar states of ``batch``."""
        ...

    def turns(self, batch: B) -> I64:
        """The turns completed in each game (``game.turn``)."""
        ...

    def ply_index(self, batch: B) -> I64:
        """A counter that no two decisions (or chance nodes) of one game share, for
        :func:`random_words`."""
        ...

    def players(self, batch: B) -> I8:
        """The player to act in each game (at a chance node, the one whose decision it
        follows), as ``game.current_player``."""
        ...

    def is_chance(self, batch: B) -> Bool:
        """Which games wait for a chance outcome."""
        ...

    def is_over(self, batch: B) -> Bool:
        """Which games the rules have ended (``game.outcome`` without a turn limit)."""
        ...

    def is_truncated(self, batch: B, max_turns: int) -> Bool:
        """Which games the rules have not ended but the turn limit cuts (a draw)."""
        ...

    def winners(self, batch: B) -> I8:
        """Each game's winner, or :data:`NO_WINNER` (still on, or a draw)."""
        ...

    def legal_masks(self, batch: B) -> Bool:
        """``(B, num_actions)``: the legal actions (a chance node's: its outcomes)."""
        ...

    def apply(
        self,
        batch: B,
        actions: NDArray[Any],
        *,
        where: NDArray[np.bool_] | None = None,
        validate: bool = True,
    ) -> B:
        """Each game (of ``where``, all if None) after its action or chance outcome;
        finished games and those outside ``where`` stay as they are.

        Raises:
            IllegalActionError: with ``validate``, naming the first illegal actions.
        """
        ...

    def chance_outcomes(self, batch: B) -> tuple[I64, F64]:
        """``(B, chance_slots)`` outcomes and their exact probabilities at chance nodes
        (``game.chance_outcomes`` padded with probability 0; rows of other games: 0)."""
        ...

    def sample_chance(self, batch: B, words: U64) -> I64:
        """Each chance node's outcome drawn with one random word (exact integer
        arithmetic); entries of other games are meaningless."""
        ...

    def observations(self, batch: B, players: NDArray[Any]) -> I8:
        """``(B, *observation_shape)``: each game's planes from ``players``' side."""
        ...


def batched_engine(game: Game[Any, Any], config: Any) -> BatchedEngine[Any]:
    """The batched engine of ``game`` under ``config``.

    Raises:
        ValueError: if the game has none (or not for this configuration), saying so.
    """
    make = getattr(game, "batched_engine", None)
    if make is None:
        raise ValueError(f"the game {game.name!r} has no batched engine")
    return make(config)  # type: ignore[no-any-return]


def num_games(batch: tuple[NDArray[Any], ...]) -> int:
    """B, the number of games in ``batch`` (the length of its arrays' first axis)."""
    return len(batch[0])


def gather(batch: B, index: NDArray[Any]) -> B:
    """The sub-batch of the games at ``index`` (integer indices or a bool mask)."""
    return type(batch)(*(field[index] for field in batch))


def scatter(batch: B, index: NDArray[Any], games: B) -> B:
    """A copy of ``batch`` with the games at ``index`` replaced by ``games``, in order."""
    fields: list[NDArray[Any]] = []
    for old, new in zip(batch, games, strict=True):
        field: NDArray[Any] = np.array(old, copy=True)
        field[index] = new
        fields.append(field)
    return type(batch)(*fields)


# --- Counter-based randomness -----------------------------------------------------------

STREAM_CHANCE = 0
"""The stream of landing draws (see :func:`random_words`)."""
STREAM_OPPONENT = 1
"""The stream of the environment's opponent's choices."""
STREAM_SEAT = 2
"""The stream of the learner's seat at the start of an episode."""
STREAM_MIX = 3
"""The stream of the choice of opponent from a mix at the start of an episode."""
STREAM_AGENT_SEED = 4
"""The stream that reseeds game-by-game agents at the start of an episode."""
_NUM_STREAMS = 8
"""Streams per ply (room to spare): a counter is ``ply * 8 + stream``."""


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(x: U64) -> U64:
    """The splitmix64 finaliser: a bijection of uint64 that scatters every input bit."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    mixed: U64 = x ^ (x >> np.uint64(31))
    return mixed


def game_keys(seed: int, game_ids: NDArray[Any] | int, episodes: NDArray[Any] | int) -> U64:
    """Per-game keys: ``splitmix64`` chained over ``seed``, the game id and the episode."""
    seed_word = _mix(np.array([seed % 2**64], np.uint64))
    ids = np.asarray(game_ids).astype(np.uint64).reshape(-1)
    keyed = _mix(seed_word + ids * _GOLDEN)
    return _mix(keyed ^ (np.asarray(episodes).astype(np.uint64).reshape(-1) * _GOLDEN))


def random_words(keys: U64, plies: NDArray[Any] | int, stream: int) -> U64:
    """One random ``uint64`` per game for draw ``stream`` at ``plies`` (see the module doc)."""
    # 1-d even for one ply, as numpy warns of (intended) wrap-around only on scalars.
    counter = np.asarray(plies).astype(np.uint64).reshape(-1) * np.uint64(_NUM_STREAMS)
    counter += np.uint64(stream)
    return _mix(keys + (counter + np.uint64(1)) * _GOLDEN)


def uniform_below(words: U64, bounds: NDArray[Any] | int) -> I64:
    """Integers uniform in ``[0, bounds)`` (bounds below 2**32; bias below bounds / 2**32)."""
    high = words >> np.uint64(32)
    draws: I64 = ((high * np.asarray(bounds).astype(np.uint64)) >> np.uint64(32)).astype(np.int64)
    return draws


# --- Bitboards ------------------------------------------------------------------------


def bitboards_to_masks(bitboards: U64, num_cells: int) -> Bool:
    """``(B, num_cells)`` bool arrays of the bitboards' bits, cell 0 first."""
    raw = bitboards.astype("<u8", copy=False).view(np.uint8).reshape(-1, 8)
    bits = np.unpackbits(raw, axis=1, count=num_cells, bitorder="little")
    return bits.view(np.bool_)


def bitboards_to_planes(planes: U64, board_size: int) -> I8:
    """``(B, N, N, k)`` ``int8`` planes of ``(B, k)`` bitboards (bit ``row * N + col``)."""
    size, depth = planes.shape
    raw = planes.astype("<u8", copy=False).view(np.uint8).reshape(size, depth, 8)
    bits = np.unpackbits(raw, axis=2, count=board_size * board_size, bitorder="little")
    seen: I8 = bits.transpose(0, 2, 1).reshape(size, board_size, board_size, depth).view(np.int8)
    return seen


_SELECT_WIDTHS = tuple(np.uint64(width) for width in (32, 16, 8, 4, 2, 1))
_LOW_MASKS = tuple(np.uint64((1 << int(width)) - 1) for width in _SELECT_WIDTHS)


def select_bits(bitboards: U64, ranks: NDArray[Any]) -> I64:
    """The cell of each bitboard's ``rank``-th set bit (0 the lowest), by binary search.

    Each halving counts the set bits of the low half and keeps the half holding the rank,
    with shifts and masks rather than a choice between arrays. A rank past the last set
    bit gives a meaningless cell.
    """
    board = bitboards
    rank = np.asarray(ranks).astype(np.uint8)
    cell = np.zeros(len(board), np.uint64)
    for width, low_mask in zip(_SELECT_WIDTHS, _LOW_MASKS, strict=True):
        count = np.bitwise_count(board & low_mask)
        upper = rank >= count
        rank -= count * upper
        shift = upper * width
        board = (board >> shift) & low_mask
        cell += shift
    return cell.astype(np.int64)

"""The batched engine: B games of Trap! as NumPy arrays, every transition for the whole batch.

A :class:`Batch` holds B games as arrays (traps as ``uint64`` bitboards, so N <= 8); every
function here is pure: it reads arrays and returns new ones, with no Python loop over
games. The rules are :mod:`trap_env.trap.core`'s; this module only restates them for arrays, and
the tests check it against the core state by state. The per-board lookup tables
(:class:`Tables`) are built from the rules kernel's own geometry and landing rule
(:func:`trap_env.trap.kernel.geometry`, :func:`trap_env.trap.kernel.on_target_per_mille`).

The functional layer, for environments, search and training code:

* states: :func:`initial_batch`, :func:`from_states` / :func:`to_states` (core interop),
  :func:`gather` / :func:`scatter` (sub-batches by index, from :mod:`trap_env.batched`);
* transitions: :func:`apply` (any mix of phases), or per phase :func:`apply_moves`,
  :func:`apply_throws`, :func:`apply_landings`, each for the games in a ``where`` mask;
* queries: :func:`legal_bitboards`, :func:`legal_masks`, :func:`is_legal`,
  :func:`observations` (the same planes as :func:`trap_env.trap.observation.observe`),
  :func:`is_truncated`;
* chance: :func:`landing_weights` (the exact distribution, in integers),
  :func:`sample_landings`;
* randomness: :func:`game_keys`, :func:`random_words`, :func:`choose_bits` (a uniform set
  bit per game, by bit tricks rather than random floats over masks, over
  :func:`trap_env.batched.select_bits`).

:class:`Engine` offers the same as the game protocol's batched engine
(:class:`trap_env.batched.BatchedEngine`), for code written for every game.

Randomness is counter-based (:func:`trap_env.batched.random_words`, re-exported here with
:func:`game_keys` and the stream numbers): a game's ply counter is ``3 * turn + phase``
(:func:`ply_index`), which no two decisions of one game share.

Example:
    >>> t = tables(5)
    >>> batch = initial_batch(t, 3)
    >>> batch = apply(t, batch, np.array([1, 3, 7]))         # three moves
    >>> legal_masks(t, batch).sum(axis=1).tolist()            # throw targets: all but 2
    [23, 23, 23]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from trap_env.batched import (
    I8,
    I64,
    STREAM_AGENT_SEED,
    STREAM_CHANCE,
    STREAM_MIX,
    STREAM_OPPONENT,
    STREAM_SEAT,
    U64,
    Bool,
    bitboards_to_masks,
    bitboards_to_planes,
    game_keys,
    gather,
    num_games,
    random_words,
    scatter,
    select_bits,
    uniform_below,
)
from trap_env.bits import cells_of
from trap_env.cache import per_board_size
from trap_env.trap import core, kernel
from trap_env.trap.core import NO_PLAYER, IllegalActionError, Phase

__all__ = [
    "DEFAULT_DECAY",
    "MAX_BOARD_SIZE",
    "NO_CELL",
    "STREAM_AGENT_SEED",
    "STREAM_CHANCE",
    "STREAM_MIX",
    "STREAM_OPPONENT",
    "STREAM_SEAT",
    "Batch",
    "Engine",
    "Tables",
    "apply",
    "apply_landings",
    "apply_moves",
    "apply_throws",
    "choose_bits",
    "from_states",
    "game_keys",
    "gather",
    "initial_batch",
    "is_legal",
    "is_over",
    "is_truncated",
    "landing_probabilities",
    "landing_weights",
    "legal_bitboards",
    "legal_masks",
    "move_bitboards",
    "observations",
    "player_cells",
    "ply_index",
    "random_words",
    "sample_landings",
    "scatter",
    "tables",
    "to_states",
    "uniform_below",
]

MAX_BOARD_SIZE = 8
"""The largest N: a board is one ``uint64`` bitboard, and 8 * 8 = 64 cells."""
NO_CELL = 64
"""A cell index past every board (N <= 8): the padding of candidate lists."""
DEFAULT_DECAY = kernel.DEFAULT_DECAY
"""The rules' accuracy loss per step of distance beyond the first, 1/20, in per mille."""
PER_MILLE = kernel.PER_MILLE

MOVE, THROW, LANDING = int(Phase.MOVE), int(Phase.THROW), int(Phase.LANDING)


class Batch(NamedTuple):
    """B games; field ``i`` of each array is game ``i``'s (:class:`trap_env.trap.core.State`).

    Attributes:
        traps: ``uint64 (B,)``, bit ``row * N + col`` set for a trap.
        cells: ``int64 (B, 2)``, the cells of player 0 and player 1.
        player: ``int8 (B,)``, the player to act (the thrower during ``LANDING``).
        phase: ``int8 (B,)``, ``Phase.MOVE``, ``THROW`` or ``LANDING`` as ints.
        target: ``int64 (B,)``, the pending throw's target in ``LANDING``, else -1.
        turn: ``int64 (B,)``, the turns completed.
        winner: ``int8 (B,)``, 0 or 1 once the game is over, else -1.
    """

    traps: U64
    cells: I64
    player: I8
    phase: I8
    target: I64
    turn: I64
    winner: I8


@dataclass(frozen=True, eq=False)
class Tables:
    """The lookup tables of one board size and one throw decay, shared by a whole batch.

    Attributes:
        board_size: N, 3 to :data:`MAX_BOARD_SIZE`.
        decay: the throw's accuracy loss per step of distance beyond the first, per mille.
        neighbours: ``uint64 (N*N,)``, the king-step neighbours of each cell.
        bits: ``uint64 (N*N,)``, the bitboard of each single cell.
        neighbour_cells: ``int64 (N*N, 8)``, each cell's neighbours, padded with 64 (no cell).
        on_target: ``int64 (N*N * N*N,)``, at ``thrower * N*N + target`` the target's
            chance per mille, ``clamp(1000 - (a - 1) * decay, 0, 1000)`` for the Manhattan
            distance ``a`` (at most 4096 entries, as N <= 8).
        all_cells: the bitboard of the whole board.
    """

    board_size: int
    decay: int
    neighbours: U64
    bits: U64
    neighbour_cells: I64
    on_target: I64
    all_cells: np.uint64

    @property
    def num_cells(self) -> int:
        """N * N."""
        return self.board_size * self.board_size


def tables(board_size: int = 7, decay: int = DEFAULT_DECAY) -> Tables:
    """The tables for ``board_size`` and ``decay`` (built once, from the core's geometry).

    Raises:
        ValueError: if ``board_size`` is not an integer in 3..8 or ``decay`` is not an
            integer in 0..1000 (as :class:`trap_env.trap.core.GameConfig` requires).
    """
    if (
        isinstance(board_size, bool)
        or not isinstance(board_size, int)
        or not (core.MIN_BOARD_SIZE <= board_size <= MAX_BOARD_SIZE)
    ):
        raise ValueError(
            f"the batched engine plays board sizes {core.MIN_BOARD_SIZE}..{MAX_BOARD_SIZE} "
            f"(a board is one uint64 bitboard), got board_size={board_size!r}; larger boards "
            "need the scalar engine (trap_env.trap.core, the single Gym env)"
        )
    core.GameConfig(board_size, decay)  # checks decay as every engine does
    return _tables(board_size, decay)


@per_board_size()  # after the checks: 7.0 or True would hit the entries of 7 or 1
def _tables(board_size: int, decay: int) -> Tables:
    cells = range(board_size * board_size)
    neighbours = np.array(tuple(kernel.geometry(board_size).neighbours), np.uint64)
    on_target = np.array(
        [
            kernel.on_target_per_mille(kernel.manhattan_distance(board_size, a, b), decay)
            for a in cells
            for b in cells
        ],
        np.int64,
    )
    return Tables(
        board_size=board_size,
        decay=decay,
        neighbours=neighbours,
        bits=np.left_shift(np.uint64(1), np.arange(len(cells), dtype=np.uint64)),
        neighbour_cells=np.array(
            [_padded(cells_of(int(mask)), 8, NO_CELL) for mask in neighbours], np.int64
        ),
        on_target=on_target,
        all_cells=np.uint64((1 << len(cells)) - 1),
    )


def _padded(cells: list[int], length: int, pad: int) -> list[int]:
    return cells + [pad] * (length - len(cells))


@dataclass(frozen=True, eq=False)
class Engine:
    """Trap!'s :class:`trap_env.batched.BatchedEngine`: this module's functions with the
    tables of one board size and decay (``GAME.batched_engine(config)``)."""

    tables: Tables

    chance_slots = 9
    """A landing's cells: the target, then up to eight neighbours, ascending."""

    @property
    def config(self) -> core.GameConfig:
        """The board size and decay of the tables."""
        return core.GameConfig(self.tables.board_size, self.tables.decay)

    @property
    def num_actions(self) -> int:
        """N * N cells."""
        return self.tables.num_cells

    def initial_batch(self, num_games: int) -> Batch:
        """:func:`initial_batch`."""
        return initial_batch(self.tables, num_games)

    def from_states(self, states: Sequence[core.State]) -> Batch:
        """:func:`from_states`."""
        return from_states(states)

    def to_states(self, batch: Batch) -> list[core.State]:
        """:func:`to_states`."""
        return to_states(self.tables, batch)

    def turns(self, batch: Batch) -> I64:
        """The turns completed."""
        return batch.turn

    def ply_index(self, batch: Batch) -> I64:
        """:func:`ply_index`."""
        return ply_index(batch)

    def players(self, batch: Batch) -> I8:
        """The player to act (the thrower while its throw lands)."""
        return batch.player

    def is_chance(self, batch: Batch) -> Bool:
        """The games whose throw waits for its landing."""
        chance: Bool = (batch.phase == LANDING) & (batch.winner == NO_PLAYER)
        return chance

    def is_over(self, batch: Batch) -> Bool:
        """:func:`is_over`."""
        return is_over(batch)

    def is_truncated(self, batch: Batch, max_turns: int) -> Bool:
        """:func:`is_truncated`."""
        return is_truncated(batch, max_turns)

    def winners(self, batch: Batch) -> I8:
        """The winner, or -1."""
        return batch.winner

    def legal_masks(self, batch: Batch) -> Bool:
        """:func:`legal_masks`."""
        return legal_masks(self.tables, batch)

    def apply(
        self,
        batch: Batch,
        actions: NDArray[Any],
        *,
        where: Bool | None = None,
        validate: bool = True,
    ) -> Batch:
        """:func:`apply`."""
        return apply(self.tables, batch, actions, where=where, validate=validate)

    def sample_chance(self, batch: Batch, words: U64) -> I64:
        """:func:`sample_landings`."""
        return sample_landings(self.tables, batch, words)

    def chance_outcomes(self, batch: Batch) -> tuple[I64, NDArray[np.float64]]:
        """The landing cells (the target, then its neighbours) and their exact
        probabilities from :func:`landing_weights`; off-board slots weigh 0."""
        weights = landing_weights(self.tables, batch)
        totals = np.maximum(weights.sum(axis=1), 1)
        target = np.maximum(batch.target, 0)
        cells = np.concatenate([target[:, None], self.tables.neighbour_cells[target]], axis=1)
        on_board = cells < NO_CELL
        cells = np.where(on_board, cells, 0)
        slot_weights = np.where(on_board, np.take_along_axis(weights, cells, axis=1), 0)
        probabilities: NDArray[np.float64] = slot_weights / totals[:, None]
        return cells, probabilities

    def observations(self, batch: Batch, players: NDArray[Any]) -> I8:
        """:func:`observations`."""
        return observations(self.tables, batch, players)


# --- States ---------------------------------------------------------------------------


def initial_batch(t: Tables, num_games: int) -> Batch:
    """``num_games`` games at the start (player 0 on ``(0, N//2)``, player 1 below)."""
    n = t.board_size
    start = core.initial_state(core.GameConfig(n))
    return Batch(
        traps=np.zeros(num_games, np.uint64),
        cells=np.tile(np.array(start.cells, np.int64), (num_games, 1)),
        player=np.zeros(num_games, np.int8),
        phase=np.full(num_games, MOVE, np.int8),
        target=np.full(num_games, NO_PLAYER, np.int64),
        turn=np.zeros(num_games, np.int64),
        winner=np.full(num_games, NO_PLAYER, np.int8),
    )


def from_states(states: Sequence[core.State]) -> Batch:
    """The batch of the core states ``states`` (of one board size N <= 8 and one decay).

    The batch goes with ``tables(N, decay)`` of those states.

    Raises:
        TypeError: for an item that is not a :class:`trap_env.trap.core.State`.
        ValueError: for an impossible state (:func:`trap_env.trap.core.validate_state`), an
            empty sequence, mixed board sizes or decays, or N over the limit.
    """
    for state in states:
        core.validate_state(state)
    rules = {(state.board_size, state.decay) for state in states}
    if len(rules) != 1:
        raise ValueError(
            f"from_states needs states of one board size and decay, got {sorted(rules)}"
        )
    tables(*rules.pop())  # checks the size
    return Batch(
        traps=np.array([s.traps for s in states], np.uint64),
        cells=np.array([s.cells for s in states], np.int64).reshape(len(states), 2),
        player=np.array([s.player for s in states], np.int8),
        phase=np.array([int(s.phase) for s in states], np.int8),
        target=np.array([s.target for s in states], np.int64),
        turn=np.array([s.turn for s in states], np.int64),
        winner=np.array([s.winner for s in states], np.int8),
    )


def to_states(t: Tables, batch: Batch) -> list[core.State]:
    """The games of ``batch`` as core states (for agents, tests and printing)."""
    fields = zip(
        batch.traps.tolist(),
        batch.cells.tolist(),
        batch.player.tolist(),
        batch.phase.tolist(),
        batch.target.tolist(),
        batch.turn.tolist(),
        batch.winner.tolist(),
        strict=True,
    )
    n, decay = t.board_size, t.decay
    return [
        core.State(n, traps, (cell0, cell1), player, Phase(phase), target, turn, winner, decay)
        for traps, (cell0, cell1), player, phase, target, turn, winner in fields
    ]


def is_over(batch: Batch) -> Bool:
    """Which games are won (by either player)."""
    over: Bool = batch.winner != NO_PLAYER
    return over


def is_truncated(batch: Batch, max_turns: int) -> Bool:
    """Which games are still on but have completed ``max_turns`` turns (a draw)."""
    on = (batch.winner == NO_PLAYER) & (batch.phase == MOVE)
    truncated: Bool = on & (batch.turn >= max_turns)
    return truncated


def ply_index(batch: Batch) -> I64:
    """A counter unique to each step of a game: ``3 * turn + phase``."""
    return 3 * batch.turn + batch.phase


# --- Legal actions and observations ---------------------------------------------------


def player_cells(batch: Batch, player: NDArray[Any]) -> tuple[I64, I64]:
    """The cells of ``player`` (per game) and of the other player."""
    # np.where over the two columns: no fancy-indexing gather, which is slower in NumPy.
    first = np.asarray(player) == 0
    zero, one = batch.cells[:, 0], batch.cells[:, 1]
    return np.where(first, zero, one), np.where(first, one, zero)


def move_bitboards(t: Tables, batch: Batch, player: NDArray[Any]) -> U64:
    """The cells ``player`` (per game) could step to now: free neighbours."""
    own, other = player_cells(batch, player)
    return t.neighbours[own] & ~(batch.traps | t.bits[other])


def legal_bitboards(t: Tables, batch: Batch) -> U64:
    """Each game's legal actions as a bitboard: moves, throw targets or landing cells.

    Zero for a finished game, as :func:`trap_env.trap.core.legal_actions` is empty.
    """
    moves = move_bitboards(t, batch, batch.player)
    targets = t.all_cells & ~(t.bits[batch.cells[:, 0]] | t.bits[batch.cells[:, 1]])
    legal = np.where(batch.phase == MOVE, moves, targets)
    landing = batch.phase == LANDING
    if landing.any():
        legal = np.where(landing, _landing_support(t, batch), legal)
    return np.where(batch.winner == NO_PLAYER, legal, np.uint64(0))


def legal_masks(t: Tables, batch: Batch) -> Bool:
    """``(B, N*N)`` bool: each game's legal actions (all False once it is over)."""
    return bitboards_to_masks(legal_bitboards(t, batch), t.num_cells)


def is_legal(t: Tables, batch: Batch, actions: NDArray[Any]) -> Bool:
    """Whether each game's action is legal (False for any action in a finished game)."""
    actions = np.asarray(actions)
    on_board = (actions >= 0) & (actions < t.num_cells)
    bits = t.bits[np.where(on_board, actions, 0)]
    legal: Bool = on_board & ((legal_bitboards(t, batch) & bits) != 0)
    return legal


def observations(t: Tables, batch: Batch, players: NDArray[Any]) -> I8:
    """``(B, N, N, 4)`` ``int8`` planes as :func:`trap_env.trap.observation.observe` gives them.

    Plane 0 the observer's cell, 1 the other player's, 2 the traps, 3 ones in ``THROW``;
    ``players`` names each game's observer.
    """
    own, other = player_cells(batch, np.asarray(players))
    planes = np.empty((num_games(batch), 4), np.uint64)
    planes[:, 0] = t.bits[own]
    planes[:, 1] = t.bits[other]
    planes[:, 2] = batch.traps
    planes[:, 3] = np.where(batch.phase == THROW, t.all_cells, np.uint64(0))
    return bitboards_to_planes(planes, t.board_size)


# --- Transitions ----------------------------------------------------------------------


def apply(
    t: Tables,
    batch: Batch,
    actions: NDArray[Any],
    *,
    where: Bool | None = None,
    validate: bool = True,
) -> Batch:
    """Each game after its action: a move, a throw target or a landing, by its phase.

    Finished games, and games outside ``where`` (all if None), stay as they are (their
    actions are ignored).

    Args:
        t: the tables of the batch's board size and decay.
        batch: the games.
        actions: ``(B,)`` flat cells.
        validate: check that every action of a game still on is legal; pass False only
            when the caller has checked (the env does, with its illegal-action policy).

    Raises:
        IllegalActionError: with ``validate``, naming the first games whose action is not
            legal and their legal actions.
    """
    actions = np.asarray(actions, np.int64)
    alive = batch.winner == NO_PLAYER
    if where is not None:
        alive &= where
    if validate:
        _check_legal(t, batch, actions, alive)
    # Masks from the phases before any step, so that a game moves, throws or lands once.
    moving, throwing = alive & (batch.phase == MOVE), alive & (batch.phase == THROW)
    landing = alive & (batch.phase == LANDING)
    batch = apply_moves(t, batch, actions, moving)
    batch = apply_throws(batch, actions, throwing)
    return apply_landings(t, batch, actions, landing)


def _check_legal(t: Tables, batch: Batch, actions: I64, alive: Bool) -> None:
    wrong = np.flatnonzero(alive & ~is_legal(t, batch, actions))
    if len(wrong):
        masks = legal_masks(t, gather(batch, wrong[:3]))
        listed = "; ".join(
            f"game {game}: action {actions[game]} in phase {Phase(batch.phase[game]).name}, "
            f"legal {np.flatnonzero(mask).tolist()}"
            for game, mask in zip(wrong[:3].tolist(), masks, strict=True)
        )
        raise IllegalActionError(f"{len(wrong)} illegal action(s): {listed}")


def apply_moves(t: Tables, batch: Batch, cells: I64, where: Bool) -> Batch:
    """The games in ``where`` after the player to act steps to ``cells`` (legal moves).

    A mover who leaves the opponent no move wins at once; otherwise it is to throw.
    """
    if not where.any():
        return batch
    # Whole-batch selects rather than fancy indexing of the moving games: faster in NumPy.
    first = batch.player == 0
    _, other = player_cells(batch, batch.player)
    moved = np.empty_like(batch.cells)
    moved[:, 0] = np.where(where & first, cells, batch.cells[:, 0])
    moved[:, 1] = np.where(where & ~first, cells, batch.cells[:, 1])
    destination = t.bits[np.where(where, cells, 0)]
    trapped = (t.neighbours[other] & ~(batch.traps | destination)) == 0
    return batch._replace(
        cells=moved,
        phase=np.where(where, np.int8(THROW), batch.phase),
        winner=np.where(where, np.where(trapped, batch.player, NO_PLAYER), batch.winner).astype(
            np.int8
        ),
    )


def apply_throws(batch: Batch, cells: I64, where: Bool) -> Batch:
    """The games in ``where`` after the player to act names the target ``cells``."""
    if not where.any():
        return batch
    return batch._replace(
        phase=np.where(where, np.int8(LANDING), batch.phase),
        target=np.where(where, cells, batch.target),
    )


def apply_landings(t: Tables, batch: Batch, cells: I64, where: Bool) -> Batch:
    """The games in ``where`` after the pending trap lands on ``cells``.

    The thrower wins if the opponent has no move left; the turn passes either way.
    """
    if not where.any():
        return batch
    traps = np.where(where, batch.traps | t.bits[np.where(where, cells, 0)], batch.traps)
    thrower, other = player_cells(batch, batch.player)
    free = t.neighbours[other] & ~(traps | t.bits[thrower])
    won = where & (free == 0)
    return Batch(
        traps=traps,
        cells=batch.cells,
        player=np.where(where, 1 - batch.player, batch.player).astype(np.int8),
        phase=np.where(where, np.int8(MOVE), batch.phase),
        target=np.where(where, NO_PLAYER, batch.target),
        turn=batch.turn + where,
        winner=np.where(won, batch.player, batch.winner),
    )


# --- Chance ---------------------------------------------------------------------------


class _Throw(NamedTuple):
    """The parts of each game's landing rule, in integers."""

    on_target: I64
    """The target's chance per mille: ``clamp(1000 - (a - 1) * decay, 0, 1000)``."""
    eligible: U64
    """The target's neighbours that hold no player."""
    num_eligible: I64


def _throw(t: Tables, batch: Batch) -> _Throw:
    thrower, other = player_cells(batch, batch.player)
    target = np.where(batch.target >= 0, batch.target, 0)
    on_target = t.on_target[thrower * t.num_cells + target]
    eligible = t.neighbours[target] & ~(t.bits[thrower] | t.bits[other])
    return _Throw(on_target, eligible, np.bitwise_count(eligible).astype(np.int64))


def _landing_support(t: Tables, batch: Batch) -> U64:
    throw = _throw(t, batch)
    target = t.bits[np.where(batch.target >= 0, batch.target, 0)]
    on_target: U64 = np.where(throw.on_target > 0, target, np.uint64(0))
    missed: U64 = np.where(throw.on_target < PER_MILLE, throw.eligible, np.uint64(0))
    return on_target | missed


def landing_weights(t: Tables, batch: Batch) -> I64:
    """``(B, N*N)`` integer weights of each game's landing cells, summing to ``1000 * n``.

    With ``a`` the thrower's distance to the target and ``n`` the target's neighbours that
    hold no player, the target weighs ``p * n`` and each of those neighbours ``1000 - p``,
    where ``p = clamp(1000 - (a - 1) * decay, 0, 1000)``: exactly the rule's target chance
    ``p / 1000`` and neighbour share ``(1 - p / 1000) / n``. Rows of games not waiting for
    a landing are zeros.
    """
    throw = _throw(t, batch)
    pending = (batch.phase == LANDING) & (batch.winner == NO_PLAYER)
    share = (PER_MILLE - throw.on_target)[:, None]
    weights = bitboards_to_masks(throw.eligible, t.num_cells) * share
    rows = np.flatnonzero(pending)
    weights[rows, batch.target[rows]] = (throw.on_target * throw.num_eligible)[rows]
    weights[~pending] = 0
    return weights


def landing_probabilities(t: Tables, batch: Batch) -> NDArray[np.float64]:
    """:func:`landing_weights` divided by their sums: the landing distributions as floats."""
    weights = landing_weights(t, batch)
    totals = np.maximum(weights.sum(axis=1, keepdims=True), 1)
    probabilities: NDArray[np.float64] = weights / totals
    return probabilities


def sample_landings(t: Tables, batch: Batch, words: U64) -> I64:
    """Each game's landing cell drawn with one random word (exact integer arithmetic).

    A word gives ``r`` uniform in ``[0, 1000 n)``: the target when ``r < p n``, else the
    ``(r - p n) // (1000 - p)``-th eligible neighbour. Entries of games not in ``LANDING``
    are meaningless.
    """
    throw = _throw(t, batch)
    draw = uniform_below(words, PER_MILLE * throw.num_eligible)
    on_target_weight = throw.on_target * throw.num_eligible
    cells: I64 = batch.target.copy()
    # Only the throws that miss search for their neighbour (most land on target).
    missed = np.flatnonzero(draw >= on_target_weight)
    rank = (draw[missed] - on_target_weight[missed]) // (PER_MILLE - throw.on_target[missed])
    cells[missed] = select_bits(throw.eligible[missed], rank)
    return cells


# --- A uniform set bit ----------------------------------------------------------------


def choose_bits(
    bitboards: U64, words: U64, num_cells: int = 64, candidates: I64 | None = None
) -> I64:
    """A uniformly drawn set bit of each (non-empty) bitboard, one random word per game.

    The word's high half guesses one of ``m`` candidate cells uniformly (the cells
    ``0 .. num_cells - 1``, or each game's row of ``candidates``: ``(B, m)`` distinct cells
    that hold every set bit, padded with :data:`NO_CELL`), kept when its bit is set; the
    games whose guess missed draw a rank among the set bits from the low half. Each of
    ``k`` set bits is drawn with probability ``1/m + (1 - k/m) / k = 1/k``, and the guess
    spares most games the bit search when most candidates are set.
    """
    if candidates is None:
        guess = uniform_below(words, num_cells)
    else:
        column = uniform_below(words, candidates.shape[1])
        guess = np.take_along_axis(candidates, column[:, None], axis=1)[:, 0]
    shifted = bitboards >> (guess & 63).astype(np.uint64)
    hit = (guess < NO_CELL) & ((shifted & np.uint64(1)) != 0)
    if hit.all():
        return guess
    missed = np.flatnonzero(~hit)
    boards = bitboards[missed]
    low_half = words[missed] << np.uint64(32)
    guess[missed] = select_bits(boards, uniform_below(low_half, np.bitwise_count(boards)))
    return guess

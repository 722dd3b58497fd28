"""The batched engine of Othello: B games as ``uint64`` bitboards, every transition for the
whole batch at once.

A :class:`Batch` holds each colour's discs as one ``uint64`` per game, with the bit layout
of the scalar rules (:mod:`trap_env.othello.rules`: cell ``row * N + col``), so N <= 8.
Placements and flips are computed by shift-and-mask over the eight directions: a loop
over directions, each a Kogge-Stone fill along a line (3 doublings span the N - 2 discs
of a line on 8x8), never a loop over games. The batch
also carries what every query needs: the placements of the player to act and whether the
game is live, computed once per transition.

This module restates the scalar rules for arrays, and the tests check it against them
state by state: the same masks (the pass, N*N, legal only without a placement), the same
end under both end rules, the same winners (:data:`~trap_env.batched.NO_WINNER` for a
draw) and the same observation planes as :meth:`trap_env.othello.game.Othello.observe`.
There is no chance: :attr:`Engine.chance_slots` is 0.

Example:
    >>> from trap_env.othello.rules import OthelloConfig
    >>> engine = Engine(tables(OthelloConfig(board_size=8)))
    >>> batch = engine.initial_batch(2)
    >>> np.flatnonzero(engine.legal_masks(batch)[0]).tolist()
    [19, 26, 37, 44]
    >>> batch = engine.apply(batch, np.array([19, 44]))
    >>> np.bitwise_count(batch.dark).tolist(), batch.player.tolist()
    ([4, 4], [1, 1])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from trap_env.aliases import moved_attribute
from trap_env.batched import (
    I8,
    I64,
    NO_WINNER,
    U64,
    Bool,
    bitboards_to_masks,
    bitboards_to_planes,
    num_games,
    select_bits,
    uniform_below,
)
from trap_env.cache import per_board_size
from trap_env.game import IllegalActionError
from trap_env.othello import rules
from trap_env.othello.rules import DARK, STANDARD, OthelloConfig, OthelloState

__all__ = [
    "MAX_BOARD_SIZE",
    "Batch",
    "BatchedRandom",
    "Engine",
    "Tables",
    "apply",
    "from_states",
    "initial_batch",
    "legal_masks",
    "observations",
    "placements",
    "random_actions",
    "tables",
    "to_states",
    "winners",
]

MAX_BOARD_SIZE = 8
"""The largest N: each colour is one ``uint64`` bitboard, and 8 * 8 = 64 cells."""

_ZERO = np.uint64(0)
_ONE = np.uint64(1)


class Batch(NamedTuple):
    """B games of one board size and end rule; entry ``i`` of each array is game ``i``'s.

    Attributes:
        dark: ``uint64 (B,)``, dark's discs (bit ``row * N + col``).
        light: ``uint64 (B,)``, light's discs.
        player: ``int8 (B,)``, the player to act (0 dark, 1 light).
        turn: ``int64 (B,)``, the plies played (placements and passes).
        moves: ``uint64 (B,)``, the placements of the player to act (derived).
        live: ``bool (B,)``, whether the rules let the game go on (derived).
    """

    dark: U64
    light: U64
    player: I8
    turn: I64
    moves: U64
    live: Bool


@dataclass(frozen=True, eq=False)
class Tables:
    """The geometry of one board size and the end rule, shared by a whole batch.

    Attributes:
        config: the rules (board size N <= 8, end rule).
        shifts: the eight directions' steps in bits, ``row_step * N + col_step``.
        arrivals: ``uint64`` per direction, the cells a one-cell step may land on (the
            board, less the column a step across the edge would wrap into).
        full: the bitboard of the whole board.
        starts: the dark and light discs of the start.
        rounds: the doublings of a fill that spans a line of N - 2 discs.
    """

    config: OthelloConfig
    shifts: tuple[int, ...]
    arrivals: tuple[np.uint64, ...]
    full: np.uint64
    starts: tuple[int, int]
    rounds: int

    @property
    def board_size(self) -> int:
        """N."""
        return self.config.board_size

    @property
    def num_cells(self) -> int:
        """N * N; also the pass action."""
        return self.board_size * self.board_size


def tables(config: OthelloConfig) -> Tables:
    """The tables of ``config`` (built once per board size and end rule).

    Raises:
        ValueError: for N over :data:`MAX_BOARD_SIZE`, naming the alternatives.
    """
    if config.board_size > MAX_BOARD_SIZE:
        raise ValueError(
            f"the batched Othello engine plays boards up to {MAX_BOARD_SIZE}x{MAX_BOARD_SIZE} "
            f"(one uint64 bitboard per colour), got board_size={config.board_size}; larger "
            "boards need the single env (gymnasium.make('trap_env/Othello-v0', ...)) or "
            'gymnasium.make_vec(..., vectorization_mode="sync")'
        )
    return _tables(config)


@per_board_size()
def _tables(config: OthelloConfig) -> Tables:
    n = config.board_size
    full = rules.full_board(n)
    first, last = _column(n, 0), _column(n, n - 1)
    shifts, arrivals = [], []
    for row_step in (-1, 0, 1):
        for col_step in (-1, 0, 1):
            if row_step or col_step:
                shifts.append(row_step * n + col_step)
                # A step east that leaves the last column wraps into the first, and back.
                wrapped = first if col_step == 1 else last if col_step == -1 else 0
                arrivals.append(np.uint64(full & ~wrapped))
    start = rules.initial_state(config)
    starts = (start.dark, start.light)
    rounds = (n - 2).bit_length()
    return Tables(config, tuple(shifts), tuple(arrivals), np.uint64(full), starts, rounds)


def _column(n: int, col: int) -> int:
    return sum(1 << (row * n + col) for row in range(n))


def _step(board: U64, shift: int) -> U64:
    """Every cell of ``board`` moved ``shift`` bits (up for a positive shift), unmasked."""
    moved: U64 = board << np.uint64(shift) if shift > 0 else board >> np.uint64(-shift)
    return moved


# --- Moves ------------------------------------------------------------------------------


def placements(t: Tables, own: U64, other: U64) -> U64:
    """The empty cells where ``own``'s side may place: those that bracket a line of
    ``other``'s discs in some direction (:func:`trap_env.othello.rules.placements`)."""
    empty = t.full & ~(own | other)
    found = np.zeros_like(own)
    for shift, arrival in zip(t.shifts, t.arrivals, strict=True):
        lines = _fill(own, other & arrival, shift, t.rounds) & ~own
        found |= _step(lines, shift) & (empty & arrival)
    return found


def flips(t: Tables, own: U64, other: U64, placed: U64) -> U64:
    """The discs of ``other`` that a disc of ``own`` on the cells ``placed`` (one bit per
    game, or none) flips (:func:`trap_env.othello.rules.flips`)."""
    flipped = np.zeros_like(own)
    for shift, arrival in zip(t.shifts, t.arrivals, strict=True):
        reach = _fill(placed, other & arrival, shift, t.rounds)
        closed = (_step(reach, shift) & own & arrival) != 0
        flipped |= (reach & ~placed) * closed
    return flipped


def _fill(start: U64, through: U64, shift: int, rounds: int) -> U64:
    """``start`` and the cells of ``through`` that a line along ``shift`` joins to it,
    the line up to ``2**rounds - 1`` cells long (a Kogge-Stone occluded fill).

    ``through`` must hold only cells that a one-cell step may land on (no wrap), so that
    a run of ``k`` of its cells is ``k`` genuine steps.
    """
    reach = start | (through & _step(start, shift))
    for _ in range(rounds - 1):
        through = through & _step(through, shift)  # cells whose line back is all `through`
        shift *= 2
        reach |= through & _step(reach, shift)
    return reach


def _sides(dark: U64, light: U64, players: NDArray[Any]) -> tuple[U64, U64]:
    """The discs of ``players`` (per game) and of their opponents."""
    is_dark = np.asarray(players) == DARK
    return np.where(is_dark, dark, light), np.where(is_dark, light, dark)


def _derived(t: Tables, dark: U64, light: U64, player: I8, turn: I64) -> Batch:
    """The batch of these discs, players and plies, with the moves and liveness."""
    own, other = _sides(dark, light, player)
    moves = placements(t, own, other)
    live = moves != 0
    if t.config.end_rule == STANDARD:
        # Only a blocked player's opponent's placements can keep its game going.
        blocked = np.flatnonzero(~live)
        if len(blocked):
            live[blocked] = placements(t, other[blocked], own[blocked]) != 0
    return Batch(dark, light, player, turn, moves, live)


# --- States -----------------------------------------------------------------------------


def initial_batch(t: Tables, num_games: int) -> Batch:
    """``num_games`` games at the start, dark to move."""
    dark = np.full(num_games, t.starts[0], np.uint64)
    light = np.full(num_games, t.starts[1], np.uint64)
    player, turn = np.zeros(num_games, np.int8), np.zeros(num_games, np.int64)
    return _derived(t, dark, light, player, turn)


def from_states(t: Tables, states: Sequence[OthelloState]) -> Batch:
    """The batch of the scalar ``states``, which must be of the tables' rules.

    Raises:
        TypeError: for an item that is not an :class:`OthelloState`.
        ValueError: for an impossible state (:func:`trap_env.othello.rules.check_state`)
            or one of another board size or end rule.
    """
    for state in states:
        rules.check_state(state)
    other_rules = {s.config for s in states} - {t.config}
    if other_rules:
        raise ValueError(
            f"from_states needs states of {t.config}, got {sorted(map(str, other_rules))}"
        )
    return _derived(
        t,
        np.array([s.dark for s in states], np.uint64),
        np.array([s.light for s in states], np.uint64),
        np.array([s.player for s in states], np.int8),
        np.array([s.turn for s in states], np.int64),
    )


def to_states(t: Tables, batch: Batch) -> list[OthelloState]:
    """The games of ``batch`` as scalar states."""
    n, rule = t.board_size, t.config.end_rule
    fields = zip(
        batch.dark.tolist(), batch.light.tolist(), batch.player.tolist(), batch.turn.tolist(),
        strict=True,
    )  # fmt: skip
    return [
        OthelloState(n, rule, dark, light, player, turn) for dark, light, player, turn in fields
    ]


def winners(batch: Batch) -> I8:
    """The player with more discs in each finished game; :data:`NO_WINNER` for a draw or a
    game still on."""
    dark, light = np.bitwise_count(batch.dark), np.bitwise_count(batch.light)
    winner = np.where(dark > light, np.int8(0), np.int8(1))
    decided: I8 = np.where(~batch.live & (dark != light), winner, np.int8(NO_WINNER))
    return decided


# --- Masks and observations -------------------------------------------------------------


def legal_masks(t: Tables, batch: Batch) -> Bool:
    """``(B, N*N + 1)`` bool: the placements, else the pass while the game is live."""
    masks = np.empty((num_games(batch), t.num_cells + 1), np.bool_)
    masks[:, :-1] = bitboards_to_masks(batch.moves, t.num_cells)
    masks[:, -1] = batch.live & (batch.moves == 0)
    return masks


def observations(t: Tables, batch: Batch, players: NDArray[Any]) -> I8:
    """``(B, N, N, 4)`` ``int8`` planes as :meth:`trap_env.othello.game.Othello.observe`:
    the observer's discs, the opponent's, the observer's placements, ones when it is to
    act in a live game; ``players`` names each game's observer."""
    players = np.asarray(players)
    own, other = _sides(batch.dark, batch.light, players)
    to_act = players == batch.player
    moves = batch.moves.copy()
    waiting = np.flatnonzero(~to_act)  # few in an env: the observer is mostly to act
    if len(waiting):
        moves[waiting] = placements(t, own[waiting], other[waiting])
    planes = np.empty((num_games(batch), 4), np.uint64)
    planes[:, 0], planes[:, 1], planes[:, 2] = own, other, moves
    planes[:, 3] = np.where(to_act & batch.live, t.full, _ZERO)
    return bitboards_to_planes(planes, t.board_size)


# --- Transitions ------------------------------------------------------------------------


def apply(
    t: Tables,
    batch: Batch,
    actions: NDArray[Any],
    *,
    where: Bool | None = None,
    validate: bool = True,
) -> Batch:
    """Each live game (of ``where``, all if None) after its placement or pass.

    Finished games and games outside ``where`` stay as they are (their actions ignored).

    Args:
        t: the tables of the batch's rules.
        batch: the games.
        actions: ``(B,)`` cells ``row * N + col``, or the pass ``N * N``.
        where: the games to play, or None for all.
        validate: check that every played action is legal; pass False only when the
            caller has checked (the env does, under its illegal-action policy).

    Raises:
        IllegalActionError: with ``validate``, naming the first games whose action is not
            legal and their legal actions.
    """
    actions = np.asarray(actions, np.int64)
    playing = batch.live if where is None else batch.live & where
    if validate:
        _check_legal(t, batch, actions, playing)
    placing = playing & (actions != t.num_cells)
    placed = np.where(placing, _ONE << np.clip(actions, 0, 63).astype(np.uint64), _ZERO)
    own, other = _sides(batch.dark, batch.light, batch.player)
    flipped = flips(t, own, other, placed)
    own, other = own | flipped | placed, other & ~flipped
    dark_moved = batch.player == DARK
    dark = np.where(dark_moved, own, other)
    light = np.where(dark_moved, other, own)
    player = np.where(playing, 1 - batch.player, batch.player).astype(np.int8)
    # The games left alone place nothing and keep their player and plies, so their
    # derived fields come out as they were.
    return _derived(t, dark, light, player, batch.turn + playing)


def _check_legal(t: Tables, batch: Batch, actions: I64, playing: Bool) -> None:
    inside = (actions >= 0) & (actions <= t.num_cells)
    masks = legal_masks(t, batch)
    legal = inside & masks[np.arange(num_games(batch)), np.where(inside, actions, 0)]
    wrong = np.flatnonzero(playing & ~legal)
    if len(wrong):
        listed = "; ".join(
            f"game {game}: action {actions[game]}, legal {np.flatnonzero(masks[game]).tolist()}"
            for game in wrong[:3].tolist()
        )
        raise IllegalActionError(f"{len(wrong)} illegal action(s): {listed}")


# --- Random play ------------------------------------------------------------------------


def random_actions(t: Tables, batch: Batch, words: U64) -> I64:
    """A uniformly random legal action per live game, one random word each: a placement
    drawn among the set bits of its moves, or the pass (meaningless for finished games)."""
    counts = np.bitwise_count(batch.moves)
    cells = select_bits(batch.moves, uniform_below(words, np.maximum(counts, 1)))
    chosen: I64 = np.where(counts > 0, cells, t.num_cells)
    return chosen


class BatchedRandom:
    """:class:`agents.othello.random_agent.RandomAgent`'s batched twin: a uniformly random legal
    action in every game at once (a :class:`trap_env.batched_opponents.BatchOpponent`; every
    game's batched random opponent has this name)."""

    checked = False  # legal by construction

    def start(self, engine: Engine, games: I64, words: U64) -> None:
        """Nothing to prepare."""

    def act(self, engine: Engine, batch: Batch, where: Bool, words: U64) -> I64:
        """:func:`random_actions` (the entries outside ``where`` are ignored by the env)."""
        return random_actions(engine.tables, batch, words)


# --- The protocol -----------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Engine:
    """Othello's :class:`trap_env.batched.BatchedEngine`: this module's functions with the
    tables of one board size and end rule (``GAME.batched_engine(config)``)."""

    tables: Tables

    chance_slots = 0
    """Othello has no chance."""

    @property
    def config(self) -> OthelloConfig:
        """The board size and end rule."""
        return self.tables.config

    @property
    def num_actions(self) -> int:
        """N * N cells and the pass."""
        return self.tables.num_cells + 1

    def initial_batch(self, num_games: int) -> Batch:
        """:func:`initial_batch`."""
        return initial_batch(self.tables, num_games)

    def from_states(self, states: Sequence[OthelloState]) -> Batch:
        """:func:`from_states`."""
        return from_states(self.tables, states)

    def to_states(self, batch: Batch) -> list[OthelloState]:
        """:func:`to_states`."""
        return to_states(self.tables, batch)

    def turns(self, batch: Batch) -> I64:
        """The plies played."""
        return batch.turn

    def ply_index(self, batch: Batch) -> I64:
        """The plies played: every decision is a ply, and there is no chance node."""
        return batch.turn

    def players(self, batch: Batch) -> I8:
        """The player to act."""
        return batch.player

    def is_chance(self, batch: Batch) -> Bool:
        """All False: Othello has no chance."""
        return np.zeros(num_games(batch), np.bool_)

    def is_over(self, batch: Batch) -> Bool:
        """The games the end rule has ended."""
        over: Bool = ~batch.live
        return over

    def is_truncated(self, batch: Batch, max_turns: int) -> Bool:
        """The live games that have played ``max_turns`` plies."""
        truncated: Bool = batch.live & (batch.turn >= max_turns)
        return truncated

    def winners(self, batch: Batch) -> I8:
        """:func:`winners`."""
        return winners(batch)

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

    def chance_outcomes(self, batch: Batch) -> tuple[I64, NDArray[np.float64]]:
        """``(B, 0)`` arrays: there is no chance node."""
        size = num_games(batch)
        return np.zeros((size, 0), np.int64), np.zeros((size, 0), np.float64)

    def sample_chance(self, batch: Batch, words: U64) -> I64:
        """Othello has no chance node.

        Raises:
            ValueError: always.
        """
        raise ValueError("Othello has no chance nodes: there is nothing to sample")

    def observations(self, batch: Batch, players: NDArray[Any]) -> I8:
        """:func:`observations`."""
        return observations(self.tables, batch, players)


def __getattr__(name: str) -> Any:
    """``RandomOpponent``, deprecated: :class:`BatchedRandom`, the name of every game's batched
    random opponent (PEP 562)."""
    if name == "RandomOpponent":
        return moved_attribute(f"{__name__}.RandomOpponent", f"{__name__}:BatchedRandom")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

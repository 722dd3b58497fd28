"""The one-ply heuristic agents (``greedy``, ``is``, ``ais``, ``ocls``) for a whole batch.

:class:`agents.trap.heuristics.GreedyAgent` scores every legal move, and every throw target near
the opponent by its expected score over the landing distribution, then picks among the
best. This module computes the same scores for B games of :mod:`trap_env.trap.batched` at once,
with the same floating-point operations in the same order, so that each game's set of
best actions is the scalar agent's (the tests check it); ties are broken by the caller's
random words instead of the agent's generator.

Example:
    >>> from trap_env.trap import batched as batched_trap
    >>> from trap_env.bits import cells_of
    >>> t = batched_trap.tables(5)
    >>> best = best_actions(t, batched_trap.initial_batch(t, 2), "ais")
    >>> all(cells_of(int(b)) == [6, 7, 8] for b in best)
    True
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from trap_env.batched import I64, U64, Bool, num_games
from trap_env.trap import batched as batched_trap
from trap_env.trap import kernel
from trap_env.trap.batched import NO_CELL, PER_MILLE, Batch, Tables

__all__ = ["BATCHED_HEURISTICS", "BatchedGreedy", "best_actions"]

WIN_SCORE = 1e9
"""The score of a position where the scoring player has won (the scalar agents' too)."""
BATCHED_HEURISTICS = ("is", "ais", "ocls")
"""The heuristics computed for a batch (``eval`` plays game by game)."""

F64 = NDArray[np.float64]


class _Extended:
    """Per-board tables with a padding entry at :data:`trap_env.trap.batched.NO_CELL`."""

    def __init__(self, t: Tables) -> None:
        self.neighbours = np.zeros(NO_CELL + 1, np.uint64)
        self.neighbours[: t.num_cells] = t.neighbours
        self.bits = np.zeros(NO_CELL + 1, np.uint64)
        self.bits[: t.num_cells] = t.bits
        n = t.board_size
        self.near = np.array(
            [kernel.square_mask(n, cell, 2) for cell in range(t.num_cells)], np.uint64
        )


_EXTENDED: dict[int, _Extended] = {}


def _extended(t: Tables) -> _Extended:
    if t.board_size not in _EXTENDED:
        _EXTENDED[t.board_size] = _Extended(t)
    return _EXTENDED[t.board_size]


def _mobility(x: _Extended, me: I64, other: I64, traps: U64) -> I64:
    """The moves of the player on ``me``: free neighbours (no trap, not ``other``)."""
    free = x.neighbours[me] & ~(traps | x.bits[other])
    return np.bitwise_count(free).astype(np.int64)


def _lookahead(t: Tables, x: _Extended, me: I64, other: I64, traps: U64) -> I64:
    """OCLS's half: over the moves of the player on ``me``, the moves from there."""
    steps = x.neighbours[me] & ~(traps | x.bits[other])
    blocked = (traps | x.bits[me] | x.bits[other])[..., None]
    ring = t.neighbour_cells[np.minimum(me, t.num_cells - 1)]  # (..., 8), padded
    on_step = (steps[..., None] & x.bits[ring]) != 0
    onward = np.bitwise_count(x.neighbours[ring] & ~blocked).astype(np.int64)
    total: I64 = np.where(on_step, onward, 0).sum(axis=-1)
    return total


def _heuristic(t: Tables, name: str, me: I64, other: I64, traps: U64) -> I64:
    """Heuristic ``name`` for the player on ``me`` against the player on ``other``."""
    x = _extended(t)
    if name == "ocls":
        return _lookahead(t, x, me, other, traps) - _lookahead(t, x, other, me, traps)
    mine, theirs = _mobility(x, me, other, traps), _mobility(x, other, me, traps)
    return mine - (2 if name == "ais" else 1) * theirs


def _score(t: Tables, name: str, me: I64, other: I64, traps: U64) -> F64:
    """The scalar agent's ``_score`` for the player on ``me`` who has just played: a win
    when the other player has no move left, else the heuristic."""
    won = _mobility(_extended(t), other, me, traps) == 0
    return np.where(won, WIN_SCORE, _heuristic(t, name, me, other, traps).astype(np.float64))


def _move_values(t: Tables, batch: Batch, name: str) -> tuple[I64, F64, Bool]:
    """Each game's up-to-8 destinations, their scores and which are legal."""
    own, other = batched_trap.player_cells(batch, batch.player)
    ring = t.neighbour_cells[own]
    moves = batched_trap.move_bitboards(t, batch, batch.player)
    legal = (moves[:, None] & _extended(t).bits[ring]) != 0
    others = np.broadcast_to(other[:, None], ring.shape)
    traps = np.broadcast_to(batch.traps[:, None], ring.shape)
    return ring, _score(t, name, np.minimum(ring, t.num_cells - 1), others, traps), legal


def _throw_candidates(t: Tables, batch: Batch) -> U64:
    """The scalar agent's targets: empty cells within two king steps of the opponent, or
    any empty cell, or any legal target."""
    x = _extended(t)
    own, other = batched_trap.player_cells(batch, batch.player)
    legal = t.all_cells & ~(x.bits[own] | x.bits[other])
    empty = legal & ~batch.traps
    near = empty & x.near[other]
    targets: U64 = np.where(near != 0, near, np.where(empty != 0, empty, legal))
    return targets


def _throw_values(t: Tables, batch: Batch, name: str) -> F64:
    """``(B, N*N)`` expected scores of a throw at each cell, summed as the scalar agent sums
    them: target first, then the eligible neighbours in ascending order."""
    x = _extended(t)
    own, other = batched_trap.player_cells(batch, batch.player)
    size, cells = num_games(batch), np.arange(t.num_cells)
    me = np.broadcast_to(own[:, None], (size, t.num_cells))
    them = np.broadcast_to(other[:, None], (size, t.num_cells))
    traps = batch.traps[:, None]
    on_target = t.on_target[own[:, None] * t.num_cells + cells[None, :]]
    eligible = t.neighbours[cells][None, :] & ~(x.bits[own] | x.bits[other])[:, None]
    count = np.maximum(np.bitwise_count(eligible).astype(np.int64), 1)
    share = (PER_MILLE - on_target) / (PER_MILLE * count)
    hit = _score(t, name, me, them, traps | t.bits[cells][None, :])
    total: F64 = np.where(on_target > 0, (on_target / PER_MILLE) * hit, 0.0)
    for slot in range(t.neighbour_cells.shape[1]):
        landing = t.neighbour_cells[cells, slot][None, :]
        bit = x.bits[landing]
        counts = (on_target < PER_MILLE) & ((eligible & bit) != 0)
        value = _score(t, name, me, them, traps | bit)
        total = total + np.where(counts, share * value, 0.0)  # x + 0.0 == x: order kept
    return total


def _best_bits(values: F64, allowed: Bool, cells: I64) -> U64:
    """The bitboard of the cells whose value is the best allowed one."""
    scored = np.where(allowed, values, -np.inf)
    best = scored.max(axis=1, keepdims=True)
    chosen = allowed & (scored == best)
    bits = np.where(chosen, _extended_bits(cells), np.uint64(0))
    result: U64 = np.bitwise_or.reduce(bits, axis=1)
    return result


def _extended_bits(cells: I64) -> U64:
    bits: U64 = np.left_shift(np.uint64(1), np.minimum(cells, 63).astype(np.uint64))
    return np.where(cells < NO_CELL, bits, np.uint64(0))


def best_actions(t: Tables, batch: Batch, heuristic: str) -> U64:
    """Each game's best actions as a bitboard, as ``GreedyAgent(heuristic)`` scores them.

    Games in phase ``MOVE`` get their best moves, games in ``THROW`` their best targets;
    entries of other games are meaningless.

    Raises:
        ValueError: for a heuristic not in :data:`BATCHED_HEURISTICS`.
    """
    if heuristic not in BATCHED_HEURISTICS:
        raise ValueError(
            f"batched heuristics are {', '.join(BATCHED_HEURISTICS)}; got {heuristic!r}"
        )
    best = np.zeros(num_games(batch), np.uint64)
    moving = np.flatnonzero(batch.phase == batched_trap.MOVE)
    if len(moving):
        ring, values, legal = _move_values(t, batched_trap.gather(batch, moving), heuristic)
        best[moving] = _best_bits(values, legal, ring)
    throwing = np.flatnonzero(batch.phase == batched_trap.THROW)
    if len(throwing):
        part = batched_trap.gather(batch, throwing)
        values = _throw_values(t, part, heuristic)
        cells = np.broadcast_to(np.arange(t.num_cells), values.shape)
        allowed = (_throw_candidates(t, part)[:, None] & t.bits[None, :]) != 0
        best[throwing] = _best_bits(values, allowed, cells)
    return best


class BatchedGreedy:
    """``GreedyAgent(heuristic)`` as an opponent of
    :class:`trap_env.trap.batched_env.TrapVectorEnv`: the same sets of best actions, ties
    broken by the env's random words."""

    checked = False  # the best actions are legal by construction

    def __init__(self, heuristic: str = "ais") -> None:
        if heuristic not in BATCHED_HEURISTICS:
            raise ValueError(
                f"batched heuristics are {', '.join(BATCHED_HEURISTICS)}; got {heuristic!r}"
            )
        self.heuristic = heuristic

    def start(self, engine: batched_trap.Engine, games: I64, words: U64) -> None:
        """Nothing to prepare."""

    def act(self, engine: batched_trap.Engine, batch: Batch, where: Bool, words: U64) -> I64:
        """A uniformly drawn best action in each game of ``where``."""
        t = engine.tables
        rows = np.flatnonzero(where)
        actions = np.zeros(num_games(batch), np.int64)
        best = best_actions(t, batched_trap.gather(batch, rows), self.heuristic)
        actions[rows] = batched_trap.choose_bits(best, words[rows], t.num_cells)
        return actions

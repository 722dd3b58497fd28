"""``expectiminimax`` to a fixed depth for a whole batch of games, in array operations.

:class:`BatchedSearch` computes, for B games of :mod:`trap_env.trap.batched` at once, the
depth-limited expectiminimax value of every root action that the scalar search
(:mod:`agents.search.expectimax` over :class:`agents.trap.search_game.TrapGame`) would search,
under the same settings: depth in plies (a move and a throw are a ply each, chance nodes
take none), the throw filter (throws at empty cells within ``throw_radius`` king steps of
the opponent; every legal target when none is), landings on existing traps merged into
one outcome, outcomes less likely than one half searched ``chance_reduction`` plies
shallower, won games worth +1, and the positions at depth 0 valued by the same evaluation
(:mod:`agents.trap.batched_evaluation`). The scalar search prunes (alpha-beta,
Star1/Star2) and keeps a table; neither changes a value, so the two agree on every root
value, which the tests check to 1e-9 against the plain expectimax oracle and the scalar
search.

The tree is expanded full width, layer by layer, as arrays: a move node's children are
its up to eight steps, a throw node's are its candidate targets, and a target's value is
the probability-weighted sum over its landing cells. Most of the work is there, and it is
shared: the landing cells of the candidate targets overlap (a cell is the target of one
throw and a miss of its neighbours'), so each distinct landed position of a throw node is
valued once, at each depth asked of it, and every target's sum reads those values.

:class:`BatchedExpectiminimax` is ``expectiminimax:depth=D``'s batched twin
(``ExpectiminimaxAgent.batched()``), an opponent of the batched env: each game gets a best
action, ties broken by the env's random words. Games are searched in chunks whose leaves
fit in :data:`MAX_LEAVES` (two turns deep, a chunk is a few dozen games).

Example:
    >>> from trap_env.trap import batched as batched_trap
    >>> t = batched_trap.tables(5)
    >>> search = BatchedSearch(t, depth=2)
    >>> values = search.action_values(batched_trap.initial_batch(t, 1))
    >>> int(np.isfinite(values).sum())      # the five legal first moves
    5
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from agents.search.expectimax import REDUCE_BELOW
from agents.trap.batched_evaluation import board_values, king_dilate
from agents.trap.evaluation import DEFAULT_WEIGHTS, Weights
from trap_env.batched import I64, U64, Bool, gather, num_games
from trap_env.cache import per_board_size
from trap_env.trap import batched as batched_trap
from trap_env.trap import kernel
from trap_env.trap.batched import MOVE, NO_CELL, PER_MILLE, THROW, Batch, Tables
from trap_env.trap.core import NO_PLAYER

__all__ = ["MAX_LEAVES", "TIE_TOLERANCE", "BatchedExpectiminimax", "BatchedSearch"]

F64 = NDArray[np.float64]

MAX_LEAVES = 1 << 21
"""About how many leaves one chunk of games may expand (a few hundred MB of arrays)."""
TIE_TOLERANCE = 1e-12
"""Root actions within this of the best value are its ties (sums in another order may
differ in the last bits)."""


class _Board:
    """The per-board tables the search reads beyond :class:`Tables`."""

    def __init__(self, t: Tables, throw_radius: int) -> None:
        n, cells = t.board_size, t.num_cells
        self.near = np.array(
            [kernel.square_mask(n, cell, throw_radius) for cell in range(cells)], np.uint64
        )
        ring = t.neighbour_cells
        self.ring = np.where(ring < NO_CELL, ring, 0)
        self.ring_valid = ring < NO_CELL
        self.rings = ((t.neighbours[:, None] & t.bits[None, :]) != 0).astype(np.float64)
        """``rings[target, cell]``: 1.0 where ``cell`` is one of ``target``'s neighbours."""
        chances = t.on_target.reshape(cells, cells)  # [thrower, target]
        self.sure = _cells_where(chances == PER_MILLE, t)
        """By thrower cell: the targets its throws always hit."""
        self.never = _cells_where(chances == 0, t)
        """By thrower cell: the targets its throws never hit."""


def _cells_where(rows: Bool, t: Tables) -> U64:
    """Each row of a ``(R, N*N)`` mask as a bitboard."""
    bits: U64 = np.bitwise_or.reduce(np.where(rows, t.bits[None, :], np.uint64(0)), axis=1)
    return bits


@per_board_size()
def _board(t: Tables, throw_radius: int) -> _Board:
    return _Board(t, throw_radius)


class BatchedSearch:
    """Fixed-depth expectiminimax over batches of Trap! games (see the module's docstring).

    Args:
        t: the board's tables (:func:`trap_env.trap.batched.tables`).
        depth: plies searched from the root, at least 1.
        throw_filter: as :class:`agents.trap.search.SearchSettings` (so are the next four).
        throw_radius: the filter's radius.
        chance_reduction: how misses are searched shallower.
        deterministic_throws: whether throws land on their targets.
        weights: the evaluation's weights.
        max_leaves: about how many leaves a chunk of games may expand.

    Raises:
        ValueError: for a depth below 1 or settings the scalar search refuses.
    """

    def __init__(
        self,
        t: Tables,
        depth: int,
        *,
        throw_filter: bool = True,
        throw_radius: int = 2,
        chance_reduction: int = 2,
        deterministic_throws: bool = False,
        weights: Weights = DEFAULT_WEIGHTS,
        max_leaves: int = MAX_LEAVES,
    ) -> None:
        for name, value, low in (
            ("depth", depth, 1),
            ("throw_radius", throw_radius, 1),
            ("chance_reduction", chance_reduction, 0),
            ("max_leaves", max_leaves, 1),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
        self.t = t
        self.depth = depth
        self.throw_filter = throw_filter
        self.chance_reduction = chance_reduction
        self.deterministic_throws = deterministic_throws
        self.weights = weights
        self.board = _board(t, throw_radius)
        # A turn (move, throw, landing) multiplies the leaves by up to 8 steps times N*N
        # landed positions.
        per_game = (8 * t.num_cells) ** math.ceil(depth / 2)
        self.chunk = max(1, max_leaves // per_game)

    def action_values(self, batch: Batch) -> F64:
        """``(B, N*N)``: each root action's value for the player to act, ``-inf`` for the
        actions not searched (illegal, or throws outside the filter).

        Every game must be a decision (``MOVE`` or ``THROW``) of a game in progress.

        Raises:
            ValueError: for a finished game or one waiting for a landing.
        """
        waiting = (batch.winner != NO_PLAYER) | ((batch.phase != MOVE) & (batch.phase != THROW))
        if waiting.any():
            game = int(np.flatnonzero(waiting)[0])
            raise ValueError(
                f"the search starts at a move or a throw of a game in progress; game {game} "
                f"is {'over' if batch.winner[game] != NO_PLAYER else 'waiting for a landing'}"
            )
        size = num_games(batch)
        values = np.full((size, self.t.num_cells), -np.inf)
        for start in range(0, size, self.chunk):
            rows = np.arange(start, min(start + self.chunk, size))
            part = gather(batch, rows)
            depth = np.full(len(rows), self.depth, np.int64)
            moving = part.phase == MOVE
            if moving.any():
                ring, move_values = self._moves(gather(part, np.flatnonzero(moving)), depth[moving])
                node, slot = np.nonzero(np.isfinite(move_values))
                values[rows[moving][node], ring[node, slot]] = move_values[node, slot]
            throwing = ~moving
            if throwing.any():
                values[rows[throwing]] = self._throws(
                    gather(part, np.flatnonzero(throwing)), depth[throwing]
                )
        return values

    def best_actions(self, batch: Batch) -> U64:
        """Each game's best root actions as a bitboard (the actions within
        :data:`TIE_TOLERANCE` of the best value)."""
        values = self.action_values(batch)
        best = values.max(axis=1, keepdims=True)
        tied = values >= best - TIE_TOLERANCE
        chosen: U64 = np.bitwise_or.reduce(np.where(tied, self.t.bits, np.uint64(0)), axis=1)
        return chosen

    # --- the layers -----------------------------------------------------------------------

    def _values(self, batch: Batch, depth: I64) -> F64:
        """Each node's value for its player to act (nodes: decisions or finished games)."""
        over = batch.winner != NO_PLAYER
        won = np.where(batch.winner == batch.player, 1.0, -1.0)
        inner = ~over & (depth > 0)
        if not inner.any():  # the common case: value every node, finished games too
            values: F64 = np.where(over, won, self._evaluate(batch))
            return values
        values = won
        leaf = np.flatnonzero(~over & ~inner)
        if len(leaf):
            values[leaf] = self._evaluate(gather(batch, leaf))
        moving = np.flatnonzero(inner & (batch.phase == MOVE))
        if len(moving):
            values[moving] = self._moves(gather(batch, moving), depth[moving])[1].max(axis=1)
        throwing = np.flatnonzero(inner & (batch.phase == THROW))
        if len(throwing):
            values[throwing] = self._throws(gather(batch, throwing), depth[throwing]).max(axis=1)
        return values

    def _evaluate(self, batch: Batch) -> F64:
        """The static evaluation for each node's player to act."""
        cells = batch.cells
        value = board_values(self.t, batch.traps, cells[:, 0], cells[:, 1], self.weights)
        signed: F64 = np.where(batch.player == 0, value, -value)
        return signed

    def _moves(self, batch: Batch, depth: I64) -> tuple[I64, F64]:
        """Each node's up-to-8 step cells ``(K, 8)`` and their values (``-inf``: no step)."""
        t = self.t
        own, _ = batched_trap.player_cells(batch, batch.player)
        ring = self.board.ring[own]
        steps = batched_trap.move_bitboards(t, batch, batch.player)
        legal = self.board.ring_valid[own] & ((steps[:, None] & t.bits[ring]) != 0)
        parent, slot = np.nonzero(legal)
        children = batched_trap.apply_moves(
            t, gather(batch, parent), ring[parent, slot], np.ones(len(parent), bool)
        )
        values = np.full(ring.shape, -np.inf)
        values[parent, slot] = self._values(children, depth[parent] - 1)  # the mover acts on
        return ring, values

    def _targets(self, batch: Batch) -> U64:
        """The throws the scalar search tries (:meth:`TrapGame.legal_actions`), as bitboards."""
        t = self.t
        own, other = batched_trap.player_cells(batch, batch.player)
        legal: U64 = t.all_cells & ~(t.bits[own] | t.bits[other])
        if not self.throw_filter:
            return legal
        near = self.board.near[other] & legal & ~batch.traps
        targets: U64 = np.where(near != 0, near, legal)
        return targets

    def _throws(self, batch: Batch, depth: I64) -> F64:
        """``(K, N*N)``: each candidate target's expected value (``-inf`` elsewhere)."""
        full = depth - 1
        reduced = np.maximum(0, full - self.chance_reduction)
        if (reduced != full).any():
            return self._throws_by_outcome(batch, full, reduced)
        return self._throws_by_cell(batch, full)

    def _throws_by_cell(self, batch: Batch, depth: I64) -> F64:
        """:meth:`_throws` when every landing is searched to ``depth``: each landed cell's
        value once, then every target's sum as ``p * V[target] + share * (V summed over
        its ring)`` (a cell holding a player is no landing, and its V is 0). Landings on
        traps already there all give the unchanged board: no merging is needed."""
        t, board = self.t, self.board
        cells = t.num_cells
        thrower, other = batched_trap.player_cells(batch, batch.player)
        targets = self._targets(batch)
        players = t.bits[thrower] | t.bits[other]
        support = targets
        if not self.deterministic_throws:
            hit = targets & ~board.never[thrower]
            missed = king_dilate(t.board_size, targets & ~board.sure[thrower])
            support = (hit | missed) & ~players
        node, cell = np.nonzero(((support & ~batch.traps)[:, None] & t.bits[None, :]) != 0)
        landed = np.zeros((num_games(batch), cells))
        landed[node, cell] = self._landed(batch, node, cell, depth[node])
        unchanged = np.flatnonzero((support & batch.traps) != 0)
        if len(unchanged):
            on_a_trap = _a_trap(batch.traps[unchanged])
            same = self._landed(batch, unchanged, on_a_trap, depth[unchanged])
            on_trap = (batch.traps[unchanged, None] & t.bits[None, :]) != 0
            landed[unchanged] = np.where(on_trap, same[:, None], landed[unchanged])
        candidates = (targets[:, None] & t.bits[None, :]) != 0
        if self.deterministic_throws:
            return np.where(candidates, landed, -np.inf)
        chance = t.on_target[thrower[:, None] * cells + np.arange(cells)[None, :]]
        eligible = np.bitwise_count(t.neighbours[None, :] & ~players[:, None]).astype(np.int64)
        share = (PER_MILLE - chance) / (PER_MILLE * np.maximum(eligible, 1))
        total = np.where(chance > 0, (chance / PER_MILLE) * landed, 0.0)
        total = total + np.where(chance < PER_MILLE, share * (landed @ board.rings.T), 0.0)
        return np.where(candidates, total, -np.inf)

    def _throws_by_outcome(self, batch: Batch, full: I64, reduced: I64) -> F64:
        """:meth:`_throws` when unlikely landings are searched shallower (``reduced``
        plies), outcome by outcome: landings on traps are merged into one outcome whose
        probability decides its depth, as in the scalar search."""
        t = self.t
        cells = t.num_cells
        node, target = np.nonzero((self._targets(batch)[:, None] & t.bits[None, :]) != 0)
        landing, probability, valid = self._outcomes(batch, node, target)
        on_trap = (batch.traps[node][:, None] & t.bits[landing]) != 0
        kept = valid & ~on_trap
        wasted = np.where(valid & on_trap, probability, 0.0)
        wasted_p = np.zeros(len(node))
        for slot in range(landing.shape[1]):  # summed in the rules' order, as the scalar
            wasted_p = wasted_p + wasted[:, slot]
        has_wasted = wasted_p > 0
        # Each landed position of a node, at each of the two depths, has one flat index:
        # (node * (N*N + 1) + cell) * 2 + shallow, cell N*N standing for "on a trap".
        base = node * (cells + 1)
        index = (base[:, None] + landing) * 2 + (probability < REDUCE_BELOW)
        wasted_index = (base + cells) * 2 + (wasted_p < REDUCE_BELOW)
        needed = np.zeros(num_games(batch) * (cells + 1) * 2, bool)
        needed[index[kept]] = True
        needed[wasted_index[has_wasted]] = True
        wanted = np.flatnonzero(needed)
        parent, rest = np.divmod(wanted, (cells + 1) * 2)
        cell, shallow = np.divmod(rest, 2)
        landed = np.zeros(len(needed))
        depth = np.where(shallow == 1, reduced[parent], full[parent])
        on_a_trap = cell == cells  # the index N*N stands for "on a trap already there"
        cell[on_a_trap] = _a_trap(batch.traps[parent[on_a_trap]])
        landed[wanted] = self._landed(batch, parent, cell, depth)
        total = np.zeros(len(node))
        for slot in range(landing.shape[1]):
            value = landed[np.where(kept[:, slot], index[:, slot], 0)]
            total = total + np.where(kept[:, slot], probability[:, slot] * value, 0.0)
        total = total + np.where(has_wasted, wasted_p * landed[wasted_index], 0.0)
        values = np.full((num_games(batch), cells), -np.inf)
        values[node, target] = total
        return values

    def _outcomes(self, batch: Batch, node: I64, target: I64) -> tuple[I64, F64, Bool]:
        """The landing slots of each throw (node ``node[i]`` at ``target[i]``), ``(P, 9)``:
        cells, probabilities and which slots are outcomes
        (:func:`trap_env.trap.kernel.landing_distribution`: the target first, then its
        neighbours that hold no player, ascending)."""
        t, board = self.t, self.board
        if self.deterministic_throws:
            shape = (len(node), 1)
            return target[:, None].copy(), np.ones(shape), np.ones(shape, bool)
        thrower, other = batched_trap.player_cells(batch, batch.player)
        on_target = t.on_target[thrower[node] * t.num_cells + target]
        players = (t.bits[thrower] | t.bits[other])[node]
        ring = board.ring[target]
        eligible = board.ring_valid[target] & ((t.bits[ring] & players[:, None]) == 0)
        share = (PER_MILLE - on_target) / (PER_MILLE * np.maximum(eligible.sum(axis=1), 1))
        landing = np.concatenate([target[:, None], ring], axis=1)
        probability = np.concatenate(
            [(on_target / PER_MILLE)[:, None], np.broadcast_to(share[:, None], ring.shape)],
            axis=1,
        )
        valid = np.concatenate(
            [(on_target > 0)[:, None], eligible & (on_target < PER_MILLE)[:, None]], axis=1
        )
        return landing, probability, valid

    def _landed(self, batch: Batch, node: I64, cell: I64, depth: I64) -> F64:
        """The thrower's value of each landing on ``cell`` of the throw pending at ``node``
        (the engine's own landing, :func:`trap_env.trap.batched.apply_landings`), searched
        to ``depth`` (``(len(node),)``)."""
        parents = gather(batch, node)
        children = batched_trap.apply_landings(self.t, parents, cell, np.ones(len(node), bool))
        value: F64 = -self._values(children, depth)  # the victim acts next
        return value


def _a_trap(traps: U64) -> I64:
    """A cell holding a trap on each (non-empty) bitboard: where a landing changes nothing."""
    lowest = traps & (~traps + np.uint64(1))
    cells: I64 = np.bitwise_count(lowest - np.uint64(1)).astype(np.int64)
    return cells


class BatchedExpectiminimax:
    """``expectiminimax:depth=D`` as an opponent of the batched env
    (:class:`trap_env.batched_env.GameVectorEnv` on Trap!): a best action of the
    depth-``D`` search in every game, ties broken by the env's random words.

    Its arguments (``depth``, ``throw_filter``, ``throw_radius``, ``chance_reduction``,
    ``deterministic_throws``, ``weights``) are :class:`agents.trap.search.SearchSettings`'s.
    """

    checked = False  # the searched actions are legal by construction

    def __init__(
        self,
        depth: int,
        *,
        throw_filter: bool = True,
        throw_radius: int = 2,
        chance_reduction: int = 2,
        deterministic_throws: bool = False,
        weights: Weights = DEFAULT_WEIGHTS,
    ) -> None:
        self._build: Callable[[Tables], BatchedSearch] = functools.partial(
            BatchedSearch,
            depth=depth,
            throw_filter=throw_filter,
            throw_radius=throw_radius,
            chance_reduction=chance_reduction,
            deterministic_throws=deterministic_throws,
            weights=weights,
        )
        self._build(batched_trap.tables(3))  # checks the settings now
        self._searches: dict[Tables, BatchedSearch] = {}

    def search(self, t: Tables) -> BatchedSearch:
        """The search on the board of ``t`` (built once per board)."""
        if t not in self._searches:
            self._searches[t] = self._build(t)
        return self._searches[t]

    def start(self, engine: batched_trap.Engine, games: I64, words: U64) -> None:
        """Nothing to prepare: the search keeps nothing between decisions."""

    def act(self, engine: batched_trap.Engine, batch: Batch, where: Bool, words: U64) -> I64:
        """A uniformly drawn best action in each game of ``where``."""
        t = engine.tables
        rows = np.flatnonzero(where)
        actions = np.zeros(num_games(batch), np.int64)
        if len(rows):
            best = self.search(t).best_actions(gather(batch, rows))
            actions[rows] = batched_trap.choose_bits(best, words[rows], t.num_cells)
        return actions

"""The static evaluation of a Trap! position, for search agents.

A position is scored from one player's point of view by a weighted sum of antisymmetric
terms (each is "mine minus the opponent's"), then squashed into an estimated expected
payoff strictly inside ``(-EVAL_BOUND, EVAL_BOUND)``, with ``EVAL_BOUND < 1``: a won game
is worth exactly +1 and a lost one -1, so that the search's value bounds are ``[-1, 1]``
(what Star1/Star2 pruning at chance nodes needs) and no evaluation is mistaken for a result.

The terms (all counted with king steps through cells holding no trap):

* ``mobility``: the cells the player can step to now. The opponent throws at these
  cells; a player with no step left loses, so this is the most direct danger signal.
* ``room``: the free cells within two steps (cells reachable in one or two steps). A
  second-order mobility: how many escapes the player keeps after the next trap.
* ``voronoi``: the cells the player reaches strictly before the opponent (a breadth-first
  search from both players at once; ties count for nobody). The territory the player can
  flee into as the board fills. A cell ``k`` steps away counts ``voronoi_decay ** (k - 1)``:
  far territory is worth less, as the opponent's traps can cut the way to it first.

Weights were set by matches between variants (``expectiminimax:weights=voronoi=0`` and so
on; the matches and their commands are in ``docs/experiments.md``). The defaults
(:data:`DEFAULT_WEIGHTS`) are the classic weights (:data:`CLASSIC_WEIGHTS`) plus the
Voronoi decay. ``alphabeta``, the course's baseline, keeps the classic weights, so that its
strength stays put while the reference policy's is tuned.

Everything here is bitboard arithmetic on ints over the board geometry of
:mod:`trap_env.trap.kernel`; :class:`Evaluator` caches scores.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import NamedTuple

from trap_env.cache import BoundedCache
from trap_env.trap.core import Bitboard, Cell, State
from trap_env.trap.kernel import Geometry, geometry, king_dilate

__all__ = [
    "CLASSIC_WEIGHTS",
    "DEFAULT_WEIGHTS",
    "EVAL_BOUND",
    "Evaluator",
    "Terms",
    "Weights",
    "evaluate",
    "raw_score",
    "terms",
]

EVAL_BOUND = 0.95
"""Every evaluation lies strictly inside ``(-EVAL_BOUND, EVAL_BOUND)``; wins are +1, losses -1."""


@dataclass(frozen=True)
class Weights:
    """The weight of each term in the raw score, and the scale of the squashing.

    Attributes:
        mobility: per cell of "my steps minus the opponent's".
        room: per cell of "my free cells within two steps minus the opponent's".
        voronoi: per cell of "cells I reach first minus cells the opponent reaches first",
            for the cells one step away.
        voronoi_decay: each step farther from the players multiplies a Voronoi cell's
            weight by this (1: every cell the same).
        scale: the raw score that maps to ``EVAL_BOUND * tanh(1)`` (about 0.72).
    """

    mobility: float = 1.0
    room: float = 0.5
    voronoi: float = 0.35
    voronoi_decay: float = 0.8
    scale: float = 8.0

    def __post_init__(self) -> None:
        if self.scale <= 0:
            raise ValueError(f"Weights.scale must be > 0, got {self.scale!r}")
        if not 0 < self.voronoi_decay <= 1:
            raise ValueError(
                f"Weights.voronoi_decay must be in (0, 1], got {self.voronoi_decay!r}"
            )

    @classmethod
    def parse(cls, text: str, base: Weights | None = None) -> Weights:
        """``base`` (default: the defaults) with some weights replaced: ``"voronoi=0;room=1"``.

        As in agent specs: ``"expectiminimax:weights=voronoi=0;room=1"``.

        Raises:
            ValueError: for an unknown field, a missing ``=`` or a value that is not a number.
        """
        fields = {field.name for field in dataclasses.fields(cls)}
        changes: dict[str, float] = {}
        for item in filter(None, (part.strip() for part in text.split(";"))):
            name, sep, value = (piece.strip() for piece in item.partition("="))
            if not sep or name not in fields:
                raise ValueError(
                    f"weights item {item!r} is not field=number with a field among "
                    f"{sorted(fields)} (items are separated by ';')"
                )
            try:
                changes[name] = float(value)
            except ValueError:
                raise ValueError(f"weights item {item!r}: {value!r} is not a number") from None
        return dataclasses.replace(base if base is not None else cls(), **changes)


DEFAULT_WEIGHTS = Weights()
"""The evaluation of ``expectiminimax`` and the presets."""
CLASSIC_WEIGHTS = Weights(voronoi=0.25, voronoi_decay=1.0)
"""The first evaluation (every Voronoi cell counts the same), kept by ``alphabeta``."""


class Terms(NamedTuple):
    """The evaluation terms of a position, each "player 0's minus player 1's"."""

    mobility: int
    room: int
    voronoi: float


def _voronoi(
    tables: Geometry, free: Bitboard, mine: Bitboard, theirs: Bitboard, decay: float
) -> float:
    """Cells reached first from ``mine`` minus those from ``theirs``, ``decay`` per step."""
    n, not_left, not_right = tables.board_size, tables.not_left, tables.not_right
    unseen = free & ~mine & ~theirs
    balance = 0.0
    weight = 1.0
    # kernel.king_dilate written out (no calls; the & full is the & unseen): this loop is
    # the search's hottest code.
    while mine or theirs:
        row = mine | (mine & not_right) << 1 | (mine & not_left) >> 1
        mine = (row | row << n | row >> n) & unseen
        row = theirs | (theirs & not_right) << 1 | (theirs & not_left) >> 1
        theirs = (row | row << n | row >> n) & unseen
        tied = mine & theirs
        unseen &= ~(mine | theirs)
        balance += weight * ((mine ^ tied).bit_count() - (theirs ^ tied).bit_count())
        # Tied cells are nobody's, but both fronts go on through them.
        weight *= decay
    return balance


def _terms(
    board_size: int, traps: Bitboard, cell0: Cell, cell1: Cell, voronoi_decay: float
) -> Terms:
    tables = geometry(board_size)
    bit0, bit1 = 1 << cell0, 1 << cell1
    free = tables.full & ~traps & ~bit0 & ~bit1
    steps0 = king_dilate(tables, bit0) & free
    steps1 = king_dilate(tables, bit1) & free
    room0 = king_dilate(tables, steps0) & free
    room1 = king_dilate(tables, steps1) & free
    return Terms(
        steps0.bit_count() - steps1.bit_count(),
        room0.bit_count() - room1.bit_count(),
        _voronoi(tables, free, bit0, bit1, voronoi_decay),
    )


def terms(state: State, voronoi_decay: float = DEFAULT_WEIGHTS.voronoi_decay) -> Terms:
    """The evaluation terms of ``state``, from player 0's point of view."""
    cell0, cell1 = state.cells
    return _terms(state.board_size, state.traps, cell0, cell1, voronoi_decay)


def raw_score(state: State, player: int, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """The weighted sum of the terms from ``player``'s point of view (unbounded)."""
    score = _weighted(terms(state, weights.voronoi_decay), weights)
    return score if player == 0 else -score


def _weighted(terms: Terms, weights: Weights) -> float:
    mobility, room, voronoi = terms
    return weights.mobility * mobility + weights.room * room + weights.voronoi * voronoi


def _squash(score: float, scale: float) -> float:
    return EVAL_BOUND * math.tanh(score / scale)


def evaluate(state: State, player: int, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """The estimated payoff of ``state`` for ``player``, strictly inside ``±EVAL_BOUND``.

    Antisymmetric: ``evaluate(s, 0) == -evaluate(s, 1)``. Ignores whether the game is
    over; callers score finished games as +1 / -1 themselves.
    """
    return _squash(raw_score(state, player, weights), weights.scale)


class Evaluator:
    """:func:`evaluate` with a cache keyed by the position (traps and cells).

    Args:
        weights: the term weights.
        max_entries: the cache stores no new position past this size (see
            :meth:`make_room`).
    """

    def __init__(self, weights: Weights = DEFAULT_WEIGHTS, max_entries: int = 200_000) -> None:
        self.weights = weights
        # Int keys and float values: the garbage collector never scans such a cache.
        self._cache: BoundedCache[int, float] = BoundedCache(max_entries)
        self._board_size = 0

    def __call__(self, state: State, player: int) -> float:
        """The evaluation of ``state`` for ``player`` (see :func:`evaluate`)."""
        cell0, cell1 = state.cells
        value = self.board_value(state.board_size, state.traps, cell0, cell1)
        return value if player == 0 else -value

    def board_value(self, board_size: int, traps: Bitboard, cell0: Cell, cell1: Cell) -> float:
        """The evaluation for player 0 of the board with these traps and players' cells.

        For callers that have the board but no :class:`State` (it depends on nothing else).
        """
        if board_size != self._board_size:  # the key says nothing of the board size
            self._cache.clear()
            self._board_size = board_size
        size = board_size * board_size
        # One product and one sum on the (large) traps int; the cells' part is small.
        key = traps * (size * size) + (cell0 * size + cell1)
        value = self._cache.get(key)
        if value is None:
            weights = self.weights
            score = _weighted(
                _terms(board_size, traps, cell0, cell1, weights.voronoi_decay), weights
            )
            value = _squash(score, weights.scale)
            self._cache.put(key, value)
        return value

    def make_room(self) -> None:
        """Clear the cache if it is more than three quarters full (call between searches)."""
        self._cache.make_room()

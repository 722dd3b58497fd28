"""The reference search's evaluation of an Othello position: mobility, frontier, corners,
stability and X-squares, each a difference between the player to act and its opponent,
with weights as options.

Every term is zero-sum (the score for one player is minus the other's), so a search can
negate it from ply to ply. :func:`evaluate` takes a :class:`~trap_env.othello.rules.OthelloState`
for tests and callers; :func:`evaluate_bitboards` is what the search calls, with the
placements it has already found.

Example:
    >>> from trap_env.othello.rules import initial_state
    >>> evaluate(initial_state(), 0)
    0.0
"""

from __future__ import annotations

import math
from dataclasses import astuple, dataclass, fields

from agents.othello.bitboards import Geometry, geometry
from trap_env.othello import rules
from trap_env.othello.rules import Bitboard, OthelloState

__all__ = [
    "DEFAULT_WEIGHTS",
    "WIN_SCORE",
    "Weights",
    "evaluate",
    "evaluate_bitboards",
    "final_score",
    "score_of_margin",
    "terms",
]

WIN_SCORE = 1_000_000.0
"""A won game's value before the disc margin is added: beyond any evaluation."""


@dataclass(frozen=True)
class Weights:
    """How much each term of the evaluation counts (each field is a spec option).

    Attributes:
        discs: per disc of difference.
        mobility: per placement of difference (each side's as if it were to act).
        frontier: per frontier disc (next to an empty cell) of difference, counted against.
        corners: per corner held of difference.
        stability: per stable disc (grown from the corners) of difference.
        x_squares: per X-square (diagonal neighbour of an empty corner) held, counted against.

    Raises:
        ValueError: for a weight that is not a finite number, or weights large enough that
            an evaluation could reach :data:`WIN_SCORE` on a 16x16 board.
    """

    discs: float = 0.0
    mobility: float = 8.0
    frontier: float = 3.0
    corners: float = 30.0
    stability: float = 10.0
    x_squares: float = 15.0

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"weight {item.name} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise ValueError(f"weight {item.name} must be finite, got {value!r}")
        if sum(abs(value) for value in astuple(self)) * 256 >= WIN_SCORE:
            raise ValueError(
                f"the weights' absolute sum must stay below {WIN_SCORE / 256:g}, so that no "
                f"evaluation reaches a won game's value; got {self}"
            )


DEFAULT_WEIGHTS = Weights()


def evaluate_bitboards(
    geo: Geometry,
    own: Bitboard,
    other: Bitboard,
    own_moves: Bitboard,
    other_moves: Bitboard,
    weights: Weights = DEFAULT_WEIGHTS,
) -> float:
    """The score for ``own``'s side, given both sides' placements.

    The terms are summed in a fixed order, so the same position always gets the same
    float (the search's value-for-value guarantee relies on it).
    """
    score = weights.mobility * (own_moves.bit_count() - other_moves.bit_count())
    if weights.discs:
        score += weights.discs * (own.bit_count() - other.bit_count())
    empty = geo.full & ~(own | other)
    near_empty = geo.neighbours(empty)
    score -= weights.frontier * ((own & near_empty).bit_count() - (other & near_empty).bit_count())
    taken = (own | other) & geo.corners
    if taken:
        corners = geo.corners
        score += weights.corners * ((own & corners).bit_count() - (other & corners).bit_count())
        stable = geo.stable(own).bit_count() - geo.stable(other).bit_count()
        score += weights.stability * stable
    x_held = 0
    for corner, x_square in geo.x_squares:
        if not corner & taken:
            x_held += 1 if own & x_square else -1 if other & x_square else 0
    return score - weights.x_squares * x_held


def terms(geo: Geometry, own: Bitboard, other: Bitboard) -> dict[str, int]:
    """Each term of the evaluation for ``own``'s side, by its weight's name, signed so that
    the evaluation is the sum of weight times term (frontier discs and X-squares count
    against): what the weights are fitted to (:mod:`agents.othello.fitting`).

    The plain statement of :func:`evaluate_bitboards`, which the tests hold it to.
    """
    empty = geo.full & ~(own | other)
    near_empty = geo.neighbours(empty)
    taken = (own | other) & geo.corners
    x_held = sum(
        (1 if own & x_square else -1 if other & x_square else 0)
        for corner, x_square in geo.x_squares
        if not corner & taken
    )
    return {
        "discs": own.bit_count() - other.bit_count(),
        "mobility": geo.placements(own, other).bit_count()
        - geo.placements(other, own).bit_count(),
        "frontier": -((own & near_empty).bit_count() - (other & near_empty).bit_count()),
        "corners": (own & geo.corners).bit_count() - (other & geo.corners).bit_count(),
        "stability": geo.stable(own).bit_count() - geo.stable(other).bit_count(),
        "x_squares": -x_held,
    }


def evaluate(state: OthelloState, player: int, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """:func:`evaluate_bitboards` of ``state`` for ``player`` (whoever is to act).

    Example:
        >>> from trap_env.othello.rules import from_text
        >>> evaluate(from_text("x.../.xo./.ox./.... o 1 standard"), 0)  # x: a stable corner
        52.0
    """
    geo = geometry(state.board_size)
    own, other = rules.sides_of(state, player)
    own_moves, other_moves = geo.placements(own, other), geo.placements(other, own)
    return evaluate_bitboards(geo, own, other, own_moves, other_moves, weights)


def final_score(own: Bitboard, other: Bitboard) -> float:
    """A finished game's value for ``own``'s side: +/- :data:`WIN_SCORE` plus the disc
    margin for a win or loss, the margin (0) for a draw; larger margins are worth more."""
    return score_of_margin(own.bit_count() - other.bit_count())


def score_of_margin(margin: int) -> float:
    """The value of a finished game won (or lost, or drawn) by ``margin`` discs."""
    if margin > 0:
        return WIN_SCORE + margin
    if margin < 0:
        return -WIN_SCORE + margin
    return 0.0

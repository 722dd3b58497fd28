"""The evaluation of Colosseum Survival! positions: reachable area, mobility, distance.

Scores are for the player to act (negamax): the search and ``greedy`` share them.

* **area**: the cells each player reaches first, by breadth-first search through the
  barriers (a simultaneous flood from both cells; a cell both reach on the same step
  counts for neither): the zone each would keep if the board were cut now;
* **mobility**: the cells each could move to on its turn (at most K steps, not through
  the other): room to escape and to fight for the cut;
* **distance**: the Manhattan distance between the players, which the seed report's
  agent kept small (a close player contests the opponent's area). Closeness is wanted by
  one side, the searching player (``perspective``), as in the report: a term both sides
  wanted would change sign with the parity of the depth in a negamax search.

A finished game scores :data:`WIN_SCORE` plus the zone margin for the winner (minus for
the loser; the margin alone for a draw), beyond any heuristic score.
"""

from __future__ import annotations

from dataclasses import dataclass

from trap_env.colosseum import rules
from trap_env.colosseum.rules import Bitboard, ColosseumState, Walls

__all__ = [
    "DEFAULT_WEIGHTS",
    "WIN_SCORE",
    "Weights",
    "areas",
    "evaluate",
    "final_score",
    "mobility",
    "score",
]

WIN_SCORE = 10_000.0
"""The score of a won position, beyond any heuristic score."""


@dataclass(frozen=True)
class Weights:
    """How much each term of :func:`evaluate` counts (each an option of the agents' specs)."""

    area: float = 1.0
    mobility: float = 0.25
    distance: float = 0.1


DEFAULT_WEIGHTS = Weights()


def areas(board_size: int, walls: Walls, first: int, second: int) -> tuple[int, int]:
    """The cells ``first``'s player and ``second``'s reach strictly before the other.

    Example:
        >>> from trap_env.colosseum.rules import border_walls
        >>> areas(3, border_walls(3), 0, 8)  # the anti-diagonal is contested
        (3, 3)
    """
    mine, theirs = 1 << first, 1 << second
    seen = mine | theirs
    own_count = other_count = 0
    for _ in range(board_size * board_size):  # each round reaches a new cell, or stops
        new_mine = rules.spread(board_size, walls, mine) & ~seen
        new_theirs = rules.spread(board_size, walls, theirs) & ~seen
        if not (new_mine or new_theirs):
            break
        contested = new_mine & new_theirs
        own_count += (new_mine & ~contested).bit_count()
        other_count += (new_theirs & ~contested).bit_count()
        mine |= new_mine & ~contested
        theirs |= new_theirs & ~contested
        seen |= new_mine | new_theirs
    return own_count + 1, other_count + 1


def mobility(board_size: int, walls: Walls, cell: int, other: int) -> Bitboard:
    """The cells a player on ``cell`` could move to, the other on ``other``."""
    blocked = ~(1 << other)
    region = 1 << cell
    for _ in range(rules.max_steps(board_size)):
        grown = rules.spread(board_size, walls, region) & blocked
        if grown == region:
            break
        region = grown
    return region


def evaluate(
    state: ColosseumState, weights: Weights = DEFAULT_WEIGHTS, perspective: int | None = None
) -> float:
    """The heuristic score of a game in progress for the player to act: area and mobility
    differences, and closeness counted for ``perspective`` (the player to act if None).

    Example:
        >>> from trap_env.colosseum.rules import ColosseumConfig, start_state
        >>> isinstance(evaluate(start_state(ColosseumConfig(board_size=6), 0)), float)
        True
    """
    n, walls = state.board_size, state.walls
    me, other = state.cells[state.player], state.cells[1 - state.player]
    own_area, other_area = areas(n, walls, me, other)
    own_moves = mobility(n, walls, me, other).bit_count()
    other_moves = mobility(n, walls, other, me).bit_count()
    (row, col), (other_row, other_col) = divmod(me, n), divmod(other, n)
    distance = abs(row - other_row) + abs(col - other_col)
    closeness = -distance if perspective in (None, state.player) else distance
    return (
        weights.area * (own_area - other_area)
        + weights.mobility * (own_moves - other_moves)
        + weights.distance * closeness
    )


def final_score(state: ColosseumState, sizes: tuple[int, int]) -> float:
    """The score of a finished game for the player to act, from the zones of A and B."""
    margin = sizes[state.player] - sizes[1 - state.player]
    if margin == 0:
        return 0.0
    return (WIN_SCORE if margin > 0 else -WIN_SCORE) + margin


def score(
    state: ColosseumState, weights: Weights = DEFAULT_WEIGHTS, perspective: int | None = None
) -> float:
    """:func:`final_score` if the game is over, else :func:`evaluate`."""
    sizes = rules.zone_sizes(state)
    if sizes is not None:
        return final_score(state, sizes)
    return evaluate(state, weights, perspective)

"""Othello's one-ply agent: the action whose position scores best on discs, mobility and
corners, ties broken by the agent's seeded generator.

A finished position is worth more than any score (a win +:data:`WIN_SCORE`, a loss
minus it, plus the disc difference); an unfinished one is scored for the player by
:func:`evaluate`.

Example:
    >>> from trap_env.othello.rules import initial_state
    >>> agent = GreedyAgent(seed=0)
    >>> agent.select_action(initial_state()) in (19, 26, 37, 44)
    True
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.othello.random_agent import OthelloAgent
from trap_env.cache import per_board_size
from trap_env.othello import rules
from trap_env.othello.rules import Bitboard, OthelloState

__all__ = ["WIN_SCORE", "GreedyAgent", "Weights", "corners", "evaluate"]

WIN_SCORE = 10_000.0
"""The score of a won position, beyond any heuristic score."""


@dataclass(frozen=True)
class Weights:
    """How much each term of :func:`evaluate` counts."""

    discs: float = 1.0
    mobility: float = 2.0
    corners: float = 10.0


@per_board_size()
def corners(board_size: int) -> Bitboard:
    """The four corner cells.

    Example:
        >>> rules.cells_of(corners(4))
        [0, 3, 12, 15]
    """
    last = board_size - 1
    return sum(1 << (row * board_size + col) for row in (0, last) for col in (0, last))


def evaluate(state: OthelloState, player: int, weights: Weights = Weights()) -> float:
    """``player``'s score: the weighted differences (``player``'s minus the opponent's) of
    discs, placements (mobility, each side's as if it were to act) and corners held.

    Example:
        >>> evaluate(rules.initial_state(), 0)
        0.0
    """
    n = state.board_size
    own, other = rules.sides_of(state, player)
    discs = own.bit_count() - other.bit_count()
    mobility = (rules.placements(n, own, other).bit_count()
                - rules.placements(n, other, own).bit_count())  # fmt: skip
    corner = corners(n)
    held = (own & corner).bit_count() - (other & corner).bit_count()
    return weights.discs * discs + weights.mobility * mobility + weights.corners * held


def score_after(state: OthelloState, player: int, weights: Weights) -> float:
    """``player``'s score of ``state``: :func:`evaluate`, or a win's or loss's score."""
    ended = rules.outcome(state)
    if ended is None:
        return evaluate(state, player, weights)
    dark, light = rules.disc_counts(state)
    margin = dark - light if player == rules.DARK else light - dark
    if ended.winner is None:
        return float(margin)
    return (WIN_SCORE if ended.winner == player else -WIN_SCORE) + margin


class GreedyAgent(OthelloAgent):
    """One ply: the legal action with the best :func:`score_after`; ties at random.

    Args:
        seed: seeds the tie-breaking generator.
        weights: the terms' weights (options ``discs``, ``mobility``, ``corners``).
    """

    def __init__(self, seed: int | None = None, weights: Weights = Weights()) -> None:
        super().__init__(seed)
        self.weights = weights

    def select_action(self, state: OthelloState) -> int:
        """The best-scoring legal action for the player to act."""
        player = state.player
        scored = [
            (score_after(rules.apply(state, action), player, self.weights), action)
            for action in rules.legal_actions(state)
        ]
        best = max(score for score, _ in scored)
        return self.rng.choice([action for score, action in scored if score == best])

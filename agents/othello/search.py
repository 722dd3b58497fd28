"""Othello's search agent: the generic pruned search (:class:`agents.search.expectimax.Search`
over :class:`agents.search.protocol_game.ProtocolSearchGame`) to a fixed depth, with the
greedy agent's evaluation squashed into ``(-1, 1)``.

Othello has no chance nodes, so the search is plain alpha-beta negamax with a
transposition table, history and killer move ordering. This is the simple reference for
now: a fixed depth, no clock (``expectiminimax:depth=4``; aliases ``alphabeta`` and
``minimax``).

Example:
    >>> from trap_env.othello.rules import initial_state
    >>> SearchAgent(depth=2).select_action(initial_state()) in (19, 26, 37, 44)
    True
"""

from __future__ import annotations

import math

from agents.othello.greedy import evaluate
from agents.othello.simple import OthelloAgent
from agents.search.expectimax import Search
from agents.search.protocol_game import ProtocolSearchGame
from trap_env.othello.game import GAME
from trap_env.othello.rules import OthelloState

__all__ = ["EVALUATION_SCALE", "SearchAgent", "bounded_evaluation"]

EVALUATION_SCALE = 64.0
"""The score that :func:`bounded_evaluation` maps to ``tanh(1)``, about 0.76."""


def bounded_evaluation(state: OthelloState, player: int) -> float:
    """:func:`agents.othello.greedy.evaluate` for ``player``, squashed by ``tanh`` into
    ``(-1, 1)`` (a finished game is worth exactly +1, 0 or -1 to the search).

    Example:
        >>> from trap_env.othello.rules import initial_state
        >>> bounded_evaluation(initial_state(), 0)
        0.0
    """
    return math.tanh(evaluate(state, player) / EVALUATION_SCALE)


class SearchAgent(OthelloAgent):
    """Alpha-beta to a fixed depth in plies (a pass is a ply) with
    :func:`bounded_evaluation` at the leaves; deterministic (the seed is unused).

    Args:
        depth: the plies searched, at least 1.
        seed: accepted for the agents' common interface.

    Raises:
        ValueError: for a depth below 1.
    """

    def __init__(self, depth: int = 4, seed: int | None = None) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise ValueError(f"depth must be an integer >= 1, got {depth!r}")
        super().__init__(seed)
        self.depth = depth
        self.search = Search(ProtocolSearchGame(GAME, bounded_evaluation))

    def reset(self, seed: int | None = None) -> None:
        """Start a new game: forget the table, the history and the killers."""
        super().reset(seed)
        self.search.reset()

    def select_action(self, state: OthelloState) -> int:
        """The best action at :attr:`depth` plies for the player to act."""
        first = self.search.start_decision(state)
        _, action = self.search.best(state, self.depth, first)
        return action

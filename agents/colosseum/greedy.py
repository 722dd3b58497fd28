"""Colosseum Survival!'s one-ply agent: the action whose position scores best for it
(:func:`agents.colosseum.evaluation.score` from the opponent's side, negated), ties
broken by the agent's seeded generator.

It takes a winning cut when there is one and never makes a losing one while another
move is left; otherwise it grabs area, mobility and closeness.

Example:
    >>> from trap_env.colosseum.rules import ColosseumConfig, legal_actions, start_state
    >>> state = start_state(ColosseumConfig(board_size=6), 0)
    >>> GreedyAgent(seed=0).select_action(state) in legal_actions(state)
    True
"""

from __future__ import annotations

from agents.colosseum.evaluation import DEFAULT_WEIGHTS, Weights, score
from agents.colosseum.random_agent import ColosseumAgent
from trap_env.colosseum import rules
from trap_env.colosseum.rules import ColosseumState

__all__ = ["GreedyAgent", "child"]


def child(state: ColosseumState, action: int) -> ColosseumState:
    """The position after a legal ``action`` of the player to act, without checking it
    (the search's and this agent's fast :func:`trap_env.colosseum.rules.apply`)."""
    n = state.board_size
    cell, side = rules.decode_action(action)
    cells = (cell, state.cells[1]) if state.player == 0 else (state.cells[0], cell)
    walls = rules.set_wall(n, state.walls, cell, side)
    return ColosseumState(n, walls, cells, 1 - state.player, state.turn + 1)


class GreedyAgent(ColosseumAgent):
    """One ply: the legal action with the best score; ties at random.

    Args:
        seed: seeds the tie-breaking generator.
        weights: the evaluation's weights (options ``area``, ``mobility``, ``distance``).
    """

    def __init__(self, seed: int | None = None, weights: Weights = DEFAULT_WEIGHTS) -> None:
        super().__init__(seed)
        self.weights = weights

    def select_action(self, state: ColosseumState) -> int:
        """The best-scoring legal action for the player to act.

        Raises:
            ValueError: at the chance node or in a finished game.
        """
        legal = rules.legal_actions(state)
        if not legal:
            raise ValueError(f"select_action needs a game in progress, got {rules.to_text(state)}")
        me = state.player
        scored = [(-score(child(state, action), self.weights, me), action) for action in legal]
        best = max(value for value, _ in scored)
        return self.rng.choice([action for value, action in scored if value == best])

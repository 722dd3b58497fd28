"""Othello's agent without search: a uniformly random legal action."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents.seeded import OneGameAgent
from trap_env.othello import rules
from trap_env.othello.rules import OthelloConfig, OthelloState

if TYPE_CHECKING:
    from trap_env.othello.batched import BatchedRandom

__all__ = ["OthelloAgent", "RandomAgent"]


class OthelloAgent(OneGameAgent):
    """Base of Othello's agents: a seeded generator, and Othello's rules only."""

    config_type = OthelloConfig
    title = "Othello"


class RandomAgent(OthelloAgent):
    """A uniformly random legal action (the pass when it is the only one).

    Example:
        >>> agent = RandomAgent(seed=0)
        >>> agent.select_action(rules.initial_state()) in (19, 26, 37, 44)
        True
    """

    def select_action(self, state: OthelloState) -> int:
        """One of the legal actions, drawn from the agent's generator."""
        return self.rng.choice(rules.legal_actions(state))

    def batched(self) -> BatchedRandom | None:
        """The same policy for every game of the batched env at once (None for a subclass
        that decides otherwise: it plays game by game)."""
        if type(self).select_action is not RandomAgent.select_action:
            return None
        from trap_env.othello.batched import BatchedRandom

        return BatchedRandom()

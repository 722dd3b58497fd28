"""Agents without search: the course's random opponent."""

from __future__ import annotations

from agents.base import SeededAgent
from trap_env.core import Cell, Phase, State, legal_actions


class RandomAgent(SeededAgent):
    """The course's random opponent: a uniformly random legal move, and a throw at a
    uniformly random empty cell (never a trap or a player)."""

    def select_action(self, state: State) -> Cell:
        """A random legal move, or a random empty target (any legal one if none is empty)."""
        choices = legal_actions(state)
        if state.phase is Phase.THROW:
            empty = [cell for cell in choices if not state.traps >> cell & 1]
            choices = empty or choices
        return self.rng.choice(choices)

"""Trap!'s random agent: the course's random opponent (and its batched twin)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents.seeded import SeededAgent
from trap_env.trap.core import Cell, Phase, State, legal_actions

if TYPE_CHECKING:
    from trap_env.batched_opponents import BatchOpponent


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

    def batched(self) -> BatchOpponent | None:
        """The same policy for every game of the batched env at once (None for a subclass
        that decides otherwise: it plays game by game)."""
        if type(self).select_action is not RandomAgent.select_action:
            return None
        from trap_env.trap.batched_opponents import BatchedRandom

        return BatchedRandom()

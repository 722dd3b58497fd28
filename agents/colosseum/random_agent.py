"""Colosseum Survival!'s agent without search: the course engine's random walk.

The course's ``random_agent`` (and the engine's stand-in for an invalid answer) walks a
uniformly random number of steps in ``0..K``; each step goes a uniformly random way,
drawn again while a barrier or the opponent is in the way, and after 300 such redraws
the walk gives up and stays where it began; then a barrier goes on a uniformly random
side of the end cell that has none. :func:`random_walk` does exactly that with the
agent's seeded generator, so its answer is always legal.
"""

from __future__ import annotations

import random

from agents.seeded import OneGameAgent
from trap_env.colosseum import rules
from trap_env.colosseum.rules import MOVES, NUM_SIDES, ColosseumConfig, ColosseumState

__all__ = ["MAX_REDRAWS", "ColosseumAgent", "RandomAgent", "random_walk"]

MAX_REDRAWS = 300
"""Redraws of one step's way before the walk gives up (the engine's ``k > 300``)."""


class ColosseumAgent(OneGameAgent):
    """Base of Colosseum Survival!'s agents: a seeded generator, and these rules only."""

    config_type = ColosseumConfig
    title = "Colosseum Survival!"


def random_walk(state: ColosseumState, rng: random.Random) -> int:
    """The engine's random walk for the player to act, as an action.

    Example:
        >>> from trap_env.colosseum.rules import ColosseumConfig, legal_actions, start_state
        >>> state = start_state(ColosseumConfig(board_size=6), 0)
        >>> random_walk(state, random.Random(0)) in legal_actions(state)
        True
    """
    n, walls = state.board_size, state.walls
    start = divmod(state.cells[state.player], n)
    opponent = divmod(state.cells[1 - state.player], n)
    row, col = start
    for _ in range(rng.randrange(rules.max_steps(n) + 1)):
        side, redraws = rng.randrange(NUM_SIDES), 0
        while rules.has_wall(walls, row * n + col, side) or _step(row, col, side) == opponent:
            redraws += 1
            if redraws > MAX_REDRAWS:
                break
            side = rng.randrange(NUM_SIDES)
        if redraws > MAX_REDRAWS:
            row, col = start
            break
        row, col = _step(row, col, side)
    side, redraws = rng.randrange(NUM_SIDES), 0
    while rules.has_wall(walls, row * n + col, side) and redraws < MAX_REDRAWS:
        side, redraws = rng.randrange(NUM_SIDES), redraws + 1  # no end on a walled-in cell
    return rules.action_of(row * n + col, side)


def _step(row: int, col: int, side: int) -> tuple[int, int]:
    step_row, step_col = MOVES[side]
    return row + step_row, col + step_col


class RandomAgent(ColosseumAgent):
    """The course's ``random_agent``: :func:`random_walk` with the agent's generator.

    Example:
        >>> from trap_env.colosseum.rules import ColosseumConfig, legal_actions, start_state
        >>> state = start_state(ColosseumConfig(board_size=8), 3)
        >>> RandomAgent(seed=0).select_action(state) in legal_actions(state)
        True
    """

    def select_action(self, state: ColosseumState) -> int:
        """A random walk and a random free side, drawn from the agent's generator.

        Raises:
            ValueError: at the chance node or in a finished game.
        """
        if rules.is_chance(state) or rules.outcome(state) is not None:
            raise ValueError(f"select_action needs a game in progress, got {rules.to_text(state)}")
        return random_walk(state, self.rng)

"""Random Trap! positions for the tests: one random playout, and the positions taken from it.

A playout plays uniform legal decisions and draws each landing with
:func:`trap_env.core.sample_landing` (one ``rng.random()``), so a seed gives one game.
"""

from __future__ import annotations

import random

from trap_env import core
from trap_env.core import DEFAULT_DECAY, GameConfig, Phase, State


def playout(state: State, rng: random.Random, max_steps: int) -> list[State]:
    """Every state of a random playout from ``state``, until the game ends or ``max_steps``
    actions (decisions and landings) are played."""
    states = [state]
    for _ in range(max_steps):
        if core.is_terminal(state):
            break
        if state.phase is Phase.LANDING:
            action = core.sample_landing(state, rng)
        else:
            action = rng.choice(core.legal_actions(state))
        state = core.apply(state, action)
        states.append(state)
    return states


def random_position(
    rng: random.Random,
    board_size: int,
    steps: int,
    decay: int = DEFAULT_DECAY,
    phase: Phase | None = None,
) -> State:
    """A decision (MOVE or THROW, or only ``phase``) of a game in progress, the last one of
    a random playout of up to ``steps`` actions from the start."""
    start = core.initial_state(GameConfig(board_size, decay))
    wanted = (Phase.MOVE, Phase.THROW) if phase is None else (phase,)
    states = playout(start, rng, steps)
    decisions = [s for s in states if s.phase in wanted and not core.is_terminal(s)]
    return decisions[-1] if decisions else start

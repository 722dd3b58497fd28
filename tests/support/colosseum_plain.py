"""Colosseum Survival!'s plain exhaustive search, which the solvers are checked against,
and positions near the end of a game, where it finishes."""

from __future__ import annotations

import functools
import random

import numpy as np

from agents.colosseum.solve import inner_barriers
from trap_env.colosseum import rules
from trap_env.colosseum.rules import ColosseumState


@functools.cache
def exact(state: ColosseumState) -> float:
    """The plain exhaustive negamax: win 1, draw 0, loss -1 for the player to act."""
    sizes = rules.zone_sizes(state)
    if sizes is not None:
        return float(np.sign(sizes[state.player] - sizes[1 - state.player]))
    return max(-exact(rules.apply(state, action)) for action in rules.legal_actions(state))


def near_the_end(count: int, seed: int, reach: int, board_size: int = 3) -> list[ColosseumState]:
    """``count`` positions in play with at most ``reach`` inner barriers left."""
    barriers = inner_barriers(board_size)
    rng = random.Random(seed)
    found: list[ColosseumState] = []
    while len(found) < count:
        walls = rules.border_walls(board_size)
        for cell, side in rng.sample(barriers, len(barriers) - rng.randint(1, reach)):
            walls = rules.set_wall(board_size, walls, cell, side)
        cells = rng.sample(range(board_size * board_size), 2)
        state = ColosseumState(board_size, walls, (cells[0], cells[1]), rng.randrange(2), 0)
        if rules.outcome(state) is None:
            found.append(state)
    return found


def played_to_the_end(state: ColosseumState, seed: int, reach: int) -> ColosseumState | None:
    """``state`` played on by random legal moves that keep the game going, until at most
    ``reach`` inner barriers are left; None if every move ends the game first."""
    rng = random.Random(seed)
    left = barriers_left(state)
    while left > reach:
        going = [after for action in rules.legal_actions(state)
                 if rules.outcome(after := rules.apply(state, action)) is None]  # fmt: skip
        if not going:
            return None
        state = rng.choice(going)
        left -= 1
    return state


def barriers_left(state: ColosseumState) -> int:
    """The inner barriers still to be placed."""
    return sum(
        not state.walls[side] >> cell & 1 for cell, side in inner_barriers(state.board_size)
    )

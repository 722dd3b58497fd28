"""Random positions for the tests: Trap!'s playouts and the positions taken from them, a
whole random game of any game, Colosseum positions a few turns from their starts, and
Othello positions written freely (:func:`othello_position`).

A playout plays uniform legal decisions and draws each landing with
:func:`trap_env.trap.core.sample_landing` (one ``rng.random()``), so a seed gives one game.
"""

from __future__ import annotations

import random
from typing import Any

from trap_env.colosseum import rules as colosseum_rules
from trap_env.colosseum.rules import ColosseumConfig, ColosseumState
from trap_env.game import Game
from trap_env.othello import rules as othello_rules
from trap_env.othello.rules import OthelloState
from trap_env.trap import core
from trap_env.trap.core import DEFAULT_DECAY, GameConfig, Phase, State


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


def random_game(game: Game[Any, Any], seed: int = 0, **params: Any) -> list[Any]:
    """Every state of one game of ``game`` (``game.make_config(**params)``) from its start to
    its end: uniform legal actions, chance drawn by ``game.sample_chance``, one generator."""
    rng = random.Random(seed)
    state = game.initial_state(game.make_config(**params))
    states = [state]
    while True:
        if game.is_chance(state):
            action = game.sample_chance(state, rng)
        elif legal := game.legal_actions(state):
            action = rng.choice(legal)
        else:
            return states
        state = game.apply(state, action)
        states.append(state)


def colosseum_positions(board_size: int, count: int, seed: int) -> list[ColosseumState]:
    """Colosseum positions still in play, each up to five random actions from a start of
    its own (``seed``, ``seed + 1``, ...)."""
    rng = random.Random(seed)
    found = []
    for start in range(count):
        state = colosseum_rules.start_state(ColosseumConfig(board_size), start + seed)
        for _ in range(rng.randrange(6)):
            if colosseum_rules.outcome(state) is not None:
                break
            state = colosseum_rules.apply(state, rng.choice(colosseum_rules.legal_actions(state)))
        if colosseum_rules.outcome(state) is None:
            found.append(state)
    return found


def othello_position(text: str) -> OthelloState:
    """An Othello position in ``to_text``'s notation, reachable or not.

    Built directly, not read: a rule or a heuristic is tested on any discs, while
    ``from_text`` and every other entrance refuse a position no game reaches
    (:func:`trap_env.othello.rules.check_state`).
    """
    rows, side, turn, end_rule = text.split()
    cells = rows.replace("/", "")
    n = rows.count("/") + 1
    dark, light = (
        sum(1 << cell for cell, char in enumerate(cells) if char == mark)
        for mark in othello_rules.SYMBOLS
    )
    return OthelloState(n, end_rule, dark, light, othello_rules.SYMBOLS.index(side), int(turn))

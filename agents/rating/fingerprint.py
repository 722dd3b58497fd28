"""A ladder's fingerprints: each rung's moves on a few fixed positions of the ladder's rules.

A rung's rating holds only while it plays as it did when rated. The positions are the
first decision states of one game of random moves of the ladder's own rules, every action
and chance outcome drawn from ``random.Random(seed)``; each rung, built with seed 0 and
reset before each, answers each of them. A calibration records them in the ladder
(:attr:`~agents.rating.ladder.Ladder.fingerprints`) and the tests compute them again: a
change of code that alters a rung's play fails there, and calls for a new ladder version.

Example:
    >>> from agents.rating.ladder import load_ladder
    >>> ladder = load_ladder("trap")
    >>> fingerprints_of(ladder) == ladder.fingerprints  # doctest: +SKIP
    True
"""

from __future__ import annotations

import random
from typing import Any

from agents.arena.plan import program_limits
from agents.rating.ladder import Fingerprints, Ladder
from agents.registry import make_agent
from trap_env.agent import close_agent
from trap_env.games import get_game

__all__ = ["FINGERPRINT_POSITIONS", "FINGERPRINT_SEED", "fingerprints_of", "random_decision_states"]

FINGERPRINT_SEED = 2026
"""The seed of the game of random moves whose positions the rungs answer."""
FINGERPRINT_POSITIONS = 4
"""How many of its first decision states."""


def fingerprints_of(
    ladder: Ladder, seed: int = FINGERPRINT_SEED, positions: int = FINGERPRINT_POSITIONS
) -> Fingerprints:
    """Each rung's action in the first ``positions`` decision states of the game of random
    moves drawn from ``seed`` under the ladder's rules (a rule drawn per game at its
    highest; fewer states if that game ends sooner)."""
    rules, config = get_game(ladder.game), ladder.run_config()
    states = random_decision_states(rules, config.game, seed, positions)  # drawn: the largest
    moves = {}
    for spec in ladder.specs:
        agent = make_agent(spec, game=ladder.game, seed=0, **program_limits(spec, config))
        try:
            moves[spec] = [_answer(agent, state) for state in states]
        finally:
            close_agent(agent)
    return Fingerprints(seed, positions, moves)


def _answer(agent: Any, state: Any) -> int:
    """The agent's action in ``state``, from a fresh start (its seed reset)."""
    agent.reset(0)
    return int(agent.select_action(state))


def random_decision_states(game: Any, config: Any, seed: int, count: int) -> list[Any]:
    """The first ``count`` decision states (fewer if it ends) of a game of ``game`` from
    ``config``'s start, every action and chance outcome drawn from ``random.Random(seed)``."""
    rng = random.Random(seed)
    state = game.initial_state(config)
    states: list[Any] = []
    while len(states) < count and game.outcome(state) is None:
        if game.is_chance(state):
            state = game.apply(state, game.sample_chance(state, rng))
            continue
        states.append(state)
        state = game.apply(state, rng.choice(game.legal_actions(state)))
    return states

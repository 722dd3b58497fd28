"""Games of a teacher agent against itself, for imitation: the decisions it labels.

Both imitation pipelines take their data here: PPO's behaviour cloning
(:mod:`agents.trap.pretrain`: every decision labelled, a random action played instead with
probability ``epsilon``) and AlphaZero's warm start (:mod:`agents.rl.alphazero.imitation`:
a few unlabelled random actions open each game, then the teacher plays). Landings are
drawn from the exact distribution with the same generator.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from trap_env.game import Game

__all__ = ["Label", "TeacherGame", "teacher_game", "teacher_value"]


@dataclass(frozen=True)
class Label:
    """A decision the teacher was asked for: the state, its choice, and its own value of
    it (0 if it reports none)."""

    state: Any
    action: int
    value: float


@dataclass(frozen=True)
class TeacherGame:
    """The labelled decisions of one game, in order, and its last state."""

    labels: list[Label]
    final: Any


def teacher_game(
    teacher: Any,
    start: Any,
    rng: random.Random,
    max_turns: int,
    random_opening: int = 0,
    epsilon: float | None = None,
    *,
    game: Game[Any, Any],
) -> TeacherGame:
    """Play one game of ``teacher`` against itself from ``start`` until it ends or reaches
    ``max_turns``.

    Args:
        teacher: the agent (``select_action(state)``), for both sides.
        start: the first state.
        rng: draws the random actions and the landings.
        max_turns: the turn limit.
        random_opening: the first decisions are uniformly random and unlabelled.
        epsilon: after the opening, each labelled decision is replaced by a uniformly
            random action with this probability (None: never, and no draw for it).
        game: the rules of ``start``.
    """
    state, labels, decisions = start, [], 0
    while game.outcome(state, max_turns) is None:
        if game.is_chance(state):
            state = game.apply(state, game.sample_chance(state, rng))
            continue
        if decisions < random_opening:
            action = rng.choice(game.legal_actions(state))
        else:
            label = teacher.select_action(state)
            labels.append(Label(state, label, teacher_value(teacher)))
            explore = epsilon is not None and rng.random() < epsilon
            action = rng.choice(game.legal_actions(state)) if explore else label
        decisions += 1
        state = game.apply(state, action)
    return TeacherGame(labels, state)


def teacher_value(teacher: Any) -> float:
    """The teacher's own value of its last choice, if it reports one (search agents do),
    within [-1, 1]; else 0."""
    stats = getattr(teacher, "last_search", None)
    value = getattr(stats, "value", 0.0)
    return max(-1.0, min(1.0, float(value)))

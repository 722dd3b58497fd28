"""The one teacher-game generator of both imitation pipelines (agents.rl.teacher)."""

from __future__ import annotations

import random

from agents import make_agent
from agents.rl.teacher import teacher_game
from trap_env.trap import core
from trap_env.trap.core import GameConfig, Phase
from trap_env.trap.game import GAME as TRAP


def play(seed: int, **options: object):
    teacher = make_agent("greedy", seed=1, game="trap")
    start = core.initial_state(GameConfig(5))
    rng = random.Random(seed)
    return teacher_game(teacher, start, rng, 40, game=TRAP, **options)  # type: ignore[arg-type]


def test_every_label_is_a_legal_decision_and_the_game_ends() -> None:
    game = play(0, epsilon=0.3)
    assert game.labels and core.outcome(game.final, 40) is not None
    for label in game.labels:
        assert label.state.phase in (Phase.MOVE, Phase.THROW)
        assert label.action in core.legal_actions(label.state)
        assert -1.0 <= label.value <= 1.0


def test_the_opening_is_unlabelled_and_one_seed_gives_one_game() -> None:
    plain, opened = play(4), play(4, random_opening=3)
    assert plain.labels[0].state == core.initial_state(GameConfig(5))
    assert opened.labels[0].state.turn >= 1  # three decisions in: a move, a throw, a move
    assert play(4, random_opening=3) == opened
    assert play(4, epsilon=0.0).labels[0] == plain.labels[0]  # the teacher's own choice

"""The course's baseline: alpha-beta with every throw landing on its target."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest

from agents import make_agent
from agents.trap.evaluation import CLASSIC_WEIGHTS, DEFAULT_WEIGHTS, Weights
from agents.trap.search import ExpectiminimaxAgent
from tests.support.search_oracle import expectimax
from trap_env.trap import core


@pytest.mark.parametrize("name", ["alphabeta", "minimax"])
def test_baseline_is_deterministic_alpha_beta(name: str) -> None:
    agent = make_agent(f"{name}:depth=3", game="trap")
    assert isinstance(agent, ExpectiminimaxAgent)
    assert agent.game.deterministic_throws and agent.settings.depth == 3


def test_alphabeta_value_is_the_deterministic_minimax_value() -> None:
    rng = random.Random(4)
    for _ in range(15):
        state = core.initial_state(core.GameConfig(4))
        for _ in range(rng.randint(0, 6)):
            after_move = core.apply(state, rng.choice(core.legal_actions(state)))
            landing = core.apply(after_move, rng.choice(core.legal_actions(after_move)))
            if core.is_terminal(after_move):
                break
            following = core.apply(landing, core.sample_landing(landing, rng))
            if core.is_terminal(following):
                break
            state = following
        agent = make_agent("alphabeta:depth=3,time_limit=none,throw_filter=false", game="trap")
        assert isinstance(agent, ExpectiminimaxAgent)
        agent.select_action(state)
        want = expectimax(state, 3, CLASSIC_WEIGHTS, deterministic=True)
        assert agent.last_search is not None
        assert math.isclose(agent.last_search.value, want, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("name", ["alphabeta", "minimax"])
@pytest.mark.parametrize(
    "text, move, throw",
    [
        # The move itself wins: stepping to (3,1) takes player 1's last escape.
        ("...../...../..0../x..../1x... 0 move - 4", 16, None),
        # Any step then a throw at the last escape (3,1) wins when throws land on target.
        ("...../...../...0./x..../1x... 0 move - 4", None, 16),
    ],
)
def test_baseline_finds_wins_in_one_turn(
    name: str, text: str, move: int | None, throw: int | None
) -> None:
    agent = make_agent(name, game="trap")
    state = core.from_text(text)
    chosen = agent.select_action(state)
    assert move is None or chosen == move
    state = core.apply(state, chosen)
    if throw is not None:
        assert agent.select_action(state) == throw


def test_alphabeta_keeps_the_classic_weights() -> None:
    def weights(spec: str) -> Weights:
        agent = make_agent(spec, game="trap")
        return agent.game.evaluator.weights  # type: ignore[attr-defined,no-any-return]

    assert weights("expectiminimax") == DEFAULT_WEIGHTS != CLASSIC_WEIGHTS
    assert weights("alphabeta") == weights("minimax") == CLASSIC_WEIGHTS
    assert weights("alphabeta:weights=room=1") == dataclasses.replace(CLASSIC_WEIGHTS, room=1.0)

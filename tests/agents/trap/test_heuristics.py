"""The one-ply agents and the handout's heuristics IS, AIS and OCLS."""

from __future__ import annotations

import pytest

from agents import make_agent
from agents.trap.heuristics import HEURISTICS, GreedyAgent, ais, is_score, ocls
from trap_env.trap import core

# Player 0 at (0,0) with 1 step; player 1 at (4,2) with 5 steps (5x5 board).
CORNER = "0x.../x..../...../...../..1.. 0 move - 3"


def test_heuristic_values_on_a_drawn_board() -> None:
    state = core.from_text(CORNER)
    assert is_score(state, 0) == 1 - 5
    assert ais(state, 0) == 1 - 2 * 5
    assert is_score(state, 1) == 5 - 1
    # OCLS: player 0's one step (1,1) has 5 onward steps; player 1's five steps have
    # 7 + 7 + 7 + 4 + 4 onward steps (its own cell not counted).
    assert ocls(state, 0) == 5 - (7 + 7 + 7 + 4 + 4)


@pytest.mark.parametrize("heuristic", sorted(HEURISTICS))
def test_greedy_takes_a_winning_move(heuristic: str) -> None:
    state = core.from_text("...../...../..0../x..../1x... 0 move - 4")
    assert GreedyAgent(heuristic, seed=0).select_action(state) == 3 * 5 + 1


@pytest.mark.parametrize("name", ["greedy", "is", "ais", "ocls"])
def test_greedy_throws_at_the_last_escape(name: str) -> None:
    # Player 1 at (4,0) has one free neighbour, (3,1), next to player 0: a sure win.
    state = core.from_text("...../...../...../x.0../1x... 0 throw - 4")
    assert make_agent(name, seed=0, game="trap").select_action(state) == 3 * 5 + 1


def test_unknown_heuristic_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="known: ais, eval, is, ocls"):
        GreedyAgent("nope")


@pytest.mark.parametrize("name", ["greedy", "is", "ocls", "greedy:heuristic=eval"])
def test_greedy_weighs_throws_by_the_states_decay(name: str) -> None:
    # Player 1 at (4,0) has one free neighbour, (3,1), three steps from player 0 at (2,3).
    text = "...../...../...0./x..../1x... 0 throw - 4"
    assert make_agent(name, seed=0, game="trap").select_action(core.from_text(text)) == 16
    # With the largest decay a throw three steps away never lands on its target.
    never_on_target = core.from_text(text + " decay=1000")
    assert make_agent(name, seed=0, game="trap").select_action(never_on_target) != 16

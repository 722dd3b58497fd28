"""Othello's agents (:mod:`agents.othello`): ``random`` and ``greedy`` from the agent
table, seeded by the caller, and what the one-ply heuristic prefers (the search agent:
``tests/agents/othello/test_search.py``)."""

from __future__ import annotations

import doctest

import pytest

from agents import SpecError, UnsupportedGameError, agent_names, make_agent
from agents.arena.match import play_game
from agents.othello import greedy, random_agent
from agents.othello.greedy import WIN_SCORE, GreedyAgent, Weights, evaluate, score_after
from agents.othello.search import SearchAgent
from tests.support.positions import othello_position
from trap_env.othello import rules
from trap_env.othello.rules import OthelloConfig, initial_state
from trap_env.trap.core import GameConfig


def test_the_module_examples_run() -> None:
    assert doctest.testmod(greedy).failed == 0
    assert doctest.testmod(random_agent).failed == 0


def test_the_table_lists_othellos_agents_and_names_them_on_a_miss() -> None:
    assert agent_names("othello") == [
        "alphabeta",
        "epsilon-greedy",
        "exec",
        "expectiminimax",
        "greedy",
        "mcts",
        "minimax",
        "openspiel-mcts",
        "perfect",
        "ppo",
        "random",
        "reference",
    ]
    assert isinstance(make_agent("reference", game="othello"), SearchAgent)
    assert isinstance(make_agent("random", game="othello"), random_agent.RandomAgent)
    built = make_agent("greedy:corners=25,mobility=0", game="othello")
    assert isinstance(built, GreedyAgent)
    assert built.weights == Weights(discs=1.0, mobility=0.0, corners=25.0)
    with pytest.raises(
        SpecError,
        match="known agents: alphabeta, epsilon-greedy, exec, expectiminimax, greedy, mcts, "
        "minimax, openspiel-mcts, perfect, ppo, random",
    ):
        make_agent("ocls", game="othello")


@pytest.mark.parametrize("spec", ["random", "greedy"])
def test_agents_refuse_another_game(spec: str) -> None:
    agent = make_agent(spec, game="othello")
    agent.check_game(OthelloConfig(6))  # type: ignore[attr-defined]
    with pytest.raises(UnsupportedGameError, match="plays Othello"):
        agent.check_game(GameConfig(5))  # type: ignore[attr-defined]


@pytest.mark.parametrize("spec", ["random", "greedy"])
def test_agents_are_repeatable_from_the_callers_seed(spec: str) -> None:
    states = [
        state
        for seed in range(4)
        for state in play_states(seed)
        if len(rules.legal_actions(state)) > 1
    ]

    def choices(seed: int) -> list[int]:
        agent = make_agent(spec, game="othello", seed=seed)
        first = [agent.select_action(state) for state in states]
        agent.reset(seed=seed)
        assert [agent.select_action(state) for state in states] == first
        return first

    assert choices(1) == choices(1)
    if spec == "random":
        assert choices(1) != choices(2)


def play_states(seed: int) -> list[rules.OthelloState]:
    """The states of one game of random play on 6x6."""
    players = [make_agent("random", game="othello") for _ in range(2)]
    result = play_game(players, seed=seed, game="othello", params={"board_size": 6},
                       time_budget=None)  # fmt: skip
    state = initial_state(OthelloConfig(6))
    states = [state]
    for action in result.actions:
        state = rules.apply(state, action)
        states.append(state)
    return states


def test_the_evaluation_is_zero_sum_and_counts_each_term() -> None:
    state = othello_position("xo...x/.xo.../..xo../...x../....../.....o o 3 standard")
    assert evaluate(state, 0) == -evaluate(state, 1)
    discs, corner = Weights(1, 0, 0), Weights(0, 0, 1)
    assert evaluate(state, 0, discs) == 5 - 4
    assert evaluate(state, 0, corner) == 2 - 1
    mobility = Weights(0, 1, 0)
    own, other = rules.sides_of(state, 0)
    mine, theirs = rules.placements(6, own, other), rules.placements(6, other, own)
    assert evaluate(state, 0, mobility) == mine.bit_count() - theirs.bit_count()


CORNER_OR_DISCS = ".ox.../....../....../xooo../....../...... x 8 standard"
"""Dark may take the corner a1 (one disc flipped) or e4 (three flipped)."""


def test_greedy_takes_a_corner_over_more_discs() -> None:
    state = othello_position(CORNER_OR_DISCS)
    a1, e4 = rules.cell_from_name(6, "a1"), rules.cell_from_name(6, "e4")
    assert rules.legal_actions(state) == [a1, e4]
    assert GreedyAgent(seed=0).select_action(state) == a1
    assert GreedyAgent(seed=0, weights=Weights(corners=0)).select_action(state) == e4


def test_a_finished_position_scores_beyond_any_heuristic() -> None:
    won = othello_position("xxx./..../..../.... o 3 standard")  # light wiped out
    assert rules.outcome(won) is not None
    assert score_after(won, 0, Weights()) == WIN_SCORE + 3
    assert score_after(won, 1, Weights()) == -WIN_SCORE - 3
    drawn = othello_position("x.o./..../..../.... x 3 standard")
    assert score_after(drawn, 0, Weights()) == 0.0


def test_greedy_beats_random_on_6x6() -> None:
    wins = 0
    for game in range(12):
        seat = game % 2
        players = [make_agent("random", game="othello", seed=game)] * 2
        players[seat] = make_agent("greedy", game="othello", seed=game)
        result = play_game(players, seed=game, game="othello", params={"board_size": 6},
                           time_budget=None)  # fmt: skip
        wins += result.winner == seat
    assert wins >= 9


def test_random_agent_passes_when_it_must() -> None:
    state = othello_position("ox../..../..../.... x 0 standard")
    assert random_agent.RandomAgent(seed=0).select_action(state) == 16
    assert GreedyAgent(seed=0).select_action(state) == 16
    assert initial_state(OthelloConfig(4)).player == 0

"""Colosseum Survival!'s reference (:mod:`agents.colosseum.search`): alpha-beta equals a
plain negamax oracle value for value, every iteration of the deepening too; the agent is
in the table under its three names, deterministic at a fixed depth, keeps its clock on
12x12, and beats greedy."""

from __future__ import annotations

import doctest
import random
import time

import pytest

from agents import make_agent
from agents.arena.match import play_game
from agents.colosseum import search
from agents.colosseum.evaluation import WIN_SCORE, evaluate, final_score
from agents.colosseum.greedy import child
from agents.colosseum.search import AlphaBeta, SearchAgent, SearchSettings
from tests.support.positions import colosseum_positions
from tests.trap_env.colosseum.test_rules import board
from trap_env.colosseum import rules
from trap_env.colosseum.rules import ColosseumConfig, ColosseumState, start_state


def test_the_module_examples_run() -> None:
    assert doctest.testmod(search).failed == 0


def negamax(state: ColosseumState, depth: int, root: int) -> float:
    """The oracle: plain negamax, no pruning, no table, no ordering."""
    sizes = rules.zone_sizes(state)
    if sizes is not None:
        return final_score(state, sizes)
    if depth == 0:
        return evaluate(state, perspective=root)
    return max(
        -negamax(child(state, action), depth - 1, root) for action in rules.legal_actions(state)
    )


@pytest.mark.parametrize(("board_size", "depth"), [(3, 1), (3, 2), (3, 3), (4, 2)])
def test_the_search_equals_plain_negamax(board_size: int, depth: int) -> None:
    searcher = AlphaBeta()
    for state in colosseum_positions(board_size, 6, seed=depth):
        assert searcher.value(state, depth) == negamax(state, depth, state.player)


def test_every_iteration_of_deepening_is_plain_negamax() -> None:
    searcher = AlphaBeta()
    for state in colosseum_positions(4, 3, seed=7):
        searcher.start()
        for result in searcher.iterate(state, 2):
            assert result.complete
            assert result.value == negamax(state, result.depth, state.player)
            assert result.value == -negamax(child(state, result.action), result.depth - 1,
                                            state.player)  # fmt: skip


def test_the_agent_is_in_the_table_under_its_three_names_with_its_options() -> None:
    for name in ("expectiminimax", "alphabeta", "minimax"):
        agent = make_agent(f"{name}:depth=2,time_limit=none,area=2", game="colosseum")
        assert isinstance(agent, SearchAgent)
        assert agent.settings == SearchSettings(time_limit=None, depth=2)
        assert agent.weights.area == 2.0
    with pytest.raises(ValueError, match="give a time_limit, a depth, or both"):
        SearchSettings(time_limit=None)


def test_a_fixed_depth_is_deterministic_and_reports_its_search() -> None:
    state = start_state(ColosseumConfig(6), 2)
    answers = set()
    for _ in range(2):
        agent = SearchAgent(SearchSettings(time_limit=None, depth=2))
        answers.add(agent.select_action(state))
        assert agent.last_search is not None and agent.last_search.depth == 2
        assert agent.last_search.nodes > 0
    assert len(answers) == 1 and answers.pop() in rules.legal_actions(state)


def test_a_winning_cut_is_found_and_taken() -> None:
    state = board("""
+---+---+---+
| A         |
+   +---+---+
|   |     B |
+   +   +   +
|           |
+---+---+---+
""")  # A walks to (2, 0) and puts a barrier right: 5 cells to 4
    agent = SearchAgent(SearchSettings(time_limit=None, depth=3))
    action = agent.select_action(state)
    assert rules.zone_sizes(rules.apply(state, action)) == (5, 4)
    assert agent.last_search is not None and agent.last_search.value == WIN_SCORE + 1
    assert agent.last_search.depth == 1  # a found win ends the deepening


def test_the_clock_is_kept_on_12x12() -> None:
    agent = SearchAgent(SearchSettings(time_limit=0.3))
    rng = random.Random(0)
    state = start_state(ColosseumConfig(12), 0)
    worst = 0.0
    for _ in range(6):
        began = time.process_time()
        action = agent.select_action(state)
        worst = max(worst, time.process_time() - began)
        assert action in rules.legal_actions(state)
        state = rules.apply(state, action)
        if rules.outcome(state) is not None:
            break
        state = rules.apply(state, rng.choice(rules.legal_actions(state)))
        if rules.outcome(state) is not None:
            break
    assert worst < 0.3


def test_the_reference_beats_greedy_on_6x6() -> None:
    wins = 0
    for seed in range(4):
        players = [
            make_agent("expectiminimax:time_limit=0.3", game="colosseum"),
            make_agent("greedy", game="colosseum"),
        ]
        seat = seed % 2
        result = play_game(players[::-1] if seat else players, seed=seed // 2, game="colosseum",
                           params={"board_size": 6}, time_budget=1.0)  # fmt: skip
        assert result.reason == "separated", result.detail
        wins += result.winner == seat
    assert wins >= 3

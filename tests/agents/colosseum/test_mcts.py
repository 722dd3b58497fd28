"""Colosseum Survival!'s ``mcts`` (:mod:`agents.colosseum.mcts`): in the table with its
options, deterministic at a number of simulations, a forced win the exact search proves
on small boards is one it takes, and it keeps its clock."""

from __future__ import annotations

import doctest
import gc
import time

import pytest

from agents import make_agent
from agents.colosseum import mcts
from agents.colosseum.evaluation import WIN_SCORE, Weights
from agents.colosseum.greedy import child
from agents.colosseum.mcts import MCTSAgent, MCTSSettings
from agents.colosseum.search import AlphaBeta
from tests.support.positions import colosseum_positions
from trap_env.colosseum import rules
from trap_env.colosseum.rules import ColosseumConfig, start_state


def test_the_module_examples_run() -> None:
    assert doctest.testmod(mcts).failed == 0


def test_the_agent_is_in_the_table_with_its_options() -> None:
    agent = make_agent("mcts:time_limit=none,simulations=40,c_puct=2,area=2", game="colosseum")
    assert isinstance(agent, MCTSAgent)
    assert agent.settings == MCTSSettings(time_limit=None, simulations=40, c_puct=2.0)
    assert agent.weights == Weights(area=2.0)


@pytest.mark.parametrize(
    ("options", "message"),
    [({"time_limit": None}, "a simulations, or both"), ({"c_puct": 0}, "c_puct must be"),
     ({"value_scale": float("inf")}, "value_scale must be"), ({"simulations": 0}, "simulations")],
)  # fmt: skip
def test_bad_settings_name_what_is_allowed(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        MCTSSettings(**options)


def test_a_number_of_simulations_is_deterministic() -> None:
    state = start_state(ColosseumConfig(board_size=6), 5)
    settings = MCTSSettings(time_limit=None, simulations=200)
    first = [MCTSAgent(settings, seed=seed).select_action(state) for seed in (1, 2)]
    assert first[0] == first[1] == MCTSAgent(settings, seed=1).select_action(state)


def test_a_win_the_exact_search_proves_is_taken() -> None:
    """On 4x4 boards, wherever depth-3 alpha-beta proves a win for the player to act, the
    action ``mcts`` plays wins too (proved by the same search one ply below)."""
    search, checked = AlphaBeta(), 0
    for state in colosseum_positions(4, 40, seed=11):
        if search.value(state, 3) < WIN_SCORE:
            continue
        action = MCTSAgent(MCTSSettings(time_limit=None, simulations=600)).select_action(state)
        after = child(state, action)
        sizes = rules.zone_sizes(after)
        won = sizes is not None and sizes[state.player] > sizes[1 - state.player]
        assert won or -search.value(after, 2) >= WIN_SCORE, rules.to_text(state)
        checked += 1
    assert checked >= 5


def test_the_clock_is_kept_on_12x12() -> None:
    agent = make_agent("mcts:time_limit=0.3", game="colosseum", seed=0)
    state = start_state(ColosseumConfig(board_size=12), 3)
    # The collector is paused during the decision; a collection falling due meanwhile runs
    # after it (outside the agent's clock): in the whole suite's heap that took 0.2 s.
    gc.collect()
    started = time.process_time()
    assert agent.select_action(state) in rules.legal_actions(state)
    assert time.process_time() - started < 0.3

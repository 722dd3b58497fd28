"""Othello's hook of ``openspiel-mcts``: on 8x8 the agent searches OpenSpiel's C++ ``othello``
from any position a random opening leads to, in step with our rules at every ply."""

from __future__ import annotations

import doctest
import random

import pytest

from agents import make_agent
from trap_env.othello import rules
from trap_env.othello.rules import OthelloConfig, OthelloState, initial_state

pyspiel = pytest.importorskip("pyspiel")

from agents.openspiel_mcts import OpenSpielMCTSAgent, native_game  # noqa: E402
from agents.othello import openspiel_mcts  # noqa: E402
from agents.othello.openspiel_mcts import opening_history  # noqa: E402


def random_opening(seed: int, plies: int, config: OthelloConfig | None = None) -> OthelloState:
    rng, state = random.Random(seed), initial_state(config)
    for _ in range(plies):
        state = rules.apply(state, rng.choice(rules.legal_actions(state)))
    return state


def cpp_state(actions: list[int]) -> object:
    state = pyspiel.load_game("othello").new_initial_state()
    for action in actions:
        state.apply_action(action)
    return state


def test_the_module_example_runs_and_the_agent_finds_the_hook() -> None:
    assert doctest.testmod(openspiel_mcts).failed == 0
    assert native_game("othello") is openspiel_mcts.NATIVE
    assert native_game("trap") is None and native_game("colosseum") is None


@pytest.mark.parametrize("seed", range(8))
def test_the_history_of_a_random_opening_leads_there_in_cpp(seed: int) -> None:
    state = random_opening(seed, plies=4 + seed)
    history = opening_history(state)
    assert history is not None
    replayed = initial_state()
    for action in history:
        replayed = rules.apply(replayed, action)
    assert replayed == state
    assert cpp_state(history).legal_actions() == rules.legal_actions(state)  # type: ignore[attr-defined]


def test_the_history_search_gives_up_within_its_budget() -> None:
    assert opening_history(random_opening(0, plies=12), budget=3) is None


@pytest.mark.parametrize("seed", range(3))
def test_after_a_random_opening_it_plays_on_the_cpp_state_in_step_with_ours(seed: int) -> None:
    agent = make_agent("openspiel-mcts:simulations=3", game="othello", seed=seed)
    assert isinstance(agent, OpenSpielMCTSAgent)
    rng, state = random.Random(seed), random_opening(seed, plies=4)
    while rules.legal_actions(state):
        if state.player == seed % 2:
            state = rules.apply(state, agent.select_action(state))
            assert agent.native_states  # it searched the C++ game
            ours, theirs = agent._mirror  # type: ignore[misc]  # (ours, C++) after its action
            assert ours == state
            assert theirs.current_player() == (state.player if rules.legal_actions(state) else -4)
            assert theirs.legal_actions() == rules.legal_actions(state)
        else:
            state = rules.apply(state, rng.choice(rules.legal_actions(state)))


def test_other_rules_are_searched_in_our_python_game() -> None:
    agent = make_agent("openspiel-mcts:simulations=3", game="othello", seed=0)
    state = random_opening(0, plies=4, config=OthelloConfig(6))
    assert agent.select_action(state) in rules.legal_actions(state)
    assert not agent.native_states  # type: ignore[attr-defined]


def test_it_plays_alike_on_openspiels_othello_and_on_ours() -> None:
    state = random_opening(4, plies=14)
    on_cpp = OpenSpielMCTSAgent(simulations=40, seed=7, game="othello")
    on_ours = OpenSpielMCTSAgent(simulations=40, seed=7, game="othello")
    on_ours.native = None  # as a game without a C++ twin: our rules behind OpenSpiel's API
    assert on_cpp.select_action(state) == on_ours.select_action(state)
    assert on_cpp.native_states and not on_ours.native_states


def test_a_position_without_a_found_history_is_searched_once_then_the_game_stays_in_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent = make_agent("openspiel-mcts:simulations=3", game="othello", seed=0)
    assert isinstance(agent, OpenSpielMCTSAgent) and agent.native is not None
    searches: list[OthelloState] = []

    def finds_none(state: OthelloState) -> None:
        searches.append(state)

    native = openspiel_mcts.NativeGame("othello", openspiel_mcts.plays, finds_none)
    monkeypatch.setattr(agent, "native", native)
    state = random_opening(1, plies=20)
    for _ in range(2):
        state = rules.apply(state, agent.select_action(state))
        state = rules.apply(state, rules.legal_actions(state)[0])
        assert not agent.native_states
    assert len(searches) == 1  # not again at every decision (a quarter second each)
    agent.reset(0)
    agent.select_action(state)
    assert len(searches) == 2  # a new game may be reachable again

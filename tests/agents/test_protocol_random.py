"""``random`` in every game, a game named by its path too: legal actions, one seed replays
them, and no decision to make is an error that says so."""

from __future__ import annotations

import pytest

from agents import SpecError, make_agent
from agents.protocol_random import RandomAgent
from tests.support.game_runs import random_decision_states
from tests.support.games import PATHS, every_game, game_object
from tests.support.toy_game import GAME as RACE


@every_game()
def test_every_game_has_random_which_plays_legal_actions_that_its_seed_replays(game: str) -> None:
    rules = game_object(game)
    states = random_decision_states(rules, rules.make_config(), seed=1, count=10)
    agent = make_agent("random", game=PATHS.get(game, game), seed=3)  # a stranger by its path
    runs = []
    for _ in range(2):
        agent.reset(3)
        runs.append([agent.select_action(state) for state in states])
    assert runs[0] == runs[1]
    assert all(action in rules.legal_actions(s) for s, action in zip(states, runs[0], strict=True))


def test_the_generic_agents_are_every_games_and_a_games_own_row_wins() -> None:
    race = "tests.support.toy_game:GAME"
    assert isinstance(make_agent("random", game=race), RandomAgent)
    assert not isinstance(make_agent("random", game="othello"), RandomAgent)
    with pytest.raises(SpecError, match=r"unknown agent 'greedy'; known agents: .*mcts, ppo, rand"):
        make_agent("greedy", game=race)


def test_random_refuses_a_state_with_no_decision() -> None:
    agent = RandomAgent(seed=0, game="race")
    start = RACE.initial_state(RACE.make_config())
    with pytest.raises(ValueError, match=r"^random acts at a decision, got '0 0 0 1 0 goal=4'"):
        agent.select_action(RACE.apply(start, 1))  # a gamble: chance acts next

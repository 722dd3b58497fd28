"""``epsilon-greedy``: greedy at epsilon 0, random legal actions at 1, one seed replays it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents import SpecError, make_agent
from tests.support.game_runs import random_decision_states
from tests.support.games import every_game
from trap_env.games import get_game


def _states(game_name: str, seed: int, plies: int) -> list[object]:
    game = get_game(game_name)
    return random_decision_states(game, game.make_config(), seed=seed, count=plies)


@every_game("greedy", argname="game_name")
def test_epsilon_zero_plays_as_greedy(game_name: str) -> None:
    noisy = make_agent("epsilon-greedy:epsilon=0", game=game_name, seed=3)
    greedy = make_agent("greedy", game=game_name, seed=3)
    for state in _states(game_name, seed=1, plies=12):
        assert noisy.select_action(state) == greedy.select_action(state)


@every_game("greedy", argname="game_name")
@given(seed=st.integers(0, 2**31), epsilon=st.floats(0, 1))
def test_every_action_is_legal_and_one_seed_replays_it(
    game_name: str, seed: int, epsilon: float
) -> None:
    game = get_game(game_name)
    agent = make_agent(f"epsilon-greedy:epsilon={epsilon}", game=game_name)
    states = _states(game_name, seed=seed, plies=8)
    runs = []
    for _ in range(2):
        agent.reset(seed)
        runs.append([agent.select_action(state) for state in states])
    assert runs[0] == runs[1]
    assert all(action in game.legal_actions(s) for s, action in zip(states, runs[0], strict=True))


def test_epsilon_one_plays_every_legal_action() -> None:
    state = _states("othello", seed=0, plies=1)[0]
    agent = make_agent("epsilon-greedy:epsilon=1", game="othello", seed=0)
    seen = {agent.select_action(state) for _ in range(200)}
    assert seen == set(get_game("othello").legal_actions(state))


@pytest.mark.parametrize(
    ("epsilon", "message"),
    [
        ("-0.1", r"epsilon is a probability in \[0, 1\], got -0.1"),
        ("1.5", r"epsilon is a probability in \[0, 1\], got 1.5"),
        ("nan", r"option 'epsilon' of agent 'epsilon-greedy' takes a number, got 'nan'"),
    ],
)
def test_an_epsilon_outside_zero_to_one_is_refused(epsilon: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        make_agent(f"epsilon-greedy:epsilon={epsilon}", game="trap")


def test_a_game_without_greedy_is_refused_naming_its_agents() -> None:
    message = r"^agent spec 'epsilon-greedy': epsilon-greedy adds noise to the game's greedy agent"
    with pytest.raises(SpecError, match=message + r", and Race has none; its agents: .*random"):
        make_agent("epsilon-greedy", game="tests.support.toy_game:GAME")

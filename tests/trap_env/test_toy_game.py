"""The generic parts are generic: Race (``tests/support/toy_game.py``), a tiny game with a chance
node, named by its path, played through the search, the match runner and the protocol's
contract. What every game passes (check_game, the env contract) Race passes in the
game-parametrised tests, among every game (``tests.support.games``)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.mcts.search import Tree
from agents.search.expectimax import Search
from agents.search.protocol_game import ProtocolSearchGame
from tests.support import toy_game
from tests.support.toy_game import GAME, RaceState
from trap_env.games import get_game
from trap_env.trap.core import IllegalActionError

RACE = "tests.support.toy_game:GAME"
"""Race by its path, as the runners name a game."""
RACER, WALKER = "tests.support.toy_game.RandomRacer", "tests.support.toy_game.Walker"


def reachable(goal: int, seed: int, steps: int) -> list[RaceState]:
    """The states of one random playout of Race."""
    rng = random.Random(seed)
    state = GAME.initial_state(GAME.make_config(goal=goal))
    states = [state]
    while GAME.outcome(state) is None and len(states) < steps:
        if GAME.is_chance(state):
            state = GAME.apply(state, GAME.sample_chance(state, rng))
        else:
            state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
        states.append(state)
    return states


def test_a_game_is_found_by_its_path() -> None:
    assert get_game(RACE) is GAME


@settings(max_examples=25, deadline=None)
@given(goal=st.integers(2, 6), seed=st.integers(0, 2**32), depth=st.integers(1, 5))
def test_the_pruned_search_agrees_with_plain_expectimax(goal: int, seed: int, depth: int) -> None:
    search = Search(ProtocolSearchGame(GAME))
    for state in reachable(goal, seed, 12):
        if GAME.is_chance(state) or GAME.outcome(state) is not None:
            continue
        assert search.value(state, depth) == pytest.approx(toy_game.expectimax(state, depth))
        value, _ = search.best(state, depth)
        assert value == pytest.approx(toy_game.expectimax(state, depth))


@settings(max_examples=25, deadline=None)
@given(goal=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_apply_accepts_exactly_the_legal_actions_and_text_round_trips(goal: int, seed: int) -> None:
    for state in reachable(goal, seed, 40):
        assert GAME.from_text(GAME.to_text(state)) == state
        legal = GAME.legal_actions(state)
        assert [a for a in range(3) if GAME.legal_action_mask(state)[a]] == legal
        for action in range(-1, 4):
            if action in legal:
                GAME.apply(state, action)
            else:
                with pytest.raises(IllegalActionError):
                    GAME.apply(state, action)


@pytest.mark.parametrize("goal, limit", [(2, 3), (3, 4), (4, 3)])
def test_mcts_converges_to_the_expectimax_value(goal: int, limit: int) -> None:
    state = GAME.initial_state(GAME.make_config(goal=goal))

    def uniform(states: list[RaceState]) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros((len(states), 3)), np.zeros(len(states))

    tree = Tree(state, max_turns=limit, game=GAME)
    tree.run(uniform, 20_000, lambda: False)
    root, best = tree.root, tree.root.best_index()
    exact = toy_game.expectimax(state, 100, max_turns=limit)
    assert root.totals[best] / root.visits[best] == pytest.approx(exact, abs=0.015)


def test_the_gymnasium_adapter_plays_race() -> None:
    from gymnasium.utils.env_checker import check_env

    from trap_env.gym_env import GameEnv

    env = GameEnv(RACE, opponent=toy_game.RandomRacer(), goal=4, max_turns=12)
    check_env(env, skip_render_check=True)
    observation, info = env.reset(seed=3)
    assert observation.shape == (1, 5, 2) and info["phase"] == 0  # "step"
    rewards, done, steps = [], False, 0
    while not done:
        action = int(np.flatnonzero(env.action_masks())[0])
        observation, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        done, steps = terminated or truncated, steps + 1
    assert steps <= 12 and rewards[-1] in (-1.0, 0.0, 1.0)
    assert set(rewards[:-1]) <= {0.0}
    assert info["positions"].tolist() == GAME.scores(env.game_state)["positions"]
    first = GameEnv(GAME, opponent=toy_game.RandomRacer(), goal=4)
    second = GameEnv(GAME, opponent=toy_game.RandomRacer(), goal=4)
    for env in (first, second):
        env.reset(seed=7)
    for _ in range(6):
        results = [env.step(int(np.flatnonzero(env.action_masks())[-1])) for env in (first, second)]
        assert results[0][1:4] == results[1][1:4]
        if results[0][2] or results[0][3]:
            break


def test_the_match_runner_plays_race_and_replays_its_record() -> None:
    from agents.arena.match import play_game, replay

    result = play_game([toy_game.RandomRacer(), toy_game.Walker()], seed=5,
                       game=RACE, params={"goal": 5}, time_budget=None)  # fmt: skip
    record = result.to_dict()
    assert record["game"] == RACE and record["rules"] == {"goal": 5}
    assert record["reason"] in ("finished", "truncated") and "board_size" not in record
    *_, (final, _) = replay(record["actions"], game=RACE, params={"goal": 5})
    assert GAME.turn(final) == record["turns"]
    assert record["scores"] == GAME.scores(final)
    ended = GAME.outcome(final, record["max_turns"])
    assert ended is not None and ended.reason == record["reason"]


def test_a_tournament_of_race_runs_resumes_and_reports(tmp_path) -> None:
    import json

    from trap_scripts import tournament

    argv = [RACER, WALKER, "--game", RACE, "--games", "4",
            "--time-budget", "none", "--workers", "1", "--out", str(tmp_path), "--no-plot",
            "--quiet"]  # fmt: skip
    assert tournament.main(argv) == 0
    assert tournament.main([*argv, "--resume"]) == 0
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == 4
    assert {record["game"] for record in records} == {RACE}
    assert {record["reason"] for record in records} <= {"finished", "truncated"}


def test_the_gymnasium_id_of_race_makes_its_env() -> None:
    import gymnasium

    import trap_env

    gym_id = trap_env.register_gym_env(RACE)
    assert gym_id == "trap_env/Race-v0"
    env = gymnasium.make(gym_id, opponent=toy_game.Walker(), goal=3)
    observation, _ = env.reset(seed=0)
    assert observation.shape == (1, 4, 2)


def test_the_openspiel_adapter_plays_race_with_exact_chance() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    from trap_env.openspiel import register_spiel_game

    register_spiel_game(GAME, "python_race_test")
    game = pyspiel.load_game("python_race_test(goal=3)")
    rng = random.Random(0)
    for _ in range(20):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                assert outcomes == [(0, 0.4), (2, 0.6)]
                state.apply_action(rng.choice([o for o, _ in outcomes]))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


def test_a_run_takes_every_games_rules_in_params_and_refuses_rules_a_game_lacks() -> None:
    from agents.arena.plan import RunConfig

    with pytest.raises(ValueError, match=r"has no rule parameter \['board_size'\]"):
        RunConfig(game_name=RACE, params={"board_size": 5})
    with pytest.raises(ValueError, match=r"Trap! has no rule parameter \['goal'\]"):
        RunConfig(game_name="trap", params={"goal": 3})
    assert RunConfig(game_name=RACE, params={"goal": 3}).game == GAME.make_config(goal=3)


def test_the_mcts_network_reads_the_games_planes_and_refuses_other_actions() -> None:
    from agents.mcts.network import IncompatibleNetworkError, Network, encode, input_planes
    from trap_env.trap.core import GameConfig
    from trap_env.trap.game import GAME as TRAP

    config = GAME.make_config(goal=4)
    planes = input_planes(GAME, config)
    start = GAME.initial_state(config)
    assert encode([start], GAME).shape == (1, 1, 5, planes)
    network = Network.initial(GameConfig(5), channels=4, blocks=1, hidden=4, game=TRAP)
    assert network.input_planes == 5 != planes
    with pytest.raises(IncompatibleNetworkError, match="Race has 3 input planes and 3 actions"):
        network.check_shapes(GAME, config)


@settings(max_examples=40)
@given(goal=st.integers(2, 6), seed=st.integers(0, 2**32 - 1), games=st.integers(1, 12))
def test_the_batched_engine_of_race_plays_as_the_scalar_game(
    goal: int, seed: int, games: int
) -> None:
    from trap_env.batched import NO_WINNER, batched_engine

    rng = random.Random(seed)
    engine = batched_engine(GAME, GAME.make_config(goal=goal))
    states = [GAME.initial_state(engine.config)] * games
    batch = engine.initial_batch(games)
    for _ in range(6 * goal):
        assert engine.to_states(batch) == states
        assert engine.legal_masks(batch).astype(int).tolist() == [
            GAME.legal_action_mask(s) for s in states
        ]
        for index, state in enumerate(states):
            ended = GAME.outcome(state)
            assert engine.winners(batch)[index] == (NO_WINNER if ended is None else ended.winner)
            assert engine.is_truncated(batch, 3)[index] == (
                ended is None and GAME.outcome(state, 3) is not None
            )
        actions = [rng.choice(GAME.legal_actions(s) or [0]) for s in states]
        pairs = zip(states, actions, strict=True)
        states = [s if GAME.outcome(s) else GAME.apply(s, a) for s, a in pairs]
        batch = engine.apply(batch, np.array(actions))


def test_the_batched_env_and_search_play_race_through_its_engine() -> None:
    import gymnasium

    import trap_env
    from agents.mcts.batched import BatchedTree, uniform_evaluator
    from trap_env.batched_env import GameVectorEnv

    def run(opponent: object) -> list[float]:
        envs = GameVectorEnv(RACE, num_envs=6, opponent=opponent, goal=4)
        envs.reset(seed=1)
        rewards = []
        for _ in range(30):
            masks = envs.action_masks()
            _, reward, terminated, truncated, _ = envs.step(np.argmax(masks, axis=1))
            rewards += reward[terminated | truncated].tolist()
            assert not reward[~(terminated | truncated)].any()
        return rewards

    assert run(RACER) == run(RACER)  # one seed, one run
    assert set(run(toy_game.Walker())) <= {-1.0, 0.0, 1.0}
    assert set(run(lambda seen, masks: np.argmax(masks, axis=1))) <= {-1.0, 0.0, 1.0}
    gym_id = trap_env.register_gym_env(RACE)
    envs = gymnasium.make_vec(gym_id, num_envs=3, opponent=WALKER)
    assert envs.reset(seed=0)[0].shape == (3, 1, 5, 2)
    engine = GAME.batched_engine(GAME.make_config(goal=3))
    tree = BatchedTree(engine, engine.initial_batch(2), simulations=400, max_turns=4)
    tree.run(uniform_evaluator(engine))
    exact = toy_game.expectimax(GAME.initial_state(engine.config), 100, max_turns=4)
    assert tree.root_values() == pytest.approx([exact, exact], abs=0.06)


class Gambler(toy_game.RandomRacer):
    """Always gambles: on a track of 2, its first turn wins three times in five."""

    def select_action(self, state: toy_game.RaceState) -> int:
        return toy_game.GAMBLE


def test_a_game_the_opponents_opening_ends_is_played_again_in_both_envs() -> None:
    """An episode begins at a decision of the learner, in the single and the batched env:
    a game the opponent wins before it (its first turn, the learner second) starts over."""
    from trap_env.batched_env import GameVectorEnv
    from trap_env.gym_env import GameEnv

    env = GameEnv(GAME, opponent=Gambler(), seat=1, goal=2)
    for seed in range(20):
        _, info = env.reset(seed=seed)
        assert GAME.outcome(env.game_state) is None and info["action_mask"].any()
    envs = GameVectorEnv(RACE, num_envs=16, opponent=Gambler(), seat=1, goal=2)
    envs.reset(seed=0)
    assert envs.action_masks().any(axis=1).all()
    for _ in range(20):  # ended games restart at the next step (their masks are empty till then)
        _, _, terminated, truncated, info = envs.step(np.argmax(envs.action_masks(), axis=1))
        assert not info["illegal_action"].any()
        assert envs.action_masks()[~(terminated | truncated)].any(axis=1).all()

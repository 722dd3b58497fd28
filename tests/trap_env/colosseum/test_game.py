"""Colosseum Survival! behind the game protocol (:mod:`trap_env.colosseum.game`) and
through the generic adapters: Gymnasium (``trap_env/Colosseum-v0``), OpenSpiel
(``python_colosseum``), the match runner and ``trap-tournament --game colosseum``
(PettingZoo's tests of every game are in ``test_aec_env``)."""

from __future__ import annotations

import doctest
import json
import random

import numpy as np
import pytest

import trap_env
from tests.support.game_runs import play_text_program, tournament_records
from tests.support.positions import random_game
from trap_env.colosseum import game as colosseum_game
from trap_env.colosseum import rules
from trap_env.colosseum.game import GAME
from trap_env.games import game_names, get_game


def test_the_module_examples_run() -> None:
    assert doctest.testmod(colosseum_game).failed == 0


def test_colosseum_is_registered_by_name() -> None:
    assert "colosseum" in game_names() and get_game("colosseum") is GAME
    assert GAME.name == "colosseum" and GAME.end_reasons == ("separated",) and GAME.has_chance


def test_the_configuration_takes_board_size_and_start() -> None:
    config = GAME.make_config(board_size=6, start=3)
    assert GAME.config_params(config) == {"board_size": 6, "start": 3}
    assert GAME.make_config(**GAME.config_params(config)) == config
    assert GAME.config_params(GAME.make_config()) == {"board_size": 8, "start": -1}
    assert GAME.num_actions(config) == 144 and GAME.observation_shape(config) == (6, 6, 7)
    assert GAME.config_of(GAME.initial_state(config)) == GAME.make_config(board_size=6)
    with pytest.raises(ValueError, match=r"no rule parameter \['decay'\]; allowed"):
        GAME.make_config(decay=50)


@pytest.mark.parametrize("board_size", [3, 5, 8])
def test_the_turn_limit_never_cuts_a_game(board_size: int) -> None:
    limit = GAME.default_turn_limit(GAME.make_config(board_size=board_size))
    for seed in range(10):
        final = random_game(GAME, seed, board_size=board_size, start=seed)[-1]
        ended = GAME.outcome(final, limit)
        assert GAME.turn(final) < limit and ended is not None and ended.reason == "separated"


def test_the_start_is_the_only_chance_node() -> None:
    chance = GAME.initial_state(GAME.make_config(board_size=5))
    assert GAME.is_chance(chance) and GAME.decision_name(chance) == "start"
    assert GAME.scores(chance) == {}
    start = GAME.sample_chance(chance, random.Random(4))
    state = GAME.apply(chance, start)
    assert state == GAME.initial_state(GAME.make_config(board_size=5, start=start))
    for state in random_game(GAME, 0, board_size=5, start=0):
        assert not GAME.is_chance(state)


def test_scores_are_the_zones_and_turns_are_decisions() -> None:
    states = random_game(GAME, 2, board_size=6, start=0)
    assert [GAME.turn(state) for state in states] == list(range(len(states)))
    assert GAME.scores(states[0]) == {"zones": [36, 36]}
    assert GAME.scores(states[-1]) == {"zones": list(rules.zone_sizes(states[-1]))}


def test_observation_planes_from_each_side() -> None:
    state = GAME.initial_state(GAME.make_config(board_size=4, start=0))
    planes_a, planes_b = GAME.observe(state, 0), GAME.observe(state, 1)
    assert planes_a.dtype == np.int8 and planes_a.shape == (4, 4, 7)
    assert np.flatnonzero(planes_a[:, :, 0]).tolist() == [state.cells[0]]
    assert np.flatnonzero(planes_a[:, :, 1]).tolist() == [state.cells[1]]
    assert (planes_a[:, :, 0] == planes_b[:, :, 1]).all()
    for side in range(4):  # the engine's chess_board[r, c, side]
        expected = [rules.has_wall(state.walls, cell, side) for cell in range(16)]
        assert planes_a[:, :, 2 + side].reshape(16).tolist() == expected
    assert planes_a[:, :, 6].all() and not planes_b[:, :, 6].any()


@pytest.mark.parametrize("board_size", [5, 6, 7])
def test_observation_planes_say_every_wall_and_who_acts_in_a_game(board_size: int) -> None:
    cells = board_size * board_size
    for state in random_game(GAME, board_size, board_size=board_size, start=1):
        planes = GAME.observe(state, 0).reshape(cells, 7)
        for side in range(4):
            expected = [rules.has_wall(state.walls, cell, side) for cell in range(cells)]
            assert planes[:, 2 + side].tolist() == expected
        to_act = state.player == 0 and bool(GAME.legal_actions(state))
        assert planes[:, 6].tolist() == [to_act] * cells


def test_actions_as_text_round_trip_in_every_form() -> None:
    state = GAME.initial_state(GAME.make_config(board_size=5, start=1))
    for action in range(100):
        assert GAME.action_from_text(state, GAME.action_to_text(state, action)) == action
        assert GAME.action_from_text(state, str(action)) == action
    assert GAME.action_to_text(state, (2 * 5 + 3) * 4 + 1) == "2,3,1"
    assert GAME.action_from_text(state, "2,3,right") == 53 == GAME.action_from_text(state, "2 3 r")
    for text in ("2 3", "5 0 1", "2 3 4", "100", "x"):
        with pytest.raises(ValueError, match="an action is 'row,col,side'"):
            GAME.action_from_text(state, text)


def test_text_of_states_round_trips() -> None:
    for state in random_game(GAME, 3, board_size=7, start=9):
        assert GAME.from_text(GAME.to_text(state)) == state


def test_render_text_draws_the_barriers_and_the_players() -> None:
    state = GAME.initial_state(GAME.make_config(board_size=3, start=0))
    text = GAME.render_text(state)
    assert text.splitlines()[0] == "+---+---+---+"
    assert text.count("A") == 2 and "B" in text  # the cell and the status line
    assert text.endswith("A to move, at most 2 steps")
    final = random_game(GAME, 1, board_size=4, start=0)[-1]
    sizes = rules.zone_sizes(final)
    assert GAME.render_text(final).endswith(f"game over; A {sizes[0]}, B {sizes[1]}")


def test_render_rgb_draws_walls_and_players() -> None:
    state = rules.from_text("93b/802/c46 0,0 2,2 A 0")  # a barrier between (0,1), (0,2)
    image = GAME.render_rgb(state)
    assert image.shape == (96, 96, 3) and image.dtype == np.uint8
    assert tuple(image[16, 16]) == (31, 119, 180) and tuple(image[80, 80]) == (140, 86, 75)
    assert tuple(image[16, 63]) == (40, 30, 20)  # the right side of (0, 1)
    assert tuple(image[16, 48]) == (235, 225, 200)  # the floor of (0, 1)


def test_describe_is_json_ready() -> None:
    final = random_game(GAME, 4, board_size=5, start=0)[-1]
    described = GAME.describe(final)
    assert json.loads(json.dumps(described)) == described
    assert described["over"] and described["legal"] == [] and described["max_steps"] == 3
    assert described["zones"] == GAME.scores(final)["zones"]
    assert np.array(described["walls"]).shape == (5, 5, 4)
    assert GAME.describe(GAME.initial_state(GAME.make_config()))["cells"] == [None, None]


# --- Through the generic adapters ---------------------------------------------------------


def test_the_gymnasium_id_passes_check_env_and_plays_with_masks() -> None:
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    assert trap_env.COLOSSEUM_GYM_ID in gymnasium.registry  # registered by import trap_env
    for render_mode in ("ansi", "rgb_array"):
        env = gymnasium.make(trap_env.COLOSSEUM_GYM_ID, opponent="random", render_mode=render_mode)
        check_env(env.unwrapped)
    env = gymnasium.make(trap_env.COLOSSEUM_GYM_ID, opponent="greedy", board_size=6)
    observation, info = env.reset(seed=3)
    assert observation.shape == (6, 6, 7) and info["phase"] == GAME.decision_names.index("move")
    assert 0 <= info["chance"] < rules.NUM_STARTS  # the start, drawn at reset
    rewards, done = [], False
    while not done:
        mask = env.unwrapped.action_masks()  # type: ignore[attr-defined]
        assert mask.any() and (mask == info["action_mask"].astype(bool)).all()
        observation, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[-1]))
        rewards.append(reward)
        done = terminated or truncated
    assert terminated and not truncated and set(rewards[:-1]) <= {0.0}
    zones = info["zones"].tolist()
    mine, theirs = zones[info["seat"]], zones[1 - info["seat"]]
    assert rewards[-1] == (mine > theirs) - (mine < theirs)


def test_the_gymnasium_env_draws_its_start_from_its_seed() -> None:
    import gymnasium

    env = gymnasium.make(trap_env.COLOSSEUM_GYM_ID, opponent="random", board_size=6)
    env.reset(seed=11)
    first = env.unwrapped.game_state  # type: ignore[attr-defined]
    env.reset(seed=11)
    assert env.unwrapped.game_state == first  # type: ignore[attr-defined]
    starts = set()
    for seed in range(8):
        env.reset(seed=seed)
        starts.add(rules.to_text(env.unwrapped.game_state))  # type: ignore[attr-defined]
    assert len(starts) == 8
    position = random_game(GAME, 0, board_size=6, start=2)[3]
    observation, info = env.unwrapped.set_game_state(position)  # type: ignore[attr-defined]
    assert info["turn"] in (3, 4) and observation.shape == (6, 6, 7)  # the opponent may play
    fixed = gymnasium.make(trap_env.COLOSSEUM_GYM_ID, board_size=6, start=5, seat=0)
    # A state does not say how its start came about (config_of): the start only draws.
    fixed.unwrapped.set_game_state(position)  # type: ignore[attr-defined]
    other_board = random_game(GAME, 0, board_size=7)[3]
    with pytest.raises(ValueError, match="state has rules"):
        fixed.unwrapped.set_game_state(other_board)  # type: ignore[attr-defined]
    fixed.reset(seed=0)
    assert fixed.unwrapped.game_state == rules.start_state(rules.ColosseumConfig(6), 5)  # type: ignore[attr-defined]


def test_make_vec_runs_synchronously() -> None:
    import gymnasium

    envs = gymnasium.make_vec(
        trap_env.COLOSSEUM_GYM_ID, num_envs=2, vectorization_mode="sync", board_size=5
    )
    observations, infos = envs.reset(seed=0)
    assert observations.shape == (2, 5, 5, 7)
    for _ in range(5):
        actions = [int(np.argmax(mask)) for mask in infos["action_mask"]]  # 0 once over
        observations, rewards, _, _, infos = envs.step(np.array(actions))
        assert observations.shape == (2, 5, 5, 7) and set(rewards) <= {-1.0, 0.0, 1.0}
    envs.close()


def test_the_openspiel_adapter_has_the_start_as_a_chance_node() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import trap_env.openspiel  # noqa: F401  (registers every game of the table)

    game = pyspiel.load_game("python_colosseum(board_size=5)")
    assert game.num_distinct_actions() == 100
    assert game.max_chance_outcomes() == rules.NUM_STARTS
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == rules.NUM_STARTS
    state.apply_action(42)
    assert str(state) == rules.to_text(rules.start_state(rules.ColosseumConfig(5), 42))
    fixed = pyspiel.load_game("python_colosseum(board_size=5,start=42)").new_initial_state()
    assert not fixed.is_chance_node() and str(fixed) == str(state)
    pyspiel.random_sim_test(pyspiel.load_game("python_colosseum(board_size=4,start=1)"),
                            num_sims=5, serialize=False, verbose=False)  # fmt: skip


def test_the_match_runner_plays_and_replays_its_record() -> None:
    from agents import make_agent
    from agents.arena.match import play_game, replay

    agents = [make_agent("random", game="colosseum"), make_agent("greedy", game="colosseum")]
    params = {"board_size": 6}
    result = play_game(agents, seed=5, game="colosseum", params=params, time_budget=None)
    record = result.to_dict()
    assert record["game"] == "colosseum" and record["reason"] == "separated"
    assert 0 <= record["actions"][0] < rules.NUM_STARTS  # the start, the first chance outcome
    *_, (final, _) = replay(record["actions"], game="colosseum", params=params)
    assert record["scores"] == GAME.scores(final) and GAME.turn(final) == record["turns"]
    again = play_game(agents, seed=5, game="colosseum", params=params, time_budget=None)
    assert again.actions == result.actions


def test_a_tournament_runs_and_reports(tmp_path) -> None:  # type: ignore[no-untyped-def]
    records = tournament_records(tmp_path, "random", "greedy", "--game", "colosseum",
                                 "--board-size", "5", "--games", "4", "--time-budget", "none",
                                 "--workers", "1")  # fmt: skip
    assert len(records) == 4 and {record["game"] for record in records} == {"colosseum"}
    assert {record["reason"] for record in records} == {"separated"}
    by_number = {int(record["game_id"].rsplit("#", 1)[1]): record for record in records}
    for first, second in ((0, 1), (2, 3)):  # each start twice, seats swapped
        assert by_number[first]["actions"][0] == by_number[second]["actions"][0]
        assert by_number[first]["seats"] == by_number[second]["seats"][::-1]
    assert by_number[0]["actions"][0] != by_number[2]["actions"][0]


def test_a_tournament_draws_a_board_size_per_start(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from agents.arena.match import replay

    records = tournament_records(tmp_path, "random", "greedy", "--game", "colosseum",
                                 "--board-size", "4-6", "--games", "8", "--time-budget", "none",
                                 "--workers", "0")  # fmt: skip
    sizes = [record["rules"]["board_size"] for record in records]
    assert set(sizes) <= {4, 5, 6} and len(set(sizes)) > 1 and sizes[::2] == sizes[1::2]
    for record in records:
        params = record["rules"]
        *_, (final, _) = replay(record["actions"], game="colosseum", params=params)
        assert GAME.scores(final) == record["scores"]
        assert record["max_turns"] == GAME.default_turn_limit(GAME.make_config(**params))


def test_paired_seeds_are_for_games_whose_chance_is_the_start() -> None:
    from agents.arena.plan import round_robin

    tasks = round_robin(["a", "b"], 4, seed=3, paired_seeds=True)
    assert [task.seed for task in tasks][::2] == [task.seed for task in tasks][1::2]
    assert len({task.seed for task in round_robin(["a", "b"], 4, seed=3)}) == 4
    assert GAME.paired_starts and not getattr(get_game("trap"), "paired_starts", False)


def test_trap_evaluate_takes_the_reference_greedy_and_random() -> None:
    from trap_scripts import evaluate

    assert evaluate._default_agents("colosseum") == (
        "mcts", "expectiminimax", "greedy", "random"
    )


TEXT_ANSWER = "rules.action_name(state, rules.legal_actions(state)[-1])"
"""A program's answer in Colosseum's action text (``row,col,side``): the last legal action."""


def test_a_program_plays_colosseum_over_exec_in_action_text(tmp_path) -> None:  # type: ignore[no-untyped-def]
    for result in play_text_program(TEXT_ANSWER, tmp_path, "colosseum", 5, seeds=2,
                                    time_budget=5.0):  # fmt: skip
        assert result.reason == "separated", result.detail

"""Othello behind the game protocol (:mod:`trap_env.othello.game`) and through the
generic adapters: Gymnasium (``trap_env/Othello-v0``), OpenSpiel (``python_othello``), the
match runner and ``trap-tournament --game othello`` (PettingZoo's tests of every game are
in ``test_aec_env``)."""

from __future__ import annotations

import doctest
import json
import random
from pathlib import Path

import numpy as np
import pytest

import trap_env
from tests.support.game_runs import play_text_program, tournament_records
from tests.support.positions import othello_position, random_game
from trap_env.games import game_names, get_game
from trap_env.othello import game as othello_game
from trap_env.othello import rules
from trap_env.othello.game import GAME

START_TEXT = """\
   a b c d e f g h
 1 . . . . . . . .
 2 . . . . . . . .
 3 . . . * . . . .
 4 . . * o x . . .
 5 . . . x o * . .
 6 . . . . * . . .
 7 . . . . . . . .
 8 . . . . . . . .
x to play; x 2, o 2"""


def test_the_module_examples_run() -> None:
    import trap_env.othello

    assert doctest.testmod(othello_game).failed == 0
    assert doctest.testmod(trap_env.othello).failed == 0


def test_othello_is_registered_by_name() -> None:
    assert "othello" in game_names() and get_game("othello") is GAME
    assert GAME.name == "othello" and GAME.title == "Othello"
    assert GAME.end_reasons == ("board_full", "no_moves")


def test_the_configuration_takes_board_size_and_end_rule() -> None:
    config = GAME.make_config(board_size=6, end_rule="course")
    assert GAME.config_params(config) == {"board_size": 6, "end_rule": "course"}
    assert GAME.make_config(**GAME.config_params(config)) == config
    assert GAME.config_params(GAME.make_config()) == {"board_size": 8, "end_rule": "standard"}
    assert GAME.config_of(GAME.initial_state(config)) == config
    assert GAME.num_actions(config) == 37
    assert GAME.observation_shape(config) == (6, 6, 4)
    with pytest.raises(ValueError, match=r"no rule parameter \['decay'\]; allowed"):
        GAME.make_config(decay=50)


@pytest.mark.parametrize("board_size", [4, 6, 8])
def test_the_turn_limit_never_cuts_a_game(board_size: int) -> None:
    limit = GAME.default_turn_limit(GAME.make_config(board_size=board_size))
    for seed in range(20):
        final = random_game(GAME, seed, board_size=board_size)[-1]
        assert GAME.turn(final) < limit
        ended = GAME.outcome(final, limit)
        assert ended is not None and ended.reason in GAME.end_reasons


def test_there_is_no_chance() -> None:
    for state in random_game(GAME, 1, board_size=6):
        assert not GAME.is_chance(state)
    with pytest.raises(ValueError, match="no chance"):
        GAME.chance_outcomes(state)
    with pytest.raises(ValueError, match="no chance"):
        GAME.sample_chance(state, random.Random(0))


def test_a_turn_is_one_decision_and_scores_count_discs() -> None:
    states = random_game(GAME, 2, board_size=6)
    assert [GAME.turn(state) for state in states] == list(range(len(states)))
    final = states[-1]
    dark, light = rules.disc_counts(final)
    assert GAME.scores(final) == {"discs": [dark, light]}
    assert GAME.scores(states[0]) == {"discs": [2, 2]}


def test_the_decision_is_place_or_pass() -> None:
    state = othello_position("ox../..../..../.... x 0 standard")
    assert GAME.decision_name(state) == "pass" and GAME.legal_actions(state) == [16]
    assert GAME.decision_name(GAME.initial_state(GAME.make_config())) == "place"


def test_observation_planes_from_each_side() -> None:
    state = GAME.initial_state(GAME.make_config(board_size=4))
    dark, light = GAME.observe(state, 0), GAME.observe(state, 1)
    assert dark.dtype == np.int8 and dark.shape == (4, 4, 4)
    assert np.flatnonzero(dark[:, :, 0]).tolist() == [6, 9]
    assert np.flatnonzero(dark[:, :, 1]).tolist() == [5, 10]
    assert np.flatnonzero(dark[:, :, 2]).tolist() == GAME.legal_actions(state)
    assert dark[:, :, 3].all() and not light[:, :, 3].any()
    assert (light[:, :, 0] == dark[:, :, 1]).all() and (light[:, :, 1] == dark[:, :, 0]).all()
    after = GAME.apply(state, GAME.legal_actions(state)[0])
    assert np.flatnonzero(light[:, :, 2]).tolist() == [2, 7, 8, 13]
    assert GAME.observe(after, 1)[:, :, 3].all()


@pytest.mark.parametrize("end_rule", [rules.STANDARD, rules.COURSE])
def test_observations_agree_with_the_rules_through_a_game(end_rule: str) -> None:
    for state in random_game(GAME, 6, board_size=6, end_rule=end_rule):
        live = GAME.outcome(state) is None
        for player in (0, 1):
            planes = GAME.observe(state, player).reshape(36, 4)
            own, other = rules.sides_of(state, player)
            assert np.flatnonzero(planes[:, 0]).tolist() == rules.cells_of(own)
            assert np.flatnonzero(planes[:, 1]).tolist() == rules.cells_of(other)
            placements = rules.placements(6, own, other)
            assert np.flatnonzero(planes[:, 2]).tolist() == rules.cells_of(placements)
            assert planes[:, 3].all() == (live and player == state.player)
            assert planes[:, 3].any() == planes[:, 3].all()


def test_actions_as_text_round_trip_in_every_form() -> None:
    state = GAME.initial_state(GAME.make_config(board_size=6))
    for action in range(37):
        text = GAME.action_to_text(state, action)
        assert GAME.action_from_text(state, text) == action
        assert GAME.action_from_text(state, str(action)) == action
    assert GAME.action_to_text(state, 36) == "pass"
    assert GAME.action_from_text(state, " 2, 3 ") == 15 == GAME.action_from_text(state, "D3")
    assert GAME.action_from_text(state, "PASS") == 36


@pytest.mark.parametrize(
    "text, message",
    [
        ("z9", "column letter a..f"),
        ("a7", "off the board"),
        ("6,0", "off the 6x6 board"),
        ("37", r"out of range 0\.\.36 \(36: pass\)"),
        ("-1", "'row,col' from 0, a flat index 0..36, or 'pass'"),
        ("", "'pass'"),
    ],
)
def test_bad_action_text_says_what_is_allowed(text: str, message: str) -> None:
    state = GAME.initial_state(GAME.make_config(board_size=6))
    with pytest.raises(ValueError, match=message):
        GAME.action_from_text(state, text)


def test_text_of_states_round_trips() -> None:
    for state in random_game(GAME, 3, board_size=8, end_rule=rules.COURSE):
        assert GAME.from_text(GAME.to_text(state)) == state


def test_render_text_draws_the_board_the_legal_cells_and_the_count() -> None:
    state = GAME.initial_state(GAME.make_config())
    assert GAME.render_text(state) == START_TEXT
    assert GAME.render_text(random_game(GAME, 0, board_size=4)[-1]).endswith(
        "game over; x {}, o {}".format(*rules.disc_counts(random_game(GAME, 0, board_size=4)[-1]))
    )


def test_render_rgb_draws_discs_in_their_colours() -> None:
    state = GAME.initial_state(GAME.make_config(board_size=4))
    image = GAME.render_rgb(state)
    assert image.shape == (128, 128, 3) and image.dtype == np.uint8
    centre = 16
    assert tuple(image[32 + centre, 32 + centre]) == (235, 235, 235)  # light on (1, 1)
    assert tuple(image[32 + centre, 64 + centre]) == (20, 20, 20)  # dark on (1, 2)
    assert tuple(image[centre, centre]) == (0, 110, 50)  # an empty cell


def test_describe_is_json_ready() -> None:
    final = random_game(GAME, 4, board_size=6)[-1]
    described = GAME.describe(final)
    assert json.loads(json.dumps(described)) == described
    assert described["over"] and described["legal"] == []
    assert described["discs"] == GAME.scores(final)["discs"]
    ended = GAME.outcome(final)
    assert ended is not None and described["winner"] == ended.winner


# --- Through the generic adapters ---------------------------------------------------------


def test_the_gymnasium_id_passes_check_env_and_plays_with_masks() -> None:
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    assert trap_env.OTHELLO_GYM_ID == "trap_env/Othello-v0" in gymnasium.registry
    for render_mode in ("ansi", "rgb_array"):
        env = gymnasium.make("trap_env/Othello-v0", opponent="random", render_mode=render_mode)
        check_env(env.unwrapped)
    env = gymnasium.make("trap_env/Othello-v0", opponent="random", board_size=6)
    observation, info = env.reset(seed=3)
    assert observation.shape == (6, 6, 4) and info["phase"] == 0  # "place"
    rewards, done = [], False
    while not done:
        mask = env.unwrapped.action_masks()  # type: ignore[attr-defined]
        assert mask.any() and (mask == info["action_mask"].astype(bool)).all()
        observation, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[-1]))
        rewards.append(reward)
        done = terminated or truncated
    assert terminated and not truncated and rewards[-1] in (-1.0, 0.0, 1.0)
    assert set(rewards[:-1]) <= {0.0}
    discs = info["discs"].tolist()
    assert discs == GAME.scores(env.unwrapped.game_state)["discs"]  # type: ignore[attr-defined]
    mine, theirs = discs[info["seat"]], discs[1 - info["seat"]]
    assert rewards[-1] == (mine > theirs) - (mine < theirs)


def test_the_gymnasium_env_is_repeatable_from_its_seed() -> None:
    import gymnasium

    def play(seed: int) -> list[float]:
        env = gymnasium.make("trap_env/Othello-v0", opponent="greedy", board_size=6)
        env.reset(seed=seed)
        history, done = [], False
        while not done:
            mask = env.unwrapped.action_masks()  # type: ignore[attr-defined]
            _, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
            history += [reward, info["turn"], info["seat"]]
            done = terminated or truncated
        return history

    assert play(5) == play(5)


def test_the_openspiel_adapter_plays_as_openspiels_own_othello() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import trap_env.openspiel  # noqa: F401  (registers every game of the table)

    ours = pyspiel.load_game("python_othello")
    assert ours.num_distinct_actions() == 65 == pyspiel.load_game("othello").num_distinct_actions()
    deterministic = pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert (
        ours.get_type().chance_mode
        == deterministic
        == pyspiel.load_game("othello").get_type().chance_mode
    )
    assert ours.max_chance_outcomes() == 0
    pyspiel.random_sim_test(pyspiel.load_game("python_othello(board_size=6)"), num_sims=5,
                            serialize=False, verbose=False)  # fmt: skip
    for seed in range(3):
        rng = random.Random(seed)
        theirs, state = pyspiel.load_game("othello").new_initial_state(), ours.new_initial_state()
        while not theirs.is_terminal():
            assert state.legal_actions() == theirs.legal_actions()
            assert state.current_player() == theirs.current_player()
            action = rng.choice(theirs.legal_actions())
            theirs.apply_action(action)
            state.apply_action(action)
        assert state.is_terminal() and state.returns() == theirs.returns()


def test_the_match_runner_plays_othello_and_replays_its_record() -> None:
    from agents import make_agent
    from agents.arena.match import play_game, replay

    agents = [make_agent("random", game="othello"), make_agent("greedy", game="othello")]
    params = {"board_size": 6, "end_rule": "course"}
    result = play_game(agents, seed=5, game="othello", params=params, time_budget=None)
    record = result.to_dict()
    assert record["game"] == "othello" and record["rules"] == params
    assert "board_size" not in record and record["reason"] in GAME.end_reasons
    *_, (final, _) = replay(record["actions"], game="othello", params=params)
    assert record["scores"] == GAME.scores(final) and GAME.turn(final) == record["turns"]


def test_a_tournament_of_othello_runs_and_reports(tmp_path) -> None:  # type: ignore[no-untyped-def]
    records = tournament_records(tmp_path, "random", "greedy", "--game", "othello", "--games",
                                 "4", "--time-budget", "none", "--workers", "1")  # fmt: skip
    assert len(records) == 4 and {record["game"] for record in records} == {"othello"}
    assert {record["reason"] for record in records} <= set(GAME.end_reasons)
    assert all(sum(record["scores"]["discs"]) <= 64 for record in records)


TEXT_ANSWER = "rules.action_name(state.board_size, rules.legal_actions(state)[-1])"
"""A program's answer in Othello's action text (``d3``, ``pass``): the last legal action."""


def test_a_program_plays_othello_over_exec_in_action_text(tmp_path: Path) -> None:
    passes = 0
    results = play_text_program(TEXT_ANSWER, tmp_path, "othello", 4, seeds=6, time_budget=2.0)
    for seed, result in enumerate(results):
        assert result.reason in GAME.end_reasons, result.detail
        state = GAME.initial_state(GAME.make_config(board_size=4))
        for action in result.actions:
            passes += action == 16 and state.player == seed % 2  # the program's seat
            state = GAME.apply(state, action)
    assert passes >= 1  # the program passed, in text


def test_each_position_builds_its_placements_at_most_twice(monkeypatch) -> None:
    """What a Gym step asks of a position (its legal actions, mask, outcome, decision,
    observation and a move) builds the placement bitboard of each side once at most (the
    other side's only where the side to act has none)."""
    builds = []
    neighbours = rules._neighbours  # called once per build of a side's placements

    def counted(board_size: int, board: int) -> int:
        builds.append(board)
        return neighbours(board_size, board)

    monkeypatch.setattr(rules, "_neighbours", counted)
    for state in random_game(GAME, seed=3, board_size=6):
        rules.placements.cache_clear()
        builds.clear()
        legal = GAME.legal_actions(state)
        GAME.legal_action_mask(state), GAME.outcome(state, 72), GAME.decision_name(state)
        GAME.observe(state, state.player), GAME.scores(state)
        if legal:
            GAME.apply(state, legal[0])
        assert len(builds) <= 2, GAME.to_text(state)

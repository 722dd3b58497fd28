"""The OpenSpiel game: registration, state-by-state equality with the core, OpenSpiel's tools.

Skipped when the ``openspiel`` extra (package ``open_spiel``) is not installed.
"""

from __future__ import annotations

import doctest
import math
import pickle
import random
import subprocess
import sys
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import rl_environment  # noqa: E402
from open_spiel.python.algorithms import evaluate_bots, mcts  # noqa: E402
from open_spiel.python.algorithms.minimax import expectiminimax  # noqa: E402
from open_spiel.python.bots.uniform_random import UniformRandomBot  # noqa: E402

import trap_env.openspiel  # noqa: E402
import trap_env.trap.openspiel  # noqa: E402
from agents.search.expectimax import Search  # noqa: E402
from agents.trap.evaluation import evaluate  # noqa: E402
from agents.trap.search_game import TrapGame  # noqa: E402
from tests.support.search_oracle import expectimax  # noqa: E402
from trap_env.games import entry_of  # noqa: E402
from trap_env.openspiel import GameSpielGame, GameSpielState  # noqa: E402
from trap_env.trap import core  # noqa: E402
from trap_env.trap.core import Phase, State  # noqa: E402
from trap_env.trap.observation import observe  # noqa: E402
from trap_env.trap.openspiel import (  # noqa: E402
    SHORT_NAME,
    TrapSpielGame,
    TrapSpielState,
)

GameType = pyspiel.GameType


def load(board_size: int = 7, max_turns: int = -1, decay: int = 50) -> pyspiel.Game:
    params = {"board_size": board_size, "decay": decay, "max_turns": max_turns}
    return pyspiel.load_game(SHORT_NAME, params)


# --- Registration, game type and parameters ---------------------------------------------


def test_the_three_ways_to_load_give_the_same_game() -> None:
    assert (
        str(pyspiel.load_game("python_trap")) == "python_trap(board_size=7,decay=50,max_turns=-1)"
    )
    by_dict = pyspiel.load_game("python_trap", {"board_size": 5})
    by_string = pyspiel.load_game("python_trap(board_size=5)")
    assert str(by_dict) == str(by_string) == "python_trap(board_size=5,decay=50,max_turns=-1)"
    assert str(by_string.new_initial_state()) == "..0../...../...../...../..1.. 0 move - 0"


def test_game_type_says_what_the_game_is() -> None:
    game_type = pyspiel.load_game("python_trap").get_type()
    assert game_type.dynamics == GameType.Dynamics.SEQUENTIAL
    assert game_type.chance_mode == GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game_type.information == GameType.Information.PERFECT_INFORMATION
    assert game_type.utility == GameType.Utility.ZERO_SUM
    assert game_type.reward_model == GameType.RewardModel.TERMINAL
    assert game_type.provides_observation_tensor and game_type.provides_information_state_tensor


@pytest.mark.parametrize(
    ("board_size", "max_turns", "turn_limit"), [(7, -1, 196), (5, -1, 100), (4, 10, 10)]
)
def test_game_sizes_follow_the_board_and_the_turn_limit(
    board_size: int, max_turns: int, turn_limit: int
) -> None:
    game = load(board_size, max_turns)
    cells = board_size * board_size
    assert game.num_distinct_actions() == cells
    assert game.max_chance_outcomes() == cells
    assert game.max_game_length() == 2 * turn_limit  # a move and a throw per turn
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    assert game.observation_tensor_shape() == [board_size, board_size, 4]
    assert game.information_state_tensor_shape() == [board_size, board_size, 4]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("python_trap(board_size=2)", "board_size must be an integer from 3 to 1000, got int 2"),
        ("python_trap(max_turns=0)", "max_turns must be a positive integer, or -1"),
        ("python_trap(decay=1001)", "decay must be an integer per mille in 0..1000"),
        ("python_trap(size=5)", "Unknown parameter 'size'"),
    ],
)
def test_bad_parameters_are_named(spec: str, message: str) -> None:
    with pytest.raises((ValueError, pyspiel.SpielError), match=message.replace("(", r"\(")):
        pyspiel.load_game(spec)


def test_building_the_class_directly_checks_parameters_too() -> None:
    assert TrapSpielGame({"board_size": 5}).max_turns == 100
    with pytest.raises(ValueError, match=r"unknown parameters \['size'\]; allowed: "):
        TrapSpielGame({"size": 5})


def test_module_example_runs() -> None:
    assert doctest.testmod(trap_env.openspiel).failed == 0
    assert doctest.testmod(trap_env.trap.openspiel).failed == 0


# --- OpenSpiel's own API checks ----------------------------------------------------------


@pytest.mark.parametrize(("board_size", "max_turns"), [(3, -1), (5, -1), (7, 6)])
def test_openspiel_random_simulation_checks_pass(board_size: int, max_turns: int) -> None:
    pyspiel.random_sim_test(load(board_size, max_turns), num_sims=10, serialize=True, verbose=False)


# --- State by state against the core -----------------------------------------------------


def assert_matches_core(spiel: TrapSpielState, state: State, max_turns: int) -> None:
    """Everything the OpenSpiel state reports agrees with the core state it should hold."""
    assert str(spiel) == core.to_text(state)
    cut = not core.is_terminal(state) and state.phase is Phase.MOVE and state.turn >= max_turns
    if core.is_terminal(state) or cut:
        assert spiel.is_terminal()
        assert spiel.current_player() == pyspiel.PlayerId.TERMINAL
        assert spiel.returns() == list(core.returns(state))
        assert spiel.legal_actions() == []
        return
    assert not spiel.is_terminal()
    assert spiel.returns() == [0.0, 0.0]
    if state.phase is Phase.LANDING:
        assert spiel.is_chance_node()
        assert spiel.chance_outcomes() == sorted(core.chance_outcomes(state))
        assert spiel.legal_actions() == core.legal_actions(state)
        return
    assert spiel.current_player() == state.player
    assert spiel.legal_actions() == core.legal_actions(state)
    assert spiel.legal_actions(1 - state.player) == []
    for player in (0, 1):
        planes = observe(state, player).ravel().tolist()
        assert spiel.observation_tensor(player) == planes
        assert spiel.information_state_tensor(player) == planes
        assert spiel.observation_string(player) == core.to_text(state)


@settings(max_examples=100)
@given(
    board_size=st.integers(3, 6),
    max_turns=st.integers(1, 40),
    decay=st.sampled_from((50, 0, 1000)) | st.integers(0, 1000),
    data=st.data(),
)
def test_every_state_of_a_random_game_matches_the_core(
    board_size: int, max_turns: int, decay: int, data: st.DataObject
) -> None:
    game = load(board_size, max_turns, decay)
    spiel = game.new_initial_state()
    state = core.initial_state(core.GameConfig(board_size, decay))
    num_decisions = 0
    while True:
        assert_matches_core(spiel, state, max_turns)
        if spiel.is_terminal():
            break
        num_decisions += state.phase is not Phase.LANDING
        action = data.draw(st.sampled_from(core.legal_actions(state)))
        spiel.apply_action(action)
        state = core.apply(state, action)
    assert (spiel.returns() == [0.0, 0.0]) == (core.winner(state) is None)
    assert num_decisions <= game.max_game_length()


def test_game_cut_at_the_turn_limit_returns_zero_for_both() -> None:
    spiel = load(7, max_turns=1).new_initial_state()
    for action in (2, 24, 24):  # move to (0, 2), throw at the centre, land there
        spiel.apply_action(action)
    assert spiel.is_terminal()
    assert spiel.returns() == [0.0, 0.0]
    assert str(spiel) == "..0..../......./......./...x.../......./......./...1... 1 move - 1"


@pytest.mark.parametrize(("decay", "on_target"), [(50, 0.95), (0, 1.0), (100, 0.9)])
def test_decay_sets_the_odds_of_landing_on_target(decay: int, on_target: float) -> None:
    spiel = load(5, decay=decay).new_initial_state()
    spiel.apply_action(7)
    spiel.apply_action(17)  # two steps away
    outcomes = dict(spiel.chance_outcomes())
    assert outcomes[17] == on_target
    assert math.isclose(sum(outcomes.values()), 1.0)
    assert len(outcomes) == (1 if decay == 0 else 8)


def test_a_chance_node_shows_the_planes_of_the_throw_it_follows() -> None:
    spiel = load(5).new_initial_state()
    spiel.apply_action(7)
    throw_planes = spiel.observation_tensor(1)
    spiel.apply_action(17)
    assert spiel.is_chance_node()
    assert spiel.observation_tensor(1) == throw_planes
    assert spiel.information_state_string(0) == "...../..0../...../...../..1.. 0 landing 3,2 0"


def test_actions_read_as_move_throw_and_land() -> None:
    spiel = load(5).new_initial_state()
    assert spiel.action_to_string(0, 7) == "move 1,2"
    spiel.apply_action(7)
    assert spiel.action_to_string(0, 17) == "throw 3,2"
    spiel.apply_action(17)
    assert spiel.action_to_string(pyspiel.PlayerId.CHANCE, 16) == "land 3,1"


def test_observer_rejects_parameters() -> None:
    with pytest.raises(ValueError, match="no observation parameters"):
        load(5).make_py_observer(None, {"planes": 3})


def test_illegal_action_raises_the_cores_error() -> None:
    spiel = load(5).new_initial_state()
    with pytest.raises(core.IllegalActionError, match="illegal action 12"):
        spiel.apply_action(12)


def play_randomly(spiel: TrapSpielState, rng: random.Random, num_actions: int) -> None:
    """Apply up to ``num_actions`` random actions, chance drawn from its distribution."""
    for _ in range(num_actions):
        if spiel.is_terminal():
            return
        if spiel.is_chance_node():
            cells, probabilities = zip(*spiel.chance_outcomes(), strict=True)
            spiel.apply_action(rng.choices(cells, probabilities)[0])
        else:
            spiel.apply_action(rng.choice(spiel.legal_actions()))


@pytest.mark.parametrize("seed", range(6))
def test_states_serialize_pickle_and_clone(seed: int) -> None:
    rng = random.Random(seed)
    game = load(rng.choice((3, 5, 7)))
    spiel = game.new_initial_state()
    play_randomly(spiel, rng, rng.randint(0, 30))
    text = pyspiel.serialize_game_and_state(game, spiel)
    copies = [pyspiel.deserialize_game_and_state(text)[1], pickle.loads(pickle.dumps(spiel))]
    copies.append(spiel.clone())
    for copy in copies:
        assert str(copy) == str(spiel)
        assert copy.history() == spiel.history()
        assert copy.game_state == spiel.game_state
    if not spiel.is_terminal():
        action = spiel.legal_actions()[0]
        for state in [spiel, *copies]:
            state.apply_action(action)
        assert len({str(state) for state in [spiel, *copies]}) == 1


# --- OpenSpiel's algorithms on the game ---------------------------------------------------


def test_mcts_plays_whole_games_against_uniform_random() -> None:
    """MCTS (chance sampled in its tree and rollouts) against random, seats alternating."""
    game = load(4)
    chance_rng = np.random.RandomState(7)
    mcts_score = 0.0
    num_games = 6
    for index in range(num_games):
        mcts_seat = index % 2
        evaluator = mcts.RandomRolloutEvaluator(random_state=np.random.RandomState(index))
        searcher = mcts.MCTSBot(
            game, 2.0, 40, evaluator, random_state=np.random.RandomState(100 + index)
        )
        opponent = UniformRandomBot(1 - mcts_seat, np.random.RandomState(200 + index))
        bots = [searcher, opponent] if mcts_seat == 0 else [opponent, searcher]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, chance_rng)
        assert returns[0] in (-1.0, 0.0, 1.0) and returns[0] + returns[1] == 0
        mcts_score += returns[mcts_seat]
    # Seeded, so the outcome is fixed (MCTS wins all six); the margin is for other platforms.
    assert mcts_score >= num_games - 2


def horizon_value(maximizer: int) -> Callable[[TrapSpielState], float]:
    """OpenSpiel's leaf value matching the oracle's horizon, for ``maximizer``.

    Both searches count decisions only, but OpenSpiel's ``expectiminimax`` stops at depth
    0 even on a chance node, while the oracle still averages the landings there and scores
    each resulting position; so at a chance node this leaf value does that averaging.
    """

    def static_value(state: State) -> float:
        if core.is_terminal(state):
            return 1.0 if state.winner == maximizer else -1.0
        return evaluate(state, maximizer)  # antisymmetric: the oracle's view, negated

    def value(spiel: TrapSpielState) -> float:
        state = spiel.game_state
        if state.phase is Phase.LANDING:
            return sum(
                p * static_value(core.apply(state, cell)) for cell, p in core.chance_outcomes(state)
            )
        return static_value(state)

    return value


def same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize(("board_size", "max_depth"), [(3, 3), (4, 3)])
def test_our_search_values_equal_openspiel_expectiminimax(board_size: int, max_depth: int) -> None:
    rng = random.Random(board_size)
    game = load(board_size)
    for _ in range(12):
        spiel = game.new_initial_state()
        play_randomly(spiel, rng, rng.randint(0, 9))
        if spiel.is_terminal():
            continue
        state = spiel.game_state
        for depth in range(1, max_depth + 1):
            theirs, _ = expectiminimax(spiel, depth, horizon_value(state.player), state.player)
            where = (core.to_text(state), depth)
            assert same(theirs, expectimax(state, depth)), where
            if state.phase is not Phase.LANDING:  # our search starts at decision nodes
                ours = Search(TrapGame(throw_filter=False)).value(state, depth)
                assert same(theirs, ours), where


def test_rl_environment_runs_random_episodes() -> None:
    game = load(4)
    sampler = rl_environment.ChanceEventSampler(seed=3)
    env = rl_environment.Environment(game, chance_event_sampler=sampler)
    assert env.action_spec()["num_actions"] == 16
    rng = random.Random(3)
    for _ in range(5):
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            assert len(time_step.observations["info_state"][player]) == 4 * 4 * 4
            legal = time_step.observations["legal_actions"][player]
            time_step = env.step([rng.choice(legal)])
        assert time_step.rewards in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("trap", {"board_size": 4}),
        ("othello", {"board_size": 6}),
        ("colosseum", {"board_size": 4, "start": 1}),
        ("colosseum", {"board_size": 4}),
    ],
)
def test_every_game_of_the_table_loads_right_after_the_import(name: str, params: dict) -> None:
    """``import trap_env.openspiel`` alone registers each game's short name (in a fresh
    process, so that no test registered it before), and each passes OpenSpiel's checks."""
    code = (
        "import pyspiel, trap_env.openspiel\n"
        f"game = pyspiel.load_game('python_{name}')\n"
        "print(game.get_type().short_name, game.game.name)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == [f"python_{name}", name]
    game = pyspiel.load_game(f"python_{name}", params)
    assert isinstance(game, GameSpielGame) and game.game.name == name
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


@pytest.mark.parametrize(
    ("name", "params"),
    [("trap", {"board_size": 4, "max_turns": 6}), ("othello", {"board_size": 4}),
     ("colosseum", {"board_size": 4, "start": 1, "max_turns": 6})],
)  # fmt: skip
def test_the_answers_a_state_keeps_are_the_rules_answers(name: str, params: dict) -> None:
    """The player to act, kept beside the state, and the answers read from it (Python's
    ``legal_actions`` and ``is_chance_node`` too) are the game's own, as OpenSpiel's C++
    gives them, after actions, clones, pickles and deserializing (Colosseum from a fixed
    start: its drawn start lists 65,536 outcomes)."""
    game = pyspiel.load_game(f"python_{name}", params)
    rules, rng = game.game, random.Random(5)
    for _ in range(3):
        state = game.new_initial_state()
        while True:
            copies = [state.clone(), pickle.loads(pickle.dumps(state)),
                      pyspiel.deserialize_game_and_state(
                          pyspiel.serialize_game_and_state(game, state))[1]]  # fmt: skip
            for seen in [state, *copies]:
                ended = rules.outcome(seen.game_state, game.max_turns) is not None
                chance = not ended and rules.is_chance(seen.game_state)
                player = rules.current_player(seen.game_state)
                expected = -4 if ended else -1 if chance else player
                assert (seen.current_player(), seen.is_terminal()) == (expected, ended)
                assert seen.is_chance_node() == pyspiel.State.is_chance_node(seen) == chance
                for asked in [(), (0,), (1,), (expected,)]:
                    assert seen.legal_actions(*asked) == pyspiel.State.legal_actions(seen, *asked)
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))


def test_the_table_names_trap_s_short_name() -> None:
    entry = entry_of("trap")
    assert entry is not None and entry.spiel_name == SHORT_NAME


def test_python_trap_is_the_generic_spiel_game_of_trap() -> None:
    game = pyspiel.load_game("python_trap(board_size=5)")
    assert isinstance(game, GameSpielGame)
    assert isinstance(game.new_initial_state(), GameSpielState)
    assert game.game.name == "trap"


def test_seeded_spiel_game_replays_the_env_game() -> None:
    spiel = pyspiel.load_game("python_trap(board_size=5,max_turns=30)").new_initial_state()
    rng = random.Random(7)
    play_randomly(spiel, rng, 25)
    state = core.initial_state(core.GameConfig(board_size=5))
    for action in spiel.history():
        state = core.apply(state, action)
    assert spiel.game_state == state
    assert spiel.returns() == list(core.returns(state))


# --- States that enter are checked --------------------------------------------------------


def _with_state(serialized: str, state: State) -> str:
    """``serialized`` with its state's attributes replaced, as a crafted file would be."""
    import base64
    import re

    attributes = {"game": trap_env.trap.openspiel.GAME, "game_state": state, "max_turns": 100}
    encoded = base64.b64encode(pickle.dumps(attributes)).decode()
    return re.sub(r"__dict__=.*", lambda _: f"__dict__={encoded}", serialized)


def test_an_imported_state_is_checked_by_the_game() -> None:
    game = pyspiel.load_game("python_trap(board_size=5)")
    state = game.new_initial_state()
    state.apply_action(7)
    serialized = pyspiel.serialize_game_and_state(game, state)
    bad = state.game_state._replace(cells=(3, 3))
    with pytest.raises(ValueError, match="both players stand on cell 3"):
        pyspiel.deserialize_game_and_state(_with_state(serialized, bad))
    with pytest.raises(ValueError, match="both players stand on cell 3"):
        state.game_state = bad
    assert str(state) == str(pyspiel.deserialize_game_and_state(serialized)[1])


def test_action_to_string_refuses_an_action_out_of_range() -> None:
    state = pyspiel.load_game("python_trap(board_size=5)").new_initial_state()
    for action in (25, -1, 10**6):
        with pytest.raises(ValueError, match=r"action .* is out of range 0\.\.24"):
            state.action_to_string(0, action)
    with pytest.raises(ValueError, match=r"chance outcome 25 is out of range 0\.\.24"):
        state.action_to_string(pyspiel.PlayerId.CHANCE, 25)
    assert state.action_to_string(0, 24) == "move 4,4"


def test_every_game_has_a_short_name_one_without_its_own_registered_on_first_use() -> None:
    """openspiel-mcts and check_game load any game by it, a game named by its path too."""
    from tests.support.toy_game import Race
    from trap_env.games import get_game
    from trap_env.openspiel import spiel_name_of

    class Elsewhere(Race):
        name = "race_spiel_elsewhere"  # registered nowhere

    assert spiel_name_of(get_game("othello")) == "python_othello"
    assert "python_race_spiel_elsewhere" not in pyspiel.registered_names()
    assert spiel_name_of(Elsewhere()) == "python_race_spiel_elsewhere"
    state = pyspiel.load_game("python_race_spiel_elsewhere", {"goal": 3}).new_initial_state()
    assert state.legal_actions() == [0, 1]

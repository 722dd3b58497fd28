"""Tests of trap_env.gym_env: API checkers, determinism, rollouts with invariants, errors."""

from __future__ import annotations

import copy
import hashlib
import pickle
import re
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env

import trap_env
from tests.support.env_contract import (
    CHANCE_KEYS,
    GYM_KEYS,
    StateQuestions,
    play_gym_episode,
    refused_action,
)
from tests.support.far_throws import far_target
from tests.support.game_runs import random_decision_states
from tests.support.games import every_game, game_object, small_rules
from tests.support.replay_elsewhere import digest_in_another_process
from tests.support.toy_game import GAMBLE, ChanceShown, Walker
from trap_env.agent import UnsupportedGameError
from trap_env.game import played_params
from trap_env.games import entry_of
from trap_env.gym_env import GameEnv, OpponentError
from trap_env.trap.core import (
    DEFAULT_DECAY,
    GameConfig,
    IllegalActionError,
    Phase,
    State,
    apply,
    from_text,
    initial_state,
    legal_actions,
    resolve_turn_limit,
    validate_state,
)
from trap_env.trap.game import GAME as TRAP
from trap_env.trap.gym_env import TrapEnv
from trap_env.trap.observation import observe


def first_legal(state: State) -> int:
    """A deterministic opponent: the lowest legal cell."""
    return legal_actions(state)[0]


class CountingAgent:
    """An opponent object that records its resets and plays the highest legal cell."""

    def __init__(self) -> None:
        self.seeds: list[int | None] = []

    def reset(self, seed: int | None = None) -> None:
        self.seeds.append(seed)

    def select_action(self, state: State) -> int:
        return legal_actions(state)[-1]


def play_digest(num_games: int = 6, board_size: int = 5, **kwargs: int) -> str:
    """Play seeded games with actions from a seeded generator; hash every step's output."""
    env = gymnasium.make("trap_env/Trap-v0", board_size=board_size, **kwargs)
    rng = np.random.default_rng(1234)
    digest = hashlib.sha256()
    for game in range(num_games):
        observation, info = env.reset(seed=game)
        done = False
        while not done:
            digest.update(observation.tobytes() + info["action_mask"].tobytes())
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            observation, reward, terminated, truncated, info = env.step(action)
            # The turn as it was recorded, a Python int (NumPy's np.int64 now).
            turn = int(info["turn"])
            digest.update(repr((action, reward, terminated, truncated, turn)).encode())
            done = terminated or truncated
    return digest.hexdigest()


# --- Checkers and registration --------------------------------------------------------


@pytest.mark.parametrize("render_mode", [None, "ansi", "rgb_array"])
def test_gymnasium_check_env_passes_without_warnings(render_mode: str | None) -> None:
    env = gymnasium.make("trap_env/Trap-v0", board_size=5, render_mode=render_mode)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)


def test_sb3_check_env_warns_only_about_the_fixed_image_like_shape() -> None:
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_checker.check_env(TrapEnv(board_size=5), warn=True)
    # The (N, N, 4) int8 planes are a fixed contract; SB3 guesses that any 3-D Box is an
    # image and says so. Anything else would be a warning we could have avoided.
    unexpected = [
        str(w.message)
        for w in caught
        if "image" not in str(w.message) and "36x36" not in str(w.message)
    ]
    assert unexpected == []


def test_make_registers_the_id_with_the_documented_defaults() -> None:
    env = gymnasium.make("trap_env/Trap-v0")
    unwrapped = env.unwrapped
    assert isinstance(unwrapped, TrapEnv)
    assert env.spec is not None and env.spec.entry_point == "trap_env.entry_points:env@trap"
    assert unwrapped.observation_space == gymnasium.spaces.Box(0, 1, (7, 7, 4), np.int8)
    assert unwrapped.action_space == gymnasium.spaces.Discrete(49)
    assert unwrapped.max_turns == 4 * 7 * 7
    assert trap_env.TrapEnv is TrapEnv


def test_truncation_limit_defaults_to_four_n_squared() -> None:
    assert resolve_turn_limit(None, 5) == 100
    assert resolve_turn_limit(7, 5) == 7


# --- Determinism ----------------------------------------------------------------------


def test_same_seed_and_actions_give_the_same_trajectory() -> None:
    assert play_digest() == play_digest()


def test_same_seed_gives_the_same_trajectory_in_another_process() -> None:
    assert digest_in_another_process(__name__, "12345") == play_digest()


def test_the_default_game_for_a_seed_is_the_one_v0_always_played() -> None:
    # Pinned before decay became a parameter: a change here needs a new env version.
    assert play_digest() == V0_DIGEST
    assert play_digest(decay=DEFAULT_DECAY) == V0_DIGEST


V0_DIGEST = "82b795c7f5768bc0418d898b934defdf60216968ecdd86fd4b79bcab10189e70"


def test_different_seeds_give_different_games() -> None:
    env = TrapEnv(board_size=5, seat=0)
    games = set()
    for seed in range(5):
        env.reset(seed=seed)
        trajectory = []
        done = False
        while not done:
            _, _, terminated, truncated, _ = env.step(first_legal(env.game_state))
            trajectory.append(env.game_state)
            done = terminated or truncated
        games.add(tuple(trajectory))
    assert len(games) > 1


def test_a_copy_or_pickle_carries_on_the_same_game() -> None:
    env = TrapEnv(board_size=5)
    env.reset(seed=7)
    for _ in range(3):
        env.step(first_legal(env.game_state))
    twins = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    for twin in [env, *twins]:
        assert twin.game_state == env.game_state
    outputs = [_play_out(twin) for twin in [env, *twins]]
    assert outputs[0] == outputs[1] == outputs[2]


def _play_out(env: TrapEnv) -> list[tuple[State, float]]:
    steps = []
    done = False
    while not done:
        _, reward, terminated, truncated, _ = env.step(first_legal(env.game_state))
        steps.append((env.game_state, reward))
        done = terminated or truncated
    return steps


# --- Random rollouts with invariants ---------------------------------------------------


@pytest.mark.parametrize(("board_size", "num_games"), [(3, 800), (4, 500), (5, 300), (7, 60)])
def test_random_masked_rollouts_keep_every_invariant(board_size: int, num_games: int) -> None:
    env = TrapEnv(board_size=board_size)
    rng = np.random.default_rng(board_size)
    outcomes = set()
    for game in range(num_games):
        observation, info = env.reset(seed=game)
        done = False
        while not done:
            _check_decision_point(env, observation, info)
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            observation, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            assert observation in env.observation_space
            assert not (terminated and truncated)
            expected = 0.0 if not terminated else 1.0 if env.game_state.winner == env.seat else -1.0
            assert reward == expected
            assert env.game_state.turn <= env.max_turns
        outcomes.add(reward)
        assert info["action_mask"].all()  # the episode is over: all ones
    assert outcomes >= {-1.0, 1.0}


def _check_decision_point(env: TrapEnv, observation: np.ndarray, info: dict) -> None:
    state = env.game_state
    validate_state(state)
    assert state.player == env.seat and state.phase in (Phase.MOVE, Phase.THROW)
    assert info["phase"] == state.phase.value == TRAP.decision_names.index(state.phase.name.lower())
    assert np.array_equal(observation, observe(state, env.seat))
    mask = info["action_mask"]
    assert mask.dtype == np.int8 and mask.any()
    assert np.flatnonzero(mask).tolist() == legal_actions(state)
    assert np.array_equal(env.action_masks(), mask.astype(bool))


def test_truncation_at_max_turns_gives_zero_reward() -> None:
    env = TrapEnv(board_size=7, max_turns=2, opponent=first_legal, seat=0)
    env.reset(seed=0)
    rewards = []
    truncated = terminated = False
    while not (terminated or truncated):
        _, reward, terminated, truncated, _ = env.step(legal_actions(env.game_state)[-1])
        rewards.append(reward)
    assert truncated and not terminated
    assert env.game_state.turn == 2 and rewards[-1] == 0.0


def test_a_throw_reports_its_target_and_landing_and_the_opponents() -> None:
    env = TrapEnv(board_size=7, seat=0, opponent=first_legal)
    env.reset(seed=3)
    _, _, _, _, info = env.step(legal_actions(env.game_state)[0])
    assert info["phase"] == Phase.THROW and info["target"] == info["landing"] == -1
    _, _, _, _, info = env.step(24)
    assert info["target"] == 24 and info["landing"] in {24, 16, 17, 18, 23, 25, 30, 31, 32}
    assert info["opponent_target"] == 0 and info["opponent_landing"] in {0, 1, 7, 8}
    assert info["phase"] == Phase.MOVE and info["turn"] == 2


def test_the_learner_as_player_1_starts_after_the_opponents_first_turn() -> None:
    env = TrapEnv(board_size=5, seat=1, opponent=first_legal)
    observation, info = env.reset(seed=0)
    assert env.game_state.player == 1 and env.game_state.turn == 1 and info["seat"] == 1
    assert info["opponent_target"] != -1 and info["target"] == -1
    assert observation[4, 2, 0] == 1  # the learner, player 1, is plane 0


def test_random_seat_draws_both_seats() -> None:
    env = TrapEnv(board_size=5)
    seats = {env.reset(seed=seed)[1]["seat"] for seed in range(20)}
    assert seats == {0, 1}


# --- Opponents -------------------------------------------------------------------------


def test_opponent_object_is_reset_with_a_seed_from_np_random() -> None:
    agent = CountingAgent()
    env = TrapEnv(board_size=5, opponent=agent, seat=1)
    env.reset(seed=11)
    env.reset(seed=11)
    assert len(agent.seeds) == 2 and agent.seeds[0] == agent.seeds[1] is not None
    assert env.game_state.cells[0] == legal_actions(initial_state(GameConfig(5)))[-1]


def test_opponent_spec_string_replays_with_the_env_seed() -> None:
    env = TrapEnv(board_size=5, opponent="random", seat=1)
    first = [env.reset(seed=5)[0].tobytes() for _ in range(2)]
    assert first[0] == first[1]


def test_set_opponent_swaps_the_opponent() -> None:
    env = TrapEnv(board_size=5, seat=1, opponent=first_legal)
    start_moves = legal_actions(initial_state(GameConfig(5)))
    env.reset(seed=0)
    assert env.game_state.cells[0] == start_moves[0]
    env.set_opponent(CountingAgent())
    env.reset(seed=0)
    assert env.game_state.cells[0] == start_moves[-1]


def blunder(state: State) -> int:
    """An opponent that answers cell 0: illegal as player 0's first move on 5x5."""
    return 0


class FailsOnTurn:
    """An opponent that plays the lowest legal cell, then fails at ``turn``: raises or blunders."""

    def __init__(self, turn: int, how: str) -> None:
        self.turn, self.how = turn, how

    def select_action(self, state: State) -> int:
        if state.turn < self.turn:
            return legal_actions(state)[0]
        if self.how == "raise":
            raise ZeroDivisionError("the opponent's bug")
        return state.cells[state.player]  # its own cell: never legal


def test_an_opponent_failing_in_reset_raises_naming_the_opponent() -> None:
    env = TrapEnv(board_size=5, seat=1, opponent=blunder)
    with pytest.raises(OpponentError, match=r"opponent .*blunder.* erred: illegal action 0"):
        env.reset(seed=0)
    with pytest.raises(RuntimeError, match="the opponent failed"):
        env.step(1)


@pytest.mark.parametrize("how", ["raise", "illegal"])
@pytest.mark.parametrize("seat", [0, 1])
def test_an_opponent_failing_in_step_truncates_the_episode(how: str, seat: int) -> None:
    env = TrapEnv(board_size=7, seat=seat, opponent=FailsOnTurn(3, how))
    env.reset(seed=0)
    with pytest.warns(RuntimeWarning, match="opponent") as caught:
        while True:
            action = legal_actions(env.game_state)[0]
            observation, reward, terminated, truncated, info = env.step(action)
            if info["opponent_fault"]:
                break
            assert not (terminated or truncated)
    assert (reward, terminated, truncated) == (0.0, False, True)
    assert ("ZeroDivisionError" if how == "raise" else "illegal action") in str(caught[0].message)
    assert info["action_mask"].all() and observation in env.observation_space
    before = env.game_state
    with pytest.raises(RuntimeError, match="the opponent failed"):
        env.step(legal_actions(before)[0] if legal_actions(before) else 0)
    assert env.game_state == before  # the learner's action never became the opponent's
    env.set_opponent(first_legal)
    env.reset(seed=1)
    assert env.step(legal_actions(env.game_state)[0])[3] is False


@pytest.mark.parametrize(
    "make",
    [lambda: TrapEnv(board_size=5), lambda: gymnasium.make("trap_env/Trap-v0", board_size=5)],
    ids=["direct", "gymnasium.make"],
)
def test_direct_use_refuses_step_before_reset(make) -> None:  # type: ignore[no-untyped-def]
    env = make()
    with pytest.raises(ResetNeeded, match="reset"):
        env.step(1)
    env.reset(seed=0)
    env.step(legal_actions(env.unwrapped.game_state)[0])


def test_set_game_state_is_a_start_too() -> None:
    env = TrapEnv(board_size=5, seat=0)
    env.set_game_state(initial_state(GameConfig(5)))
    env.step(legal_actions(env.game_state)[0])


class FiveOnly:
    """An agent that declares it plays 5x5 boards only."""

    def check_game(self, config: GameConfig) -> None:
        if config.board_size != 5:
            raise UnsupportedGameError(
                f"plays 5x5 only, not {config.board_size}x{config.board_size}"
            )

    def select_action(self, state: State) -> int:
        return legal_actions(state)[0]


def test_an_opponent_that_cannot_play_the_board_is_refused() -> None:
    TrapEnv(board_size=5, opponent=FiveOnly())
    with pytest.raises(UnsupportedGameError, match="5x5 only"):
        TrapEnv(board_size=7, opponent=FiveOnly())
    env = TrapEnv(board_size=7)
    with pytest.raises(UnsupportedGameError, match="5x5 only"):
        env.set_opponent(FiveOnly())


def test_the_bundled_7x7_ppo_is_refused_in_a_5x5_env() -> None:
    pytest.importorskip("sb3_contrib")
    from agents.rl.ppo import PPOAgent

    if not hasattr(PPOAgent, "check_game"):
        pytest.skip("PPOAgent does not declare its board yet (check_game)")
    with pytest.raises(UnsupportedGameError, match="7x7"):
        TrapEnv(board_size=5, opponent="ppo")


# --- Illegal actions and errors --------------------------------------------------------


@pytest.mark.parametrize("action", [0, 24, 99, -1])
def test_an_illegal_action_loses_by_default(action: int) -> None:
    env = TrapEnv(board_size=5, seat=0)
    env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert observation in env.observation_space and info["action_mask"].all()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(1)


def test_an_illegal_action_raises_with_illegal_action_raise() -> None:
    env = TrapEnv(board_size=5, seat=0, illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="illegal action 0"):
        env.step(0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seat": 2}, "seat must be 0, 1 or None"),
        ({"board_size": 2}, "board_size must be an integer from 3 to "),
        ({"max_turns": 0}, "max_turns must be a positive integer"),
        ({"decay": -1}, r"decay must be an integer per mille in 0\.\.1000"),
        ({"decay": 1001}, r"decay must be an integer per mille in 0\.\.1000"),
        ({"decay": 0.5}, r"decay must be an integer per mille in 0\.\.1000"),
        ({"illegal_action": "ignore"}, "illegal_action must be one of"),
        ({"render_mode": "svg"}, "render_mode must be None or one of"),
    ],
)
def test_bad_arguments_say_what_is_allowed(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TrapEnv(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seat": 1.0}, "seat must be 0, 1 or None (random each reset), got float 1.0"),
        ({"seat": True}, "seat must be 0, 1 or None (random each reset), got bool True"),
        ({"seat": "1"}, "seat must be 0, 1 or None (random each reset), got str '1'"),
        ({"game": 3}, "game must be a game's name ("),
        ({"game": None}, "game must be a game's name ("),
    ],
)
def test_wrong_types_are_refused_naming_the_argument(kwargs: dict, message: str) -> None:
    with pytest.raises(TypeError, match=re.escape(message)):
        GameEnv(**{"game": "trap", **kwargs})


def test_numpy_integer_seats_are_seats() -> None:
    assert TrapEnv(seat=np.int64(1)).fixed_seat == 1


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"seed": "1"}, "seed must be an integer or None, got str '1'"),
        ({"seed": 1.0}, "seed must be an integer or None, got float 1.0"),
        ({"options": "x"}, "options must be a dict or None, got str 'x'"),
    ],
)
def test_reset_refuses_wrong_types_naming_the_argument(arguments: dict, message: str) -> None:
    with pytest.raises(TypeError, match=re.escape(message)):
        TrapEnv().reset(**arguments)


def test_a_numpy_integer_seed_is_the_same_seed() -> None:
    first, second = TrapEnv(board_size=5), TrapEnv(board_size=5)
    assert np.array_equal(first.reset(seed=np.int64(3))[0], second.reset(seed=3)[0])
    assert first.game_state == second.game_state


def test_bad_opponents_say_what_is_allowed() -> None:
    with pytest.raises(TypeError, match="spec string"):
        TrapEnv(opponent=42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown agent"):
        TrapEnv(opponent="no_such_agent")


# --- Rule variants ------------------------------------------------------------------------


@pytest.mark.parametrize(("decay", "lands_on_target"), [(0, True), (1000, False)])
def test_decay_decides_where_far_throws_land(decay: int, lands_on_target: bool) -> None:
    # decay 0: every throw lands on its target; 1000: none two or more steps away does.
    env = gymnasium.make("trap_env/Trap-v0", board_size=5, seat=0, decay=decay)
    rng = np.random.default_rng(0)
    num_throws = 0
    for seed in range(4):
        _, info = env.reset(seed=seed)
        assert env.unwrapped.game_state.decay == decay
        done = False
        while not done:
            action = far_target(env.unwrapped.game_state)
            if action is None:
                action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, terminated, truncated, info = env.step(action)
            if info["target"] != -1:
                num_throws += 1
                assert bool(info["landing"] == info["target"]) is lands_on_target
            done = terminated or truncated
    assert num_throws > 10


def test_set_game_state_refuses_a_state_of_another_decay() -> None:
    env = TrapEnv(board_size=5, decay=0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="decay 50, this env plays board_size 5 and decay 0"):
        env.set_game_state(initial_state(GameConfig(5)))
    env.set_game_state(initial_state(GameConfig(5, decay=0)))


# --- set_game_state --------------------------------------------------------------------


def test_set_game_state_continues_from_the_given_position() -> None:
    env = TrapEnv(board_size=5, seat=0, opponent=first_legal)
    env.reset(seed=0)
    state = from_text("..0../...../..x../...../..1.. 0 throw - 3")
    observation, info = env.set_game_state(state)
    assert env.game_state == state and info["phase"] == Phase.THROW
    assert observation[2, 2, 2] == 1 and observation[0, 0, 3] == 1


def test_set_game_state_lets_the_opponent_play_to_the_learners_turn() -> None:
    env = TrapEnv(board_size=5, seat=1, opponent=first_legal)
    env.reset(seed=0)
    env.set_game_state(initial_state(GameConfig(5)))
    assert env.game_state.player == 1 and env.game_state.turn == 1


def test_set_game_state_rejects_landing_states_and_other_board_sizes() -> None:
    env = TrapEnv(board_size=5)
    env.reset(seed=0)
    landing = apply(apply(initial_state(GameConfig(5)), 1), 12)
    with pytest.raises(ValueError, match="LANDING"):
        env.set_game_state(landing)
    with pytest.raises(ValueError, match="board_size 7"):
        env.set_game_state(initial_state())


# --- Rendering and closing ---------------------------------------------------------------


def test_render_modes_return_text_and_images() -> None:
    text_env = TrapEnv(board_size=5, render_mode="ansi")
    text_env.reset(seed=0)
    assert "turn" in text_env.render()
    image_env = TrapEnv(board_size=5, render_mode="rgb_array")
    image_env.reset(seed=0)
    image = image_env.render()
    assert image.dtype == np.uint8 and image.shape == (240, 240, 3)


def test_close_twice_is_fine() -> None:
    env = TrapEnv(board_size=5)
    env.reset(seed=0)
    env.close()
    env.close()


# --- Training ----------------------------------------------------------------------------


def test_set_opponent_works_through_a_vec_env() -> None:
    vec_env_module = pytest.importorskip("stable_baselines3.common.vec_env")
    vec_env = vec_env_module.DummyVecEnv([lambda: TrapEnv(board_size=5, seat=1)])
    agent = CountingAgent()
    vec_env.env_method("set_opponent", agent)
    vec_env.reset()
    assert agent.seeds and vec_env.env_method("action_masks")[0].dtype == bool


def test_maskable_ppo_trains_a_few_steps() -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", TrapEnv(board_size=5), n_steps=64, batch_size=32, n_epochs=1, seed=0
    )
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256


def test_the_docstring_has_gymnasiums_sections() -> None:
    for section in GYMNASIUM_SECTIONS:
        assert f"## {section}" in (TrapEnv.__doc__ or "")


GYMNASIUM_SECTIONS = (
    "Description",
    "Action Space",
    "Observation Space",
    "Starting State",
    "Rewards",
    "Episode End",
    "Arguments",
    "Version History",
)


def test_the_env_closes_an_opponent_it_built_and_only_that_one() -> None:
    from tests.support.faulty_agents import ClosingAgent

    ClosingAgent.closed.clear()
    env = TrapEnv(opponent="tests.support.faulty_agents.ClosingAgent", seat=0)
    built = env._opponent
    env.set_opponent("random")  # replacing an opponent the env built ends it
    assert ClosingAgent.closed == [built]
    mine = ClosingAgent()
    env.set_opponent(mine)
    env.close()  # an opponent given as an object is the caller's to close
    assert ClosingAgent.closed == [built]
    env.set_opponent("tests.support.faulty_agents.ClosingAgent")
    env.close()
    assert len(ClosingAgent.closed) == 2 and ClosingAgent.closed[1] is not mine


# --- The generic adapter ---------------------------------------------------------------


def _last_legal_trace(env: GameEnv) -> list[object]:
    """Seed 3, the learner always plays its highest legal action: what each step returns."""
    _, info = env.reset(seed=3)
    trace: list[object] = [info["seat"]]
    while True:
        action = int(np.flatnonzero(info["action_mask"])[-1])
        _, reward, terminated, truncated, info = env.step(action)
        trace.append((info.get("landing"), info.get("opponent_landing"), reward))
        if terminated or truncated:
            return trace


def test_trap_env_is_the_generic_env_of_trap() -> None:
    env = TrapEnv(board_size=5)
    assert isinstance(env, GameEnv)
    assert env.game.name == "trap"


def test_seeded_trap_episode_replays_the_recorded_one() -> None:
    trace = _last_legal_trace(TrapEnv(opponent="random", board_size=5))
    opponent_landings = [17, 15, 11, 13, 16, 3, 8, 12, 2, 7, 9, 1, 6, 4, 18, 20, 21, 14, 16, 23]
    assert trace[0] == 1
    assert [step[1] for step in trace[2::2]] == opponent_landings  # type: ignore[index]
    assert trace[-1] == (24, 23, -1.0)


def test_generic_env_plays_trap_as_trap_env_does() -> None:
    generic = GameEnv("trap", opponent="random", board_size=5)
    trap = TrapEnv(opponent="random", board_size=5)
    generic_rewards = [step[-1] for step in _last_legal_trace(generic)[1:]]  # type: ignore[index]
    trap_rewards = [step[-1] for step in _last_legal_trace(trap)[1:]]  # type: ignore[index]
    assert generic_rewards == trap_rewards
    assert generic.game_state == trap.game_state


def test_register_gym_env_names_the_id_after_the_title() -> None:
    with pytest.warns(DeprecationWarning, match="register_gym_env is deprecated"):
        assert trap_env.register_gym_env("trap") == "trap_env/Trap-v0"
    assert gymnasium.spec("trap_env/Trap-v0").entry_point == "trap_env.entry_points:env@trap"


def test_self_play_is_refused_with_where_it_exists() -> None:
    from trap_env.agent import SpecError

    with pytest.raises(SpecError, match="batched env's mode"):
        gymnasium.make("trap_env/Trap-v0", opponent="self")


@pytest.mark.parametrize("env_id", ["Trap-v0", "Othello-v0", "Colosseum-v0"])
def test_the_module_prefixed_id_works_in_spawned_workers(env_id: str) -> None:
    """The module-prefixed id (for processes that never import trap_env themselves, as the
    environments page says) makes every game's env, here in ``async`` workers started by
    ``spawn``."""
    envs = gymnasium.make_vec(
        f"trap_env:trap_env/{env_id}",
        num_envs=2,
        vectorization_mode="async",
        vector_kwargs={"context": "spawn"},
        opponent="random",
    )
    try:
        _, info = envs.reset(seed=0)
        for _ in range(4):
            masks = info["action_mask"]  # all zeros where an episode ended (autoreset next)
            actions = np.array([np.flatnonzero(m)[0] if m.any() else 0 for m in masks])
            _, _, _, _, info = envs.step(actions)
    finally:
        envs.close()


def test_a_process_that_never_imports_trap_env_makes_the_env_by_its_prefixed_id() -> None:
    import subprocess
    import sys

    script = (
        "import gymnasium\n"
        "try:\n"
        "    gymnasium.make('trap_env/Trap-v0')\n"
        "except gymnasium.error.NamespaceNotFound:\n"
        "    print('plain id: NamespaceNotFound')\n"
        "env = gymnasium.make('trap_env:trap_env/Trap-v0', opponent='random')\n"
        "print('prefixed id:', env.reset(seed=0)[0].shape)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["plain id: NamespaceNotFound", "prefixed id: (7, 7, 4)"]


@every_game()
def test_an_unknown_keyword_is_a_type_error_naming_the_rule_parameters(game: str) -> None:
    """As Python refuses an unknown keyword argument: clients such as TorchRL's ``GymEnv``
    try ``frameskip=`` and leave it out on exactly this error."""
    rules = played_params(game_object(game))
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'frameskip'") as refused:
        GameEnv(game, frameskip=1)
    assert all(rule in str(refused.value) for rule in rules)


@pytest.mark.parametrize("game", ["trap", "othello", "colosseum"])
def test_a_board_the_rules_refuse_is_a_value_error_naming_it(game: str) -> None:
    with pytest.raises(ValueError, match="board_size"):
        GameEnv(game, board_size=2)


# --- Every state that enters is checked -----------------------------------------------------


def _impossible_states() -> list[tuple[str, dict[str, Any], Any, str]]:
    from trap_env.colosseum import rules as colosseum
    from trap_env.othello import rules as othello

    start = colosseum.start_state(colosseum.ColosseumConfig(6), 0)
    othello_start = othello.initial_state(othello.OthelloConfig(6))
    trap_start = initial_state(GameConfig(5))
    return [
        ("colosseum", {"board_size": 6}, start.__class__(6, start.walls, (40, 3), 0, 0),
         "cells must be two cells"),
        ("colosseum", {"board_size": 6}, start.__class__(6, (0, 0, 0, 0), start.cells, 0, 0),
         "border lacks"),
        ("othello", {"board_size": 6}, othello_start.__class__(6, "standard", 0, 0, 0, 0),
         "centre cells"),
        ("othello", {"board_size": 6}, othello_start.__class__(
            6, "standard", othello_start.dark, othello_start.light, 0, 57), "after 57 plies"),
        ("trap", {"board_size": 5}, trap_start._replace(cells=(3, 3)), "both players stand"),
    ]  # fmt: skip


@pytest.mark.parametrize(("game", "params", "state", "words"), _impossible_states())
def test_set_game_state_refuses_a_state_no_game_reaches(
    game: str, params: dict[str, Any], state: Any, words: str
) -> None:
    """A Colosseum board without its border walls used to make the zone search loop for
    good; every game's set_game_state now refuses what no game reaches, at once."""
    env = GameEnv(game=game, **params)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=words):
        env.set_game_state(state)
    env.close()


# --- One env contract in every game (docs/environments.md) ------------------------------

TRAP_KEYS = GYM_KEYS | {"target", "landing", "opponent_target", "opponent_landing"}
"""Trap!'s own env's keys (it names its chance keys by what they are)."""


def info_keys(game: str) -> frozenset[str]:
    """The keys of ``game``'s single env: the generic env's keys of its protocol, its
    chance and its counts (``game.scores``), or Trap!'s own env's."""
    if game == "trap":
        return TRAP_KEYS
    rules = game_object(game)
    first = random_decision_states(rules, rules.make_config(), seed=0, count=1)[0]
    counts = rules.scores(first)  # Colosseum's count from its first decision on
    return GYM_KEYS | (CHANCE_KEYS if rules.has_chance else frozenset()) | frozenset(counts)


class _Illegal:
    """An opponent that answers an action out of range."""

    def select_action(self, state: object) -> int:
        return 10**6


SMALL = {"trap": 5, "othello": 6, "colosseum": 5}
"""Each shipped game's board for a few whole episodes."""


@every_game()
@pytest.mark.parametrize("end", ["terminated", "truncated", "illegal action", "opponent fault"])
def test_every_episode_end_masks_all_ones_with_the_same_numpy_keys(game: str, end: str) -> None:
    options: dict[str, object] = {"seat": 0}
    if end == "truncated":
        options["max_turns"] = 3
    if end == "opponent fault":
        options["opponent"] = _Illegal()
    params = small_rules(game, board_size=SMALL.get(game))
    env = gymnasium.make(entry_of(game).gym_id, **params, **options).unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        endings = {play_gym_episode(env, info_keys(game), seed, end == "illegal action")
                   for seed in range(4)}  # fmt: skip
    assert end in endings


@every_game()
def test_no_time_limit_wrapper_can_cut_a_game_the_rules_have_not_ended(game: str) -> None:
    """The longest episode depends on ``max_turns`` and the board, which ``make`` takes as
    arguments: a fixed ``max_episode_steps`` would cut some games; the docs state it."""
    assert gymnasium.spec(entry_of(game).gym_id).max_episode_steps is None


@every_game()
@pytest.mark.parametrize("seat", [None, 1])
def test_a_turn_limit_that_leaves_the_learner_no_decision_is_refused(
    game: str, seat: int | None
) -> None:
    with pytest.raises(ValueError, match=r"max_turns=1 .* seat 1.*max_turns >= 2 or seat=0"):
        GameEnv(game, seat=seat, max_turns=1)


@every_game()
@pytest.mark.parametrize(("seat", "max_turns"), [(0, 1), (None, 2), (1, 2)])
def test_every_episode_begins_at_a_decision_of_the_learner(
    game: str, seat: int | None, max_turns: int
) -> None:
    env = GameEnv(game, seat=seat, max_turns=max_turns, **small_rules(game, board_size=6))
    for seed in range(12):
        _, info = env.reset(seed=seed)
        assert info["action_mask"].any() and env.game.current_player(env.game_state) == env.seat
        env.step(int(np.flatnonzero(env.action_masks())[0]))  # never "the episode is over"


def test_a_colosseum_env_with_a_fixed_start_accepts_its_own_state() -> None:
    env = GameEnv("colosseum", start=5, seat=0, board_size=6)
    env.reset(seed=0)
    state = env.game_state
    env.set_game_state(state)
    assert env.game_state == state
    other = GameEnv("colosseum", start=5, seat=0, board_size=7)
    other.reset(seed=0)
    with pytest.raises(ValueError, match="rules"):
        env.set_game_state(other.game_state)  # another board: refused still


@pytest.mark.parametrize("env_id", ["Trap-v0", "Othello-v0", "Colosseum-v0"])
@pytest.mark.parametrize("num_envs", [0, -1])
def test_make_vec_refuses_a_number_of_envs_in_one_line(env_id: str, num_envs: int) -> None:
    with pytest.raises(ValueError, match=r"^num_envs must be an integer 1\.\.[0-9,]+, got "):
        gymnasium.make_vec(f"trap_env/{env_id}", num_envs=num_envs)


@every_game()
def test_sb3_check_env_passes_for_every_game(game: str) -> None:
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_checker.check_env(GameEnv(game, **small_rules(game, board_size=6)), warn=True)
    unexpected = [str(w.message) for w in caught if "image" not in str(w.message)]
    assert unexpected == []


@every_game()
def test_a_step_asks_each_state_for_its_outcome_and_mask_once(monkeypatch, game: str) -> None:
    env = GameEnv(game, opponent="random")
    questions = StateQuestions(monkeypatch, env.game)
    for seed in range(3):
        env.reset(seed=seed)
        done = False
        while not done:
            action = int(np.flatnonzero(env.action_masks())[0])
            _, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
        env.action_masks()
        assert questions.repeated() == []


def test_gymnasium_check_env_passes_for_every_id_without_pygame() -> None:
    """``check_env`` makes the env in every listed render mode: ``"human"`` is listed only
    where pygame is installed, so the check passes without it, as it does with it."""
    import subprocess
    import sys

    script = (
        "import sys, warnings\n"
        "sys.modules['pygame'] = None\n"
        "import gymnasium, trap_env\n"
        "from gymnasium.utils.env_checker import check_env\n"
        "warnings.simplefilter('error')\n"
        "for env_id in ['Trap-v0', 'Othello-v0', 'Colosseum-v0']:\n"
        "    env = gymnasium.make(f'trap_env/{env_id}', board_size=6)\n"
        "    check_env(env.unwrapped)\n"
        "    print(env_id, env.metadata['render_modes'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == [
        f"{env_id} ['ansi', 'rgb_array']" for env_id in ["Trap-v0", "Othello-v0", "Colosseum-v0"]
    ]
    assert "human" in GameEnv.metadata["render_modes"]  # pygame is installed here


def _typed_arrays(info: dict[str, Any]) -> dict[str, str]:
    """Every stacked ``info`` value's dtype (nested dicts flattened), to spot object arrays."""
    return {key: (str(value.dtype) if isinstance(value, np.ndarray) else type(value).__name__)
            for key, value in info.items()}  # fmt: skip


@pytest.mark.parametrize("mode", ["sync", "async"])
@every_game()
def test_gymnasium_s_own_vector_envs_stack_every_info_key_into_a_typed_array(
    game: str, mode: str
) -> None:
    """Gymnasium's ``SyncVectorEnv`` and ``AsyncVectorEnv`` (``make_vec`` with a
    ``vectorization_mode``) stack each key into an array of its type: a bool key a bool
    array, not an object array of NumPy booleans; here through an illegal action too."""
    gym_id = entry_of(game).gym_id
    rules = small_rules(game, board_size=6)
    envs = gymnasium.make_vec(gym_id, num_envs=2, vectorization_mode=mode, **rules)
    try:
        _, info = envs.reset(seed=0)
        assert "object" not in _typed_arrays(info).values(), _typed_arrays(info)
        illegal = np.array([refused_action(info["action_mask"][0]), 0])
        _, _, terminated, _, info = envs.step(illegal)
    finally:
        envs.close()
    dtypes = _typed_arrays(info)
    assert "object" not in dtypes.values(), dtypes
    assert dtypes["illegal_action"] == dtypes["opponent_fault"] == "bool", dtypes
    assert terminated[0] and info["illegal_action"][0]


def test_render_draws_the_last_chance_node_as_the_decision_and_its_outcome() -> None:
    env = GameEnv(ChanceShown(), opponent=Walker(), seat=0, render_mode="ansi", goal=9)
    env.reset(seed=0)
    assert env.render() == "None\n"  # the renderer ends a text with a new line
    _, _, _, _, info = env.step(GAMBLE)
    assert env.render() == f"{(GAMBLE, int(info['chance']))}\n"
    trap = TrapEnv(opponent="random", seat=0, board_size=5, render_mode="ansi")
    trap.reset(seed=1)
    trap.step(legal_actions(trap.game_state)[0])
    _, _, _, _, info = trap.step(legal_actions(trap.game_state)[0])  # and the opponent's turn
    target, landing = (divmod(int(info[f"opponent_{key}"]), 5) for key in ("target", "landing"))
    assert "last throw: target {},{}, landed on {},{}".format(*target, *landing) in trap.render()

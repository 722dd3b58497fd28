"""trap_env.rllib: RLlib's masked PPO trains on every game with one registration.

RLlib pins its own Gymnasium, so its PPO runs in a venv of its own (``.venv-rllib``, made by
README's test command, which sets ``TRAP_ENV_RLLIB=1``: there a missing RLlib fails instead of
skipping). The wrapper's tests need no RLlib and run everywhere.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from trap_env.games import entries
from trap_env.rllib import RLlibObservation, make_env, masked_ppo_config, register

SMALL_BOARDS = {"trap": 5, "othello": 6, "colosseum": 5}
"""A small board per game, on which one PPO iteration takes a few seconds."""
GAME_IDS = {entry.name: entry.gym_id for entry in entries() if entry.gym_id is not None}


def _rllib() -> Any:
    """RLlib's PPO module, or a skip naming the venv that has it (a failure under
    ``TRAP_ENV_RLLIB=1``, where the test command promises RLlib)."""
    try:
        return importlib.import_module("ray.rllib.algorithms.ppo")
    except ImportError as error:
        if os.environ.get("TRAP_ENV_RLLIB"):
            raise
        pytest.skip(f"needs RLlib ({error}): README's test command runs it in .venv-rllib")


@pytest.mark.parametrize("game", sorted(SMALL_BOARDS))
def test_make_env_gives_rllib_s_masked_dict_for_every_game(game: str) -> None:
    env = make_env(GAME_IDS[game], board_size=SMALL_BOARDS[game])
    observation, info = env.reset(seed=0)
    assert env.observation_space.contains(observation)
    assert observation["observations"].dtype == observation["action_mask"].dtype == np.float32
    assert observation["observations"].ndim == 1
    np.testing.assert_array_equal(observation["action_mask"], info["action_mask"])
    legal = int(np.flatnonzero(info["action_mask"])[0])
    observation, *_, info = env.step(legal)
    assert env.observation_space.contains(observation)
    np.testing.assert_array_equal(observation["action_mask"], info["action_mask"])


def test_the_wrapper_refuses_an_env_without_the_mask_in_its_observation() -> None:
    with pytest.raises(ValueError, match="mask_in_observation=True"):
        RLlibObservation(gym.make(GAME_IDS["trap"], board_size=5))


@pytest.mark.parametrize("env_id", ["CartPole-v1", "trap_env/Chess-v0", "trap_env/trap_v0", 3])
def test_an_id_of_no_game_is_refused_naming_the_games_ids(env_id: Any) -> None:
    # Without RLlib: the id is checked before RLlib is imported. Every registered game's
    # ids are named, the tests' own games' too.
    ids = ", ".join(entry.gym_id for entry in entries() if entry.gym_id is not None)
    message = rf"^unknown env id {re.escape(repr(env_id))}; the games' ids: {re.escape(ids)}$"
    with pytest.raises(ValueError, match=message):
        make_env(env_id)
    with pytest.raises(ValueError, match=message):
        masked_ppo_config(env_id)


@pytest.mark.parametrize(("game", "argument"), [
    ("trap", "end_rule"), ("othello", "decay"), ("colosseum", "boardsize"),
    ("othello", "mask_in_observation"), ("trap", "num_envs"),
])
def test_an_argument_the_env_does_not_take_is_refused_naming_those_it_takes(
    game: str, argument: str
) -> None:
    message = (rf"^{GAME_IDS[game]} takes no argument '{argument}'; its arguments: "
               r"board_size, .*opponent.*seat.* \(mask_in_observation is make_env's own\)$")
    with pytest.raises(TypeError, match=message):
        make_env(GAME_IDS[game], **{argument: 1})
    with pytest.raises(TypeError, match=message):
        masked_ppo_config(GAME_IDS[game], **{argument: 1})


@pytest.mark.parametrize(("arguments", "error", "message"), [
    ({"board_size": 5}, ValueError, r"^board_size must be an even integer from 4 to 26, got int"),
    ({"seat": "x"}, TypeError, r"^seat must be 0, 1 or None \(random each reset\), got str 'x'$"),
    ({"game": "trap"}, ValueError, r"^trap_env/Othello-v0 plays the game 'othello', so game= "),
])
def test_a_value_the_env_refuses_fails_in_the_env_s_own_line_before_rllib(
    arguments: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        make_env(GAME_IDS["othello"], **arguments)
    with pytest.raises(error, match=message):
        masked_ppo_config(GAME_IDS["othello"], **arguments)


def test_register_refuses_an_id_of_no_game() -> None:
    _rllib()
    with pytest.raises(ValueError, match="unknown env id 'CartPole-v1'; the games' ids: "):
        register("CartPole-v1")


@pytest.fixture(scope="module")
def ray_session() -> Iterator[None]:
    """One local Ray for every game's iteration (starting Ray costs seconds)."""
    _rllib()
    import ray

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.mark.parametrize("game", sorted(SMALL_BOARDS))
def test_one_masked_ppo_iteration_takes_no_illegal_action(game: str, ray_session: None) -> None:
    from trap_env.rllib import masked_ppo_config

    taken = {"steps": 0, "illegal": 0}

    def count(*, episode: Any, **_: Any) -> None:
        # The env's own verdict on each action the policy took (env runners run in this
        # process: num_env_runners=0).
        taken["steps"] += 1
        taken["illegal"] += int(episode.get_infos(-1)["illegal_action"])

    config = (
        masked_ppo_config(GAME_IDS[game], board_size=SMALL_BOARDS[game])
        .env_runners(num_env_runners=0)
        .training(train_batch_size_per_learner=256, minibatch_size=64, num_epochs=1)
        .callbacks(on_episode_step=count)
    )
    algo = config.build_algo()
    try:
        result = algo.train()
    finally:
        algo.stop()
    sampled = result["env_runners"]["num_env_steps_sampled"]
    assert sampled >= 256
    assert taken == {"steps": sampled, "illegal": 0}

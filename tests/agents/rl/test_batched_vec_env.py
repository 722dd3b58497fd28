"""The SB3 VecEnv over the batched engine: same-step reset, masks, VecMonitor, MaskablePPO."""

from __future__ import annotations

from pathlib import Path

import gymnasium
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

import trap_env  # noqa: F401  (registers the ids)
from agents.rl.batched_vec_env import BatchedVecEnv
from agents.trap.ppo_training import OpponentMix, TrainConfig, make_vec_env, train
from trap_env.trap import batched as batched_trap


def _random_actions(envs: BatchedVecEnv, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in get_action_masks(envs)])


def test_ended_games_reset_in_the_same_step_with_their_terminal_observation() -> None:
    envs = BatchedVecEnv(8, board_size=4, max_turns=6, game="trap")
    envs.seed(3)
    observations = envs.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        envs.step_async(_random_actions(envs, rng))
        observations, rewards, dones, infos = envs.step_wait()
        for game in np.flatnonzero(dones).tolist():
            ended += 1
            info = infos[game]
            assert info["terminal_observation"].shape == (4, 4, 4)
            assert info["TimeLimit.truncated"] == (rewards[game] == 0.0)
            # The next episode's first observation: the opponent played at most its first turn.
            assert envs.env.batch.turn[game] == envs.env.seats[game]
            assert observations[game][..., 2].sum() <= envs.env.seats[game]
    assert ended > 8
    assert rewards.dtype == np.float32


def test_masks_attributes_and_seeding() -> None:
    envs = BatchedVecEnv(5, board_size=5, game="trap")
    assert is_masking_supported(envs)
    envs.seed(7)
    first = envs.reset()
    envs.seed(7)
    assert np.array_equal(envs.reset(), first)
    masks = get_action_masks(envs)
    assert masks.shape == (5, 25) and masks.dtype == np.bool_
    assert envs.get_attr("max_turns") == [100] * 5
    envs.set_attr("illegal_action", "raise")
    assert envs.env.illegal_action == "raise"
    assert envs.env_is_wrapped(VecMonitor) == [False] * 5


def test_an_opponent_mix_from_training_applies_to_the_whole_batch() -> None:
    envs = BatchedVecEnv(64, board_size=5, game="trap")
    mix = OpponentMix(["random", "greedy"], seed=1)
    for index in range(envs.num_envs):
        envs.env_method("set_opponent", mix, indices=[index])
    envs.seed(0)
    envs.reset()
    assert 10 < int(envs.env._kind.sum()) < 54  # about half the games against greedy


def test_maskable_ppo_learns_on_it_under_vec_monitor() -> None:
    envs = VecMonitor(BatchedVecEnv(16, board_size=4, game="trap"))
    model = MaskablePPO("MlpPolicy", envs, n_steps=32, batch_size=128, n_epochs=1, seed=0)
    model.learn(1024)
    assert model.num_timesteps >= 1024
    assert len(model.ep_info_buffer) > 0
    assert {info["r"] for info in model.ep_info_buffer} <= {-1.0, 0.0, 1.0}


def test_tables_are_shared_with_the_engine() -> None:
    envs = BatchedVecEnv(2, board_size=6, decay=0, game="trap")
    assert envs.env.engine.tables is batched_trap.tables(6, 0)  # type: ignore[attr-defined]


def test_training_runs_on_the_batched_env_with_a_snapshot_pool(tmp_path: Path) -> None:
    config = TrainConfig(
        run_dir=str(tmp_path / "run"),
        total_timesteps=1024,
        stages=[["random"], ["random", "greedy"]],
        self_play_fraction=0.5,
        snapshot_every=256,
        pool_size=1,
        board_size=5,
        num_envs=8,
        n_steps=32,
        batch_size=64,
        n_epochs=1,
        channels=8,
        num_layers=1,
        hidden=16,
        eval_every=0,
        checkpoint_every=512,
        progress_bar=False,
    )
    envs = make_vec_env(config)
    assert isinstance(envs, VecMonitor) and isinstance(envs.venv, BatchedVecEnv)
    envs.close()
    model = train(config)
    assert model.num_timesteps >= 1024
    assert list((tmp_path / "run" / "pool").glob("snapshot_*.zip"))
    assert (tmp_path / "run" / "final_model.zip").exists()


def test_benchmark_ppo_rows_compare_the_batched_env_with_subprocesses() -> None:
    from trap_scripts.benchmarks import ppo

    figures = ppo.ppo_figures(timesteps=256, batch=16, processes=2)
    assert [f.unit for f in figures] == ["steps/s", "steps/s", "ratio"] * 2
    assert all(f.value > 0 for f in figures)


def test_single_envs_when_not_batched_or_shaped() -> None:
    for options in ({"batched": False}, {"shaping": 0.5}):
        config = TrainConfig(run_dir="unused", num_envs=2, subprocess=False, **options)
        envs = make_vec_env(config)
        assert isinstance(envs, DummyVecEnv)
        envs.close()


def test_maskable_ppo_learns_another_game_through_its_engine() -> None:
    from tests.support import toy_game

    envs = VecMonitor(
        BatchedVecEnv(8, game="tests.support.toy_game:GAME", opponent=toy_game.Walker(), goal=4)
    )
    assert envs.observation_space.shape == (1, 5, 2) and envs.action_space.n == 3
    model = MaskablePPO("MlpPolicy", envs, n_steps=16, batch_size=32, seed=0)
    model.learn(256)
    assert np.array(envs.env_method("action_masks")).shape == (8, 3)


def test_float_actions_are_refused_not_cast() -> None:
    envs = BatchedVecEnv(2, board_size=5, game="trap")
    envs.reset()
    with pytest.raises(ValueError, match="actions must be 2 integers"):
        envs.step_async(np.array([1.5, 2.0]))


# --- make_vec's output through to_sb3 ---------------------------------------------------

GAME_IDS = ["trap_env/Trap-v0", "trap_env/Othello-v0", "trap_env/Colosseum-v0"]


@pytest.mark.parametrize("gym_id", GAME_IDS)
def test_maskable_ppo_trains_on_make_vec_of_every_game_through_to_sb3(gym_id: str) -> None:
    from agents.rl.sb3 import to_sb3

    envs = gymnasium.make_vec(gym_id, 4, board_size=6, autoreset_mode="disabled")
    vec = VecMonitor(to_sb3(envs))
    masks = get_action_masks(vec)
    assert is_masking_supported(vec) and masks.shape == (4, envs.single_action_space.n)
    model = MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=64, n_epochs=1, seed=0)
    model.learn(256)
    assert len(model.ep_info_buffer) > 0  # episodes ended and restarted in the same step


@pytest.mark.parametrize("gym_id", GAME_IDS)
def test_to_sb3_ends_an_episode_as_the_single_env_does(gym_id: str) -> None:
    """An illegal action's end through SB3: the single env's last observation and its
    ``illegal_action``, and the next episode's start in the same step."""
    from agents.rl.sb3 import to_sb3

    kwargs = {"seat": 0, "board_size": 6}
    vec = to_sb3(gymnasium.make_vec(gym_id, 2, autoreset_mode="disabled", **kwargs))
    single = gymnasium.make(gym_id, **kwargs)
    vec.seed(0)
    first = vec.reset()
    assert np.array_equal(first[0], single.reset(seed=0)[0])
    masks = get_action_masks(vec)
    illegal = int(np.flatnonzero(~masks[0])[0])
    vec.step_async(np.array([illegal, np.flatnonzero(masks[1])[0]]))
    observations, rewards, dones, infos = vec.step_wait()
    last, reward, terminated, _, info = single.step(illegal)
    assert dones[0] and terminated and rewards[0] == reward == -1.0
    assert np.array_equal(infos[0]["terminal_observation"], last)
    assert infos[0]["illegal_action"] is bool(info["illegal_action"]) is True
    assert infos[0]["opponent_fault"] is bool(info["opponent_fault"]) is False
    assert np.array_equal(observations[0], single.reset()[0])


def test_to_sb3_refuses_next_step_autoreset_and_foreign_envs_in_one_line() -> None:
    from agents.rl.sb3 import to_sb3

    with pytest.raises(ValueError, match=r"autoreset_mode=.disabled.*got next_step"):
        to_sb3(gymnasium.make_vec("trap_env/Othello-v0", 2, board_size=6))
    with pytest.raises(TypeError, match=r"to_sb3 takes gymnasium\.make_vec"):
        to_sb3(gymnasium.make_vec("CartPole-v1", 2))  # type: ignore[arg-type]


@pytest.mark.parametrize("gym_id", GAME_IDS)
def test_to_sb3_passes_the_mask_in_the_observation_through(gym_id: str) -> None:
    """With ``mask_in_observation=True`` SB3 gets the dict observations (its
    ``MultiInputPolicy``'s), an ended game's last one the dict of that game's rows."""
    from agents.rl.sb3 import to_sb3

    kwargs = {"seat": 0, "board_size": 6, "mask_in_observation": True}
    vec = to_sb3(gymnasium.make_vec(gym_id, 2, autoreset_mode="disabled", **kwargs))
    single = gymnasium.make(gym_id, **kwargs)
    assert vec.observation_space == single.observation_space
    vec.seed(0)
    first = vec.reset()
    masks = get_action_masks(vec)
    assert np.array_equal(first["action_mask"], masks)
    illegal = int(np.flatnonzero(~masks[0])[0])
    vec.step_async(np.array([illegal, np.flatnonzero(masks[1])[0]]))
    observations, _, dones, infos = vec.step_wait()
    last = infos[0]["terminal_observation"]
    assert dones[0] and single.observation_space.contains(last) and last["action_mask"].all()
    assert np.array_equal(observations["action_mask"], get_action_masks(vec))

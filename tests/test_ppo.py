"""Tests of the PPO side: training end to end, the ppo agent, and its errors."""

from __future__ import annotations

import random
import subprocess
import sys
import zipfile
from pathlib import Path

import crafted_files
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import gymnasium as gym
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO
from trap_scripts import train

from agents import SpecError, make_agent
from agents.rl.ppo import DEFAULT_MODEL, IncompatibleModelError, PPOAgent
from agents.rl.ppo_training import (
    MobilityShaping,
    OpponentMix,
    TrainConfig,
    latest_checkpoint,
    stage_at,
)
from agents.rl.pretrain import imitation_data, pretrain
from trap_env.agent import UnsupportedGameError, check_supports
from trap_env.trap.core import (
    GameConfig,
    Phase,
    apply,
    initial_state,
    is_terminal,
    legal_actions,
    sample_landing,
)
from trap_env.trap.observation import action_mask, observe

TINY = [
    "--timesteps", "2048", "--n-steps", "256", "--batch-size", "128", "--n-epochs", "2",
    "--num-envs", "2", "--stage", "random", "--stage", "random|random", "--eval-opponent",
    "random", "--eval-every", "1024", "--eval-episodes", "4", "--checkpoint-every", "1024",
    "--self-play-fraction", "0.5", "--snapshot-every", "1024", "--pool-size", "1",
    "--seed", "3", "--no-progress", "--pretrain-games", "3", "--pretrain-epochs", "1",
    "--shaping", "0.5",
]  # fmt: skip


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of a couple of thousand steps through the CLI, in subprocess envs."""
    run = tmp_path_factory.mktemp("ppo") / "run"
    assert train.main(["--run-dir", str(run), *TINY]) == 0
    return run


@pytest.fixture(scope="module")
def model_path(run_dir: Path) -> Path:
    return run_dir / "final_model.zip"


def play(agents: dict[int, object], seed: int, board_size: int = 7) -> int:
    """One game between two agents with the core; checks every action is legal."""
    rng = random.Random(seed)
    state = initial_state(GameConfig(board_size))
    while not is_terminal(state) and state.turn < 4 * board_size**2:
        if state.phase is Phase.LANDING:
            state = apply(state, sample_landing(state, rng))
            continue
        action = agents[state.player].select_action(state)  # type: ignore[attr-defined]
        assert action in legal_actions(state), (action, state)
        state = apply(state, action)
    return state.winner


# --- Training ---------------------------------------------------------------------------


def test_training_run_writes_the_run_folder(run_dir: Path) -> None:
    config = TrainConfig.load(run_dir / "config.json")
    assert config.total_timesteps == 2048 and config.stages == [["random"], ["random", "random"]]
    names = ("final_model.zip", "pretrained.zip", "best/best_model.zip", "eval/evaluations.npz")
    for name in names:
        assert (run_dir / name).is_file(), name
    assert latest_checkpoint(run_dir) == run_dir / "checkpoints" / "ppo_2048_steps.zip"
    assert list((run_dir / "pool").glob("snapshot_*.zip"))
    assert MaskablePPO.load(run_dir / "final_model.zip").num_timesteps == 2048


def test_resume_continues_from_the_last_checkpoint(run_dir: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    args = ["--run-dir", str(copy), "--resume", "--timesteps", "2560", "--no-subprocess"]
    assert train.main(args) == 0
    assert MaskablePPO.load(copy / "final_model.zip").num_timesteps > 2048
    assert TrainConfig.load(copy / "config.json").total_timesteps == 2560


def test_cli_refuses_to_overwrite_a_run_or_resume_nothing(run_dir: Path, tmp_path: Path) -> None:
    assert train.main(["--run-dir", str(run_dir), *TINY]) == 1
    assert train.main(["--run-dir", str(tmp_path / "none"), "--resume"]) == 1


def test_config_rejects_bad_curricula(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="stage_fractions"):
        TrainConfig(str(tmp_path), stages=[["random"], ["greedy"]], stage_fractions=[0.5, 0.2])
    with pytest.raises(ValueError, match="stages"):
        TrainConfig(str(tmp_path), stages=[])


def test_stage_at_splits_the_budget() -> None:
    config = TrainConfig("x", total_timesteps=100, stages=[["a"], ["b"], ["c"]])
    assert [stage_at(config, t) for t in (0, 33, 34, 66, 67, 100)] == [0, 0, 1, 1, 2, 2]
    config.stage_fractions = [0.0, 0.1, 0.9]
    assert [stage_at(config, t) for t in (9, 10, 89, 90)] == [0, 1, 1, 2]


def test_opponent_mix_draws_one_agent_per_game_from_its_seed() -> None:
    def drawn(seed: int) -> list[str]:
        mix = OpponentMix(["random", "ppo_policy_does_not_matter"], seed=seed)
        mix.specs = ["random", "random"]
        names = []
        for game in range(5):
            mix.reset(seed=seed + game)
            play({0: mix, 1: make_agent("random", seed=game, game="trap")}, seed=game, board_size=5)
            names.append(type(mix._current).__name__)
        return names

    assert drawn(1) == drawn(1) == ["RandomAgent"] * 5


def test_mobility_shaping_telescopes_to_the_game_result() -> None:
    env = gym.make("trap_env/Trap-v0", opponent="random", board_size=5)
    shaped = MobilityShaping(env, coef=1.0, gamma=1.0)
    _, _ = shaped.reset(seed=2)
    start = shaped._potential
    total, done, rng = 0.0, False, np.random.default_rng(0)
    while not done:
        action = rng.choice(np.flatnonzero(env.unwrapped.action_masks()))
        _, reward, terminated, truncated, _ = shaped.step(action)
        total, done = total + reward, terminated or truncated
    result = env.unwrapped.game_state.winner
    assert total == pytest.approx((1.0 if result == env.unwrapped.seat else -1.0) - start)


def test_imitation_learns_the_teacher_on_a_small_board() -> None:
    data = imitation_data("greedy", num_games=20, board_size=5, epsilon=0.0, seed=1)
    assert data.observations.shape[1:] == (5, 5, 4) and len(data) == len(data.values)
    assert all(data.masks[i, a] for i, a in enumerate(data.actions))
    assert np.all(np.abs(data.values) <= 1.0)
    env = gym.make("trap_env/Trap-v0", board_size=5)
    from agents.rl.policy import TrapPolicy, policy_kwargs

    model = MaskablePPO(TrapPolicy, env, policy_kwargs=policy_kwargs(8, 2, 16), device="cpu")
    losses = pretrain(model.policy, data, epochs=4, batch_size=64, seed=0)
    assert losses[-1] < losses[0]


# --- The ppo agent ----------------------------------------------------------------------


def test_agent_matches_maskable_ppo_predict(model_path: Path) -> None:
    agent = PPOAgent(model_path)
    model = MaskablePPO.load(model_path, device="cpu")
    rng = random.Random(0)
    state = initial_state()
    while not is_terminal(state):
        if state.phase is Phase.LANDING:
            state = apply(state, sample_landing(state, rng))
            continue
        expected, _ = model.predict(
            observe(state, state.player), action_masks=action_mask(state), deterministic=True
        )
        assert agent.select_action(state) == int(expected)
        state = apply(state, rng.choice(legal_actions(state)))


@pytest.mark.parametrize("deterministic", [True, False])
def test_agent_never_picks_a_masked_action(model_path: Path, deterministic: bool) -> None:
    learner = PPOAgent(model_path, deterministic=deterministic, seed=5)
    for game in range(20):
        seat = game % 2
        play({seat: learner, 1 - seat: make_agent("random", seed=game, game="trap")}, seed=game)


def test_agent_probabilities_are_zero_off_the_mask(model_path: Path) -> None:
    agent = PPOAgent(model_path)
    state = apply(initial_state(), 4)  # player 0 moved; now it throws
    probabilities = agent.action_probabilities(state)
    assert probabilities.sum() == pytest.approx(1.0)
    assert np.all(probabilities[action_mask(state) == 0] == 0)


def test_sampling_agent_replays_with_its_seed(model_path: Path) -> None:
    def game(seed: int) -> list[int]:
        agent = make_agent(f"ppo:path={model_path},deterministic=false", seed=seed, game="trap")
        state, actions = initial_state(), []
        for _ in range(6):
            actions.append(agent.select_action(state))
            state = apply(state, actions[-1])
            if state.phase is Phase.LANDING:
                state = apply(state, sample_landing(state, random.Random(len(actions))))
        return actions

    assert game(4) == game(4)


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no bundled model yet")
def test_bundled_model_is_the_default_and_small() -> None:
    assert DEFAULT_MODEL.stat().st_size < 2_000_000
    agent = make_agent("ppo", game="trap")
    assert agent.path == DEFAULT_MODEL  # type: ignore[attr-defined]
    for game in range(20):
        seat = game % 2
        play({seat: agent, 1 - seat: make_agent("random", seed=game, game="trap")}, seed=game)


def test_agent_plays_in_the_gym_env(model_path: Path) -> None:
    env = gym.make("trap_env/Trap-v0", opponent=PPOAgent(model_path), seat=1)
    env.reset(seed=0)
    done = False
    while not done:
        action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    assert not info["illegal_action"]
    env.close()


def test_import_agents_does_not_import_torch() -> None:
    code = (
        "import sys, agents; agents.make_agent('random', game='trap'); "
        "assert 'torch' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --- Errors -----------------------------------------------------------------------------


def test_missing_model_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no PPO model at"):
        PPOAgent(tmp_path / "nothing.zip")
    # Built from a spec, the missing file is a spec error (one line in every CLI).
    with pytest.raises(SpecError, match="no PPO model at") as raised:
        make_agent(f"ppo:path={tmp_path / 'nothing.zip'}", game="trap")
    assert isinstance(raised.value.__cause__, FileNotFoundError)


def test_file_that_is_not_a_model_zip(tmp_path: Path) -> None:
    text = tmp_path / "notes.zip"
    text.write_text("not a zip")
    with pytest.raises(IncompatibleModelError, match="not a model zip"):
        PPOAgent(text)
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("hello.txt", "hi")
    with pytest.raises(IncompatibleModelError, match="MaskablePPO"):
        PPOAgent(other)
    with pytest.raises(SpecError, match="MaskablePPO"):
        make_agent(f"ppo:path={other}", game="trap")


def test_plain_ppo_zip_is_rejected(tmp_path: Path) -> None:
    env = gym.make("trap_env/Trap-v0", opponent="random", board_size=5)
    path = tmp_path / "plain_ppo.zip"
    PPO("MlpPolicy", env, n_steps=64, batch_size=32, device="cpu").save(path)
    env.close()
    with pytest.raises(IncompatibleModelError, match="not a MaskablePPO"):
        PPOAgent(path)


def test_model_for_another_board_size_is_rejected(model_path: Path) -> None:
    agent = PPOAgent(model_path)
    with pytest.raises(UnsupportedGameError, match=r"plays only 7x7 boards .* this game is 5x5"):
        agent.select_action(initial_state(GameConfig(5)))


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no bundled model yet")
def test_bundled_model_refuses_another_board_before_the_first_game() -> None:
    agent = make_agent("ppo", game="trap")
    check_supports(agent, GameConfig(7))
    with pytest.raises(UnsupportedGameError, match=r"only 7x7 boards .* 5x5.* --board-size 5"):
        check_supports(agent, GameConfig(5))


def rewritten_model(tmp_path: Path, member: str, content: bytes) -> Path:
    """A copy of the bundled model with ``member``'s bytes replaced by ``content``."""
    path = tmp_path / f"damaged_{member.replace('.', '_')}.zip"
    with zipfile.ZipFile(DEFAULT_MODEL) as source, zipfile.ZipFile(path, "w") as target:
        for info in source.infolist():
            target.writestr(info, content if info.filename == member else source.read(info))
    return path


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no bundled model yet")
@pytest.mark.parametrize(
    "content",
    [b"garbage" * 100, b"", b"PK\x03\x04" + b"x" * 500],
    ids=["garbage", "empty", "bad-zip"],
)
def test_damaged_parameters_say_so(tmp_path: Path, content: bytes) -> None:
    path = rewritten_model(tmp_path, "policy.pth", content)
    with pytest.raises(IncompatibleModelError, match=r"is damaged: .* \(policy.pth\) cannot be"):
        PPOAgent(path)
    with pytest.raises(SpecError, match="is damaged"):
        make_agent(f"ppo:path={path}", game="trap")


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no bundled model yet")
def test_truncated_parameters_say_so(tmp_path: Path) -> None:
    with zipfile.ZipFile(DEFAULT_MODEL) as source:
        original = source.read("policy.pth")
    path = rewritten_model(tmp_path, "policy.pth", original[: len(original) // 2])
    with pytest.raises(IncompatibleModelError, match="is damaged"):
        PPOAgent(path)


# --- Files from someone else never run code ---------------------------------------------

BUNDLED_GAMES = {  # the bundled model's actions as player 0 against random, by seed (the
    # stable-baselines3 loader's argmax, recorded for the model shipped on 2026-11-24)
    0: [10, 38, 17, 39, 24, 37, 17, 36, 16, 35, 17, 29, 16, 35, 17, 45, 16, 44],
    1: [10, 38, 16, 31, 24, 37, 18, 29, 24, 45, 18, 22, 25, 22, 18, 36, 25, 21],
}  # fmt: skip


def bundled_actions(agent: PPOAgent, seed: int) -> list[int]:
    """The agent's actions as player 0 in a game against random moves drawn from ``seed``."""
    rng = random.Random(seed)
    state, actions = initial_state(), []
    while not is_terminal(state) and len(actions) < 40:
        if state.phase is Phase.LANDING:
            state = apply(state, sample_landing(state, rng))
            continue
        if state.player == 0:
            actions.append(action := agent.select_action(state))
        else:
            action = rng.choice(legal_actions(state))
        state = apply(state, action)
    return actions


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no bundled model yet")
def test_bundled_model_plays_as_with_the_stable_baselines_loader() -> None:
    agent = PPOAgent()
    assert {seed: bundled_actions(agent, seed) for seed in BUNDLED_GAMES} == BUNDLED_GAMES
    from stable_baselines3.common.save_util import load_from_zip_file

    # The old way: stable-baselines3 unpickles the metadata (fine for our own file).
    data, params, _ = load_from_zip_file(DEFAULT_MODEL, device="cpu")
    oracle = data["policy_class"](data["observation_space"], data["action_space"],
                                  lambda _: 0.0, **data["policy_kwargs"])
    oracle.load_state_dict(params["policy"])
    oracle.eval()
    rng = random.Random(3)
    state = initial_state()
    for _ in range(30):
        if is_terminal(state):
            state = initial_state()
        if state.phase is Phase.LANDING:
            state = apply(state, sample_landing(state, rng))
            continue
        mask = action_mask(state).astype(bool)
        tensor, _ = oracle.obs_to_tensor(observe(state, state.player))
        expected = oracle.get_distribution(tensor, action_masks=mask[None])
        probabilities = expected.distribution.probs[0].detach().numpy()
        assert np.allclose(agent.action_probabilities(state), probabilities, atol=1e-6)
        state = apply(state, rng.choice(legal_actions(state)))


def crafted_data(tmp_path: Path, key: str, marker: Path) -> Path:
    """The bundled model with the pickled ``key`` of its metadata replaced by a payload."""
    import json

    with zipfile.ZipFile(DEFAULT_MODEL) as source:
        data = json.loads(source.read("data"))
    data[key] = crafted_files.serialized_payload(marker)
    return rewritten_model(tmp_path, "data", json.dumps(data).encode())


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no bundled model yet")
def test_a_crafted_model_zip_never_runs_its_payload(tmp_path: Path) -> None:
    import io

    import torch

    marker = tmp_path / "pwned"
    # In metadata the agent does not need: never unpickled, the model plays.
    agent = PPOAgent(crafted_data(tmp_path, "_last_obs", marker))
    assert bundled_actions(agent, 0) == BUNDLED_GAMES[0]
    # In the policy class: refused, unread.
    with pytest.raises(IncompatibleModelError, match="not a MaskablePPO TrapPolicy"):
        PPOAgent(crafted_data(tmp_path, "policy_class", marker))
    # In the weights: torch.load(weights_only=True) refuses it.
    weights = io.BytesIO()
    torch.save({"policy": crafted_files.Payload(marker)}, weights)
    with pytest.raises(IncompatibleModelError, match="cannot be read as tensors"):
        PPOAgent(rewritten_model(tmp_path, "policy.pth", weights.getvalue()))
    assert not marker.exists()


def test_the_batched_twin_plays_the_policy_for_every_game_from_its_own_stream() -> None:
    from trap_env.trap.batched_env import TrapVectorEnv

    agent = make_agent("ppo", seed=0, game="trap")
    greedy_twin = agent.batched()
    sampling_twin = make_agent("ppo:deterministic=false", seed=0, game="trap").batched()
    envs = TrapVectorEnv(16, opponent="random")
    envs.reset(seed=4)
    states = envs.engine.to_states(envs.batch)
    everywhere = np.ones(16, np.bool_)
    words = np.arange(16, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    chosen = greedy_twin.act(envs.engine, envs.batch, everywhere, words)
    assert [agent.select_action(s) for s in states] == chosen.tolist()
    sampled = sampling_twin.act(envs.engine, envs.batch, everywhere, words)
    again = sampling_twin.act(envs.engine, envs.batch, everywhere, words)
    assert sampled.tolist() == again.tolist()
    masks = envs.action_masks()
    assert masks[np.arange(16), sampled].all()


@pytest.mark.parametrize("board_size", [2, 1001])
def test_a_training_board_is_one_trap_takes(board_size: int) -> None:
    """The run's settings refuse what :class:`trap_env.trap.core.GameConfig` refuses, by name."""
    with pytest.raises(ValueError, match="board_size must be an integer from 3 to 1000"):
        TrainConfig("run", board_size=board_size)

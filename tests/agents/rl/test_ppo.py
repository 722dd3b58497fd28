"""Tests of the PPO side: training end to end, the ppo agent, and its errors."""

from __future__ import annotations

import random
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support import crafted_files
from tests.support.games import STRANGERS, forget_strangers

pytest.importorskip("sb3_contrib")

import gymnasium as gym
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO
from trap_scripts import train

from agents import SpecError, make_agent
from agents.rl.ppo import IncompatibleModelError, PPOAgent, bundled_model
from agents.trap.ppo_training import (
    MobilityShaping,
    OpponentMix,
    TrainConfig,
    latest_checkpoint,
    stage_at,
)
from agents.trap.pretrain import imitation_data, pretrain
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

DEFAULT_MODEL = bundled_model("trap")

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
    agent = PPOAgent(model_path, game="trap")
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
    learner = PPOAgent(model_path, deterministic=deterministic, seed=5, game="trap")
    for game in range(20):
        seat = game % 2
        play({seat: learner, 1 - seat: make_agent("random", seed=game, game="trap")}, seed=game)


def test_agent_probabilities_are_zero_off_the_mask(model_path: Path) -> None:
    agent = PPOAgent(model_path, game="trap")
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
    env = gym.make("trap_env/Trap-v0", opponent=PPOAgent(model_path, game="trap"), seat=1)
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
        PPOAgent(tmp_path / "nothing.zip", game="trap")
    # Built from a spec, the missing file is a spec error (one line in every CLI).
    with pytest.raises(SpecError, match="no PPO model at") as raised:
        make_agent(f"ppo:path={tmp_path / 'nothing.zip'}", game="trap")
    assert isinstance(raised.value.__cause__, FileNotFoundError)


def test_file_that_is_not_a_model_zip(tmp_path: Path) -> None:
    text = tmp_path / "notes.zip"
    text.write_text("not a zip")
    with pytest.raises(IncompatibleModelError, match="not a model zip"):
        PPOAgent(text, game="trap")
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("hello.txt", "hi")
    with pytest.raises(IncompatibleModelError, match="MaskablePPO"):
        PPOAgent(other, game="trap")
    with pytest.raises(SpecError, match="MaskablePPO"):
        make_agent(f"ppo:path={other}", game="trap")


def test_plain_ppo_zip_is_rejected(tmp_path: Path) -> None:
    env = gym.make("trap_env/Trap-v0", opponent="random", board_size=5)
    path = tmp_path / "plain_ppo.zip"
    PPO("MlpPolicy", env, n_steps=64, batch_size=32, device="cpu").save(path)
    env.close()
    with pytest.raises(IncompatibleModelError, match="not a MaskablePPO"):
        PPOAgent(path, game="trap")


def test_model_for_another_board_size_is_rejected(model_path: Path) -> None:
    agent = PPOAgent(model_path, game="trap")
    with pytest.raises(
        UnsupportedGameError,
        match=r"trained for trap \(board_size=7, decay=50\); this game is trap \(board_size=5,",
    ):
        agent.select_action(initial_state(GameConfig(5)))


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no bundled model yet")
def test_bundled_model_refuses_another_board_before_the_first_game() -> None:
    agent = make_agent("ppo", game="trap")
    check_supports(agent, GameConfig(7))
    with pytest.raises(
        UnsupportedGameError,
        match=r"takes observations \(7, 7, 4\) and 49 actions; this game, trap \(board_size=5, "
        r"decay=50\), has \(5, 5, 4\) and 25",
    ):
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
        PPOAgent(path, game="trap")
    with pytest.raises(SpecError, match="is damaged"):
        make_agent(f"ppo:path={path}", game="trap")


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no bundled model yet")
def test_truncated_parameters_say_so(tmp_path: Path) -> None:
    with zipfile.ZipFile(DEFAULT_MODEL) as source:
        original = source.read("policy.pth")
    path = rewritten_model(tmp_path, "policy.pth", original[: len(original) // 2])
    with pytest.raises(IncompatibleModelError, match="is damaged"):
        PPOAgent(path, game="trap")


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
    agent = PPOAgent(game="trap")
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
    agent = PPOAgent(crafted_data(tmp_path, "_last_obs", marker), game="trap")
    assert bundled_actions(agent, 0) == BUNDLED_GAMES[0]
    # In the policy class: refused, unread.
    with pytest.raises(IncompatibleModelError, match="not a MaskablePPO TrapPolicy"):
        PPOAgent(crafted_data(tmp_path, "policy_class", marker), game="trap")
    # In the weights: torch.load(weights_only=True) refuses it.
    weights = io.BytesIO()
    torch.save({"policy": crafted_files.Payload(marker)}, weights)
    with pytest.raises(IncompatibleModelError, match="cannot be read as tensors"):
        PPOAgent(rewritten_model(tmp_path, "policy.pth", weights.getvalue()), game="trap")
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


# --- Every game: a zip records its game and rules ---------------------------------------

SMALL = {"othello": {"board_size": 6}, "colosseum": {"board_size": 4}} | {
    name: {} for name, _ in STRANGERS
}
"""The rules of the tiny models trained below (the test-only games': their small defaults)."""


def train_plain(game: str, path: Path, **params: object) -> MaskablePPO:
    """A MaskablePPO ``"MlpPolicy"`` of a few steps on ``game``'s vector env, saved to
    ``path`` as a user saves it (recording no game)."""
    import torch

    from agents.rl.sb3 import to_sb3
    from trap_env.games import entry_of

    entry = entry_of(game)
    assert entry is not None and entry.gym_id is not None
    envs = gym.make_vec(entry.gym_id, num_envs=2, autoreset_mode="disabled", **params)
    kwargs = {"net_arch": [16], "activation_fn": torch.nn.ReLU}
    model = MaskablePPO("MlpPolicy", to_sb3(envs), n_steps=16, batch_size=32, n_epochs=1,
                        policy_kwargs=kwargs, seed=0, device="cpu")
    model.learn(64)
    model.save(path)
    envs.close()
    return model


@pytest.fixture(scope="module")
def plain_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An unstamped tiny model zip of each game of :data:`SMALL`."""
    folder = tmp_path_factory.mktemp("plain")
    paths = {game: folder / f"{game}.zip" for game in SMALL}
    for game, path in paths.items():
        train_plain(game, path, **SMALL[game])
    return paths


def stamped_copy(source: Path, folder: Path, game: str, **params: object) -> Path:
    """A copy of ``source`` stamped as a model of ``game`` under ``params``."""
    from agents.rl.ppo import stamp_model

    path = folder / f"stamped_{game}_{source.name}"
    path.write_bytes(source.read_bytes())
    stamp_model(path, game=game, params=params)
    return path


@pytest.mark.parametrize("game_name", sorted(SMALL))
def test_a_plain_maskable_ppo_zip_plays_its_game(
    plain_models: dict[str, Path], game_name: str
) -> None:
    """Observed from the acting side as the env observes, masked: the agent is the model."""
    from trap_env.games import get_game

    game = get_game(game_name)
    config = game.make_config(**SMALL[game_name])
    agent = make_agent(f"ppo:path={plain_models[game_name]}", game=game_name, seed=0)
    check_supports(agent, config)
    model = MaskablePPO.load(plain_models[game_name], device="cpu")
    rng = random.Random(0)
    state, decisions = game.initial_state(config), 0
    while game.outcome(state) is None:
        if game.is_chance(state):
            state = game.apply(state, game.sample_chance(state, rng))
            continue
        mask = np.asarray(game.legal_action_mask(state), dtype=bool)
        observation = game.observe(state, game.current_player(state))
        expected, _ = model.predict(observation, action_masks=mask, deterministic=True)
        action = agent.select_action(state)
        assert action == int(expected) and mask[action]
        state = game.apply(state, action if decisions % 2 else rng.choice(
            game.legal_actions(state)))
        decisions += 1
    assert decisions > 2


def test_the_runner_plays_a_ppo_zip_of_othello(
    plain_models: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from trap_scripts import tournament

    path = stamped_copy(plain_models["othello"], tmp_path, "othello", board_size=6)
    argv = ["--game", "othello", f"ppo:path={path}", "random", "--games", "4", "--workers",
            "0", "--quiet", "--no-plot"]  # fmt: skip  (workers 0: no process to import torch)
    assert tournament.main([*argv, "--board-size", "6", "--output", str(tmp_path / "a")]) == 0
    # Othello 8x8: other rules than the zip's, refused before any game.
    assert tournament.main([*argv, "--output", str(tmp_path / "b")]) == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.endswith(
        "was trained for othello (board_size=6, end_rule=standard); this game is othello "
        "(board_size=8, end_rule=standard); train one for these rules"
    )


def test_a_zip_of_another_game_is_refused_in_one_line(
    model_path: Path, plain_models: dict[str, Path], tmp_path: Path
) -> None:
    # trap-train's zip (stamped Trap! 7x7) in Othello; a stamped Trap! 8x8 zip in Othello
    # 8x8, whose observations have the same shape.
    trap8 = tmp_path / "trap8.zip"
    MaskablePPO("MlpPolicy", gym.make("trap_env/Trap-v0", board_size=8, opponent="random"),
                n_steps=16, device="cpu").save(trap8)
    for path, rules in [(model_path, "board_size=7"), (trap8, "board_size=8")]:
        if path == trap8:
            path = stamped_copy(trap8, tmp_path, "trap", board_size=8)
        with pytest.raises(SpecError, match=rf"plays trap \({rules}, decay=50\), not othello;"):
            make_agent(f"ppo:path={path}", game="othello")
    # Unstamped, the same zip is refused by its actions (64, Othello 8x8's are 65).
    agent = make_agent(f"ppo:path={trap8}", game="othello")
    with pytest.raises(UnsupportedGameError, match=r"\(8, 8, 4\) and 64 actions; .* and 65"):
        check_supports(agent, agent.game.make_config())  # type: ignore[attr-defined]
    othello = stamped_copy(plain_models["othello"], tmp_path, "othello", board_size=6)
    with pytest.raises(SpecError, match=r"plays othello \(board_size=6, end_rule=standard\), "
                                        r"not colosseum"):
        make_agent(f"ppo:path={othello}", game="colosseum")


def test_a_zip_of_a_game_named_by_its_path_plays_that_game_only(
    plain_models: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game registered nowhere (given by its path, as a runner's worker is) stamps its
    zips with its name, which its own agent reads back and no other game's does."""
    from agents.rl.ppo import read_model_game, stamp_model

    forget_strangers(monkeypatch)
    for name, path in STRANGERS:
        stamped = tmp_path / f"{name}.zip"
        stamped.write_bytes(plain_models[name].read_bytes())
        stamp_model(stamped, game=path)
        agent = make_agent(f"ppo:path={stamped}", game=path)
        assert agent.record[0] == name  # type: ignore[attr-defined]
        refusal = rf"is a model of the game '{name}', which is not one of colosseum, othello, "
        with pytest.raises(SpecError, match=refusal + "trap$"):
            make_agent(f"ppo:path={stamped}", game="othello")
        with pytest.raises(IncompatibleModelError, match=refusal + "trap$"):
            read_model_game(stamped)  # a file names no module to import


def test_a_zip_of_other_rules_is_refused_in_one_line(
    plain_models: dict[str, Path], tmp_path: Path
) -> None:
    from trap_env.games import get_game

    game = get_game("othello")
    path = stamped_copy(plain_models["othello"], tmp_path, "othello", board_size=6)
    agent = make_agent(f"ppo:path={path}", game="othello")
    check_supports(agent, game.make_config(board_size=6))
    # The same observations and actions, but another end rule: only the record tells.
    course = game.make_config(board_size=6, end_rule="course")
    with pytest.raises(UnsupportedGameError, match=r"trained for othello \(board_size=6, "
                       r"end_rule=standard\); this game is othello \(board_size=6, "
                       r"end_rule=course\)"):
        check_supports(agent, course)
    with pytest.raises(UnsupportedGameError, match="this game is othello"):
        agent.select_action(game.initial_state(course))
    # Unstamped, the model takes any rules whose spaces fit (and no others).
    plain = make_agent(f"ppo:path={plain_models['othello']}", game="othello")
    check_supports(plain, course)
    with pytest.raises(UnsupportedGameError, match=r"takes observations \(6, 6, 4\) and 37"):
        check_supports(plain, game.make_config(board_size=8))


@settings(max_examples=40, deadline=None)
@given(board_size=st.sampled_from([4, 6, 8, 10]), end_rule=st.sampled_from(["standard", "course"]))
def test_a_model_takes_exactly_the_rules_it_records_or_the_spaces_it_fits(
    plain_models: dict[str, Path], tmp_path_factory: pytest.TempPathFactory, board_size: int,
    end_rule: str,
) -> None:
    from trap_env.games import get_game

    game = get_game("othello")
    config = game.make_config(board_size=board_size, end_rule=end_rule)
    plain = plain_models["othello"]
    stamped = stamped_copy(plain, tmp_path_factory.getbasetemp(), "othello", board_size=6)
    for path, fits in [(stamped, (board_size, end_rule) == (6, "standard")),
                       (plain, board_size == 6)]:  # fmt: skip
        agent = make_agent(f"ppo:path={path}", game="othello")
        if fits:
            check_supports(agent, config)
        else:
            with pytest.raises(UnsupportedGameError, match=f"{path}.*this game"):
                check_supports(agent, config)


def test_trap_train_stamps_every_zip_it_saves(run_dir: Path) -> None:
    from agents.rl.ppo import read_model_game

    zips = [run_dir / "final_model.zip", run_dir / "best" / "best_model.zip",
            *run_dir.glob("checkpoints/*.zip"), *run_dir.glob("pool/*.zip")]
    assert len(zips) > 3
    for path in zips:
        assert read_model_game(path) == ("trap", {"board_size": 7, "decay": 50})
    MaskablePPO.load(zips[0], device="cpu")  # stable-baselines3 ignores the record


def test_a_game_without_a_bundled_model_needs_a_path() -> None:
    with pytest.raises(SpecError, match="no bundled ppo model for othello; give one with path="):
        make_agent("ppo", game="othello")


def test_the_plain_bundled_trap_model_is_found_where_its_spaces_fit() -> None:
    """It records no rules: it plays every decay of 7x7 (docs/evaluation.md), no other size."""
    assert bundled_model("trap", {"decay": 20}) == DEFAULT_MODEL
    there = r"\(the bundled ones play any rules with observations \(7, 7, 4\) and 49 actions\)"
    with pytest.raises(ValueError, match=f"^no bundled ppo model for trap under board_size=5, "
                                         f"decay=50 {there}; give one with path=ZIP"):  # fmt: skip
        bundled_model("trap", {"board_size": 5})


def test_a_bundled_model_is_found_by_its_stamp_not_its_name(
    plain_models: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game's models are the zips of agents/<game>/models/ that record it and its rules."""
    from agents import files
    from agents.mcts.network import Network
    from trap_env.othello.game import GAME

    models = tmp_path / "othello" / "models"
    models.mkdir(parents=True)
    found = stamped_copy(plain_models["othello"], models, "othello", board_size=6)
    found = found.rename(models / "ppo_8x8.zip")  # names are for people
    stamped_copy(plain_models["colosseum"], models, "colosseum", board_size=4)
    Network.initial(GAME.make_config(), 4, 1, 3, game=GAME).save(models / "mcts_8x8.npz")
    monkeypatch.setattr(files, "AGENTS", tmp_path)
    assert bundled_model("othello", {"board_size": 6}) == found
    with pytest.raises(SpecError, match=r"no bundled ppo model for othello under board_size=8, "
                       r"end_rule=standard \(the bundled ones play board_size=6, "
                       r"end_rule=standard\); give one with path=ZIP"):  # fmt: skip
        make_agent("ppo", game="othello")


def test_default_models_is_a_deprecated_table_of_the_lookup() -> None:
    from agents.rl import ppo

    with pytest.deprecated_call(match="call agents.rl.ppo.bundled_model"):
        assert ppo.DEFAULT_MODELS == {"trap": DEFAULT_MODEL}


def test_stamp_model_refuses_what_is_not_a_model_a_game_or_its_rules(
    plain_models: dict[str, Path], tmp_path: Path
) -> None:
    from agents.rl.ppo import GAME_MEMBER, read_model_game, stamp_model

    path = stamped_copy(plain_models["colosseum"], tmp_path, "colosseum", board_size=4)
    assert read_model_game(path) == ("colosseum", {"board_size": 4, "start": -1})
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        stamp_model(path, game="chess")
    with pytest.raises(ValueError, match="has no rule parameter"):
        stamp_model(path, game="othello", params={"size": 6})
    with pytest.raises(FileNotFoundError, match="no PPO model at"):
        stamp_model(tmp_path / "nothing.zip", game="othello")
    text = tmp_path / "notes.zip"
    text.write_text("not a zip")
    with pytest.raises(IncompatibleModelError, match="not a model zip"):
        stamp_model(text, game="othello")
    stamp_model(path, game="colosseum", params={"board_size": 4, "start": 0})  # replaced
    assert read_model_game(path) == ("colosseum", {"board_size": 4, "start": 0})
    for record in [b"{not json", b'{"game": "chess", "rules": {}}', b'{"game": "trap"}']:
        damaged = tmp_path / "damaged.zip"
        with zipfile.ZipFile(path) as source, zipfile.ZipFile(damaged, "w") as target:
            for info in source.infolist():
                target.writestr(info, record if info.filename == GAME_MEMBER else
                                source.read(info))
        with pytest.raises(SpecError, match=r"damaged|not one of"):
            make_agent(f"ppo:path={damaged}", game="colosseum")


def test_the_generic_ppo_module_names_no_game() -> None:
    import ast

    import agents.rl.ppo as module

    tree = ast.parse(Path(module.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not {name for name in imported if name and name.startswith("trap_env.trap")}
    assert "Trap!" not in (module.__doc__ or "").splitlines()[0]

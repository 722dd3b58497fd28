"""AlphaZero training: self-play samples, symmetries, the replay buffer, a tiny whole run."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from agents.mcts.agent import MCTSAgent
from agents.mcts.network import IncompatibleNetworkError, load_network
from agents.rl.alphazero import (
    AlphaZeroConfig,
    ReplayBuffer,
    Samples,
    SelfPlay,
    augment,
    build_net,
    imitation_samples,
)
from scripts.train_ppo import main as trap_train
from trap_env import core
from trap_env.core import GameConfig

TINY = {"board_size": 5, "channels": 4, "blocks": 1, "hidden": 4, "games": 3,
        "simulations": 6}


def test_self_play_samples_are_legal_distributions(tmp_path: Path) -> None:
    # Draws after 20 turns at the latest, so that games end within the 60 decisions.
    config = AlphaZeroConfig(run_dir=str(tmp_path), max_turns=20, **TINY)  # type: ignore[arg-type]
    games = SelfPlay(config, np.random.default_rng(0))
    samples, winners = games.play(build_net(config).eval().evaluator(), 60)
    assert len(winners) >= 1 and len(samples) > 0
    assert np.allclose(samples.policies.sum(axis=1), 1.0)
    assert not (samples.policies[~samples.masks] > 0).any()
    assert (np.abs(samples.values) <= 1.0).all()


def test_self_play_follows_its_seed_and_replaces_finished_games(tmp_path: Path) -> None:
    # Draws after 5 turns: every slot's game ends (by the limit if not before) and is replaced.
    settings = {**TINY, "board_size": 4, "max_turns": 5}
    config = AlphaZeroConfig(run_dir=str(tmp_path), **settings)  # type: ignore[arg-type]
    import torch

    torch.manual_seed(0)
    net = build_net(config).eval()
    runs = []
    for seed in (5, 5, 6):
        games = SelfPlay(config, np.random.default_rng(seed))
        samples, winners = games.play(net.evaluator(), 27)
        runs.append((samples, winners, games.games))
    (first, won, left), (again, won_again, left_again), (_, _, left_other) = runs
    assert won == won_again and all(map(np.array_equal, left, left_again))
    for name in ("observations", "masks", "policies", "values"):
        assert np.array_equal(getattr(first, name), getattr(again, name))
    assert not (np.array_equal(left.traps, left_other.traps)
                and np.array_equal(left.cells, left_other.cells))
    # Every slot still holds a game in progress (a finished game was replaced at once).
    assert (left.winner == core.NO_PLAYER).all() and (left.turn < 5).all()
    assert len(won) >= 3 * 2  # 27 decisions: at least 2 whole games in each of 3 slots


def test_a_run_starts_from_a_network_of_its_size_only(tmp_path: Path) -> None:
    config = AlphaZeroConfig(run_dir=str(tmp_path), **TINY)  # type: ignore[arg-type]
    start = tmp_path / "start.npz"
    build_net(config).to_network().save(start)
    warm = build_net(dataclasses.replace(config, initial_network=str(start))).to_network()
    saved = load_network(start)
    assert all(np.array_equal(warm.weights[k], saved.weights[k]) for k in saved.weights)
    wider = dataclasses.replace(config, channels=8, initial_network=str(start))
    with pytest.raises(IncompatibleNetworkError, match="this run needs channels=8"):
        build_net(wider)
    other_board = dataclasses.replace(config, board_size=6, initial_network=str(start))
    with pytest.raises(IncompatibleNetworkError, match="for board 5"):
        build_net(other_board)


def test_imitation_samples_are_the_teachers_choices(tmp_path: Path) -> None:
    config = AlphaZeroConfig(
        run_dir=str(tmp_path), imitation_value_mix=0.0, **TINY  # type: ignore[arg-type]
    )
    samples = imitation_samples("greedy", 2, config, random.Random(1))
    assert len(samples) > 0
    assert (samples.policies.sum(axis=1) == 1.0).all()
    assert samples.masks[samples.policies > 0].all()
    assert set(np.unique(samples.values)) <= {-1.0, 0.0, 1.0}  # the outcomes alone


def test_imitation_values_mix_in_the_teachers_search_value(tmp_path: Path) -> None:
    config = AlphaZeroConfig(
        run_dir=str(tmp_path), imitation_value_mix=1.0, **TINY  # type: ignore[arg-type]
    )
    samples = imitation_samples(
        "expectiminimax:depth=2,time_limit=none", 1, config, random.Random(2)
    )
    assert (np.abs(samples.values) <= 1.0).all()
    assert len(set(samples.values.round(3).tolist())) > 2  # search values, not outcomes


@pytest.mark.parametrize("symmetry", range(8))
def test_symmetries_keep_moves_legal(symmetry: int) -> None:
    rng = random.Random(symmetry)
    rows = []
    state = core.initial_state(GameConfig(5))
    while len(rows) < 10 and not core.is_terminal(state):
        if state.phase is core.Phase.MOVE:
            rows.append(state)
        state = core.apply(state, rng.choice(core.legal_actions(state)))
        if state.phase is core.Phase.LANDING:
            state = core.apply(state, core.sample_landing(state, rng))
    from trap_env.observation import action_mask, observe

    samples = Samples(
        np.stack([observe(s, s.player) for s in rows]),
        np.stack([action_mask(s).astype(bool) for s in rows]),
        np.stack([action_mask(s) / action_mask(s).sum() for s in rows]).astype(np.float32),
        np.zeros(len(rows), np.float32),
    )
    turned = augment(samples, symmetry)
    for planes, mask in zip(turned.observations, turned.masks, strict=True):
        own = int(np.flatnonzero(planes[:, :, 0].ravel())[0])
        blocked = planes[:, :, 1].ravel() | planes[:, :, 2].ravel()
        expected = np.zeros(25, bool)
        neighbours = core.neighbour_mask(5, own)
        for cell in range(25):
            expected[cell] = bool(neighbours >> cell & 1) and not blocked[cell]
        assert (mask == expected).all()


def test_replay_buffer_keeps_the_latest() -> None:
    buffer = ReplayBuffer(board_size=3, capacity=5)
    for value in range(4):
        part = Samples(
            np.zeros((2, 3, 3, 4), np.int8), np.ones((2, 9), bool),
            np.full((2, 9), 1 / 9, np.float32), np.full(2, value, np.float32),
        )
        buffer.add(part)
    assert len(buffer) == 5
    assert buffer.samples.values.tolist() == [1, 2, 2, 3, 3]


def test_config_errors_name_the_setting(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="games must be an integer >= 1"):
        AlphaZeroConfig(run_dir=str(tmp_path), games=0)
    with pytest.raises(ValueError, match="value_mix"):
        AlphaZeroConfig(run_dir=str(tmp_path), value_mix=2.0)
    for field, value in [("max_turns", 0), ("weight_decay", -0.1), ("initial_network", ""),
                         ("simulations", 2.5), ("progress_bar", 1)]:
        with pytest.raises(ValueError, match=f"{field} must be"):
            AlphaZeroConfig(run_dir=str(tmp_path), **{field: value})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="ladder must be a list of agent specs"):
        AlphaZeroConfig(run_dir=str(tmp_path), ladder="random")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="holds a comma"):
        AlphaZeroConfig(run_dir=str(tmp_path / "a,b"), eval_every=5)
    AlphaZeroConfig(run_dir=str(tmp_path / "a,b"), eval_every=0)
    AlphaZeroConfig(run_dir=str(tmp_path / "a=b:c"), eval_every=5)  # read whole


def test_tiny_training_run_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    arguments = [
        "--run-dir", str(run), "--board-size", "5", "--channels", "4", "--blocks", "1",
        "--hidden", "4", "--games", "3", "--decisions", "6", "--simulations", "6",
        "--iterations", "2", "--imitation-games", "2", "--imitation-teacher", "greedy",
        "--eval-every", "2", "--eval-games", "2", "--eval-time-limit", "0.02",
        "--ladder", "random", "greedy", "--checkpoint-every", "1", "--no-progress",
    ]
    assert trap_train(["alphazero", *arguments]) == 0
    assert trap_train(["alphazero", *arguments]) == 1  # the run exists: resume it instead
    assert "--resume" in capsys.readouterr().err
    assert trap_train(["--algo", "alphazero", "--run-dir", str(run), "--resume",
                       "--iterations", "3", "--no-progress"]) == 0
    log = (run / "log.csv").read_text().splitlines()
    assert [line.split(",")[0] for line in log] == ["iteration", "1", "2", "3"]
    assert (run / "elo.csv").read_text().count("\n") == 2  # header + the evaluation
    agent = MCTSAgent(time_limit=None, simulations=10, path=run / "latest.npz")
    state = core.initial_state(GameConfig(5))
    assert agent.select_action(state) in core.legal_actions(state)
    assert sorted(p.name for p in (run / "networks").iterdir())[-1] == "iter_0003.npz"

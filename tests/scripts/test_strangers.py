"""Every test-only game (``tests.support.games.STRANGERS``) through the generic commands,
named by its path as a user's own game is, with the session's registration of its name
taken away (a runner's worker process has none): a tournament of ``random``, a ``ppo`` zip
saved by stable-baselines3 and an ``mcts`` network trained one step, with its plot; a new
ladder (``trap-rate --calibrate --rungs``), then a rating on it.

Each game costs a few seconds: its default rules (small), a PPO of 32 steps, a network of
4 channels, 4 games a pairing, in this process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from trap_scripts import rate, tournament

from tests.support.game_runs import random_decision_states
from tests.support.games import STRANGERS, forget_strangers
from trap_env.game import Game
from trap_env.games import get_game

torch = pytest.importorskip("torch")
sb3_contrib = pytest.importorskip("sb3_contrib")

FAST = ["--time-budget", "none", "--workers", "0", "--seed", "1"]
"""Tiny runs: no clock, in this process."""


@pytest.fixture(scope="module", params=STRANGERS, ids=[name for name, _ in STRANGERS])
def trained(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, list[str]]:
    """A stranger's path and its rungs, trained once for the tests of this file: ``random``,
    a ``ppo`` and an ``mcts`` of the game, without a clock."""
    name, path = request.param
    folder = tmp_path_factory.mktemp(name)
    return path, [
        "random",
        f"ppo:path={ppo_zip(path, folder)}",
        f"mcts:path={mcts_network(path, folder)},simulations=4,time_limit=none",
    ]


@pytest.fixture
def stranger(
    trained: tuple[str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> tuple[str, list[str]]:
    """:func:`trained`, its game's name registered nowhere for the test (as in a fresh
    process given the path: ``trap-tournament --game PATH``)."""
    forget_strangers(monkeypatch)
    return trained


def ppo_zip(path: str, folder: Path) -> Path:
    """A MaskablePPO ``"MlpPolicy"`` of a few steps on the game's Gymnasium env, saved by
    stable-baselines3 and stamped with the game and its rules."""
    from sb3_contrib import MaskablePPO

    from agents.rl.ppo import stamp_model
    from trap_env.gym_env import GameEnv

    kwargs = {"net_arch": [8], "activation_fn": torch.nn.ReLU}
    model = MaskablePPO("MlpPolicy", GameEnv(path), n_steps=16, batch_size=16, n_epochs=1,
                        policy_kwargs=kwargs, seed=0, device="cpu")  # fmt: skip
    model.learn(32)
    saved = folder / "ppo.zip"
    model.save(saved)
    stamp_model(saved, game=path)
    return saved


def mcts_network(path: str, folder: Path) -> Path:
    """A network of 4 channels for the game, trained one step on its random decisions
    (uniform policy targets, value 0), saved as trap-train saves one."""
    from agents.rl.alphazero import AlphaZeroNet, Samples, train_step

    game: Game[Any, Any] = get_game(path)
    config = game.make_config()
    torch.manual_seed(0)
    net = AlphaZeroNet(game, config, channels=4, blocks=1, hidden=4)
    states = random_decision_states(game, config, seed=0, count=8)
    masks = np.array([game.legal_action_mask(state) for state in states], np.bool_)
    observations = np.array([game.observe(s, game.current_player(s)) for s in states], np.int8)
    samples = Samples(observations, masks, masks / masks.sum(1, keepdims=True),
                      np.zeros(len(states), np.float32))  # fmt: skip
    train_step(net.train(), torch.optim.SGD(net.parameters(), lr=0.1), samples)
    saved = folder / "mcts.npz"
    net.eval().to_network().save(saved)
    return saved


def records(folder: Path) -> list[dict[str, Any]]:
    """The records a run wrote."""
    lines = (folder / "results.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_a_stranger_plays_a_tournament_of_random_ppo_and_mcts_with_its_plot(
    stranger: tuple[str, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, specs = stranger
    out = tmp_path / "run"
    argv = [*specs, "--game", path, "--games", "2", *FAST, "--quiet", "--output", str(out)]
    assert tournament.main(argv) == 0, capsys.readouterr().err
    played = records(out)
    assert len(played) == 6 and {record["game"] for record in played} == {path}
    ends = {*get_game(path).end_reasons, "truncated"}
    assert {record["reason"] for record in played} <= ends  # no agent's fault
    assert (out / "tournament.png").read_bytes()[:4] == b"\x89PNG"


def test_a_stranger_gets_a_new_ladder_and_a_rating_on_it(
    stranger: tuple[str, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The ladder's rungs are ``random`` and the ``mcts`` (the ``ppo``'s torch would cost
    each command's checking process seconds); the rating is a stronger ``mcts``'s."""
    path, (anchor, _, mcts) = stranger
    ladder = tmp_path / "ladder.json"
    calibrate = ["--calibrate", "--rungs", anchor, mcts, "--game", path, "--workers", "0",
                 "--games-per-pairing", "2", "--ladder-out", str(ladder),
                 "--output", str(tmp_path / "calib")]  # fmt: skip
    assert rate.main(calibrate) == 0, capsys.readouterr().err
    assert json.loads(ladder.read_text())["game"] == path
    stronger = mcts.replace("simulations=4", "simulations=8")
    rating = [stronger, "--game", path, "--ladder", str(ladder), "--games", "4", "--workers",
              "0", "--output", str(tmp_path / "rating")]  # fmt: skip
    assert rate.main(rating) == 0, capsys.readouterr().err
    assert "(4 games)" in capsys.readouterr().out

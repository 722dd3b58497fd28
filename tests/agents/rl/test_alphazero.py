"""AlphaZero training: self-play samples, symmetries, the replay buffer, a tiny whole run."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings

from tests.support import crafted_files
from tests.support.damaged_runs import (
    DAMAGES,
    Damage,
    check_bad_run_dirs_refused,
    copy_run,
    damaged_copy,
    damages,
    files_of,
)

pytest.importorskip("torch")

from trap_scripts.train import main as trap_train

from agents.mcts.agent import MCTSAgent
from agents.mcts.network import IncompatibleNetworkError, load_network
from agents.rl.alphazero import (
    AlphaZeroConfig,
    ReplayBuffer,
    Samples,
    SelfPlay,
    augment,
    build_net,
    build_parser,
    imitation_samples,
)
from trap_env.trap import core
from trap_env.trap.core import GameConfig

TINY = {"game_name": "trap", "rules": {"board_size": 5}, "channels": 4, "blocks": 1, "hidden": 4,
        "games": 3, "simulations": 6}


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
    settings = {**TINY, "rules": {"board_size": 4}, "max_turns": 5}
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
    other_board = dataclasses.replace(config, rules={"board_size": 6}, initial_network=str(start))
    with pytest.raises(IncompatibleNetworkError, match=r"for trap \(board_size=5"):
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
    from trap_env.trap.observation import action_mask, observe

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
    buffer = ReplayBuffer((3, 3, 4), 9, capacity=5)
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
        AlphaZeroConfig(game_name="trap", run_dir=str(tmp_path), games=0)
    with pytest.raises(ValueError, match="value_mix"):
        AlphaZeroConfig(game_name="trap", run_dir=str(tmp_path), value_mix=2.0)
    for field, value in [("max_turns", 0), ("weight_decay", -0.1), ("initial_network", ""),
                         ("simulations", 2.5), ("progress_bar", 1)]:
        with pytest.raises(ValueError, match=f"{field} must be"):
            AlphaZeroConfig(game_name="trap", run_dir=str(tmp_path), **{field: value})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="ladder must be a list of agent specs"):
        AlphaZeroConfig(game_name="trap", run_dir=str(tmp_path), ladder="random")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least one agent spec, or eval_every=0"):
        AlphaZeroConfig(game_name="trap", run_dir=str(tmp_path), ladder=[], eval_every=5)
    with pytest.raises(ValueError, match="holds a comma"):
        AlphaZeroConfig(game_name="trap", run_dir=str(tmp_path / "a,b"), eval_every=5)
    AlphaZeroConfig(game_name="trap", run_dir=str(tmp_path / "a,b"), eval_every=0)
    AlphaZeroConfig(game_name="trap", run_dir=str(tmp_path / "a=b:c"), eval_every=5)  # read whole


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
    with (run / "log.csv").open("a") as log:  # an iteration logged after the last checkpoint
        log.write("3,0.1,1,1,1.0,1.0,0.5\n")
    assert trap_train(["--algo", "alphazero", "--run-dir", str(run), "--resume",
                       "--iterations", "3", "--no-progress"]) == 0
    log = (run / "log.csv").read_text().splitlines()
    assert [line.split(",")[0] for line in log] == ["iteration", "1", "2", "3"]
    assert (run / "elo.csv").read_text().count("\n") == 2  # header + the evaluation
    agent = MCTSAgent(time_limit=None, simulations=10, path=run / "latest.npz", game="trap")
    state = core.initial_state(GameConfig(5))
    assert agent.select_action(state) in core.legal_actions(state)
    assert sorted(p.name for p in (run / "networks").iterdir())[-1] == "iter_0003.npz"


def test_a_ladder_of_one_rung_evaluates_without_a_round_robin(tmp_path: Path) -> None:
    run = tmp_path / "run"
    arguments = [
        "--run-dir", str(run), "--board-size", "4", "--channels", "4", "--blocks", "1",
        "--hidden", "4", "--games", "2", "--decisions", "3", "--simulations", "3",
        "--iterations", "1", "--imitation-games", "0", "--eval-every", "1", "--eval-games", "2",
        "--eval-time-limit", "0.02", "--ladder", "greedy", "--no-progress",
    ]  # fmt: skip
    assert trap_train(["alphazero", *arguments]) == 0
    assert not (run / "ladder.jsonl").exists()
    assert len((run / "eval_0001.jsonl").read_text().splitlines()) == 2
    assert (run / "elo.csv").read_text().count("\n") == 2  # header + the evaluation


# --- The run folder: interrupts, damaged and crafted files, flags on --resume -------------

QUICK_RUN = ["--board-size", "4", "--channels", "4", "--blocks", "1", "--hidden", "4",
             "--games", "2", "--decisions", "3", "--simulations", "3", "--iterations", "1",
             "--checkpoint-every", "1", "--no-progress"]  # fmt: skip


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-iteration run on a 4x4 board (checkpoint, buffer and config written)."""
    run = tmp_path_factory.mktemp("az") / "run"
    assert trap_train(["alphazero", "--run-dir", str(run), *QUICK_RUN]) == 0
    return run


@pytest.fixture
def run_copy(finished_run: Path, tmp_path: Path) -> Path:
    return copy_run(finished_run, tmp_path / "run")


def alphazero(*flags: str) -> tuple[int, str]:
    """``trap-train alphazero FLAGS``: its status and its stderr."""
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
        status = trap_train(["alphazero", *flags])
    return status, errors.getvalue()


def resume(run: Path, *extra: str) -> tuple[int, str]:
    """``trap-train alphazero --resume`` on ``run``: its status and its stderr."""
    return alphazero("--run-dir", str(run), "--resume", "--no-progress", *extra)


def assert_one_line(err: str, *words: str) -> None:
    crafted_files.assert_one_line(err, "trap-train alphazero: error:", *words)


def test_run_files_are_written_whole_with_no_temporaries_left(finished_run: Path) -> None:
    names = {path.name for path in finished_run.iterdir()}
    assert {"config.json", "checkpoint.pt", "replay.npz", "latest.npz"} <= names
    assert not [name for name in names if name.startswith(".") or ".tmp" in name]


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _drop_values(path: Path) -> None:  # what a Ctrl-C during the old in-place write left
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files if name != "values"}
    np.savez_compressed(path, **arrays)


@pytest.mark.parametrize("damage", [_truncate, _drop_values, lambda p: p.write_bytes(b"")],
                         ids=["truncated", "no-values", "empty"])
def test_a_damaged_replay_buffer_is_named_and_deleting_it_resumes(
    run_copy: Path, damage: Callable[[Path], None]
) -> None:
    damage(run_copy / "replay.npz")
    config_before = (run_copy / "config.json").read_bytes()
    status, err = resume(run_copy, "--iterations", "2")
    assert status == 1
    assert_one_line(err, "replay.npz", "delete it")
    assert (run_copy / "config.json").read_bytes() == config_before
    (run_copy / "replay.npz").unlink()
    assert resume(run_copy, "--iterations", "2")[0] == 0
    assert (run_copy / "networks" / "iter_0002.npz").is_file()


@pytest.mark.parametrize("damage", [_truncate, lambda p: p.write_bytes(b"garbage" * 9)],
                         ids=["truncated", "garbage"])
def test_a_damaged_checkpoint_is_named_in_one_line(
    run_copy: Path, damage: Callable[[Path], None]
) -> None:
    damage(run_copy / "checkpoint.pt")
    status, err = resume(run_copy)
    assert status == 1
    assert_one_line(err, "checkpoint.pt", "damaged")


@pytest.mark.parametrize("text", ["{", "", "[1, 2]", '{"run_dir": 3}'])
def test_a_damaged_config_is_named_in_one_line(
    run_copy: Path, text: str
) -> None:
    (run_copy / "config.json").write_text(text)
    status, err = resume(run_copy)
    assert status == 1
    assert_one_line(err, "config.json")


def test_a_crafted_checkpoint_is_refused_without_running_it(
    run_copy: Path, tmp_path: Path
) -> None:
    import torch

    marker = tmp_path / "pwned"
    state = torch.load(run_copy / "checkpoint.pt", weights_only=True)
    state["progress"] = crafted_files.Payload(marker)
    torch.save(state, run_copy / "checkpoint.pt")
    status, err = resume(run_copy)
    assert status == 1 and not marker.exists()
    assert_one_line(err, "checkpoint.pt", "refused unread")


def test_a_resume_keeps_the_generators_of_its_checkpoint(run_copy: Path) -> None:
    import torch

    state = torch.load(run_copy / "checkpoint.pt", weights_only=True)
    assert state["progress"]["iteration"] == 1 and isinstance(state["rng"], list)


@pytest.mark.parametrize(
    ("flags", "named"),
    [(["--board-size", "5"], ["--board-size 5 (the run has 4)"]),
     (["--channels", "8", "--hidden", "9"], ["--channels 8", "--hidden 9"]),
     (["--seed", "3"], ["--seed 3"])],
)
def test_a_flag_the_run_cannot_take_is_refused_and_changes_nothing(
    run_copy: Path, flags: list[str], named: list[str]
) -> None:
    before = {path.name: path.read_bytes() for path in run_copy.iterdir() if path.is_file()}
    status, err = resume(run_copy, *flags)
    assert status == 1
    assert_one_line(err, *named, "new run")
    after = {path.name: path.read_bytes() for path in run_copy.iterdir() if path.is_file()}
    assert after == before
    assert resume(run_copy, "--board-size", "4")[0] == 0  # its own value is fine


def test_a_flag_the_run_can_take_is_recorded(
    run_copy: Path
) -> None:
    assert resume(run_copy, "--iterations", "2", "--simulations", "4",
                  "--learning-rate", "0.25")[0] == 0
    config = AlphaZeroConfig.load(run_copy / "config.json")
    assert (config.iterations, config.simulations) == (2, 4)
    import torch

    state = torch.load(run_copy / "checkpoint.pt", weights_only=True)
    assert state["optimizer"]["param_groups"][0]["lr"] == 0.25  # taken, not only recorded


def _stored_as_before(run: Path, shape: str) -> None:
    """Rewrite ``run``'s config.json as an earlier version wrote it: ``"no game"`` (before
    ``game_name``), ``"rule fields"`` (Trap!'s rules in fields of their own)."""
    import json

    fields = json.loads((run / "config.json").read_text())
    rules = fields.pop("rules")
    if shape == "no game":
        del fields["game_name"]
    fields |= {"board_size": rules["board_size"], "decay": 50}
    if shape == "rule fields":
        fields["rules"] = None
    (run / "config.json").write_text(json.dumps(fields))


@pytest.mark.parametrize("shape", ["no game", "rule fields"])
def test_a_config_written_before_resumes_with_its_rules(run_copy: Path, shape: str) -> None:
    _stored_as_before(run_copy, shape)
    config = AlphaZeroConfig.load(run_copy / "config.json")
    assert (config.game_name, config.rules) == ("trap", {"board_size": 4, "decay": 50})
    assert resume(run_copy, "--board-size", "4")[0] == 0  # its own value is fine
    assert resume(run_copy, "--iterations", "2")[0] == 0
    assert (run_copy / "networks" / "iter_0002.npz").is_file()
    status, err = resume(run_copy, "--decay", "0")
    assert status == 1
    assert_one_line(err, "--decay 0 (the run has 50)", "new run")


def test_an_othello_config_written_before_loads_and_refuses_trap_fields(tmp_path: Path) -> None:
    import json

    path = tmp_path / "config.json"
    fields = {"run_dir": str(tmp_path), "game_name": "othello", "rules": {"board_size": 4}}
    path.write_text(json.dumps(fields | {"board_size": 7, "decay": 50}))
    assert AlphaZeroConfig.load(path).rules == {"board_size": 4}
    path.write_text(json.dumps(fields | {"board_size": 8, "decay": 50}))
    with pytest.raises(ValueError, match="give every rule parameter in rules"):
        AlphaZeroConfig.load(path)


def test_the_ladder_evaluation_plays_the_runs_own_rules(tmp_path: Path) -> None:
    """A Trap! run with another decay is evaluated under that decay (no default rule)."""
    from agents.rl.alphazero.ladder import run_config

    config = AlphaZeroConfig(str(tmp_path), "trap", {"decay": 0}, eval_every=5)
    assert run_config(config).params == {"decay": 0}


def test_the_game_is_the_command_lines_choice(tmp_path: Path) -> None:
    """The trainer names no game of its own: ``trap-train`` passes its default (Trap!),
    and without one a new run needs ``--game``."""
    from agents.rl.alphazero import main

    with pytest.raises(TypeError, match="game_name"):
        AlphaZeroConfig(run_dir=str(tmp_path))  # type: ignore[call-arg]
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors):
        assert main(["--run-dir", str(tmp_path / "run")]) == 1
    assert "give the game: --game NAME" in errors.getvalue()
    assert not (tmp_path / "run").exists()
    assert build_parser(default_game="trap").parse_args(["--run-dir", "x"]).default_game == "trap"


@pytest.mark.parametrize(
    ("flags", "message"),
    [(["--board-size", "9"], "board sizes 3..8"),
     (["--board-size", "2"], "board"),
     (["--imitation-games", "1", "--imitation-teacher", "nobody"], "nobody")],
)
def test_a_bad_config_leaves_no_run_folder_and_the_retry_works(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    run = tmp_path / "run"
    status = trap_train(["alphazero", "--run-dir", str(run), *QUICK_RUN, *flags])
    err = capsys.readouterr().err
    assert status == 1 and not run.exists()
    assert_one_line(err, message)
    assert trap_train(["alphazero", "--run-dir", str(run), *QUICK_RUN]) == 0


def test_an_empty_or_file_run_dir_is_refused(tmp_path: Path) -> None:
    check_bad_run_dirs_refused(
        tmp_path, lambda *flags: alphazero(*flags, *QUICK_RUN), assert_one_line
    )


RUN_FILES = ["config.json", "checkpoint.pt", "replay.npz", "latest.npz", "log.csv",
             "networks/iter_0001.npz"]  # fmt: skip
def test_the_run_files_are_the_ones_damaged_below(finished_run: Path) -> None:
    assert sorted(files_of(finished_run)) == sorted(RUN_FILES)


@pytest.mark.parametrize("damage", DAMAGES)
@pytest.mark.parametrize("name", RUN_FILES)
def test_any_damaged_file_resumes_or_is_one_line_that_changes_nothing(
    run_copy: Path, name: str, damage: str
) -> None:
    DAMAGES[damage](run_copy / name)
    check_resume_after_damage(run_copy, name)


@settings(max_examples=8, deadline=None)  # the fixed damages of every file are a test above
@given(damaged=damages(RUN_FILES))
@example(damaged=("log.csv", ("swapped", "checkpoint.pt")))  # appending to it raised
def test_fuzzed_damage_resumes_or_is_one_line_that_changes_nothing(
    finished_run: Path, tmp_path_factory: pytest.TempPathFactory, damaged: tuple[str, Damage]
) -> None:
    name, damage = damaged
    run = damaged_copy(finished_run, tmp_path_factory.mktemp("az") / "run", name, damage)
    check_resume_after_damage(run, name)


def check_resume_after_damage(run: Path, name: str) -> None:
    """Resume a run whose file ``name`` is damaged: it trains on and stays resumable, or
    it is one line naming the file and the folder is as it was."""
    before = files_of(run)
    status, err = resume(run, "--iterations", "2")
    assert "Traceback" not in err, err
    if status == 0:
        assert (run / "networks" / "iter_0002.npz").is_file()
        assert resume(run, "--iterations", "3")[0] == 0
    else:
        assert_one_line(err, name)
        assert files_of(run) == before


def test_ctrl_c_is_one_line_that_says_to_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents.rl.alphazero import run

    def interrupted(config: AlphaZeroConfig, resume: bool = False) -> Path:
        raise KeyboardInterrupt

    monkeypatch.setattr(run, "train", interrupted)
    assert trap_train(["alphazero", "--run-dir", str(tmp_path / "run"), *QUICK_RUN]) == 1
    assert_one_line(capsys.readouterr().err, "interrupted", "--resume")


def test_logs_cut_short_are_appended_to_and_plotted_without_the_torn_row(
    tmp_path: Path,
) -> None:
    from agents.rl.alphazero.run import _append_csv, plot_elo

    elo = tmp_path / "elo.csv"
    _append_csv(elo, {"iteration": 1, "minutes": 0.5, "elo_vs_random": 10.0, "elo_greedy": 5})
    elo.write_text(elo.read_text() + "2,1.0,2")  # an interrupt in the middle of a row
    _append_csv(elo, {"iteration": 3, "minutes": 1.5, "elo_vs_random": 30.0, "elo_greedy": 6})
    lines = elo.read_text().splitlines()
    assert lines[0] == "iteration,minutes,elo_vs_random,elo_greedy" and lines[-1] == "3,1.5,30.0,6"
    pytest.importorskip("matplotlib")
    assert plot_elo(tmp_path, tmp_path / "elo.png") and (tmp_path / "elo.png").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elo.csv", "elo.png"]


def test_a_diverged_network_is_named_and_never_saved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents.rl.alphazero import run

    monkeypatch.setattr(run, "fit", lambda *args: (float("nan"), 0.5))
    run = tmp_path / "run"
    assert trap_train(["alphazero", "--run-dir", str(run), *QUICK_RUN]) == 1
    assert_one_line(capsys.readouterr().err, "diverged in iteration 1", "not finite")
    assert not (run / "networks" / "iter_0001.npz").exists()


# --- Othello: the same trainer on another game's batched engine -------------------------

OTHELLO_TINY = {"game_name": "othello", "rules": {"board_size": 4},
                "channels": 4, "blocks": 1, "hidden": 4, "games": 3, "simulations": 6}


def othello_config(tmp_path: Path, **changes: object) -> AlphaZeroConfig:
    """A tiny Othello run's settings (``changes`` replace fields)."""
    return AlphaZeroConfig(run_dir=str(tmp_path), **{**OTHELLO_TINY, **changes})  # type: ignore[arg-type]


def test_othello_self_play_records_the_scalar_games_masks_passes_included(tmp_path: Path) -> None:
    from trap_env.othello.game import GAME

    config = othello_config(tmp_path, rules={"board_size": 4}, temperature_turns=20)
    games = SelfPlay(config, np.random.default_rng(1))
    net = build_net(config).eval()
    seen: list[Samples] = []
    for _ in range(40):  # 4x4 games end within 12 placements (and passes)
        before = games.engine.to_states(games.games)
        samples, _ = games.play(net.evaluator(), 1)
        seen.append(samples)
        for state, recorder in zip(before, games.recorders, strict=True):
            if not recorder.rows:  # its game ended: the recorder is a new one
                continue
            observation, mask, policy, player, _ = recorder.rows[-1]
            assert player == GAME.current_player(state)
            assert np.array_equal(observation, GAME.observe(state, player))
            assert mask.tolist() == [bool(x) for x in GAME.legal_action_mask(state)]
            assert np.isclose(policy.sum(), 1.0) and not (policy[~mask] > 0).any()
    finished = Samples.concatenate(seen)
    assert finished.masks.shape[1] == 17 and finished.masks[:, 16].any()  # a pass was recorded
    assert (np.abs(finished.values) <= 1.0).all()


def test_symmetries_turn_othellos_cells_and_keep_the_pass() -> None:
    from trap_env.othello.game import GAME

    rng = random.Random(0)
    config = GAME.make_config(board_size=6)
    state, rows = GAME.initial_state(config), []
    while GAME.outcome(state) is None:
        rows.append(state)
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    masks = np.array([GAME.legal_action_mask(s) for s in rows], bool)
    samples = Samples(
        np.stack([GAME.observe(s, GAME.current_player(s)) for s in rows]), masks,
        (masks / masks.sum(axis=1, keepdims=True)).astype(np.float32),
        np.zeros(len(rows), np.float32),
    )
    for symmetry in range(8):
        turned = augment(samples, symmetry)
        # The turned "may place here" plane (2) is the turned mask's cells; the pass stays.
        cells = turned.observations[:, :, :, 2].reshape(len(rows), -1).astype(bool)
        assert np.array_equal(turned.masks[:, :36], cells)
        assert np.array_equal(turned.masks[:, 36], masks[:, 36])


def test_an_othello_run_trains_and_its_network_plays_othello_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agents.registry import make_agent
    from trap_env.agent import UnsupportedGameError
    from trap_env.othello.game import GAME

    run = tmp_path / "run"
    arguments = [
        "alphazero", "--game", "othello", "--board-size", "4", "--rule", "end_rule=course",
        "--run-dir", str(run), "--channels", "4", "--blocks", "1", "--hidden", "4",
        "--games", "3", "--decisions", "4", "--simulations", "4", "--iterations", "2",
        "--imitation-games", "2", "--imitation-teacher", "greedy", "--eval-every", "2",
        "--eval-games", "2", "--eval-time-limit", "0.02", "--ladder", "random",
        "--no-progress",
    ]
    assert trap_train(arguments) == 0
    network = load_network(run / "latest.npz")
    assert (network.game_name, dict(network.rules)) == (
        "othello", {"board_size": 4, "end_rule": "course"}
    )
    assert network.layout == (1, 1) and (run / "elo.csv").read_text().count("\n") == 2
    resumed = ["alphazero", "--run-dir", str(run), "--resume", "--rule", "end_rule=standard"]
    capsys.readouterr()
    assert trap_train(resumed) == 1
    assert "--rule end_rule=standard (the run has course)" in capsys.readouterr().err
    agent = make_agent(f"mcts:simulations=8,time_limit=none,path={run / 'latest.npz'}",
                       game="othello", seed=0)
    state = GAME.initial_state(network.config)
    assert agent.select_action(state) in GAME.legal_actions(state)
    with pytest.raises(UnsupportedGameError, match="--rule end_rule=standard"):
        agent.check_game(GAME.make_config(board_size=4))
    with pytest.raises(ValueError, match=r"plays othello .* not trap"):
        make_agent(f"mcts:simulations=8,path={run / 'latest.npz'}", game="trap")


@pytest.mark.parametrize(
    ("changes", "message"),
    [({"rules": None, "game_name": "colosseum"}, "colosseum' has no batched engine"),
     ({"rules": {"board_size": 10}}, "up to 8x8"),
     ({"rules": {"board_size": 5}}, "even integer"),
     ({"rules": {"size": 8}}, "no rule parameter"),
     ({"rules": {"board_size": 4, "decay": 0}}, r"Othello has no rule parameter \['decay'\]"),
     ({"game_name": "trap", "rules": {"end_rule": "course"}}, "Trap! has no rule parameter"),
     ({"game_name": "mypackage.game:GAME"}, "game_name must be one of")],
)
def test_an_othello_config_names_what_is_wrong(
    tmp_path: Path, changes: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        othello_config(tmp_path, **changes)


def test_rule_flags_are_the_rules_of_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--board-size``, ``--decay`` and ``--rule`` all give the game's rules, which its own
    ``make_config`` checks: Trap!'s decay is a rule like another game's."""
    run = str(tmp_path / "run")
    assert trap_train(["alphazero", "--run-dir", run, "--decay", "6", "--rule", "decay=6"]) == 1
    assert "the rule 'decay' is given twice" in capsys.readouterr().err
    assert trap_train(["alphazero", "--run-dir", run, "--game", "othello", "--decay", "6"]) == 1
    assert "Othello has no rule parameter ['decay']" in capsys.readouterr().err
    assert trap_train(["alphazero", "--run-dir", run, "--rule", "decay=1001"]) == 1
    assert "decay must be an integer per mille in 0..1000" in capsys.readouterr().err
    flags = ["--game", "othello", "--rule", "board_size=6", "--board-size", "6"]
    assert trap_train(["alphazero", "--run-dir", run, *flags]) == 1
    assert "the rule 'board_size' is given twice" in capsys.readouterr().err
    assert not Path(run).exists()

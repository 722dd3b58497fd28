"""trap-train's config: checked whole before the run folder is touched; one-line errors."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import cli_fuzz, crafted_files
from tests.support.damaged_runs import (
    DAMAGES,
    Damage,
    check_bad_run_dirs_refused,
    copy_run,
    damaged_copy,
    damages,
    files_of,
)

pytest.importorskip("sb3_contrib")

from hypothesis import given, settings
from hypothesis import strategies as st
from trap_scripts import train

from agents.trap.ppo_training import CONFIG_FILE, TrainConfig
from trap_env.agent import UnsupportedGameError
from trap_env.games import game_names
from trap_env.trap.core import GameConfig, State, legal_actions

QUICK = ["--timesteps", "64", "--n-steps", "32", "--batch-size", "32", "--num-envs", "1",
         "--no-subprocess", "--eval-every", "0", "--no-progress", "--stage", "random"]  # fmt: skip


class SevenOnly:
    """An agent that plays 7x7 boards only (like the bundled ppo)."""

    def __init__(self, seed: int | None = None) -> None:
        del seed

    def check_game(self, config: GameConfig) -> None:
        if config.board_size != 7:
            raise UnsupportedGameError(f"SevenOnly plays 7x7, not {config.board_size}")

    def reset(self, seed: int | None = None) -> None:
        del seed

    def select_action(self, state: State) -> int:
        return legal_actions(state)[0]


def main(argv: list[str]) -> tuple[int, str]:
    """``train.main(argv)``: its exit status and stderr."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            status = train.main(argv)
        except SystemExit as exit_:
            status = int(exit_.code or 0)
    return status, err.getvalue()


BAD_RUNS = [
    (["--stage", "no_such_agent"], "unknown agent 'no_such_agent'"),
    (["--stage", "random|random:depth=2"], "takes no option 'depth'"),
    (["--stage", f"{__name__}.SevenOnly", "--board-size", "5"], "plays 7x7, not 5"),
    (["--eval-every", "32", "--eval-opponent", "nobody"], "unknown agent 'nobody'"),
    (["--batch-size", "1"], "batch_size must be"),
    (["--batch-size", "48"], "divide the rollout of n_steps * num_envs = 32 * 1 = 32"),
    (["--batch-size", "x"], "--batch-size"),
    (["--gamma", "0"], "gamma must be a number in (0, 1]"),
    (["--num-envs", "0"], "num_envs must be an integer >= 1"),
    (["--stage-fractions", "0.5"], "stage_fractions"),
    (["--rule", "decay=0"], "--rule decay=0: PPO trains one game of Trap!, with the rules "
                            "board_size (the others at their defaults)"),
    (["--rule", "board_size=4-6"], "--rule board_size=4-6: PPO trains one game of Trap!"),
    (["--rule", "board_size=4", "--board-size", "4"], "the rule 'board_size' is given twice"),
    (["--rule", "size=4"], "Trap! has no rule 'size'; Trap!'s rules, at their defaults: "
                           "board_size=7, decay=50"),
    (["--rule", f"{__name__}.SevenOnly"], "is not KEY=VALUE"),
]


def test_a_ppo_rule_is_its_flag_said_as_a_rule() -> None:
    parse = train.build_parser().parse_args
    as_rule = train.config_from_args(parse(["--run-dir", "r", "--rule", "board_size=4"]))
    assert as_rule == train.config_from_args(parse(["--run-dir", "r", "--board-size", "4"]))
    assert as_rule == {"board_size": 4}


@pytest.mark.parametrize(("extra", "message"), BAD_RUNS)
def test_a_bad_config_is_one_line_and_leaves_no_run_folder(
    tmp_path: Path, extra: list[str], message: str
) -> None:
    run = tmp_path / "run"
    status, err = main(["--run-dir", str(run), *QUICK, *extra])
    assert status != 0 and message in err, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("trap-train: error:")
    assert not run.exists()


def saved_config(run: Path, **fields: Any) -> dict[str, Any]:
    """Save a valid config in ``run``, changed by ``fields``; return what was written."""
    run.mkdir()
    data = json.loads(json.dumps(TrainConfig(str(run), n_steps=32, batch_size=32).__dict__))
    data.update(fields)
    (run / CONFIG_FILE).write_text(json.dumps(data))
    return data


def test_an_unknown_config_key_is_named_with_the_allowed_ones(tmp_path: Path) -> None:
    saved_config(tmp_path / "run", learning_rat=0.1)
    status, err = main(["--run-dir", str(tmp_path / "run"), "--resume"])
    assert status == 1 and "unknown keys ['learning_rat']" in err and "learning_rate" in err
    assert len(err.strip().splitlines()) == 1


def test_a_bad_value_in_config_json_is_named(tmp_path: Path) -> None:
    saved_config(tmp_path / "run", batch_size="256")
    status, err = main(["--run-dir", str(tmp_path / "run"), "--resume"])
    assert status == 1 and "batch_size must be an integer >= 2, got '256'" in err


def test_resume_without_a_run_says_so(tmp_path: Path) -> None:
    status, err = main(["--run-dir", str(tmp_path / "none"), "--resume"])
    assert status == 1 and "nothing to resume" in err


def test_a_run_stopped_before_its_first_checkpoint_resumes_from_the_start(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    saved_config(
        run, total_timesteps=64, num_envs=1, subprocess=False, eval_every=0, progress_bar=False
    )
    status, err = main(["--run-dir", str(run), "--resume"])
    assert status == 0, err
    assert (run / "final_model.zip").is_file()


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
KEYS = st.sampled_from([*TrainConfig.__dataclass_fields__, "unknown_key"])


@given(st.dictionaries(KEYS, JSON, max_size=4), st.booleans())
def test_fuzzed_config_files_load_or_raise_a_value_error(
    tmp_path_factory: pytest.TempPathFactory, changes: dict[str, Any], drop_run_dir: bool
) -> None:
    data = {**TrainConfig("run").__dict__, **changes}
    if drop_run_dir:
        data.pop("run_dir")
    path = tmp_path_factory.mktemp("config") / CONFIG_FILE
    path.write_text(json.dumps(data))
    try:
        config = TrainConfig.load(path)
    except ValueError as error:
        assert "\n" not in str(error)
    else:
        assert TrainConfig(**config.__dict__) == config


@given(st.binary(max_size=100))
def test_fuzzed_bytes_raise_a_value_error(
    tmp_path_factory: pytest.TempPathFactory, content: bytes
) -> None:
    path = tmp_path_factory.mktemp("config") / CONFIG_FILE
    path.write_bytes(content)
    with pytest.raises(ValueError):
        TrainConfig.load(path)


def test_train_takes_game_trap_and_refuses_other_games_in_one_line(capsys) -> None:
    from trap_scripts import train

    assert train.main(["--game", "chess", "--run-dir", "unused"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'chess'" in err and "trap" in err
    assert train.main(["--game=othello", "--run-dir", "unused"]) == 2
    assert "PPO trains trap only (trap-train alphazero trains othello too)" in (
        capsys.readouterr().err
    )
    assert train.main(["alphazero", "--game", "colosseum", "--run-dir", "unused"]) == 1
    assert "colosseum' has no batched engine" in capsys.readouterr().err
    assert train.main(["alphazero", "--game=toy_game:GAME", "--run-dir", "unused"]) == 1
    assert f"game_name must be one of {', '.join(game_names())}" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # --game trap reaches the parser, which wants its flags
        train.main(["--game", "trap"])


# --- The run folder: interrupts, damaged and crafted files, flags on --resume -------------

SMALL = [*QUICK, "--board-size", "4", "--checkpoint-every", "32", "--seed", "1",
         "--eval-every", "32", "--eval-episodes", "2", "--eval-opponent", "random",
         "--self-play-fraction", "0.5", "--snapshot-every", "32", "--pool-size", "2"]  # fmt: skip


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 64-step run on a 4x4 board with checkpoints, snapshots and evaluations at 32 and 64
    steps."""
    run = tmp_path_factory.mktemp("ppo") / "run"
    status, err = main(["--run-dir", str(run), *SMALL])
    assert status == 0, err
    return run


@pytest.fixture
def run_copy(finished_run: Path, tmp_path: Path) -> Path:
    return copy_run(finished_run, tmp_path / "run")


def resume(run: Path, *extra: str) -> tuple[int, str]:
    return main(["--run-dir", str(run), "--resume", *extra])


def assert_one_line(err: str, *words: str) -> None:
    crafted_files.assert_one_line(err, "trap-train: error:", *words)


def steps_of(model: Path) -> int:
    from agents.rl.ppo import read_model_spec

    return read_model_spec(model).num_timesteps


def test_every_run_file_is_whole_with_no_temporaries_left(finished_run: Path) -> None:
    names = sorted(files_of(finished_run))
    assert "checkpoints/ppo_32_steps.zip" in names and "checkpoints/ppo_64_steps.zip" in names
    assert not [name for name in names if "/." in name or name.startswith(".")]


def test_a_damaged_newest_checkpoint_falls_back_to_the_one_before(run_copy: Path) -> None:
    newest = run_copy / "checkpoints" / "ppo_64_steps.zip"
    newest.write_bytes(newest.read_bytes()[:1000])
    status, err = resume(run_copy, "--timesteps", "96")
    assert status == 0, err
    assert "ppo_64_steps.zip" in err and "skipping" in err and "Traceback" not in err
    assert steps_of(run_copy / "final_model.zip") == 96  # 32 + 64 more


def test_no_readable_checkpoint_is_one_line_and_changes_nothing(run_copy: Path) -> None:
    for checkpoint in (run_copy / "checkpoints").iterdir():
        checkpoint.write_bytes(b"PK\x03\x04" + b"x" * 50)
    before = files_of(run_copy)
    status, err = resume(run_copy, "--timesteps", "96")
    assert status == 1
    assert_one_line(err.splitlines()[-1], "none of the 2 checkpoints", "ppo_64_steps.zip")
    assert files_of(run_copy) == before


@pytest.mark.parametrize("text", ["{", "", '{"run_dir": "x", "board_size": 4'])
def test_a_damaged_config_is_one_line(run_copy: Path, text: str) -> None:
    (run_copy / CONFIG_FILE).write_text(text)
    status, err = resume(run_copy)
    assert status == 1
    assert_one_line(err, CONFIG_FILE)


def test_a_crafted_checkpoint_never_runs_its_payload(run_copy: Path, tmp_path: Path) -> None:
    import zipfile

    marker = tmp_path / "pwned"
    path = run_copy / "checkpoints" / "ppo_64_steps.zip"
    with zipfile.ZipFile(path) as source:
        members = {info.filename: source.read(info) for info in source.infolist()}
    data = json.loads(members["data"])
    data["_last_obs"] = crafted_files.serialized_payload(marker)
    members["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(path, "w") as target:
        for name, content in members.items():
            target.writestr(name, content)
    status, err = resume(run_copy, "--timesteps", "96")
    assert status == 0, err
    assert not marker.exists()
    assert steps_of(run_copy / "final_model.zip") == 96  # from 64, once the weights loaded


@pytest.mark.parametrize(
    ("flags", "named"),
    [(["--board-size", "5"], ["--board-size 5 (the run has 4)"]),
     (["--channels", "8", "--num-layers", "2"], ["--channels 8", "--num-layers 2"]),
     (["--pretrain-games", "3"], ["--pretrain-games 3"])],
)
def test_a_flag_the_run_cannot_take_is_refused_and_changes_nothing(
    run_copy: Path, flags: list[str], named: list[str]
) -> None:
    before = files_of(run_copy)
    status, err = resume(run_copy, "--timesteps", "96", *flags)
    assert status == 1
    assert_one_line(err, *named, "new run")
    assert files_of(run_copy) == before
    assert resume(run_copy, "--board-size", "4")[0] == 0  # its own value is fine


def test_a_flag_the_run_can_take_is_recorded(run_copy: Path) -> None:
    status, err = resume(run_copy, "--timesteps", "96", "--learning-rate", "0.001")
    assert status == 0, err
    config = TrainConfig.load(run_copy / CONFIG_FILE)
    assert (config.total_timesteps, config.learning_rate) == (96, 0.001)
    import zipfile

    with zipfile.ZipFile(run_copy / "final_model.zip") as model:
        assert json.loads(model.read("data"))["learning_rate"] == 0.001  # taken, not only noted


def test_an_empty_or_file_run_dir_is_refused(tmp_path: Path) -> None:
    check_bad_run_dirs_refused(tmp_path, lambda *flags: main([*flags, *QUICK]), assert_one_line)


RUN_FILES = ["config.json", "checkpoints/ppo_32_steps.zip", "checkpoints/ppo_64_steps.zip",
             "pool/snapshot_32.zip", "pool/snapshot_64.zip", "best/best_model.zip",
             "eval/evaluations.npz", "final_model.zip"]  # fmt: skip


def test_the_run_files_are_the_ones_damaged_below(finished_run: Path) -> None:
    assert sorted(files_of(finished_run)) == sorted(RUN_FILES)


@pytest.mark.parametrize("damage", DAMAGES)
@pytest.mark.parametrize("name", RUN_FILES)
def test_any_damaged_file_resumes_or_is_one_line_that_changes_nothing(
    run_copy: Path, name: str, damage: str
) -> None:
    DAMAGES[damage](run_copy / name)
    check_resume_after_damage(run_copy, name)


@settings(max_examples=6, deadline=None)  # the fixed damages of every file are a test above
@given(damaged=damages(RUN_FILES))
def test_fuzzed_damage_resumes_or_is_one_line_that_changes_nothing(
    finished_run: Path, tmp_path_factory: pytest.TempPathFactory, damaged: tuple[str, Damage]
) -> None:
    name, damage = damaged
    run = damaged_copy(finished_run, tmp_path_factory.mktemp("ppo") / "run", name, damage)
    check_resume_after_damage(run, name)


def check_resume_after_damage(run: Path, name: str) -> None:
    """Resume a run whose file ``name`` is damaged: it trains on and stays resumable, or it
    ends in one line naming the file (or the checkpoints) and the folder is as it was."""
    before = files_of(run)
    status, err = resume(run, "--timesteps", "96")
    assert "Traceback" not in err
    if status == 0:
        assert steps_of(run / "final_model.zip") == 96
        assert resume(run, "--timesteps", "128")[0] == 0
    else:
        assert status == 1 and err.strip().splitlines()[-1].startswith("trap-train: error:")
        assert name in err or "checkpoint" in err, err
        assert files_of(run) == before


def test_ctrl_c_is_one_line_that_says_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents.trap import ppo_training

    def interrupted(config: TrainConfig, resume: bool = False) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(ppo_training, "train", interrupted)
    status, err = main(["--run-dir", str(tmp_path / "run"), *QUICK])
    assert status == 1
    assert_one_line(err, "interrupted", "--resume")


def test_the_final_message_names_only_models_that_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert train.main(["--run-dir", str(tmp_path / "run"), *QUICK, "--board-size", "4"]) == 0
    out = capsys.readouterr().out
    assert "final_model.zip" in out and "best_model.zip" not in out  # no evaluation: no best


# --- Fuzzing trap-train's command line: accepted, or one line; never a traceback ----------

NUMBERS = ["-1", "0", "1", "2", "4", "5", "9", "32", "0.5", "1e3", "nan", "inf", "x", ""]
SPECS = ["random", "greedy", "nobody", "random:depth=2", "", "greedy|random"]
PPO_FLAGS = ["--timesteps", "--n-steps", "--batch-size", "--num-envs", "--board-size",
             "--max-turns", "--channels", "--num-layers", "--hidden", "--learning-rate",
             "--gamma", "--self-play-fraction", "--pretrain-games", "--eval-every", "--seed",
             "--checkpoint-every", "--pool-size", "--stage-fractions"]  # fmt: skip
AZ_FLAGS = ["--board-size", "--decay", "--channels", "--blocks", "--hidden", "--games",
            "--decisions", "--simulations", "--iterations", "--minutes", "--value-mix",
            "--max-turns", "--replay-size", "--batch-size", "--learning-rate", "--seed",
            "--imitation-games", "--eval-every"]  # fmt: skip


def command_lines(flags: list[str], spec_flags: list[str]) -> st.SearchStrategy[list[str]]:
    """Flags drawn from the real ones with values near their limits (and past them):
    numbers for ``flags``, agent specs for ``spec_flags``."""
    numeric = cli_fuzz.command_lines(flags, NUMBERS)
    specs = cli_fuzz.command_lines(spec_flags, SPECS)
    return st.tuples(numeric, specs).map(lambda parts: [*parts[0], *parts[1]])


@pytest.fixture(scope="module")
def stored_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A stored config of each trainer (for --resume), and a file in place of a folder."""
    from agents.rl.alphazero import AlphaZeroConfig

    root = tmp_path_factory.mktemp("fuzz")
    (root / "ppo").mkdir()
    TrainConfig(str(root / "ppo"), n_steps=32, batch_size=32, board_size=4).save(
        root / "ppo" / CONFIG_FILE
    )
    (root / "az").mkdir()
    AlphaZeroConfig(str(root / "az"), "trap", {"board_size": 4}).save(root / "az" / CONFIG_FILE)
    (root / "file").write_text("mine")
    return {"ppo": root / "ppo", "az": root / "az", "file": root / "file", "new": root / "new"}


def check_one_command(argv: list[str]) -> None:
    """``trap-train argv`` with training replaced by nothing: 0, or one line and 1 or 2."""
    with no_training():
        status, err = main(argv)
    assert "Traceback" not in err, err
    if status != 0:
        assert status in (1, 2) and len(err.strip().splitlines()) == 1, (argv, err)
        assert err.startswith("trap-train"), err


@contextlib.contextmanager
def no_training() -> Iterator[None]:
    """Both trainers' ``train`` replaced by the checks it makes before touching the folder."""
    from agents.rl.alphazero import run
    from agents.trap import ppo_training

    def checks_only(config: Any, resume: bool = False) -> Path:
        if isinstance(config, TrainConfig):
            config.check_agents()
        return Path(config.run_dir) / "latest.npz"

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ppo_training, "train", checks_only)
        patch.setattr(run, "train", checks_only)
        yield


@given(command_lines(PPO_FLAGS, ["--stage", "--eval-opponent", "--pretrain-teacher"]),
       st.sampled_from(["new", "ppo", "file", ""]), st.booleans())
def test_fuzzed_ppo_command_lines_are_accepted_or_one_line(
    stored_runs: dict[str, Path], words: list[str], folder: str, resuming: bool
) -> None:
    run_dir = str(stored_runs[folder]) if folder else ""
    check_one_command(["--run-dir", run_dir, *(["--resume"] if resuming else []), *words])
    assert not stored_runs["new"].exists() and stored_runs["file"].read_text() == "mine"


@given(command_lines(AZ_FLAGS, ["--imitation-teacher", "--ladder"]),
       st.sampled_from(["new", "az", "file", ""]), st.booleans())
def test_fuzzed_alphazero_command_lines_are_accepted_or_one_line(
    stored_runs: dict[str, Path], words: list[str], folder: str, resuming: bool
) -> None:
    run_dir = str(stored_runs[folder]) if folder else ""
    check_one_command(["alphazero", "--run-dir", run_dir, *(["--resume"] if resuming else []),
                       *words])
    assert not stored_runs["new"].exists() and stored_runs["file"].read_text() == "mine"


def test_a_diverged_policy_is_named_before_the_next_rollout() -> None:
    import gymnasium as gym
    import torch

    from agents.trap.ppo_training import DivergedError, TrapPPO
    from agents.trap.ppo_training.callbacks import DivergenceCallback

    env = gym.make("trap_env/Trap-v0", opponent="random", board_size=4)
    model = TrapPPO("MlpPolicy", env, n_steps=8, batch_size=8, device="cpu")
    callback = DivergenceCallback()
    callback.init_callback(model)
    callback.on_rollout_start()  # finite: nothing to say
    with torch.no_grad():
        next(model.policy.parameters())[0] = float("nan")
    with pytest.raises(DivergedError, match="diverged after 0 steps: its outputs are not finite"):
        callback.on_rollout_start()
    env.close()

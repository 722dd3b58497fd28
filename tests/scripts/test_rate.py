"""``trap-rate``: every refusal is its one line alone, before any line, folder or file, in
each mode (a rating, ``--compare``, ``--accuracy``, ``--calibrate``, ``--verify``)."""

from __future__ import annotations

import hashlib
import lzma
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from trap_scripts import rate as rate_cli

from agents.files import locked_folder
from tests.support.cli_fuzz import RunStarted, captured_run

BAD_SPECS = [
    "nosuchagent", "greedy:nosuchoption=1", "alphabeta:depth=-3", "alphabeta:depth", " : ",
    "model.zip", "ppo:path=missing.zip", "mcts:path=missing.npz",
    # refused only as they are built (in a child process): a constructor that raises, and
    # an agent that cannot play the board
    "tests.support.faulty_agents.RaisingConstructorAgent",
    "tests.support.faulty_agents.FiveOnlyAgent",
]  # fmt: skip
MODES = {
    "rate": lambda spec: [spec, "--games", "2", "--workers", "0", "--decay", "50"],
    "compare": lambda spec: ["--compare", "random", spec, "--max-games", "2", "--workers", "0",
                             "--decay", "50"],
    "accuracy": lambda spec: [spec, "--accuracy", "--board-size", "3", "--decay", "50"],
    "calibrate": lambda spec: ["--calibrate", "--rungs", "random", spec, "--board-size", "4",
                               "--games-per-pairing", "2", "--pair-games", "0", "--workers",
                               "0", "--decay", "50"],
}  # fmt: skip
"""Each mode of trap-rate with a SPEC, an alias flag among its options (whose note is said
only as the run starts)."""


def assert_alone(status: int, out: str, err: str) -> None:
    """The command was refused: exit 2, nothing on stdout, one line ``trap-rate: error:``."""
    assert status == 2 and out == "", (status, out, err)
    assert err.startswith("trap-rate: error: ") and err.count("\n") == 1, err


@pytest.mark.parametrize("spec", BAD_SPECS)
@pytest.mark.parametrize("mode", list(MODES))
def test_a_bad_spec_is_refused_alone_before_any_line_or_folder(mode, spec, tmp_path):
    run = tmp_path / "o" / "run"
    argv = [*MODES[mode](spec), "--output", str(run)]
    if mode == "calibrate":
        argv += ["--ladder-out", str(run / "ladder.json")]
    assert_alone(*captured_run(rate_cli.main, argv))
    assert not (tmp_path / "o").exists()


@settings(max_examples=30, deadline=None)
@given(
    mode=st.sampled_from(["rate", "compare", "calibrate"]),
    spec=st.lists(st.sampled_from(["greedy", "nosuch", ":", "depth=", "-1", "0", ",", "=",
                                   "alphabeta", "path=", "x.zip", " ", "mcts", "ppo", "."]),
                  min_size=1, max_size=5).map("".join),
)  # fmt: skip
def test_any_spec_starts_the_run_or_is_refused_alone(tmp_path_factory, mode, spec):
    folder = tmp_path_factory.mktemp("refused") / "o"
    argv = [*MODES[mode](spec), "--output", str(folder)]
    if mode == "calibrate":
        argv += ["--ladder-out", str(folder / "ladder.json")]
    with mock.patch.object(rate_cli, "_announce", side_effect=RunStarted):
        try:
            status, out, err = captured_run(rate_cli.main, argv)
        except RunStarted:  # every check passed: the run starts here
            return
    assert_alone(status, out, err)
    assert not folder.exists()


# --- --verify reads its folder (and --ladder FILE) alone --------------------------------------

NOT_WITH_VERIFY = {
    "spec": ["greedy"], "game": ["--game", "trap"], "rule": ["--rule", "decay=50"],
    "board_size": ["--board-size", "7"], "decay": ["--decay", "50"],
    "ladder_version": ["--ladder-version", "1"], "games": ["--games", "200"],
    "seed": ["--seed", "0"], "cpu_cap": ["--cpu-cap", "10"], "workers": ["--workers", "0"],
    "backend": ["--backend", "process"], "address": ["--address", "h:1"],
    "output": ["--output", "o"], "resume": ["--resume"], "overwrite": ["--overwrite"],
    "compare": ["--compare", "random", "greedy"], "elo0": ["--elo0", "0"],
    "elo1": ["--elo1", "5"], "alpha": ["--alpha", "0.05"], "beta": ["--beta", "0.05"],
    "max_games": ["--max-games", "10"], "accuracy": ["--accuracy"],
    "calibrate": ["--calibrate"], "rungs": ["--rungs", "random"],
    "ladder_out": ["--ladder-out", "f"], "games_per_pairing": ["--games-per-pairing", "2"],
    "pair_games": ["--pair-games", "0"], "opening_plies": ["--opening-plies", "2"],
}  # fmt: skip
"""Every option that ``--verify`` does not read, given as a command line gives it (most at
their default: given is given)."""


def test_every_option_is_either_read_by_verify_or_refused_with_it():
    options = set(vars(rate_cli.build_parser().parse_args(["--verify", "d"])))
    assert options == {*NOT_WITH_VERIFY, "verify", "ladder"}


@pytest.mark.parametrize("option", list(NOT_WITH_VERIFY))
def test_verify_refuses_each_option_it_does_not_read_in_one_line(option, tmp_path):
    status, out, err = captured_run(rate_cli.main, ["--verify", str(tmp_path),
                                                    *NOT_WITH_VERIFY[option]])  # fmt: skip
    assert_alone(status, out, err)
    shown = "a SPEC" if option == "spec" else f"--{option.replace('_', '-')}"
    assert err == f"trap-rate: error: --verify goes alone (with --ladder FILE at most), not with " \
        f"{shown} (see --help)\n"  # fmt: skip


def test_verify_takes_a_ladder_file(tmp_path):
    status, out, err = captured_run(rate_cli.main, ["--verify", str(tmp_path), "--ladder",
                                                    str(tmp_path / "ladder.json")])  # fmt: skip
    assert_alone(status, out, err)  # the folder holds no games: refused by the check itself
    assert "goes alone" not in err


# --- A calibration's folder: a refusal leaves it byte for byte --------------------------------

CALIBRATE = ["--calibrate", "--rungs", "random", "greedy", "--game", "trap", "--board-size", "4",
             "--games-per-pairing", "2", "--pair-games", "0", "--workers", "0",
             "--decay", "50"]  # fmt: skip
"""A new ladder of Trap! 4x4 of two rungs, calibrated by two games; an alias flag among its
options (its note comes only as the calibration starts)."""

FAULTY = "tests.support.faulty_agents.RaisingConstructorAgent"


@pytest.fixture(scope="module")
def packed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished calibration's folder (:data:`CALIBRATE`): its games packed, its ladder."""
    folder = tmp_path_factory.mktemp("packed") / "cal"
    status, _, err = captured_run(rate_cli.main, [
        *CALIBRATE, "--output", str(folder), "--ladder-out", str(folder / "ladder.json")
    ])  # fmt: skip
    assert status == 0, err
    assert sorted(path.name for path in folder.iterdir()) == [
        "ladder.json", "results.jsonl.xz", "results.settings.json"
    ]
    return folder


def _stopped(folder: Path) -> None:
    """Make ``folder`` a calibration stopped before its games were packed."""
    packed = folder / "results.jsonl.xz"
    (folder / "results.jsonl").write_bytes(lzma.decompress(packed.read_bytes()))
    packed.unlink()


def _damaged(folder: Path) -> None:
    (folder / "results.jsonl.xz").write_bytes(b"not xz")


def _garbled(folder: Path) -> None:
    (folder / "results.jsonl.xz").write_bytes(lzma.compress(b"not a game record\n"))


Setup = Callable[[Path], None]
REFUSED: list[tuple[str, Setup | None, list[str], str]] = [
    ("packed games, neither --resume nor --overwrite", None, [], "holds a calibration's games"),
    ("stopped games without --resume", _stopped, [], "already holds 2 recorded games"),
    ("the ladder file there without --overwrite", None, ["--ladder-out", "cal/ladder.json"],
     "exists"),
    ("--resume under other rules", None, ["--resume", "--board-size", "5"],
     "recorded with other settings"),
    ("--resume of stopped games under other rules", _stopped,
     ["--resume", "--board-size", "5"], "recorded with other settings"),
    ("--resume with a rung that cannot be built", None, ["--resume", "--rungs", "random",
     "greedy", FAULTY], "RaisingConstructorAgent"),
    ("--overwrite with a rung that cannot be built", None, ["--overwrite", "--rungs", "random",
     "greedy", FAULTY], "RaisingConstructorAgent"),
    ("--resume of packed games that cannot be unpacked", _damaged, ["--resume"],
     "cannot be unpacked"),
    ("--resume of packed games with a line that is no game", _garbled, ["--resume"],
     "results.jsonl.xz (unpacked), line 1: "),
]  # fmt: skip
"""Calibrations refused in a finished calibration's folder ``cal`` (changed first by the
setup): what, the setup, the arguments beyond :data:`CALIBRATE`, and words of the refusal."""


PAST_NS = 10**18
"""A folder's time of change set before a run (2001): a file made in it, even one removed
again, moves it."""


def listing(root: Path) -> dict[str, tuple[int, str]]:
    """Every file and folder under ``root``: its size and SHA-256 (a folder: -1, "")."""
    return {
        str(path.relative_to(root)): (
            (path.stat().st_size, hashlib.sha256(path.read_bytes()).hexdigest())
            if path.is_file() else (-1, "")
        )
        for path in sorted(root.rglob("*"))
    }


@pytest.mark.parametrize(("setup", "extra", "words"), [case[1:] for case in REFUSED],
                         ids=[case[0] for case in REFUSED])  # fmt: skip
def test_a_refused_calibration_is_one_line_alone_and_leaves_its_folder_as_it_was(
    packed, tmp_path, monkeypatch, setup, extra, words
):
    shutil.copytree(packed, tmp_path / "cal")
    if setup is not None:
        setup(tmp_path / "cal")
    os.utime(tmp_path / "cal", ns=(PAST_NS, PAST_NS))
    monkeypatch.chdir(tmp_path)
    before = listing(tmp_path)
    argv = [*CALIBRATE, "--output", "cal", "--ladder-out", "elsewhere/ladder.json", *extra]
    status, out, err = captured_run(rate_cli.main, argv)
    assert_alone(status, out, err)
    assert words in err
    assert listing(tmp_path) == before
    # Checked before it writes: not even unpacked games or a results file for a while.
    assert (tmp_path / "cal").stat().st_mtime_ns == PAST_NS


def test_a_calibration_into_a_folder_another_run_holds_is_refused_alone(packed, tmp_path):
    folder = tmp_path / "cal"
    shutil.copytree(packed, folder)
    before = listing(tmp_path)
    argv = [*CALIBRATE, "--output", str(folder), "--ladder-out", str(folder / "ladder.json"),
            "--resume"]  # fmt: skip
    with locked_folder(folder, "calibration folder"):
        status, out, err = captured_run(rate_cli.main, argv)
    assert_alone(status, out, err)
    assert "calibration folder" in err and listing(tmp_path) == before


def test_a_resume_of_packed_games_plays_none_again_and_packs_them_again(packed, tmp_path):
    folder = tmp_path / "cal"
    shutil.copytree(packed, folder)
    argv = [*CALIBRATE, "--output", str(folder), "--ladder-out", str(folder / "ladder.json"),
            "--resume"]  # fmt: skip
    status, out, err = captured_run(rate_cli.main, argv)
    assert status == 0, err
    assert out.startswith("calibrating the trap 4x4 ladder v")
    assert err.startswith("trap-rate: note: --decay is an alias")
    assert sorted(path.name for path in folder.iterdir()) == [
        "ladder.json", "results.jsonl.xz", "results.settings.json"
    ]
    assert (folder / "results.jsonl.xz").read_bytes() == (packed / "results.jsonl.xz").read_bytes()


# --- An output that cannot be written: refused before any game, line or note ----------------

UNWRITABLE = [
    ("an accuracy card in a file", ["greedy", "--accuracy", "--board-size", "3", "--decay",
                                    "50", "--output", "afile"], "cannot write the accuracy card"),
    ("an accuracy card under a file", ["greedy", "--accuracy", "--board-size", "3", "--decay",
                                       "50", "--output", "afile/run"], "cannot write the accuracy"),
    ("a ladder file under a file", [*CALIBRATE, "--output", "cal", "--ladder-out",
                                    "afile/ladder.json"], "cannot write the ladder file"),
    ("a ladder file that is a folder", [*CALIBRATE, "--output", "cal", "--ladder-out", "folder",
                                        "--overwrite"], "it is a folder"),
]  # fmt: skip
"""Runs whose card or ladder file could not be written: what, the arguments (an alias flag
among them), and words of the refusal."""


@pytest.mark.parametrize(("argv", "words"), [case[1:] for case in UNWRITABLE],
                         ids=[case[0] for case in UNWRITABLE])  # fmt: skip
def test_an_output_that_cannot_be_written_is_refused_alone_before_any_game(
    tmp_path, monkeypatch, argv, words
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("x")
    (tmp_path / "folder").mkdir()
    before = listing(tmp_path)
    status, out, err = captured_run(rate_cli.main, argv)
    assert_alone(status, out, err)
    assert words in err and listing(tmp_path) == before


# --- A folder holds one kind of run ----------------------------------------------------------

RATE = ["greedy", "--ladder", "cal/ladder.json", "--games", "2", "--workers", "0"]
COMPARE = ["--compare", "random", "greedy", "--ladder", "cal/ladder.json", "--max-games", "2",
           "--workers", "0"]  # fmt: skip
ANOTHER_KIND = [
    ("a rating into a calibration's folder", [*RATE, "--output", "cal"], "holds a calibration"),
    ("a rating over a calibration's folder", [*RATE, "--output", "cal", "--overwrite"],
     "holds a calibration"),
    ("a comparison over a calibration's folder", [*COMPARE, "--output", "cal", "--overwrite"],
     "holds a calibration"),
    ("a calibration over a rating's folder", [*CALIBRATE, "--output", "rated", "--overwrite",
     "--ladder-out", "new.json"], "holds a rating (rating.json)"),
    ("a calibration over a comparison's folder", [*CALIBRATE, "--output", "compared",
     "--overwrite", "--ladder-out", "new.json"], "holds a comparison (comparison.json)"),
    ("a rating over a comparison's folder", [*RATE, "--output", "compared", "--overwrite"],
     "holds a comparison"),
]  # fmt: skip
"""Runs into a folder of another kind of run, which ``--overwrite`` would leave mixed: what,
the arguments, and words of the refusal."""


@pytest.mark.parametrize(("argv", "words"), [case[1:] for case in ANOTHER_KIND],
                         ids=[case[0] for case in ANOTHER_KIND])  # fmt: skip
def test_a_run_into_another_kind_s_folder_is_refused_alone_even_to_overwrite(
    packed, tmp_path, monkeypatch, argv, words
):
    shutil.copytree(packed, tmp_path / "cal")
    for kind in ("rated/rating", "compared/comparison"):  # what marks each kind's folder
        (tmp_path / kind).parent.mkdir()
        (tmp_path / f"{kind}.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    before = listing(tmp_path)
    status, out, err = captured_run(rate_cli.main, argv)
    assert_alone(status, out, err)
    assert words in err and listing(tmp_path) == before

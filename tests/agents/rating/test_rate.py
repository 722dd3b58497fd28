"""Tests for the integrity of a rating run (agents.rating.run, agents.rating.policy): one
policy, one ladder and unedited games per card; one run per folder; checked arguments."""

from __future__ import annotations

import importlib
import inspect
import json
import os
import shlex
import shutil
import stat
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from trap_scripts import rate as rate_cli

from agents.arena.tournament import RunConfig, round_robin, run_games
from agents.files import FolderInUseError
from agents.rating import rate, rate_spec
from agents.rating.ladder import load_ladder
from agents.rating.policy import action_of
from agents.registry import agent_names
from tests.agents.rating.test_rating import SMALL
from tests.support import faulty_agents
from tests.support.programs import EXAMPLES

QUIET = {"run_options": {"workers": 0}, "check": False, "say": lambda line: None}
"""In this process, unprobed, silent: the games of these tests take milliseconds."""

MODEL_AGENT = "tests.support.faulty_agents.ModelFileAgent"


def model_file(folder: Path) -> Path:
    path = folder / "model.bin"
    path.write_text("a model\n")
    return path


def records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


def write_records(folder: Path, games: list[dict]) -> None:
    (folder / "results.jsonl").write_text("".join(json.dumps(game) + "\n" for game in games))


# --- The files a spec loads ------------------------------------------------------------------


def test_a_model_replaced_between_rounds_stops_the_run_keeping_its_games(tmp_path):
    model = model_file(tmp_path)

    def replace_the_model(line: str) -> None:  # said after each round
        model.write_text("another model\n")

    with pytest.raises(ValueError) as refused:
        rate_spec(SMALL, f"{MODEL_AGENT}:path={model}", tmp_path / "out", games=8,
                  run_options={"workers": 0}, check=False, say=replace_the_model)
    message = str(refused.value)
    assert message.startswith(f"{model}: SHA-256 ") and "changed during the run" in message
    assert "\n" not in message
    assert len(records(tmp_path / "out")) == 6  # the first round, against the 3 rungs
    assert not (tmp_path / "out" / "card.json").exists()


def test_a_model_replaced_in_the_middle_of_a_round_leaves_that_game_unrecorded(tmp_path):
    model = model_file(tmp_path)
    spec = f"{MODEL_AGENT}:path={model},edit_after=2"
    with pytest.raises(ValueError, match=f"{model}: SHA-256 .* changed during the run"):
        rate_spec(SMALL, spec, tmp_path / "out", games=6, **QUIET)
    assert len(records(tmp_path / "out")) == 2  # the game that loaded the new one is not there


def test_a_resume_refuses_a_model_replaced_since_even_of_a_finished_run(tmp_path):
    model = model_file(tmp_path)
    spec = f"{MODEL_AGENT}:path={model}"
    card = rate_spec(SMALL, spec, tmp_path / "out", games=2, **QUIET)
    assert sorted(card.files) == sorted([str(model), faulty_agents.__file__])  # and its code
    assert all(len(digest) == 64 for digest in card.files.values())
    model.write_text("another model\n")
    with pytest.raises(ValueError, match=rf"cannot resume .*\({model}: SHA-256 .* recorded"):
        rate_spec(SMALL, spec, tmp_path / "out", games=2, resume=True, **QUIET)
    model.write_text("a model\n")  # put back: the same rating again
    again = rate_spec(SMALL, spec, tmp_path / "out", games=2, resume=True, **QUIET)
    assert again.line == card.line and len(records(tmp_path / "out")) == 2


def test_a_resume_refuses_an_exec_program_edited_since(tmp_path):
    program = tmp_path / "agent.py"
    shutil.copy(EXAMPLES / "python_agent.py", program)
    spec = "exec:" + shlex.join([sys.executable, str(program)])
    card = rate_spec(SMALL, spec, tmp_path / "out", games=2, **QUIET)
    assert str(program) in card.files  # and the interpreter, named by its path
    with program.open("a") as source:
        source.write("# another program\n")
    with pytest.raises(ValueError, match=f"cannot resume .*{program}: SHA-256"):
        rate_spec(SMALL, spec, tmp_path / "out", games=2, resume=True, **QUIET)


def test_a_resume_refuses_a_ladder_edited_under_the_same_name(tmp_path):
    rate_spec(SMALL, "greedy", tmp_path / "out", games=2, **QUIET)
    rungs = (replace(SMALL.rungs[0], rating=3000.0), *SMALL.rungs[1:])
    edited = replace(SMALL, rungs=rungs)
    assert edited.name == SMALL.name
    with pytest.raises(ValueError, match=r"holds a rating with ladder_sha256 '[0-9a-f]{64}'"):
        rate_spec(edited, "greedy", tmp_path / "out", games=2, resume=True, **QUIET)


# --- The games on resume ---------------------------------------------------------------------


def flip_winner(record: dict) -> dict:
    winner = 1 - record["winner"]
    return record | {"winner": winner, "winner_spec": record["seats"][winner]}


@pytest.mark.parametrize(
    ("spec", "edit", "why"),
    [
        ("greedy", flip_winner, "its actions give"),
        (  # the policy's fault turned into the rung's
            "tests.support.faulty_agents.RaisingAgent:after=1", flip_winner, "its actions give"
        ),
        (  # a fault where no seat acts: the game was over at the turn limit
            "tests.support.faulty_agents.RaisingAgent:after=1",
            lambda record: record | {"max_turns": record["turns"]},
            "reach the turn limit",
        ),
    ],
    ids=["winner flipped", "fault flipped", "fault at the turn limit"],
)
def test_a_resume_replays_every_game_and_refuses_one_edited(spec, edit, why, tmp_path):
    out = tmp_path / "out"
    card = rate_spec(SMALL, spec, out, games=4, **QUIET)
    games = records(out)
    decided = next(i for i, game in enumerate(games) if game["winner"] != -1)
    games[decided] = edit(games[decided])
    write_records(out, games)
    with pytest.raises(ValueError) as refused:
        rate_spec(SMALL, spec, out, games=4, resume=True, **QUIET)
    message = str(refused.value)
    assert f"game {games[decided]['game_id']!r} does not replay" in message and why in message
    assert json.loads((out / "card.json").read_text())["line"] == card.line  # left as it was


# --- One run per folder, nothing written before its checks -----------------------------------


def test_a_refused_overwrite_leaves_the_run_in_progress_as_it_was(tmp_path):
    out = tmp_path / "out"
    refusals = []

    def overwrite_meanwhile(line: str) -> None:
        described = (out / "rating.json").read_text()
        with pytest.raises(FolderInUseError, match="another run is using the rating folder"):
            rate_spec(SMALL, "random", out, games=2, overwrite=True, **QUIET)
        assert (out / "rating.json").read_text() == described
        refusals.append(line)

    card = rate_spec(SMALL, "greedy", out, games=8, run_options={"workers": 0}, check=False,
                     say=overwrite_meanwhile)
    assert len(refusals) == 2 and card.spec == "greedy"
    assert json.loads((out / "rating.json").read_text())["spec"] == "greedy"
    rate_spec(SMALL, "greedy", out, games=8, resume=True, **QUIET)  # its own resume goes on


def test_a_refused_rating_writes_nothing_in_a_tournament_s_folder_or_a_new_one(tmp_path):
    out = tmp_path / "tournament"
    config = RunConfig(game_name="trap", board_size=5, workers=0, opening_plies=2)
    run_games(round_robin(["random", "greedy"], 2, 0), out / "results.jsonl", config,
              progress=False)
    before = sorted(path.name for path in out.iterdir())
    for resume in (False, True):
        with pytest.raises(ValueError, match=r"already holds 2 recorded games|no rating\.json"):
            rate_spec(SMALL, "greedy", out, games=2, resume=resume, **QUIET)
        assert sorted(path.name for path in out.iterdir()) == before
    new = tmp_path / "new" / "rating"
    with pytest.raises(ValueError, match="RaisingConstructorAgent"):
        rate_spec(SMALL, "tests.support.faulty_agents.RaisingConstructorAgent", new, games=2,
                  run_options={"workers": 0}, check=True, say=lambda line: None)
    assert not (tmp_path / "new").exists()


def test_a_rating_json_that_is_no_description_is_refused_in_one_line(tmp_path):
    rate_spec(SMALL, "greedy", tmp_path, games=2, **QUIET)
    (tmp_path / "rating.json").write_text("[1, 2]\n")
    with pytest.raises(ValueError, match=r"rating.json is not a rating's description \(a JSON"):
        rate_spec(SMALL, "greedy", tmp_path, games=2, resume=True, **QUIET)


def test_every_file_of_a_run_has_the_umask_s_mode(tmp_path):
    old = os.umask(0o022)
    try:
        rate_spec(SMALL, "greedy", tmp_path, games=2, **QUIET)
    finally:
        os.umask(old)
    modes = {path.name: stat.S_IMODE(path.stat().st_mode) for path in tmp_path.iterdir()}
    assert modes == dict.fromkeys(
        ["card.json", "rating.json", "results.jsonl", "results.settings.json"], 0o644
    )


def test_an_empty_ladder_ends_the_run_in_one_line(tmp_path):
    with pytest.raises(ValueError, match="has no rung to play against"):
        rate_spec(replace(SMALL, rungs=()), "greedy", tmp_path, games=2, **QUIET)


# --- The arguments ---------------------------------------------------------------------------


@pytest.mark.parametrize("cap", [float("inf"), float("nan"), 0, -1.0, "1", True])
def test_a_cpu_cap_that_is_no_finite_number_of_seconds_is_refused(cap, tmp_path):
    with pytest.raises(ValueError, match="cpu_cap must be CPU seconds per turn, a finite"):
        rate_spec(SMALL, "greedy", tmp_path, games=2, cpu_cap=cap, **QUIET)
    with pytest.raises(ValueError, match="cpu_cap must be"):
        rate(lambda observation, mask: 0, game="trap", games=2, cpu_cap=cap, ladder=SMALL)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("cap", ["inf", "nan", "0"])
def test_trap_rate_refuses_a_cpu_cap_that_is_no_finite_number(cap, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit:
        rate_cli.main(["random", "--cpu-cap", cap, "--output", str(tmp_path / "o")])
    error = capsys.readouterr().err
    assert exit.value.code == 2 and "--cpu-cap" in error and "seconds > 0" in error


def test_the_card_records_the_cpu_cap(tmp_path):
    card = rate_spec(SMALL, "greedy", tmp_path, games=2, cpu_cap=2.5, **QUIET)
    assert card.cpu_cap == json.loads((tmp_path / "card.json").read_text())["cpu_cap"] == 2.5


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"games": 2.0}, "games must be an even integer"),
        ({"games": "2"}, "games must be an even integer"),
        ({"games": True}, "games must be an even integer"),
        ({"games": 3}, "games must be an even integer"),
        ({"seed": "1"}, "seed must be an integer, got '1'"),
        ({"seed": 1.5}, "seed must be an integer, got 1.5"),
        ({"workers": 1.5}, "workers must be an integer >= 0 or None"),
        ({"name": "random"}, "cannot use 'random' as an agent's name"),
        ({"game": "colosseum"}, "the ladder given is the trap ladder v1, not one of 'colosseum'"),
    ],
)
def test_rate_checks_its_arguments_before_any_game(arguments, message):
    called = []

    def policy(observation, mask):
        called.append(1)
        return int(mask.argmax())

    with pytest.raises(ValueError, match=message):
        rate(policy, **{"game": "trap", "games": 2, "ladder": SMALL} | arguments)
    assert called == []


def test_rate_refuses_the_ladder_of_another_game():
    with pytest.raises(ValueError, match="the ladder given is the othello ladder v1"):
        rate(lambda observation, mask: 0, game="colosseum", games=2, ladder=load_ladder("othello"))


def test_a_callable_is_found_only_by_its_own_call_of_rate():
    def raising(observation, mask):
        raise RuntimeError("the inner policy")

    inner_cards = []

    def first_legal(observation, mask):
        if not inner_cards:  # another call, with the same name, while this one plays
            inner_cards.append(rate(raising, game="trap", games=2, name="mine", ladder=SMALL))
        return int(mask.argmax())

    outer = rate(first_legal, game="trap", games=4, name="mine", ladder=SMALL)
    assert sum(rung.faults for rung in inner_cards[0].opponents) == 2
    assert sum(rung.faults for rung in outer.opponents) == 0  # none played the inner one
    assert "mine" not in agent_names("trap")


@pytest.mark.parametrize("answer", [3, np.int64(3), np.array(3), np.array(3, dtype=np.uint8)])
def test_a_policy_s_action_is_an_integer(answer):
    assert action_of(answer) == 3 and type(action_of(answer)) is int


@pytest.mark.parametrize(
    "answer", [2.7, 3.0, "3", True, np.float64(3.0), np.array([3]), np.array(True), None]
)
def test_any_other_answer_is_a_fault_of_the_policy_naming_it(answer, tmp_path):
    with pytest.raises(TypeError, match=r"the policy returned .* not an action: an int"):
        action_of(answer)
    card = rate(lambda observation, mask: answer, game="trap", games=2, ladder=SMALL,
                output=tmp_path)
    assert sum(rung.faults for rung in card.opponents) == 2
    assert all("the policy returned" in game["detail"] for game in records(tmp_path))


def test_rating_json_records_the_ladder_s_identity_and_the_files(tmp_path):
    model = model_file(tmp_path)
    card = rate_spec(SMALL, f"{MODEL_AGENT}:path={model}", tmp_path / "out", games=2, **QUIET)
    described = json.loads((tmp_path / "out" / "rating.json").read_text())
    assert described["ladder_sha256"] == card.ladder_sha256 == SMALL.identity
    assert described["files"] == card.files and str(model) in card.files


def test_agents_rating_rate_is_the_function_only() -> None:
    """The run's module is ``agents.rating.run``: no module shadows the function's name."""
    import agents.rating

    assert agents.rating.rate is rate and inspect.isfunction(rate)
    assert "agents.rating.rate" not in sys.modules
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("agents.rating.rate")

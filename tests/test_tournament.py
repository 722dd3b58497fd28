"""Tests of agents.arena.tournament: pairings, worker processes, faults, results file, resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agents import SpecError
from agents.arena.match import replay
from agents.arena.tournament import (
    GameTask,
    RunConfig,
    check_specs,
    load_results,
    round_robin,
    run_games,
)

TESTS = Path(__file__).parent
FAST = RunConfig(board_size=5, workers=2, time_budget=0.3, wall_ceiling=2.0)


def test_round_robin_alternates_seats_and_derives_distinct_seeds():
    tasks = round_robin(["a", "b", "c"], games_per_pairing=4, seed=7)
    assert len(tasks) == 12
    ab = [task for task in tasks if task.pairing == ("a", "b")]
    assert [task.seats for task in ab] == [("a", "b"), ("b", "a")] * 2
    assert len({task.seed for task in tasks}) == 12
    assert len({task.game_id for task in tasks}) == 12
    assert round_robin(["a", "b", "c"], 4, seed=7) == tasks
    assert round_robin(["a", "b"], 4, seed=8)[0].seed != tasks[0].seed


@pytest.mark.parametrize(("specs", "games"), [(["a"], 2), (["a", "a"], 2), (["a", "b"], 0)])
def test_round_robin_rejects_bad_input(specs, games):
    with pytest.raises(ValueError, match="at least"):
        round_robin(specs, games, seed=0)


def test_bad_specs_and_settings_fail_before_any_game():
    with pytest.raises(SpecError, match="known agents"):
        check_specs(["random", "no_such_agent"])
    with pytest.raises(SpecError, match="option"):
        check_specs(["random:depth=2"])
    for bad in ({"time_budget": 0}, {"workers": -1}, {"board_size": 2}, {"max_turns": 0}):
        with pytest.raises(ValueError):
            RunConfig(**bad)


def test_workers_and_in_process_play_the_same_games(tmp_path):
    tasks = round_robin(["random", "agents.simple.RandomAgent"], 6, seed=1)
    parallel = run_games(tasks, tmp_path / "a.jsonl", FAST, progress=False)
    local = run_games(
        tasks, tmp_path / "b.jsonl", RunConfig(board_size=5, workers=0), progress=False
    )
    keys = ("game_id", "seats", "seed", "winner", "winner_spec", "reason", "turns", "actions")
    assert [[r[k] for k in keys] for r in parallel] == [[r[k] for k in keys] for r in local]
    assert sorted(r["game_id"] for r in load_results(tmp_path / "a.jsonl")) == sorted(
        task.game_id for task in tasks
    )
    for record in parallel:
        final, _ = list(replay(5, record["actions"]))[-1]
        assert final.turn == record["turns"]
        assert record["winner_spec"] == record["seats"][record["winner"]]


FAULTY = {
    "faulty_agents.SleepyAgent:after=1": ("timeout", "wall-clock"),
    "faulty_agents.SpinningAgent:after=1,seconds=0.35": ("timeout", "CPU"),
    "faulty_agents.RaisingAgent:after=1": ("exception", "RuntimeError"),
    "faulty_agents.IllegalAgent:after=1": ("illegal", "illegal action"),
    "faulty_agents.NoneAgent:after=1": ("no_action", "None"),
    "faulty_agents.CrashingAgent:after=1": ("crash", "died"),
}


def test_each_faulty_agent_loses_with_its_reason_and_the_run_goes_on(tmp_path):
    tasks = [
        GameTask(f"{spec} #{seat}", (spec, "random"), seats, seed=seat)
        for spec in FAULTY
        for seat, seats in enumerate([(spec, "random"), ("random", spec)])
    ]
    tasks.append(GameTask("after", ("random", "x"), ("random", "random"), seed=5))
    records = run_games(tasks, tmp_path / "r.jsonl", FAST, progress=False)
    assert [r["game_id"] for r in records] == [task.game_id for task in tasks]
    for record in records[:-1]:
        spec = record["pairing"][0]
        reason, words = FAULTY[spec]
        assert record["reason"] == reason, record
        assert words in record["detail"]
        assert record["winner_spec"] == "random"
        assert record["seats"][1 - record["winner"]] == spec
        list(replay(5, record["actions"]))
    assert records[-1]["reason"] in ("trapped", "truncated")
    assert len(load_results(tmp_path / "r.jsonl")) == len(tasks)


def without_timing(records):
    return [{k: v for k, v in r.items() if k not in ("cpu_time", "max_turn_time")} for r in records]


def test_resume_plays_only_the_missing_games_and_drops_a_torn_line(tmp_path):
    tasks = round_robin(["random", "agents.simple.RandomAgent"], 6, seed=2)
    path = tmp_path / "r.jsonl"
    config = RunConfig(board_size=5, workers=0)
    full = run_games(tasks, path, config, progress=False)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:3]) + lines[3][:20])  # a run killed while writing
    resumed = run_games(tasks, path, config, resume=True, progress=False)
    assert without_timing(resumed) == without_timing(full)
    ids = [r["game_id"] for r in load_results(path)]
    assert sorted(ids) == sorted(task.game_id for task in tasks)
    assert ids[:3] == [r["game_id"] for r in full[:3]]
    other = round_robin(["random", "agents.simple.RandomAgent"], 6, seed=3)
    with pytest.raises(ValueError, match="other settings"):
        run_games(other, path, config, resume=True, progress=False)


def test_a_run_killed_with_sigkill_and_resumed_has_each_game_once(tmp_path):
    output = tmp_path / "out"
    command = [
        sys.executable, "-m", "trap_scripts.tournament",
        "random", "faulty_agents.SlowRandomAgent:delay=0.005",
        "--games", "12", "--board-size", "5", "--workers", "2",
        "--output", str(output), "--quiet", "--no-plot",
    ]  # fmt: skip
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
    }
    results = output / "results.jsonl"
    process = subprocess.Popen(command, env=env, start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if results.exists() and len(results.read_text().splitlines()) >= 3:
            break
        time.sleep(0.02)
    assert process.poll() is None, "the run ended before it could be killed"
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    killed_count = len(load_results(results))
    assert 3 <= killed_count < 12
    finished = subprocess.run([*command, "--resume"], env=env, capture_output=True, text=True,
                              timeout=120)  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    ids = [json.loads(line)["game_id"] for line in results.read_text().splitlines()]
    expected = [t.game_id for t in round_robin(
        ["random", "faulty_agents.SlowRandomAgent:delay=0.005"], 12, 0)]  # fmt: skip
    assert sorted(ids) == sorted(expected)
    assert "24 games" not in finished.stdout and "12 games" in finished.stdout

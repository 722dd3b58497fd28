"""Tests of agents.arena.tournament: pairings, worker processes, faults, results file, resume."""

from __future__ import annotations

import dataclasses
import errno
import json
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agents import SpecError
from agents.arena import pool, tournament
from agents.arena.match import FAULTS, replay
from agents.arena.processes import SchedStat, read_schedstat
from agents.arena.record_rules import DrawnRule
from agents.arena.results import ResultsError
from agents.arena.stats import format_report
from agents.arena.tournament import (
    MAX_REPLAYS,
    GameTask,
    RunConfig,
    check_specs,
    load_results,
    probe_specs,
    round_robin,
    run_games,
)
from agents.trap.random_agent import RandomAgent
from tests.support.games import every_game
from trap_env.agent import UnsupportedGameError
from trap_env.games import game_names
from trap_env.trap.core import DEFAULT_DECAY, GameConfig

ROOT = Path(__file__).resolve().parents[3]
FAST = RunConfig(params={"board_size": 5}, workers=2, time_budget=0.3, wall_ceiling=2.0,
                 game_name="trap")  # fmt: skip
IN_PROCESS = RunConfig(params={"board_size": 5}, workers=0, game_name="trap")


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
        check_specs(["random", "no_such_agent"], RunConfig(game_name="trap"))
    with pytest.raises(SpecError, match="option"):
        check_specs(["random:depth=2"], RunConfig(game_name="trap"))
    for bad in ({"time_budget": 0}, {"workers": -1}, {"params": {"board_size": 2}},
                {"max_turns": 0}):
        with pytest.raises(ValueError):
            RunConfig(**bad, game_name="trap")
    for decay in (-1, 1001, 2.5):
        with pytest.raises(ValueError, match=r"decay must be an integer per mille in 0\.\.1000"):
            RunConfig(game_name="trap", params={"decay": decay})


def test_workers_and_in_process_play_the_same_games(tmp_path):
    tasks = round_robin(["random", "agents.trap.random_agent.RandomAgent"], 6, seed=1)
    parallel = run_games(tasks, tmp_path / "a.jsonl", FAST, progress=False)
    local = run_games(
        tasks,
        tmp_path / "b.jsonl",
        IN_PROCESS,
        progress=False,
    )
    keys = ("game_id", "seats", "seed", "winner", "winner_spec", "reason", "turns", "actions")
    assert [[r[k] for k in keys] for r in parallel] == [[r[k] for k in keys] for r in local]
    assert sorted(r["game_id"] for r in load_results(tmp_path / "a.jsonl")) == sorted(
        task.game_id for task in tasks
    )
    for record in parallel:
        final, _ = list(replay(record["actions"], game="trap", params={"board_size": 5}))[-1]
        assert final.turn == record["turns"]
        assert record["winner_spec"] == record["seats"][record["winner"]]


FAULTY = {
    "tests.support.faulty_agents.SleepyAgent:after=1": ("timeout", "wall-clock"),
    "tests.support.faulty_agents.SpinningAgent:after=1,seconds=0.35": ("timeout", "CPU"),
    "tests.support.faulty_agents.RaisingAgent:after=1": ("exception", "RuntimeError"),
    "tests.support.faulty_agents.IllegalAgent:after=1": ("illegal", "illegal action"),
    "tests.support.faulty_agents.NoneAgent:after=1": ("no_action", "None"),
    "tests.support.faulty_agents.CrashingAgent:after=1": ("crash", "process died (turn "),
    "tests.support.faulty_agents.KilledAgent:after=1": ("crash", "killed by signal 9 (SIGKILL)"),
    "tests.support.faulty_agents.CrashingAgent:after=2": ("crash", "it exited with code 3"),
}


def test_each_faulty_agent_loses_with_its_reason_and_the_run_goes_on(tmp_path):
    tasks = [
        GameTask(f"{spec} #{seat}", (spec, "random"), seats, seed=seat)
        for spec in FAULTY
        for seat, seats in enumerate([(spec, "random"), ("random", spec)])
    ]
    after = ("random", "agents.trap.random_agent.RandomAgent")
    tasks.append(GameTask("after", after, after, seed=5))
    records = run_games(tasks, tmp_path / "r.jsonl", FAST, progress=False)
    assert [r["game_id"] for r in records] == [task.game_id for task in tasks]
    for record in records[:-1]:
        spec = record["pairing"][0]
        reason, words = FAULTY[spec]
        assert record["reason"] == reason, record
        assert words in record["detail"]
        assert record["winner_spec"] == "random"
        assert record["seats"][1 - record["winner"]] == spec
        list(replay(record["actions"], game="trap", params={"board_size": 5}))
    assert records[-1]["reason"] in ("trapped", "truncated")
    assert len(load_results(tmp_path / "r.jsonl")) == len(tasks)


def test_a_worker_runs_blas_on_one_thread(tmp_path):
    spec = "tests.support.faulty_agents.ThreadCountingAgent"
    tasks = [GameTask(f"blas #{seat}", (spec, "random"), seats, seed=seat)
             for seat, seats in enumerate([(spec, "random"), ("random", spec)])]
    records = run_games(tasks, tmp_path / "r.jsonl", FAST, progress=False)
    assert all(r["reason"] in ("trapped", "truncated") for r in records), records


def without_timing(records):
    return [{k: v for k, v in r.items() if k not in ("cpu_time", "max_turn_time")} for r in records]


def test_resume_plays_only_the_missing_games_and_drops_a_torn_line(tmp_path):
    tasks = round_robin(["random", "agents.trap.random_agent.RandomAgent"], 6, seed=2)
    path = tmp_path / "r.jsonl"
    config = IN_PROCESS
    full = run_games(tasks, path, config, progress=False)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:3]) + lines[3][:20])  # a run killed while writing
    resumed = run_games(tasks, path, config, resume=True, progress=False)
    assert without_timing(resumed) == without_timing(full)
    ids = [r["game_id"] for r in load_results(path)]
    assert sorted(ids) == sorted(task.game_id for task in tasks)
    assert ids[:3] == [r["game_id"] for r in full[:3]]
    other = round_robin(["random", "agents.trap.random_agent.RandomAgent"], 6, seed=3)
    with pytest.raises(ValueError, match="other settings"):
        run_games(other, path, config, resume=True, progress=False)


def test_a_run_killed_with_sigkill_and_resumed_has_each_game_once(tmp_path):
    output = tmp_path / "out"
    command = [
        sys.executable, "-m", "trap_scripts.tournament",
        "random", "tests.support.faulty_agents.SlowRandomAgent:delay=0.005",
        "--games", "12", "--board-size", "5", "--workers", "2",
        "--output", str(output), "--quiet", "--no-plot",
    ]  # fmt: skip
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
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
        ["random", "tests.support.faulty_agents.SlowRandomAgent:delay=0.005"], 12, 0)]  # fmt: skip
    assert sorted(ids) == sorted(expected)
    assert "24 games" not in finished.stdout and "12 games" in finished.stdout


def test_seconds_the_clocks_cannot_hold_are_refused_and_inf_means_no_limit():
    for bad in ({"time_budget": 2e6}, {"wall_ceiling": 1e7}, {"time_budget": math.nan},
                {"setup_seconds": math.inf}):  # fmt: skip
        with pytest.raises(ValueError, match="<= 1000000"):
            RunConfig(**bad, game_name="trap")
    assert RunConfig(time_budget=math.inf, game_name="trap").time_budget is None
    assert RunConfig(time_budget=math.inf, game_name="trap").ceiling is None
    assert RunConfig(wall_ceiling=math.inf, game_name="trap").ceiling is None
    assert RunConfig(time_budget=2.0, game_name="trap").ceiling == 5.0


def one_game(spec, seat, **names):
    seats = (spec, "random") if seat == 0 else ("random", spec)
    return GameTask(f"{spec} #{seat}", (spec, "random"), seats, seed=seat, **names)


def test_a_reset_that_raises_or_hangs_is_charged_to_its_own_seat(tmp_path):
    specs = {
        "tests.support.faulty_agents.RaisingResetAgent": "reset raised RuntimeError",
        "tests.support.faulty_agents.HangingResetAgent":
            "reset of 'tests.support.faulty_agents.HangingResetAgent'",
    }
    tasks = [one_game(spec, seat) for spec in specs for seat in (0, 1)]
    config = RunConfig(
        params={"board_size": 5},
        workers=2,
        time_budget=0.3,
        wall_ceiling=2.0,
        setup_seconds=3.0,
        game_name="trap",
    )
    records = run_games(tasks, tmp_path / "r.jsonl", config, progress=False)
    for record in records:
        spec = record["pairing"][0]
        assert record["winner_spec"] == "random" and record["turns"] == 0, record
        assert record["seats"][1 - record["winner"]] == spec
        assert specs[spec] in record["detail"]
    assert [r["reason"] for r in records] == ["exception", "exception", "timeout", "timeout"]


CONSTRUCTORS = [
    ("tests.support.faulty_agents.RaisingConstructorAgent",
     "raised RuntimeError: cannot build this agent"),
    ("tests.support.faulty_agents.ExitingConstructorAgent",
     "ended its process: it exited with code 7"),
    ("tests.support.faulty_agents.SleepingConstructorAgent", "took more than 3 s"),
    ("tests.support.faulty_agents.NoResetAgent", "reset"),  # not an agent: caught before any game
    ("os.getcwd", "os.getcwd"),
]


def test_agents_are_checked_in_a_guarded_process_naming_the_spec():
    # 3 s: a probe's fresh process imports the package (0.4 s alone), longer on a busy machine
    config = RunConfig(setup_seconds=3.0, game_name="trap")
    specs = ["random", *(spec for spec, _ in CONSTRUCTORS), "greedy"]
    problems = probe_specs(specs, config)
    assert problems["random"] is None and problems["greedy"] is None
    for spec, words in CONSTRUCTORS:
        problem = problems[spec]
        assert isinstance(problem, SpecError) and words in str(problem), (spec, problem)
        assert spec in str(problem)
    with pytest.raises(SpecError, match="ExitingConstructorAgent"):
        check_specs(["random", "tests.support.faulty_agents.ExitingConstructorAgent"], config)


def test_an_agent_that_cannot_play_the_board_is_refused_before_the_first_game(tmp_path):
    spec = "tests.support.faulty_agents.FiveOnlyAgent"
    check_specs([spec], RunConfig(params={"board_size": 5}, game_name="trap"))
    with pytest.raises(UnsupportedGameError, match="5x5 boards only, not 7x7"):
        check_specs([spec], RunConfig(params={"board_size": 7}, game_name="trap"))
    tasks = round_robin(["random", spec], 2, seed=0)
    with pytest.raises(UnsupportedGameError):
        run_games(
            tasks, tmp_path / "r.jsonl", RunConfig(workers=1, game_name="trap"), progress=False
        )
    assert not (tmp_path / "r.jsonl").exists()


def test_a_folder_with_results_is_resumed_only_with_its_settings_and_never_emptied(tmp_path):
    tasks = round_robin(["random", "agents.trap.random_agent.RandomAgent"], 2, seed=0)
    path = tmp_path / "r.jsonl"
    config = IN_PROCESS
    first = run_games(tasks, path, config, progress=False)
    with pytest.raises(ResultsError, match="already holds 2 recorded games"):
        run_games(tasks, path, config, progress=False)
    assert load_results(path) == first
    other = RunConfig(params={"board_size": 6}, max_turns=50, workers=0, game_name="trap")
    with pytest.raises(ResultsError) as caught:
        run_games(tasks, path, other, resume=True, progress=False)
    assert "board_size 5 there, 6 now" in str(caught.value)
    assert "max_turns 100 there, 50 now" in str(caught.value)
    assert load_results(path) == first
    replaced = run_games(tasks, path, other, overwrite=True, progress=False)
    assert load_results(path) == replaced and replaced[0]["rules"]["board_size"] == 6


def test_a_run_into_a_locked_file_is_refused(tmp_path):
    path = tmp_path / "r.jsonl"
    tasks = round_robin(["random", "agents.trap.random_agent.RandomAgent"], 2, seed=0)
    with tournament.ResultsLog(path) as log, pytest.raises(ResultsError, match="another run"):
        log.acquire()
        run_games(tasks, path, IN_PROCESS, progress=False)


@pytest.mark.parametrize("held", [False, True], ids=["no results file yet", "a results file"])
@pytest.mark.parametrize("flags", [{}, {"overwrite": True}, {"resume": True}],
                         ids=["plain", "overwrite", "resume"])  # fmt: skip
def test_a_refused_run_leaves_its_folder_as_it_was(tmp_path, monkeypatch, held, flags):
    # Refused by its checks, a run writes nothing: not even a results file made and removed
    # again, which would move the folder's time of change.
    def refuse(specs, config):  # a spec that cannot be built (faster than its probe)
        raise SpecError("no_such_agent cannot be built")

    monkeypatch.setattr(tournament, "check_specs", refuse)
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine\n")
    if held:
        (folder / "r.jsonl").write_text("")
    os.utime(folder, ns=(10**18, 10**18))  # 2001
    before = {path.name: path.read_bytes() for path in folder.iterdir()}
    tasks = round_robin(["random", "no_such_agent"], 2, seed=0)
    with pytest.raises(SpecError, match="no_such_agent"):
        run_games(tasks, folder / "r.jsonl", IN_PROCESS, progress=False, **flags)
    assert {path.name: path.read_bytes() for path in folder.iterdir()} == before
    assert folder.stat().st_mtime_ns == 10**18


def starving_reader(starving):
    """A schedstat reader: while ``starving[0]``, a worker waits for a CPU all along."""

    def read(pid):
        return SchedStat(0, time.monotonic_ns()) if starving[0] else read_schedstat(pid)

    return read


STALL_CONFIG = RunConfig(
    params={"board_size": 5}, workers=1, time_budget=0.2, wall_ceiling=0.6, game_name="trap"
)


def test_a_timeout_the_machine_caused_is_replayed_and_a_sleeping_agent_still_loses(
    tmp_path, monkeypatch
):
    starving, notes = [True], []
    monkeypatch.setattr(pool, "read_schedstat", starving_reader(starving))

    def note(message):
        notes.append(message)
        starving[0] = False  # the machine recovers for the replay

    sleepy = "tests.support.faulty_agents.SleepyAgent:after=1"
    records = run_games([one_game(sleepy, 0)], tmp_path / "r.jsonl", STALL_CONFIG, progress=False,
                        report=note)  # fmt: skip
    (record,) = records
    assert record["replays"] == 1 and "stalled" in record["replay_details"][0]
    assert (record["reason"], record["winner_spec"]) == ("timeout", "random")
    assert "waited 0.0 s for one" in record["detail"]  # the replay: slept, did not wait
    assert len(notes) == 1 and "replaying game" in notes[0]
    assert load_results(tmp_path / "r.jsonl") == records
    assert "replayed: 1 games (1 replays)" in format_report(records)


def test_a_game_the_machine_stalls_every_time_is_left_unplayed_and_reported(tmp_path, monkeypatch):
    monkeypatch.setattr(pool, "read_schedstat", starving_reader([True]))
    notes = []
    tasks = [
        one_game("tests.support.faulty_agents.SleepyAgent", 0),
        one_game("agents.trap.random_agent.RandomAgent", 1),
    ]
    records = run_games(tasks, tmp_path / "r.jsonl", STALL_CONFIG, progress=False,
                        report=notes.append)  # fmt: skip
    assert [r["game_id"] for r in records] == [tasks[1].game_id]
    assert records[0]["replays"] == 0
    assert sum("replaying" in note for note in notes) == MAX_REPLAYS
    assert "left unplayed" in notes[-1]
    assert load_results(tmp_path / "r.jsonl") == records


# --- Rule variants ----------------------------------------------------------------------


def test_a_board_size_per_game_is_drawn_from_its_seed_and_recorded(tmp_path):
    specs = ["random", "agents.trap.random_agent.RandomAgent"]
    tasks = round_robin(specs, 12, seed=4, paired_seeds=True)
    config = RunConfig(workers=0, params={"board_size": DrawnRule(4, 6)}, game_name="trap")
    records = run_games(tasks, tmp_path / "r.jsonl", config, progress=False)
    sizes = [record["rules"]["board_size"] for record in records]
    assert set(sizes) <= {4, 5, 6} and len(set(sizes)) > 1
    assert sizes[::2] == sizes[1::2]  # a paired seed shares it
    for task, record in zip(tasks, records, strict=True):
        assert record["rules"] == config.rule_params_for(task.seed) | {"decay": DEFAULT_DECAY}
        assert record["max_turns"] == 4 * record["rules"]["board_size"] ** 2
        final, _ = list(replay(record["actions"], game="trap", params=record["rules"]))[-1]
        assert final.turn == record["turns"]
    settings = json.loads((tmp_path / "r.settings.json").read_text())
    assert settings["drawn_rules"] == {"board_size": [4, 6]}
    assert "board_size" not in settings["rules"]
    again = run_games(tasks, tmp_path / "r.jsonl", config, resume=True, progress=False)
    assert again == records
    for other, shown in [(DrawnRule(4, 5), "4-5"), (None, "7")]:
        params = None if other is None else {"board_size": other}
        with pytest.raises(ResultsError, match=f"board_size 4-6 there, {shown} now"):
            run_games(tasks, tmp_path / "r.jsonl",
                      RunConfig(workers=0, params=params, game_name="trap"),
                      resume=True, progress=False)  # fmt: skip


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ((6, 4), r"LOW-HIGH, integers with LOW <= HIGH, got \(6, 4\)"),
        ((4, True), r"integers with LOW <= HIGH, got \(4, True\)"),
        ((2, 5), "board_size must be an integer from 3 to 1000, got int 2"),  # the game's words
    ],
)
def test_a_rule_drawn_per_game_names_what_is_allowed(rule, message):
    with pytest.raises(ValueError, match=message):
        RunConfig(params={"board_size": DrawnRule(*rule)}, game_name="trap")


def test_rules_drawn_per_game_are_refused_past_the_most_combinations():
    drawn = {"board_size": DrawnRule(3, 12), "decay": DrawnRule(0, 1000)}
    with pytest.raises(ValueError, match=r"\(board_size=3-12, decay=0-1000\) give 10010 rule "
                                         r"combinations; a run draws from at most 10000"):
        RunConfig(params=drawn, game_name="trap")


def test_a_random_opening_is_drawn_from_the_seed_and_played_from_both_seats(tmp_path):
    specs = ["expectiminimax:depth=1,time_limit=inf", "expectiminimax:depth=2,time_limit=inf"]
    tasks = round_robin(specs, 8, seed=9, paired_seeds=True)
    config = RunConfig(game_name="othello", params={"board_size": 6}, workers=0,
                       time_budget=None, opening_plies=4)
    records = run_games(tasks, tmp_path / "r.jsonl", config, progress=False)
    openings = [tuple(record["actions"][:4]) for record in records]
    assert openings[::2] == openings[1::2]  # each opening from both seats
    assert len(set(openings)) == 4  # and the four pairs open differently
    for record in records:  # every game replays from its recorded actions, opening included
        final, _ = list(replay(record["actions"], game="othello", params={"board_size": 6}))[-1]
        assert sum(record["scores"]["discs"]) == (final.dark | final.light).bit_count()
    assert json.loads((tmp_path / "r.settings.json").read_text())["opening_plies"] == 4
    plain = dataclasses.replace(config, opening_plies=0)
    with pytest.raises(ResultsError, match="opening_plies 4 there, 0 now"):
        run_games(tasks, tmp_path / "r.jsonl", plain, resume=True, progress=False)
    plain_records = run_games(tasks, tmp_path / "p.jsonl", plain, progress=False)
    assert len({tuple(record["actions"]) for record in plain_records}) == 2  # the same two games


def test_duplicate_chance_is_recorded_and_a_resume_draws_as_the_run_did(tmp_path):
    tasks = round_robin(["random", "greedy"], 2, seed=3, paired_seeds=True)
    config = RunConfig(game_name="trap", params={"board_size": 5}, workers=0,
                       time_budget=None, duplicate_chance=True)
    run_games(tasks, tmp_path / "r.jsonl", config, progress=False)
    assert json.loads((tmp_path / "r.settings.json").read_text())["duplicate_chance"] is True
    plain = dataclasses.replace(config, duplicate_chance=False)
    assert "duplicate_chance" not in plain.settings()  # runs without it write as before
    with pytest.raises(ResultsError, match="duplicate_chance True there, False now"):
        run_games(tasks, tmp_path / "r.jsonl", plain, resume=True, progress=False)
    with pytest.raises(ValueError, match="duplicate_chance must be True or False, got 1"):
        RunConfig(game_name="trap", duplicate_chance=1)  # type: ignore[arg-type]


@every_game("greedy")
def test_a_random_opening_is_played_in_every_game_even_one_that_starts_by_chance(game, tmp_path):
    tasks = round_robin(["random", "greedy"], 2, seed=3, paired_seeds=True)
    config = RunConfig(game_name=game, workers=0, time_budget=None, opening_plies=3)
    records = run_games(tasks, tmp_path / "r.jsonl", config, progress=False)
    assert [record["reason"] for record in records if record["reason"] in FAULTS] == []
    assert records[0]["actions"][:3] == records[1]["actions"][:3]  # one opening, both seats


@pytest.mark.parametrize("plies", [-1, 1001, 2.0, True])
def test_a_random_opening_names_what_is_allowed(plies):
    with pytest.raises(ValueError, match="opening_plies must be an integer from 0 to 1000"):
        RunConfig(opening_plies=plies, game_name="trap")


def test_agents_are_asked_about_every_board_size_of_the_run():
    five_only = "tests.support.faulty_agents.FiveOnlyAgent"
    not_four = "tests.support.faulty_agents.NotFourAgent"
    def sizes(low: int, high: int) -> RunConfig:
        return RunConfig(params={"board_size": DrawnRule(low, high)}, game_name="trap")

    check_specs([five_only], sizes(5, 5))
    with pytest.raises(UnsupportedGameError, match="not 6x6"):
        check_specs([five_only], sizes(5, 6))
    with pytest.raises(UnsupportedGameError, match="any board but 4x4"):  # inside the range
        check_specs([not_four], sizes(3, 5))


def test_a_decay_is_a_setting_of_the_run_and_of_each_record(tmp_path):
    tasks = round_robin(["random", "agents.trap.random_agent.RandomAgent"], 2, seed=0)
    path = tmp_path / "r.jsonl"
    config = RunConfig(game_name="trap", workers=0, params={"board_size": 5, "decay": 0})
    records = run_games(tasks, path, config, progress=False)
    assert json.loads(path.with_suffix(".settings.json").read_text())["rules"]["decay"] == 0
    assert [record["rules"]["decay"] for record in load_results(path)] == [0, 0]
    for record in records:
        params = {"board_size": 5, "decay": 0}
        final, _ = list(replay(record["actions"], game="trap", params=params))[-1]
        assert final.turn == record["turns"]
    default = run_games(
        tasks,
        tmp_path / "d.jsonl",
        IN_PROCESS,
        progress=False,
    )
    settings = json.loads((tmp_path / "d.settings.json").read_text())
    assert settings["rules"]["decay"] == DEFAULT_DECAY  # every rule, the defaults too
    assert all(record["rules"]["decay"] == DEFAULT_DECAY for record in default)


@pytest.mark.parametrize("settings_file", ["kept", "from before decay", "lost"])
def test_resume_with_another_decay_is_refused_naming_it(tmp_path, settings_file):
    tasks = round_robin(["random", "agents.trap.random_agent.RandomAgent"], 2, seed=0)
    path = tmp_path / "r.jsonl"
    run_games(tasks, path, IN_PROCESS,
              progress=False)  # fmt: skip
    settings = path.with_suffix(".settings.json")
    if settings_file == "from before decay":  # Trap!'s settings named no game, nor its decay
        recorded = json.loads(settings.read_text())
        board_size = recorded.pop("rules")["board_size"]
        del recorded["game"]
        settings.write_text(json.dumps(recorded | {"board_size": board_size}))
    elif settings_file == "lost":
        settings.unlink()
    other = RunConfig(game_name="trap", workers=0, params={"board_size": 5, "decay": 0})
    with pytest.raises(ResultsError, match="decay 50 there, 0 now"):
        run_games(tasks, path, other, resume=True, progress=False)
    run_games(
        tasks,
        path,
        IN_PROCESS,
        resume=True,
        progress=False,
    )


def test_a_record_of_another_decay_is_not_resumed(tmp_path):
    tasks = round_robin(["random", "agents.trap.random_agent.RandomAgent"], 2, seed=0)
    path = tmp_path / "r.jsonl"
    run_games(
        tasks,
        path,
        RunConfig(game_name="trap", workers=0, params={"board_size": 5, "decay": 0}),
        progress=False,
    )
    path.with_suffix(".settings.json").unlink()
    lines = path.read_text().splitlines(keepends=True)
    second = json.loads(lines[1])
    second["rules"]["decay"] = 50  # as if played by the game as specified
    path.write_text(lines[0] + json.dumps(second) + "\n")
    with pytest.raises(ResultsError, match="played with decay 50, this run has 0"):
        run_games(
            tasks,
            path,
            RunConfig(game_name="trap", workers=0, params={"board_size": 5, "decay": 0}),
            resume=True,
            progress=False,
        )


def test_the_in_process_runner_contains_an_agent_that_exits(tmp_path):
    specs = ("tests.support.faulty_agents.ExitingAgent",
             "tests.support.faulty_agents.ExitingResetAgent")  # fmt: skip
    tasks = [GameTask(spec, (spec, "random"), (spec, "random"), seed=1) for spec in specs]
    records = run_games(
        tasks,
        tmp_path / "r.jsonl",
        IN_PROCESS,
        progress=False,
    )
    assert [r["reason"] for r in records] == ["exception", "exception"]
    assert (
        "SystemExit" in records[0]["detail"] and "reset raised SystemExit" in records[1]["detail"]
    )
    assert all(r["winner_spec"] == "random" for r in records)


@pytest.mark.parametrize("workers", [0, 2])
def test_a_full_disk_ends_the_run_with_one_error_and_the_recorded_games_kept(
    tmp_path, monkeypatch, workers
):
    from agents.arena import results

    tasks = round_robin(["random", "agents.trap.random_agent.RandomAgent"], 6, seed=0)
    path = tmp_path / "r.jsonl"
    write_line = results._write_line
    written = []

    def full_after_three(fd: int, data: memoryview) -> None:
        if len(written) == 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written.append(data)
        write_line(fd, data)

    monkeypatch.setattr(results, "_write_line", full_after_three)
    with pytest.raises(ResultsError, match=r"No space left on device.*kept.*--resume"):
        run_games(
            tasks, path, dataclasses.replace(IN_PROCESS, workers=workers), progress=False
        )
    monkeypatch.undo()
    assert len(load_results(path)) == 3
    config = IN_PROCESS
    assert len(run_games(tasks, path, config, resume=True, progress=False)) == len(tasks)


def test_two_different_records_of_one_game_are_refused_and_a_repeated_one_is_not(tmp_path):
    tasks = round_robin(["random", "agents.trap.random_agent.RandomAgent"], 2, seed=0)
    path = tmp_path / "r.jsonl"
    config = IN_PROCESS
    full = run_games(tasks, path, config, progress=False)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines) + lines[0])  # the same record twice: one game
    assert without_timing(run_games(tasks, path, config, resume=True, progress=False)) == (
        without_timing(full)
    )
    other = json.loads(lines[0])
    other["winner"] = 1 - other["winner"] if other["winner"] in (0, 1) else 0
    other["winner_spec"] = other["seats"][other["winner"]]
    path.write_text("".join(lines) + json.dumps(other) + "\n")
    with pytest.raises(ResultsError, match="two different records of game"):
        run_games(tasks, path, config, resume=True, progress=False)


class SpecifiedRuleOnlyAgent(RandomAgent):
    """Plays only the throw's decay as specified, and says so."""

    def check_game(self, config: GameConfig) -> None:
        if config.decay != DEFAULT_DECAY:
            raise UnsupportedGameError(f"plays decay {DEFAULT_DECAY} only, not {config.decay}")


def test_agents_are_asked_whether_they_play_the_runs_decay(tmp_path):
    spec = f"{__name__}.SpecifiedRuleOnlyAgent"
    check_specs([spec], RunConfig(params={"board_size": 5}, game_name="trap"))
    with pytest.raises(UnsupportedGameError, match="decay 50 only, not 0"):
        check_specs([spec], RunConfig(game_name="trap", params={"board_size": 5, "decay": 0}))
    tasks = round_robin(["random", spec], 2, seed=0)
    config = RunConfig(game_name="trap", workers=0, params={"board_size": 5, "decay": 0})
    records = run_games(tasks, tmp_path / "r.jsonl", config, check=False, progress=False)
    assert {record["winner_spec"] for record in records} == {"random"}
    assert all("decay 50 only, not 0" in record["detail"] for record in records)


def test_the_arena_modules_import_without_a_circle():
    """Each arena module imports alone, in a fresh interpreter, and none imports tournament."""
    arena = ROOT / "agents" / "arena"
    for module in ("plan", "pool", "probe", "worker", "ray_backend", "tournament"):
        source = (arena / f"{module}.py").read_text()
        assert "from agents.arena.tournament" not in source or module == "tournament"
        code = f"import agents.arena.{module}"
        subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_backends_name_their_pools_as_data():
    assert set(tournament.BACKENDS) == {"process", "ray"}
    assert tournament.backend_pool("process") is pool.WorkerPool


HANGING_PROGRAM = """
import subprocess, sys, time
subprocess.Popen(["sleep", "300"])  # a child of its own, in the program's process group
print("trap-protocol 1", flush=True)
sys.stdin.readline(), sys.stdin.readline()  # the greeting, then a game's first line
open(sys.argv[1], "w").close()
time.sleep(300)  # never answers
"""


def marked_processes(mark: bytes) -> list[int]:
    """The live processes whose environment holds ``mark`` (zombies show none)."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as environ:
                    if mark in environ.read().split(b"\0"):
                        found.append(int(entry.name))
            except OSError:
                continue
    return found


def wait_for(condition, seconds):
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return condition()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize(
    ("ending", "opponent", "options"),
    [
        ("normal end", "random", []),
        ("SIGTERM", "tests.support.faulty_agents.MarkedSleepyAgent:mark={mark}",
         ["--time-budget", "none"]),
        ("SIGKILL", "tests.support.faulty_agents.MarkedSleepyAgent:mark={mark}",
         ["--time-budget", "none"]),
        ("an agent that hangs", "tests.support.faulty_agents.SleepyAgent",
         ["--time-budget", "0.2"]),
        ("SIGKILL", "exec:{program}", ["--time-budget", "none"]),
        ("SIGTERM", "exec:{program}", ["--time-budget", "none"]),
    ],
)
def test_no_process_of_a_run_outlives_it_however_it_ends(tmp_path, ending, opponent, options):
    program = tmp_path / "hanging.py"
    program.write_text(HANGING_PROGRAM)
    hung = tmp_path / "hung"  # created when an agent starts its hang
    spec = opponent.format(program=shlex.join([sys.executable, str(program), str(hung)]), mark=hung)
    mark = f"TRAP_LIFETIME_TEST={tmp_path.name}".encode()
    key, _, value = mark.decode().partition("=")
    env = {
        **os.environ,
        key: value,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    command = [
        sys.executable, "-m", "trap_scripts.tournament", "random", spec,
        "--games", "2", "--board-size", "5", "--workers", "2", *options,
        "--output", str(tmp_path / "out"), "--quiet", "--no-plot",
    ]  # fmt: skip
    runner = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        if ending in ("SIGTERM", "SIGKILL"):
            assert wait_for(hung.exists, 60), "no agent hung"
            runner.send_signal(getattr(signal, ending))
        runner.wait(timeout=60)
        assert wait_for(lambda: not marked_processes(mark), 10), marked_processes(mark)
    finally:
        runner.kill()
        for pid in marked_processes(mark):
            os.kill(pid, signal.SIGKILL)


def test_resume_imports_a_records_game_path_only_when_it_is_the_runs(tmp_path, planted_game):
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(planted_game.record) + "\n")
    tasks = round_robin(["random", "agents.trap.random_agent.RandomAgent"], 1, seed=0)
    with pytest.raises(ResultsError, match="'game' must be a game's name"):
        run_games(
            tasks,
            path,
            IN_PROCESS,
            resume=True,
            progress=False,
        )
    assert not planted_game.was_imported()


def test_a_results_file_replaced_during_a_run_ends_it_with_its_games_kept_beside(
    tmp_path, monkeypatch
):
    tasks = round_robin(["random", "agents.trap.random_agent.RandomAgent"], 5, seed=0)
    path = tmp_path / "results.jsonl"
    played = []

    def play_and_edit(*args):
        if len(played) == 2:  # sed -i: a new file renamed over the results
            edited = tmp_path / "sedXYZ"
            edited.write_text(path.read_text())
            os.replace(edited, path)
        played.append(real(*args))
        return played[-1]

    real = tournament.play_task
    monkeypatch.setattr(tournament, "play_task", play_and_edit)
    with pytest.raises(ResultsError, match=f"results.{os.getpid()}.jsonl: check them"):
        run_games(tasks, path, IN_PROCESS, progress=False)
    assert len(load_results(path)) == 2
    assert load_results(tmp_path / f"results.{os.getpid()}.jsonl") == played


@pytest.mark.parametrize(
    ("first", "then"),
    [
        ([], ["--rule", "end_rule=standard"]),
        (["--rule", "end_rule=standard"], ["--board-size", "8"]),
        (["--board-size", "8"], ["--rule", "end_rule=standard"]),
    ],
)
def test_resume_with_a_rule_written_out_at_its_default_is_the_same_run(tmp_path, first, then):
    from trap_scripts import tournament as cli

    argv = ["random", "agents.trap.random_agent.RandomAgent", "--game", "othello", "--games", "1",
            "--workers", "0", "--output", str(tmp_path), "--quiet", "--no-plot"]  # fmt: skip
    assert cli.main([*argv, *first]) == 0
    assert cli.main([*argv, *then, "--resume"]) == 0
    assert cli.main([*argv, "--rule", "end_rule=course", "--resume"]) == 2


def test_a_run_names_its_game_or_is_refused_naming_the_games():
    from agents.arena.match import play_game

    games = re.escape(f"one of {', '.join(map(repr, game_names()))}, or a game's path")
    with pytest.raises(TypeError, match=r"RunConfig\(\) needs game_name=: " + games):
        RunConfig(params={"board_size": 5})
    with pytest.raises(TypeError, match=r"play_game\(\) needs game=: " + games):
        play_game([RandomAgent(), RandomAgent()], seed=0)


def test_an_old_run_of_another_game_resumes(tmp_path):
    """Runs of Othello written before the rules were one dictionary recorded Trap!'s default
    board size and decay in their settings too: they still resume."""
    tasks = round_robin(["random", "greedy"], 2, seed=0)
    path = tmp_path / "r.jsonl"
    config = RunConfig(game_name="othello", params={"board_size": 6}, workers=0,
                       time_budget=None)  # fmt: skip
    run_games(tasks[:2], path, config, progress=False)
    settings_file = path.with_suffix(".settings.json")
    old = json.loads(settings_file.read_text()) | {"board_size": 7, "decay": 50}
    settings_file.write_text(json.dumps(old))
    records = run_games(tasks, path, config, resume=True, progress=False)
    assert len(records) == len(tasks)
    assert all(r["game"] == "othello" and r["rules"]["board_size"] == 6
               for r in load_results(path))  # fmt: skip


# --- Runs written before the rules were one dictionary ----------------------------------

OLD_RUNS = ROOT / "tests" / "data" / "old_runs"
"""Runs written by the runner before records and settings held every rule in ``rules``:
Trap!'s records and settings with its rules in fields of their own and a size drawn per
game in ``board_sizes``, other games' with the board size beside their rules."""

OLD_RUN_FLAGS = {
    "trap-sizes-6-8": [
        ["--board-size", "6-8", "--decay", "0"],
        ["--rule", "board_size=6-8", "--rule", "decay=0"],
    ],
    "othello-6-course": [["--game", "othello", "--board-size", "6", "--rule", "end_rule=course"]],
    "colosseum-sizes-5-7": [["--game", "colosseum", "--rule", "board_size=5-7"]],
}
"""Each old run, and the flags that play it again (its seed and games: in :func:`old_run`)."""


def old_run(name: str) -> list[str]:
    """The command line of the old run ``name``, but its rules."""
    records = [json.loads(line) for line in (OLD_RUNS / name / "results.jsonl").open()]
    seed = {"trap-sizes-6-8": 5, "othello-6-course": 5, "colosseum-sizes-5-7": 1}[name]
    return ["random", "greedy", "--games", str(len(records)), "--seed", str(seed),
            "--time-budget", "none", "--workers", "0", "--quiet", "--no-plot"]  # fmt: skip


def same_game(record: dict) -> tuple:
    """What decides a game and how it went, whichever shape its record has."""
    from agents.arena.record_rules import record_game, record_params
    from trap_env.game import played_params
    from trap_env.games import get_game

    played = played_params(get_game(record_game(record)), record_params(record))
    fields = ("game_id", "seats", "seed", "max_turns", "winner", "reason", "turns", "actions")
    return (record_game(record), sorted(played.items()), *(record[key] for key in fields))


@pytest.mark.parametrize(
    ("name", "flags"), [(name, flags) for name, each in OLD_RUN_FLAGS.items() for flags in each]
)
def test_an_old_run_resumes_with_its_flags_and_plays_the_same_games(tmp_path, name, flags):
    """A run cut short and resumed by this runner keeps its games in their own shape and
    plays the others as the old runner did: the same rules drawn from the same seeds
    (``--rule board_size=6-8`` as ``--board-size 6-8`` drew them), the same games."""
    from trap_scripts import tournament as cli

    from agents.arena.replays import replay_record

    folder = Path(shutil.copytree(OLD_RUNS / name, tmp_path / name))
    lines = (folder / "results.jsonl").read_text().splitlines(keepends=True)
    (folder / "results.jsonl").write_text("".join(lines[:1]))
    argv = [*old_run(name), *flags, "--output", str(folder)]
    assert cli.main([*argv, "--resume"]) == 0
    resumed = load_results(folder / "results.jsonl")
    assert json.dumps(resumed[0]) + "\n" == lines[0]  # kept as it was written
    old = [json.loads(line) for line in lines]
    assert sorted(map(same_game, resumed)) == sorted(map(same_game, old))
    for record in resumed:
        replay_record(record)
    assert cli.main([*argv, "--resume"]) == 0  # the settings it wrote are the same run's


def test_an_old_run_resumed_with_other_rules_is_refused_naming_each(tmp_path, capsys):
    from trap_scripts import tournament as cli

    folder = Path(shutil.copytree(OLD_RUNS / "trap-sizes-6-8", tmp_path / "run"))
    argv = [*old_run("trap-sizes-6-8"), "--output", str(folder), "--resume"]
    assert cli.main([*argv, "--board-size", "6-7"]) == 2
    assert "board_size 6-8 there, 6-7 now; decay 0 there, 50 now" in capsys.readouterr().err


def test_a_session_plays_batch_after_batch_on_one_pool_and_file(tmp_path, monkeypatch):
    started = []
    start = pool.WorkerPool._start
    monkeypatch.setattr(pool.WorkerPool, "_start", lambda self: started.append(1) or start(self))
    config = RunConfig(game_name="trap", params={"board_size": 4}, workers=1, time_budget=None)
    tasks = round_robin(["random", "greedy"], 4, seed=3)
    path = tmp_path / "results.jsonl"
    with tournament.game_session(path, config, tasks[:2], progress=False) as session:
        first = session.play(tasks[:2])
        second = session.play(tasks[1:])  # the game played already is not played again
    assert len(started) == 1  # one worker, kept from one batch to the next
    assert [r["game_id"] for r in first + second] == [t.game_id for t in tasks[:2] + tasks[1:]]
    alone = run_games(tasks, tmp_path / "alone.jsonl", dataclasses.replace(config, workers=0),
                      progress=False)  # fmt: skip
    plays = [(r["game_id"], r["winner"], r["actions"]) for r in alone]
    assert [(r["game_id"], r["winner"], r["actions"]) for r in first + second[1:]] == plays
    assert len(path.read_text().splitlines()) == 4

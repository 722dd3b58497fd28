"""Tests of agents.program: programs in any language as agents, their protocol and limits.

The programs that break the rules are small Python scripts written by the tests; they
start in a few tens of milliseconds, so the limits here are tight without being flaky.
"""

from __future__ import annotations

import copy
import gc
import hashlib
import json
import pickle
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from agents import SpecError, make_agent, parse_spec
from agents.arena.match import play_game
from agents.program import (
    PROTOCOL,
    ProgramAgent,
    ProgramCrashed,
    ProgramError,
    ProgramTimeout,
    ProtocolError,
)
from tests.support import toy_game
from tests.support.positions import random_position
from trap_env.agent import UnsupportedGameError, check_supports
from trap_env.trap.core import (
    NO_PLAYER,
    GameConfig,
    Phase,
    apply,
    initial_state,
    legal_actions,
    to_text,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
PYTHON_EXAMPLE = shlex.join([sys.executable, str(EXAMPLES / "python_agent.py")])
OPENING = initial_state(GameConfig(board_size=5))
RACE = toy_game.GAME
RACE_PATH = "tests.support.toy_game:GAME"
PRELUDE = f"""\
import os, random, subprocess, sys, time
sys.path.insert(0, {str(EXAMPLES)!r})
from python_agent import decide
rng = random.Random(0)
"""


def program(folder: Path, body: str, name: str = "program.py") -> str:
    """Write a Python program and return the command line that runs it.

    ``body`` follows a prelude that imports the Python example's ``decide(line, rng)``.
    """
    path = folder / name
    path.write_text(PRELUDE + textwrap.dedent(body), encoding="utf-8")
    return shlex.join([sys.executable, str(path)])


def is_gone(pid: int, within: float = 3.0) -> bool:
    """Whether process ``pid`` is gone (or a zombie) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                if stat.read().rpartition(")")[2].split()[0] == "Z":
                    return True
        except OSError:
            return True
        time.sleep(0.02)
    return False


@pytest.fixture(scope="module")
def c_agent(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The C example, compiled with ``cc`` (the test is skipped without a compiler)."""
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler 'cc' on PATH")
    binary = tmp_path_factory.mktemp("c_agent") / "c_agent"
    flags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-O2"]
    subprocess.run([compiler, *flags, "-o", str(binary), str(EXAMPLES / "c_agent.c")], check=True)
    return str(binary)


# --- Specs ------------------------------------------------------------------------------


def test_exec_spec_keeps_the_whole_command_line_split_as_a_shell_would():
    spec = f"""exec:{sys.executable} -c 'print(1, 2)' --name=a:b,c "two words" """
    assert parse_spec(spec) == ("exec", {"command": spec[len("exec:") :].strip()})
    agent = make_agent(spec, seed=1, time_limit=0.5, memory_limit=1 << 28, game="trap")
    assert isinstance(agent, ProgramAgent)
    assert agent.argv == [sys.executable, "-c", "print(1, 2)", "--name=a:b,c", "two words"]
    assert (agent.time_limit, agent.memory_limit) == (0.5, 1 << 28)


@pytest.mark.parametrize(
    ("spec", "options", "words"),
    [
        ("exec:", {}, "needs a command"),
        ("exec:   ", {}, "needs a command"),
        ("exec:./no/such/program --fast", {}, "cannot run './no/such/program'"),
        ("exec:python3 -c 'unclosed", {}, "cannot split"),
        (f"exec:{sys.executable}", {"depth": 3}, "depth"),
        (f"exec:{sys.executable}", {"time_limit": 0}, "time_limit must be a positive number"),
        (f"exec:{sys.executable}", {"memory_limit": -1}, "memory_limit must be a positive"),
        (f"exec:{sys.executable}", {"memory_limit": 1 << 63}, "up to 9223372036854775807"),
        (f"exec:{sys.executable}", {"memory_limit": 1.5e9}, "whole number of bytes"),
    ],
)
def test_bad_exec_specs_are_refused_before_any_game(spec, options, words):
    with pytest.raises(SpecError, match=re.escape(words)):
        make_agent(spec, **options, game="trap")


# --- Whole games ------------------------------------------------------------------------


def play_both_seats(agent: ProgramAgent, board_size: int, seeds: range) -> list:
    results = []
    for seed in seeds:
        for seat in (0, 1):
            agents = [
                make_agent("random", game="trap", seed=seed),
                make_agent("random", game="trap", seed=seed),
            ]
            agents[seat] = agent
            result = play_game(
                agents, seed=seed, board_size=board_size, time_budget=1.0, game="trap"
            )
            assert result.reason in ("trapped", "truncated"), result.detail
            results.append((seat, result))
    return results


@pytest.mark.parametrize("board_size", [5, 7])
def test_python_example_plays_whole_games_against_random(board_size):
    with make_agent(f"exec:{PYTHON_EXAMPLE}", time_limit=1.0, game="trap") as agent:
        results = play_both_seats(agent, board_size, range(3))
    assert sum(result.winner == seat for seat, result in results) >= len(results) // 2


@pytest.mark.parametrize("board_size", [3, 5, 7, 9])
def test_c_example_plays_whole_games_against_random(c_agent, board_size):
    with make_agent(f"exec:{c_agent}", time_limit=1.0, game="trap") as agent:
        results = play_both_seats(agent, board_size, range(3))
    assert sum(result.winner == seat for seat, result in results) >= len(results) // 2


@pytest.fixture(scope="module")
def example_agents(c_agent: str) -> Iterator[dict[str, ProgramAgent]]:
    """Both examples, each one program for the whole module."""
    agents = {
        "python": ProgramAgent(PYTHON_EXAMPLE, game="trap"),
        "c": ProgramAgent(c_agent, game="trap"),
    }
    yield agents
    for agent in agents.values():
        agent.close()


@pytest.mark.parametrize("name", ["python", "c"])
@settings(max_examples=60, deadline=None)
@given(size=st.integers(3, 9), seed=st.integers(0, 2**32), steps=st.integers(0, 80))
def test_the_examples_answer_a_legal_action_in_any_position(
    example_agents, name, size, seed, steps
):
    state = random_position(random.Random(seed), size, steps)
    assume(state.winner == NO_PLAYER)
    assert example_agents[name].select_action(state) in legal_actions(state)


def test_extended_program_replays_a_game_from_its_seed():
    def game(seed: int) -> list[int]:
        with ProgramAgent(PYTHON_EXAMPLE, game="trap") as agent:
            players = [agent, make_agent("random", game="trap")]
            return play_game(players, seed=seed, game="trap", board_size=7).actions

    assert game(5) == game(5)


def test_tournament_cli_runs_programs_in_worker_processes(tmp_path, c_agent):
    from trap_scripts.tournament import main

    output = tmp_path / "run"
    status = main(
        [
            "random",
            f"exec:{PYTHON_EXAMPLE}",
            f"exec:{c_agent}",
            "--games",
            "2",
            "--board-size",
            "5",
            "--time-budget",
            "1",
            "--workers",
            "1",
            "--quiet",
            "--no-plot",
            "--output",
            str(output),
        ]
    )
    assert status == 0
    records = [json.loads(line) for line in (output / "results.jsonl").read_text().splitlines()]
    assert len(records) == 6
    assert all(record["reason"] in ("trapped", "truncated") for record in records), records


@pytest.mark.parametrize(
    ("body", "option", "words"),
    [
        ("bytearray(100 << 20)", ["--memory-limit", "64M"], "ran out of memory (limit 64 MiB)"),
        ("spin(0.5)", ["--time-budget", "0.2"], "ProgramTimeout"),
    ],
)
def test_the_runs_limits_reach_program_agents_in_the_workers(tmp_path, body, option, words):
    from trap_scripts.tournament import main

    command = program(
        tmp_path,
        f"""
        def spin(seconds):
            start = time.process_time()
            while time.process_time() - start < seconds:
                pass

        while line := sys.stdin.readline():
            {body}
            print(decide(line, rng), flush=True)
        """,
    )
    output = tmp_path / "run"
    arguments = ["random", f"exec:{command}", "--games", "2", "--board-size", "5"]
    arguments += ["--workers", "1", "--quiet", "--no-plot", "--output", str(output), *option]
    assert main(arguments) == 0
    records = [json.loads(line) for line in (output / "results.jsonl").read_text().splitlines()]
    assert len(records) == 2
    for record in records:
        assert record["winner_spec"] == "random" and words in record["detail"], record


@pytest.mark.parametrize(
    ("text", "size"),
    [("1G", 1 << 30), ("512m", 512 << 20), ("64K", 64 << 10), ("4096", 4096), ("none", None)],
)
def test_memory_limit_option_reads_sizes_with_units(text, size):
    from trap_scripts._cli import memory_or_none

    assert memory_or_none(text) == size


@pytest.mark.parametrize(
    "text", ["0", "1.5G", "-1M", "G", "lots", "8589934592G", str(1 << 63), "9" * 30]
)
def test_a_bad_memory_limit_is_refused_in_one_line(capsys, text):
    from trap_scripts.tournament import main

    with pytest.raises(SystemExit) as exit_info:
        main(["random", "greedy", f"--memory-limit={text}"])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert f"{text!r} is not a memory size such as" in error and "RLIMIT_AS" in error
    assert error.count("\n") == 1


def test_a_program_that_ends_at_start_under_its_memory_limit_is_told_why():
    command = shlex.join([sys.executable, "-c", "print(0)"])
    with (
        ProgramAgent(command, memory_limit=8 << 20, game="trap") as agent,
        pytest.raises(ProgramCrashed) as raised,
    ):
        agent.select_action(OPENING)
    assert "its memory limit (8 MiB) may be why" in str(raised.value)


# --- Faults -----------------------------------------------------------------------------

FAULTS = {
    "crash": (
        "sys.stdin.readline(); print('boom', file=sys.stderr); sys.exit(3)",
        ProgramCrashed,
        ["exited with code 3", "boom"],
    ),
    "killed_by_signal": (
        "sys.stdin.readline(); os.kill(os.getpid(), 11)",
        ProgramCrashed,
        ["killed by signal SIGSEGV"],
    ),
    "exits_at_once": ("", ProgramCrashed, ["closed its"]),
    "garbage": ("sys.stdin.readline(); print('e2e4')", ProtocolError, ["'e2e4'", "one integer"]),
    "endless_line": (
        "sys.stdin.readline(); sys.stdout.write('7' * 10000); sys.stdout.flush(); time.sleep(60)",
        ProtocolError,
        ["without a newline"],
    ),
    "long_line": (
        "sys.stdin.readline(); print(' ' * 9999, flush=True); time.sleep(60)",
        ProtocolError,
        ["a line may take at most 4096 bytes with its newline"],
    ),
    "huge_number": (
        "sys.stdin.readline(); print('7' * 5000, flush=True); time.sleep(60)",
        ProtocolError,
        ["a line may take at most 4096 bytes with its newline"],
    ),
    "silent": ("sys.stdin.readline(); time.sleep(60)", ProgramTimeout, ["wall-clock"]),
    "busy": ("sys.stdin.readline()\nwhile True: pass", ProgramTimeout, ["of CPU time, limit 0.3"]),
    "over_memory": (
        "sys.stdin.readline(); hog = bytearray(512 << 20); print(0)",
        ProgramCrashed,
        ["MemoryError", "ran out of memory (limit 128 MiB)"],
    ),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_fault_raises_a_clear_error_and_kills_the_program(tmp_path, fault):
    body, error_class, words = FAULTS[fault]
    wall_limit = 1.0 if fault == "silent" else 30.0  # on a loaded machine CPU time lags
    agent = ProgramAgent(
        program(tmp_path, body),
        time_limit=0.3,
        memory_limit=128 << 20,
        wall_limit=wall_limit,
        game="trap",
    )
    started = time.monotonic()
    with pytest.raises(error_class) as raised:
        agent.select_action(OPENING)
    assert time.monotonic() - started < 20
    message = str(raised.value)
    assert "program.py" in message and "turn 0, move" in message
    for word in words:
        assert word in message
    assert agent._process is None


@pytest.mark.parametrize("fault", ["crash", "garbage", "busy", "huge_number"])
def test_a_fault_is_recorded_as_that_seats_loss_with_the_reason(tmp_path, fault):
    body, error_class, words = FAULTS[fault]
    with ProgramAgent(program(tmp_path, body), time_limit=0.3, game="trap") as agent:
        players = [make_agent("random", game="trap"), agent]
        result = play_game(players, seed=0, game="trap", board_size=5)
    assert result.winner == 0 and result.reason == error_class.reason
    assert error_class.__name__ in result.detail
    assert all(word in result.detail for word in words)


@pytest.mark.parametrize(("padding", "fits"), [(4093, True), (4094, False)])
def test_a_line_may_take_4096_bytes_with_its_newline(tmp_path, padding, fits):
    answer = " " * padding + "10"
    command = program(tmp_path, f"sys.stdin.readline(); print({answer!r}, flush=True)")
    with ProgramAgent(command, game="trap") as agent:
        if fits:
            assert agent.select_action(OPENING) == 10
        else:
            with pytest.raises(ProtocolError, match="at most 4096 bytes with its newline"):
                agent.select_action(OPENING)


def test_only_the_end_of_a_programs_standard_error_is_kept(tmp_path):
    command = program(
        tmp_path,
        """
        sys.stdin.readline()
        for _ in range(200):
            sys.stderr.write("x" * 100_000)
        sys.stderr.write(" the end"); sys.stderr.flush()
        print(7, flush=True)
        sys.stdin.readline()
        sys.exit(3)
        """,
    )
    with ProgramAgent(command, time_limit=30.0, game="trap") as agent:
        assert agent.select_action(OPENING) == 7
        assert len(agent._process.stderr_tail) <= 600
        with pytest.raises(ProgramCrashed, match="xxx the end'"):
            agent.select_action(apply(OPENING, 7))


ECHO = """
hello, answer = sys.argv[1].encode(), open(sys.argv[2], "rb").read()
sys.stdin.readline()
if hello:
    sys.stdout.buffer.write(hello + b"\\n"); sys.stdout.flush()
    while not sys.stdin.readline().startswith(("...", ".", "x", "0", "1")):
        pass
sys.stdout.buffer.write(answer + b"\\n"); sys.stdout.flush()
time.sleep(60)
"""
"""Says the hello it is given (if any), then answers the state with the bytes of a file."""

ANSWERS = st.one_of(
    st.binary(max_size=60),
    st.text(max_size=30).map(str.encode),
    st.from_regex(r"\A *-?[0-9]{1,6}( *, *[0-9]{1,6})? *\Z").map(str.encode),
    st.integers(0, 6000).map(lambda digits: b"7" * digits),
)


HELLOS = st.one_of(
    st.sampled_from(["", "trap-protocol 1", "trap-protocol 2"]),
    st.from_regex(r"\Atrap-protocol [0-3]( (sizes|games)=[a-z0-9,]{0,6}){0,3}\Z"),
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=20).map(
        "trap-protocol {}".format
    ),
)
"""Hellos: none, the right ones, and ones that start right and go wrong."""


@pytest.fixture(scope="module")
def echo_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("echo")
    return Path(shlex.split(program(folder, ECHO))[1])


@settings(max_examples=30, deadline=None)
@given(answer=ANSWERS, hello=HELLOS)
@example(answer=b"7" * 5000, hello="")  # int() raised ValueError: an 'exception'
def test_any_answer_is_an_action_or_a_fault_with_the_runners_reason(echo_program, answer, hello):
    answer_file = echo_program.parent / hashlib.sha256(answer).hexdigest()
    answer_file.write_bytes(answer)
    command = [sys.executable, str(echo_program), hello, str(answer_file)]
    with ProgramAgent(command, time_limit=5.0, game="trap") as agent:
        try:
            action = agent.select_action(OPENING)
        except ProgramError as error:
            assert error.reason in ("crash", "illegal", "timeout"), error
            assert len(str(error)) < 2000
        except UnsupportedGameError as error:  # a hello that declared other sizes or games
            assert "(its hello said so)" in str(error) or "Trap! only" in str(error), error
        else:
            assert isinstance(action, int)


def test_output_when_no_answer_is_due_is_refused(tmp_path):
    command = program(
        tmp_path,
        """
        while line := sys.stdin.readline():
            print(decide(line, rng), flush=True)
            print("thinking...", flush=True)
        """,
    )
    with ProgramAgent(command, game="trap") as agent:
        move = agent.select_action(OPENING)
        time.sleep(0.2)
        with pytest.raises(
            ProtocolError, match=re.escape("wrote 'thinking...\\n' when no answer was due")
        ):
            agent.select_action(apply(OPENING, move))


def test_after_a_fault_the_next_decision_starts_a_fresh_program(tmp_path):
    command = program(
        tmp_path,
        """
        while line := sys.stdin.readline():
            print(decide(line, rng) if line.split()[4] == "0" else "resign", flush=True)
        """,
    )
    second_turn = initial_state(GameConfig(5))._replace(turn=1)
    with ProgramAgent(command, game="trap") as agent:
        assert agent.select_action(OPENING) in legal_actions(OPENING)
        first_pid = agent._process.pid
        with pytest.raises(ProtocolError, match="'resign'"):
            agent.select_action(second_turn)
        assert is_gone(first_pid)
        assert agent.select_action(OPENING) in legal_actions(OPENING)
        assert agent._process.pid != first_pid


# --- CPU time --------------------------------------------------------------------------

SPIN_THEN_ANSWER = """
def spin(seconds):
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass

while line := sys.stdin.readline():
    spin({before})
    print(decide(line, rng), flush=True)
    spin({after})
"""


@pytest.mark.parametrize(("limit", "fails"), [(0.15, True), (2.0, False)])
def test_the_budget_is_the_programs_own_cpu_time(tmp_path, limit, fails):
    command = program(tmp_path, SPIN_THEN_ANSWER.format(before=0.4, after=0))
    with ProgramAgent(command, time_limit=limit, wall_limit=30.0, game="trap") as agent:
        if fails:
            with pytest.raises(ProgramTimeout, match=re.escape("of CPU time, limit 0.15 s")):
                agent.select_action(OPENING)
        else:
            assert agent.select_action(OPENING) in legal_actions(OPENING)


def test_cpu_spent_after_answering_counts_towards_the_next_turn(tmp_path):
    command = program(tmp_path, SPIN_THEN_ANSWER.format(before=0, after=0.5))
    with ProgramAgent(command, time_limit=0.3, wall_limit=30.0, game="trap") as agent:
        move = agent.select_action(OPENING)  # answers at once, then works on
        time.sleep(0.6)
        with pytest.raises(ProgramTimeout, match="CPU time"):
            agent.select_action(apply(OPENING, move))


def test_sleeping_within_the_wall_limit_is_allowed(tmp_path):
    command = program(
        tmp_path,
        """
        while line := sys.stdin.readline():
            time.sleep(0.3)
            print(decide(line, rng), flush=True)
        """,
    )
    with ProgramAgent(command, time_limit=0.2, game="trap") as agent:  # wall limit 2 * 0.2 + 0.5
        assert agent.select_action(OPENING) in legal_actions(OPENING)


# --- The process group ----------------------------------------------------------------

GRANDCHILD = """
sleeper = subprocess.Popen(["sleep", "60"])
open("grandchild.pid", "w").write(str(sleeper.pid))
while line := sys.stdin.readline():
    print({answer}, flush=True)
"""


@pytest.mark.parametrize("end", ["fault", "close", "garbage_collected"])
def test_the_programs_whole_process_group_ends_with_it(tmp_path, monkeypatch, end):
    monkeypatch.chdir(tmp_path)
    answer = "'nonsense'" if end == "fault" else "decide(line, rng)"
    agent = ProgramAgent(program(tmp_path, GRANDCHILD.format(answer=answer)), game="trap")
    try:
        agent.select_action(OPENING)
    except ProtocolError:
        assert end == "fault"
    grandchild = int((tmp_path / "grandchild.pid").read_text())
    if end == "close":
        agent.close()
    elif end == "garbage_collected":
        del agent
        gc.collect()
    assert is_gone(grandchild)


@pytest.mark.parametrize("parent_end", ["killed", "exits"])
def test_the_program_dies_with_the_python_process_that_runs_it(tmp_path, parent_end):
    # The program ignores end-of-file (it sleeps), so only the kill can end it.
    command = program(
        tmp_path, "print(decide(sys.stdin.readline(), rng), flush=True)\ntime.sleep(60)"
    )
    parent = textwrap.dedent(
        f"""
        import sys
        from agents.program import ProgramAgent
        from trap_env.trap.core import GameConfig, initial_state
        agent = ProgramAgent({command!r}, game="trap")
        agent.select_action(initial_state(GameConfig(5)))
        print(agent._process.pid, flush=True)
        sys.stdin.readline()  # the test's go: exit without closing the agent
        """
    )
    runner = subprocess.Popen(
        [sys.executable, "-c", parent],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert runner.stdin is not None and runner.stdout is not None
    pid = int(runner.stdout.readline())
    assert not is_gone(pid, within=0.1)
    if parent_end == "killed":
        runner.send_signal(signal.SIGKILL)
    runner.communicate("go\n", timeout=10)
    assert is_gone(pid)


# --- The protocol's extras --------------------------------------------------------------

RECORDER = """
log = open("lines.txt", "w")
first = sys.stdin.readline()
log.write(first)
print({hello!r} if {hello!r} else decide(first, rng), flush=True)
while line := sys.stdin.readline():
    log.write(line); log.flush()
    if line.split()[0] not in ("trap-protocol", "game", "time"):
        print(decide(line, rng), flush=True)
"""


V1 = f"{PROTOCOL} 1"


def recorded_lines(tmp_path: Path, hello: str, states: list, seeds: list[int]) -> list[str]:
    command = program(tmp_path, RECORDER.format(hello=hello))
    with ProgramAgent(command, time_limit=2.0, game="trap") as agent:
        for seed, state in zip(seeds, states, strict=True):
            if seed is not None:
                agent.reset(seed=seed)
            assert agent.select_action(state) in legal_actions(state)
    return (tmp_path / "lines.txt").read_text().splitlines()


def opening_move_and_throw() -> list:
    move = legal_actions(OPENING)[0]
    return [OPENING, apply(OPENING, move), OPENING]


def test_a_minimal_program_receives_only_state_lines(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    states = opening_move_and_throw()
    lines = recorded_lines(tmp_path, "", states, [42, None, 7])
    assert lines == [to_text(state) for state in states]


def test_a_program_that_says_hello_receives_the_extras(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    states = opening_move_and_throw()
    lines = recorded_lines(tmp_path, V1, states, [42, None, 7])
    assert lines[:3] == [to_text(OPENING), V1, "game seed=42 size=5 decay=50"]
    times = [float(line.split()[1]) for line in lines if line.startswith("time ")]
    assert len(times) == 3 and all(0 < seconds <= 2.0 for seconds in times)
    assert [line for line in lines[3:] if not line.startswith("time ")] == [
        to_text(OPENING),
        to_text(states[1]),
        "game seed=7 size=5 decay=50",
        to_text(OPENING),
    ]


def test_declared_board_sizes_are_checked_before_the_first_game(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    command = program(tmp_path, RECORDER.format(hello=f"{V1} sizes=5,7"))
    with ProgramAgent(command, game="trap") as agent:
        check_supports(agent, GameConfig(5))
        with pytest.raises(UnsupportedGameError, match=r"plays board sizes \[5, 7\].*not 9"):
            check_supports(agent, GameConfig(9))
        assert agent.select_action(OPENING) in legal_actions(OPENING)
    lines = (tmp_path / "lines.txt").read_text().splitlines()
    assert lines[:2] == [to_text(OPENING), V1]


def test_a_minimal_program_plays_any_size_and_its_probe_answer_is_dropped(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    probe = initial_state(GameConfig(11))
    with ProgramAgent(program(tmp_path, RECORDER.format(hello="")), game="trap") as agent:
        check_supports(agent, GameConfig(11))
        assert agent.sizes is None
        assert agent.select_action(OPENING) in legal_actions(OPENING)
    lines = (tmp_path / "lines.txt").read_text().splitlines()
    assert lines == [to_text(probe), to_text(OPENING)]


def test_a_program_that_fails_the_check_is_left_to_fail_its_first_game(tmp_path):
    body, error_class, words = FAULTS["crash"]
    with ProgramAgent(program(tmp_path, body), game="trap") as agent:
        check_supports(agent, GameConfig(5))
        assert agent._process is None
        with pytest.raises(error_class, match=re.escape(words[0])):
            agent.select_action(OPENING)


@pytest.mark.parametrize(
    ("hello", "words"),
    [
        ("trap-protocol 3", "the malformed hello 'trap-protocol 3': a hello is"),
        ("trap-protocol", "'trap-protocol 1' or 'trap-protocol 2' (the versions this runner"),
        ("trap-protocol1 sizes=5", "the malformed hello 'trap-protocol1 sizes=5'"),
        ("trap_protocol 1", "or as its first line a hello ('trap-protocol 1' or"),
        (f"{V1} colour=blue", "allowed after 'trap-protocol 1': 'sizes=...'"),
        (f"{V1} sizes=5,,7", "sizes=N,N"),
        (f"{V1} games=trap", "allowed after 'trap-protocol 1': 'sizes=...' ("),
        (f"{V1} sizes=5 sizes=7", "said 'sizes=7'"),
        ("trap-protocol 2 games=Trap!", "'games=NAME,...'"),
    ],
)
def test_a_bad_hello_is_a_protocol_error(tmp_path, monkeypatch, hello, words):
    monkeypatch.chdir(tmp_path)
    command = program(tmp_path, RECORDER.format(hello=hello))
    with (
        ProgramAgent(command, game="trap") as agent,
        pytest.raises(ProtocolError, match=re.escape(words)),
    ):
        agent.select_action(OPENING)


def test_only_moves_and_throws_are_asked():
    landing = apply(apply(OPENING, legal_actions(OPENING)[0]), 12)
    assert landing.phase is Phase.LANDING
    with (
        ProgramAgent(PYTHON_EXAMPLE, game="trap") as agent,
        pytest.raises(ValueError, match="'landing'"),
    ):
        agent.select_action(landing)


# --- Version 2: any game, named in the game line, answers as action text ---------------

RACER = """
log = open("lines.txt", "w")
log.write(sys.stdin.readline()); log.flush()
print({hello!r} or {answer!r}, flush=True)
for line in sys.stdin:
    log.write(line); log.flush()
    if line.split()[0] not in ("trap-protocol", "game", "time"):
        print({answer!r}, flush=True)
"""


def race_agent(tmp_path: Path, hello: str, answer: str = "walk") -> ProgramAgent:
    command = program(tmp_path, RACER.format(hello=hello, answer=answer))
    return make_agent(f"exec:{command}", game=RACE_PATH, time_limit=2.0)


def test_version_2_names_the_game_and_takes_its_action_text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    start = RACE.initial_state(RACE.make_config(goal=3))
    with race_agent(tmp_path, "trap-protocol 2 games=race") as agent:
        check_supports(agent, RACE.config_of(start))
        agent.reset(seed=9)
        assert agent.select_action(start) == toy_game.WALK
    lines = (tmp_path / "lines.txt").read_text().splitlines()
    assert lines[:3] == [RACE.to_text(start), "trap-protocol 2", "game name=race seed=9 goal=3"]
    assert lines[3].startswith("time ") and lines[4] == RACE.to_text(start)


def test_version_2_in_trap_adds_the_name_to_the_game_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    command = program(tmp_path, RECORDER.format(hello="trap-protocol 2 games=trap"))
    with ProgramAgent(command, time_limit=2.0, game="trap") as agent:
        agent.reset(seed=5)
        assert agent.select_action(OPENING) in legal_actions(OPENING)
    lines = (tmp_path / "lines.txt").read_text().splitlines()
    assert lines[1:3] == ["trap-protocol 2", "game name=trap seed=5 size=5 decay=50"]


@pytest.mark.parametrize(
    ("hello", "words"),
    [
        (f"{PROTOCOL} 1", "speaks trap-protocol 1, which plays Trap! only"),
        ("trap-protocol 2 games=trap", "plays the games ['trap'] (its hello said so), not 'race'"),
    ],
)
def test_a_game_the_hello_did_not_declare_is_refused(tmp_path, monkeypatch, hello, words):
    monkeypatch.chdir(tmp_path)
    with race_agent(tmp_path, hello) as agent, pytest.raises(UnsupportedGameError) as raised:
        check_supports(agent, RACE.make_config())
    assert words in str(raised.value)


def test_a_minimal_program_plays_any_game_with_integer_actions(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    start = RACE.initial_state(RACE.make_config())
    with race_agent(tmp_path, "", answer="1") as agent:
        assert agent.select_action(start) == toy_game.GAMBLE
        with pytest.raises(ValueError, match="'chance'"):
            agent.select_action(RACE.apply(start, toy_game.GAMBLE))
    assert (tmp_path / "lines.txt").read_text().splitlines() == [RACE.to_text(start)]


def test_action_text_outside_version_2_or_the_games_form_is_a_protocol_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    start = RACE.initial_state(RACE.make_config())
    with (
        race_agent(tmp_path, "", answer="walk") as agent,
        pytest.raises(ProtocolError, match="one integer"),
    ):
        agent.select_action(start)
    with (
        race_agent(tmp_path, "trap-protocol 2", answer="run") as agent,
        pytest.raises(ProtocolError, match="answered 'run'"),
    ):
        agent.select_action(start)


def test_a_program_plays_another_game_through_the_runner(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    seats = [race_agent(tmp_path, "trap-protocol 2 games=race"), toy_game.RandomRacer(seed=1)]
    result = play_game(seats, seed=3, game=RACE_PATH)
    assert result.reason in ("finished", "truncated")
    assert result.scores["positions"][0] >= 1


# --- Copies -----------------------------------------------------------------------------


@pytest.mark.parametrize("duplicate", [copy.deepcopy, lambda a: pickle.loads(pickle.dumps(a))])
def test_a_copy_carries_the_command_and_limits_and_starts_its_own_program(duplicate):
    with ProgramAgent(PYTHON_EXAMPLE, time_limit=0.7, memory_limit=1 << 29, game="trap") as agent:
        agent.select_action(OPENING)
        twin = duplicate(agent)
        with twin:
            assert twin._process is None
            assert (twin.argv, twin.time_limit, twin.memory_limit) == (agent.argv, 0.7, 1 << 29)
            assert twin.select_action(OPENING) in legal_actions(OPENING)
            assert twin._process.pid != agent._process.pid
        assert agent.select_action(OPENING) in legal_actions(OPENING)


def test_an_env_with_a_program_opponent_can_be_deep_copied():
    from trap_env.trap.gym_env import TrapEnv

    env = TrapEnv(opponent=f"exec:{PYTHON_EXAMPLE}", seat=1, board_size=5)
    env.reset(seed=3)  # the opponent (seat 0) has played its first turn
    twin = copy.deepcopy(env)
    for each in (env, twin):
        for _ in ("move", "throw"):  # after the throw, the opponent plays
            _, _, terminated, _, info = each.step(legal_actions(each.game_state)[0])
            assert not terminated and not info["opponent_fault"]
    assert twin._opponent._process.pid != env._opponent._process.pid
    for each in (env, twin):
        each._opponent.close()

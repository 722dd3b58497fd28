"""A program agent's processes (agents.program): the whole process group ends with it, and it
dies with the Python process that runs it.
"""

from __future__ import annotations

import gc
import signal
import subprocess
import sys
import textwrap

import pytest

from agents.program import ProgramAgent, ProtocolError
from tests.support.programs import OPENING, ROOT, is_gone, program

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

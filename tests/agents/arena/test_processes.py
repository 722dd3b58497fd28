"""Tests of agents.arena.processes: scheduling readings, the stall rule, how a process ended."""

from __future__ import annotations

import os
import sys
import time

import pytest

from agents.arena.processes import (
    SchedStat,
    describe_exit,
    is_machine_stall,
    read_oom_kills,
    read_peak_memory,
    read_schedstat,
)

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
S = 1_000_000_000  # nanoseconds per second


@pytest.mark.parametrize(
    ("elapsed", "allowance", "ran", "waited", "is_stall"),
    [
        (11.0, 5.0, 0.0, 0.0, False),  # slept: not runnable, the agent's own timeout
        (11.0, 5.0, 0.1, 0.5, False),  # slept, with the odd wake-up on a busy machine
        (11.0, 5.0, 0.0, 10.9, True),  # runnable the whole time, never got a CPU
        (11.0, 5.0, 4.0, 6.0, True),  # computed within its budget, waited the rest
        (11.0, 5.0, 5.5, 5.5, False),  # had used up its CPU budget: its own timeout
        (11.0, 5.0, 1.0, 5.0, False),  # waited less than half the turn
    ],
)
def test_a_timeout_is_the_machines_only_if_the_worker_mostly_waited_for_a_cpu(
    elapsed, allowance, ran, waited, is_stall
):
    before = SchedStat(run_ns=7 * S, wait_ns=3 * S)
    after = SchedStat(run_ns=before.run_ns + int(ran * S), wait_ns=before.wait_ns + int(waited * S))
    assert is_machine_stall(elapsed, allowance, before, after) is is_stall


def test_without_readings_every_timeout_is_the_agents():
    reading = SchedStat(0, 10 * S)
    assert not is_machine_stall(11.0, 5.0, None, reading)
    assert not is_machine_stall(11.0, 5.0, reading, None)


@linux_only
def test_schedstat_counts_running_and_not_sleeping():
    before = read_schedstat(os.getpid())
    start = time.process_time()
    while time.process_time() - start < 0.05:
        pass
    time.sleep(0.05)
    after = read_schedstat(os.getpid())
    assert before is not None and after is not None
    assert after.run_ns - before.run_ns >= 0.04 * S
    assert after.wait_ns >= before.wait_ns
    assert read_peak_memory(os.getpid()) > 1_000_000


def test_readings_of_a_process_that_is_gone_are_none():
    assert read_schedstat(2**22 + 12345) is None
    assert read_peak_memory(2**22 + 12345) is None


@pytest.mark.parametrize(
    ("exitcode", "memory", "words"),
    [
        (3, None, ["exited with code 3"]),
        (-9, 3 * 2**30, ["signal 9 (SIGKILL)", "most likely", "out-of-memory killer", "3072 MiB"]),
        (-11, None, ["signal 11 (SIGSEGV)", "native code"]),
        (-15, None, ["signal 15 (SIGTERM)"]),
        (None, None, ["did not exit"]),
    ],
)
def test_describe_exit_says_what_happened(exitcode, memory, words):
    text = describe_exit(exitcode, memory)
    assert all(word in text for word in words), text
    assert "None" not in text


def test_an_oom_kill_counted_by_the_cgroup_is_named_for_certain():
    text = describe_exit(-9, None, oom_killed=True)
    assert "SIGKILL): the kernel's out-of-memory killer" in text and "likely" not in text


@linux_only
def test_the_oom_kill_counter_reads_as_a_count_or_unknown():
    count = read_oom_kills()
    assert count is None or count >= 0
    assert read_oom_kills(2**22 + 12345) is None

"""What the runner can learn about a worker process: its scheduling, its memory, its end.

A worker that misses its wall-clock ceiling either chose not to run (its agent sleeps or
blocks) or wanted to run and the machine gave it no CPU (a loaded machine). CPU time alone
cannot tell the two apart; Linux's ``/proc/PID/schedstat`` can: its second field counts
the nanoseconds the thread spent runnable but waiting on a run queue.
:func:`is_machine_stall` decides from two readings whether a timeout was the machine's.

Elsewhere than Linux the readings are None, and every timeout is the agent's.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass

__all__ = [
    "STALL_SHARE",
    "SchedStat",
    "describe_exit",
    "is_machine_stall",
    "read_oom_kills",
    "read_peak_memory",
    "read_schedstat",
]

STALL_SHARE = 0.5
"""A timeout is the machine's when the worker waited for a CPU at least this share of it."""


@dataclass(frozen=True)
class SchedStat:
    """A thread's scheduling counters.

    Attributes:
        run_ns: nanoseconds spent running on a CPU.
        wait_ns: nanoseconds spent runnable, waiting on a run queue for a CPU.
    """

    run_ns: int
    wait_ns: int


def read_schedstat(pid: int) -> SchedStat | None:
    """The scheduling counters of process ``pid``'s main thread; None where unavailable."""
    try:
        with open(f"/proc/{pid}/schedstat", encoding="ascii") as file:
            run_ns, wait_ns, *_ = file.read().split()
        return SchedStat(int(run_ns), int(wait_ns))
    except (OSError, ValueError):
        return None


def is_machine_stall(
    elapsed: float, cpu_allowance: float, before: SchedStat | None, after: SchedStat | None
) -> bool:
    """Whether a timeout came from the machine starving the worker rather than from its agent.

    True when, between the two readings (``elapsed`` wall-clock seconds apart), the worker
    spent at least :data:`STALL_SHARE` of the time runnable but waiting for a CPU, and
    ran for less than ``cpu_allowance`` seconds (its agent had not used up its CPU budget).
    An agent that sleeps or blocks is not runnable, so it does not count as waiting: its
    timeouts stay its own. Without readings, False.
    """
    if before is None or after is None or elapsed <= 0:
        return False
    waited = (after.wait_ns - before.wait_ns) / 1e9
    ran = (after.run_ns - before.run_ns) / 1e9
    return waited >= STALL_SHARE * elapsed and ran < cpu_allowance


def read_peak_memory(pid: int) -> int | None:
    """The peak resident memory of process ``pid`` in bytes (``VmHWM``); None where unavailable."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as file:
            for line in file:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def read_oom_kills(pid: int | str = "self") -> int | None:
    """How many processes the kernel's out-of-memory killer has killed in ``pid``'s memory
    cgroup (cgroup v2 ``memory.events`` or v1 ``memory.oom_control``); None where unknown.
    """
    for path in _oom_counter_paths(pid):
        try:
            with open(path, encoding="ascii") as file:
                for line in file:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            continue
    return None


def _oom_counter_paths(pid: int | str) -> list[str]:
    try:
        with open(f"/proc/{pid}/cgroup", encoding="utf-8") as file:
            lines = file.read().splitlines()
    except OSError:
        return []
    paths = []
    for line in lines:
        _, controllers, group = line.split(":", 2)
        group = group.rstrip("/")
        if not controllers:  # the unified (v2) hierarchy
            paths.append(f"/sys/fs/cgroup{group}/memory.events")
        elif "memory" in controllers.split(","):
            paths.append(f"/sys/fs/cgroup/memory{group}/memory.oom_control")
    return paths


def describe_exit(
    exitcode: int | None, peak_memory: int | None = None, oom_killed: bool | None = None
) -> str:
    """How a process ended, in words, from its ``exitcode`` (negative: the killing signal).

    A SIGKILL the runner did not send is most often the kernel's out-of-memory killer or a
    memory limit (a container's, a ``ulimit``): the message says so, for certain when
    ``oom_killed`` (the memory cgroup counted an OOM kill meanwhile), and with the peak
    memory last seen when it is known.
    """
    if exitcode is None:
        return "it closed its pipe but did not exit"
    if exitcode >= 0:
        return f"it exited with code {exitcode}"
    number = -exitcode
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = "unknown signal"
    text = f"it was killed by signal {number} ({name})"
    if number == signal.SIGKILL:
        if oom_killed:
            text += ": the kernel's out-of-memory killer (its memory cgroup counted an OOM kill)"
        else:
            text += (
                ", which the runner did not send: most likely the kernel's out-of-memory "
                "killer or a memory limit"
            )
        if peak_memory is not None:
            text += f" (peak memory last seen: {peak_memory / 2**20:.0f} MiB)"
    elif number == signal.SIGSEGV:
        text += ", a crash in native code"
    return text

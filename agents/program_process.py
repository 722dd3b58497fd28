"""A program agent's child process under its limits: started in its own process group with
an address-space cap, its CPU time read from ``/proc``, lines written and read within a
turn's budget, the tail of its standard error kept, killed as a group (and with this
process, however it ends: the program by ``PR_SET_PDEATHSIG``, its group by a watchdog
shell that kills it when this process's end closes its input).

:class:`agents.program.ProgramAgent` speaks the protocol over it; the errors here are the
faults it reports.

Linux only: the CPU time is read from ``/proc`` and the kill-on-parent-death is a Linux call.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import resource
import select
import signal
import subprocess
import sys
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "MAX_LINE",
    "MAX_MEMORY_LIMIT",
    "Budget",
    "ChildProcess",
    "ProgramCrashed",
    "ProgramError",
    "ProgramTimeout",
    "ProtocolError",
    "die_with_parent",
]

MAX_LINE = 4096
"""Bytes a line from the program may take with its newline; longer is garbage (a runaway print)."""
_LINE_LIMIT = f"a line may take at most {MAX_LINE} bytes with its newline"
MAX_MEMORY_LIMIT = (1 << 63) - 1
"""The largest address-space limit that ``setrlimit(RLIMIT_AS)`` takes from Python."""
_STDERR_TAIL = 600
"""Bytes of the program's standard error kept (the latest), quoted in a fault's message."""
_STDERR_READS = 4
"""Reads of the standard error pipe per drain: a program that writes without pause cannot
hold the runner in one."""
_CHUNK = 65536
"""Bytes read from a pipe at once."""
_PR_SET_PDEATHSIG = 1


class ProgramError(RuntimeError):
    """A program agent broke the protocol or a limit; the message says how.

    Attributes:
        reason: the match runner's name for the fault (one of
            :data:`agents.arena.match.FAULTS`).
    """

    reason = "exception"


class ProgramCrashed(ProgramError):
    """The program exited, was killed by a signal, or closed its output."""

    reason = "crash"


class ProgramTimeout(ProgramError):
    """The program went over its CPU time, or stayed silent past the wall-clock limit."""

    reason = "timeout"


class ProtocolError(ProgramError):
    """The program answered a line that is not what the protocol allows."""

    reason = "illegal"


@dataclass
class Budget:
    """The limits on one wait for an answer: CPU seconds and wall seconds since a start."""

    cpu_start: float
    cpu_limit: float | None
    wall_start: float
    wall_limit: float | None

    def check(self, cpu_now: float) -> None:
        """Raise :class:`ProgramTimeout` if either limit is spent."""
        used = cpu_now - self.cpu_start
        if self.cpu_limit is not None and used > self.cpu_limit:
            raise ProgramTimeout(f"used {used:.3f} s of CPU time, limit {self.cpu_limit} s")
        waited = time.monotonic() - self.wall_start
        if self.wall_limit is not None and waited > self.wall_limit:
            raise ProgramTimeout(
                f"no answer after {waited:.2f} s of wall-clock time (limit {self.wall_limit} s; "
                f"it used {used:.3f} s of CPU)"
            )

    def cpu_left(self, cpu_now: float) -> float | None:
        """CPU seconds left, or None without a CPU limit."""
        if self.cpu_limit is None:
            return None
        return max(0.0, self.cpu_limit - (cpu_now - self.cpu_start))

    def poll_interval(self, cpu_now: float) -> float:
        """How long to wait for output before checking the limits again."""
        left = self.cpu_left(cpu_now)
        return 0.05 if left is None else min(0.05, max(0.005, left / 4))


_LIVE: weakref.WeakSet[ChildProcess] = weakref.WeakSet()
"""Running programs, killed when this process exits."""


class ChildProcess:
    """A running program: its pipes, its CPU clock, and the kill of its process group."""

    def __init__(self, argv: Sequence[str], memory_limit: int | None) -> None:
        # A pipe drained while the runner waits, only its tail kept: a program that writes
        # without end fills neither the disk nor the memory.
        stderr_read, stderr_write = os.pipe()
        environment = {**os.environ, "PYTHONUNBUFFERED": "1"}  # Python programs: no stuck answers
        try:
            self.popen = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr_write,
                start_new_session=True,
                preexec_fn=_ChildLimits(memory_limit, os.getpid()),
                env=environment,
            )
        except BaseException:
            os.close(stderr_read)
            raise
        finally:
            os.close(stderr_write)
        os.set_blocking(stderr_read, False)
        self.stderr_fd: int | None = stderr_read
        """The read end of the program's standard error; None once it is closed."""
        self.stderr_tail = b""
        assert self.popen.stdin is not None and self.popen.stdout is not None
        self.stdin_fd, self.stdout_fd = self.popen.stdin.fileno(), self.popen.stdout.fileno()
        os.set_blocking(self.stdin_fd, False)
        os.set_blocking(self.stdout_fd, False)
        self.buffer = bytearray()
        self.last_cpu = 0.0
        self.watchdog = _start_watchdog(self.popen.pid)
        _LIVE.add(self)

    @property
    def pid(self) -> int:
        """The program's process id (and its process group's)."""
        return self.popen.pid

    def cpu_seconds(self) -> float:
        """The program's CPU time so far: user and system, its threads and reaped children."""
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()
        except OSError:
            return self.last_cpu  # reaped: its last reading stands
        ticks = sum(int(field) for field in fields[11:15])
        self.last_cpu = ticks / _CLOCK_TICKS
        return self.last_cpu

    def send(self, lines: Sequence[str], budget: Budget) -> None:
        """Write ``lines`` to the program's input, within the budget.

        Raises:
            ProgramCrashed: if the program has closed its input or its output.
            ProgramTimeout: if it stops reading until a limit is spent.
            ProtocolError: if it wrote something since its last answer.
        """
        self._check_no_output()
        data = memoryview("".join(line + "\n" for line in lines).encode())
        while data:
            cpu = self.cpu_seconds()
            budget.check(cpu)
            if self._wait_for(self.stdin_fd, select.POLLOUT, budget.poll_interval(cpu)):
                try:
                    data = data[os.write(self.stdin_fd, data) :]
                except BrokenPipeError:
                    raise ProgramCrashed(self.exit_description("closed its input")) from None

    def _check_no_output(self) -> None:
        """Refuse output written when no answer was due (it would answer the next state)."""
        if not self.buffer and self._wait_for(self.stdout_fd, select.POLLIN, 0):
            chunk = os.read(self.stdout_fd, _CHUNK)
            if not chunk:
                raise ProgramCrashed(self.exit_description("closed its output"))
            self.buffer += chunk
        if self.buffer:
            raise ProtocolError(
                f"wrote {bytes(self.buffer[:80]).decode('utf-8', 'replace')!r} when no answer "
                "was due (one line per state; debugging output goes to standard error)"
            )

    def read_line(self, budget: Budget) -> str:
        """The program's next line, stripped, within the budget.

        Raises:
            ProgramCrashed: if the program closes its output (exits) first.
            ProgramTimeout: if a limit is spent first.
            ProtocolError: for a line longer than :data:`MAX_LINE` bytes with its newline.
        """
        while b"\n" not in self.buffer:
            if len(self.buffer) >= MAX_LINE:
                raise ProtocolError(
                    f"wrote {len(self.buffer)} bytes without a newline; {_LINE_LIMIT}"
                )
            cpu = self.cpu_seconds()
            budget.check(cpu)
            if self._wait_for(self.stdout_fd, select.POLLIN, budget.poll_interval(cpu)):
                chunk = os.read(self.stdout_fd, _CHUNK)
                if not chunk:
                    raise ProgramCrashed(self.exit_description("closed its output"))
                self.buffer += chunk
        line, _, rest = bytes(self.buffer).partition(b"\n")
        if len(line) >= MAX_LINE:
            raise ProtocolError(f"wrote a line of {len(line) + 1} bytes; {_LINE_LIMIT}")
        self.buffer = bytearray(rest)
        budget.check(self.cpu_seconds())  # an answer that came too late is still late
        return line.decode("utf-8", "replace").strip()

    def _wait_for(self, fd: int, event: int, seconds: float) -> bool:
        """Whether ``fd`` is ready for ``event`` (or hung up) within ``seconds``; the
        program's standard error is drained meanwhile, so that writing it never blocks it."""
        poller = select.poll()  # not select.select: it fails for descriptors past 1023
        poller.register(fd, event)
        if self.stderr_fd is not None:
            poller.register(self.stderr_fd, select.POLLIN)
        ready = {ready_fd for ready_fd, _ in poller.poll(seconds * 1000)}
        if self.stderr_fd in ready:
            self._drain_stderr()
        return fd in ready

    def _drain_stderr(self) -> None:
        """Read what the program wrote to its standard error, keeping only the tail."""
        for _ in range(_STDERR_READS):
            if self.stderr_fd is None:
                return
            try:
                chunk = os.read(self.stderr_fd, _CHUNK)
            except BlockingIOError:
                return
            if not chunk:
                os.close(self.stderr_fd)
                self.stderr_fd = None
                return
            self.stderr_tail = (self.stderr_tail + chunk)[-_STDERR_TAIL:]

    def _wait_exit(self, seconds: float) -> int:
        """The program's exit status, waited for while its standard error is drained.

        Raises:
            subprocess.TimeoutExpired: if it is still running after ``seconds``.
        """
        deadline = time.monotonic() + seconds
        while True:
            try:
                return self.popen.wait(timeout=0.05)
            except subprocess.TimeoutExpired:
                if time.monotonic() > deadline:
                    raise
                self._drain_stderr()

    def exit_description(self, event: str) -> str:
        """What became of the program (exit code or signal), with its last standard error."""
        try:
            code = self._wait_exit(1.0)
        except subprocess.TimeoutExpired:
            return f"{event} but is still running{self.stderr_quote()}"
        if code < 0:
            how = f"was killed by signal {signal.Signals(-code).name}"
        else:
            how = f"exited with code {code}"
        return f"{event}: it {how}{self.stderr_quote()}"

    def stderr_quote(self) -> str:
        """``; its standard error ended with: '...'``, or nothing if it wrote none."""
        self._drain_stderr()
        tail = self.stderr_tail.decode("utf-8", "replace").strip()
        return f"; its standard error ended with: {tail!r}" if tail else ""

    def kill(self) -> None:
        """Kill the program's whole process group and reap the program."""
        if self.watchdog is not None:  # first: it must not kill the group id once reused
            self.watchdog.kill()
            self.watchdog.wait()
            self.watchdog = None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            self.popen.wait(timeout=5.0)
        for stream in (self.popen.stdin, self.popen.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        if self.stderr_fd is not None:
            os.close(self.stderr_fd)
            self.stderr_fd = None
        _LIVE.discard(self)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.kill()


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


class _ChildLimits:
    """The ``preexec_fn`` of a program: memory and core-dump limits, death with its parent.

    A class rather than a closure so that it holds only ints (it runs between fork and
    exec, where little is safe).
    """

    def __init__(self, memory_limit: int | None, parent_pid: int) -> None:
        self.memory_limit = memory_limit
        self.parent_pid = parent_pid

    def __call__(self) -> None:
        if self.memory_limit is not None:
            _, hard = resource.getrlimit(resource.RLIMIT_AS)
            limit = (
                self.memory_limit
                if hard == resource.RLIM_INFINITY
                else min(self.memory_limit, hard)
            )
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        die_with_parent(self.parent_pid)


def die_with_parent(parent_pid: int) -> None:
    """Have the kernel kill this process when its parent ``parent_pid`` ends, however it ends
    (SIGKILL included), or exit now if it has ended already (Linux: ``PR_SET_PDEATHSIG``;
    elsewhere nothing).

    The signal comes when the parent's thread that started this process ends: start it
    from a thread that lives as long as the parent needs it.
    """
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent_pid:  # the parent died before prctl took effect
            os._exit(1)


_WATCHDOG = 'read _; kill -s KILL -- "-$1"'
"""Waits for the end of its input, then kills the process group given as its argument."""


def _start_watchdog(group: int) -> subprocess.Popen[bytes] | None:
    """A shell that kills the process group ``group`` (a program and whatever it started)
    once this process ends, however it ends: the end of its input, whose other end only this
    process holds, wakes it. None where there is no POSIX shell."""
    if not os.path.exists("/bin/sh"):
        return None
    return subprocess.Popen(
        ["/bin/sh", "-c", _WATCHDOG, "watchdog", str(group)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # a signal to this process's group does not end it first
    )


@atexit.register
def _kill_all() -> None:
    """Kill every program still running when this process exits."""
    for process in list(_LIVE):
        process.kill()

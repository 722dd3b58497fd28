"""The process backend: worker processes fed with tasks, each turn watched by the clock.

A worker whose agent blocks past the turn's wall-clock ceiling is killed, the game is
recorded as that seat's loss ("timeout"), and a fresh worker takes its place. A timeout
that the machine caused (see :mod:`agents.arena.processes`) decides nothing: the game is
replayed, at most :data:`~agents.arena.plan.MAX_REPLAYS` times. A worker that dies is a
"crash" loss for the seat that was acting.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

from agents.arena.match import replay
from agents.arena.plan import MAX_REPLAYS, GameTask, Report, RunConfig
from agents.arena.processes import (
    SchedStat,
    describe_exit,
    is_machine_stall,
    read_oom_kills,
    read_peak_memory,
    read_schedstat,
)
from agents.arena.results import Record
from agents.arena.worker import Beat, empty_result, make_record, worker_main
from trap_env.games import get_game

__all__ = ["WorkerPool"]


@dataclass
class _Worker:
    """A worker process, and what the parent knows of the game it plays."""

    process: Any
    conn: Connection
    task: GameTask | None = None
    beat: Beat | None = None
    deadline: float | None = None
    actions: list[int] = field(default_factory=list)
    turn_started: float = 0.0
    sched: SchedStat | None = None
    peak_memory: int | None = None
    oom_kills: int | None = None


class WorkerPool:
    """Worker processes fed with tasks; kills and replaces any whose turn runs too long."""

    def __init__(self, config: RunConfig, finish: Callable[[Record], None], report: Report):
        self.config = config
        self.finish = finish
        self.report = report
        self.context = multiprocessing.get_context(config.start_method)
        self.workers: list[_Worker] = []
        self.pending: deque[GameTask] = deque()
        self.voided: dict[str, list[str]] = {}

    def run(self, tasks: Sequence[GameTask]) -> None:
        """Play all tasks, calling ``finish(record)`` as each game ends; then stop the workers."""
        try:
            self.play(tasks)
        finally:
            self.close()

    def play(self, tasks: Sequence[GameTask]) -> None:
        """Play all tasks, starting workers as needed; they stay for the next call."""
        self.pending = deque(tasks)
        count = min(self.config.num_workers, len(self.pending))
        self.workers += [self._start() for _ in range(count - len(self.workers))]
        while self.pending or any(worker.task for worker in self.workers):
            for worker in self.workers:
                if worker.task is None and self.pending:
                    self._dispatch(worker, self.pending.popleft())
            self._wait_and_collect()

    def close(self) -> None:
        """Stop the workers."""
        for worker in self.workers:
            self._stop(worker)
        self.workers = []

    def _start(self) -> _Worker:
        parent_end, child_end = self.context.Pipe()
        process = self.context.Process(  # type: ignore[attr-defined]
            target=worker_main, args=(child_end, self.config, os.getpid()), daemon=True
        )
        process.start()
        child_end.close()
        return _Worker(process, parent_end)

    def _dispatch(self, worker: _Worker, task: GameTask) -> None:
        worker.task, worker.beat, worker.actions = task, None, []
        worker.turn_started = time.monotonic()
        worker.deadline = worker.turn_started + self.config.setup_seconds
        worker.sched = read_schedstat(worker.process.pid)
        worker.oom_kills = read_oom_kills()
        worker.conn.send(task)

    def _wait_and_collect(self) -> None:
        busy = [worker for worker in self.workers if worker.task is not None]
        deadlines = [worker.deadline for worker in busy if worker.deadline is not None]
        # Wake at least once a minute: a wait's timeout is bounded on some platforms.
        timeout = min([60.0, *(max(0.0, d - time.monotonic()) for d in deadlines)])
        ready = wait([worker.conn for worker in busy], timeout=timeout)
        for worker in busy:
            if worker.conn in ready:
                self._receive(worker)
        for worker in busy:
            is_late = worker.deadline is not None and time.monotonic() > worker.deadline
            if worker.task is not None and is_late and not worker.conn.poll():
                self._time_out(worker)

    def _receive(self, worker: _Worker) -> None:
        while True:
            try:  # only the pipe's errors mean the worker died (not those of finish())
                if not worker.conn.poll():
                    return
                kind, payload = worker.conn.recv()
            except (EOFError, OSError):
                self._died(worker)
                return
            if kind == "done":
                self._finish(worker, payload)
                return
            self._on_beat(worker, payload)

    def _on_beat(self, worker: _Worker, beat: Beat) -> None:
        worker.beat = beat
        worker.actions.extend(beat.actions)
        worker.turn_started = time.monotonic()
        worker.deadline = None if beat.limit is None else worker.turn_started + beat.limit
        pid = worker.process.pid
        worker.sched = read_schedstat(pid)
        worker.peak_memory = read_peak_memory(pid) or worker.peak_memory

    def _finish(self, worker: _Worker, record: Record) -> None:
        voided = self.voided.pop(record["game_id"], [])
        record["replays"], record["replay_details"] = len(voided), voided
        worker.task, worker.beat, worker.deadline = None, None, None
        self.finish(record)

    def _time_out(self, worker: _Worker) -> None:
        """Charge a turn past its ceiling to the acting seat, unless the machine stalled it."""
        took = time.monotonic() - worker.turn_started
        after = read_schedstat(worker.process.pid)
        beat = worker.beat
        what = "starting the worker" if beat is None else beat.what
        usage = _usage_text(worker.sched, after)
        detail = f"{what}: no answer after {took:.1f} s wall-clock{usage}"
        allowance = math.inf if beat is None or beat.cpu_allowance is None else beat.cpu_allowance
        if beat is None or is_machine_stall(took, allowance, worker.sched, after):
            self._void(worker, detail)
        else:
            self._charge(worker, "timeout", detail)

    def _died(self, worker: _Worker) -> None:
        worker.process.join(timeout=5)  # the pipe can close a moment before the exit
        oom_kills = read_oom_kills()
        oom_killed = (
            None if None in (oom_kills, worker.oom_kills) else oom_kills != worker.oom_kills
        )
        how = describe_exit(worker.process.exitcode, worker.peak_memory, oom_killed)
        what = "starting" if worker.beat is None else worker.beat.what
        detail = f"the worker process died ({what}): {how}"
        if worker.beat is None:  # no seat was acting: the game never began
            self._void(worker, detail, "its worker died before the game began")
        else:
            self._charge(worker, "crash", detail)

    def _charge(self, worker: _Worker, reason: str, detail: str) -> None:
        """Kill the worker, record its game as the acting seat's loss, start a new one."""
        task, beat = worker.task, worker.beat
        assert task is not None and beat is not None
        self._restart(worker)
        result = empty_result(task, self.config)
        result.actions, result.turns = worker.actions, _turns_of(self.config, task, worker.actions)
        self._finish(worker, make_record(task, result.lose(beat.seat, reason, detail), self.config))

    def _void(self, worker: _Worker, detail: str, cause: str = "the machine stalled it") -> None:
        """Kill the worker and play its game again (it decides nothing), or give up on it.

        ``cause`` says why no seat is at fault (in the reports and the game's record).
        """
        task = worker.task
        assert task is not None
        self._restart(worker)
        worker.task = None
        voided = self.voided.setdefault(task.game_id, [])
        voided.append(f"{detail}; {cause}")
        if len(voided) <= MAX_REPLAYS:
            self.report(f"replaying game {task.game_id!r}: {cause} ({detail})")
            self.pending.appendleft(task)
        else:
            self.report(
                f"game {task.game_id!r} left unplayed: {cause}, {len(voided)} times "
                f"({detail}); run again with resume"
            )

    def _restart(self, worker: _Worker) -> None:
        self._stop(worker, kill=True)
        fresh = self._start()
        worker.process, worker.conn = fresh.process, fresh.conn
        worker.sched = worker.peak_memory = None

    def _stop(self, worker: _Worker, kill: bool = False) -> None:
        if kill:
            worker.process.kill()
        else:
            with contextlib.suppress(OSError, ValueError):
                worker.conn.send(None)
            worker.process.join(timeout=1)
            if worker.process.is_alive():
                worker.process.kill()
        worker.process.join()
        worker.conn.close()


def _usage_text(before: SchedStat | None, after: SchedStat | None) -> str:
    """What the worker did meanwhile: ran, or waited for a CPU (Linux only)."""
    if before is None or after is None:
        return ""
    ran = (after.run_ns - before.run_ns) / 1e9
    waited = (after.wait_ns - before.wait_ns) / 1e9
    return f" (ran {ran:.1f} s on a CPU, waited {waited:.1f} s for one)"


def _turns_of(config: RunConfig, task: GameTask, actions: list[int]) -> int:
    """The turns completed in a recorded action sequence of ``task``."""
    params = config.rule_params_for(task.seed)
    *_, (last_state, _) = replay(actions, game=config.game_name, params=params)
    return get_game(config.game_name).turn(last_state)

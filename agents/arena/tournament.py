"""Many games in parallel worker processes, surviving faulty agents and killed runs.

Games are :class:`GameTask` values (who sits where, and the game's seed); :func:`round_robin`
makes them for every pair of agent specs, seats alternating, each game's seed derived from
the base seed, the pairing and the game's number (so any game replays alone).
:func:`run_games` plays them in worker processes that build the agents from their specs.

Time: inside a worker, :func:`agents.arena.match.play_game` holds each turn to a CPU-time
budget. The parent adds a wall-clock ceiling per turn: a worker whose agent blocks (sleeps,
waits, loops in native code) past it is killed, the game is recorded as that seat's loss
("timeout"), and a fresh worker takes its place. A worker that dies is a "crash" loss for
the seat that was acting.

Results: each finished game is appended at once as one JSON line; ``resume=True`` keeps the
games already in the file and plays only the others, so a killed run loses at most the
games in flight.

Example:
    >>> tasks = round_robin(["random", "greedy"], games_per_pairing=4, seed=0)
    >>> records = run_games(tasks, "results.jsonl", RunConfig(board_size=5, workers=2))
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from agents.arena.match import (
    DEFAULT_TIME_BUDGET,
    GameResult,
    default_max_turns,
    derive_seed,
    play_game,
    replay,
)
from agents.base import Agent, make_agent
from trap_env.core import NO_PLAYER, GameConfig, State

__all__ = [
    "GameTask",
    "RunConfig",
    "check_specs",
    "load_results",
    "round_robin",
    "run_games",
]


@dataclass(frozen=True)
class GameTask:
    """One game to play.

    Attributes:
        game_id: unique within a run; the key that ``resume`` skips on.
        pairing: the two specs of the pairing, in a fixed order.
        seats: the specs in seat 0 and seat 1.
        seed: the game's seed.
    """

    game_id: str
    pairing: tuple[str, str]
    seats: tuple[str, str]
    seed: int


@dataclass(frozen=True)
class RunConfig:
    """How games are played and run.

    Attributes:
        board_size: N.
        max_turns: a draw after this many turns; None for 4 * N * N.
        time_budget: CPU seconds per turn (move and throw); None for no limit.
        wall_ceiling: wall-clock seconds a turn may take before its worker is killed;
            None for ``2 * time_budget + 1`` (no ceiling when there is no budget).
        setup_seconds: wall-clock seconds to build an agent in a worker.
        workers: worker processes; None for all cores; 0 plays in this process (no
            wall-clock ceiling, for debugging).
        start_method: multiprocessing start method of the workers.
    """

    board_size: int = GameConfig().board_size
    max_turns: int | None = None
    time_budget: float | None = DEFAULT_TIME_BUDGET
    wall_ceiling: float | None = None
    setup_seconds: float = 120.0
    workers: int | None = None
    start_method: str = "spawn"

    def __post_init__(self) -> None:
        GameConfig(self.board_size)
        checks = [
            ("max_turns", self.max_turns, self.max_turns is None or self.max_turns >= 1),
            ("time_budget", self.time_budget, self.time_budget is None or self.time_budget > 0),
            ("wall_ceiling", self.wall_ceiling, self.wall_ceiling is None or self.wall_ceiling > 0),
            ("setup_seconds", self.setup_seconds, self.setup_seconds > 0),
            ("workers", self.workers, self.workers is None or self.workers >= 0),
        ]
        for name, value, is_valid in checks:
            if not is_valid:
                raise ValueError(f"{name} must be positive (workers: >= 0) or None, got {value!r}")
        if self.start_method not in multiprocessing.get_all_start_methods():
            raise ValueError(
                f"start_method {self.start_method!r} is not one of "
                f"{multiprocessing.get_all_start_methods()}"
            )

    @property
    def turn_limit(self) -> int:
        """The turn limit that applies."""
        return default_max_turns(self.board_size) if self.max_turns is None else self.max_turns

    @property
    def ceiling(self) -> float | None:
        """The wall-clock seconds per turn after which a worker is killed."""
        if self.wall_ceiling is not None:
            return self.wall_ceiling
        return None if self.time_budget is None else 2 * self.time_budget + 1

    @property
    def num_workers(self) -> int:
        """The number of worker processes."""
        if self.workers is None:
            return os.cpu_count() or 1
        return self.workers


def check_specs(specs: Iterable[str]) -> None:
    """Build each agent once, so that a bad spec fails before any game starts.

    Raises:
        SpecError: for an unknown agent or option (the message lists what exists).
    """
    for spec in specs:
        make_agent(spec, seed=0)


def round_robin(specs: Sequence[str], games_per_pairing: int, seed: int) -> list[GameTask]:
    """Every pair of distinct specs plays ``games_per_pairing`` games, seats alternating.

    Raises:
        ValueError: for fewer than two specs, a repeated spec, or a count below 1.
    """
    if len(specs) < 2 or len(set(specs)) != len(specs):
        raise ValueError(
            f"a round robin needs at least two distinct agent specs, got {list(specs)}"
        )
    if games_per_pairing < 1:
        raise ValueError(f"games per pairing must be at least 1, got {games_per_pairing}")
    tasks = []
    for i, first in enumerate(specs):
        for second in specs[i + 1 :]:
            tasks.extend(_pairing_tasks((first, second), games_per_pairing, seed))
    return tasks


def _pairing_tasks(pairing: tuple[str, str], count: int, seed: int) -> list[GameTask]:
    first, second = pairing
    return [
        GameTask(
            game_id=f"{first} vs {second} #{number}",
            pairing=pairing,
            seats=(first, second) if number % 2 == 0 else (second, first),
            seed=derive_seed(seed, first, second, number),
        )
        for number in range(count)
    ]


def load_results(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The game records of a results file; a torn last line (a killed run) is skipped."""
    records = []
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return records


def run_games(
    tasks: Sequence[GameTask],
    results_path: str | os.PathLike[str],
    config: RunConfig = RunConfig(),
    *,
    resume: bool = False,
    progress: bool = True,
) -> list[dict[str, Any]]:
    """Play the tasks, appending each finished game to ``results_path`` as a JSON line.

    Args:
        tasks: the games; their ``game_id`` must be unique.
        results_path: the JSON Lines file; created (or emptied, without ``resume``).
        config: board, time and worker settings.
        resume: keep the games already in the file and play only the missing ones.
        progress: show a tqdm progress bar on stderr.

    Returns:
        The records of all the tasks (from the file and new), in task order.

    Raises:
        OSError: if the results file cannot be written (before any game starts).
        ValueError: for repeated game ids, or a file from a run with other settings.
    """
    if len({task.game_id for task in tasks}) != len(tasks):
        raise ValueError("game ids must be unique within a run")
    path = Path(results_path)
    done = _previous_records(path, tasks) if resume else {}
    todo = [task for task in tasks if task.game_id not in done]
    with _open_results(path, resume) as out, _progress_bar(len(tasks), len(done), progress) as bar:

        def finish(record: dict[str, Any]) -> None:
            out.write(json.dumps(record) + "\n")
            out.flush()
            done[record["game_id"]] = record
            bar.update(1)

        if config.num_workers == 0:
            for task in todo:
                finish(_play_task(task, config, {}, None))
        else:
            _WorkerPool(config).run(todo, finish)
    return [done[task.game_id] for task in tasks]


def _open_results(path: Path, resume: bool) -> Any:
    path.parent.mkdir(parents=True, exist_ok=True)
    if resume and path.exists():
        _drop_torn_line(path)
        return open(path, "a", encoding="utf-8")
    return open(path, "w", encoding="utf-8")


def _drop_torn_line(path: Path) -> None:
    """Cut a last line that a killed run left without its newline."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def _previous_records(path: Path, tasks: Sequence[GameTask]) -> dict[str, dict[str, Any]]:
    if not path.exists():
        return {}
    by_id = {task.game_id: task for task in tasks}
    done = {}
    for record in load_results(path):
        task = by_id.get(record.get("game_id", ""))
        if task is None:
            continue
        if record.get("seed") != task.seed or tuple(record.get("seats", ())) != task.seats:
            raise ValueError(
                f"{path} holds game {task.game_id!r} with another seed or seats: it comes from "
                "a run with other settings; resume with the same ones or write elsewhere"
            )
        done[task.game_id] = record
    return done


def _progress_bar(total: int, initial: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="game", disable=not enabled, smoothing=0.1)


def _record(task: GameTask, result: GameResult, config: RunConfig) -> dict[str, Any]:
    """The JSON record of a game: the task, the settings, and the result."""
    winner_spec = None if result.winner == NO_PLAYER else task.seats[result.winner]
    return {
        "game_id": task.game_id,
        "pairing": list(task.pairing),
        "seats": list(task.seats),
        "winner_spec": winner_spec,
        "time_budget": config.time_budget,
        **result.to_dict(),
    }


# --- Playing a task (in a worker, or in this process) ---------------------------------


def _play_task(
    task: GameTask, config: RunConfig, cache: dict[tuple[str, int], Agent], conn: Connection | None
) -> dict[str, Any]:
    """Build the two agents (reusing ``cache``) and play; report turns on ``conn``."""
    result = GameResult(seed=task.seed, board_size=config.board_size, max_turns=config.turn_limit)
    agents = []
    for seat, spec in enumerate(task.seats):
        if conn is not None:
            conn.send(("act", seat, config.setup_seconds, []))
        try:
            if (spec, seat) not in cache:
                cache[spec, seat] = make_agent(spec, seed=derive_seed(task.seed, "seat", seat))
        except Exception as error:
            detail = f"building agent {spec!r} raised {type(error).__name__}: {error}"
            return _record(task, result.lose(seat, "exception", detail), config)
        agents.append(cache[spec, seat])
    hook = None if conn is None else _heartbeat(conn, config)
    result = play_game(
        agents,
        seed=task.seed,
        board_size=config.board_size,
        max_turns=config.max_turns,
        time_budget=config.time_budget,
        on_turn=hook,
    )
    return _record(task, result, config)


def _heartbeat(conn: Connection, config: RunConfig) -> Any:
    """A turn hook telling the parent who acts now and the actions since the last call."""
    ceiling = config.ceiling
    sent = 0

    def on_turn(seat: int, state: State, actions: list[int]) -> None:
        nonlocal sent
        if seat >= 0:
            conn.send(("act", seat, ceiling, actions[sent:]))
            sent = len(actions)

    return on_turn


def _worker_main(conn: Connection, config: RunConfig) -> None:
    """A worker: play the tasks received on ``conn`` until it receives None."""
    # One worker per core: keep numerical libraries (torch, BLAS) to one thread each, so
    # that workers do not compete for cores and the CPU time per turn stays one core's.
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    cache: dict[tuple[str, int], Agent] = {}
    try:
        while (task := conn.recv()) is not None:
            conn.send(("done", _play_task(task, config, cache, conn)))
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        return  # the parent is gone or interrupted: nothing left to report to


@dataclass
class _Worker:
    """A worker process, and what the parent knows of the game it plays."""

    process: Any
    conn: Connection
    task: GameTask | None = None
    seat: int | None = None
    deadline: float | None = None
    actions: list[int] = field(default_factory=list)
    turn_started: float = 0.0


class _WorkerPool:
    """Worker processes fed with tasks; kills and replaces any whose turn runs too long."""

    def __init__(self, config: RunConfig) -> None:
        self.config = config
        self.context = multiprocessing.get_context(config.start_method)
        self.workers: list[_Worker] = []

    def run(self, tasks: Sequence[GameTask], finish: Any) -> None:
        """Play all tasks, calling ``finish(record)`` as each game ends."""
        pending = deque(tasks)
        try:
            count = min(self.config.num_workers, len(pending))
            self.workers = [self._start() for _ in range(count)]
            while pending or any(worker.task for worker in self.workers):
                for worker in self.workers:
                    if worker.task is None and pending:
                        self._dispatch(worker, pending.popleft())
                self._wait_and_collect(finish)
        finally:
            for worker in self.workers:
                self._stop(worker)

    def _start(self) -> _Worker:
        parent_end, child_end = self.context.Pipe()
        process = self.context.Process(  # type: ignore[attr-defined]
            target=_worker_main, args=(child_end, self.config), daemon=True
        )
        process.start()
        child_end.close()
        return _Worker(process, parent_end)

    def _dispatch(self, worker: _Worker, task: GameTask) -> None:
        worker.task, worker.seat, worker.actions = task, None, []
        worker.turn_started = time.monotonic()
        worker.deadline = worker.turn_started + self.config.setup_seconds
        worker.conn.send(task)

    def _wait_and_collect(self, finish: Any) -> None:
        busy = [worker for worker in self.workers if worker.task is not None]
        deadlines = [worker.deadline for worker in busy if worker.deadline is not None]
        timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
        ready = wait([worker.conn for worker in busy], timeout=timeout)
        for worker in busy:
            if worker.conn in ready:
                self._receive(worker, finish)
        now = time.monotonic()
        for worker in busy:
            if worker.task is not None and worker.deadline is not None and now > worker.deadline:
                took = now - worker.turn_started
                self._replace(worker, finish, "timeout", f"no answer after {took:.1f} s wall-clock")

    def _receive(self, worker: _Worker, finish: Any) -> None:
        try:
            while worker.conn.poll():
                message = worker.conn.recv()
                if message[0] == "done":
                    worker.task, worker.deadline = None, None
                    finish(message[1])
                    return
                _, worker.seat, limit, new_actions = message
                worker.actions.extend(new_actions)
                worker.turn_started = time.monotonic()
                worker.deadline = None if limit is None else worker.turn_started + limit
        except (EOFError, OSError):
            code = worker.process.exitcode
            self._replace(worker, finish, "crash", f"the worker process died (exit code {code})")

    def _replace(self, worker: _Worker, finish: Any, reason: str, detail: str) -> None:
        """Kill the worker, record its game as the acting seat's loss, start a new one."""
        task = worker.task
        assert task is not None
        self._stop(worker, kill=True)
        result = GameResult(
            seed=task.seed,
            board_size=self.config.board_size,
            max_turns=self.config.turn_limit,
            actions=worker.actions,
            turns=_turns_of(self.config.board_size, worker.actions),
        )
        if worker.seat is None:
            result.reason, result.detail = reason, detail
        else:
            result.lose(worker.seat, reason, detail)
        finish(_record(task, result, self.config))
        index = self.workers.index(worker)
        self.workers[index] = self._start()

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


def _turns_of(board_size: int, actions: list[int]) -> int:
    """The turns completed in a recorded action sequence."""
    *_, (last_state, _) = replay(board_size, actions)
    return last_state.turn

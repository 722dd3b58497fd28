"""Many games in parallel worker processes, surviving faulty agents, busy machines, killed runs.

Games are :class:`GameTask` values (who sits where, and the game's seed); :func:`round_robin`
makes them for every pair of agent specs, seats alternating, each game's seed derived from
the base seed, the pairing and the game's number (so any game replays alone).
:func:`run_games` plays them in worker processes that build the agents from their specs.

Before the first game, :func:`check_specs` builds each agent once in a child process
(guarded by a timeout, so that a constructor that raises, exits or hangs is a one-line
error naming the spec) and asks it whether it can play the board
(:func:`agents.base.check_supports`).

Time: inside a worker, :func:`agents.arena.match.play_game` holds each turn to a CPU-time
budget. The parent adds a wall-clock ceiling per turn: a worker whose agent blocks (sleeps,
waits, loops in native code) past it is killed, the game is recorded as that seat's loss
("timeout"), and a fresh worker takes its place. A timeout that the machine caused (the
worker was runnable but got no CPU, see :mod:`agents.arena.processes`) decides nothing:
the game is replayed, at most :data:`MAX_REPLAYS` times, and its record counts the
replays. A worker that dies is a "crash" loss for the seat that was acting, and the record
says how it died.

Results: see :mod:`agents.arena.results`. Each finished game is appended at once as one
JSON line; ``resume=True`` keeps the games already in the file and plays only the others,
so a killed run loses at most the games in flight.

Example:
    >>> tasks = round_robin(["random", "greedy"], games_per_pairing=4, seed=0)
    >>> records = run_games(tasks, "results.jsonl", RunConfig(board_size=5, workers=2))
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, NamedTuple

from agents.arena.match import (
    DEFAULT_TIME_BUDGET,
    GameResult,
    derive_seed,
    interface_problem,
    play_game,
    replay,
)
from agents.arena.processes import (
    SchedStat,
    describe_exit,
    is_machine_stall,
    read_oom_kills,
    read_peak_memory,
    read_schedstat,
)
from agents.arena.results import Record, ResultsError, ResultsLog, load_results, record_decay
from agents.base import (
    Agent,
    SpecError,
    UnsupportedGameError,
    check_supports,
    make_agent,
    parse_spec,
)
from agents.program import DEFAULT_MEMORY_LIMIT
from trap_env.core import DEFAULT_DECAY, NO_PLAYER, Cell, GameConfig, State, default_turn_limit

__all__ = [
    "BACKENDS",
    "MAX_REPLAYS",
    "MAX_SECONDS",
    "Beat",
    "GameTask",
    "RunConfig",
    "check_specs",
    "load_results",
    "play_task",
    "probe_specs",
    "round_robin",
    "run_games",
]

MAX_SECONDS = 1e6
"""The longest time limit accepted (about 11 days); the clocks' waits hold no more."""

MAX_REPLAYS = 3
"""How often a game stalled by the machine is replayed before it is left unplayed."""

BACKENDS = ("process", "ray")
"""Where games run: worker processes on this machine, or Ray tasks on a cluster."""

Report = Callable[[str], None]


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

    def __post_init__(self) -> None:
        if sorted(self.seats) != sorted(self.pairing):
            raise ValueError(f"the seats {self.seats} must be the pairing {self.pairing}")


@dataclass(frozen=True)
class RunConfig:
    """How games are played and run.

    Attributes:
        board_size: N.
        max_turns: a draw after this many turns; None for 4 * N * N.
        decay: the throw's accuracy loss per step of distance beyond the first, per mille
            (50, the game as specified, by default; see :class:`trap_env.core.GameConfig`).
        time_budget: CPU seconds per turn (move and throw); None (or ``math.inf``) for no
            limit.
        wall_ceiling: wall-clock seconds a turn may take before its worker is killed;
            None for ``2 * time_budget + 1`` (no ceiling when there is no budget);
            ``math.inf`` for no ceiling.
        setup_seconds: wall-clock seconds to build an agent, or to reset it, in a worker.
        workers: worker processes; None for all cores; 0 plays in this process (no
            wall-clock ceiling, for debugging).
        start_method: multiprocessing start method of the workers.
        memory_limit: bytes of address space for program agents (``exec:`` specs, which
            also get ``time_budget`` as their CPU limit); None for no limit.
        backend: where games run: ``"process"``, worker processes on this machine, or
            ``"ray"``, each game a Ray task (:mod:`agents.arena.ray_backend`), where
            ``workers`` is the local cluster's CPUs, or at most that many games at once
            on the cluster at ``address``.
        address: the Ray cluster to use (``HOST:PORT``); None starts a local one that
            listens on the loopback address only. Only with ``backend="ray"``.

    Raises:
        ValueError: for a value out of range; seconds are at most :data:`MAX_SECONDS`.
    """

    board_size: int = GameConfig().board_size
    max_turns: int | None = None
    decay: int = DEFAULT_DECAY
    time_budget: float | None = DEFAULT_TIME_BUDGET
    wall_ceiling: float | None = None
    setup_seconds: float = 120.0
    workers: int | None = None
    start_method: str = "spawn"
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT
    backend: str = "process"
    address: str | None = None

    def __post_init__(self) -> None:
        GameConfig(self.board_size, self.decay)  # checks both, naming what is allowed
        if self.time_budget == math.inf:  # no limit, said the other way
            object.__setattr__(self, "time_budget", None)
        _check_seconds("time_budget", self.time_budget, "or None for no limit")
        if self.wall_ceiling != math.inf:
            _check_seconds("wall_ceiling", self.wall_ceiling, "or None, or math.inf for none")
        _check_seconds("setup_seconds", self.setup_seconds, "")
        for name, value, low in (("max_turns", self.max_turns, 1), ("workers", self.workers, 0)):
            if value is not None and not value >= low:
                raise ValueError(f"{name} must be an integer >= {low} or None, got {value!r}")
        if self.start_method not in multiprocessing.get_all_start_methods():
            raise ValueError(
                f"start_method {self.start_method!r} is not one of "
                f"{multiprocessing.get_all_start_methods()}"
            )
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if self.backend == "ray" and self.workers == 0:
            raise ValueError("workers=0 plays in this process; backend 'ray' needs workers >= 1")
        if self.address is not None and self.backend != "ray":
            raise ValueError(f"address {self.address!r} is a Ray cluster's: it needs backend 'ray'")

    @property
    def game(self) -> GameConfig:
        """The rules the games are played by (what agents are asked whether they play)."""
        return GameConfig(self.board_size, self.decay)

    @property
    def turn_limit(self) -> int:
        """The turn limit that applies."""
        return default_turn_limit(self.board_size) if self.max_turns is None else self.max_turns

    @property
    def ceiling(self) -> float | None:
        """The wall-clock seconds per turn after which a worker is killed; None for none."""
        if self.wall_ceiling is not None:
            return None if self.wall_ceiling == math.inf else self.wall_ceiling
        return None if self.time_budget is None else 2 * self.time_budget + 1

    @property
    def num_workers(self) -> int:
        """The number of worker processes."""
        if self.workers is None:
            return os.cpu_count() or 1
        return self.workers

    def settings(self) -> dict[str, Any]:
        """The settings that decide games, which every game of a results file shares."""
        return {
            "board_size": self.board_size,
            "max_turns": self.turn_limit,
            "decay": self.decay,
            "time_budget": self.time_budget,
            "wall_ceiling": self.ceiling,
            "memory_limit": self.memory_limit,
        }


def _check_seconds(name: str, value: float | None, alternatives: str) -> None:
    """Refuse seconds outside (0, MAX_SECONDS]; None passes when there are ``alternatives``."""
    if value is None and alternatives:
        return
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    if not (is_number and 0 < value <= MAX_SECONDS):  # type: ignore[operator]
        raise ValueError(
            f"{name} must be seconds > 0 and <= {MAX_SECONDS:.0f} {alternatives}, got {value!r}"
        )


# --- Checking agents before the first game ---------------------------------------------


def check_specs(specs: Iterable[str], config: RunConfig = RunConfig()) -> None:
    """Build each agent once in a guarded child process, before any game starts.

    Each agent must build within ``config.setup_seconds``, have the agent interface, and
    accept the board (:func:`agents.base.check_supports`).

    Raises:
        SpecError: for an unknown agent or option (the message lists what exists), a
            constructor that raises, exits its process or hangs, or an object that is not
            an agent; the message names the spec.
        UnsupportedGameError: for an agent that cannot play ``config``'s board.
    """
    for problem in probe_specs(specs, config).values():
        if problem is not None:
            raise problem


def probe_specs(
    specs: Iterable[str], config: RunConfig = RunConfig()
) -> dict[str, SpecError | UnsupportedGameError | None]:
    """Like :func:`check_specs`, but the problem of every spec (None if none), by spec."""
    order = list(dict.fromkeys(specs))
    problems: dict[str, SpecError | UnsupportedGameError | None] = {}
    context = multiprocessing.get_context(config.start_method)
    while len(problems) < len(order):
        problems.update(_probe_in_child(context, [s for s in order if s not in problems], config))
    return {spec: problems[spec] for spec in order}


def _probe_in_child(
    context: Any, specs: list[str], config: RunConfig
) -> dict[str, SpecError | UnsupportedGameError | None]:
    """Probe ``specs`` in one child; one that dies or hangs ends it with that spec's problem."""
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_probe_main, args=(sender, specs, config), daemon=True)
    process.start()
    sender.close()
    found: dict[str, SpecError | UnsupportedGameError | None] = {}
    current: str | None = None
    failure = ""
    try:
        while len(found) < len(specs):
            if not receiver.poll(config.setup_seconds):
                failure = f"took more than {config.setup_seconds:g} s"
                break
            try:
                kind, spec, message = receiver.recv()
            except (EOFError, OSError):
                process.join(timeout=5)
                failure = f"ended its process: {describe_exit(process.exitcode)}"
                break
            if kind == "start":
                current = spec
            else:
                found[spec] = None if message is None else _PROBLEMS[kind](message)
    finally:
        if process.is_alive():
            process.kill()
        process.join()
        receiver.close()
    if len(found) == len(specs):
        return found
    if current is not None and current not in found:
        return found | {current: SpecError(f"building agent {current!r} {failure}")}
    return found | {  # the child failed before building any agent: no culprit among them
        spec: SpecError(f"the process checking agent {spec!r} {failure}")
        for spec in specs
        if spec not in found
    }


_PROBLEMS: dict[str, type[SpecError | UnsupportedGameError]] = {
    "spec": SpecError,
    "unsupported": UnsupportedGameError,
}


def _probe_main(conn: Connection, specs: list[str], config: RunConfig) -> None:
    """The probing child: for each spec, announce it, then send its problem (or None)."""
    for spec in specs:
        conn.send(("start", spec, None))
        conn.send(_probe_one(spec, config))
    conn.close()


def _probe_one(spec: str, config: RunConfig) -> tuple[str, str, str | None]:
    try:
        agent = make_agent(spec, seed=0, **_program_limits(spec, config))
        problem = interface_problem(agent)
        if problem is not None:
            return ("spec", spec, f"agent spec {spec!r} does not build an agent: {problem}")
        check_supports(agent, config.game)
    except UnsupportedGameError as error:
        return ("unsupported", spec, f"agent {spec!r} cannot play this game: {error}")
    except SpecError as error:
        return ("spec", spec, str(error))
    except (Exception, SystemExit) as error:
        return ("spec", spec, f"building agent {spec!r} raised {type(error).__name__}: {error}")
    return ("ok", spec, None)


# --- Tasks -----------------------------------------------------------------------------


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


# --- Running ---------------------------------------------------------------------------


def run_games(
    tasks: Sequence[GameTask],
    results_path: str | os.PathLike[str],
    config: RunConfig = RunConfig(),
    *,
    resume: bool = False,
    overwrite: bool = False,
    check: bool = True,
    progress: bool = True,
    report: Report | None = None,
) -> list[Record]:
    """Play the tasks, appending each finished game to ``results_path`` as a JSON line.

    The results file is locked while the run uses it, and its settings are recorded beside
    it (see :mod:`agents.arena.results`).

    Args:
        tasks: the games; their ``game_id`` must be unique.
        results_path: the JSON Lines file.
        config: board, time and worker settings.
        resume: keep the games already in the file (recorded with the same settings) and
            play only the missing ones.
        overwrite: replace the games of a file that holds some (without ``resume``).
        check: check the agents' specs (:func:`check_specs`) before the first game.
        progress: show a tqdm progress bar on stderr.
        report: called with notes for the user (a torn line cut, a game replayed or left
            unplayed after machine stalls); default: printed to stderr.

    Returns:
        The records of the tasks (from the file and new), in task order; a game that the
        machine stalled more than :data:`MAX_REPLAYS` times has none (and is reported).

    Raises:
        OSError: if the results file cannot be written (before any game starts).
        ResultsError: for a file held by another run, holding games without ``resume`` or
            ``overwrite``, or recorded with other settings.
        SpecError, UnsupportedGameError: from :func:`check_specs`.
        ValueError: for repeated game ids.
    """
    if len({task.game_id for task in tasks}) != len(tasks):
        raise ValueError("game ids must be unique within a run")
    say = report or _print_note
    with ResultsLog(results_path, say) as log:
        kept = log.previous(config.settings(), resume=resume, overwrite=overwrite)
        done = _matching_records(log.path, kept, tasks, config)
        todo = [task for task in tasks if task.game_id not in done]
        if check and todo:
            check_specs([spec for task in todo for spec in task.seats], config)
        log.start(config.settings(), keep=resume)
        with _progress_bar(len(tasks), len(done), progress) as bar:

            def finish(record: Record) -> None:
                log.append(record)
                done[record["game_id"]] = record
                bar.update(1)

            if config.num_workers == 0:
                for task in todo:
                    finish(play_task(task, config, {}, None))
            elif config.backend == "ray":
                from agents.arena.ray_backend import RayPool  # Ray is an optional extra

                RayPool(config, finish, say).run(todo)
            else:
                _WorkerPool(config, finish, say).run(todo)
    return [done[task.game_id] for task in tasks if task.game_id in done]


def _print_note(message: str) -> None:
    from tqdm import tqdm

    tqdm.write(f"note: {message}", file=sys.stderr)


def _matching_records(
    path: Path, records: list[Record], tasks: Sequence[GameTask], config: RunConfig
) -> dict[str, Record]:
    """The recorded games of ``tasks``, checked to come from the same tasks and settings."""
    by_id = {task.game_id: task for task in tasks}
    expected = {
        "board_size": config.board_size,
        "max_turns": config.turn_limit,
        "decay": config.decay,
    }
    done = {}
    for record in records:
        task = by_id.get(record["game_id"])
        if task is None:
            continue
        if record["seed"] != task.seed or tuple(record["seats"]) != task.seats:
            raise ResultsError(
                f"{path} holds game {task.game_id!r} with another seed or seats: it comes from "
                "a run with other settings; resume with the same ones or write elsewhere"
            )
        played = {name: record[name] for name in ("board_size", "max_turns")}
        played["decay"] = record_decay(record)
        for name, value in expected.items():
            if played[name] != value:
                raise ResultsError(
                    f"{path} holds game {task.game_id!r} played with {name} {played[name]}, "
                    f"this run has {value}; resume with the same settings or write elsewhere"
                )
        done[task.game_id] = record
    return done


def _progress_bar(total: int, initial: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="game", disable=not enabled, smoothing=0.1)


def _record(task: GameTask, result: GameResult, config: RunConfig) -> Record:
    """The JSON record of a game: the task, the settings, the result, and no replays yet."""
    winner_spec = None if result.winner == NO_PLAYER else task.seats[result.winner]
    return {
        "game_id": task.game_id,
        "pairing": list(task.pairing),
        "seats": list(task.seats),
        "winner_spec": winner_spec,
        "time_budget": config.time_budget,
        **result.to_dict(),
        "replays": 0,
        "replay_details": [],
    }


# --- Playing a task (in a worker, or in this process) ---------------------------------


class Beat(NamedTuple):
    """A worker's heartbeat: who acts now, for how long at most, and the actions since the last.

    Attributes:
        seat: the seat whose agent acts (is built, reset, or decides).
        limit: wall-clock seconds it may take; None for no ceiling.
        cpu_allowance: CPU seconds it may use; None for no limit.
        what: what it does, in words ("turn 12", "reset of 'random'", ...).
        actions: the actions applied since the last heartbeat.
    """

    seat: int
    limit: float | None
    cpu_allowance: float | None
    what: str
    actions: list[Cell]


BeatSink = Callable[[Beat], None]


def play_task(
    task: GameTask, config: RunConfig, cache: dict[tuple[str, int], Agent], beat: BeatSink | None
) -> Record:
    """Build the two agents (reusing ``cache``) and play the game; its record.

    Faults of an agent (in building, reset or a decision) are its seat's loss. ``beat``,
    when given, receives a :class:`Beat` before each step that may hang, so that whoever
    watches the clock knows which seat to charge.
    """
    result = _empty_result(task, config)
    agents = []
    for seat, spec in enumerate(task.seats):
        if beat is not None:
            setup = config.setup_seconds
            beat(Beat(seat, setup, setup, f"building agent {spec!r}", []))
        try:
            agents.append(_built_agent(spec, seat, task, config, cache))
        except Exception as error:
            detail = f"building agent {spec!r} raised {type(error).__name__}: {error}"
            return _record(task, result.lose(seat, "exception", detail), config)
    result = play_game(
        agents,
        seed=task.seed,
        board_size=config.board_size,
        max_turns=config.max_turns,
        decay=config.decay,
        time_budget=config.time_budget,
        on_turn=None if beat is None else _turn_beats(beat, config),
        on_reset=None if beat is None else _reset_beats(beat, task, config),
    )
    return _record(task, result, config)


def _empty_result(task: GameTask, config: RunConfig) -> GameResult:
    """The result of ``task`` before its first action, under ``config``'s rules and limit."""
    return GameResult(
        seed=task.seed,
        board_size=config.board_size,
        max_turns=config.turn_limit,
        decay=config.decay,
    )


def _built_agent(
    spec: str, seat: int, task: GameTask, config: RunConfig, cache: dict[tuple[str, int], Agent]
) -> Agent:
    """The seat's agent, built once per worker and checked; raises what went wrong."""
    if (spec, seat) not in cache:
        agent = make_agent(
            spec, seed=derive_seed(task.seed, "seat", seat), **_program_limits(spec, config)
        )
        problem = interface_problem(agent)
        if problem is not None:
            raise TypeError(problem)
        check_supports(agent, config.game)
        cache[spec, seat] = agent
    return cache[spec, seat]


def _program_limits(spec: str, config: RunConfig) -> dict[str, Any]:
    """The run's limits for a program agent, which enforces them on its own process."""
    if parse_spec(spec)[0] != "exec":
        return {}
    return {"time_limit": config.time_budget, "memory_limit": config.memory_limit}


def _reset_beats(beat: BeatSink, task: GameTask, config: RunConfig) -> Callable[[int], None]:
    setup = config.setup_seconds
    return lambda seat: beat(Beat(seat, setup, setup, f"reset of {task.seats[seat]!r}", []))


def _turn_beats(beat: BeatSink, config: RunConfig) -> Callable[[int, State, list[Cell]], None]:
    """A turn hook sending who acts now and the actions since the last call."""
    sent = 0

    def on_turn(seat: int, state: State, actions: list[Cell]) -> None:
        nonlocal sent
        if seat >= 0:
            beat(
                Beat(seat, config.ceiling, config.time_budget, f"turn {state.turn}", actions[sent:])
            )
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
            record = play_task(task, config, cache, lambda beat: conn.send(("beat", beat)))
            conn.send(("done", record))
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        return  # the parent is gone or interrupted: nothing left to report to


# --- The worker pool (the parent's side) ----------------------------------------------


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


class _WorkerPool:
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
            target=_worker_main, args=(child_end, self.config), daemon=True
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
        try:
            while worker.conn.poll():
                kind, payload = worker.conn.recv()
                if kind == "done":
                    self._finish(worker, payload)
                    return
                self._on_beat(worker, payload)
        except (EOFError, OSError):
            self._died(worker)

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
        result = _empty_result(task, self.config)
        result.actions, result.turns = worker.actions, _turns_of(self.config, worker.actions)
        self._finish(worker, _record(task, result.lose(beat.seat, reason, detail), self.config))

    def _void(
        self, worker: _Worker, detail: str, cause: str = "the machine stalled it"
    ) -> None:
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


def _turns_of(config: RunConfig, actions: list[int]) -> int:
    """The turns completed in a recorded action sequence."""
    *_, (last_state, _) = replay(config.board_size, actions, config.decay)
    return last_state.turn

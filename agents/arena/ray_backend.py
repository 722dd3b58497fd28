"""Tournaments on a Ray cluster: each game a Ray task, played as the process backend plays it.

:class:`RayPool` is the runner's ``backend="ray"``:
:func:`~agents.arena.tournament.run_games` keeps the results file, its lock, ``resume``
and the agents' check, and hands the games to play to a :class:`RayPool`, which submits
each as a Ray task. Inside the task the game is played by the process backend itself: a
worker process of its pool (kept by the Ray worker from one task to the next) runs the
per-game function :func:`~agents.arena.worker.play_task`, under the same CPU budget per
turn and the same wall-clock ceiling (a blocked agent's worker is killed and its game
charged to the seat that was acting), with the same crash details and the same replays of
games the machine stalled. So both backends play the same games: for agents without a
time limit, the same records for the same seed.

What Ray adds is its own way to fail. A task lost to the cluster (its node died, its Ray
worker was killed from outside, or Ray's memory monitor killed it) is an infrastructure
fault, charged to no seat: the game is played again, at most :data:`MAX_LOST` times, and
its record counts the replays and says what happened. As a safety net, a task still
running long after every turn of its game could have used its whole ceiling
(:func:`task_deadline`) is cancelled and counts as lost.

The cluster: with ``RunConfig.address``, an existing one (``ray start --head`` on one
machine, ``ray start --address`` on the others; see ``docs/ray.md``); without, a local one
that the run starts with ``RunConfig.workers`` CPUs (default: all cores), listening on the
loopback address only, and stops at its end. A process already connected to Ray (it called
``ray.init``) runs its games on that connection. Every node needs this package, the
agents' packages and their files, as the driver does.

Example:
    >>> config = RunConfig(game_name="trap", params={"board_size": 5}, workers=2, backend="ray")
    >>> records = run_games(round_robin(["random", "greedy"], 4, 0), "out.jsonl", config)
"""

from __future__ import annotations

import contextlib
import dataclasses
import ipaddress
import logging
import socket
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

from agents.arena.plan import MAX_REPLAYS, GameTask, Report, RunConfig
from agents.arena.pool import WorkerPool
from agents.arena.results import Record

__all__ = [
    "LOOPBACK",
    "MAX_LOST",
    "ClusterError",
    "NodeOutcome",
    "RayPool",
    "play_on_node",
    "start_local_cluster",
    "task_deadline",
]

MAX_LOST = 3
"""How often a game whose Ray task the cluster lost is played again before it is left unplayed."""

LOOPBACK = "127.0.0.1"
"""The address a local cluster listens on."""

START_SECONDS = 60.0
"""Wall-clock seconds a Ray task may take to start its worker process, beyond its game."""


class ClusterError(OSError):
    """The Ray cluster cannot play the games: unreachable, without CPUs, or failing a task."""


# --- On a node: one game per Ray task -------------------------------------------------


class NodeOutcome(NamedTuple):
    """What a Ray task sends back.

    Attributes:
        record: the game's record; None for a game left unplayed because the machine
            stalled it again and again (see :data:`~agents.arena.plan.MAX_REPLAYS`).
        notes: the notes for the user (games replayed after machine stalls).
    """

    record: Record | None
    notes: list[str]


class _NodePool:
    """A Ray worker's game worker: a process-backend pool of one, kept between Ray tasks."""

    def __init__(self, config: RunConfig) -> None:
        self.config = config
        self.records: list[Record] = []
        self.notes: list[str] = []
        one_worker = dataclasses.replace(config, workers=1, backend="process", address=None)
        self.pool = WorkerPool(one_worker, self.records.append, self.notes.append)

    def play(self, task: GameTask) -> NodeOutcome:
        self.records.clear()
        self.notes.clear()
        self.pool.play([task])
        return NodeOutcome(self.records[0] if self.records else None, list(self.notes))


_node_pools: list[_NodePool] = []
"""This Ray worker's pool, if it has one (a Ray worker process plays many tasks)."""


def play_on_node(task: GameTask, config: RunConfig) -> NodeOutcome:
    """Play one game in this process's kept worker process, as the process backend does.

    The body of the Ray task: the worker process (and the agents it built) stays for this
    Ray worker's next task with the same ``config``; one that fails is stopped.
    """
    if _node_pools and _node_pools[0].config != config:
        _node_pools.pop().pool.close()
    if not _node_pools:
        _node_pools.append(_NodePool(config))
    try:
        return _node_pools[0].play(task)
    except BaseException:
        _node_pools.pop().pool.close()
        raise


def task_deadline(config: RunConfig) -> float | None:
    """Wall-clock seconds after which a game's Ray task is surely stuck; None without a ceiling.

    Time enough to start the worker, build and reset both agents, play every turn up to its
    ceiling, and do all that again for each replay after a machine stall.
    """
    ceiling = config.ceiling
    if ceiling is None:
        return None
    game = 4 * config.setup_seconds + config.turn_limit * ceiling
    return START_SECONDS + (MAX_REPLAYS + 1) * (config.setup_seconds + game)


# --- On the driver ---------------------------------------------------------------------


class _Running(NamedTuple):
    task: GameTask
    deadline: float | None


class RayPool:
    """Games as Ray tasks; a task the cluster loses is played again, charged to no seat."""

    def __init__(self, config: RunConfig, finish: Callable[[Record], None], report: Report):
        self.config = config
        self.finish = finish
        self.report = report
        self.pending: deque[GameTask] = deque()
        self.running: dict[Any, _Running] = {}
        self.lost: dict[str, list[str]] = {}
        self.cluster = contextlib.ExitStack()  # the connection, kept from one play to the next
        self.slots: int | None = None  # games at once on it; None: not connected

    def run(self, tasks: Sequence[GameTask]) -> None:
        """Play all tasks, calling ``finish(record)`` as each game ends; then leave the
        cluster (see :meth:`play`)."""
        try:
            self.play(tasks)
        finally:
            self.close()

    def play(self, tasks: Sequence[GameTask]) -> None:
        """Play all tasks, calling ``finish(record)`` as each game ends; the connection to
        the cluster (a local one started) stays for the next call, until :meth:`close`.

        Raises:
            ClusterError: for a cluster that cannot be reached or has no CPU, or a task
                that failed in this package's code on a node (such as a node without it).
        """
        try:
            import ray
        except ImportError:
            raise ClusterError(
                "backend 'ray' needs the package ray: pip install 'trap_env[distributed]'"
            ) from None
        if self.slots is None:
            cpus = self.cluster.enter_context(_connection(self.config))
            self.slots = cpus if self.config.workers is None else min(cpus, self.config.workers)
        self.pending = deque(tasks)
        remote = ray.remote(play_on_node).options(num_cpus=1, max_retries=0)
        try:
            while self.pending or self.running:
                while self.pending and len(self.running) < self.slots:
                    self._submit(remote, self.pending.popleft())
                self._wait_and_collect()
        finally:
            for ref in self.running:
                ray.cancel(ref, force=True)
            self.running.clear()

    def close(self) -> None:
        """Leave the cluster (stop the local one this pool started)."""
        self.slots = None
        self.cluster.close()

    def _submit(self, remote: Any, task: GameTask) -> None:
        seconds = task_deadline(self.config)
        deadline = None if seconds is None else time.monotonic() + seconds
        self.running[remote.remote(task, self.config)] = _Running(task, deadline)

    def _wait_and_collect(self) -> None:
        import ray

        deadlines = [r.deadline for r in self.running.values() if r.deadline is not None]
        timeout = min([60.0, *(max(0.0, d - time.monotonic()) for d in deadlines)])
        ready, _ = ray.wait(list(self.running), num_returns=1, timeout=timeout)
        for ref in ready:
            self._collect(ref)
        for ref, running in list(self.running.items()):
            if running.deadline is not None and time.monotonic() > running.deadline:
                ray.cancel(ref, force=True)  # its ray.get raises TaskCancelledError: lost
                self.running[ref] = running._replace(deadline=None)

    def _collect(self, ref: Any) -> None:
        import ray

        task = self.running.pop(ref).task
        try:
            outcome: NodeOutcome = ray.get(ref)
        except ray.exceptions.RayTaskError as error:
            raise ClusterError(
                f"game {task.game_id!r} failed on the Ray cluster, not in an agent (is this "
                f"package installed alike on every node?): {_first_line(error)}"
            ) from None
        except _lost_errors() as error:
            self._lose(task, f"{type(error).__name__}: {_first_line(error)}")
            return
        for note in outcome.notes:
            self.report(note)
        if outcome.record is not None:
            self._finish(outcome.record)

    def _finish(self, record: Record) -> None:
        lost = self.lost.pop(record["game_id"], [])
        record["replays"] += len(lost)
        record["replay_details"] = lost + record["replay_details"]
        self.finish(record)

    def _lose(self, task: GameTask, detail: str) -> None:
        """Play a game whose task the cluster lost again, or give up on it."""
        lost = self.lost.setdefault(task.game_id, [])
        lost.append(f"the Ray cluster lost its task ({detail})")
        if len(lost) <= MAX_LOST:
            self.report(
                f"replaying game {task.game_id!r}: the Ray cluster lost its task ({detail})"
            )
            self.pending.appendleft(task)
        else:
            self.report(
                f"game {task.game_id!r} left unplayed: the Ray cluster lost its task "
                f"{len(lost)} times ({detail}); run again with resume"
            )


def _lost_errors() -> tuple[type[Exception], ...]:
    """Ray's errors for a task lost to the cluster, not failed in its own code."""
    from ray import exceptions

    return (
        exceptions.WorkerCrashedError,
        exceptions.NodeDiedError,
        exceptions.LocalRayletDiedError,
        exceptions.ObjectLostError,
        exceptions.OutOfMemoryError,
        exceptions.TaskCancelledError,
    )


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


# --- The cluster -----------------------------------------------------------------------


@contextlib.contextmanager
def _connection(config: RunConfig) -> Iterator[int]:
    """Connect to the cluster (start a local one) for the run; yields its CPUs."""
    import ray

    started = not ray.is_initialized()
    if started and config.address is None:
        start_local_cluster(config.num_workers)
    elif started:
        _check_reachable(config.address)
        ray.init(address=config.address, logging_level=logging.WARNING)
    try:
        cpus = int(ray.cluster_resources().get("CPU", 0))  # type: ignore[no-untyped-call]
        if cpus < 1:
            raise ClusterError(f"the Ray cluster has no CPU to play on: {_where(config)}")
        yield cpus
    finally:
        if started:
            ray.shutdown()


def start_local_cluster(num_cpus: int, host: str = LOOPBACK) -> None:
    """Start a local Ray cluster of ``num_cpus`` CPUs whose servers listen on ``host`` only.

    Raises:
        ClusterError: if Ray bound its servers to another address.
    """
    import ray
    from ray._private import ray_constants

    # Ray replaces a loopback node address by the machine's public one, unless it runs in
    # single-machine mode (its flag for macOS and Windows); the node's servers bind to it.
    single_machine = ipaddress.ip_address(host).is_loopback
    with _attribute(ray_constants, "ENABLE_RAY_CLUSTER", not single_machine):
        ray.init(
            address="local",
            num_cpus=num_cpus,
            include_dashboard=False,
            logging_level=logging.WARNING,
            _node_ip_address=host,
        )
    bound = ray.get_runtime_context().gcs_address.rpartition(":")[0]
    if bound != host:
        ray.shutdown()
        raise ClusterError(f"the local Ray cluster listens on {bound}, not on {host} as asked")


@contextlib.contextmanager
def _attribute(owner: object, name: str, value: object) -> Iterator[None]:
    saved = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, saved)


def _check_reachable(address: str | None, timeout: float = 10.0) -> None:
    """Refuse an address nothing answers on (``ray.init`` would retry for many minutes)."""
    if address is None or address == "auto" or address.startswith("ray://"):
        return
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ClusterError(f"Ray address {address!r} is not HOST:PORT (e.g. 10.0.0.1:6379)")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout) as peer:
            speaks_grpc = _answers_http2(peer)
    except OSError as error:
        raise ClusterError(
            f"no Ray cluster answers at {address} ({error}); start one there with "
            "'ray start --head', or check the address and the firewall"
        ) from None
    if not speaks_grpc:
        raise ClusterError(
            f"something answers at {address}, but not a Ray cluster (its head speaks gRPC "
            "there, this does not); check the address: a Ray head's is the one "
            "'ray start --head' prints (port 6379 by default)"
        )


HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
"""HTTP/2's client preface and an empty SETTINGS frame: what a gRPC client sends first."""


def _answers_http2(peer: socket.socket) -> bool:
    """Whether the server on ``peer`` answers the HTTP/2 preface with a SETTINGS frame, as a
    gRPC server (a Ray head) does; anything else (an HTTP/1 reply, silence) is not Ray."""
    peer.sendall(HTTP2_PREFACE)
    header = b""
    try:
        while len(header) < 9:
            chunk = peer.recv(9 - len(header))
            if not chunk:
                return False
            header += chunk
    except TimeoutError:
        return False
    return header[3] == 4  # the frame type: SETTINGS


def _where(config: RunConfig) -> str:
    return "the local one" if config.address is None else config.address

"""Tournaments on Ray: one local cluster of 2 CPUs for the module, games as Ray tasks."""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
from dataclasses import asdict
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from trap_scripts import tournament as tournament_script  # noqa: E402

from agents.arena import ray_backend  # noqa: E402
from agents.arena.ray_backend import ClusterError, start_local_cluster  # noqa: E402
from agents.arena.results import load_results  # noqa: E402
from agents.arena.tournament import (  # noqa: E402
    MAX_REPLAYS,
    GameTask,
    RunConfig,
    round_robin,
    run_games,
)
from agents.rating import rate_spec  # noqa: E402
from agents.trap.random_agent import RandomAgent  # noqa: E402
from trap_env.trap.core import Cell, State  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
RAY = RunConfig(params={"board_size": 5}, time_budget=None, workers=2, backend="ray",
                game_name="trap")  # fmt: skip
PROCESS = RunConfig(params={"board_size": 5}, time_budget=None, workers=2, game_name="trap")
TIMING = ("cpu_time", "max_turn_time")


class ParentWaitingAgent(RandomAgent):
    """Plays like random until turn ``after``; then waits until its worker's parent is gone.

    With a ``marker`` path, it first writes its parent's PID there (the Ray worker running
    the game), and plays on like random once the marker exists: in a replay, it plays.
    """

    def __init__(self, after: int = 1, marker: str = "", seed: int | None = None) -> None:
        super().__init__(seed)
        self.after, self.marker = after, marker

    def select_action(self, state: State) -> Cell:
        if state.turn >= self.after and self._claims_marker():
            parent, deadline = os.getppid(), time.monotonic() + 30
            while os.getppid() == parent and time.monotonic() < deadline:
                time.sleep(0.02)  # killed from outside: the worker is orphaned, and ends
        return super().select_action(state)

    def _claims_marker(self) -> bool:
        if not self.marker:
            return True
        try:
            fd = os.open(self.marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            return False
        os.write(fd, str(os.getppid()).encode())
        os.close(fd)
        return True


@pytest.fixture(scope="module", autouse=True)
def cluster():
    """A local Ray of 2 CPUs whose workers find the test agents (in the checkout's ``tests``)."""
    with pytest.MonkeyPatch.context() as patch:
        paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
        patch.setenv("PYTHONPATH", os.pathsep.join(paths))  # Ray's workers inherit it
        start_local_cluster(2)
    yield
    ray.shutdown()


def without_timing(records):
    return [{k: v for k, v in r.items() if k not in TIMING} for r in records]


def test_the_local_cluster_listens_on_the_loopback_address_only():
    assert ray.get_runtime_context().gcs_address.startswith("127.0.0.1:")
    assert [node["NodeManagerAddress"] for node in ray.nodes()] == ["127.0.0.1"]


def test_untimed_agents_play_the_same_games_on_ray_and_in_processes(tmp_path):
    specs = ["expectiminimax:depth=2,time_limit=none", "random", "greedy"]
    tasks = round_robin(specs, 2, seed=3)
    on_ray = run_games(tasks, tmp_path / "ray.jsonl", RAY, progress=False)
    in_processes = run_games(tasks, tmp_path / "process.jsonl", PROCESS, progress=False)
    assert without_timing(on_ray) == without_timing(in_processes)
    assert len(on_ray) == len(tasks) and all(r["replays"] == 0 for r in on_ray)
    lines = load_results(tmp_path / "ray.jsonl")
    assert sorted(r["game_id"] for r in lines) == sorted(t.game_id for t in tasks)


def test_a_rating_on_ray_is_the_rating_in_processes(tmp_path):
    from tests.agents.rating.test_rating import SMALL, game_plays, without_date

    cards = [
        rate_spec(SMALL, "greedy", tmp_path / backend, games=2, say=lambda line: None,
                  run_options={"workers": 2, "backend": backend})
        for backend in ("ray", "process")
    ]
    assert without_date(asdict(cards[0])) == without_date(asdict(cards[1]))
    plays = [sorted(game_plays(tmp_path / b / "results.jsonl")) for b in ("ray", "process")]
    assert plays[0] == plays[1]


def test_a_task_killed_from_outside_is_replayed_recorded_once_and_charged_to_no_seat(tmp_path):
    marker = tmp_path / "ray-worker.pid"
    spec = f"{__name__}.ParentWaitingAgent:marker={marker}"
    tasks = round_robin(["random", spec], 2, seed=4)
    killer = threading.Thread(target=kill_when_marked, args=(marker,), daemon=True)
    killer.start()
    notes: list[str] = []
    records = run_games(tasks, tmp_path / "r.jsonl", RAY, progress=False, report=notes.append)
    killer.join()
    killed = [r for r in records if r["replays"]]
    assert len(killed) == 1 and "WorkerCrashedError" in killed[0]["replay_details"][0]
    assert any("replaying game" in note and "lost its task" in note for note in notes)
    assert all(r["reason"] in ("trapped", "truncated") for r in records)
    lines = load_results(tmp_path / "r.jsonl")
    assert sorted(r["game_id"] for r in lines) == sorted(t.game_id for t in tasks)
    again = run_games(tasks, tmp_path / "p.jsonl", PROCESS, progress=False)  # marker now set
    assert [r["actions"] for r in records] == [r["actions"] for r in again]


def kill_when_marked(marker: Path, timeout: float = 300) -> None:
    """SIGKILL the PID written in ``marker`` once it is; the clock starts before Ray does,
    whose start took over 30 s on a loaded machine, so the wait is long."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if marker.exists() and marker.read_text():
            os.kill(int(marker.read_text()), signal.SIGKILL)
            return
        time.sleep(0.02)


def test_agents_faults_are_charged_to_their_seat_as_in_the_process_backend(tmp_path):
    faulty = {
        "tests.support.faulty_agents.SleepyAgent:after=1": ("timeout", "wall-clock"),
        "tests.support.faulty_agents.RaisingAgent:after=1": ("exception", "RuntimeError"),
        "tests.support.faulty_agents.KilledAgent:after=1":
            ("crash", "killed by signal 9 (SIGKILL)"),
    }
    tasks = [GameTask(spec, (spec, "random"), ("random", spec), seed=1) for spec in faulty]
    config = RunConfig(
        params={"board_size": 5}, time_budget=0.2, wall_ceiling=1.0, workers=2, backend="ray",
        game_name="trap",
    )
    records = run_games(tasks, tmp_path / "r.jsonl", config, progress=False)
    for record in records:
        reason, words = faulty[record["game_id"]]
        assert (record["reason"], record["winner_spec"]) == (reason, "random"), record
        assert words in record["detail"] and record["replays"] == 0


def test_a_resumed_run_plays_only_the_missing_games(tmp_path):
    tasks = round_robin(["random", "greedy"], 4, seed=5)
    path = tmp_path / "r.jsonl"
    first = run_games(tasks[:2], path, RAY, progress=False)
    records = run_games(tasks, path, RAY, resume=True, progress=False)
    assert records[:2] == first
    assert sorted(json.dumps(r) for r in load_results(path)) == sorted(map(json.dumps, records))
    assert without_timing(records) == without_timing(
        run_games(tasks, tmp_path / "p.jsonl", PROCESS, progress=False)
    )


def test_a_task_past_any_game_length_is_cancelled_as_lost_and_at_last_left_unplayed(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(ray_backend, "task_deadline", lambda config: 0.5)
    monkeypatch.setattr(ray_backend, "MAX_LOST", 1)
    tasks = [GameTask("stuck", *[("random", f"{__name__}.ParentWaitingAgent")] * 2, seed=0)]
    notes: list[str] = []
    records = run_games(tasks, tmp_path / "r.jsonl", RAY, progress=False, report=notes.append)
    assert records == [] and load_results(tmp_path / "r.jsonl") == []
    assert "TaskCancelledError" in notes[0] and "left unplayed" in notes[-1]


def test_the_command_line_runs_on_ray_and_names_a_misplaced_address(tmp_path, capsys):
    argv = ["random", "greedy", "--games", "2", "--board-size", "5", "--workers", "2"]
    argv += ["--output", str(tmp_path), "--no-plot", "--quiet", "--backend", "ray"]
    assert tournament_script.main(argv) == 0
    assert len(load_results(tmp_path / "results.jsonl")) == 2
    assert tournament_script.main([*argv[:-2], "--address", "10.0.0.1:6379"]) == 2
    assert "needs backend 'ray'" in capsys.readouterr().err


def test_a_task_is_given_up_on_only_after_its_game_could_have_ended():
    assert ray_backend.task_deadline(RAY) is None  # no ceiling: no limit
    timed = RunConfig(
        params={"board_size": 5}, time_budget=0.1, setup_seconds=5, backend="ray", game_name="trap"
    )
    one_game = 5 * timed.setup_seconds + timed.turn_limit * timed.ceiling
    assert ray_backend.task_deadline(timed) > (MAX_REPLAYS + 1) * one_game


def test_bad_ray_settings_and_an_unreachable_cluster_are_refused():
    with pytest.raises(ValueError, match="backend must be one of process, ray"):
        RunConfig(backend="dask", game_name="trap")
    with pytest.raises(ValueError, match="workers=0"):
        RunConfig(backend="ray", workers=0, game_name="trap")
    with pytest.raises(ClusterError, match=r"no Ray cluster answers at 127\.0\.0\.1:1"):
        ray_backend._check_reachable("127.0.0.1:1")
    with pytest.raises(ClusterError, match="not HOST:PORT"):
        ray_backend._check_reachable("somewhere")


def _serve_once(reply: bytes | None) -> tuple[str, threading.Thread]:
    """A one-connection server on the loopback that reads the client's first bytes and
    answers ``reply`` (None: stays silent); its address."""
    server = socket.create_server(("127.0.0.1", 0))

    def answer() -> None:
        with server, server.accept()[0] as client:
            client.recv(64)
            if reply is not None:
                client.sendall(reply)
            time.sleep(3)

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    return f"127.0.0.1:{server.getsockname()[1]}", thread


@pytest.mark.parametrize(
    "reply",
    [b"HTTP/1.0 400 Bad Request\r\n\r\n", None],
    ids=["an http server", "a silent port"],
)
def test_a_port_that_is_not_a_ray_head_is_refused_at_once(reply):
    address, _ = _serve_once(reply)
    started = time.monotonic()
    with pytest.raises(ClusterError, match="not a Ray cluster"):
        ray_backend._check_reachable(address, timeout=1.0)
    assert time.monotonic() - started < 5


def test_a_grpc_server_passes_the_probe():
    settings_frame = bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])  # what a gRPC server sends first
    address, _ = _serve_once(settings_frame)
    ray_backend._check_reachable(address, timeout=1.0)


def test_the_local_ray_head_passes_the_probe():
    ray_backend._check_reachable(ray.get_runtime_context().gcs_address)

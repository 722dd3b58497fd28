"""The web server (agents.web) through its HTTP API: games played and watched with their
agents in worker processes, faults, records replayed, results folders, and refusals."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("httpx", reason="httpx (Starlette's test client) is not installed")

from cli_fuzz import check_command, command_lines, raise_run_started
from hypothesis import example, given, settings
from starlette.testclient import TestClient
from trap_scripts.serve import main as serve_main

from agents import make_agent
from agents.arena.match import play_game
from agents.arena.plan import GameTask, RunConfig
from agents.arena.replays import replay_record
from agents.arena.results import check_record
from agents.arena.worker import make_record
from agents.web.app import Settings, allowed_hosts, check_spec, create_app
from agents.web.live import LiveGame, LiveGames
from agents.web.seats import PersonSeat

JSON = {"Content-Type": "application/json"}


def make_client(root: Path, allow_exec: bool = False) -> TestClient:
    settings = Settings(root, allow_exec, allowed_hosts("127.0.0.1", 8000, ["testserver"]))
    return TestClient(create_app(settings))


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with make_client(tmp_path) as test_client:
        yield test_client


def post(client: TestClient, path: str, body: dict[str, Any]) -> Any:
    return client.post(path, content=json.dumps(body), headers=JSON)


def finished(client: TestClient, game_id: str, seconds: float = 60) -> dict[str, Any]:
    """The game's snapshot once it is over."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        answer = client.get(f"/api/games/{game_id}").json()
        if answer["record"] is not None:
            return answer  # type: ignore[no-any-return]
        time.sleep(0.05)
    raise AssertionError(f"game {game_id} did not end in {seconds} s")


def test_info_lists_the_games_default_first(client: TestClient) -> None:
    info = client.get("/api/info").json()
    names = [game["name"] for game in info["games"]]
    assert names[0] == "trap" and "othello" in names
    assert "random" in info["games"][0]["agents"] and not info["allow_exec"]
    assert info["games"][0]["params"] == {"board_size": 7, "decay": 50}


def test_a_watched_game_streams_one_frame_per_action_and_its_record_replays(
    client: TestClient,
) -> None:
    started = post(client, "/api/games", {"game": "trap", "params": {"board_size": 5},
                                          "specs": ["greedy", "random"], "seed": 3})  # fmt: skip
    assert started.status_code == 200, started.text
    answer = finished(client, started.json()["id"])
    record, frames = answer["record"], answer["frames"]
    assert record["seats"] == ["greedy", "random"]
    assert len(frames) == len(record["actions"]) + 1
    assert [frame["index"] for frame in frames] == list(range(len(frames)))
    replay_record(record)  # the record is a valid game, as trap-play --replay checks it
    final = frames[-1]
    assert final["outcome"]["reason"] == record["reason"]
    landings = [frame for frame in frames if frame["actor"] == "chance"]
    assert landings and all(frame["last_chance"] for frame in landings)
    throws = [frame for frame in frames if frame["odds"]]
    assert throws and all(abs(sum(p for _, p in f["odds"]) - 1) < 1e-9 for f in throws)


def test_the_event_stream_ends_with_the_game(client: TestClient) -> None:
    started = post(client, "/api/games", {"game": "othello", "params": {"board_size": 4},
                                          "specs": ["random", "greedy"], "seed": 1})  # fmt: skip
    game_id = started.json()["id"]
    frames, ended = [], False
    with client.stream("GET", f"/api/games/{game_id}/events") as stream:
        for line in stream.iter_lines():
            if line.startswith("data: ") and line != "data: {}":
                frames += json.loads(line[6:])["frames"]
            ended = ended or line == "event: end"
    assert ended and frames[-1]["outcome"] is not None
    assert frames[0]["position"]["game"] == "othello"


@pytest.mark.parametrize(
    ("game", "size", "seat", "reasons"),
    [("trap", 5, 0, ("trapped", "truncated")), ("othello", 4, 1, ("board_full", "no_moves"))],
)
def test_a_person_plays_a_whole_game_against_random(
    client: TestClient, game: str, size: int, seat: int, reasons: tuple[str, ...]
) -> None:
    specs: list[str | None] = ["random", "random"]
    specs[seat] = None
    started = post(client, "/api/games", {"game": game, "params": {"board_size": size},
                                          "specs": specs, "seed": 5})  # fmt: skip
    game_id = started.json()["id"]
    assert started.json()["person"] == seat
    illegal_tried = False
    deadline = time.monotonic() + 60
    while (answer := client.get(f"/api/games/{game_id}").json())["record"] is None:
        assert time.monotonic() < deadline
        waiting = answer["waiting"]
        if waiting is None:
            time.sleep(0.02)
            continue
        if not illegal_tried:
            illegal = next(a for a in range(size * size) if a not in waiting["legal"])
            refused = post(client, f"/api/games/{game_id}/action", {"action": illegal})
            assert refused.status_code == 409 and "not a legal" in refused.json()["error"]
            illegal_tried = True
        assert set(map(int, waiting["texts"])) == set(waiting["legal"])
        if waiting["decision"] == "throw":
            assert set(map(int, waiting["odds"])) == set(waiting["legal"])
        chosen = post(client, f"/api/games/{game_id}/action", {"action": waiting["legal"][-1]})
        assert chosen.status_code == 200, chosen.text
    record = answer["record"]
    assert record["seats"][seat] == "you" and record["reason"] in reasons, record
    check_record(record)  # a results file's record, which Replay and trap-play take
    replay_record(record)


def test_a_choice_out_of_turn_is_refused(client: TestClient) -> None:
    started = post(client, "/api/games", {"params": {"board_size": 5}, "specs": ["random", None]})
    game_id = started.json()["id"]
    answer = post(client, f"/api/games/{game_id}/action", {"text": "0,0"})
    assert answer.status_code in (400, 409)
    assert post(client, f"/api/games/{game_id}/close", {}).json() == {"ok": True}
    assert client.get(f"/api/games/{game_id}").status_code == 404


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("randomx", "unknown agent 'randomx'"),
        ("exec:python3 agent.py", "--allow-exec"),
        ("faulty_agents.CrashingAgent", "--allow-exec"),
        ("expectiminimax:depth=x", "takes an integer"),
        ("", "give an agent spec"),
    ],
)
def test_bad_specs_get_a_message(client: TestClient, spec: str, words: str) -> None:
    answer = post(client, "/api/games", {"specs": [spec, None]})
    assert answer.status_code == 400 and words in answer.json()["error"]


def test_bad_rules_get_a_message(client: TestClient) -> None:
    for params, words in [({"board_size": 99}, "board_size"), ({"decay": 5000}, "decay"),
                          ({"colour": 1}, "colour")]:  # fmt: skip
        answer = post(client, "/api/games", {"params": params, "specs": ["random", None]})
        assert answer.status_code == 400 and words in answer.json()["error"], answer.text
    answer = post(client, "/api/games", {"game": "chess", "specs": ["random", None]})
    assert "unknown game" in answer.json()["error"]


def test_check_spec_allows_programs_only_when_asked() -> None:
    assert check_spec("exec:./agent", "trap", allow_exec=True) == "exec:./agent"
    assert check_spec("greedy", "othello", allow_exec=False) == "greedy"


@pytest.mark.parametrize(
    ("agent", "reason"),
    [
        ("faulty_agents.CrashingAgent:after=1", "crash"),
        ("faulty_agents.IllegalAgent:after=1", "illegal"),
        ("faulty_agents.SleepyAgent:after=1", "timeout"),
        ("faulty_agents.RaisingAgent:after=1", "exception"),
    ],
)
def test_a_faulty_agent_loses_and_the_server_keeps_serving(
    tmp_path: Path, agent: str, reason: str
) -> None:
    with make_client(tmp_path, allow_exec=True) as client:
        started = post(client, "/api/games", {"params": {"board_size": 5}, "time_budget": 0.5,
                                              "specs": [agent, "random"], "seed": 2})  # fmt: skip
        assert started.status_code == 200, started.text
        record = finished(client, started.json()["id"])["record"]
        assert (record["winner"], record["reason"]) == (1, reason), record["detail"]
        assert client.get("/api/info").status_code == 200


def test_an_agent_that_fails_to_build_is_a_bad_spec(tmp_path: Path) -> None:
    with make_client(tmp_path, allow_exec=True) as client:
        answer = post(client, "/api/games", {"specs": ["faulty_agents.RaisingConstructorAgent",
                                                       None]})  # fmt: skip
        assert answer.status_code == 400 and "RaisingConstructorAgent" in answer.json()["error"]


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Host": "evil.example:8000"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Origin": "http://127.0.0.1:9999"},
    ],
)
def test_requests_from_elsewhere_are_refused(client: TestClient, headers: dict[str, str]) -> None:
    for answer in (
        client.post("/api/games", content=b'{"specs": ["random", null]}',
                    headers={**JSON, **headers}),
        client.get("/api/results", headers=headers),
    ):  # fmt: skip
        assert answer.status_code == 403 and "refused" in answer.json()["error"]


def test_a_post_must_be_json(client: TestClient) -> None:
    answer = client.post(
        "/api/games", content=b"specs=random", headers={"Content-Type": "text/plain"}
    )
    assert answer.status_code == 415
    answer = client.post("/api/replay", content=b"[1, 2", headers=JSON)
    assert answer.status_code == 400 and "not JSON" in answer.json()["error"]


def game_record(specs: tuple[str, str], seed: int) -> dict[str, Any]:
    agents = [make_agent(spec, seed=seed) for spec in specs]
    result = play_game(agents, seed=seed, board_size=5, time_budget=None)
    config = RunConfig(board_size=5, time_budget=None)
    return make_record(GameTask(f"g{seed}", tuple(sorted(specs)), specs, seed), result, config)


def test_a_pasted_record_replays_and_a_bad_one_gets_a_message(client: TestClient) -> None:
    record = game_record(("greedy", "random"), 7)
    answer = post(client, "/api/replay", {"record": json.dumps(record)}).json()
    assert len(answer["frames"]) == len(record["actions"]) + 1
    assert answer["frames"][-1]["outcome"]["reason"] == record["reason"]
    for changed, words in [({"winner": 1 - record["winner"]}, "winner"),
                           ({"actions": record["actions"][:-1]}, "not a valid game"),
                           ({"game": "os:system"}, "'game' must be one of")]:  # fmt: skip
        answer = post(client, "/api/replay", {"record": {**record, **changed}})
        assert answer.status_code == 400 and words in answer.json()["error"], answer.text
    answer = post(client, "/api/replay", {"record": {**record, "board_size": 40}})
    assert "boards up to 16x16" in answer.json()["error"]
    answer = post(client, "/api/replay", {"record": "{not json"})
    assert "not JSON" in answer.json()["error"]


def write_results(folder: Path, records: list[dict[str, Any]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "results.jsonl", "a") as file:
        file.writelines(json.dumps(record) + "\n" for record in records)


def test_results_folders_games_and_standings(tmp_path: Path) -> None:
    records = [game_record(seats, seed) for seed, seats in
               enumerate([("greedy", "random"), ("random", "greedy")] * 3)]  # fmt: skip
    write_results(tmp_path / "runs" / "one", records)
    with make_client(tmp_path) as client:
        assert client.get("/api/results").json()["folders"] == ["runs/one"]
        games = client.get("/api/results?folder=runs/one").json()["games"]
        assert len(games) == 6 and games[0]["seats"] == ["greedy", "random"]
        frames = client.get("/api/results/game?folder=runs/one&index=5").json()["frames"]
        assert len(frames) == len(records[5]["actions"]) + 1
        table = client.get("/api/tournament?folder=runs/one").json()
        assert table["games"] == 6 and {a["spec"] for a in table["agents"]} == {"greedy", "random"}
        best = table["agents"][0]
        assert best["elo"] >= table["agents"][1]["elo"] and 0 <= best["interval"][0] <= best["rate"]
        write_results(tmp_path / "runs" / "one", [game_record(("greedy", "random"), 99)])
        assert client.get("/api/tournament?folder=runs/one").json()["games"] == 7


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("folder=../..", "outside the results root"),
        ("folder=nowhere", "no results file"),
        ("folder=/etc", "outside the results root"),
    ],
)
def test_results_only_under_the_root(client: TestClient, query: str, words: str) -> None:
    for path in ("/api/tournament", "/api/results", "/api/results/game"):
        answer = client.get(f"{path}?{query}")
        assert answer.status_code == 404 and words in answer.json()["error"]


def test_a_malformed_results_line_gets_a_message(tmp_path: Path) -> None:
    (tmp_path / "results.jsonl").write_text('{"not": "a record"}\n')
    with make_client(tmp_path) as client:
        answer = client.get("/api/tournament?folder=.")
        assert answer.status_code == 400 and "line 1" in answer.json()["error"]


def test_the_page_and_its_files_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    for name in ("app.js", "boards.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert "http" not in page.text.replace("http-equiv", "")  # nothing from a CDN


def test_trap_serve_refuses_a_missing_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert serve_main(["--results-root", str(tmp_path / "missing")]) == 2
    assert "is not a folder" in capsys.readouterr().err


SERVE_VALUES = ["127.0.0.1", "::1", "localhost", "127.0.0.2", "1.2.3", "256.1.1.1", "[::1]",
                "", " ", "\x00", "0", "65535", "65536", "-1", "x", "8000", ".", "missing",
                "afile", "localhost:8000", "out/\x00"]  # fmt: skip
"""Hosts, ports, folders and names for trap-serve's flags (no host beyond the loopback
resolves: nothing listens beyond this machine, even for a moment)."""


@settings(max_examples=50, deadline=None)
@given(
    argv=command_lines(
        ["--host", "--port", "--results-root", "--allow-host"],
        SERVE_VALUES,
        switches=["--allow-exec"],
    )
)
@example(argv=["--host", "\x00"])  # the socket module raised TypeError
@example(argv=["--results-root", "out/\x00"])
def test_fuzzed_serve_flags_start_the_server_or_are_one_line(
    tmp_path_factory: pytest.TempPathFactory, argv: list[str]
) -> None:
    import contextlib
    from unittest import mock

    import uvicorn

    folder = tmp_path_factory.mktemp("serve")
    (folder / "afile").write_text("mine")
    with contextlib.chdir(folder), mock.patch.object(uvicorn.Server, "run", raise_run_started):
        check_command(serve_main, argv, "trap-serve")


def test_an_idle_game_makes_room_and_a_followed_one_does_not() -> None:
    config = RunConfig(board_size=5)
    games = LiveGames(limit=1)
    first = LiveGame([PersonSeat(), PersonSeat()], ["you", "you"], config, seed=1)
    games.add(first)
    second = LiveGame([PersonSeat(), PersonSeat()], ["you", "you"], config, seed=2)
    with pytest.raises(RuntimeError, match="being played already"):
        games.add(second)
    third = LiveGame([PersonSeat(), PersonSeat()], ["you", "you"], config, seed=3)
    first.seen -= 60  # no page has asked for it for a minute
    games.add(third)
    first.thread.join(timeout=10)
    assert first.record is not None and first.record["reason"] == "exception"  # it resigned
    assert list(games.games) == [third.id]
    games.close_all()


def test_a_stored_record_never_imports_the_game_path_it_names(
    tmp_path: Path, planted_game: Any
) -> None:
    write_results(tmp_path / "planted", [planted_game.record])
    with make_client(tmp_path) as client:
        for path in ("/api/results", "/api/results/game", "/api/tournament"):
            answer = client.get(f"{path}?folder=planted")
            assert answer.status_code == 400 and "'game' must be" in answer.json()["error"]
        assert not planted_game.was_imported()
    with make_client(tmp_path, allow_exec=True) as client:  # the page allows paths
        assert client.get("/api/results/game?folder=planted").json()["game"] == planted_game.path

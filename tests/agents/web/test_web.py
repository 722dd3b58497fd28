"""The web server (agents.web) through its HTTP API: games played and watched with their
agents in worker processes, faults, records replayed, results folders, and refusals."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("httpx", reason="httpx (Starlette's test client) is not installed")

from hypothesis import example, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from trap_scripts.serve import main as serve_main

from agents import make_agent
from agents.arena.match import play_game
from agents.arena.plan import GameTask, RunConfig
from agents.arena.replays import replay_record
from agents.arena.results import check_record
from agents.arena.worker import make_record
from agents.rating import find_ladder, load_ladder
from agents.web.app import Settings, allowed_hosts, check_spec, create_app
from agents.web.live import LiveGame, LiveGames
from agents.web.seats import PersonSeat
from agents.web.views import Frame, FrameBuilder
from tests.support.cli_fuzz import check_command, command_lines, raise_run_started
from tests.support.games import ALL_GAMES, every_game
from tests.support.old_records import old_shape
from tests.support.results_roots import (
    as_format_1,
    card_of,
    deep_tree,
    fifo_released_after,
    write_card,
)
from trap_env.games import game_names
from trap_env.grid import Grid, click_targets

JSON = {"Content-Type": "application/json"}


OTHELLO = load_ladder("othello")
GOOD_CARD = card_of(OTHELLO, "good", {OTHELLO.rungs[1].spec: (3, 1, 0),
                                      OTHELLO.rungs[3].spec: (2, 0, 2)})  # fmt: skip
"""A card whose fields agree, on the shipped Othello ladder."""


def make_client(root: Path, allow_exec: bool = False) -> TestClient:
    hosts = allowed_hosts("127.0.0.1", 8000, ["testserver"])
    settings = Settings(root, allow_exec, hosts, first_game="trap")  # as trap-serve starts it
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


@every_game("greedy")
def test_a_game_starts_with_the_rules_the_start_form_shows(client: TestClient, game: str) -> None:
    """The form shows the info's defaults (Colosseum's start -1: drawn by chance)."""
    info = {g["name"]: g for g in client.get("/api/info").json()["games"]}
    params = info[game]["params"]
    started = post(client, "/api/games", {"game": game, "params": params,
                                          "specs": ["greedy", "random"]})  # fmt: skip
    assert started.status_code == 200, started.text
    answer = finished(client, started.json()["id"])
    replay_record(answer["record"])
    assert answer["frames"][0]["board"]["game"] == game


@pytest.mark.parametrize("start", [-2, 65536, 1.5, "x"])
def test_a_start_the_rules_refuse_gets_its_range(client: TestClient, start: Any) -> None:
    body = {"game": "colosseum", "params": {"start": start}, "specs": ["random", "random"]}
    refused = post(client, "/api/games", body)
    assert refused.status_code == 400
    assert "start must be -1 (drawn by chance) or a start number 0..65535" in refused.text


def random_game(game: str, params: dict[str, Any], seed: int) -> tuple[list[Frame], list[int]]:
    """The frames and the actions of a game of random legal choices (chance drawn by
    ``seed`` too)."""
    rng = random.Random(seed)
    builder = FrameBuilder(game, params)
    rules, actions = builder.rules, []
    while rules.outcome(builder.state) is None:
        state = builder.state
        choices = None if rules.is_chance(state) else rules.legal_actions(state)
        actions.append(rules.sample_chance(state, rng) if choices is None else rng.choice(choices))
        builder.follow(actions)
    return builder.frames, actions


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), game=st.sampled_from(ALL_GAMES))
def test_a_frames_board_is_its_game_and_the_last_decisions_action(game: str, seed: int) -> None:
    """The same for every game (its drawing on the page reads it with ``describe``), under
    its own default rules: a chance outcome is no decision, an action of no cell (Othello's
    pass) is one."""
    frames, actions = random_game(game, {}, seed)
    last = None
    for frame, action in zip(frames, [None, *actions], strict=True):
        if frame["actor"] not in (None, "chance"):
            last = action
        assert frame["board"] == {"game": game, "last": last}


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32), size=st.sampled_from([4, 6]))
def test_othello_frames_give_the_discs_their_counts_and_the_last_placement(
    seed: int, size: int
) -> None:
    frames, _ = random_game("othello", {"board_size": size}, seed)
    for frame in frames:
        position = frame["position"]
        assert position["discs"] == [len(position["dark"]), len(position["light"])]
    for before, frame in itertools.pairwise(frames):
        placed = set(frame["position"]["dark"] + frame["position"]["light"]) - set(
            before["position"]["dark"] + before["position"]["light"]
        )
        last = frame["board"]["last"]
        assert placed == (set() if frame["action"] == "pass" else {last})
        assert (last == size * size) == (frame["action"] == "pass")  # a pass is no cell


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32), size=st.integers(3, 7))
def test_colosseum_frames_give_the_walls_players_zones_and_the_last_move(
    seed: int, size: int
) -> None:
    frames, _ = random_game("colosseum", {"board_size": size}, seed)
    start = frames[0]
    assert start["position"]["cells"] == [None, None] and start["odds"] is None
    assert start["board"]["last"] is None
    for frame in frames[1:]:
        position, last = frame["position"], frame["board"]["last"]
        if frame["actor"] == "chance":
            assert last is None and frame["last_chance"] is None  # a start is no cell
            continue
        row, col, side = map(int, frame["action"].split(","))
        assert divmod(last, 4) == (row * size + col, side)  # the page's cellOf and sideOf
        assert position["cells"][frame["actor"]] == [row, col]
        assert position["walls"][row][col][side] == 1
    assert frames[-1]["position"]["zones"] is not None


DROP = "tests.support.drop_game:GAME"
"""Drop, the test-only game on a board that is not square, whose actions are columns."""
DROPPER = "tests.support.drop_game.RandomDropper"
SMALL = {"trap": {"board_size": 5}, "othello": {"board_size": 4}, "colosseum": {"board_size": 4},
         DROP: {"rows": 3, "cols": 4}}  # fmt: skip
"""Small rules of each game, Drop among them."""


def pieces_by_game(position: dict[str, Any]) -> dict[int, str]:
    """The pieces a position's own fields say (not its grid), by cell."""
    game = position["game"]
    if game == "trap":
        return {**dict.fromkeys(position["traps"], "trap"),
                **{cell: f"p{player}" for player, cell in enumerate(position["players"])}}
    if game == "othello":
        return {**dict.fromkeys(position["dark"], "dark"),
                **dict.fromkeys(position["light"], "light")}
    if game == "colosseum":
        n = position["board_size"]
        return {at[0] * n + at[1]: "AB"[player] for player, at in enumerate(position["cells"])
                if at is not None}  # fmt: skip
    return {}  # Drop's own fields say no cells: its grid is all there is


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), game=st.sampled_from([*game_names(), DROP]))
def test_every_frames_grid_is_its_position_and_its_clicks_are_the_legal_actions(
    game: str, seed: int
) -> None:
    """The generic board's fields, in every game: a grid that reads back, whose pieces (and
    Colosseum's walls) are the position's, and whose click reaches every legal decision but
    Othello's pass; a chance node's odds and landing are shown where its outcomes are
    clicks on the grid (Trap!'s cells, Drop's columns), not where they are not (Colosseum's
    start)."""
    frames, _ = random_game(game, SMALL[game], seed)
    for frame in frames:
        position, grid = frame["position"], frame["position"]["grid"]
        assert Grid.from_json(grid).to_json() == grid
        pieces = {int(cell): fields["piece"] for cell, fields in grid["cells"].items()
                  if "piece" in fields}  # fmt: skip
        if game != DROP:
            assert pieces == pieces_by_game(position)
        if game == "colosseum":
            walls = [sides for row in position["walls"] for sides in row]
            for cell, sides in enumerate(walls):
                drawn = grid["cells"].get(str(cell), {}).get("walls", "")
                assert drawn == "".join(s for s, on in zip("nesw", sides, strict=True) if on)
        on_grid = game in ("trap", DROP)  # chance's outcomes are clicks on the grid
        if frame["to_act"] is not None:
            off_grid = set(frame["legal"]) - set(click_targets(grid))
            assert off_grid <= ({grid["rows"] * grid["cols"]} if game == "othello" else set())
        elif frame["outcome"] is None:  # a chance node
            assert (frame["odds"] is not None) == on_grid
        if frame["actor"] == "chance":
            assert (frame["last_chance"] is not None) == on_grid


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
        ("tests.support.faulty_agents.CrashingAgent", "--allow-exec"),
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
    games = ", ".join(game_names())  # the registered ones: the strangers of the tests too
    assert f"game must be one of {games}, got 'chess'" in answer.json()["error"]


def test_the_app_defaults_to_the_game_it_is_started_with_and_to_none_otherwise(
    tmp_path: Path,
) -> None:
    """trap-serve starts the app with Trap! first; an app started without a first game
    lists the games by name and starts only a game that a request names."""
    app = create_app(Settings(tmp_path, False, ["testserver"]))
    with TestClient(app) as plain:
        assert [g["name"] for g in plain.get("/api/info").json()["games"]] == game_names()
        answer = post(plain, "/api/games", {"specs": ["random", None]})
        assert answer.status_code == 400
        assert f"game must be one of {', '.join(game_names())}, got None" in answer.json()["error"]


def test_check_spec_allows_programs_only_when_asked() -> None:
    assert check_spec("exec:./agent", "trap", allow_exec=True) == "exec:./agent"
    assert check_spec("greedy", "othello", allow_exec=False) == "greedy"


@pytest.mark.parametrize(
    ("agent", "reason"),
    [
        ("tests.support.faulty_agents.CrashingAgent:after=1", "crash"),
        ("tests.support.faulty_agents.IllegalAgent:after=1", "illegal"),
        ("tests.support.faulty_agents.SleepyAgent:after=1", "timeout"),
        ("tests.support.faulty_agents.RaisingAgent:after=1", "exception"),
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
        specs = ["tests.support.faulty_agents.RaisingConstructorAgent", None]
        answer = post(client, "/api/games", {"specs": specs})
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
    agents = [make_agent(spec, seed=seed, game="trap") for spec in specs]
    result = play_game(agents, seed=seed, params={"board_size": 5}, time_budget=None, game="trap")
    config = RunConfig(params={"board_size": 5}, time_budget=None, game_name="trap")
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
    huge = {**record, "rules": {**record["rules"], "board_size": 40}}
    answer = post(client, "/api/replay", {"record": huge})
    assert "boards up to 16x16" in answer.json()["error"]
    answer = post(client, "/api/replay", {"record": {**record, "board_size": 40}})
    assert "contradict each other" in answer.json()["error"]
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


@pytest.mark.parametrize("port", ["\u0663", "\u00b2", "8\u0660\u0660\u0660", "9" * 5000])
def test_trap_serve_takes_a_port_of_ascii_digits_only(
    port: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        serve_main(["--port", port])
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert "a port is 0 to 65535" in error and len(error) < 300


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
    config = RunConfig(params={"board_size": 5}, game_name="trap")
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


def test_a_game_given_by_its_path_is_offered_played_and_its_records_replay(tmp_path: Path) -> None:
    """trap-serve --game PATH: the page offers that game first with its rules, plays it,
    and replays its records, pasted or in a results file, even without --allow-exec (no
    other path: a record of another is refused, and a server without --game refuses it)."""
    hosts = allowed_hosts("127.0.0.1", 8000, ["testserver"])
    with TestClient(create_app(Settings(tmp_path, True, hosts, first_game=DROP))) as client:
        info = client.get("/api/info").json()["games"]
        assert (info[0]["name"], info[0]["title"], info[0]["params"]) == (DROP, "Drop",
                                                                          {"rows": 4, "cols": 5})
        started = post(client, "/api/games", {"params": {"cols": 6}, "specs": [DROPPER] * 2})
        assert started.status_code == 200, started.text
        record = finished(client, started.json()["id"])["record"]
    assert record["game"] == DROP and record["rules"] == {"rows": 4, "cols": 6}
    write_results(tmp_path / "drop", [record])
    other = {**record, "game": "tests.support.toy_game:GAME"}
    with TestClient(create_app(Settings(tmp_path, False, hosts, first_game=DROP))) as client:
        frames = post(client, "/api/replay", {"record": record}).json()["frames"]
        assert frames[-1]["position"]["grid"]["cols"] == 6
        assert client.get("/api/results/game?folder=drop").json()["frames"] == frames
        refused = post(client, "/api/replay", {"record": other}).json()["error"]
        assert f"'game' must be one of {', '.join(game_names())}, {DROP}" in refused
    with make_client(tmp_path) as client:
        assert "'game' must be" in post(client, "/api/replay", {"record": record}).json()["error"]


# --- Sizes, contradictions and heavy work (issue 36) -----------------------------------------


def othello_record(size: int = 4, seed: int = 1) -> dict[str, Any]:
    seats = ("greedy", "random")
    agents = [make_agent(spec, game="othello", seed=seed) for spec in seats]
    result = play_game(agents, seed=seed, game="othello", params={"board_size": size},
                       time_budget=None)  # fmt: skip
    config = RunConfig(game_name="othello", params={"board_size": size}, time_budget=None)
    task = GameTask(f"o{seed}", seats, seats, seed)
    return make_record(task, result, config)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"rules": {"board_size": 64}}, "contradict each other"),
        ({"rules": {"board_size": 400}}, "contradict each other"),
        ({"rules": {"board_size": 5, "decay": 7}}, "contradict each other"),
        ({"rules": {"colour": 1}}, "a rule trap does not have"),
    ],
)
def test_a_trap_record_that_contradicts_itself_is_refused(
    client: TestClient, change: dict[str, Any], words: str
) -> None:
    record = {**old_shape(game_record(("greedy", "random"), 7)), **change}
    answer = post(client, "/api/replay", {"record": record})
    assert answer.status_code == 400 and words in answer.json()["error"], answer.text
    assert "\n" not in answer.json()["error"]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"board_size": 4, "rules": {"end_rule": "standard", "board_size": 64}}, "contradict"),
        ({"rules": {"end_rule": "standard", "board_size": 400}}, "contradict"),
        ({"decay": 7}, "a rule othello does not have"),
    ],
)
def test_an_othello_record_that_contradicts_itself_is_refused(
    client: TestClient, change: dict[str, Any], words: str
) -> None:
    record = {**old_shape(othello_record()), **change}
    answer = post(client, "/api/replay", {"record": record})
    assert answer.status_code == 400 and words in answer.json()["error"], answer.text


@pytest.mark.parametrize("size", [17, 64, 400, 10**12])
def test_a_board_larger_than_the_page_shows_is_refused_wherever_written(
    client: TestClient, size: int
) -> None:
    record = othello_record()
    record["rules"] = {**record["rules"], "board_size": size}
    answer = post(client, "/api/replay", {"record": record})
    assert answer.status_code == 400 and "boards up to 16x16" in answer.json()["error"]


def test_the_page_never_shows_a_board_that_a_replay_refuses() -> None:
    from agents.arena.replays import MAX_REPLAY_BOARD_SIZE
    from agents.web.views import MAX_BOARD_SIZE

    assert MAX_BOARD_SIZE <= MAX_REPLAY_BOARD_SIZE


def test_a_request_is_answered_while_a_heavy_replay_runs(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from agents.web import app

    def slow_frames(record: Any) -> dict[str, Any]:
        time.sleep(3)  # as a large replay does, holding its thread
        return {"frames": []}

    monkeypatch.setattr(app, "record_frames", slow_frames)
    replay = threading.Thread(target=post, args=(client, "/api/replay", {"record": {}}))
    replay.start()
    time.sleep(0.3)
    started = time.monotonic()
    assert client.get("/api/info").status_code == 200
    assert time.monotonic() - started < 1.5
    replay.join()


# --- Requests: numbers, nesting, body sizes, origins (issue 36) ------------------------------


@pytest.mark.parametrize("text", ["\u0663", "\u00b2", "1\u0663", "-1", "1" * 5000, "+1", " 1"])
def test_numbers_in_a_query_are_ascii_digits(tmp_path: Path, text: str) -> None:
    write_results(tmp_path / "runs", [game_record(("greedy", "random"), 1)] * 4)
    with make_client(tmp_path) as client:
        started = post(client, "/api/games", {"params": {"board_size": 5},
                                              "specs": [None, "random"]})  # fmt: skip
        game = started.json()["id"]
        for path in ("/api/results/game?folder=runs&index=", f"/api/games/{game}?from=",
                     f"/api/games/{game}/events?from="):  # fmt: skip
            answer = client.get(path + quote(text))
            assert answer.status_code == 400 and "digits 0-9" in answer.json()["error"], path
        assert client.get("/api/results/game?folder=runs&index=3").status_code == 200
        post(client, f"/api/games/{game}/close", {})


@pytest.mark.parametrize(
    ("paths", "content", "words"),
    [
        (("/api/games", "/api/replay"), b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (("/api/games", "/api/replay"), b'{"seed": ' + b"7" * 5000 + b"}", "more than 30 digits"),
        (("/api/replay",), b'{"record": "' + b"[" * 100_000 + b'"}', "nested too deeply"),
        (("/api/replay",), b'{"record": "[' + b"1" * 5000 + b']"}', "more than 30 digits"),
    ],
)
def test_a_body_too_deep_or_a_number_too_long_is_a_400(
    client: TestClient, paths: tuple[str, ...], content: bytes, words: str
) -> None:
    for path in paths:
        answer = client.post(path, content=content, headers=JSON)
        assert answer.status_code == 400, (path, answer.text)
        message = answer.json()["error"]
        assert words in message and "\n" not in message and len(message) < 200


async def asgi_post(app: Any, headers: list[tuple[bytes, bytes]], chunks: int) -> tuple[int, int]:
    """POST ``chunks`` chunks of 64 KiB to ``/api/replay``: the status, and the chunks read."""
    read, sent = 0, []

    async def receive() -> dict[str, Any]:
        nonlocal read
        read += 1
        return {"type": "http.request", "body": b" " * 65536, "more_body": read < chunks}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/api/replay", "raw_path": b"/api/replay",
             "query_string": b"", "scheme": "http", "server": ("127.0.0.1", 8000),
             "headers": [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"),
                         *headers]}  # fmt: skip
    await app(scope, receive, send)
    return sent[0]["status"], read


def test_a_body_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    import anyio

    from agents.web.app import MAX_BODY

    app = create_app(Settings(tmp_path, False, allowed_hosts("127.0.0.1", 8000)))
    declared = [(b"content-length", str(64 * MAX_BODY).encode())]
    assert anyio.run(asgi_post, app, declared, 64 * MAX_BODY // 65536) == (413, 0)
    status, read = anyio.run(asgi_post, app, [], 64 * MAX_BODY // 65536)  # chunked
    assert status == 413 and read == MAX_BODY // 65536 + 1


@pytest.mark.parametrize(
    ("headers", "allowed"),
    [
        ({"Origin": "http://testserver"}, True),
        ({"Origin": "http://testserver:80"}, True),
        ({"Origin": "https://testserver"}, False),
        ({"Origin": "http://testserver:8000"}, False),
        ({"Origin": "http://127.0.0.1:8000"}, False),
        ({"Origin": "null"}, False),
        ({"Referer": "http://testserver/static/app.js"}, True),
        ({"Referer": "http://127.0.0.1:8000/"}, False),
        ({"Referer": "https://evil.example/"}, False),
        ({"Origin": "http://testserver:99999"}, False),
    ],
)
def test_without_sec_fetch_site_only_the_server_s_own_origin_is_accepted(
    client: TestClient, headers: dict[str, str], allowed: bool
) -> None:
    answer = client.get("/api/info", headers=headers)
    assert answer.status_code == (200 if allowed else 403), answer.text


# --- Processes end with their game (issue 36) ------------------------------------------------


def spawning_program(folder: Path) -> tuple[str, str]:
    """An ``exec:`` spec of an Othello program that first starts a child of its own (a
    ``sleep`` of a duration no other process has), and that duration, to count them by."""
    import secrets
    import shlex
    import sys

    from tests.support.game_runs import ROOT, TEXT_PROGRAM

    program = folder / "othello_text.py"
    answer = "rules.action_name(state.board_size, rules.legal_actions(state)[-1])"
    program.write_text(TEXT_PROGRAM.format(root=str(ROOT), game="othello", board_size=4,
                                           answer=answer))  # fmt: skip
    marker = f"1000.{secrets.randbelow(10**9)}"
    command = f"sleep {marker} & exec {shlex.quote(sys.executable)} {shlex.quote(str(program))}"
    return "exec:" + shlex.join(["sh", "-c", command]), marker


def processes_running(argument: str) -> list[int]:
    """The processes with ``argument`` on their command line (zombies have none)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # not a process, or one that has ended
            continue
        if argument.encode() in arguments:
            found.append(int(entry.name))
    return found


def assert_none_left(marker: str, seconds: float = 15) -> None:
    import os
    import signal

    deadline = time.monotonic() + seconds
    while (left := processes_running(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in left:  # not to leave them behind whatever the outcome
        os.kill(pid, signal.SIGKILL)
    assert not left, f"{len(left)} of the program's children outlived its game"


def person_waits(client: TestClient, game_id: str) -> None:
    deadline = time.monotonic() + 60
    while client.get(f"/api/games/{game_id}").json()["waiting"] is None:
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_a_program_s_children_end_with_its_game(tmp_path: Path) -> None:
    spec, marker = spawning_program(tmp_path)
    with make_client(tmp_path, allow_exec=True) as client:
        started = post(client, "/api/games", {"game": "othello", "params": {"board_size": 4},
                                              "specs": [spec, "random"], "seed": 1})  # fmt: skip
        assert started.status_code == 200, started.text
        record = finished(client, started.json()["id"])["record"]
        assert record["reason"] in ("board_full", "no_moves"), record
        assert_none_left(marker)


def test_a_program_s_children_end_when_the_page_closes_its_game(tmp_path: Path) -> None:
    spec, marker = spawning_program(tmp_path)
    with make_client(tmp_path, allow_exec=True) as client:
        started = post(client, "/api/games", {"game": "othello", "params": {"board_size": 4},
                                              "specs": [spec, None], "seed": 1})  # fmt: skip
        game_id = started.json()["id"]
        person_waits(client, game_id)
        assert processes_running(marker)
        assert post(client, f"/api/games/{game_id}/close", {}).status_code == 200
        assert_none_left(marker)


def test_a_program_s_children_end_when_the_server_is_stopped(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import urllib.request

    spec, marker = spawning_program(tmp_path)
    server = subprocess.Popen(
        [sys.executable, "-m", "trap_scripts.serve", "--port", "0", "--allow-exec",
         "--results-root", str(tmp_path)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        address = server.stdout.readline().split("serving on ")[1].split()[0].rstrip("/")
        body = {"game": "othello", "params": {"board_size": 4}, "specs": [spec, None], "seed": 1}
        request = urllib.request.Request(f"{address}/api/games", json.dumps(body).encode(), JSON)
        with urllib.request.urlopen(request, timeout=60) as answer:
            game_id = json.load(answer)["id"]
        deadline = time.monotonic() + 60
        while True:
            with urllib.request.urlopen(f"{address}/api/games/{game_id}", timeout=10) as answer:
                if json.load(answer)["waiting"] is not None:
                    break
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert processes_running(marker)
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)  # uvicorn stops, then raises the signal again: -15
    finally:
        server.kill()
        server.wait()
    assert_none_left(marker)


def test_two_closes_of_one_game_close_its_worker_once_and_keep_its_record() -> None:
    import threading
    from unittest import mock

    from agents.web.live import build_seats

    config = RunConfig(params={"board_size": 5}, time_budget=None, game_name="trap")
    seats = build_seats(["random", None], config, seed=1)
    conns = [mock.Mock(wraps=seats[0].conn)]
    seats[0].conn = conns[0]  # type: ignore[attr-defined]
    game = LiveGame(seats, ["random", "you"], config, seed=1)
    closers = [threading.Thread(target=game.close) for _ in range(3)]
    for closer in closers:
        closer.start()
    for closer in closers:
        closer.join()
    game.thread.join(timeout=30)
    assert game.record is not None and game.record["reason"] in ("exception", "crash"), game.record
    assert conns[0].close.call_count == 1
    assert not seats[0].process.is_alive()  # type: ignore[attr-defined]


def test_the_standings_of_a_file_of_two_games_keep_the_games_apart(tmp_path: Path) -> None:
    trap = [game_record(seats, seed) for seed, seats in
            enumerate([("greedy", "random"), ("random", "greedy")] * 2)]  # fmt: skip
    othello = [othello_record(4, seed) for seed in range(3)]
    write_results(tmp_path, trap + othello)
    with make_client(tmp_path) as client:
        table = client.get("/api/tournament?folder=.").json()
    assert table["games"] == 7 and table["game_names"] == ["trap", "othello"]
    rows = {(row["game"], row["spec"]): row["games"] for row in table["agents"]}
    assert rows == {("trap", "greedy"): 4, ("trap", "random"): 4, ("othello", "greedy"): 3,
                    ("othello", "random"): 3}  # fmt: skip
    assert {(p["game"], p["first"], p["second"]) for p in table["pairings"]} == {
        ("trap", "greedy", "random"), ("othello", "greedy", "random")}  # fmt: skip


# --- Fuzzed parameters: a 2xx or a 4xx with a message, never a 500 (issue 36) -------------------

KEYS = ["game", "params", "specs", "seed", "time_budget", "action", "text", "record",
        "board_size", "decay", "end_rule", "start", "rules", "actions", "winner"]  # fmt: skip
VALUES = ["trap", "othello", "colosseum", "random", "greedy", "exec:sh", "os:system", "0,0",
          "\u0663", "\u00b2", "1" * 5000, "[" * 2000, "d3", "pass", -1, 0, 3, 16, 17, 64, 400,
          10**40, 2**63, True, 1e308, float("nan"), float("inf")]  # fmt: skip
scalars = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
           | st.sampled_from(VALUES))  # fmt: skip
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
queries = st.dictionaries(
    st.sampled_from(["folder", "index", "from"]) | st.text(max_size=4),
    st.text(max_size=12)
    | st.sampled_from(["", ".", "..", "/etc", "runs", "0", "\u0663", "\u00b2", "9" * 5000]),
    max_size=3,
)


def check_answer(answer: Any) -> None:
    """A 2xx, or a refusal (4xx, or 503 when the server is full) with a one-line message."""
    assert answer.status_code < 500 or answer.status_code == 503, answer.text
    if answer.status_code >= 400:
        message = answer.json()["error"]
        assert message and "\n" not in message and "Traceback" not in message


def test_fuzzed_bodies_and_queries_never_get_a_500(tmp_path: Path) -> None:
    records = [game_record(("greedy", "random"), 3), othello_record(4)]
    write_results(tmp_path / "runs", records)
    with make_client(tmp_path) as client:
        person = post(client, "/api/games", {"params": {"board_size": 5},
                                             "specs": [None, "random"]}).json()["id"]  # fmt: skip

        @settings(max_examples=150, deadline=None)
        @given(path=st.sampled_from(["/api/games", "/api/replay", "/api/replay", "action"]),
               body=json_values, base=st.sampled_from(records),
               changes=st.dictionaries(st.sampled_from(KEYS), json_values, max_size=3),
               raw=st.sampled_from([None, b"[" * 10**5, b'{"seed": ' + b"9" * 5000 + b"}",
                                    b'{"record": "' + b"[" * 10**5 + b'"}']))  # fmt: skip
        @example(path="/api/replay", body=None, base=records[1],
                 changes={"rules": {"board_size": 64}}, raw=None)  # fmt: skip
        @example(path="/api/games", body={"seed": 1}, base=records[0], changes={},
                 raw=b"[" * 10**5)  # fmt: skip
        def post_anything(
            path: str, body: Any, base: dict[str, Any], changes: dict[str, Any], raw: bytes | None
        ) -> None:
            if path == "/api/replay" and changes:
                body = {"record": {**base, **changes}}
            target = f"/api/games/{person}/action" if path == "action" else path
            content = json.dumps(body).encode() if raw is None else raw
            check_answer(client.post(target, content=content, headers=JSON))

        @settings(max_examples=100, deadline=None)
        @given(path=st.sampled_from(["/api/results", "/api/results/game", "/api/tournament",
                                     f"/api/games/{person}", "/api/info"]),
               query=queries)  # fmt: skip
        @example(path="/api/results/game", query={"folder": "runs", "index": "\u00b2"})
        def get_anything(path: str, query: dict[str, str]) -> None:
            check_answer(client.get(path, params=query))

        post_anything()
        get_anything()
        post(client, f"/api/games/{person}/close", {})


def test_a_long_spec_or_action_text_is_refused_in_one_short_line(client: TestClient) -> None:
    answer = post(client, "/api/games", {"specs": ["expectiminimax:depth=" + "9" * 5000, None]})
    assert answer.status_code == 400 and "at most 1000 characters" in answer.json()["error"]
    started = post(client, "/api/games", {"game": "othello", "params": {"board_size": 4},
                                          "specs": [None, "random"]})  # fmt: skip
    game_id = started.json()["id"]
    for text in ("1" * 5000 + ",0", "a" + "1" * 5000):
        answer = post(client, f"/api/games/{game_id}/action", {"text": text})
        message = answer.json()["error"]
        assert answer.status_code == 400 and "at most 40 characters" in message
        assert len(message) < 100
    post(client, f"/api/games/{game_id}/close", {})


def test_an_agent_whose_worker_dies_while_building_is_a_400(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents.web import app
    from agents.web.seats import SeatFault

    def dying(*args: Any) -> None:
        raise SeatFault("crash", "the worker process died (building agent 'random')")

    monkeypatch.setattr(app, "build_seats", dying)
    answer = post(client, "/api/games", {"specs": ["random", None]})
    assert answer.status_code == 400 and "could not start" in answer.json()["error"]


def test_a_record_whose_scores_are_not_its_actions_is_refused(client: TestClient) -> None:
    record = othello_record()
    dark, light = record["scores"]["discs"]
    changed = {**record, "scores": {"discs": [light + 1, dark]}}
    answer = post(client, "/api/replay", {"record": changed})
    assert answer.status_code == 400 and "scores" in answer.json()["error"], answer.text
    assert post(client, "/api/replay", {"record": record}).status_code == 200


def test_the_ratings_tab_ranks_cards_per_shipped_ladder_and_lists_others_apart(
    tmp_path: Path,
) -> None:
    ladder = find_ladder("colosseum", version="v1")  # format 1 cards were v1's only
    weak, strong = ladder.rungs[0].spec, ladder.rungs[-1].spec
    write_card(tmp_path / "a", card_of(ladder, "greedy", {weak: (2, 0, 1)}))
    write_card(tmp_path / "b", card_of(ladder, "mcts", {strong: (2, 0, 1)}))
    old = as_format_1(card_of(ladder, "old", {weak: (1, 0, 1)}), "ladder_sha256")  # written before
    old |= {"ladder": "v0", "line": old["line"].replace(ladder.version, "v0")}
    write_card(tmp_path / "c", old)
    with make_client(tmp_path) as client:
        answer = client.get("/api/ratings").json()
    [ranked] = [board for board in answer["ladders"] if board["rows"]]
    assert ranked["name"] == ladder.name and ranked["sha256"] == ladder.identity
    assert [row["spec"] for row in ranked["rows"]] == ["mcts", "greedy"]
    for row in ranked["rows"]:  # the interval on the ladder's scale, within the card's
        assert row["low"] <= row["scale_low"] < row["scale_high"] <= row["high"]
    [apart] = answer["apart"]
    assert apart["spec"] == "old" and f"its ladder is 'v0', not '{ladder.version}'" in apart["note"]
    assert (apart["scale_low"], apart["scale_high"]) == (None, None)  # written before it
    assert answer["notes"] == []


@contextlib.contextmanager
def not_a_number(root: Path) -> Iterator[str]:
    for name, text in [("nan", "NaN"), ("minus-infinity", "-Infinity")]:
        (root / name).mkdir()
        (root / name / "card.json").write_text(
            json.dumps(GOOD_CARD).replace(f'"rating": {GOOD_CARD["rating"]}', f'"rating": {text}')
        )
    yield "minus-infinity/card.json: left out, not a card: -Infinity is not a JSON number"


@contextlib.contextmanager
def a_deep_tree(root: Path) -> Iterator[str]:
    with deep_tree(root, 1200) as deepest:
        write_card(deepest, GOOD_CARD)
        write_results(deepest, [])
        yield "not read: 1 folders more than 32 levels below the root"


@contextlib.contextmanager
def a_name_not_utf8(root: Path) -> Iterator[str]:
    folder = Path(os.fsdecode(os.fsencode(root) + b"/caf\xff"))
    write_card(folder, GOOD_CARD | {"spec": "odd"})
    write_results(folder, [])
    yield "caf\\xff: not listed, its name is not UTF-8"


@contextlib.contextmanager
def a_fifo(root: Path) -> Iterator[str]:
    (root / "fifo").mkdir()
    with fifo_released_after(root / "fifo" / "card.json"), \
            fifo_released_after(root / "fifo" / "results.jsonl"):  # fmt: skip
        yield "fifo/card.json: left out, not a regular file"


@pytest.mark.parametrize("plant", [not_a_number, a_deep_tree, a_name_not_utf8, a_fifo])
def test_nothing_under_the_results_root_takes_the_ratings_or_the_results_down(
    tmp_path: Path, plant: Callable[[Path], contextlib.AbstractContextManager[str]]
) -> None:
    write_card(tmp_path / "good", GOOD_CARD)
    write_results(tmp_path / "good", [game_record(("greedy", "random"), 1)])
    with plant(tmp_path) as words, make_client(tmp_path) as client:
        for _ in range(3):  # more requests than heavy-work threads: none may hang one
            ratings = client.get("/api/ratings")
            assert ratings.status_code == 200, ratings.text
        results = client.get("/api/results")
        assert results.status_code == 200, results.text
        replay = client.get("/api/results/game?folder=good&index=0")
        assert replay.status_code == 200, replay.text
    ranked = [row["spec"] for board in ratings.json()["ladders"] for row in board["rows"]]
    assert "good" in ranked and results.json()["folders"] == ["good"]
    notes = "\n".join(ratings.json()["notes"] + results.json()["notes"])
    assert words in notes
    if plant is a_name_not_utf8:
        [odd] = [row for board in ratings.json()["ladders"] for row in board["rows"]
                 if row["spec"] == "odd"]  # fmt: skip
        assert odd["path"] == "caf\\xff/card.json"


def test_a_folder_name_longer_than_the_system_takes_is_refused_not_a_500(
    client: TestClient,
) -> None:
    for path in ("/api/results", "/api/tournament", "/api/results/game"):
        answer = client.get(path, params={"folder": "9" * 5000, "index": "0"})
        assert answer.status_code == 404, answer.text
        assert "is not a folder under the results root" in answer.json()["error"]

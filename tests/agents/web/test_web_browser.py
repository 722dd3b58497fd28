"""The page in a real browser: headless Chromium (Debian's ``chromium``) driven by Playwright
against ``trap-serve`` run as a command. The board is read from the page's DOM.

With ``CI=true`` these tests are required: a missing browser or Playwright fails them.
Elsewhere they skip, saying what is missing. ``TRAP_WEB_SCREENSHOTS=DIR`` saves the
screenshots that docs/web.md shows.
"""

from __future__ import annotations

import contextlib
import dataclasses
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents import make_agent
from agents.arena.match import play_game
from agents.arena.plan import GameTask, RunConfig
from agents.arena.worker import make_record
from agents.web.views import FrameBuilder
from trap_env.grid import click_targets

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DROP = "tests.support.drop_game:GAME"
"""Drop, the test-only game on a board that is not square, whose actions are columns."""
ROOT = Path(__file__).resolve().parents[3]
IS_CI = os.environ.get("CI", "").lower() == "true"
SCREENSHOTS = os.environ.get("TRAP_WEB_SCREENSHOTS")
TIMEOUT_MS = 60_000


def _missing() -> str | None:
    """What the browser tests lack, or None."""
    try:
        import playwright.sync_api  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as error:
        return f"{error.name} is not installed (pip install -e '.[web,test]')"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"no Chromium at {CHROMIUM} (apt-get install chromium, or set CHROMIUM)"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    missing = _missing()
    if missing is not None:
        if IS_CI:
            pytest.fail(f"CI=true requires the browser tests: {missing}")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


def game_record(specs: tuple[str, str], seed: int) -> dict[str, Any]:
    agents = [make_agent(spec, seed=seed, game="trap") for spec in specs]
    result = play_game(agents, seed=seed, params={"board_size": 5}, time_budget=None, game="trap")
    config = RunConfig(params={"board_size": 5}, time_budget=None, game_name="trap")
    return make_record(GameTask(f"g{seed}", tuple(sorted(specs)), specs, seed), result, config)


@pytest.fixture(scope="module")
def results_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("results")
    folder = root / "ladder"
    folder.mkdir()
    records = [game_record(("greedy", "random"), seed) for seed in range(4)]
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return root


@contextlib.contextmanager
def serving(results_root: Path, *flags: str) -> Iterator[str]:
    """``trap-serve`` on a free port, run from the checkout (so that ``tests`` imports);
    its address."""
    command = [sys.executable, "-m", "trap_scripts.serve", "--port", "0",
               "--results-root", str(results_root), *flags]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, cwd=ROOT)  # fmt: skip
    try:
        line = process.stdout.readline() if process.stdout else ""
        assert "serving on http://127.0.0.1:" in line, line + (
            process.stderr.read() if process.stderr else ""
        )
        yield line.split("serving on ")[1].split()[0].rstrip("/")
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def server(results_root: Path, browser: Any) -> Iterator[str]:
    with serving(results_root) as address:
        yield address


@contextlib.contextmanager
def opened_page(browser: Any, address: str) -> Iterator[Any]:
    """A page of the server at ``address``, its forms filled; no script error on it."""
    context = browser.new_context(viewport={"width": 900, "height": 760})
    opened = context.new_page()
    opened.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.goto(address + "/")
    opened.wait_for_selector("#play-form .game-select option", state="attached")
    yield opened
    context.close()
    assert not errors, errors


@pytest.fixture
def page(browser: Any, server: str) -> Iterator[Any]:
    with opened_page(browser, server) as opened:
        yield opened


def screenshot(page: Any, name: str) -> None:
    if SCREENSHOTS:
        clip = {"x": 0, "y": 0, "width": 900, "height": 560}
        page.screenshot(path=str(Path(SCREENSHOTS) / name), clip=clip)


def board_cells(page: Any, css: str) -> list[int]:
    """The cells of the board that have the CSS class ``css``, read from the page."""
    return page.eval_on_selector_all(
        f"#board .cell.{css}", "cells => cells.map(c => +c.dataset.cell)"
    )


def piece_cells(page: Any, key: str | None = None) -> list[int]:
    """The cells of the board drawn with a piece (of the legend's ``key``), read from the page."""
    selector = "[data-piece]:not([data-piece=''])" if key is None else f"[data-piece='{key}']"
    return page.eval_on_selector_all(
        f"#board .cell{selector}", "cells => cells.map(c => +c.dataset.cell)"
    )


def drawn_cells(page: Any) -> list[dict[str, str]]:
    """Each cell of the board as drawn: its piece, mark and walls, and the piece's label."""
    return page.eval_on_selector_all(  # type: ignore[no-any-return]
        "#board .cell",
        "cells => cells.map(c => ({piece: c.dataset.piece, mark: c.dataset.mark, "
        "walls: c.dataset.walls, label: (c.querySelector('.piece') || {}).textContent || ''}))",
    )


def shown_frame(page: Any) -> dict[str, Any]:
    """The frame the page shows, as the server sent it."""
    return page.evaluate("view.frames[view.cursor]")  # type: ignore[no-any-return]


def check_drawn(page: Any) -> None:
    """The board drawn is the frame's grid, whatever its game and shape: each cell's piece
    (with its label), mark and walls (thick sides), the legend's words, and the last
    decision's cell marked where it is one cell (a column's is none; an Othello pass marks
    no cell), with sides its new wall's side too."""
    frame = shown_frame(page)
    grid, last = frame["position"]["grid"], frame["board"]["last"]
    labels = {entry["key"]: entry["label"] for entry in grid["legend"]}
    expected = []
    for cell in range(grid["rows"] * grid["cols"]):
        drawn = {"piece": "", "mark": "", "walls": "", **grid["cells"].get(str(cell), {})}
        expected.append({**drawn, "label": labels.get(drawn["piece"], "")})
    assert drawn_cells(page) == expected
    for side in "nesw":
        walled = [cell for cell, drawn in enumerate(expected) if side in drawn["walls"]]
        assert board_cells(page, f"wall-{side}") == walled
    words = [f"{entry['label']} {entry['text']}" for entry in grid["legend"]]
    assert page.text_content("#legend") == "".join(words)
    at = click_targets(grid).get(last, []) if last is not None else []
    assert board_cells(page, "last") == ([at[0][0]] if len(at) == 1 else [])
    if len(at) == 1 and at[0][1] is not None:
        assert board_cells(page, f"new-wall-{'nesw'[at[0][1]]}") == [at[0][0]]


def play_as_person(page: Any, shot: str | None = None) -> int:
    """Play the person's seat to the end by clicking: a legal cell (Colosseum: one of its
    sides), or the pass; the board checked at each choice, the screenshot ``shot`` taken at
    the second. The number of choices made."""
    decisions = 0
    while True:
        page.wait_for_function(
            "document.querySelector('#board').dataset.over === 'true' || "
            "(document.querySelector('#status').textContent.startsWith('Your') && "
            "document.querySelectorAll('#board .cell.legal, #off-board button').length > 0)"
        )
        if page.get_attribute("#board", "data-over") == "true":
            return decisions
        check_drawn(page)
        if decisions == 1 and shot:
            screenshot(page, shot)
        shown = page.get_attribute("#board", "data-frame")
        legal = board_cells(page, "legal")
        if legal and page.locator(f"#board .cell[data-cell='{legal[-1]}'] .side").count():
            assert page.locator("#off-board button").count() == 0  # no list of moves
            page.click(f"#board .cell[data-cell='{legal[-1]}'] .side >> nth=0")
        elif legal:
            page.click(f"#board .cell[data-cell='{legal[0]}']")
        else:  # no placement: the page offers the pass
            assert page.text_content("#off-board button") == "pass"
            page.click("#off-board button")
        decisions += 1
        page.wait_for_function(f"document.querySelector('#board').dataset.frame !== '{shown}'")


def replay_shown_record(page: Any) -> None:
    """Paste the finished game's record into Replay and step through it, every frame's
    board checked against the page's drawing."""
    page.wait_for_selector("#record-box:not([hidden])")
    record = json.loads(page.input_value("#record-text"))
    page.click("#tabs button[data-tab=replay]")
    page.click("#replay-form summary")
    page.fill("#replay-record", json.dumps(record))
    page.click("#replay-paste")
    last = len(record["actions"])
    page.wait_for_function(f"document.querySelector('#step-count').textContent === '0 / {last}'")
    for number in range(last + 1):
        assert page.get_attribute("#board", "data-frame") == str(number)
        check_drawn(page)
        page.keyboard.press("ArrowRight")


def set_rule(page: Any, form: str, name: str, value: str) -> None:
    page.fill(f"{form} input[name=param-{name}]", value)


def watch_greedy_against_random(page: Any) -> None:
    """Start the watch form's game, greedy against random at full speed, and wait for its
    end (the game and its rules already chosen)."""
    page.fill("#watch-form input[name=spec0]", "greedy")
    page.fill("#watch-form input[name=spec1]", "random")
    page.fill("#speed", "0")
    page.click("#watch-start")
    page.wait_for_selector("#board[data-over=true]")


def test_play_a_whole_game_against_random(page: Any) -> None:
    set_rule(page, "#play-form", "board_size", "5")
    page.fill("#play-form input[name=spec]", "random")
    page.fill("#speed", "0")
    page.click("#play-start")
    decisions, saw_odds = 0, False
    while True:
        page.wait_for_function(
            "document.querySelector('#board').dataset.over === 'true' || "
            "(document.querySelector('#status').textContent.startsWith('Your') && "
            "document.querySelectorAll('#board .cell.legal').length > 0)"
        )
        if page.get_attribute("#board", "data-over") == "true":
            break
        assert len(piece_cells(page, "p0")) == 1 and len(piece_cells(page, "p1")) == 1
        legal = board_cells(page, "legal")
        shown = page.get_attribute("#board", "data-frame")
        if "throw" in page.text_content("#status"):
            page.hover(f"#board .cell[data-cell='{legal[-1]}']")
            assert "lands" in page.text_content("#odds")
            saw_odds = saw_odds or page.locator("#board .cell small").count() > 0
            if decisions == 1:
                screenshot(page, "web-play.png")
        if decisions == 2:  # typed, after a typo that the page refuses with a message
            page.fill("#action-text", "9,9")
            page.click("#action-form button")
            page.wait_for_selector("#error:not([hidden])")
            assert "off the 5x5 board" in page.text_content("#error")
            page.fill("#action-text", f"{legal[0] // 5},{legal[0] % 5}")
            page.click("#action-form button")
        elif decisions % 2:  # by keyboard: the cursor starts on a legal cell
            page.focus("#board")
            page.keyboard.press("Enter")
        else:
            page.click(f"#board .cell[data-cell='{legal[0]}']")
        decisions += 1
        page.wait_for_function(f"document.querySelector('#board').dataset.frame !== '{shown}'")
    status = page.text_content("#status")
    assert status.startswith(("You win", "You lose", "Draw")), status
    page.wait_for_selector("#record-box:not([hidden])")  # the record comes after the end
    record = json.loads(page.input_value("#record-text"))  # the record, replayable
    assert record["seats"][0] == "you" and record["winner"] in (-1, 0, 1)
    page.click("#tabs button[data-tab=replay]")
    page.click("#replay-form summary")
    page.fill("#replay-record", json.dumps(record))
    page.click("#replay-paste")
    page.wait_for_selector("#step-count")
    last = len(record["actions"])
    page.wait_for_function(f"document.querySelector('#step-count').textContent === '0 / {last}'")
    assert decisions >= 2 and saw_odds


def test_play_othello_as_seat_1_and_replay_it(page: Any) -> None:
    page.select_option("#play-form .game-select", "othello")
    set_rule(page, "#play-form", "board_size", "4")
    page.select_option("#play-form select[name=seat]", "1")
    page.fill("#speed", "0")
    page.click("#play-start")
    assert play_as_person(page) >= 1
    assert page.text_content("#status").startswith(("You win", "You lose", "Draw"))
    assert len(piece_cells(page)) >= 4
    check_drawn(page)
    replay_shown_record(page)


def test_play_colosseum_with_the_forms_defaults_watch_and_replay(page: Any) -> None:
    """The start form's defaults start a game (the start -1: drawn by chance); the board
    is drawn with its walls, moves are made by clicking a cell's side."""
    page.select_option("#play-form .game-select", "colosseum")
    assert page.input_value("#play-form input[name=param-start]") == "-1"
    page.fill("#speed", "0")
    page.click("#play-start")
    assert play_as_person(page, "web-colosseum.png") >= 1
    assert page.text_content("#status").startswith(("You win", "You lose", "Draw"))
    check_drawn(page)
    assert "seat 0, zone " in page.text_content("#legend")
    replay_shown_record(page)
    page.click("#tabs button[data-tab=watch]")
    page.select_option("#watch-form .game-select", "colosseum")
    set_rule(page, "#watch-form", "board_size", "5")
    page.fill("#watch-form input[name=param-start]", "")  # blank: drawn by chance
    watch_greedy_against_random(page)
    check_drawn(page)
    page.click("#step-first")
    check_drawn(page)


def test_play_drop_a_game_of_columns_on_a_board_that_is_not_square(
    browser: Any, results_root: Path
) -> None:
    """``trap-serve --game PATH`` puts a game without a drawing of its own on the page: the
    generic board draws its 4x5 grid from ``describe`` at every decision, a click on any
    cell of a column is that column's action, and the odds of where a drop lands show
    before it (its record replays: test_web.py)."""
    with serving(results_root, "--game", DROP, "--allow-exec") as address, opened_page(
        browser, address
    ) as page:
        assert page.input_value("#play-form .game-select") == DROP
        page.fill("#play-form input[name=spec]", "tests.support.drop_game.RandomDropper")
        page.fill("#speed", "0")
        page.click("#play-start")
        page.wait_for_selector("#board .cell.legal")
        assert page.get_attribute("#board", "data-shape") == "4x5"
        assert board_cells(page, "legal") == list(range(20))  # every cell of every column
        page.hover("#board .cell[data-cell='19']")  # the bottom right: column 4
        assert page.text_content("#odds") == "drop 4 lands: 3 25.0%, 4 75.0%"
        page.click("#board .cell[data-cell='19']")
        page.wait_for_function("view.frames.length > 1")
        assert page.evaluate("view.frames[1].action") == "4"
        assert play_as_person(page) >= 1
        assert page.text_content("#status").startswith(("You win", "You lose", "Draw"))
        check_drawn(page)
        screenshot(page, "web-drop.png")


def test_watch_two_agents(page: Any) -> None:
    page.click("#tabs button[data-tab=watch]")
    set_rule(page, "#watch-form", "board_size", "5")
    watch_greedy_against_random(page)
    assert "wins" in page.text_content("#status") or "Draw" in page.text_content("#status")
    screenshot(page, "web-watch.png")
    last = int(page.get_attribute("#board", "data-frame"))
    page.click("#step-back")
    assert int(page.get_attribute("#board", "data-frame")) == last - 1
    page.click("#step-first")
    assert page.get_attribute("#board", "data-frame") == "0"


def test_replay_a_recorded_game_step_by_step(page: Any, results_root: Path) -> None:
    record = json.loads((results_root / "ladder" / "results.jsonl").read_text().splitlines()[2])
    expected = FrameBuilder("trap", {"board_size": 5})
    expected.follow(record["actions"])
    page.click("#tabs button[data-tab=replay]")
    page.select_option("#replay-form select[name=folder]", "ladder")
    page.wait_for_selector("#replay-index option[value='2']", state="attached")
    page.select_option("#replay-index", "2")
    page.click("#replay-load")
    page.wait_for_selector("#board .cell[data-piece=p0]")
    landed_seen = False
    for number, frame in enumerate(expected.frames):
        assert page.get_attribute("#board", "data-frame") == str(number)
        players = frame["position"]["players"]
        assert piece_cells(page, "p0") == [players[0]] and piece_cells(page, "p1") == [players[1]]
        assert piece_cells(page, "trap") == sorted(frame["position"]["traps"])
        if frame["actor"] == "chance":
            assert board_cells(page, "landed") == [frame["last_chance"][1]]
            landed_seen = True
            if (
                number > 6
                and SCREENSHOTS
                and not os.path.exists(Path(SCREENSHOTS) / "web-replay.png")
            ):
                screenshot(page, "web-replay.png")
        if number % 2:
            page.click("#step-forward")
        else:
            page.keyboard.press("ArrowRight")
    assert landed_seen
    page.keyboard.press("Home")
    assert page.get_attribute("#board", "data-frame") == "0"
    page.click("#replay-form summary")
    page.fill("#replay-record", json.dumps({**record, "winner": 1 - record["winner"]}))
    page.click("#replay-paste")
    page.wait_for_selector("#error:not([hidden])")
    assert "not a valid game" in page.text_content("#error")


def test_watch_othello(page: Any) -> None:
    page.click("#tabs button[data-tab=watch]")
    page.select_option("#watch-form .game-select", "othello")
    set_rule(page, "#watch-form", "board_size", "6")
    watch_greedy_against_random(page)
    discs = len(piece_cells(page, "dark")) + len(piece_cells(page, "light"))
    assert len(piece_cells(page)) == discs > 4
    check_drawn(page)
    assert len(board_cells(page, "last")) == 1
    page.click("#step-first")
    assert piece_cells(page) == [14, 15, 20, 21]  # the four centre discs
    check_drawn(page)


def test_a_bad_spec_gets_a_message(page: Any) -> None:
    page.fill("#play-form input[name=spec]", "grandmaster")
    page.click("#play-start")
    page.wait_for_selector("#error:not([hidden])")
    assert "unknown agent 'grandmaster'" in page.text_content("#error")
    page.fill("#play-form input[name=spec]", "exec:python3 agent.py")
    page.click("#play-start")
    page.wait_for_function("document.querySelector('#error').textContent.includes('--allow-exec')")


def test_tournament_standings(page: Any, results_root: Path) -> None:
    page.click("#tabs button[data-tab=tournament]")
    page.select_option("#tournament-form select[name=folder]", "ladder")
    page.click("#tournament-load")
    page.wait_for_selector("#standings tbody tr")
    assert page.text_content("#tournament-games") == "(4 games)"
    specs = page.eval_on_selector_all(
        "#standings tbody tr td:first-child", "c => c.map(x => x.textContent)"
    )
    assert sorted(specs) == ["greedy", "random"]
    screenshot(page, "web-tournament.png")
    with open(results_root / "ladder" / "results.jsonl", "a") as file:  # a run appends
        file.write(json.dumps(game_record(("random", "greedy"), 11)) + "\n")
    page.wait_for_function(
        "document.querySelector('#tournament-games').textContent === '(5 games)'"
    )


class _OtherSite(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<!doctype html><title>another site</title>")

    def log_message(self, *args: Any) -> None:
        pass


def test_a_request_from_another_origin_is_refused(browser: Any, server: str) -> None:
    other = http.server.HTTPServer(("127.0.0.1", 0), _OtherSite)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{other.server_address[1]}/")
        statuses = []
        page.on("response", lambda response: statuses.append((response.url, response.status)))
        script = """async (server) => {
            const tries = [
              fetch(server + "/api/games", {method: "POST", mode: "no-cors",
                headers: {"Content-Type": "text/plain"}, body: '{"specs": ["random", null]}'}),
              fetch(server + "/api/results"),
              fetch(server + "/api/results?folder=ladder", {mode: "no-cors"}),
            ];
            return (await Promise.allSettled(tries)).map(t => t.status);
        }"""
        outcomes = page.evaluate(script, server)
        assert outcomes[1] == "rejected"  # no CORS answer: the other site reads nothing
        page.wait_for_timeout(300)
        answered = {url.split("/api/")[1]: status for url, status in statuses if "/api/" in url}
        assert answered == {"games": 403, "results?folder=ladder": 403}, statuses
    finally:
        context.close()
        other.shutdown()


def test_the_ratings_tab_shows_the_cards(page: Any, results_root: Path) -> None:
    from agents.rating import load_ladder
    from agents.rating.estimate import describe_interval
    from tests.support.results_roots import card_of, write_card

    ladder = load_ladder("othello")
    card = card_of(ladder, "greedy", {ladder.rungs[1].spec: (50, 0, 50)})
    write_card(results_root / "rated", card)
    edited = dataclasses.replace(ladder, seed=1)  # not the shipped ladder any more
    write_card(results_root / "edited", card_of(edited, "edited", {edited.specs[1]: (1, 0, 1)}))
    page.click("#tabs button[data-tab=ratings]")
    page.click("#ratings-load")
    page.wait_for_selector("#ratings table tbody tr, #ratings table tr + tr")
    assert page.text_content("#ratings h2") == "othello ladder v1"
    cells = page.eval_on_selector_all(
        "#ratings table tr:last-child td", "c => c.map(x => x.textContent)"
    )
    rating = card["line"].split(": ")[1].removesuffix(" (100 games)")
    scale = describe_interval(card["scale_low"], card["scale_high"])
    assert cells[:4] == ["greedy", rating, scale, "100"]
    assert page.eval_on_selector_all("#ratings h2", "h => h.map(x => x.textContent)") == [
        "othello ladder v1", "Other ladders (not ranked)"]
    apart = page.eval_on_selector_all(
        "#ratings table:last-of-type tr:last-child td", "c => c.map(x => x.textContent)"
    )
    assert apart[:2] == ["othello", "edited"] and "not shipped" in apart[-1]

"""The server behind the page: a Starlette app whose JSON API plays, watches, replays and
summarizes games, and which serves the page itself (``static/``, no build step).

Safe by default, since any web page the user visits may send requests to 127.0.0.1:

- every ``/api/`` request must name an allowed ``Host`` (the loopback names and the
  address listened on: a page from elsewhere that rebinds its name to 127.0.0.1 is
  refused) and, when the browser sends them, a ``Sec-Fetch-Site`` that is not another
  site's and an ``Origin`` (without one, a ``Referer``) of this server's own scheme, host
  and port;
- requests that change anything are ``POST`` with a JSON body (a form on another site
  cannot send one without asking first, and the server never says yes) of at most
  :data:`MAX_BODY` bytes, refused before it is read when it says it is larger;
- heavy work (records checked and replayed, frames and standings built, bodies parsed)
  runs in at most :data:`HEAVY_THREADS` threads, never in the event loop, so that the
  server answers other requests meanwhile;
- agent specs are the games' built-in agents, unless the server was started with
  ``allow_exec`` (then ``exec:`` programs and dotted paths too);
- results files are read only under the results root.

Every refusal is a JSON ``{"error": message}`` that the page shows; no traceback leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import random
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.arena.match import DEFAULT_TIME_BUDGET
from agents.arena.plan import RunConfig
from agents.arena.record_rules import record_game
from agents.json_schema import parse_json
from agents.options import parse_spec
from agents.rating.cards import leaderboard
from agents.registry import AGENT_TABLE, agent_names
from agents.web.live import LiveGame, LiveGames, build_seats
from agents.web.seats import SeatFault
from agents.web.views import (
    MAX_BOARD_SIZE,
    read_records,
    record_frames,
    results_folders,
    results_path,
    standings,
)
from trap_env.agent import SpecError
from trap_env.game import played_params
from trap_env.games import game_names, get_game

__all__ = ["LOOPBACK_HOSTS", "MAX_BOARD_SIZE", "Settings", "check_spec", "create_app"]

STATIC = Path(__file__).with_name("static")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
MAX_TIME_BUDGET = 60.0
"""The most CPU seconds per turn the page gives an agent."""
MAX_BODY = 4 * 2**20
"""The largest request body read (a pasted record)."""
MAX_SPEC = 1000
"""The most characters of an agent spec (a program's command line included)."""
MAX_ACTION_TEXT = 40
"""The most characters of an action written as text (``d3``, ``2,3``, ``2,3,up``)."""
MAX_INDEX_DIGITS = 9
"""The most digits of a game's or a frame's number in a query."""
HEAVY_THREADS = 2
"""Threads that heavy work runs in at once (the machine's cores are the agents')."""
_DEFAULT_PORTS = {"http": 80, "https": 443}
T = TypeVar("T")


class Settings:
    """What the server was started with.

    Args:
        results_root: the folder under which results files may be read.
        allow_exec: whether ``exec:`` programs and dotted paths are accepted as agents.
        hosts: the ``host`` or ``host:port`` values the ``Host`` header may name.
        first_game: the game the page lists first and a start request that names none
            plays (``trap-serve``: Trap!, or its ``--game``); None: the games by name, and
            a start request names its game. A game's path (``"package.module:GAME"``) adds
            that game to the registered ones.

    Attributes:
        stopping: set when the server stops, so that the event streams end at once.
        heavy: the threads heavy work runs in, :data:`HEAVY_THREADS` at most.
    """

    def __init__(
        self,
        results_root: Path,
        allow_exec: bool,
        hosts: Iterable[str],
        first_game: str | None = None,
    ) -> None:
        self.results_root = results_root.resolve()
        self.first_game = first_game
        self.allow_exec = allow_exec
        self.hosts = set(hosts)
        self.stopping = threading.Event()
        self.heavy = anyio.CapacityLimiter(HEAVY_THREADS)

    @property
    def game_paths(self) -> tuple[str, ...]:
        """The game given by its path, if any: a record may name it (it is imported already)."""
        first = self.first_game
        return () if first is None or first in game_names() else (first,)

    @property
    def games(self) -> list[str]:
        """The games the page offers, ``first_game`` first."""
        names = [*game_names(), *self.game_paths]
        return sorted(names, key=lambda name: name != self.first_game)

    @property
    def file_paths(self) -> bool | tuple[str, ...]:
        """The game paths a results file's records may name: any with ``allow_exec``."""
        return True if self.allow_exec else self.game_paths


class ApiError(Exception):
    """A request refused, with the message the page shows and the HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def allowed_hosts(host: str, port: int, extra: Iterable[str] = ()) -> list[str]:
    """The ``Host`` values a server listening on ``host:port`` answers."""
    names = {*LOOPBACK_HOSTS, *extra}
    if host not in ("0.0.0.0", "::", ""):
        names.add(f"[{host}]" if ":" in host else host)
    return sorted(f"{name}:{port}" for name in names) + sorted(names)


def check_spec(spec: object, game: str, allow_exec: bool) -> str:
    """``spec`` if the server may build it: a built-in agent of ``game``, or anything when
    ``allow_exec``.

    Raises:
        ApiError: naming the agents there are, or that ``--allow-exec`` is needed.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ApiError("give an agent spec, such as 'random' or 'expectiminimax:time_limit=1.0'")
    if len(spec) > MAX_SPEC:
        raise ApiError(f"an agent spec has at most {MAX_SPEC} characters, got {len(spec)}")
    try:
        name, _ = parse_spec(spec)
    except SpecError as error:
        raise ApiError(str(error)) from None
    if allow_exec or name in AGENT_TABLE.get(game, {}):
        return spec.strip()
    known = ", ".join(n for n in agent_names(game) if n in AGENT_TABLE.get(game, {}))
    if name == "exec" or "." in name:
        raise ApiError(
            f"{spec!r}: programs and dotted paths are refused unless the server is started "
            f"with --allow-exec; the built-in agents of {game}: {known}"
        )
    raise ApiError(f"unknown agent {name!r}; the built-in agents of {game}: {known}")


def create_app(settings: Settings) -> Starlette:
    """The app: the page at ``/``, its files at ``/static``, the API at ``/api``."""
    games = LiveGames()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        games.close_all()

    routes = [
        Route("/", lambda request: FileResponse(STATIC / "index.html")),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        Route("/api/info", _api(settings, lambda request: _info(settings))),
        Route("/api/games", _api(settings, lambda r: _start(r, settings, games)), methods=["POST"]),
        Route("/api/games/{id}", _api(settings, lambda r: _snapshot(r, settings, games))),
        Route("/api/games/{id}/events", _api(settings, lambda r: _events(r, games, settings))),
        Route(
            "/api/games/{id}/action",
            _api(settings, lambda r: _act(r, settings, games)),
            methods=["POST"],
        ),
        Route(
            "/api/games/{id}/close", _api(settings, lambda r: _close(r, games)), methods=["POST"]
        ),
        Route("/api/replay", _api(settings, lambda r: _replay(r, settings)), methods=["POST"]),
        Route("/api/results", _api(settings, lambda r: _results(r, settings))),
        Route("/api/results/game", _api(settings, lambda r: _result_game(r, settings))),
        Route("/api/tournament", _api(settings, lambda r: _tournament(r, settings))),
        Route("/api/ratings", _api(settings, lambda r: _ratings(settings))),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


Handler = Callable[[Request], Any]
"""An endpoint's logic: a dict, a response, or a coroutine of one."""


def _api(settings: Settings, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """``handler`` behind the header checks, its dict answered as JSON, its errors as
    ``{"error": message}``."""

    async def endpoint(request: Request) -> Response:
        try:
            _check_headers(request, settings)
            answer = handler(request)
            if asyncio.iscoroutine(answer):
                answer = await answer
        except ApiError as error:
            return JSONResponse({"error": str(error)}, status_code=error.status)
        except Exception as error:  # a bug of ours: a message, never a traceback
            message = f"the server failed: {type(error).__name__}: {error}"
            return JSONResponse({"error": message}, status_code=500)
        return answer if isinstance(answer, Response) else JSONResponse(answer)

    return endpoint


def _check_headers(request: Request, settings: Settings) -> None:
    """Refuse a request from another site, or to a name this server does not answer."""
    host = request.headers.get("host", "")
    if host not in settings.hosts:
        raise ApiError(f"refused: the Host {host!r:.60} is not this server's", 403)
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site not in (None, "same-origin", "none"):
        raise ApiError("refused: a request from another site", 403)
    origin = request.headers.get("origin")
    if origin is None and fetch_site is None:
        origin = request.headers.get("referer")
    own = f"{request.url.scheme}://{host}"
    if origin is not None and _origin_of(origin) != _origin_of(own):
        raise ApiError(f"refused: a request from another origin ({origin:.60}), not {own}", 403)
    if request.method == "POST" and request.headers.get("content-type") != "application/json":
        raise ApiError("a POST's body must be JSON (Content-Type: application/json)", 415)


def _origin_of(url: str) -> tuple[str, str | None, int | None] | None:
    """The scheme, host and port (the default one where none is written) of ``url``; None
    for a URL that has none (``null``, a path)."""
    parts = urlsplit(url)
    try:
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
    except ValueError:  # a port that is not a number from 0 to 65535
        return None
    return (parts.scheme, parts.hostname, port) if parts.hostname else None


async def _in_thread(settings: Settings, function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` in one of the heavy-work threads (the event loop serves on)."""
    return await anyio.to_thread.run_sync(function, *args, limiter=settings.heavy)


async def _read_body(request: Request) -> bytes:
    """The body, refused (413) past :data:`MAX_BODY` bytes: at once when its
    ``Content-Length`` says so, else as soon as that many have come."""
    too_large = ApiError(f"the request is larger than {MAX_BODY // 2**20} MiB", 413)
    declared = request.headers.get("content-length", "")
    if (
        declared.isascii()
        and declared.isdigit()
        and (len(declared) > len(str(MAX_BODY)) or int(declared) > MAX_BODY)
    ):
        raise too_large
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


def _parse_json(text: str | bytes, what: str) -> Any:
    """``text`` as JSON, read strictly as the package's files are (:func:`parse_json`).

    Raises:
        ApiError: naming ``what`` and what is wrong with it (not JSON, nested too deep, a
            number too long).
    """
    try:
        return parse_json(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)
    except ValueError as error:
        raise ApiError(f"{what}: {error}") from None


def _object_of(raw: bytes) -> dict[str, Any]:
    body = _parse_json(raw or b"{}", "the request")
    if not isinstance(body, dict):
        raise ApiError("the request must be a JSON object")
    return body


async def _body(request: Request, settings: Settings) -> dict[str, Any]:
    """The request's JSON object, read and parsed (in a heavy-work thread)."""
    return await _in_thread(settings, _object_of, await _read_body(request))


def _info(settings: Settings) -> dict[str, Any]:
    """The games, their built-in agents and default rules, and whether exec is allowed."""
    described = []
    for name in settings.games:
        game = get_game(name)
        params = played_params(game)
        agents = [n for n in agent_names(name) if n in AGENT_TABLE.get(name, {})]
        described.append({"name": name, "title": game.title, "has_chance": game.has_chance,
                          "params": params, "agents": agents})  # fmt: skip
    return {"games": described, "allow_exec": settings.allow_exec,
            "time_budget": DEFAULT_TIME_BUDGET}  # fmt: skip


# --- Live games ---------------------------------------------------------------------------


async def _start(request: Request, settings: Settings, games: LiveGames) -> dict[str, Any]:
    """Start a game: ``specs`` by seat, None for the person's seat (Play) or none (Watch)."""
    body = await _body(request, settings)
    config = _run_config(body, settings)
    specs = body.get("specs")
    if not isinstance(specs, list) or len(specs) != 2 or specs.count(None) > 1:
        raise ApiError("specs must be two agent specs by seat, or one and null for your seat")
    checked = [None if s is None else check_spec(s, config.game_name, settings.allow_exec)
               for s in specs]  # fmt: skip
    seed = body.get("seed")
    if seed is None:
        seed = random.getrandbits(63)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ApiError(f"seed must be a non-negative integer, got {seed!r:.30}")
    try:
        seats = await asyncio.to_thread(build_seats, checked, config, seed)
    except SpecError as error:
        raise ApiError(str(error)) from None
    except SeatFault as error:  # the agent's worker died or hung while building it
        raise ApiError(f"the agent could not start: {error}") from None
    labels = [spec or "you" for spec in checked]
    game = LiveGame(seats, labels, config, seed)
    try:
        games.add(game)
    except RuntimeError as error:
        raise ApiError(str(error), 503) from None
    return {"id": game.id, "seats": labels, "seed": seed, "person": game.person_seat()}


def _run_config(body: dict[str, Any], settings: Settings) -> RunConfig:
    """The game (the first when it names none), rules and time budget of a start request."""
    name = body.get("game", settings.first_game)
    if name not in settings.games:
        known = ", ".join([*game_names(), *settings.game_paths])
        raise ApiError(f"game must be one of {known}, got {name!r:.40}")
    params = body.get("params") or {}
    if not isinstance(params, dict):
        raise ApiError("params must be an object of rule parameters")
    size = params.get("board_size")
    if size is not None and (not isinstance(size, int) or not 3 <= size <= MAX_BOARD_SIZE):
        raise ApiError(
            f"board_size must be an integer from 3 to {MAX_BOARD_SIZE}, got {size!r:.20}"
        )
    budget = body.get("time_budget", DEFAULT_TIME_BUDGET)
    if (
        isinstance(budget, bool)
        or not isinstance(budget, int | float)
        or not (0 < budget <= MAX_TIME_BUDGET and math.isfinite(budget))
    ):
        raise ApiError(f"time_budget must be seconds in (0, {MAX_TIME_BUDGET}], got {budget!r:.20}")
    try:
        return RunConfig(game_name=name, params=params or None, time_budget=float(budget),
                         setup_seconds=60.0)  # fmt: skip
    except (TypeError, ValueError) as error:
        raise ApiError(f"the rules: {error}") from None


def _game(request: Request, games: LiveGames) -> LiveGame:
    try:
        return games.get(request.path_params["id"])
    except KeyError:
        raise ApiError(
            "no such game (it ended and was dropped, or the server restarted)", 404
        ) from None


def _query_number(request: Request, name: str, what: str) -> int:
    """The query's ``name`` (0 if absent): ASCII digits, at most :data:`MAX_INDEX_DIGITS`."""
    text = request.query_params.get(name, "0")
    if not (text.isascii() and text.isdigit()) or len(text) > MAX_INDEX_DIGITS:
        raise ApiError(
            f"{name} must be {what}, at most {MAX_INDEX_DIGITS} digits 0-9, got {text!r:.20}"
        )
    return int(text)


def _start_index(request: Request) -> int:
    return _query_number(request, "from", "a frame index")


async def _snapshot(request: Request, settings: Settings, games: LiveGames) -> Response:
    """The frames from ``from``, what is asked of the person, and the record once over
    (rendered in a heavy-work thread: a long game's frames are megabytes)."""
    frames, waiting, record = _game(request, games).snapshot(_start_index(request))
    answer = {"frames": frames, "waiting": waiting, "record": record}
    return await _in_thread(settings, JSONResponse, answer)


def _events(request: Request, games: LiveGames, settings: Settings) -> StreamingResponse:
    """Server-sent events: a snapshot each time the game moves on; ``end`` once it is over."""
    game, start = _game(request, games), _start_index(request)

    async def stream() -> AsyncIterator[str]:
        sent, last_key = start, None
        while not settings.stopping.is_set() and not await request.is_disconnected():
            frames, waiting, record = game.snapshot(sent)
            key = (sent + len(frames), json.dumps(waiting), record is None)
            if key != last_key:
                last_key, sent = key, sent + len(frames)
                message = {"frames": frames, "waiting": waiting, "record": record}
                yield f"data: {await _in_thread(settings, json.dumps, message)}\n\n"
            if record is not None:
                yield "event: end\ndata: {}\n\n"
                return
            await asyncio.sleep(0.05)

    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)


async def _act(request: Request, settings: Settings, games: LiveGames) -> dict[str, Any]:
    """The person's choice: an ``action`` (an integer) or its ``text`` in the game's form."""
    game, body = _game(request, games), await _body(request, settings)
    action = str(body["text"]) if "text" in body else body.get("action")
    if isinstance(action, bool) or not isinstance(action, int | str):
        raise ApiError(f"action must be an integer, got {action!r:.20}")
    if isinstance(action, str) and len(action) > MAX_ACTION_TEXT:
        raise ApiError(f"an action's text has at most {MAX_ACTION_TEXT} characters: {action:.20}")
    try:
        game.choose(action)
    except ValueError as error:
        raise ApiError(str(error), 409) from None
    return {"ok": True}


def _close(request: Request, games: LiveGames) -> dict[str, Any]:
    games.close(request.path_params["id"])
    return {"ok": True}


# --- Records and results files ------------------------------------------------------------


async def _replay(request: Request, settings: Settings) -> Response:
    """A pasted record, checked as ``trap-play --replay`` checks it, as frames."""
    body = await _read_body(request)
    return await _in_thread(settings, _pasted_frames, body, settings.game_paths)


def _pasted_frames(raw: bytes, paths: tuple[str, ...]) -> Response:
    """A pasted record's frames; it names a registered game, or one of ``paths`` (the
    page's own game, imported already)."""
    record = _object_of(raw).get("record")
    if isinstance(record, str):
        record = _parse_json(record, "the record")
    return _frames_of(record, "the record", paths)


def _frames_of(record: Any, what: str, allow_paths: bool | tuple[str, ...]) -> Response:
    """The frames of ``record`` as a response, rendered here (in a heavy-work thread)."""
    try:
        return JSONResponse(record_frames(record, allow_paths))
    except ValueError as error:
        raise ApiError(f"{what} is not a valid game: {error}") from None


def _results_file(request: Request, settings: Settings) -> Path:
    folder = request.query_params.get("folder", "")
    try:
        return results_path(settings.results_root, folder)
    except ValueError as error:
        raise ApiError(str(error), 404) from None


def _records(path: Path, allow_paths: bool | tuple[str, ...]) -> list[dict[str, Any]]:
    try:
        return read_records(path, allow_paths)
    except ValueError as error:
        raise ApiError(str(error)) from None


async def _results(request: Request, settings: Settings) -> dict[str, Any]:
    """The results folders under the root, or with ``folder`` the games of its file."""
    if "folder" not in request.query_params:
        return await _in_thread(settings, results_folders, settings.results_root)
    records = await _in_thread(settings, _records, _results_file(request, settings),
                               settings.file_paths)  # fmt: skip
    games = [{"index": i, "seats": r["seats"], "winner": r["winner"], "reason": r["reason"],
              "turns": r["turns"], "game": record_game(r)}
             for i, r in enumerate(records)]  # fmt: skip
    return {"games": games}


async def _result_game(request: Request, settings: Settings) -> Response:
    """Game ``index`` of a folder's results file, checked, as frames."""
    path = _results_file(request, settings)
    index = _query_number(request, "index", "a game's number from 0")
    records = await _in_thread(settings, _records, path, settings.file_paths)
    if index >= len(records):
        raise ApiError(f"{path.name} holds {len(records)} games; no game {index}", 404)
    return await _in_thread(
        settings, _frames_of, records[index], f"game {index}", settings.file_paths
    )


async def _tournament(request: Request, settings: Settings) -> dict[str, Any]:
    """Standings, win rates with intervals and Elo of a folder's results, as they are now,
    each game's apart."""
    path = _results_file(request, settings)
    records = await _in_thread(settings, _records, path, settings.file_paths)
    return await _in_thread(settings, standings, records)


async def _ratings(settings: Settings) -> dict[str, Any]:
    """The cards under the root ranked per shipped ladder, those of other ladders apart,
    and the notes (:mod:`agents.rating.cards`)."""
    board = await _in_thread(settings, leaderboard, settings.results_root)
    return {
        "ladders": [asdict(ladder) for ladder in board.boards.values()],
        "apart": [asdict(row) for row in board.apart],
        "notes": board.notes,
    }

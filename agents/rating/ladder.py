"""The ladders: per game, fixed opponents with published ratings on one Elo scale.

A ladder is data (``agents/rating/ladders/<game>-<version>.json``): the game's rules, the
rungs (agent specs that play without a clock, at a fixed depth or number of simulations, so
that they play alike on any machine) with their ratings, and how those ratings were made:
one round robin of the rungs (:func:`calibration_tasks`), fitted by maximum likelihood on the
logistic Elo scale and anchored by giving ``random`` the rating :data:`ANCHOR_RATING`
(:func:`fit_ratings`). A change of code that alters a rung's play calls for a new version
(``tests/agents/rating/test_rating.py`` holds each rung's moves on a few positions).

A ladder file is data, read by one reader (:func:`load_ladder`) that checks every field
before any game: the shape against ``ladder.schema.json`` (shipped beside this module), then
what a schema cannot say. Its rungs are agents of the game by name (built-in or
registered): reading a file never runs a program (``exec:``) or imports a dotted path it
names, unless the caller allows that same spec (one the user gave too).

Example:
    >>> ladder = load_ladder("othello")
    >>> ladder.name, ladder.rungs[0].spec, ladder.rungs[0].rating
    ('othello ladder v1', 'random', 1000.0)
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import stat
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agents.arena.plan import GameTask, RunConfig, program_limits, round_robin
from agents.arena.stats import elo_ratings
from agents.options import EXEC, parse_spec
from agents.registry import agent_names, make_agent
from trap_env.agent import check_supports, close_agent, time_limit_of
from trap_env.game import played_params
from trap_env.games import game_names, get_game

__all__ = [
    "ANCHOR",
    "ANCHOR_RATING",
    "LADDER_VERSION",
    "MAX_LADDER_BYTES",
    "Calibration",
    "Ladder",
    "Rung",
    "calibration_tasks",
    "fit_ratings",
    "ladder_games",
    "ladder_schema",
    "load_ladder",
]

LADDER_VERSION = "v1"
"""The ladders' version: cards of different versions are not compared."""

ANCHOR = "random"
ANCHOR_RATING = 1000.0
"""The scale's anchor: the uniformly random player is rated 1000 in every game."""

LADDERS = Path(__file__).resolve().parent / "ladders"
SCHEMA = Path(__file__).resolve().parent / "ladder.schema.json"

MAX_LADDER_BYTES = 1 << 20
"""The largest ladder file read (a ladder of the most rungs takes a few kilobytes)."""


@dataclass(frozen=True)
class Rung:
    """One opponent of a ladder.

    Attributes:
        spec: the agent spec (no clock: ``time_limit=none`` with a fixed depth or budget).
        rating: its published rating.
    """

    spec: str
    rating: float


@dataclass(frozen=True)
class Calibration:
    """How a ladder's ratings were made: a round robin of its rungs.

    Attributes:
        games_per_pairing: games each pair of rungs played (openings from both seats).
        seed: the round robin's base seed.
        num_games: games behind the ratings.
        command: the command that plays it again.
        date: when it was played (ISO date).
    """

    games_per_pairing: int
    seed: int
    num_games: int = 0
    command: str = ""
    date: str = ""


@dataclass(frozen=True)
class Ladder:
    """A game's ladder.

    Attributes:
        game: the game's name in :mod:`trap_env.games`.
        version: :data:`LADDER_VERSION` for the ladders shipped now.
        params: every rule parameter of the game it is played by.
        opening_plies: random legal actions that open each game (drawn from its seed and
            played from both seats), so that deterministic rungs play different games.
        seed: the base seed of the games a policy plays against the ladder.
        rungs: the opponents, in the order of the calibration's round robin (whose
            seeds depend on it), which is not their order of strength.
        calibration: how the ratings were made.
    """

    game: str
    version: str
    params: dict[str, Any]
    opening_plies: int
    seed: int
    rungs: tuple[Rung, ...]
    calibration: Calibration = field(default_factory=lambda: Calibration(16, 1))

    @property
    def name(self) -> str:
        """``"othello ladder v1"``: how a rating names its scale."""
        return f"{self.game} ladder {self.version}"

    @property
    def specs(self) -> list[str]:
        """The rungs' specs, in their order."""
        return [rung.spec for rung in self.rungs]

    @property
    def identity(self) -> str:
        """The SHA-256 of the ladder's canonical content (game, version, rules, openings,
        seed, rungs with their ratings, as sorted-key JSON): what a card records, so that a
        rating on an edited ladder never passes for one on the shipped ladder, while moving
        or reformatting the file keeps it."""
        content = {
            "game": self.game,
            "version": self.version,
            "params": game_params(self.game, self.params),
            "opening_plies": self.opening_plies,
            "seed": self.seed,
            "rungs": [[rung.spec, rung.rating] for rung in self.rungs],
        }
        canonical = json.dumps(content, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def run_config(self, **options: Any) -> RunConfig:
        """The :class:`RunConfig` of games on this ladder: its rules and openings, no clock
        (``options``, such as ``workers`` or a ``time_budget`` cap, are passed on)."""
        options.setdefault("time_budget", None)
        return RunConfig(
            game_name=self.game, params=self.params, opening_plies=self.opening_plies, **options
        )

    def with_ratings(self, ratings: dict[str, float], calibration: Calibration) -> Ladder:
        """This ladder with the rungs rated by ``ratings``."""
        rungs = tuple(Rung(spec, round(ratings[spec], 1)) for spec in self.specs)
        return Ladder(self.game, self.version, self.params, self.opening_plies, self.seed,
                      rungs, calibration)

    def to_json(self) -> str:
        """The ladder as the JSON its file holds."""
        return json.dumps(asdict(self), indent=2) + "\n"


def ladder_games() -> list[str]:
    """The games that have a ladder of the current version."""
    return [game for game in game_names() if (LADDERS / f"{game}-{LADDER_VERSION}.json").exists()]


def load_ladder(
    game: str, path: str | Path | None = None, *, allowed_specs: Collection[str] = ()
) -> Ladder:
    """The ladder of ``game`` (:data:`LADDER_VERSION`), or the one in the file ``path``,
    every field checked before any game is played.

    The file is a regular file of at most :data:`MAX_LADDER_BYTES` of UTF-8 JSON (no NaN
    or infinity, no key given twice) whose shape :func:`ladder_schema` gives; the ladder
    is of ``game``, with rules the game takes; its rungs' specs are distinct, ``random``
    (the anchor) among them, and each is an agent of ``game`` by name that, built as a
    run builds it, plays these rules without a clock (:func:`trap_env.agent.time_limit_of`).

    Args:
        game: the game the ladder is for.
        path: a ladder file; None for the game's shipped ladder.
        allowed_specs: rungs allowed beyond the game's agent names: specs the user gave
            (a program, ``exec:``, or a dotted path, which building runs or imports).

    Raises:
        ValueError: for a game without a ladder, or a file that is not a ladder of
            ``game``; one line naming the file, the field and what is allowed.
    """
    if path is None:
        if game not in ladder_games():
            raise ValueError(
                f"no {LADDER_VERSION} ladder for game {game!r}; ladders: "
                f"{', '.join(ladder_games())}"
            )
        return _shipped_ladder(game)
    return _read_ladder(game, Path(path), allowed_specs)


@functools.lru_cache(maxsize=64)  # bounded: a game given by path may be any name
def _shipped_ladder(game: str) -> Ladder:
    """The shipped ladder of ``game``, read once (a leaderboard checks each card against it)."""
    return _read_ladder(game, LADDERS / f"{game}-{LADDER_VERSION}.json", ())


def _read_ladder(game: str, path: Path, allowed_specs: Collection[str]) -> Ladder:
    """The ladder of ``game`` in ``path`` (see :func:`load_ladder`)."""
    try:
        data = _read_json(path)
        _check_value(data, _schema(), "")
        ladder = _ladder_of(data)
        if ladder.game != game:
            raise ValueError(f"game is {ladder.game!r}: the ladder of another game than {game!r}")
        _check_content(ladder, allowed_specs)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    return ladder


def ladder_schema() -> dict[str, Any]:
    """The JSON Schema of a ladder file (``ladder.schema.json``, draft 2020-12).

    :func:`load_ladder` checks a file against it with this module's own reading of the
    keywords the schema uses, in which an integer is a JSON integer (never ``16.0``).
    """
    schema: dict[str, Any] = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return schema


_schema = functools.cache(ladder_schema)
"""The schema, read once, for :func:`load_ladder` (the public function gives a copy to edit)."""


_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
"""Open without waiting for a writer (where the system can: a FIFO would block)."""


def _read_json(path: Path) -> Any:
    """The JSON value in the file ``path``.

    Raises:
        ValueError: for a file that cannot be read, is not a regular file (a FIFO would
            block), holds more than :data:`MAX_LADDER_BYTES`, or is not UTF-8 JSON.
    """
    try:  # non-blocking: a FIFO opens at once, and is refused as no regular file below
        fd = os.open(path, os.O_RDONLY | _NONBLOCK)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ValueError("not a regular file; a ladder is a JSON file")
            with os.fdopen(fd, "rb", closefd=False) as file:
                content = file.read(MAX_LADDER_BYTES + 1)
        finally:
            os.close(fd)
    except OSError as error:
        raise ValueError(f"cannot be read: {error.strerror or error}") from None
    if len(content) > MAX_LADDER_BYTES:
        raise ValueError(f"larger than {MAX_LADDER_BYTES} bytes, the most a ladder file holds")
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"not UTF-8 text: {error}") from None
    try:
        return json.loads(
            text, object_pairs_hook=_object, parse_constant=_no_constant, parse_float=_finite
        )
    except RecursionError:
        raise ValueError("not a ladder: its JSON is nested too deeply") from None
    except ValueError as error:
        raise ValueError(f"not JSON: {error}") from None


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused if a key is given twice (JSON would keep the last silently)."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"the key {key[:80]!r} is given twice in an object")
        seen.add(key)
    return dict(pairs)


def _no_constant(name: str) -> float:
    """Refuse ``NaN``, ``Infinity`` and ``-Infinity``, which Python's json would take."""
    raise ValueError(f"{name} is not a JSON number; every number is finite")


def _finite(text: str) -> float:
    """A JSON number with a fraction or exponent, refused if too large for a float."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large for a number")
    return value


# --- The schema's keywords, read as JSON Schema does (integers are JSON integers) -----------

_TYPES: dict[str, tuple[str, Any]] = {
    "object": ("an object", dict),
    "array": ("a list", list),
    "string": ("a string", str),
    "integer": ("an integer", int),
    "number": ("a number", (int, float)),
    "boolean": ("a boolean", bool),
    "null": ("null", type(None)),
}
"""A schema type: how a message names it, and the Python type json gives it."""


def _is_type(value: object, kind: str) -> bool:
    """Whether ``value`` is of the schema type ``kind`` (a bool is no number)."""
    return isinstance(value, _TYPES[kind][1]) and (kind == "boolean" or not isinstance(value, bool))


def _check_value(value: Any, schema: dict[str, Any], where: str) -> None:
    """Refuse ``value`` if it breaks ``schema`` at the field ``where`` ("" for the file).

    Raises:
        ValueError: naming the field, what it must be and what it is.
    """
    kinds = schema.get("type", [])
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if kinds and not any(_is_type(value, kind) for kind in kinds):
        _refuse(value, schema, where)
    if isinstance(value, dict):
        _check_object(value, schema, where)
    elif isinstance(value, list):
        if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", math.inf):
            raise ValueError(f"{where} must be {_allowed(schema)}, got {_shown(value)}")
        for index, item in enumerate(value):
            _check_value(item, schema.get("items", {}), f"{where}[{index}]")
    elif isinstance(value, str):
        pattern = schema.get("pattern")
        if not schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", math.inf) or (
            pattern is not None and not _matches(pattern, value)
        ):
            _refuse(value, schema, where)
    elif _is_type(value, "number") and not (
        schema.get("minimum", -math.inf) <= value <= schema.get("maximum", math.inf)
        and ("multipleOf" not in schema or value % schema["multipleOf"] == 0)
    ):
        _refuse(value, schema, where)


def _check_object(value: dict[str, Any], schema: dict[str, Any], where: str) -> None:
    """Refuse an object without a required key, with a key the schema does not allow, or
    with a field that breaks its schema."""
    name = where or "the ladder"
    properties: dict[str, Any] = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    missing = [key for key in schema.get("required", []) if key not in value]
    if missing:
        raise ValueError(f"{name} has no {missing[0]!r}; it needs {', '.join(schema['required'])}")
    if len(value) > schema.get("maxProperties", math.inf):
        raise ValueError(f"{name} has {len(value)} keys, at most {schema['maxProperties']}")
    for key, item in value.items():
        field_name = f"{where}.{key}" if where else key
        if key in properties:
            _check_value(item, properties[key], field_name)
        elif extra is False:
            raise ValueError(
                f"{name} has an unknown key {key[:80]!r}; its keys: {', '.join(properties)}"
            )
        elif isinstance(extra, dict):
            _check_value(item, extra, field_name)


def _matches(pattern: str, text: str) -> bool:
    """Whether ``text`` matches a pattern anchored at both ends (``^...$``), as JSON Schema
    does (Python's ``$`` alone would also match before a final newline)."""
    return re.fullmatch(pattern.removeprefix("^").removesuffix("$"), text) is not None


def _refuse(value: Any, schema: dict[str, Any], where: str) -> None:
    """Raise the ValueError that ``value`` at ``where`` is not what ``schema`` allows."""
    raise ValueError(f"{where or 'the ladder'} must be {_allowed(schema)}, got {_shown(value)}")


def _shown(value: Any) -> str:
    """``value`` in a message: as JSON, cut to 80 characters; a list or an object by its
    size (what it holds may be nested too deep to write)."""
    if isinstance(value, list | dict) and value:
        return f"{_TYPES['array' if isinstance(value, list) else 'object'][0]} of {len(value)}"
    shown = json.dumps(value)
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _allowed(schema: dict[str, Any]) -> str:
    """What ``schema`` allows, in words: ``"an integer from 2 to 1000, a multiple of 2"``."""
    kinds = schema.get("type", [])
    words = [_kind_allowed(kind, schema) for kind in ([kinds] if isinstance(kinds, str) else kinds)]
    return " or ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)


def _kind_allowed(kind: str, schema: dict[str, Any]) -> str:
    """What ``schema`` allows of the type ``kind``, in words."""
    text = _TYPES[kind][0]
    bounds = {
        "array": ("minItems", "maxItems", " items"),
        "string": ("minLength", "maxLength", " characters"),
        "integer": ("minimum", "maximum", ""),
        "number": ("minimum", "maximum", ""),
    }.get(kind)
    if bounds is None:
        return text
    low, high = schema.get(bounds[0]), schema.get(bounds[1])
    if low is not None and high is not None:
        text += f" of {low} to {high}{bounds[2]}" if bounds[2] else f" from {low} to {high}"
    elif low is not None:
        text += f" of at least {low}{bounds[2]}" if bounds[2] else f" >= {low}"
    elif high is not None:
        text += f" of at most {high}{bounds[2]}" if bounds[2] else f" <= {high}"
    if kind == "string" and "pattern" in schema:
        text += f" matching {schema['pattern']}"
    if "multipleOf" in schema and kind in ("integer", "number"):
        text += f", a multiple of {schema['multipleOf']}"
    return text


# --- What a schema cannot say ---------------------------------------------------------------


def _ladder_of(data: dict[str, Any]) -> Ladder:
    """The ladder that checked ``data`` holds (ratings as floats, as its file writes them)."""
    fields = {key: data[key] for key in ("game", "version", "params", "opening_plies", "seed")}
    return Ladder(
        **fields,
        rungs=tuple(Rung(rung["spec"], float(rung["rating"])) for rung in data["rungs"]),
        calibration=Calibration(**data["calibration"]),
    )


def _check_content(ladder: Ladder, allowed_specs: Collection[str]) -> None:
    """Refuse rules the game does not take, and rungs that are not distinct agents of the
    game, playing these rules without a clock, with ``random`` among them.

    Raises:
        ValueError: naming the field and what is allowed.
    """
    try:
        game_params(ladder.game, ladder.params)
    except ValueError as error:
        raise ValueError(f"params: {error}") from None
    config = ladder.run_config()  # its own checks: the opening plies
    seen: set[str] = set()
    for index, spec in enumerate(ladder.specs):
        if spec in seen:
            raise ValueError(f"rungs[{index}] {spec!r} is there twice; each rung is another spec")
        seen.add(spec)
    if ANCHOR not in seen:
        raise ValueError(
            f"rungs has no {ANCHOR!r}, the anchor of the scale (rated {ANCHOR_RATING:g})"
        )
    for index, spec in enumerate(ladder.specs):
        try:
            _check_rung(spec, config, allowed_specs)
        except ValueError as error:
            raise ValueError(f"rungs[{index}] {spec!r}: {error}") from None


def _check_rung(spec: str, config: RunConfig, allowed_specs: Collection[str]) -> None:
    """Refuse a rung that names no agent of the game (unless allowed), or whose agent, built
    as a run builds it, cannot play the rules or plays by a clock.

    Raises:
        ValueError: saying which, and what a rung is.
    """
    game = config.game_name
    names = [name for name in agent_names(game) if name != EXEC]
    if spec not in allowed_specs and parse_spec(spec)[0] not in names:
        raise ValueError(
            f"names no agent of {game!r} ({', '.join(names)}); a program (exec:) or a dotted "
            "path, which reading a file may not run or import, is a rung only if given on "
            "the command line too"
        )
    agent = make_agent(spec, game=game, seed=0, **program_limits(spec, config))
    try:
        for rules in config.games:
            check_supports(agent, rules)
        limit = time_limit_of(agent)
    finally:
        close_agent(agent)
    if limit is not None:
        raise ValueError(
            f"plays by a clock ({limit:g} s a turn), so its moves depend on the machine; a "
            "rung plays without one (time_limit=none with a depth or a number of simulations)"
        )


def calibration_tasks(ladder: Ladder) -> list[GameTask]:
    """The round robin that rates the rungs: every pair, openings from both seats."""
    calibration = ladder.calibration
    return round_robin(ladder.specs, calibration.games_per_pairing, calibration.seed,
                       paired_seeds=True)


def fit_ratings(records: Sequence[dict[str, Any]]) -> dict[str, float]:
    """The rungs' ratings from the round robin's games, with ``random`` at the anchor.

    Bradley-Terry by maximum likelihood (:func:`agents.arena.stats.elo_ratings`, a virtual
    draw per pairing keeping a rung that won every game finite).

    Raises:
        ValueError: if ``random`` played no game.
    """
    ratings = elo_ratings(records)
    if ANCHOR not in ratings:
        raise ValueError(f"the anchor {ANCHOR!r} played no game")
    shift = ANCHOR_RATING - ratings[ANCHOR]
    return {spec: rating + shift for spec, rating in ratings.items()}


def game_params(game: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every rule parameter of ``game`` played with ``params`` (its defaults fill the rest)."""
    return played_params(get_game(game), params)

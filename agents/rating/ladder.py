"""The ladders: per game, fixed opponents with published ratings on one Elo scale.

A ladder is data: the game's rules, the rungs (agent specs that play without a clock, at a
fixed depth or number of simulations, so that they play alike on any machine) with their
ratings, and how those ratings were made, on the logistic Elo scale anchored by giving
``random`` the rating :data:`ANCHOR_RATING`: a first version's by one round robin of the
rungs fitted with a virtual draw per pairing; a later version's in stages, a round robin
then games between neighbours by rating, fitted by maximum likelihood without a prior and
published with the ratings' covariance (the schedule: :mod:`agents.rating.schedule`; the
fit: :mod:`agents.rating.fit`). A change of code that alters a rung's play calls for a new
version: a ladder holds each rung's moves on a few fixed positions (:class:`Fingerprints`),
which the tests play again.

A game owns its ladders: they are the files of ``agents/<game>/ladders/``
(:func:`agents.files.game_files`), found by their content, never by their names (which
are for people: ``v1-7x7.json``). :func:`shipped_ladders` reads them all;
:func:`find_ladder` gives the one of a game's rules and version (the newest by default).

A ladder file is read by one reader (:func:`load_ladder`) that checks every field before
any game: the shape against ``ladder.schema.json`` (shipped beside this module), then
what a schema cannot say. Its rungs are agents of the game by name (built-in or
registered): reading a file never runs a program (``exec:``) or imports a dotted path it
names, unless the caller allows that same spec (one the user gave too).

Example:
    >>> ladder = load_ladder("othello")
    >>> ladder.name, ladder.setting, ladder.rungs[0].spec, ladder.rungs[0].rating
    ('othello ladder v1', '8x8', 'random', 1000.0)
    >>> find_ladder("trap", {"board_size": 7}, version="1").name
    'trap ladder v1'
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import stat
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from agents.arena.plan import RunConfig, program_limits
from agents.arena.record_rules import DrawnRule
from agents.files import (
    check_writable_file,
    game_files,
    game_folder,
    write_text_atomically,
)
from agents.json_schema import check_json, parse_json
from agents.options import EXEC, parse_spec
from agents.registry import agent_names, built_agent
from trap_env.agent import check_supports, close_agent, time_limit_of
from trap_env.game import played_params
from trap_env.games import game_names, get_game

__all__ = [
    "ANCHOR",
    "ANCHOR_RATING",
    "DEFAULT_GAMES_PER_PAIRING",
    "DEFAULT_OPENING_PLIES",
    "DEFAULT_PAIR_GAMES",
    "LADDER_VERSION",
    "MAX_LADDER_BYTES",
    "Calibration",
    "Fingerprints",
    "Ladder",
    "Rung",
    "find_ladder",
    "ladder_games",
    "ladder_name",
    "ladder_schema",
    "ladder_target",
    "ladder_version",
    "ladders_of",
    "load_ladder",
    "names_rules",
    "new_ladder",
    "setting_name",
    "shipped_ladders",
    "write_ladder",
]

LADDER_VERSION = "v1"
"""The first version of a game's ladders (that of the ladders first shipped), whose name,
and so a card's line, names no rules (``trap ladder v1``); later versions name them
(``othello 6x6 ladder v2``). Cards of different ladders are not compared."""

KIND = "ladders"
"""A game's ladders are the files of ``agents/<game>/ladders/``."""

NEW_LADDER_SEED = 2026
"""The base seed of a new ladder's games (that of the ladders first shipped)."""
DEFAULT_GAMES_PER_PAIRING = 16
"""Games of each pair of rungs in a new first-version ladder's round robin (its whole
calibration)."""
DEFAULT_STAGED_GAMES_PER_PAIRING = 2
"""Games of each pair of rungs in the round robin that opens a staged calibration (a later
version's): one opening from both seats, enough to order the rungs."""
DEFAULT_PAIR_GAMES = 120
"""Games of each pair of neighbouring rungs (by rating) in a staged calibration: about 25
Elo points of standard error between neighbours less than 200 apart."""
DEFAULT_OPENING_PLIES = 2
"""Random legal actions that open each game of a new ladder."""

ANCHOR = "random"
ANCHOR_RATING = 1000.0
"""The scale's anchor: the uniformly random player is rated 1000 in every game."""

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
    """How a ladder's ratings were made: a round robin of its rungs, then (when
    ``pair_games``) stages of games between neighbours
    (:func:`~agents.rating.schedule.calibration_stage`).

    Attributes:
        games_per_pairing: games each pair of rungs played in the round robin (openings
            from both seats).
        seed: the games' base seed.
        num_games: games behind the ratings.
        command: the command that plays it again.
        date: when it was played (ISO date).
        pair_games: 0 for a calibration that is the round robin alone, fitted with a
            virtual draw per pairing (v1); else the games of each pair of neighbouring
            rungs by rating (a quarter of them for next neighbours), fitted by maximum
            likelihood without a prior, with the ratings' covariance.
    """

    games_per_pairing: int
    seed: int
    num_games: int = 0
    command: str = ""
    date: str = ""
    pair_games: int = 0


@dataclass(frozen=True)
class Fingerprints:
    """Each rung's moves on a few fixed positions, as it played when the ladder was rated:
    the decision states of a game of random moves of the ladder's rules, drawn from
    ``random.Random(seed)`` (:func:`agents.rating.fingerprint.fingerprints_of`).

    Attributes:
        seed: the seed of the game of random moves.
        positions: how many of its first decision states.
        moves: a rung's spec -> its action in each of them.
    """

    seed: int
    positions: int
    moves: dict[str, list[int]]


@dataclass(frozen=True)
class Ladder:
    """A game's ladder.

    Attributes:
        game: the game's name in :mod:`trap_env.games`.
        version: its version (``v1``, ``v2``, ...): another version is another scale.
        params: every rule parameter of the game it is played by.
        opening_plies: random legal actions that open each game (drawn from its seed and
            played from both seats), so that deterministic rungs play different games.
        seed: the base seed of the games a policy plays against the ladder.
        rungs: the opponents, in the order of the calibration's round robin (whose
            seeds depend on it), which is not their order of strength.
        calibration: how the ratings were made.
        fingerprints: each rung's moves on a few positions when it was rated (None: not
            recorded); not part of the identity, as they record the code, not the scale.
        covariance: the covariance of the rungs' ratings (Elo points squared, rungs in
            their order; the anchor's row and column zero), from the calibration's fit;
            None for a ladder that does not publish it (v1). Part of the identity when
            published, as a card's interval depends on it.
    """

    game: str
    version: str
    params: dict[str, Any]
    opening_plies: int
    seed: int
    rungs: tuple[Rung, ...]
    calibration: Calibration = field(default_factory=lambda: Calibration(16, 1))
    fingerprints: Fingerprints | None = None
    covariance: tuple[tuple[float, ...], ...] | None = None

    @property
    def name(self) -> str:
        """``"othello ladder v1"``, ``"othello 6x6 ladder v2"``: how a rating names its
        scale (:func:`ladder_name`)."""
        return ladder_name(self.game, self.version, self.params)

    @property
    def setting(self) -> str:
        """Its rules in words (:func:`setting_name`): ``"7x7"``."""
        return setting_name(self.game, self.params)

    @property
    def file_stem(self) -> str:
        """``"v1-7x7"``: the name, for people, of its file (``.json``) and of the folder its
        calibration plays into; any character other than a letter, a digit or ``.=_-``
        becomes ``_``."""
        return re.sub(r"[^A-Za-z0-9.=_-]", "_", f"{self.version}-{self.setting}")

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
        if self.covariance is not None:
            content["covariance"] = [list(row) for row in self.covariance]
        canonical = json.dumps(content, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def run_config(self, **options: Any) -> RunConfig:
        """The :class:`RunConfig` of games on this ladder: its rules (a rule drawn per game
        as a :class:`~agents.arena.record_rules.DrawnRule`) and openings, no clock
        (``options``, such as ``workers`` or a ``time_budget`` cap, are passed on)."""
        options.setdefault("time_budget", None)
        return RunConfig(
            game_name=self.game, params=run_params(self.params),
            opening_plies=self.opening_plies, **options,
        )

    def with_ratings(
        self,
        ratings: dict[str, float],
        calibration: Calibration,
        covariance: Sequence[Sequence[float]] | None = None,
    ) -> Ladder:
        """This ladder with the rungs rated by ``ratings`` (rounded to tenths of a point),
        and the covariance given (rounded alike)."""
        rungs = tuple(Rung(spec, round(ratings[spec], 1)) for spec in self.specs)
        matrix = None if covariance is None else tuple(
            tuple(round(float(value), 1) for value in row) for row in covariance
        )
        return replace(self, rungs=rungs, calibration=calibration, covariance=matrix)

    def to_json(self) -> str:
        """The ladder as the JSON its file holds (no ``fingerprints`` or ``covariance`` when
        None, no calibration's ``pair_games`` when 0)."""
        data = asdict(self)
        for optional in ("fingerprints", "covariance"):
            if data[optional] is None:
                del data[optional]
        if not data["calibration"]["pair_games"]:
            del data["calibration"]["pair_games"]
        return json.dumps(data, indent=2) + "\n"


# --- Versions, settings and names -----------------------------------------------------------


def ladder_version(version: str | int) -> str:
    """The version ``version`` names: ``"v2"`` for ``"v2"``, ``"2"`` or ``2``.

    Raises:
        ValueError: for anything else, saying what a version is.
    """
    match = re.fullmatch(r"v?([1-9][0-9]{0,3})", str(version).strip())
    if match is None:
        raise ValueError(
            f"a ladder version is v1, v2, ... (or 1, 2, ...), got {str(version)[:40]!r}"
        )
    return f"v{match[1]}"


def _version_number(version: str) -> int:
    """``2`` for ``"v2"`` (a version the schema allows)."""
    return int(version.removeprefix("v"))


def setting_name(game: str, params: Mapping[str, Any] | None = None) -> str:
    """The rules of ``game`` played with ``params`` in words, for messages and file names:
    the board (``"7x7"``; a size drawn per game as its range, ``"6-12"``), then each rule
    that is not the game's default (``"6x6-end_rule=course"``).

    Raises:
        ValueError: for parameters that are not rules of ``game``.
    """
    played, defaults = game_params(game, dict(params or {})), game_params(game)
    size = played.get("board_size")
    words = [] if size is None else [f"{size}x{size}" if isinstance(size, int) else str(size)]
    words += [
        f"{key}={value}" for key, value in played.items()
        if key != "board_size" and value != defaults.get(key)
    ]  # fmt: skip
    return "-".join(words) or "default"


def ladder_name(game: str, version: str, params: Mapping[str, Any]) -> str:
    """How a rating names the ladder of ``game`` of this version and these rules: a version
    after the first names them (``"othello 6x6 ladder v2"``); the first
    (:data:`LADDER_VERSION`), or a version that is none (a card may say anything), does
    not (``"trap ladder v1"``)."""
    if not names_rules(version):
        return f"{game} ladder {version}"
    return f"{game} {setting_name(game, params)} ladder {version}"


def names_rules(version: str) -> bool:
    """Whether a ladder's name names its rules: a version after the first (v2, v3, ...)."""
    number = re.fullmatch(r"v([0-9]{1,4})", version)
    return number is not None and int(number[1]) > _version_number(LADDER_VERSION)


# --- The shipped ladders: a game's own, found by content --------------------------------------


def shipped_ladders(game: str | None = None) -> list[Ladder]:
    """Every ladder the games ship (only ``game``'s if given), each file read by its content:
    by game, then version.

    Raises:
        ValueError: for a file of a game's ladders folder that is no ladder of that game,
            or two ladders of a game with the same rules and version, naming both files.
    """
    games = game_names() if game is None else [game]
    return [ladder for name in games for ladder in _shipped(name).values()]


def ladder_games() -> list[str]:
    """The games that ship a ladder."""
    return sorted({ladder.game for ladder in shipped_ladders()})


def find_ladder(
    game: str, params: Mapping[str, Any] | None = None, version: str | int | None = None
) -> Ladder:
    """The shipped ladder of ``game`` under the rules ``params`` (the game's defaults fill
    the rest; None: its default rules) of ``version`` (``"v1"``, ``"1"``; None: the newest
    version that has these rules).

    Raises:
        ValueError: for rules that are not the game's, a version that is none, or rules
            and version without a shipped ladder: one line naming the settings and versions
            that have one.
    """
    wanted = game_params(game, dict(params or {}))
    asked = None if version is None else ladder_version(version)
    fitting = [
        ladder for ladder in shipped_ladders(game)
        if game_params(game, ladder.params) == wanted and asked in (None, ladder.version)
    ]  # fmt: skip
    if fitting:
        return max(fitting, key=lambda ladder: _version_number(ladder.version))
    what = f"{asked} ladder" if asked else "ladder"
    raise ValueError(f"no {what} of {game} {setting_name(game, wanted)}; {ladders_of(game)}")


def ladders_of(game: str) -> str:
    """The settings of ``game`` that have a ladder, and their versions, in words (for the
    one-line refusals of rules without one).

    Example:
        >>> ladders_of("othello")
        'the ladders of othello: 8x8 (v1); 6x6 (v2)'
    """
    versions: dict[str, list[str]] = {}
    for ladder in shipped_ladders(game):
        versions.setdefault(ladder.setting, []).append(ladder.version)
    if not versions:
        return (
            f"{game} ships no ladder (agents/{game}/ladders/); trap-rate --calibrate --rungs "
            f"random ... --game {game} makes its first"
        )
    there = "; ".join(f"{setting} ({', '.join(found)})" for setting, found in versions.items())
    return f"the ladders of {game}: {there}"


@functools.lru_cache(maxsize=64)  # bounded: a game given by path may be any name
def _shipped(game: str) -> dict[Path, Ladder]:
    """The ladders in ``game``'s ladders folder by file, read once (a leaderboard checks
    each card against them), by version.

    Raises:
        ValueError: for a file that is no ladder of ``game``, or two with the same rules
            and version.
    """
    ladders = {path: _read_ladder(game, path, ()) for path in game_files(game, KIND)}
    seen: dict[tuple[str, str], Path] = {}
    for path, ladder in ladders.items():
        key = (ladder.version, json.dumps(game_params(game, ladder.params), sort_keys=True))
        if key in seen:
            raise ValueError(
                f"{seen[key]} and {path} are both the {ladder.name} of {game} "
                f"{ladder.setting}; keep one"
            )
        seen[key] = path
    return dict(sorted(ladders.items(), key=lambda item: _version_number(item[1].version)))


def load_ladder(
    game: str, path: str | Path | None = None, *, allowed_specs: Collection[str] = ()
) -> Ladder:
    """The shipped ladder of ``game``'s default rules (its newest version: :func:`find_ladder`),
    or the one in the file ``path``, every field checked before any game is played.

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
        ValueError: for a game without a ladder of its default rules, or a file that is
            not a ladder of ``game``; one line naming the file, the field and what is
            allowed.
    """
    if path is None:
        return find_ladder(game)
    return _read_ladder(game, Path(path), allowed_specs)


def _read_ladder(game: str, path: Path, allowed_specs: Collection[str]) -> Ladder:
    """The ladder of ``game`` in ``path`` (see :func:`load_ladder`)."""
    try:
        data = _read_json(path)
        check_json(data, _schema(), "the ladder")
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
        return parse_json(content)
    except ValueError as error:
        raise ValueError(f"not a ladder: {error}") from None


# --- What a schema cannot say ---------------------------------------------------------------


def _ladder_of(data: dict[str, Any]) -> Ladder:
    """The ladder that checked ``data`` holds (ratings as floats, as its file writes them)."""
    fields = {key: data[key] for key in ("game", "version", "params", "opening_plies", "seed")}
    fingerprints = data.get("fingerprints")
    covariance = data.get("covariance")
    return Ladder(
        **fields,
        rungs=tuple(Rung(rung["spec"], float(rung["rating"])) for rung in data["rungs"]),
        calibration=Calibration(**data["calibration"]),
        fingerprints=None if fingerprints is None else Fingerprints(**fingerprints),
        covariance=None if covariance is None else tuple(
            tuple(float(value) for value in row) for row in covariance
        ),
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
    _check_covariance(ladder)
    for index, spec in enumerate(ladder.specs):
        try:
            _check_rung(spec, config, allowed_specs)
        except ValueError as error:
            raise ValueError(f"rungs[{index}] {spec!r}: {error}") from None


def _check_covariance(ladder: Ladder) -> None:
    """Refuse a covariance that is not a symmetric matrix of one row per rung with
    variances of at least 0 and the anchor's row zero.

    Raises:
        ValueError: naming what is wrong.
    """
    matrix = ladder.covariance
    if matrix is None:
        return
    size = len(ladder.rungs)
    if len(matrix) != size or any(len(row) != size for row in matrix):
        raise ValueError(f"covariance is not {size}x{size}, a row and a column per rung")
    anchor = ladder.specs.index(ANCHOR)
    for i, row in enumerate(matrix):
        if row[i] < 0:
            raise ValueError(f"covariance[{i}][{i}] is {row[i]:g}; a variance is at least 0")
        if row[anchor] != 0 or matrix[anchor][i] != 0:
            raise ValueError(
                f"covariance has a non-zero entry in the row or column {anchor} of the "
                f"anchor {ANCHOR!r}, whose rating is fixed"
            )
        for j in range(i):
            if row[j] != matrix[j][i]:
                raise ValueError(f"covariance[{i}][{j}] differs from covariance[{j}][{i}]")


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
    agent = built_agent(spec, game=game, seed=0, **program_limits(spec, config))
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


# --- A new ladder -----------------------------------------------------------------------------


def new_ladder(
    game: str,
    params: Mapping[str, Any] | None,
    specs: Sequence[str],
    *,
    version: str | int | None = None,
    games_per_pairing: int | None = None,
    opening_plies: int = DEFAULT_OPENING_PLIES,
    pair_games: int | None = None,
) -> Ladder:
    """A ladder of ``game`` under ``params`` (its defaults fill the rest; a rule drawn per
    game, :class:`~agents.arena.record_rules.DrawnRule` or its text ``"6-12"``, is drawn
    from each game's seed) with the rungs ``specs``, to be rated by its calibration (every
    rung rated :data:`ANCHOR_RATING` until then), checked as a file is: the specs given are
    allowed rungs (a program, a dotted path).

    Args:
        version: its version; None: the one after the newest shipped ladder of these rules
            (``v1`` for a game without a ladder, ``v2`` for rules without one where the
            game's ``v1`` is of other rules).
        games_per_pairing: games of each pair of rungs in the round robin (even); None:
            :data:`DEFAULT_GAMES_PER_PAIRING` for a first version, else
            :data:`DEFAULT_STAGED_GAMES_PER_PAIRING`.
        opening_plies: random legal actions that open each game.
        pair_games: games of each pair of neighbouring rungs (even; 0: the round robin
            alone); None: 0 for a first version (:data:`LADDER_VERSION`), else
            :data:`DEFAULT_PAIR_GAMES`.

    Raises:
        ValueError: for rules that are not the game's, or a ladder the reader would refuse
            (no ``random``, a spec twice, a rung with a clock), saying what.
    """
    rules = game_params(game, dict(params or {}))
    if version is None:  # after the newest of these rules; v2 where the game's v1 is of others
        shipped = shipped_ladders(game)
        versions = [_version_number(ladder.version) for ladder in shipped if ladder.params == rules]
        first = any(ladder.version == LADDER_VERSION for ladder in shipped)
        version = f"v{max(versions, default=int(first)) + 1}"
    version = ladder_version(version)
    staged = names_rules(version)  # a version after the first: neighbours, fitted without prior
    if pair_games is None:
        pair_games = DEFAULT_PAIR_GAMES if staged else 0
    if games_per_pairing is None:
        games_per_pairing = (
            DEFAULT_STAGED_GAMES_PER_PAIRING if pair_games else DEFAULT_GAMES_PER_PAIRING
        )
    ladder = Ladder(
        game, version, rules, opening_plies,
        NEW_LADDER_SEED, tuple(Rung(spec, ANCHOR_RATING) for spec in specs),
        Calibration(games_per_pairing, 1, pair_games=pair_games),
    )
    try:
        check_json(json.loads(ladder.to_json()), _schema(), "the ladder")
        _check_content(ladder, specs)
    except ValueError as error:
        raise ValueError(f"the new ladder of {game} {ladder.setting}: {error}") from None
    return ladder


def ladder_target(ladder: Ladder, path: str | Path | None = None, *, overwrite: bool = False
                  ) -> Path:
    """Where :func:`write_ladder` puts ``ladder``: ``path``, or by default its file in the
    game's ladders folder (``agents/<game>/ladders/<version>-<setting>.json``), checked
    before any game of its calibration is played.

    Raises:
        ValueError: for a file there already (unless ``overwrite``), a folder there, or a
            path under a file or an unwritable folder; for the game's folder,
            a game without one, another file of the folder holding a ladder of the same
            rules and version, or a second first version (:data:`LADDER_VERSION`, whose
            name names no rules), naming the file.
    """
    if path is not None:
        target = Path(path)
    else:
        try:
            folder = game_folder(ladder.game, KIND)
            if not folder.parent.is_dir():
                raise ValueError(
                    f"the game {ladder.game!r} has no agents package {folder.parent} to hold "
                    "its ladders"
                )
        except ValueError as error:
            raise ValueError(f"{error}; write the ladder elsewhere (--ladder-out FILE)") from None
        target = folder / f"{ladder.file_stem}.json"
        _check_shipped_beside(ladder, target)
    check_writable_file(target, "ladder file", makes_folders=True)
    if target.exists() and not overwrite:
        raise ValueError(f"{target} exists already; replace it (--overwrite) or write elsewhere")
    return target


def _check_shipped_beside(ladder: Ladder, target: Path) -> None:
    """Refuse a new ladder of its game's folder that another file there has the rules and
    version of, or a second first version."""
    rules = game_params(ladder.game, ladder.params)
    for path, shipped in _shipped(ladder.game).items():
        if path.resolve() == target.resolve():
            continue  # the file replaced
        if shipped.version == ladder.version and game_params(shipped.game, shipped.params) == rules:
            raise ValueError(
                f"{path} is the {shipped.name} of {ladder.game} {ladder.setting} already; give "
                "another version (--ladder-version)"
            )
        if LADDER_VERSION == ladder.version == shipped.version:
            raise ValueError(
                f"{path} is the {LADDER_VERSION} of {ladder.game} already ({shipped.setting}): "
                f"a game has one {LADDER_VERSION}, whose name names no rules; give a later "
                "version (--ladder-version)"
            )


def write_ladder(ladder: Ladder, path: Path) -> None:
    """Write ``ladder`` whole to ``path`` (:func:`ladder_target`); the shipped ladders are
    read afresh after it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(path, ladder.to_json())
    _shipped.cache_clear()


# --- A ladder's rules, as its file holds them and as games take them -------------------------


def game_params(game: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Every rule parameter of ``game`` played with ``params`` (its defaults fill the rest),
    as a ladder's file holds them: a rule drawn per game (a
    :class:`~agents.arena.record_rules.DrawnRule`, or its text) as its text, ``"6-12"``.

    Raises:
        ValueError: for rules the game does not take (a drawn one checked at its ends).
    """
    given = dict(params or {})
    drawn = {name: rule for name, value in given.items()
             if (rule := _drawn(value)) is not None}  # fmt: skip
    for end in ("low", "high"):
        played = played_params(
            get_game(game), given | {name: getattr(rule, end) for name, rule in drawn.items()}
        )
    return played | {name: str(rule) for name, rule in drawn.items()}


def run_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """A ladder's rules as :class:`~agents.arena.plan.RunConfig` takes them: a rule drawn
    per game (its text, ``"6-12"``) as a :class:`~agents.arena.record_rules.DrawnRule`."""
    return {name: _drawn(value) or value for name, value in params.items()}


def _drawn(value: Any) -> DrawnRule | None:
    """The rule drawn per game that ``value`` is (a :class:`DrawnRule` or its text
    ``"LOW-HIGH"``); None for a plain rule value."""
    if isinstance(value, DrawnRule):
        return value
    return DrawnRule.parse(value) if isinstance(value, str) else None

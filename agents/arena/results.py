"""The results file of a run: one JSON line per game, its settings beside it, locked while written.

A run writes ``results.jsonl`` and, beside it, ``results.settings.json`` (the settings
every game was played with); it holds a lock on ``results.jsonl`` itself while it writes
(a ``results.lock`` that older runs left is not used). :class:`ResultsLog` enforces the
rules that keep a results file honest:

- one run at a time: a second run into the same file is refused while the lock is held;
- its own files only: a results or settings file that is a symbolic link is refused
  (a write would go to the link's target), and a results file replaced while the run
  writes it (an editor's save) is noticed: the run's games go to ``results.<pid>.jsonl``
  beside it, named in the error, rather than into a file no longer at the path;
- no code from a file: a record's game is a registered game, or a game's path only when
  it is the path of the run's own game (see :func:`check_record`);
- one set of settings per file: a resumed run must have the recorded settings, and the
  message names each one that differs;
- no game lost by accident: a file holding games is only continued (``resume``) or
  replaced (``overwrite``) when asked;
- no trace of a refused run: a results file that is not there yet is made only once the
  run's checks have passed (:meth:`ResultsLog.acquire`), so a run refused by them writes
  nothing, not even a file removed again;
- whole lines: each game is appended with one ``write`` of a complete line, then flushed
  to disk (``fsync``), so a killed run leaves at most one unfinished last line, which the
  reader reports and skips.

Example:
    >>> with ResultsLog("out/results.jsonl") as log:  # doctest: +SKIP
    ...     kept = log.previous(settings, resume=True, overwrite=False)
    ...     log.start(settings, keep=True)
    ...     log.append(record)
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import stat
import warnings
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from agents.arena.match import FAULTS
from agents.arena.record_rules import (
    OLD_TRAP_FIELDS,
    UNNAMED_GAME,
    DrawnRule,
    record_game,
    record_params,
    recorded_settings,
    settings_rules,
)
from agents.files import write_text_atomically
from trap_env.game import TRUNCATED, played_params
from trap_env.games import UnknownGameError, game_names, get_game

try:
    import fcntl
except ImportError:  # not POSIX: runs are not locked against each other
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "Record",
    "Results",
    "ResultsError",
    "ResultsLog",
    "ResultsWarning",
    "check_record",
    "check_resumable",
    "end_reasons",
    "load_results",
    "read_results",
    "record_game",
]

Record = dict[str, Any]


class ResultsError(ValueError):
    """A results file that cannot be used as asked; the message says why and what to do."""


class ResultsWarning(UserWarning):
    """Something in a results file was skipped (an unfinished last line)."""


@dataclass
class Results:
    """What a results file holds.

    Attributes:
        records: the complete game records, in file order.
        torn_tail: the text of an unfinished last line (a run killed while writing it),
            which is not a record; None when the file ends with a complete line.
    """

    records: list[Record]
    torn_tail: str | None = None


# --- Reading ---------------------------------------------------------------------------


def read_results(
    path: str | os.PathLike[str], *, allow_paths: bool | Collection[str] = ()
) -> Results:
    """The game records of a results file, each checked with :func:`check_record`.

    A last line without its newline that is not a valid record is the trace of a run
    killed while writing; it is returned as ``torn_tail``, not raised.

    Args:
        path: the results file.
        allow_paths: the game paths a record may name (see :func:`check_record`).

    Raises:
        OSError: if the file cannot be read.
        ResultsError: for any other line that is not a game record, naming the line.
    """
    path = Path(path)
    records: list[Record] = []
    with open(path, "rb") as lines:
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            try:
                records.append(_parse_line(raw, allow_paths))
            except ResultsError as error:
                if not raw.endswith(b"\n"):
                    return Results(records, raw.decode("utf-8", "replace"))
                raise ResultsError(
                    f"{path}, line {number}: {error}; each line must be one game record as "
                    "trap-tournament writes it (remove or repair the line, or start over "
                    "with --overwrite)"
                ) from None
    return Results(records)


def load_results(
    path: str | os.PathLike[str], *, allow_paths: bool | Collection[str] = ()
) -> list[Record]:
    """The game records of a results file; an unfinished last line is skipped with a warning.

    ``allow_paths``: the game paths a record may name (see :func:`check_record`).

    Raises:
        OSError: if the file cannot be read.
        ResultsError: for a line that is not a game record (see :func:`read_results`).
    """
    results = read_results(path, allow_paths=allow_paths)
    if results.torn_tail is not None:
        warnings.warn(_torn_message(path, results.torn_tail), ResultsWarning, stacklevel=2)
    return results.records


def _torn_message(path: str | os.PathLike[str], tail: str) -> str:
    shown = tail if len(tail) <= 60 else tail[:57] + "..."
    return f"{path}: skipped an unfinished last line (a run killed while writing it): {shown!r}"


def _parse_line(raw: bytes, allow_paths: bool | Collection[str]) -> Record:
    try:
        record = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ResultsError("not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise ResultsError(f"not JSON ({error.msg} at column {error.colno})") from None
    except RecursionError:
        raise ResultsError("JSON nested too deeply") from None
    check_record(record, allow_paths=allow_paths)
    return record  # type: ignore[no-any-return]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_seconds(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


def _is_pair(check: Callable[[object], bool]) -> Callable[[object], bool]:
    return lambda value: isinstance(value, list) and len(value) == 2 and all(map(check, value))


_FIELDS: dict[str, tuple[Callable[[object], bool], str]] = {
    "game_id": (lambda v: isinstance(v, str), "a string"),
    "pairing": (_is_pair(lambda v: isinstance(v, str)), "a list of two agent specs"),
    "seats": (_is_pair(lambda v: isinstance(v, str)), "a list of two agent specs"),
    "winner_spec": (lambda v: v is None or isinstance(v, str), "an agent spec or null"),
    "seed": (_is_int, "an integer"),
    "max_turns": (lambda v: _is_int(v) and v >= 1, "an integer >= 1"),  # type: ignore[operator]
    "winner": (lambda v: _is_int(v) and v in (-1, 0, 1), "-1, 0 or 1"),
    "reason": (lambda v: isinstance(v, str), "a string"),
    "detail": (lambda v: isinstance(v, str), "a string"),
    "turns": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),  # type: ignore[operator]
    "cpu_time": (_is_pair(_is_seconds), "a list of two numbers of seconds"),
    "max_turn_time": (_is_pair(_is_seconds), "a list of two numbers of seconds"),
    "actions": (
        lambda v: isinstance(v, list) and all(_is_int(a) and a >= 0 for a in v),
        "a list of cells (integers >= 0)",
    ),
}
"""The fields every game record has, with their check and what they must be."""

_OPTIONAL_FIELDS: dict[str, tuple[Callable[[object], bool], str]] = {
    "replays": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),  # type: ignore[operator]
    "game": (lambda v: isinstance(v, str), "a game's name"),
    "board_size": (lambda v: _is_int(v) and v >= 3, "an integer >= 3"),  # type: ignore[operator]
    "rules": (lambda v: isinstance(v, dict), "an object of rule parameters"),
    "scores": (lambda v: isinstance(v, dict), "an object of the game's counts"),
}
"""Fields a game record may leave out: older runs' replays, the game and rules of Trap!'s
records from before they named them (whose rule fields, such as ``decay``, its game checks:
:func:`_check_unnamed_rules`), and another game's board size beside its rules."""


def end_reasons(game: str, *, allow_paths: bool | Collection[str] = True) -> tuple[str, ...]:
    """Every way a game of ``game`` can end: its own reasons, the turn limit, or a fault.

    ``allow_paths``: which game paths ``game`` may be (:func:`trap_env.games.get_game`).
    """
    return (*get_game(game, allow_paths=allow_paths).end_reasons, TRUNCATED, *FAULTS)


def check_record(record: object, *, allow_paths: bool | Collection[str] = ()) -> None:
    """Check that ``record`` has the fields and types of a game record, and agrees with itself.

    This checks the record's shape (the fields :mod:`agents.arena.stats` and the replay
    read), not the game: replay its ``actions`` through the core for that.

    Args:
        record: the record, as read from JSON.
        allow_paths: the game paths the record may name, which are imported: none (a record
            names a registered game), the path of the game the user gave (``--game PATH``),
            or any (``True``: a page run with ``--allow-exec``).

    Raises:
        ResultsError: naming the first field that is missing or wrong.
    """
    if not isinstance(record, dict):
        raise ResultsError(f"a game record is a JSON object, got {type(record).__name__}")
    for name, (is_valid, expected) in _FIELDS.items():
        if name not in record:
            raise ResultsError(f"the record has no {name!r}")
        if not is_valid(record[name]):
            raise ResultsError(f"{name!r} must be {expected}, got {record[name]!r:.80}")
    for name, (is_valid, expected) in _OPTIONAL_FIELDS.items():
        if name in record and not is_valid(record[name]):
            raise ResultsError(f"{name!r} must be {expected}, got {record[name]!r:.80}")
    if "game" not in record:  # Trap!'s, its rules in fields of their own
        _check_unnamed_rules(record)
    _check_rules_said_once(record)
    try:
        reasons = end_reasons(record_game(record), allow_paths=allow_paths)
    except UnknownGameError:
        raise ResultsError(
            f"'game' must be a game's name (one of {', '.join(game_names())}) or the path of "
            f"the game given to play (a path in a file is not imported otherwise), got "
            f"{record_game(record)!r:.80}"
        ) from None
    if record["reason"] not in reasons:
        raise ResultsError(
            f"'reason' must be one of {', '.join(reasons)}, got {record['reason']!r:.80}"
        )
    if sorted(record["seats"]) != sorted(record["pairing"]):
        raise ResultsError(f"seats {record['seats']} are not the pairing {record['pairing']}")
    winner = record["winner"]
    expected_spec = None if winner == -1 else record["seats"][winner]
    if record["winner_spec"] != expected_spec:
        raise ResultsError(
            f"winner_spec {record['winner_spec']!r} is not the winner's seat's spec "
            f"{expected_spec!r}"
        )


def _check_unnamed_rules(record: dict[str, Any]) -> None:
    """Check the rule fields of a record that names no game (Trap!'s, in fields of their
    own): a board size, and other rules that the game's own ``make_config`` takes.

    The board size's range is left to the reader (the page shows smaller boards than the
    rules allow, and says so in its own words).

    Raises:
        ResultsError: naming the field and what the game allows.
    """
    if "board_size" not in record:
        raise ResultsError("the record has no 'board_size'")
    game = get_game(UNNAMED_GAME)
    rules = {name: value for name, value in record_params(record).items() if name != "board_size"}
    for name, value in rules.items():
        try:
            game.make_config(**{name: value})
        except ValueError as error:  # the game's message names the parameter first
            raise ResultsError(f"{name!r}{str(error).removeprefix(name)}") from None


def _check_rules_said_once(record: dict[str, Any]) -> None:
    """Refuse a rule written both in a field of its own (an old record's shape) and in
    ``rules``, with two values: the record contradicts itself.

    Raises:
        ResultsError: naming the rule and both values.
    """
    rules = record.get("rules", {})
    for name in OLD_TRAP_FIELDS:
        if name in record and name in rules and record[name] != rules[name]:
            raise ResultsError(
                f"the record's fields contradict each other: its {name} is "
                f"{record[name]!r:.20} and its rules' {name} {rules[name]!r:.20}"
            )


# --- Writing ---------------------------------------------------------------------------


def settings_path(results_path: Path) -> Path:
    """Where the settings of the run writing ``results_path`` are kept."""
    return results_path.with_suffix(".settings.json")


def rescue_path(results_path: Path) -> Path:
    """Where this process writes its games if ``results_path`` is replaced under it."""
    return results_path.with_suffix(f".{os.getpid()}.jsonl")


class ResultsLog:
    """A results file, locked against other runs while this one uses it (a context manager).

    Use :meth:`previous` to learn which games to keep (it refuses what the run may not
    do), then :meth:`start` to commit to the file (:meth:`acquire` first where the caller
    writes files of its own before it), then :meth:`append` for each game, and
    :meth:`check_in_place` once the last is appended. A file already there is locked as the
    log is entered; one that is not is made (and locked) by :meth:`acquire`, after the
    checks: a run refused before it leaves the folder as it was.
    """

    def __init__(self, path: str | os.PathLike[str], report: Callable[[str], None] = print) -> None:
        self.path = Path(path)
        self.report = report
        self._fd: int | None = None
        self._created = False  # made by acquire(), removed if the run never starts
        self._held: list[Record] = []  # every game the file holds, for a rescue
        self._torn_tail: str | None = None

    def __enter__(self) -> ResultsLog:
        with contextlib.suppress(FileNotFoundError):  # not there yet: made by acquire()
            self._fd = _open_locked(self.path, create=False)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._fd is None:
            return
        if self._created and self._is_in_place():  # refused before it started: leave no file
            with contextlib.suppress(OSError):
                os.unlink(self.path)
        os.close(self._fd)  # closing the descriptor releases the lock
        self._fd = None

    def previous(self, settings: dict[str, Any], *, resume: bool, overwrite: bool) -> list[Record]:
        """The recorded games this run keeps, after checking that it may use the file.

        Args:
            settings: the run's settings (JSON values), compared with the recorded ones.
            resume: continue the file: keep its games (the settings must match, and every
                game must be of the settings' game).
            overwrite: replace the file's games (ignored with ``resume``).

        Raises:
            ResultsError: the file holds games and neither ``resume`` nor ``overwrite`` was
                asked; or ``resume`` with settings that differ from the recorded ones (each
                difference named) or over a game of another game; or an unreadable line;
                or a settings file that is a symbolic link.
        """
        _check_not_linked(settings_path(self.path))
        if overwrite and not resume:
            return []
        results = (
            Results([])
            if self._fd is None  # no file yet, so no game
            else read_results(self.path, allow_paths=(_game_of(settings),))
        )
        if not resume:
            if results.records:
                raise ResultsError(
                    f"{self.path} already holds {len(results.records)} recorded games; "
                    "continue that run with --resume, replace its games with --overwrite, "
                    "or choose another output folder"
                )
            return []
        check_resumable(self.path, settings, results.records)
        self._held, self._torn_tail = list(results.records), results.torn_tail
        return results.records

    def acquire(self) -> None:
        """Make the results file (and its folder) if it is not there, and lock it: the run's
        first write, once its checks have passed.

        Raises:
            ResultsError: if another run made the file since this one was entered.
            OSError: if the file or its folder cannot be made.
        """
        if self._fd is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = _open_locked(self.path, create=True)
            self._created = True

    def start(self, settings: dict[str, Any], *, keep: bool) -> None:
        """Record the settings and make the file ready for appending (emptied unless
        ``keep``), made first if it is not there (:meth:`acquire`)."""
        self.acquire()
        assert self._fd is not None
        self._created = False
        if keep:
            self._finish_last_line()
        else:
            os.ftruncate(self._fd, 0)
            self._held = []
        write_text_atomically(settings_path(self.path), json.dumps(settings, indent=2) + "\n")

    def append(self, record: Record) -> None:
        """Append one game as a whole line and flush it to disk.

        Raises:
            ResultsError: if the file is no longer the one at its path (see
                :meth:`check_in_place`), or if the line cannot be written (a full disk,
                say), saying that the games recorded before it are kept and how to go on.
        """
        assert self._fd is not None, "start() the log before appending"
        self._check_in_place([record])
        try:
            _write_line(self._fd, memoryview(_line(record)))
        except OSError as error:
            raise ResultsError(
                f"{self.path}: cannot record game {record.get('game_id')!r} "
                f"({error.strerror or error}); the games recorded before it are kept: make "
                "room and run again with --resume"
            ) from None
        self._held.append(record)

    def check_in_place(self) -> None:
        """Check that the file this run writes is still the file at its path.

        Raises:
            ResultsError: if it was replaced or removed (an editor's save, ``sed -i``): the
                games the run holds are written to :func:`rescue_path`, which it names.
        """
        self._check_in_place([])

    def _is_in_place(self) -> bool:
        assert self._fd is not None
        try:
            found = os.stat(self.path, follow_symlinks=False)
        except FileNotFoundError:
            return False
        held = os.fstat(self._fd)
        return (found.st_ino, found.st_dev) == (held.st_ino, held.st_dev)

    def _check_in_place(self, pending: list[Record]) -> None:
        if self._is_in_place():
            return
        games = [*self._held, *pending]
        rescue = rescue_path(self.path)
        fd = os.open(rescue, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW, 0o644)
        try:
            _write_line(fd, memoryview(b"".join(map(_line, games))))
        finally:
            os.close(fd)
        raise ResultsError(
            f"{self.path} was replaced or removed while this run wrote it (an editor's save?); "
            f"the {len(games)} games this run holds are in {rescue}: check them, put them at "
            "the results file's path and run again with --resume"
        )

    def _finish_last_line(self) -> None:
        """Cut an unfinished last line (reporting it), or end a complete one with its newline."""
        assert self._fd is not None
        data = self.path.read_bytes()
        if self._torn_tail is not None:
            self.report(_torn_message(self.path, self._torn_tail))
            os.ftruncate(self._fd, data.rfind(b"\n") + 1)
        elif data and not data.endswith(b"\n"):
            _write_line(self._fd, memoryview(b"\n"))


def _line(record: Record) -> bytes:
    return (json.dumps(record) + "\n").encode()


def _write_line(fd: int, data: memoryview) -> None:
    """Write ``data`` to the O_APPEND file ``fd`` and flush it to disk."""
    while data:  # one write() of an O_APPEND file is one piece; loop on a short write
        data = data[os.write(fd, data) :]
    os.fsync(fd)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
"""Open a file only if it is not a symbolic link (where the system can say so)."""


def _open_locked(path: Path, *, create: bool) -> int:
    """The results file, opened for appending and locked; with ``create``, made new.

    Raises:
        FileNotFoundError: without ``create``, for a file that is not there.
        ResultsError: for a symbolic link or anything but a file, a file another run
            holds (naming its process where the system says it), or with ``create`` a file
            that is there (another run made it since this one found none).
    """
    made = os.O_CREAT | os.O_EXCL if create else 0
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | made | _NOFOLLOW, 0o644)
    except FileExistsError:
        raise ResultsError(
            f"another run made {path} while this one was being checked; run again "
            "(with --resume to continue its games), or choose another output folder"
        ) from None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise ResultsError(_linked_message(path)) from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ResultsError(f"{path} is not a file; remove it, or choose another output folder")
    if fcntl is None:
        return fd
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _lock_holder(os.fstat(fd).st_ino)
        os.close(fd)
        raise ResultsError(
            f"another run (process {holder}) is writing to {path}; wait for it to end, "
            "or choose another output folder"
        ) from None
    return fd


def _lock_holder(inode: int) -> str:
    """The process that holds a lock on the file ``inode``, from ``/proc/locks`` (Linux)."""
    try:
        with open("/proc/locks", encoding="ascii") as locks:
            for fields in map(str.split, locks):
                if fields[1:2] == ["FLOCK"] and fields[5].rsplit(":", 1)[-1] == str(inode):
                    return fields[4]
    except (OSError, IndexError):
        pass
    return "unknown"


def _check_not_linked(path: Path) -> None:
    if path.is_symlink():
        raise ResultsError(_linked_message(path))


def _linked_message(path: Path) -> str:
    return (
        f"{path} is a symbolic link, and a run writes only its own files, never through a "
        "link; remove the link, or choose another output folder"
    )


def _game_of(settings: dict[str, Any]) -> str:
    return recorded_settings(settings)["game"]  # type: ignore[no-any-return]


_UNNAMED: dict[str, Any] = {"opening_plies": 0, "duplicate_chance": False}
"""Settings that a settings file names only when they are not these values."""

_RULE_FIELDS = ("rules", "drawn_rules", "board_sizes", *OLD_TRAP_FIELDS)
"""The fields that hold a run's rules in its settings, in every shape
(:func:`~agents.arena.record_rules.settings_rules` reads them)."""


def check_resumable(path: Path, settings: dict[str, Any], records: list[Record]) -> None:
    """Refuse to resume the results file ``path`` (its games ``records``, read from it or,
    packed, in memory) recorded with other settings or rules than ``settings`` (naming each
    difference; a rule written out at its default is no difference) or holding a game of
    another game.

    Raises:
        ResultsError: naming the differences, or the game of another game.
    """
    game = _game_of(settings)
    found = _recorded_settings(path, records)
    if not found:  # nothing recorded yet (no settings file, no game): nothing to differ from
        return
    recorded = _UNNAMED | found
    now = _UNNAMED | settings
    differences = _differences(_beyond_rules(recorded), _beyond_rules(now))
    if _game_of(recorded) == game:  # another game's rules are not compared: its name is
        differences += _differences(_played_rules(game, recorded), _played_rules(game, now))
    if differences:
        raise ResultsError(
            f"cannot resume {path}: it was recorded with other settings ("
            + "; ".join(differences)
            + "); resume with the recorded settings, or use --overwrite or another folder"
        )
    for number, record in enumerate(records, start=1):
        if record_game(record) != game:
            raise ResultsError(
                f"cannot resume {path}: its game {number} ({record['game_id']!r:.60}) is a game "
                f"of {record_game(record)}, this run plays {game}; a results file holds one "
                "game's games: resume with that game, or use --overwrite or another folder"
            )


def _differences(there: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """``"NAME THERE there, NOW now"`` for each setting of ``now`` that ``there`` holds
    with another value (one it does not hold is newer than the file: no difference)."""
    return [
        f"{name} {_show(there[name])} there, {_show(value)} now"
        for name, value in now.items()
        if name in there and there[name] != value
    ]


def _beyond_rules(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings but the rules, with the game named."""
    named = recorded_settings(settings)
    return {name: value for name, value in named.items() if name not in _RULE_FIELDS}


def _played_rules(game: str, settings: dict[str, Any]) -> dict[str, Any]:
    """Every rule of a run of ``game`` with ``settings``: those given (drawn per game as
    :class:`DrawnRule`) and the game's defaults for the others; rules that the game
    refuses (a file edited by hand) as they are given, for the comparison to name."""
    given = settings_rules(settings)
    drawn = {name: rule for name, rule in given.items() if isinstance(rule, DrawnRule)}
    highest = given | {name: rule.high for name, rule in drawn.items()}
    try:
        return played_params(get_game(game, allow_paths=(game,)), highest) | drawn
    except (TypeError, ValueError):
        return given


def _recorded_settings(path: Path, records: list[Record]) -> dict[str, Any]:
    """The settings file's contents; for a file from before settings files, its first
    game's (its game, rules, turn limit and time budget)."""
    try:
        text = settings_path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        if not records:
            return {}
        first = records[0]
        kept = {name: first[name] for name in ("max_turns", "time_budget") if name in first}
        return kept | {"game": record_game(first), "rules": record_params(first)}
    try:
        recorded = json.loads(text)
    except json.JSONDecodeError as error:
        raise ResultsError(f"{settings_path(path)} is not JSON ({error}); remove it") from None
    if not isinstance(recorded, dict):
        raise ResultsError(f"{settings_path(path)} is not a settings object; remove it")
    return recorded


def _show(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    return str(value)

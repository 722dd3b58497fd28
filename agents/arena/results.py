"""The results file of a run: one JSON line per game, its settings beside it, a lock on both.

A run writes ``results.jsonl`` and, beside it, ``results.settings.json`` (the settings
every game was played with) and ``results.lock`` (held while the run writes).
:class:`ResultsLog` enforces the rules that keep a results file honest:

- one run at a time: a second run into the same file is refused while the lock is held;
- one set of settings per file: a resumed run must have the recorded settings, and the
  message names each one that differs;
- no game lost by accident: a file holding games is only continued (``resume``) or
  replaced (``overwrite``) when asked;
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

import json
import math
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from agents.arena.match import FAULTS
from agents.files import write_text_atomically
from trap_env.game import TRUNCATED
from trap_env.games import DEFAULT_GAME, get_game
from trap_env.trap.core import DEFAULT_DECAY, MAX_DECAY

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
    "end_reasons",
    "game_field",
    "load_results",
    "read_results",
    "record_decay",
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


def read_results(path: str | os.PathLike[str]) -> Results:
    """The game records of a results file, each checked with :func:`check_record`.

    A last line without its newline that is not a valid record is the trace of a run
    killed while writing; it is returned as ``torn_tail``, not raised.

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
                records.append(_parse_line(raw))
            except ResultsError as error:
                if not raw.endswith(b"\n"):
                    return Results(records, raw.decode("utf-8", "replace"))
                raise ResultsError(
                    f"{path}, line {number}: {error}; each line must be one game record as "
                    "trap-tournament writes it (remove or repair the line, or start over "
                    "with --overwrite)"
                ) from None
    return Results(records)


def load_results(path: str | os.PathLike[str]) -> list[Record]:
    """The game records of a results file; an unfinished last line is skipped with a warning.

    Raises:
        OSError: if the file cannot be read.
        ResultsError: for a line that is not a game record (see :func:`read_results`).
    """
    results = read_results(path)
    if results.torn_tail is not None:
        warnings.warn(_torn_message(path, results.torn_tail), ResultsWarning, stacklevel=2)
    return results.records


def _torn_message(path: str | os.PathLike[str], tail: str) -> str:
    shown = tail if len(tail) <= 60 else tail[:57] + "..."
    return f"{path}: skipped an unfinished last line (a run killed while writing it): {shown!r}"


def _parse_line(raw: bytes) -> Record:
    try:
        record = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ResultsError("not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise ResultsError(f"not JSON ({error.msg} at column {error.colno})") from None
    except RecursionError:
        raise ResultsError("JSON nested too deeply") from None
    check_record(record)
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
    "decay": (
        lambda v: _is_int(v) and 0 <= v <= MAX_DECAY,  # type: ignore[operator]
        f"an integer per mille in 0..{MAX_DECAY}",
    ),
    "replays": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),  # type: ignore[operator]
    "game": (lambda v: _is_game(v), "a game's name (one of trap_env.games.game_names()) or path"),
    "board_size": (lambda v: _is_int(v) and v >= 3, "an integer >= 3"),  # type: ignore[operator]
    "rules": (lambda v: isinstance(v, dict), "an object of rule parameters"),
    "scores": (lambda v: isinstance(v, dict), "an object of the game's counts"),
}
"""Fields a game record may leave out: the decay when it is the default, older runs' replays,
the game when it is Trap!."""


def _is_game(name: object) -> bool:
    try:
        get_game(name)  # type: ignore[arg-type]
    except ValueError:
        return False
    return True


def game_field(game: str) -> dict[str, str]:
    """The ``game`` field of a record or settings: none for Trap!, as records always were."""
    return {} if game == DEFAULT_GAME else {"game": game}


def record_game(record: Record) -> str:
    """The game a (checked) record's game is of: Trap! when it names none."""
    return record.get("game", DEFAULT_GAME)  # type: ignore[no-any-return]


def end_reasons(game: str) -> tuple[str, ...]:
    """Every way a game of ``game`` can end: its own reasons, the turn limit, or a fault."""
    return (*get_game(game).end_reasons, TRUNCATED, *FAULTS)


def record_decay(record: Record) -> int:
    """The decay a (checked) record's game was played with: the default when it names none."""
    return record.get("decay", DEFAULT_DECAY)  # type: ignore[no-any-return]


def check_record(record: object) -> None:
    """Check that ``record`` has the fields and types of a game record, and agrees with itself.

    This checks the record's shape (the fields :mod:`agents.arena.stats` and the replay
    read), not the game: replay its ``actions`` through the core for that.

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
    if record_game(record) == DEFAULT_GAME and "board_size" not in record:
        raise ResultsError("the record has no 'board_size'")
    reasons = end_reasons(record_game(record))
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


# --- Writing ---------------------------------------------------------------------------


def settings_path(results_path: Path) -> Path:
    """Where the settings of the run writing ``results_path`` are kept."""
    return results_path.with_suffix(".settings.json")


def lock_path(results_path: Path) -> Path:
    """The file a run writing ``results_path`` holds locked."""
    return results_path.with_suffix(".lock")


class ResultsLog:
    """A results file, locked against other runs while this one uses it (a context manager).

    Use :meth:`previous` to learn which games to keep (it refuses what the run may not
    do), then :meth:`start` to commit to the file, then :meth:`append` for each game.
    """

    def __init__(self, path: str | os.PathLike[str], report: Callable[[str], None] = print) -> None:
        self.path = Path(path)
        self.report = report
        self._lock_fd: int | None = None
        self._fd: int | None = None

    def __enter__(self) -> ResultsLog:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock_fd = _take_lock(lock_path(self.path), self.path)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for fd in (self._fd, self._lock_fd):
            if fd is not None:
                os.close(fd)  # closing the lock's descriptor releases the lock
        self._fd = self._lock_fd = None

    def previous(self, settings: dict[str, Any], *, resume: bool, overwrite: bool) -> list[Record]:
        """The recorded games this run keeps, after checking that it may use the file.

        Args:
            settings: the run's settings (JSON values), compared with the recorded ones.
            resume: continue the file: keep its games (the settings must match).
            overwrite: replace the file's games (ignored with ``resume``).

        Raises:
            ResultsError: the file holds games and neither ``resume`` nor ``overwrite`` was
                asked; or ``resume`` with settings that differ from the recorded ones (each
                difference named); or an unreadable line.
        """
        if not self.path.exists() or (overwrite and not resume):
            return []
        results = read_results(self.path)
        if not resume:
            if results.records:
                raise ResultsError(
                    f"{self.path} already holds {len(results.records)} recorded games; "
                    "continue that run with --resume, replace its games with --overwrite, "
                    "or choose another output folder"
                )
            return []
        _check_settings(self.path, settings, results.records)
        return results.records

    def start(self, settings: dict[str, Any], *, keep: bool) -> None:
        """Record the settings and open the file for appending (emptied unless ``keep``)."""
        if keep and self.path.exists():
            self._finish_last_line()
        else:
            self.path.write_bytes(b"")
        write_text_atomically(settings_path(self.path), json.dumps(settings, indent=2) + "\n")
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(self, record: Record) -> None:
        """Append one game as a whole line and flush it to disk.

        Raises:
            ResultsError: if the line cannot be written (a full disk, say), saying that the
                games recorded before it are kept and how to go on.
        """
        assert self._fd is not None, "start() the log before appending"
        data = memoryview((json.dumps(record) + "\n").encode())
        try:
            _write_line(self._fd, data)
        except OSError as error:
            raise ResultsError(
                f"{self.path}: cannot record game {record.get('game_id')!r} "
                f"({error.strerror or error}); the games recorded before it are kept: make "
                "room and run again with --resume"
            ) from None

    def _finish_last_line(self) -> None:
        """Cut an unfinished last line (reporting it), or end a complete one with its newline."""
        results = read_results(self.path)
        data = self.path.read_bytes()
        if results.torn_tail is not None:
            self.report(_torn_message(self.path, results.torn_tail))
            with open(self.path, "r+b") as file:
                file.truncate(data.rfind(b"\n") + 1)
        elif data and not data.endswith(b"\n"):
            with open(self.path, "ab") as file:
                file.write(b"\n")


def _write_line(fd: int, data: memoryview) -> None:
    """Write ``data`` to the O_APPEND file ``fd`` and flush it to disk."""
    while data:  # one write() of an O_APPEND file is one piece; loop on a short write
        data = data[os.write(fd, data) :]
    os.fsync(fd)


def _take_lock(path: Path, results: Path) -> int:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    if fcntl is None:
        return fd
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        raise ResultsError(
            f"another run (process {holder}) is writing to {results}; wait for it to end, "
            "or choose another output folder"
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


_UNNAMED = {"board_sizes": None, "opening_plies": 0}
"""Settings that a settings file names only when they are not these values."""


def _check_settings(path: Path, settings: dict[str, Any], records: list[Record]) -> None:
    """Refuse to resume a file recorded with other settings, naming each difference."""
    recorded = _UNNAMED | _recorded_settings(path, records)
    settings = _UNNAMED | settings
    differences = [
        f"{name} {_show(recorded[name])} there, {_show(value)} now"
        for name, value in settings.items()
        if name in recorded and recorded[name] != value
    ]
    if differences:
        raise ResultsError(
            f"cannot resume {path}: it was recorded with other settings ("
            + "; ".join(differences)
            + "); resume with the recorded settings, or use --overwrite or another folder"
        )


def _recorded_settings(path: Path, records: list[Record]) -> dict[str, Any]:
    """The settings file's contents; for a file from before settings files, its first game's.

    A run from before the decay was a setting played the game as specified: its settings
    say the default decay. Settings and records that name no game are Trap!'s.
    """
    try:
        text = settings_path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        if not records:
            return {}
        first = records[0]
        kept = ("board_size", "max_turns", "time_budget")
        return {name: first[name] for name in kept if name in first} | {
            "decay": record_decay(first),
            "game": record_game(first),
        }
    try:
        recorded = json.loads(text)
    except json.JSONDecodeError as error:
        raise ResultsError(f"{settings_path(path)} is not JSON ({error}); remove it") from None
    if not isinstance(recorded, dict):
        raise ResultsError(f"{settings_path(path)} is not a settings object; remove it")
    return {"decay": DEFAULT_DECAY, "game": DEFAULT_GAME} | recorded


def _show(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    return str(value)

"""A run's folder: what the run is, who holds it, and whether it may go on there.

A rating (:mod:`agents.rating.run`) or a comparison (:mod:`agents.rating.comparison`) plays
into a folder: ``results.jsonl`` holds its games, ``<kind>.json`` what the run is (its
specs, seed, games, ladder identity and the SHA-256 of each file the specs load), and
``card.json`` its card once it ends. A new run may use a new folder or one it overwrites;
a resumed run only its own (the same description, the same files, and games that replay
to their records).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeGuard

from agents.arena.plan import MAX_SECONDS, GameTask, RunConfig
from agents.arena.replays import replay_record
from agents.arena.results import Record, read_results
from agents.arena.tournament import game_session
from agents.files import write_text_atomically
from agents.spec_files import file_changes, file_digests

__all__ = [
    "CARD_FILE",
    "PACKED_FILE",
    "RESULTS_FILE",
    "check_arguments",
    "check_files",
    "check_folder",
    "check_kind",
    "claim",
    "play_batches",
]

CARD_FILE = "card.json"
RESULTS_FILE = "results.jsonl"
PACKED_FILE = "results.jsonl.xz"
"""A finished calibration's games, packed (xz: LZMA, the same bytes for the same games)."""

KIND_FILES = {"rating": "rating.json", "comparison": "comparison.json",
              "calibration": PACKED_FILE}  # fmt: skip
"""The file that marks a folder as each kind of run's."""




def check_arguments(games: object, seed: object, cpu_cap: object) -> None:
    """Refuse a number of games that is not an even integer >= 2, a seed that is not an
    integer, or a CPU cap that is not a finite number of seconds (an infinite one would be
    no cap, and no wall-clock ceiling either)."""
    if not _is_int(games) or games < 2 or games % 2:
        raise ValueError(f"games must be an even integer >= 2 (pairs of seats), got {games!r}")
    if not _is_int(seed):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    is_number = _is_int(cpu_cap) or isinstance(cpu_cap, float)
    # nan and inf fail the comparison: no cap would also lift the wall-clock ceiling
    if not (is_number and 0 < cpu_cap <= MAX_SECONDS):  # type: ignore[operator]
        raise ValueError(
            f"cpu_cap must be CPU seconds per turn, a finite number > 0 and <= "
            f"{MAX_SECONDS:.0f}, got {cpu_cap!r}"
        )


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def check_files(files: Mapping[str, str], output: Path) -> None:
    """Stop the run if a file the specs load is not the one it recorded."""
    changes = file_changes(files, file_digests(files))
    if changes:
        raise ValueError(
            f"{'; '.join(changes)}: a file the specs load changed during the run, which "
            f"stops; the games played before are kept in {output / RESULTS_FILE}: put the "
            "file back and run again with --resume, or start afresh with --overwrite"
        )


def claim(
    output: Path,
    run: dict[str, Any],
    kind: str = "rating",
    *,
    on_start: Callable[[], None] | None = None,
) -> None:
    """Write what the run is (its checks passed) to ``output/<kind>.json``; a card of the
    games before goes. ``on_start`` is called first: the caller's announcement of the run,
    which comes only once nothing is left to refuse."""
    if on_start is not None:
        on_start()
    write_text_atomically(output / f"{kind}.json", json.dumps(run, indent=2) + "\n")
    (output / CARD_FILE).unlink(missing_ok=True)  # the new card comes with the last game


def check_kind(output: Path, kind: str) -> None:
    """Refuse ``output`` to a ``kind`` of run (:data:`KIND_FILES`) when it holds another
    kind's, even to ``overwrite``: that replaces the games, and the other's files would stay
    beside them."""
    for other, name in KIND_FILES.items():
        if other != kind and (output / name).exists():
            raise ValueError(
                f"{output} holds a {other} ({name}), not a {kind}: a {kind} writes into a "
                "folder of its own; write elsewhere"
            )


def check_folder(
    output: Path, run: dict[str, Any], *, resume: bool, overwrite: bool, kind: str = "rating"
) -> None:
    """Check that this run (a ``kind``: ``"rating"``, ``"comparison"``, described in
    ``output/<kind>.json``) may use ``output``: a new folder, ``overwrite``, or on
    ``resume`` the same run (its description, its files, and games that replay); never
    another kind's folder (:func:`check_kind`)."""
    check_kind(output, kind)
    path = output / KIND_FILES[kind]
    if overwrite and not resume:
        return
    if not resume:
        if path.exists():
            raise ValueError(
                f"{output} holds a {kind} already; --resume it or --overwrite it, or write "
                "elsewhere"
            )
        return
    results = output / RESULTS_FILE
    games = read_results(results).records if results.exists() else []
    if path.exists():
        _check_same_run(path, run, kind)
    elif games:
        raise ValueError(
            f"{output} holds games but no {path.name}: they are not a {kind}'s (a "
            "tournament's?); write elsewhere, or replace them with --overwrite"
        )
    _check_replays(results, games)


def _check_same_run(path: Path, run: dict[str, Any], kind: str) -> None:
    """Refuse to resume a run that is not this one: another spec, seed, number of games,
    ladder (by its identity too), or files the specs load that changed since."""
    try:
        before = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"{path} is not a {kind}'s description: {error}") from None
    if not isinstance(before, dict):
        raise ValueError(
            f"{path} is not a {kind}'s description (a JSON object), it holds a "
            f"{type(before).__name__}; remove it, or write elsewhere"
        )
    for key, value in run.items():
        if key != "files" and before.get(key) != value:
            raise ValueError(
                f"{path.parent} holds a {kind} with {key} {before.get(key)!r}, this one "
                f"has {value!r}; resume with the same arguments or write elsewhere"
            )
    recorded = before.get("files")
    changes = file_changes(recorded if isinstance(recorded, dict) else {}, run["files"])
    if changes:
        raise ValueError(
            f"cannot resume {path.parent}: the files the specs load are not those its "
            f"games were played with ({'; '.join(changes)}); put them back, or start afresh "
            "with --overwrite or elsewhere"
        )


def _check_replays(results: Path, games: Sequence[Record]) -> None:
    """Replay every recorded game: its actions (chance outcomes included) must lead to its
    winner, reason and turns, and a fault to a live position with the faulting seat to act.

    Raises:
        ValueError: naming the first game that does not replay.
    """
    for record in games:
        try:
            replay_record(record)
        except ValueError as error:
            raise ValueError(
                f"{results}: game {record['game_id']!r} does not replay to its record "
                f"({error}); the file was edited or damaged: restore it, or start afresh "
                "with --overwrite"
            ) from None


def play_batches(
    output: Path,
    run: dict[str, Any],
    config: RunConfig,
    tasks: list[GameTask],
    next_tasks: Callable[[list[Record]], list[GameTask]],
    *,
    kind: str = "rating",
    resume: bool,
    overwrite: bool,
    check: bool,
    on_start: Callable[[], None] | None,
) -> None:
    """Play ``tasks``, then each batch ``next_tasks`` gives for the records of the batch
    before (none: the run is done), into ``output`` on one pool and one open results file
    (:func:`~agents.arena.tournament.game_session`), the specs' files checked unchanged
    before each batch and each record; the folder is claimed (:func:`claim`) once the
    session's checks passed.

    Raises:
        ValueError: for games the machine left unplayed, changed files, and what
            :func:`~agents.arena.tournament.game_session` raises.
    """
    check_files(run["files"], output)
    with game_session(
        output / RESULTS_FILE, config, tasks, resume=resume, overwrite=overwrite, check=check,
        progress=False, on_start=lambda: claim(output, run, kind, on_start=on_start),
        before_record=lambda record: check_files(run["files"], output),
    ) as session:
        while tasks:
            played = session.play(tasks)
            if len(played) < len(tasks):
                raise ValueError(
                    f"{len(tasks) - len(played)} games were left unplayed (the machine stalled "
                    "them again and again); run again with --resume"
                )
            tasks = next_tasks(played)
            if tasks:
                check_files(run["files"], output)

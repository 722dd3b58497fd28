"""Calibrate a ladder: play its calibration stage by stage, fit it, and keep its games packed.

A calibration plays into its folder (by default ``calibration/<game>/<file stem>/`` at the
top of the checkout, outside the packages): ``results.jsonl`` while it runs, with one
results file and one pool of workers (or one Ray connection) for all its stages
(:func:`~agents.arena.tournament.game_session`). The file is its state: a resumed
calibration replays the schedule (:func:`~agents.rating.schedule.calibration_stage`) over the
games recorded and plays only the others. Once done, the games are packed into
``results.jsonl.xz`` (a few hundred kilobytes for thousands of games) and the plain file
removed; ``--resume`` unpacks them, and :func:`calibration_records` reads either, so that a
later session resumes or audits (``trap-rate --verify``) the calibration.

Example:
    >>> from agents.rating.ladder import new_ladder
    >>> ladder = new_ladder("trap", {"board_size": 4}, ["random", "greedy"], version=2)
    >>> rated = calibrate_ladder(ladder, Path("calibration/trap/v2-4x4"))  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import datetime
import lzma
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from agents.arena.plan import RunConfig
from agents.arena.results import Record, read_results
from agents.arena.tournament import game_session
from agents.files import locked_folder, replace_atomically
from agents.rating.fingerprint import fingerprints_of
from agents.rating.fit import fit_calibration
from agents.rating.ladder import Ladder
from agents.rating.run_folder import PACKED_FILE, RESULTS_FILE, check_kind
from agents.rating.schedule import calibration_games, calibration_stage

__all__ = ["PACKED_FILE", "RESULTS_FILE", "calibrate_ladder", "calibration_records"]

def calibrate_ladder(
    ladder: Ladder,
    output: Path,
    *,
    run_options: dict[str, Any] | None = None,
    resume: bool = False,
    overwrite: bool = False,
    command: str = "",
    say: Callable[[str], None] = print,
    on_start: Callable[[], None] | None = None,
) -> Ladder:
    """Play ``ladder``'s calibration into ``output`` and give the ladder rated by it, with its
    covariance (a staged calibration's) and fingerprints; the games end packed.

    Args:
        run_options: further :class:`~agents.arena.plan.RunConfig` settings (``workers``,
            ``backend``, ``address``).
        resume: keep the games recorded there (packed or not) and play the others.
        overwrite: replace them.
        command: the command that plays it, recorded in the ladder.
        say: called with a line after each stage.
        on_start: called once every check has passed (the settings, the folder and the games
            there, each rung built once: :func:`~agents.arena.tournament.check_specs`), before
            the calibration changes anything: where a caller announces it, so that a
            refusal comes alone and leaves the folder as it was.

    Raises:
        ValueError: for a rating's or comparison's folder (:func:`check_kind`), packed
            games there without ``resume`` or ``overwrite``, packed games that cannot be
            unpacked, games left unplayed, a fit without a finite estimate, and what
            :func:`~agents.arena.tournament.run_games` raises (settings, a held file).
    """
    results, packed = output / RESULTS_FILE, output / PACKED_FILE
    config = ladder.run_config(**(run_options or {}))
    with locked_folder(output, "calibration folder"):
        check_kind(output, "calibration")
        if packed.exists() and not (resume or overwrite):
            raise ValueError(
                f"{output} holds a calibration's games already ({PACKED_FILE}); continue it "
                "with --resume, replace them with --overwrite, or choose another output folder"
            )
        with _unpacked_until_started(packed, results, resume=resume) as started:

            def begin() -> None:  # the checks passed: games packed before are replaced, or kept
                if on_start is not None:
                    on_start()
                started()
                if overwrite:
                    packed.unlink(missing_ok=True)

            records = _play_stages(ladder, results, config, resume=resume, overwrite=overwrite,
                                   say=say, on_start=begin)  # fmt: skip
        _pack(results, packed)
    ratings, covariance = fit_calibration(ladder, records)
    calibration = replace(
        ladder.calibration, num_games=len(records), command=command,
        date=datetime.date.today().isoformat(),
    )
    rated = ladder.with_ratings(ratings, calibration, covariance)
    return replace(rated, fingerprints=fingerprints_of(rated))


def _play_stages(
    ladder: Ladder,
    results: Path,
    config: RunConfig,
    *,
    resume: bool,
    overwrite: bool,
    say: Callable[[str], None],
    on_start: Callable[[], None],
) -> list[Record]:
    """Play the calibration's stages into ``results`` on one session (``on_start`` called
    once its checks passed); every game's record."""
    with game_session(
        results, config, calibration_stage(ladder, []), resume=resume, overwrite=overwrite,
        on_start=on_start,
    ) as session:

        def play(tasks: list[Any]) -> list[Record]:
            played = session.play(tasks)
            stages.append(len(tasks))
            say(f"stage {len(stages)}: {len(tasks)} games ({sum(stages)} in all)")
            return played

        stages: list[int] = []
        return calibration_games(ladder, play)


@contextlib.contextmanager
def _unpacked_until_started(
    packed: Path, results: Path, *, resume: bool
) -> Iterator[Callable[[], None]]:
    """For a resume of packed games alone, unpack them to ``results`` (where the run reads
    the games it keeps) for the block, and remove that file again unless the block calls
    the function it is given once the run's checks passed: a refused resume leaves the
    folder as it was, as a results file a refused run created goes
    (:class:`~agents.arena.results.ResultsLog`). A run killed in between leaves the file
    beside the packed one, the same games: either is read, and ``resume`` goes on.

    Raises:
        ValueError: for packed games that cannot be unpacked (naming the file).
    """
    unpacked = resume and packed.exists() and not results.exists()
    if unpacked:
        data = _unpacked(packed)
        replace_atomically(results, lambda path: path.write_bytes(data))
    is_started = False

    def started() -> None:
        nonlocal is_started
        is_started = True

    try:
        yield started
    finally:
        if unpacked and not is_started:
            results.unlink(missing_ok=True)


def _pack(results: Path, packed: Path) -> None:
    """Pack the finished calibration's games and remove the plain file (packed first: a
    killed run leaves both, the plain one whole)."""
    data = results.read_bytes()
    replace_atomically(packed, lambda path: path.write_bytes(lzma.compress(data, preset=9)))
    results.unlink()


def calibration_records(folder: Path) -> list[Record]:
    """The games of the calibration in ``folder``: ``results.jsonl`` (a calibration under
    way or stopped), else its packed games, read strictly.

    Raises:
        ValueError: for no games there, a file that cannot be read or unpacked, a line that
            is no game record, or an unfinished last line.
    """
    results, packed = folder / RESULTS_FILE, folder / PACKED_FILE
    if not results.exists() and packed.exists():
        data = _unpacked(packed)
        return _read_records(packed, lambda: _read_unpacked(data))
    return _read_records(results, lambda: read_results(results))


def _unpacked(packed: Path) -> bytes:
    """The games of ``packed``, unpacked.

    Raises:
        ValueError: for a file that cannot be read or unpacked (naming it).
    """
    try:
        return lzma.decompress(packed.read_bytes())
    except (OSError, lzma.LZMAError) as error:
        raise ValueError(f"{packed}: cannot be unpacked: {error}") from None


def _read_unpacked(data: bytes) -> Any:
    """The records of unpacked results (the results reader reads a file: a temporary one)."""
    with tempfile.TemporaryDirectory() as temporary:
        path = Path(temporary, RESULTS_FILE)
        path.write_bytes(data)
        return read_results(path)


def _read_records(path: Path, read: Callable[[], Any]) -> list[Record]:
    try:
        results = read()
    except OSError as error:
        raise ValueError(f"{path}: cannot be read: {error.strerror or error}") from None
    if results.torn_tail is not None:
        raise ValueError(f"{path} ends in an unfinished line: not a finished calibration")
    records: list[Record] = results.records
    return records

"""Calibrate a ladder: play its calibration stage by stage, fit it, and keep its games packed.

A calibration plays into its folder (by default ``calibration/<game>/<file stem>/`` at the
top of the checkout, outside the packages): ``results.jsonl`` while it runs, with one
results file and one pool of workers (or one Ray connection) for all its stages
(:func:`~agents.arena.tournament.game_session`). The file is its state: a resumed
calibration replays the schedule (:func:`~agents.rating.schedule.calibration_stage`) over the
games recorded and plays only the others. Once done, the games are packed into
``results.jsonl.xz`` (a few hundred kilobytes for thousands of games) and the plain file
removed; ``--resume`` checks them in memory and then unpacks them, and
:func:`calibration_records` reads either, so that a later session resumes or audits
(``trap-rate --verify``) the calibration.

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
from agents.arena.results import Record, Results, ResultsError, check_resumable, read_results
from agents.arena.tournament import check_specs, game_session, unrecorded_specs
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
        unpacking = resume and packed.exists() and not results.exists()
        kept = _checked_packed_games(packed, results, ladder, config) if unpacking else None
        with _unpacked_until_started(kept, results) as started:

            def begin() -> None:  # the checks passed: games packed before are replaced, or kept
                if on_start is not None:
                    on_start()
                started()
                if overwrite:
                    packed.unlink(missing_ok=True)

            records = _play_stages(ladder, results, config, resume=resume, overwrite=overwrite,
                                   check=kept is None, say=say, on_start=begin)  # fmt: skip
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
    check: bool,
    say: Callable[[str], None],
    on_start: Callable[[], None],
) -> list[Record]:
    """Play the calibration's stages into ``results`` on one session (``on_start`` called
    once its checks passed; with ``check``, the rungs it has games left of are built once
    first, :func:`check_specs`); every game's record."""
    with game_session(
        results, config, calibration_stage(ladder, []), resume=resume, overwrite=overwrite,
        check=check, on_start=on_start,
    ) as session:

        def play(tasks: list[Any]) -> list[Record]:
            played = session.play(tasks)
            stages.append(len(tasks))
            say(f"stage {len(stages)}: {len(tasks)} games ({sum(stages)} in all)")
            return played

        stages: list[int] = []
        return calibration_games(ladder, play)


def _checked_packed_games(packed: Path, results: Path, ladder: Ladder, config: RunConfig) -> bytes:
    """The packed games a resume keeps, unpacked in memory and checked there as the run
    checks the games it keeps (the settings they were recorded with; each rung of the first
    stage with games left to play built once, :func:`check_specs`), before anything is
    written: a refused resume leaves the folder untouched.

    Raises:
        ValueError: for packed games that cannot be unpacked or read (naming the file),
            games recorded with other settings, or a rung that cannot play.
    """
    data = _unpacked(packed)
    records = _read_records(packed, lambda: _read_unpacked(data, packed, (config.game_name,)),
                            finished=False)  # fmt: skip
    check_resumable(results, config.settings(), records)
    check_specs(unrecorded_specs(calibration_stage(ladder, []), records), config)
    return data


@contextlib.contextmanager
def _unpacked_until_started(data: bytes | None, results: Path) -> Iterator[Callable[[], None]]:
    """With the checked games of a resume of packed games (:func:`_checked_packed_games`),
    write them to ``results`` (where the run reads the games it keeps) for the block, and
    remove that file again unless the block calls the function it is given once the run's
    checks passed: a resume refused by a check the run makes alone (a settings file that is
    a link) leaves the folder as it was, as a results file a refused run created goes
    (:class:`~agents.arena.results.ResultsLog`). A run killed in between leaves the file
    beside the packed one, the same games: either is read, and ``resume`` goes on.
    """
    if data is not None:
        replace_atomically(results, lambda path: path.write_bytes(data))
    is_started = False

    def started() -> None:
        nonlocal is_started
        is_started = True

    try:
        yield started
    finally:
        if data is not None and not is_started:
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
        return _read_records(packed, lambda: _read_unpacked(data, packed, ()))
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


def _read_unpacked(data: bytes, packed: Path, allow_paths: tuple[str, ...]) -> Results:
    """The records of ``packed``'s unpacked games ``data`` (the results reader reads a file:
    a temporary one, outside the calibration's folder), ``allow_paths`` as
    :func:`read_results`'s.

    Raises:
        ResultsError: for a line that is no game record, naming ``packed``.
    """
    with tempfile.TemporaryDirectory() as temporary:
        path = Path(temporary, RESULTS_FILE)
        path.write_bytes(data)
        try:
            return read_results(path, allow_paths=allow_paths)
        except ResultsError as error:  # it names the temporary file, which the user never saw
            raise ResultsError(str(error).replace(str(path), f"{packed} (unpacked)")) from None


def _read_records(
    path: Path, read: Callable[[], Results], *, finished: bool = True
) -> list[Record]:
    """The records ``read`` gives of ``path``; ``finished``: refuse an unfinished last line
    (a resume finishes it).

    Raises:
        ValueError: naming ``path``, for a file that cannot be read, a line that is no game
            record, or (``finished``) an unfinished last line.
    """
    try:
        results = read()
    except OSError as error:
        raise ValueError(f"{path}: cannot be read: {error.strerror or error}") from None
    if finished and results.torn_tail is not None:
        raise ValueError(f"{path} ends in an unfinished line: not a finished calibration")
    records: list[Record] = results.records
    return records

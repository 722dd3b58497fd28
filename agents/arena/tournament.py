"""Many games in parallel worker processes, surviving faulty agents, busy machines, killed runs.

Games are :class:`GameTask` values (who sits where, and the game's seed); :func:`round_robin`
makes them for every pair of agent specs (see :mod:`agents.arena.plan`, which holds them and
:class:`RunConfig`). :func:`run_games` plays them with the backend that ``RunConfig.backend``
names in :data:`BACKENDS`: worker processes (:mod:`agents.arena.pool`) or Ray tasks
(:mod:`agents.arena.ray_backend`); each game is :func:`agents.arena.worker.play_task`.

Before the first game, :func:`check_specs` builds each agent once in a guarded child
process (:mod:`agents.arena.probe`), so that a constructor that raises, exits or hangs is a
one-line error naming the spec, and asks it whether it can play the board.

Time: inside a worker, :func:`agents.arena.match.play_game` holds each turn to a CPU-time
budget; the pool adds a wall-clock ceiling per turn and replays, at most
:data:`MAX_REPLAYS` times, a game that the machine stalled.

Results: see :mod:`agents.arena.results`. Each finished game is appended at once as one
JSON line; ``resume=True`` keeps the games already in the file and plays only the others,
so a killed run loses at most the games in flight.

Example:
    >>> tasks = round_robin(["random", "greedy"], games_per_pairing=4, seed=0)
    >>> records = run_games(
        tasks, "results.jsonl", RunConfig(game_name="trap", params={"board_size": 5}, workers=2)
    )
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from agents.arena.plan import (
    BACKENDS,
    MAX_REPLAYS,
    MAX_SECONDS,
    GameTask,
    Report,
    RunConfig,
    round_robin,
)
from agents.arena.probe import check_specs, probe_specs
from agents.arena.record_rules import record_game, record_params
from agents.arena.results import (
    Record,
    ResultsError,
    ResultsLog,
    load_results,
)
from agents.arena.worker import Beat, play_task
from trap_env.game import played_params
from trap_env.games import get_game

__all__ = [
    "BACKENDS",
    "MAX_REPLAYS",
    "MAX_SECONDS",
    "Beat",
    "GameSession",
    "GameTask",
    "RunConfig",
    "check_specs",
    "game_session",
    "load_results",
    "play_task",
    "probe_specs",
    "round_robin",
    "run_games",
    "unrecorded_specs",
]


# --- Running ---------------------------------------------------------------------------


def run_games(
    tasks: Sequence[GameTask],
    results_path: str | os.PathLike[str],
    config: RunConfig,
    *,
    resume: bool = False,
    overwrite: bool = False,
    check: bool = True,
    progress: bool = True,
    report: Report | None = None,
    on_start: Callable[[], None] | None = None,
    before_record: Callable[[Record], None] | None = None,
) -> list[Record]:
    """Play the tasks, appending each finished game to ``results_path`` as a JSON line.

    The results file is locked while the run uses it, and its settings are recorded beside
    it (see :mod:`agents.arena.results`). One batch of :func:`game_session`.

    Args:
        tasks: the games; their ``game_id`` must be unique.
        results_path: the JSON Lines file.
        config: board, time and worker settings.
        resume: keep the games already in the file (recorded with the same settings) and
            play only the missing ones.
        overwrite: replace the games of a file that holds some (without ``resume``).
        check: check the agents' specs (:func:`check_specs`) before the first game.
        progress: show a tqdm progress bar on stderr.
        report: called with notes for the user (a torn line cut, a game replayed or left
            unplayed after machine stalls); default: printed to stderr.
        on_start: called once the run may use the file (its checks passed), before it
            writes anything to it: the caller's own description of the run goes there.
        before_record: called with each game played before it is recorded; what it raises
            stops the run, the game unrecorded (a file the agents load that changed).

    Returns:
        The records of the tasks (from the file and new), in task order; a game that the
        machine stalled more than :data:`MAX_REPLAYS` times has none (and is reported).

    Raises:
        OSError: if the results file cannot be written (before any game starts).
        ResultsError: for a file held by another run, holding games without ``resume`` or
            ``overwrite``, or recorded with other settings.
        SpecError, UnsupportedGameError: from :func:`check_specs`.
        ValueError: for repeated game ids.
    """
    _check_unique(tasks)
    with game_session(
        results_path, config, tasks, resume=resume, overwrite=overwrite, check=check,
        progress=progress, report=report, on_start=on_start, before_record=before_record,
    ) as session:
        return session.play(tasks)


@contextlib.contextmanager
def game_session(
    results_path: str | os.PathLike[str],
    config: RunConfig,
    planned: Sequence[GameTask] = (),
    *,
    resume: bool = False,
    overwrite: bool = False,
    check: bool = True,
    progress: bool = True,
    report: Report | None = None,
    on_start: Callable[[], None] | None = None,
    before_record: Callable[[Record], None] | None = None,
) -> Iterator[GameSession]:
    """One results file and one pool of workers for many batches of games, each batch
    chosen after the one before (a rating's rounds, a calibration's stages): the file is
    locked and checked once, the workers (or the Ray connection) started once.

    The arguments are :func:`run_games`'s; ``planned`` are the games known as the session
    begins (its first batch): with ``check``, the specs of those the file holds no game of
    are checked (:func:`check_specs`) before ``on_start`` and before anything is written.

    Raises:
        as :func:`run_games`, when the session begins.
    """
    say = report or _print_note
    with ResultsLog(results_path, say) as log:
        kept = log.previous(config.settings(), resume=resume, overwrite=overwrite)
        todo = unrecorded_specs(planned, kept)
        if check and todo:
            check_specs(todo, config)
        log.acquire()  # the checks passed: the file's first write (a refused run makes none)
        if on_start is not None:
            on_start()
        log.start(config.settings(), keep=resume)
        session = GameSession(log, config, kept, say, progress, before_record)
        try:
            yield session
        finally:
            session.close()
        log.check_in_place()  # replaced after the last game: report no game that is not there


def unrecorded_specs(planned: Sequence[GameTask], kept: Iterable[Record]) -> list[str]:
    """The seats' specs of the ``planned`` games that ``kept`` holds no game of: those a
    session checks (:func:`check_specs`) before it starts."""
    recorded = {record["game_id"] for record in kept}
    return [spec for task in planned if task.game_id not in recorded for spec in task.seats]


class GameSession:
    """The games of an open results file, played in batches by one pool
    (:func:`game_session` makes it)."""

    def __init__(
        self,
        log: ResultsLog,
        config: RunConfig,
        kept: list[Record],
        say: Report,
        progress: bool,
        before_record: Callable[[Record], None] | None,
    ) -> None:
        self.log, self.config, self.say = log, config, say
        self.recorded = list(kept)  # the file's games: those kept, then those played
        self.progress, self.before_record = progress, before_record
        self.pool: Pool | None = None
        self._on_finish: Callable[[Record], None] | None = None

    def play(self, tasks: Sequence[GameTask]) -> list[Record]:
        """Play the tasks the file holds no game of; the records of all of them, in task
        order (see :func:`run_games`).

        Raises:
            ValueError: for repeated game ids; ResultsError for a recorded game of another
                seed, seats or settings.
        """
        _check_unique(tasks)
        done = _matching_records(self.log.path, self.recorded, tasks, self.config)
        todo = [task for task in tasks if task.game_id not in done]
        with _progress_bar(len(tasks), len(done), self.progress) as bar:

            def finish(record: Record) -> None:
                if self.before_record is not None:
                    self.before_record(record)
                self.log.append(record)
                self.recorded.append(record)
                done[record["game_id"]] = record
                bar.update(1)

            if self.config.num_workers == 0:
                for task in todo:
                    finish(play_task(task, self.config, {}, None))
            elif todo:
                if self.pool is None:
                    pool = backend_pool(self.config.backend)
                    self.pool = pool(self.config, self._finish, self.say)
                self._on_finish = finish
                self.pool.play(todo)
        return [done[task.game_id] for task in tasks if task.game_id in done]

    def _finish(self, record: Record) -> None:
        """The pool's callback: the current batch's ``finish``."""
        assert self._on_finish is not None, "a pool plays only inside play()"
        self._on_finish(record)

    def close(self) -> None:
        """Stop the pool's workers (its connection)."""
        if self.pool is not None:
            self.pool.close()
            self.pool = None


def _check_unique(tasks: Sequence[GameTask]) -> None:
    """Refuse two tasks with one game id (``resume`` skips by it)."""
    if len({task.game_id for task in tasks}) != len(tasks):
        raise ValueError("game ids must be unique within a run")


def _print_note(message: str) -> None:
    from tqdm import tqdm

    tqdm.write(f"note: {message}", file=sys.stderr)


def _matching_records(
    path: Path, records: list[Record], tasks: Sequence[GameTask], config: RunConfig
) -> dict[str, Record]:
    """The recorded games of ``tasks``, checked to come from the same tasks and settings."""
    by_id = {task.game_id: task for task in tasks}
    done: dict[str, Record] = {}
    for record in records:
        task = by_id.get(record["game_id"])
        if task is None:
            continue
        expected = {
            "max_turns": config.turn_limit_for(task.seed),
            "game": config.game_name,
        } | _all_params(config.game_name, config.rule_params_for(task.seed))
        if record["seed"] != task.seed or tuple(record["seats"]) != task.seats:
            raise ResultsError(
                f"{path} holds game {task.game_id!r} with another seed or seats: it comes from "
                "a run with other settings; resume with the same ones or write elsewhere"
            )
        played = {
            "max_turns": record["max_turns"],
            "game": record_game(record),
        } | _all_params(config.game_name, record_params(record))
        for name, value in expected.items():
            if played.get(name) != value:
                raise ResultsError(
                    f"{path} holds game {task.game_id!r} played with {name} {played[name]}, "
                    f"this run has {value}; resume with the same settings or write elsewhere"
                )
        if done.get(task.game_id, record) != record:
            raise ResultsError(
                f"{path} holds two different records of game {task.game_id!r} (winner "
                f"{done[task.game_id]['winner']} and {record['winner']}): a file written by "
                "two runs or edited by hand; keep one of its lines, or start over with "
                "--overwrite"
            )
        done[task.game_id] = record
    return done


def _all_params(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """Every rule parameter of the game ``name`` played with ``params`` (its defaults fill the
    others); none for parameters the game refuses (a record that is not of this run)."""
    game = get_game(name)
    try:
        return played_params(game, params)
    except (TypeError, ValueError):
        return {}


def _progress_bar(total: int, initial: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="game", disable=not enabled, smoothing=0.1)


class Pool(Protocol):
    """What a backend's pool offers: play the tasks, calling ``finish`` as each game ends,
    keeping its workers for the next call until closed."""

    def play(self, tasks: Sequence[GameTask]) -> None: ...

    def close(self) -> None: ...


def backend_pool(name: str) -> Callable[[RunConfig, Callable[[Record], None], Report], Pool]:
    """The pool class of the backend ``name`` in :data:`BACKENDS`, imported now (Ray is an
    optional extra, imported only by a run that uses it)."""
    module, _, attribute = BACKENDS[name].partition(":")
    pool: Callable[[RunConfig, Callable[[Record], None], Report], Pool]
    pool = getattr(importlib.import_module(module), attribute)
    return pool

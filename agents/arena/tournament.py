"""Many games in parallel worker processes, surviving faulty agents, busy machines, killed runs.

Games are :class:`GameTask` values (who sits where, and the game's seed); :func:`round_robin`
makes them for every pair of agent specs, seats alternating, each game's seed derived from
the base seed, the pairing and the game's number (so any game replays alone).
:func:`run_games` plays them in worker processes that build the agents from their specs.

Before the first game, :func:`check_specs` builds each agent once in a child process
(guarded by a timeout, so that a constructor that raises, exits or hangs is a one-line
error naming the spec) and asks it whether it can play the board
(:func:`agents.base.check_supports`).

Time: inside a worker, :func:`agents.arena.match.play_game` holds each turn to a CPU-time
budget. The parent adds a wall-clock ceiling per turn: a worker whose agent blocks (sleeps,
waits, loops in native code) past it is killed, the game is recorded as that seat's loss
("timeout"), and a fresh worker takes its place. A timeout that the machine caused (the
worker was runnable but got no CPU, see :mod:`agents.arena.processes`) decides nothing:
the game is replayed, at most :data:`MAX_REPLAYS` times, and its record counts the
replays. A worker that dies is a "crash" loss for the seat that was acting, and the record
says how it died.

Results: see :mod:`agents.arena.results`. Each finished game is appended at once as one
JSON line; ``resume=True`` keeps the games already in the file and plays only the others,
so a killed run loses at most the games in flight.

Example:
    >>> tasks = round_robin(["random", "greedy"], games_per_pairing=4, seed=0)
    >>> records = run_games(tasks, "results.jsonl", RunConfig(board_size=5, workers=2))
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import sys
from collections.abc import Iterable, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from agents.arena.match import (
    interface_problem,
)
from agents.arena.plan import (
    BACKENDS,
    MAX_REPLAYS,
    MAX_SECONDS,
    GameTask,
    Report,
    RunConfig,
    round_robin,
)
from agents.arena.processes import (
    describe_exit,
)
from agents.arena.results import Record, ResultsError, ResultsLog, load_results, record_decay
from agents.arena.worker import Beat, play_task, program_limits
from agents.base import (
    SpecError,
    UnsupportedGameError,
    check_supports,
    make_agent,
)

__all__ = [
    "BACKENDS",
    "MAX_REPLAYS",
    "MAX_SECONDS",
    "Beat",
    "GameTask",
    "RunConfig",
    "check_specs",
    "load_results",
    "play_task",
    "probe_specs",
    "round_robin",
    "run_games",
]

# --- Checking agents before the first game ---------------------------------------------


def check_specs(specs: Iterable[str], config: RunConfig = RunConfig()) -> None:
    """Build each agent once in a guarded child process, before any game starts.

    Each agent must build within ``config.setup_seconds``, have the agent interface, and
    accept the board (:func:`agents.base.check_supports`).

    Raises:
        SpecError: for an unknown agent or option (the message lists what exists), a
            constructor that raises, exits its process or hangs, or an object that is not
            an agent; the message names the spec.
        UnsupportedGameError: for an agent that cannot play ``config``'s board.
    """
    for problem in probe_specs(specs, config).values():
        if problem is not None:
            raise problem


def probe_specs(
    specs: Iterable[str], config: RunConfig = RunConfig()
) -> dict[str, SpecError | UnsupportedGameError | None]:
    """Like :func:`check_specs`, but the problem of every spec (None if none), by spec."""
    order = list(dict.fromkeys(specs))
    problems: dict[str, SpecError | UnsupportedGameError | None] = {}
    context = multiprocessing.get_context(config.start_method)
    while len(problems) < len(order):
        problems.update(_probe_in_child(context, [s for s in order if s not in problems], config))
    return {spec: problems[spec] for spec in order}


def _probe_in_child(
    context: Any, specs: list[str], config: RunConfig
) -> dict[str, SpecError | UnsupportedGameError | None]:
    """Probe ``specs`` in one child; one that dies or hangs ends it with that spec's problem."""
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_probe_main, args=(sender, specs, config), daemon=True)
    process.start()
    sender.close()
    found: dict[str, SpecError | UnsupportedGameError | None] = {}
    current: str | None = None
    failure = ""
    try:
        while len(found) < len(specs):
            if not receiver.poll(config.setup_seconds):
                failure = f"took more than {config.setup_seconds:g} s"
                break
            try:
                kind, spec, message = receiver.recv()
            except (EOFError, OSError):
                process.join(timeout=5)
                failure = f"ended its process: {describe_exit(process.exitcode)}"
                break
            if kind == "start":
                current = spec
            else:
                found[spec] = None if message is None else _PROBLEMS[kind](message)
    finally:
        if process.is_alive():
            process.kill()
        process.join()
        receiver.close()
    if len(found) == len(specs):
        return found
    if current is not None and current not in found:
        return found | {current: SpecError(f"building agent {current!r} {failure}")}
    return found | {  # the child failed before building any agent: no culprit among them
        spec: SpecError(f"the process checking agent {spec!r} {failure}")
        for spec in specs
        if spec not in found
    }


_PROBLEMS: dict[str, type[SpecError | UnsupportedGameError]] = {
    "spec": SpecError,
    "unsupported": UnsupportedGameError,
}


def _probe_main(conn: Connection, specs: list[str], config: RunConfig) -> None:
    """The probing child: for each spec, announce it, then send its problem (or None)."""
    for spec in specs:
        conn.send(("start", spec, None))
        conn.send(_probe_one(spec, config))
    conn.close()


def _probe_one(spec: str, config: RunConfig) -> tuple[str, str, str | None]:
    try:
        agent = make_agent(spec, seed=0, **program_limits(spec, config))
        problem = interface_problem(agent)
        if problem is not None:
            return ("spec", spec, f"agent spec {spec!r} does not build an agent: {problem}")
        check_supports(agent, config.game)
    except UnsupportedGameError as error:
        return ("unsupported", spec, f"agent {spec!r} cannot play this game: {error}")
    except SpecError as error:
        return ("spec", spec, str(error))
    except (Exception, SystemExit) as error:
        return ("spec", spec, f"building agent {spec!r} raised {type(error).__name__}: {error}")
    return ("ok", spec, None)



# --- Running ---------------------------------------------------------------------------


def run_games(
    tasks: Sequence[GameTask],
    results_path: str | os.PathLike[str],
    config: RunConfig = RunConfig(),
    *,
    resume: bool = False,
    overwrite: bool = False,
    check: bool = True,
    progress: bool = True,
    report: Report | None = None,
) -> list[Record]:
    """Play the tasks, appending each finished game to ``results_path`` as a JSON line.

    The results file is locked while the run uses it, and its settings are recorded beside
    it (see :mod:`agents.arena.results`).

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
    if len({task.game_id for task in tasks}) != len(tasks):
        raise ValueError("game ids must be unique within a run")
    say = report or _print_note
    with ResultsLog(results_path, say) as log:
        kept = log.previous(config.settings(), resume=resume, overwrite=overwrite)
        done = _matching_records(log.path, kept, tasks, config)
        todo = [task for task in tasks if task.game_id not in done]
        if check and todo:
            check_specs([spec for task in todo for spec in task.seats], config)
        log.start(config.settings(), keep=resume)
        with _progress_bar(len(tasks), len(done), progress) as bar:

            def finish(record: Record) -> None:
                log.append(record)
                done[record["game_id"]] = record
                bar.update(1)

            if config.num_workers == 0:
                for task in todo:
                    finish(play_task(task, config, {}, None))
            else:
                _backend(config.backend)(config, finish, say).run(todo)
    return [done[task.game_id] for task in tasks if task.game_id in done]


def _print_note(message: str) -> None:
    from tqdm import tqdm

    tqdm.write(f"note: {message}", file=sys.stderr)


def _matching_records(
    path: Path, records: list[Record], tasks: Sequence[GameTask], config: RunConfig
) -> dict[str, Record]:
    """The recorded games of ``tasks``, checked to come from the same tasks and settings."""
    by_id = {task.game_id: task for task in tasks}
    expected = {
        "board_size": config.board_size,
        "max_turns": config.turn_limit,
        "decay": config.decay,
    }
    done = {}
    for record in records:
        task = by_id.get(record["game_id"])
        if task is None:
            continue
        if record["seed"] != task.seed or tuple(record["seats"]) != task.seats:
            raise ResultsError(
                f"{path} holds game {task.game_id!r} with another seed or seats: it comes from "
                "a run with other settings; resume with the same ones or write elsewhere"
            )
        played = {name: record[name] for name in ("board_size", "max_turns")}
        played["decay"] = record_decay(record)
        for name, value in expected.items():
            if played[name] != value:
                raise ResultsError(
                    f"{path} holds game {task.game_id!r} played with {name} {played[name]}, "
                    f"this run has {value}; resume with the same settings or write elsewhere"
                )
        done[task.game_id] = record
    return done


def _progress_bar(total: int, initial: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="game", disable=not enabled, smoothing=0.1)




def _backend(name: str) -> Any:
    """The pool class of the backend ``name`` (:data:`~agents.arena.plan.BACKENDS`)."""
    module, _, attribute = BACKENDS[name].partition(":")
    return getattr(importlib.import_module(module), attribute)

"""Checking agent specs before the first game, each built in a guarded child process.

A constructor that raises, exits or hangs is a one-line error naming the spec, and each
agent is asked whether it can play the run's board (:func:`trap_env.agent.check_supports`).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterable
from multiprocessing.connection import Connection
from typing import Any

from agents.arena.match import interface_problem
from agents.arena.plan import RunConfig, program_limits
from agents.arena.processes import describe_exit
from agents.program_process import die_with_parent
from agents.registry import make_agent
from trap_env.agent import SpecError, UnsupportedGameError, check_supports

__all__ = ["check_specs", "probe_specs"]


def check_specs(specs: Iterable[str], config: RunConfig) -> None:
    """Build each agent once in a guarded child process, before any game starts.

    Each agent must build within ``config.setup_seconds``, have the agent interface, and
    accept the board (:func:`trap_env.agent.check_supports`).

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
    specs: Iterable[str], config: RunConfig
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
    process = context.Process(
        target=_probe_main, args=(sender, specs, config, os.getpid()), daemon=True
    )
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


def _probe_main(conn: Connection, specs: list[str], config: RunConfig, parent_pid: int) -> None:
    """The probing child: for each spec, announce it, then send its problem (or None); it
    dies with its parent ``parent_pid``."""
    die_with_parent(parent_pid)
    for spec in specs:
        conn.send(("start", spec, None))
        conn.send(_probe_one(spec, config))
    conn.close()


def _probe_one(spec: str, config: RunConfig) -> tuple[str, str, str | None]:
    try:
        agent = make_agent(spec, game=config.game_name, seed=0, **program_limits(spec, config))
        problem = interface_problem(agent)
        if problem is not None:
            return ("spec", spec, f"agent spec {spec!r} does not build an agent: {problem}")
        for game in config.games:
            check_supports(agent, game)
    except UnsupportedGameError as error:
        return ("unsupported", spec, f"agent {spec!r} cannot play this game: {error}")
    except SpecError as error:
        return ("spec", spec, str(error))
    except (Exception, SystemExit) as error:
        return ("spec", spec, f"building agent {spec!r} raised {type(error).__name__}: {error}")
    return ("ok", spec, None)

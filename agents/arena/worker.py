"""Playing one task: build its two agents and play the game, in a worker or in this process.

:func:`play_task` sends a :class:`Beat` before each step that may hang, so that whoever
watches the clock (:class:`agents.arena.pool.WorkerPool`) knows which seat to charge.
"""

from __future__ import annotations

from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, NamedTuple

from agents.arena.match import (
    NO_WINNER,
    GameResult,
    derive_seed,
    interface_problem,
    play_game,
)
from agents.arena.plan import GameTask, RunConfig, program_limits
from agents.arena.results import Record
from agents.program_process import die_with_parent
from agents.registry import make_agent
from agents.timing import limit_threads
from trap_env.agent import Agent, check_supports
from trap_env.game import played_params
from trap_env.games import get_game

__all__ = ["Beat", "BeatSink", "empty_result", "make_record", "play_task", "worker_main"]


class Beat(NamedTuple):
    """A worker's heartbeat: who acts now, for how long at most, and the actions since the last.

    Attributes:
        seat: the seat whose agent acts (is built, reset, or decides).
        limit: wall-clock seconds it may take; None for no ceiling.
        cpu_allowance: CPU seconds it may use; None for no limit.
        what: what it does, in words ("turn 12", "reset of 'random'", ...).
        actions: the actions applied since the last heartbeat.
    """

    seat: int
    limit: float | None
    cpu_allowance: float | None
    what: str
    actions: list[int]


BeatSink = Callable[[Beat], None]


def play_task(
    task: GameTask, config: RunConfig, cache: dict[tuple[str, int], Agent], beat: BeatSink | None
) -> Record:
    """Build the two agents (reusing ``cache``) and play the game; its record.

    Faults of an agent (in building, reset or a decision) are its seat's loss. ``beat``,
    when given, receives a :class:`Beat` before each step that may hang, so that whoever
    watches the clock knows which seat to charge.
    """
    result = empty_result(task, config)
    agents = []
    for seat, spec in enumerate(task.seats):
        if beat is not None:
            setup = config.setup_seconds
            beat(Beat(seat, setup, setup, f"building agent {spec!r}", []))
        try:
            agents.append(_built_agent(spec, seat, task, config, cache))
        except Exception as error:
            detail = f"building agent {spec!r} raised {type(error).__name__}: {error}"
            return make_record(task, result.lose(seat, "exception", detail), config)
    result = play_game(
        agents,
        seed=task.seed,
        max_turns=config.max_turns,
        time_budget=config.time_budget,
        game=config.game_name,
        params=config.rule_params_for(task.seed),
        opening_plies=config.opening_plies,
        duplicate_chance=config.duplicate_chance,
        on_turn=None if beat is None else _turn_beats(beat, config),
        on_reset=None if beat is None else _reset_beats(beat, task, config),
    )
    return make_record(task, result, config)


def empty_result(task: GameTask, config: RunConfig) -> GameResult:
    """The result of ``task`` before its first action, under ``config``'s rules and limit."""
    game = get_game(config.game_name)
    params = played_params(game, config.rule_params_for(task.seed))
    return GameResult(
        seed=task.seed, max_turns=config.turn_limit_for(task.seed), game=config.game_name,
        params=params,
    )


def _built_agent(
    spec: str, seat: int, task: GameTask, config: RunConfig, cache: dict[tuple[str, int], Agent]
) -> Agent:
    """The seat's agent, built once per worker and checked; raises what went wrong."""
    if (spec, seat) not in cache:
        agent = make_agent(
            spec,
            game=config.game_name,
            seed=derive_seed(task.seed, "seat", seat),
            **program_limits(spec, config),
        )
        problem = interface_problem(agent)
        if problem is not None:
            raise TypeError(problem)
        for game in config.games:
            check_supports(agent, game)
        cache[spec, seat] = agent
    return cache[spec, seat]


def _reset_beats(beat: BeatSink, task: GameTask, config: RunConfig) -> Callable[[int], None]:
    setup = config.setup_seconds
    return lambda seat: beat(Beat(seat, setup, setup, f"reset of {task.seats[seat]!r}", []))


def _turn_beats(beat: BeatSink, config: RunConfig) -> Callable[[int, Any, list[int]], None]:
    """A turn hook sending who acts now and the actions since the last call."""
    sent = 0

    def on_turn(seat: int, state: Any, actions: list[int]) -> None:
        nonlocal sent
        if seat >= 0:
            beat(
                Beat(seat, config.ceiling, config.time_budget, f"turn {state.turn}", actions[sent:])
            )
            sent = len(actions)

    return on_turn


def worker_main(conn: Connection, config: RunConfig, parent_pid: int) -> None:
    """A worker: play the tasks received on ``conn`` until it receives None; it dies with
    its parent ``parent_pid``, however the parent ends (even with its agent hung)."""
    die_with_parent(parent_pid)
    # One worker per core: numerical libraries (torch, BLAS) on one thread each, so that
    # workers do not compete for cores and the CPU time per turn stays one core's.
    limit_threads()
    cache: dict[tuple[str, int], Agent] = {}
    try:
        while (task := conn.recv()) is not None:
            record = play_task(task, config, cache, lambda beat: conn.send(("beat", beat)))
            conn.send(("done", record))
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        return  # the parent is gone or interrupted: nothing left to report to


def make_record(task: GameTask, result: GameResult, config: RunConfig) -> Record:
    """The JSON record of a game: the task, the settings, the result, and no replays yet."""
    winner_spec = None if result.winner == NO_WINNER else task.seats[result.winner]
    return {
        "game_id": task.game_id,
        "pairing": list(task.pairing),
        "seats": list(task.seats),
        "winner_spec": winner_spec,
        "time_budget": config.time_budget,
        **result.to_dict(),
        "replays": 0,
        "replay_details": [],
    }

"""One game of Trap! between two agents, with the course's rules on time and faults.

:func:`play_game` is the whole match: seats 0 and 1 take turns (a move, a throw, then a
landing drawn from a generator seeded by the game's seed) until a player is trapped or
``max_turns`` turns pass (a draw by truncation). Each turn's two decisions share a CPU-time
budget measured with :func:`time.process_time`; an agent that goes over it, raises, or
answers with ``None`` or an illegal cell loses the game, and the record says why. The
garbage collector is paused during each decision, so that no agent is charged for a
collection of the runner's process.

A game's seed alone fixes the landing draws and the agents' generators, so a game replays
from its seed; the recorded action sequence replays it exactly whatever the agents' timing.

Example:
    >>> from agents import make_agent
    >>> result = play_game([make_agent("random"), make_agent("random")], seed=3, board_size=5)
    >>> result.reason in REASONS
    True
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from agents.base import Agent, pause_collector, resume_collector
from trap_env.core import (
    DEFAULT_DECAY,
    NO_PLAYER,
    Cell,
    GameConfig,
    IllegalActionError,
    Phase,
    State,
    apply,
    default_turn_limit,
    initial_state,
    sample_landing,
)

__all__ = [
    "DEFAULT_TIME_BUDGET",
    "FAULTS",
    "REASONS",
    "GameResult",
    "LastThrow",
    "derive_seed",
    "interface_problem",
    "play_game",
    "replay",
]

DEFAULT_TIME_BUDGET = 5.0
"""CPU seconds per turn (move and throw together), as in the course."""

FAULTS = ("timeout", "exception", "illegal", "no_action", "crash")
"""Reasons for which a seat loses without being trapped."""
REASONS = ("trapped", "truncated", *FAULTS)
"""Every way a game can end: a player trapped, the turn limit, or a fault."""

LastThrow = tuple[Cell, Cell] | None
"""The last throw's ``(target, landing)`` cells, or None before the first throw."""

TurnHook = Callable[[int, State, list[Cell]], None]
ResetHook = Callable[[int], None]


@dataclass
class GameResult:
    """How a game went; every field is JSON-friendly.

    Attributes:
        seed: the game's seed (landing draws and the agents' generators derive from it).
        board_size: N.
        max_turns: the turn limit that applied.
        decay: the throw's accuracy loss per step of distance beyond the first, per mille
            (see :class:`trap_env.core.GameConfig`).
        winner: the winning seat, or -1 for a draw.
        reason: one of :data:`REASONS`; for a fault, the loser is the seat at fault.
        detail: what went wrong, for a fault; empty otherwise.
        turns: turns completed.
        cpu_time: CPU seconds each seat spent deciding.
        max_turn_time: each seat's longest turn, in CPU seconds.
        actions: every ``apply``-ed action in order (moves, throws, landings): the replay.
    """

    seed: int
    board_size: int
    max_turns: int
    decay: int = DEFAULT_DECAY
    winner: int = NO_PLAYER
    reason: str = "truncated"
    detail: str = ""
    turns: int = 0
    cpu_time: list[float] = field(default_factory=lambda: [0.0, 0.0])
    max_turn_time: list[float] = field(default_factory=lambda: [0.0, 0.0])
    actions: list[Cell] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict (for JSON); ``decay`` only when it is not the default."""
        fields = asdict(self)
        if self.decay == DEFAULT_DECAY:  # the game as specified, recorded as it always was
            del fields["decay"]
        return fields

    def lose(self, seat: int, reason: str, detail: str) -> GameResult:
        """Record that ``seat`` lost by ``reason`` (a fault); returns self."""
        self.winner, self.reason, self.detail = 1 - seat, reason, detail
        return self


def derive_seed(*parts: object) -> int:
    """A 63-bit seed that depends only on ``parts`` (stable across runs and processes)."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


class _Fault(Exception):
    """A seat broke a rule of the match; carries the reason and a message."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


def play_game(
    agents: Sequence[Agent],
    *,
    seed: int,
    board_size: int = GameConfig().board_size,
    max_turns: int | None = None,
    decay: int = DEFAULT_DECAY,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
    on_turn: TurnHook | None = None,
    on_reset: ResetHook | None = None,
) -> GameResult:
    """Play one game; ``agents[0]`` takes seat 0 (player 0, who starts).

    Args:
        agents: the two agents, by seat; each is reset with a seed derived from ``seed``.
        seed: the game's seed.
        board_size: N.
        max_turns: a draw by truncation after this many turns (default 4 * N * N).
        decay: the throw's accuracy loss per step of distance beyond the first, per mille
            (default 50, the game as specified; see :class:`trap_env.core.GameConfig`).
        time_budget: CPU seconds per turn for the move and the throw together; None
            for no limit.
        on_turn: called as ``on_turn(seat, state, actions)`` before each turn (and once
            more with the final state and seat -1 unless a fault ended the game), e.g. to
            show the game or to send a heartbeat.
        on_reset: called as ``on_reset(seat)`` before that seat's agent is reset (a
            heartbeat, so that a reset that hangs is charged to its own seat).

    Returns:
        The result; an agent's fault (in its reset or a decision, or a missing method) ends
        the game as its loss, it never raises for one.

    Raises:
        ValueError: for a board size or decay that :class:`trap_env.core.GameConfig` refuses.
    """
    config = GameConfig(board_size, decay)
    limit = default_turn_limit(board_size) if max_turns is None else max_turns
    result = GameResult(seed=seed, board_size=board_size, max_turns=limit, decay=decay)
    for seat, agent in enumerate(agents):
        if on_reset is not None:
            on_reset(seat)
        try:
            _reset(agent, derive_seed(seed, "seat", seat))
        except _Fault as fault:
            return result.lose(seat, fault.reason, str(fault))
    landing_rng = random.Random(derive_seed(seed, "landing"))
    state = initial_state(config)
    while state.winner == NO_PLAYER and state.turn < limit:
        seat = state.player
        if on_turn is not None:
            on_turn(seat, state, result.actions)
        try:
            state = _play_turn(agents[seat], state, seat, result, time_budget)
        except _Fault as fault:
            result.turns = state.turn
            return result.lose(seat, fault.reason, str(fault))
        if state.phase is Phase.LANDING:
            state = _record(state, sample_landing(state, landing_rng), result)
    if on_turn is not None:
        on_turn(-1, state, result.actions)
    result.turns = state.turn
    if state.winner != NO_PLAYER:
        result.winner, result.reason = state.winner, "trapped"
    return result


def interface_problem(agent: object) -> str | None:
    """What ``agent`` lacks of the :class:`~agents.base.Agent` interface; None if nothing."""
    missing = [
        name for name in ("select_action", "reset") if not callable(getattr(agent, name, None))
    ]
    if not missing:
        return None
    return (
        f"{type(agent).__name__} object has no method {' or '.join(missing)}; an agent needs "
        "select_action(state) and reset(seed=None)"
    )


def _reset(agent: Agent, seed: int) -> None:
    """Reset ``agent`` for a new game; a missing or failing reset is the agent's fault."""
    problem = interface_problem(agent)
    if problem is not None:
        raise _Fault("exception", problem)
    try:
        agent.reset(seed=seed)
    except Exception as error:
        raise _Fault("exception", f"reset raised {type(error).__name__}: {error}") from error


def _play_turn(
    agent: Agent, state: State, seat: int, result: GameResult, budget: float | None
) -> State:
    """The seat's move and throw (the throw only if the move did not win)."""
    spent = 0.0
    for _ in ("move", "throw"):
        if state.winner != NO_PLAYER:
            break
        action, seconds = _timed_decision(agent, state)
        spent += seconds
        result.cpu_time[seat] += seconds
        result.max_turn_time[seat] = max(result.max_turn_time[seat], spent)
        if budget is not None and spent > budget:
            detail = f"turn {state.turn} took {spent:.3f} s of CPU, budget {budget} s"
            raise _Fault("timeout", detail)
        state = _checked_apply(state, action, result)
    return state


def _timed_decision(agent: Agent, state: State) -> tuple[Any, float]:
    collecting = pause_collector()  # no agent is charged for the runner's collections
    try:
        start = time.process_time()
        action = agent.select_action(state)
        seconds = time.process_time() - start
    except Exception as error:
        # An agent's error may name its kind of fault (a program agent's crash, timeout or
        # garbage answer); anything else is an exception.
        reason = getattr(error, "reason", "exception")
        raise _Fault(
            reason if reason in FAULTS else "exception",
            f"select_action raised {type(error).__name__}: {error} "
            f"(turn {state.turn}, phase {state.phase.name})",
        ) from error
    finally:
        resume_collector(collecting)
    return action, seconds


def _checked_apply(state: State, action: Any, result: GameResult) -> State:
    if action is None:
        raise _Fault("no_action", f"select_action returned None in phase {state.phase.name}")
    try:
        return _record(state, action, result)
    except IllegalActionError as error:
        raise _Fault("illegal", str(error)) from None


def _record(state: State, action: int, result: GameResult) -> State:
    next_state = apply(state, action)
    result.actions.append(int(action))
    return next_state


def replay(
    board_size: int, actions: Sequence[Cell], decay: int = DEFAULT_DECAY
) -> Iterator[tuple[State, LastThrow]]:
    """The states of a recorded game at the start of each turn, and the final one.

    Yields ``(state, last_throw)`` pairs: the initial state with None, then the state after
    each landing (or after a winning move) with that turn's throw.

    Raises:
        IllegalActionError: if the sequence is not a legal game under the rule of
            ``board_size`` and ``decay`` (a ``ValueError``, as is a bad size or decay).
    """
    state = initial_state(GameConfig(board_size, decay))
    last_throw: LastThrow = None
    yield state, last_throw
    for action in actions:
        before = state
        state = apply(state, action)
        if before.phase is Phase.LANDING:
            last_throw = (before.target, action)
        if state.phase is Phase.MOVE or state.winner != NO_PLAYER:
            yield state, last_throw

"""Timing of decisions: the clock, the turn's budget, the deadline, the collector paused,
the numerical libraries on one thread.

The timed agents (``expectiminimax``, ``mcts``) and the match runner share these, so a
decision is measured and bounded the same way wherever it is made. A turn's budget is
shared by the decisions one player makes in a row (:func:`decision_budget`; Trap!'s move and
throw, :attr:`trap_env.game.Game.decisions_per_turn`); a decision stops at
:func:`decision_deadline`, a safety margin before its budget runs out. :class:`TimedAgent`
is what the timed agents build on, in any game: it pauses the collector around a decision,
holds BLAS to one thread and remembers what the first decision of the turn cost, for the
next one's budget.
"""

from __future__ import annotations

import functools
import gc
import math
import os
import time
from collections.abc import Callable
from typing import Any, Literal

import numpy  # noqa: F401  (loads NumPy's BLAS before the controller lists the libraries)
from threadpoolctl import ThreadpoolController, threadpool_limits

from trap_env.game import Game

__all__ = [
    "CLOCKS",
    "MAX_TIME_LIMIT",
    "SAFETY_MARGIN",
    "Clock",
    "ClockedAgent",
    "TimedAgent",
    "check_clock",
    "check_time_limit",
    "decision_budget",
    "decision_deadline",
    "limit_threads",
    "pause_collector",
    "resume_collector",
    "seconds_from_environment",
]

Clock = Literal["cpu", "wall"]
CLOCKS: dict[Clock, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
"""The clocks a budget can be measured on: CPU time of this process, or wall-clock time."""
MAX_TIME_LIMIT = 86_400.0
"""The longest time limit, a day: a longer one would in effect never stop (use a depth)."""
SAFETY_MARGIN = 0.1
"""Seconds kept in hand at the end of a budget (0.01 s + a quarter of budgets under 0.36 s): room
for the clock check interval and a garbage-collector pause."""


def pause_collector() -> bool:
    """Switch the cyclic garbage collector off; return whether it was on (for resuming).

    For timed decisions: a full collection scans every object of the process, which in one
    holding torch takes 0.1-0.2 s, at a moment no clock check can see coming. Use as
    ``collecting = pause_collector()``, then ``try: ... finally: resume_collector(collecting)``:
    a pair of plain calls allocates nothing (a ``with`` block allocates a bound ``__exit__``
    on the way in, which can itself start a collection), and pauses nest. A collection that
    falls due meanwhile runs after the outermost pause.
    """
    collecting = gc.isenabled()
    gc.disable()
    return collecting


def resume_collector(collecting: bool) -> None:
    """Switch the collector back on if :func:`pause_collector` found it on."""
    if collecting:
        gc.enable()


THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
"""The variables that the numerical libraries read, once, when they are loaded."""


@functools.cache
def _controller() -> ThreadpoolController:
    """The thread pools of the libraries loaded now (NumPy's BLAS at least), listed once."""
    return ThreadpoolController()


def limit_threads() -> None:
    """Hold this process's numerical libraries (BLAS, OpenMP) to one thread, for good.

    For a process that plays timed games, one per core: a turn's budget is this process's
    CPU time, which counts the time of every thread, and threads that wait for a busy core
    spin. The libraries already loaded are limited through their own calls (their
    environment variables are read when they load, which in a worker has already happened);
    those loaded later read the variables set here.
    """
    for variable in THREAD_VARIABLES:
        os.environ[variable] = "1"
    threadpool_limits(limits=1)


def check_clock(clock: object) -> None:
    """Refuse a clock that is not one of :data:`CLOCKS`' names.

    Raises:
        ValueError: naming the value and the clocks there are.
    """
    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {sorted(CLOCKS)}, got {clock!r}")


def seconds_from_environment(variable: str, default: float, most: float = MAX_TIME_LIMIT) -> float:
    """``default``, or the environment's ``variable``: a number of seconds above 0 and
    below ``most`` (the course adapters' time limits).

    Raises:
        ValueError: naming the variable, what it must be and what it holds.
    """
    text = os.environ.get(variable)
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan  # not a number: refused below with the others
    if not 0 < value < most:
        raise ValueError(
            f"{variable} must be a number of seconds above 0 and below {most:g}, got {text!r}"
        )
    return value


def check_time_limit(time_limit: object, depth: object, bound: str = "depth") -> None:
    """Refuse a search's ``time_limit`` outside ``(0, MAX_TIME_LIMIT]``, or None (no limit)
    without a ``depth`` to stop at (``bound`` names that setting: ``"simulations"``...).

    Raises:
        ValueError: naming the value and what is allowed.
    """
    if time_limit is None and depth is None:
        raise ValueError(f"give a time_limit, a {bound}, or both (both None would never stop)")
    if time_limit is not None and (
        isinstance(time_limit, bool)
        or not isinstance(time_limit, int | float)
        or not 0 < time_limit <= MAX_TIME_LIMIT
    ):
        raise ValueError(
            f"time_limit must be > 0 and at most {MAX_TIME_LIMIT:g} seconds (a day), or "
            f"None with a {bound}; got {time_limit!r}"
        )


def decision_budget(
    time_limit: float | None, move_share: float, is_first: bool, move_seconds: float | None
) -> float | None:
    """Seconds for one of a turn's two decisions (Trap!'s move and throw), which share
    ``time_limit`` between them.

    Args:
        time_limit: the turn's seconds, or None for no limit (the result is then None).
        move_share: the part of the turn given to the first decision.
        is_first: whether the decision is the turn's first (Trap!'s move).
        move_seconds: at the second decision, the seconds this agent's first decision of
            the same turn took, or None if it did not make it (then the second gets the
            rest of the share).

    Returns:
        At the first decision ``move_share * time_limit``; at the second what the first
        left, never negative, so the two decisions together stay within ``time_limit``.
    """
    if time_limit is None:
        return None
    if is_first:
        return time_limit * move_share
    if move_seconds is not None:
        return max(0.0, time_limit - move_seconds)
    return time_limit * (1.0 - move_share)


def decision_deadline(started: float, budget: float) -> float:
    """The clock reading at which a decision given ``budget`` seconds from ``started`` stops.

    It keeps :data:`SAFETY_MARGIN` in hand, or 0.01 s and a quarter of a smaller budget, so
    a positive budget's deadline comes before ``started + budget``.
    """
    return started + budget - min(SAFETY_MARGIN, 0.01 + 0.25 * budget)


def _never() -> bool:
    return False


class ClockedAgent:
    """What an agent deciding on a clock shares, in any game: each decision made with the
    garbage collector paused and NumPy's BLAS on one thread, and a check of the decision's
    deadline.

    A mixin beside :class:`agents.seeded.SeededAgent`. The agent
    implements ``_decide(state)`` and calls :meth:`_stopper` for its clock check.

    Args:
        clock: ``"cpu"`` or ``"wall"`` (see :data:`CLOCKS`).
    """

    def __init__(self, clock: Clock) -> None:
        self.clock = CLOCKS[clock]

    def select_action(self, state: Any) -> Any:
        """The agent's decision, made with the garbage collector paused and BLAS on one
        thread.

        The collector is paused (see :func:`pause_collector`); the decision's own garbage
        is freed by reference counting. BLAS runs on one thread during the decision (its
        thread count restored after): the CPU clock counts every thread, and a second
        thread that waits for a busy core spins (with two threads on a loaded machine the
        ``mcts`` network's small products ran ten times fewer simulations, over budget).

        Raises:
            ValueError: if the state is not a decision of a game in progress.
        """
        collecting = pause_collector()
        try:
            with _controller().limit(limits=1, user_api="blas"):
                return self._decide(state)
        finally:
            resume_collector(collecting)

    def _decide(self, state: Any) -> Any:
        raise NotImplementedError

    def _stopper(self, started: float, budget: float | None) -> Callable[[], bool]:
        """A check that the decision's deadline has come (never, without a budget)."""
        if budget is None:
            return _never
        deadline = decision_deadline(started, budget)
        clock = self.clock

        def stop() -> bool:
            return clock() >= deadline

        return stop


class TimedAgent(ClockedAgent):
    """An agent on a clock in turns of ``game``: where one player makes two decisions in a
    row (Trap!'s move and throw, ``game.decisions_per_turn == 2``) they share the turn's
    budget; in a game of one decision a turn it has it all.

    The agent implements ``_decide(state)`` and calls :meth:`_turn_budget` for its budget,
    :meth:`_stopper` for its clock check and :meth:`_end_decision` once it has chosen.

    Args:
        clock: ``"cpu"`` or ``"wall"`` (see :data:`CLOCKS`).
        game: the rules the agent plays (:class:`trap_env.game.Game`).
    """

    def __init__(self, clock: Clock, game: Game[Any, Any]) -> None:
        super().__init__(clock)
        self._turn_game = game
        self._turn_spent: tuple[Any, float] | None = None

    def _forget_turn(self) -> None:
        """Start a new game: no decision of this turn is remembered."""
        self._turn_spent = None

    def _end_decision(self, state: Any, action: int, seconds: float) -> None:
        """Remember a first decision's seconds and the state it led to, for the next
        decision's budget."""
        game = self._turn_game
        if game.decisions_per_turn > 1 and self._is_first(state):
            self._turn_spent = (game.apply(state, action), seconds)

    def _is_first(self, state: Any) -> bool:
        """Whether ``state`` asks for the first decision of a turn (Trap!'s move)."""
        game = self._turn_game
        return game.decision_name(state) == game.decision_names[0]

    def _is_same_position(self, first: Any, second: Any) -> bool:
        """Whether the second decision's state is the one the remembered decision led to."""
        return bool(first == second)

    def _turn_budget(
        self, state: Any, time_limit: float | None, move_share: float | None = None
    ) -> float | None:
        """Seconds for this decision: all of the turn's in a game of one decision a turn,
        else a share of it at the first decision and the rest at the second; the share is
        ``move_share``, or by default the game's even one, ``1 / game.decisions_per_turn``."""
        decisions = self._turn_game.decisions_per_turn
        if decisions == 1:
            return time_limit
        spent, move_seconds = self._turn_spent, None
        if spent is not None and self._is_same_position(spent[0], state):
            move_seconds = spent[1]
        share = 1.0 / decisions if move_share is None else move_share
        return decision_budget(time_limit, share, self._is_first(state), move_seconds)

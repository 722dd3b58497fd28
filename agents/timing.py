"""Timing of decisions: the clocks, a turn's budget split between its decisions, the
deadline with its safety margin, and the garbage collector paused while an agent decides.

Both search agents (``expectiminimax`` and ``mcts``) and the match runner share these, so
a decision is measured and bounded the same way wherever it is made.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Literal

from trap_env.core import Phase

__all__ = [
    "CLOCKS",
    "MAX_TIME_LIMIT",
    "SAFETY_MARGIN",
    "Clock",
    "decision_budget",
    "decision_deadline",
    "pause_collector",
    "resume_collector",
]

Clock = Literal["cpu", "wall"]
CLOCKS: dict[Clock, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
"""The clocks a budget can be measured on: CPU time of this process, or wall-clock time."""
MAX_TIME_LIMIT = 86_400.0
"""The longest time limit, a day: a longer one would in effect never stop (use a depth)."""
SAFETY_MARGIN = 0.1
"""Seconds kept in hand at the end of a budget (0.01 s + a quarter of budgets under 0.36 s): room
for the clock check interval and a garbage-collector pause."""


def decision_budget(
    time_limit: float | None, move_share: float, phase: Phase, move_seconds: float | None
) -> float | None:
    """Seconds for one of a turn's two decisions, which share ``time_limit`` between them.

    Args:
        time_limit: the turn's seconds, or None for no limit (the result is then None).
        move_share: the part of the turn given to the move.
        phase: the decision's phase.
        move_seconds: at the throw, the seconds this agent's move of the same turn took,
            or None if it did not make that move (then the throw gets the rest of the
            share).

    Returns:
        At the move ``move_share * time_limit``; at the throw what the move left, never
        negative, so the two decisions together stay within ``time_limit``.
    """
    if time_limit is None:
        return None
    if phase is Phase.MOVE:
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

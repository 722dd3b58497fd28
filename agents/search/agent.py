"""Search agents: ``expectiminimax`` (the reference policy), ``alphabeta``/``minimax``, presets.

``expectiminimax`` searches the real game tree (move, throw, landing as a chance node)
with :class:`agents.search.Search` under a time budget per turn, shared between the move
and the throw: at the move it plans the whole turn with ``move_share`` of the budget, and
at the throw it searches again with what is left (answering the planned throw at once if
nothing is). Its clock is the process's CPU time by default, as the course and our match
runner measure a turn (``clock="wall"`` for wall-clock time). It checks the clock every 64
nodes with a safety margin and answers with the best action of the deepest iteration that
finished, or of the one the clock cut short if that one searched the previous best action
and found a better one; a static best guess is ready before the first iteration starts.

Defaults, and what they bought (``trap-tournament`` at 1 s per turn against ``alphabeta``,
seats alternating): throws within two king steps of the opponent (``throw_radius=2``) and
the misses of a throw searched two plies shallower than its likely landing
(``chance_reduction=2``, which cuts the time to depth 6 by more than half). With
``throw_radius=1`` and no reduction the agent won 136 of 200 games; see README for the
current figures.

``alphabeta`` (alias ``minimax``) is the course's baseline: the same search over a game in
which every throw lands on its target, to a fixed depth (default 4 plies, two turns).

Presets (all ``expectiminimax``; any option can still be overridden, e.g.
``"hard:time_limit=2"``):

========  ===========================================
name      settings
========  ===========================================
easy      ``depth=2`` (one turn ahead), ``time_limit=0.5``
medium    ``depth=4`` (two turns ahead), ``time_limit=1.0``
hard      ``time_limit=1.0`` (the course's grading budget)
expert    ``time_limit=5.0`` (the course's budget)
========  ===========================================

After every decision, ``agent.last_search`` holds a :class:`SearchStats`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agents.base import SeededAgent, pause_collector, resume_collector
from agents.search.evaluation import CLASSIC_WEIGHTS, DEFAULT_WEIGHTS, Weights
from agents.search.expectimax import Search
from agents.search.game import TrapGame
from trap_env import core
from trap_env.core import Cell, Phase, State

__all__ = ["PRESETS", "ExpectiminimaxAgent", "SearchStats"]

MAX_DEPTH = 64
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
"""The clocks a budget can be measured on: CPU time of this process, or wall-clock time."""
SAFETY_MARGIN = 0.1
"""Seconds kept in hand at the end of a budget (0.01 s + a quarter of budgets under 0.36 s): room
for the clock check interval and a garbage-collector pause."""


@dataclass(frozen=True)
class SearchStats:
    """What the last decision's search did.

    Attributes:
        nodes: nodes visited.
        depth: the depth of the iteration that gave the answer, in plies (0: the static
            guess was used); it may be one the clock cut short (see ``SearchResult``).
        seconds: the decision's time on the agent's clock.
        value: the chosen action's value for the player to act (0.0 for a static guess).
        budget: the time the decision was allowed.
    """

    nodes: int
    depth: int
    seconds: float
    value: float
    budget: float

    @property
    def nodes_per_second(self) -> float:
        """Nodes visited per second of the decision."""
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


class ExpectiminimaxAgent(SeededAgent):
    """Iterative-deepening expectiminimax with alpha-beta, Star1/Star2 and a table.

    Args:
        time_limit: seconds per turn (move and throw together); None for no limit
            (then ``depth`` must be given).
        depth: the deepest iteration, in plies (a turn is two); None for no limit.
        throw_filter: search only throws near the opponent (see :class:`TrapGame`).
        throw_radius: the throw filter's radius in king steps from the opponent.
        table: use a transposition table (kept between decisions of one game).
        star1: Star1 pruning at chance nodes.
        star2: Star2 probing at chance nodes.
        chance_reduction: plies by which unlikely landings (the misses) are searched
            shallower than the likely one (see :mod:`agents.search.expectimax`).
        move_share: the part of the turn's budget given to planning the move.
        whole_turns: iterate only over depths whose leaves are MOVE states (even depths
            from a move, odd ones from a throw), so that every iteration evaluates
            positions at the same point of a turn.
        deterministic_throws: pretend throws always land on target (``alphabeta``).
        weights: the evaluation weights (see :mod:`agents.search.evaluation`), or a text for
            :meth:`Weights.parse` such as ``"voronoi=0"`` (in a spec:
            ``"expectiminimax:weights=voronoi=0;room=1"``).
        clock: ``"cpu"`` (this process's CPU time, as the course measured a turn) or
            ``"wall"`` (wall-clock time).
        seed: accepted for the common interface; the search draws no random numbers.
    """

    def __init__(
        self,
        time_limit: float | None = 5.0,
        depth: int | None = None,
        throw_filter: bool = True,
        throw_radius: int = 2,
        table: bool = True,
        star1: bool = True,
        star2: bool = True,
        chance_reduction: int = 2,
        move_share: float = 0.6,
        whole_turns: bool = False,
        deterministic_throws: bool = False,
        weights: Weights | str = DEFAULT_WEIGHTS,
        clock: str = "cpu",
        seed: int | None = None,
    ) -> None:
        super().__init__(seed)
        _check_limits(time_limit, depth, move_share)
        if clock not in CLOCKS:
            raise ValueError(f"clock must be one of {sorted(CLOCKS)}, got {clock!r}")
        self.clock = CLOCKS[clock]
        self.time_limit = time_limit
        self.depth = depth
        self.move_share = move_share
        self.whole_turns = whole_turns
        if isinstance(weights, str):
            weights = Weights.parse(weights)
        self.game = TrapGame(throw_filter, deterministic_throws, weights, throw_radius)
        self.search = Search(
            self.game,
            use_table=table,
            star1=star1,
            star2=star2,
            chance_reduction=chance_reduction,
        )
        self.last_search: SearchStats | None = None
        self._turn_spent: tuple[State, float] | None = None

    def reset(self, seed: int | None = None) -> None:
        """Start a new game: forget the table and the history."""
        super().reset(seed)
        self.search.reset()
        self.last_search = None
        self._turn_spent = None

    def select_action(self, state: State) -> Cell:
        """The best move or throw found within the time budget.

        The garbage collector is paused during the decision (see
        :func:`~agents.base.pause_collector`); the search's own garbage is freed by
        reference counting.

        Raises:
            ValueError: if the state is not a MOVE or THROW of a game in progress.
        """
        collecting = pause_collector()
        try:
            return self._decide(state)
        finally:
            resume_collector(collecting)

    def _decide(self, state: State) -> Cell:
        started = self.clock()
        if core.is_terminal(state) or state.phase is Phase.LANDING:
            raise ValueError(
                "select_action needs a MOVE or THROW state of a game in progress, got "
                f"{core.to_text(state)}"
            )
        budget = self._budget(state)
        action, depth, value = self._choose(state, started, budget)
        seconds = self.clock() - started
        if state.phase is Phase.MOVE:
            self._turn_spent = (core.apply(state, action), seconds)
        self.last_search = SearchStats(self.search.nodes, depth, seconds, value, budget or 0.0)
        return action

    def _budget(self, state: State) -> float | None:
        """Seconds for this decision: a share of the turn at the move, the rest at the throw."""
        if self.time_limit is None:
            return None
        if state.phase is Phase.MOVE:
            return self.time_limit * self.move_share
        spent = self._turn_spent
        if spent is not None and self.game.key(spent[0]) == self.game.key(state):
            return max(0.0, self.time_limit - spent[1])
        return self.time_limit * (1.0 - self.move_share)

    def _choose(
        self, state: State, started: float, budget: float | None
    ) -> tuple[Cell, int, float]:
        """Iterate deeper until the budget or the depth runs out: (action, depth, value)."""
        search = self.search
        search.make_room()
        self.game.make_room()
        search.nodes = 0
        search.killers = []
        entry = search.table.get(self.game.key(state))
        planned = entry.action if entry is not None else None
        action = planned if planned is not None else self._static_guess(state)
        depth, value = 0, 0.0
        if budget is not None:
            margin = min(SAFETY_MARGIN, 0.01 + 0.25 * budget)
            deadline = started + budget - margin
            clock = self.clock
            if clock() >= deadline:
                return action, depth, value

            def stop() -> bool:
                return clock() >= deadline
        else:
            deadline = float("inf")

            def stop() -> bool:
                return False

        start, step = 1, 1
        if self.whole_turns:
            start, step = (2 if state.phase is Phase.MOVE else 1), 2
        max_depth = self.depth or MAX_DEPTH
        for result in search.iterate(state, max_depth, stop, planned, min(start, max_depth), step):
            action, depth, value = result.action, result.depth, result.value
            if budget is None or state.phase is not Phase.MOVE:
                continue
            # The next iteration costs several times this one: rather than start it with
            # little hope at the move, leave the time to the throw. (At the throw, time
            # left over is lost, and an unfinished iteration may still improve the answer.)
            if self.clock() - started > 0.5 * (deadline - started):
                break
        return action, depth, value

    def _static_guess(self, state: State) -> Cell:
        actions = self.game.legal_actions(state)
        return self.game.order_hint(state, actions)[0]


def _check_limits(time_limit: float | None, depth: int | None, move_share: float) -> None:
    if time_limit is None and depth is None:
        raise ValueError("give a time_limit, a depth, or both (both None would never stop)")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be > 0 seconds or None, got {time_limit!r}")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise ValueError(f"depth must be an integer >= 1 or None, got {depth!r}")
    if not 0.0 < move_share < 1.0:
        raise ValueError(f"move_share must be between 0 and 1 (exclusive), got {move_share!r}")


def alphabeta(
    depth: int = 4,
    time_limit: float | None = 5.0,
    throw_filter: bool = True,
    throw_radius: int = 2,
    weights: Weights | str = CLASSIC_WEIGHTS,
    seed: int | None = None,
) -> ExpectiminimaxAgent:
    """Depth-limited alpha-beta that treats every throw as landing on its target.

    It keeps the classic evaluation weights (a fixed baseline); ``weights`` as for
    :class:`ExpectiminimaxAgent`, where a text changes the classic weights, not the defaults.
    """
    if isinstance(weights, str):
        weights = Weights.parse(weights, CLASSIC_WEIGHTS)
    return ExpectiminimaxAgent(
        time_limit,
        depth,
        throw_filter,
        throw_radius,
        deterministic_throws=True,
        weights=weights,
        seed=seed,
    )


PRESETS: dict[str, dict[str, Any]] = {
    "easy": {"depth": 2, "time_limit": 0.5},
    "medium": {"depth": 4, "time_limit": 1.0},
    "hard": {"time_limit": 1.0},
    "expert": {"time_limit": 5.0},
}
"""The difficulty presets: options of ``expectiminimax``."""


def _preset(name: str) -> Any:
    settings = PRESETS[name]

    def build(
        time_limit: float | None = settings["time_limit"],
        depth: int | None = settings.get("depth"),
        seed: int | None = None,
        **options: Any,
    ) -> ExpectiminimaxAgent:
        return ExpectiminimaxAgent(time_limit=time_limit, depth=depth, seed=seed, **options)

    build.__doc__ = f"The {name!r} preset: expectiminimax with {settings}."
    return build


easy = _preset("easy")
medium = _preset("medium")
hard = _preset("hard")
expert = _preset("expert")

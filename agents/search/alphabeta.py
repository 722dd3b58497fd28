"""What the references of the games without chance after the start (Othello, Colosseum
Survival!) share: the settings record, an iteration's result, killer moves and history for
move ordering, the search's housekeeping, the root, the iterative-deepening loop and the
choice under the clock.

Each game's search keeps what is its own (its negamax over its positions, its evaluation
and its table keys) and builds on these:

* :class:`AlphaBetaSearch` holds what a search keeps through a game (the transposition
  table, the killers and history) and through a decision (the node count, the clock
  check, polled by :meth:`~AlphaBetaSearch.count_node` at every node);
* :func:`deepen` runs the root at depth 1, 2, ... over the game's root actions, each valued
  by the game's :data:`RootChild`, and yields one :class:`SearchResult` per depth, and a
  last incomplete one when the clock cut an iteration after its first root action; the
  next iteration tries the best action first, then the others by this iteration's values
  where the root recorded them;
* :func:`choose` takes the deepest answer, starting no iteration past a share of the
  budget (the next costs several times this one).

Examples:
    >>> def child(action, depth, alpha, beta):  # action 2 is worth the depth, others 0
    ...     return float(depth) if action == 2 else 0.0
    >>> results = deepen(child, [1, 2], 3, lambda result: False)
    >>> [(found.depth, found.action) for found in results]
    [(1, 2), (2, 2), (3, 2)]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from agents.options import check_int
from agents.search.expectimax import SearchTimeout, Table, never
from agents.timing import Clock, check_clock, check_time_limit, decision_deadline

__all__ = [
    "MAX_DEPTH",
    "AlphaBetaSearch",
    "AlphaBetaSettings",
    "MoveOrder",
    "RootChild",
    "SearchResult",
    "choose",
    "deepen",
    "narrowed",
]

MAX_DEPTH = 64
"""The deepest iteration of a search without a depth."""


@dataclass(frozen=True)
class AlphaBetaSettings:
    """How a reference searches; each field is also an option of its spec strings (a
    game's record subclasses this one for its defaults and its own fields).

    Attributes:
        time_limit: CPU seconds per turn (one decision), at most a day; None (``inf`` or
            ``none`` in a spec) for no limit, then ``depth`` must be given.
        depth: the deepest iteration in plies; None for no limit.
        table_size: positions the transposition table holds.
        clock: ``"cpu"`` (this process's CPU time, as the match runner measures) or ``"wall"``.

    Raises:
        ValueError: for a value outside what its attribute allows, naming it.
    """

    time_limit: float | None = 2.0
    depth: int | None = None
    table_size: int = 200_000
    clock: Clock = "cpu"

    def __post_init__(self) -> None:
        check_time_limit(self.time_limit, self.depth)
        check_int("depth", self.depth, 1, allow_none=True)
        check_int("table_size", self.table_size, 1)
        check_clock(self.clock)


@dataclass(frozen=True)
class SearchResult:
    """One iteration's answer: the best root action, its value for the player to act, the
    depth in plies, whether the iteration finished (else the clock cut it after at least
    one root action), and whether the value is exact (an endgame solver's)."""

    action: int
    value: float
    depth: int
    complete: bool = True
    exact: bool = False


class MoveOrder:
    """Two killer moves per ply and the history heuristic, kept through a game.

    An action's priority: the table's move first, then the ply's killers, then its
    history plus the game's static hint.
    """

    def __init__(self) -> None:
        self.history: dict[int, int] = {}
        self.killers: list[list[int]] = [[-1, -1] for _ in range(MAX_DEPTH + 2)]

    def reset(self) -> None:
        """Forget everything (a new game)."""
        self.history = {}
        self.killers = [[-1, -1] for _ in range(MAX_DEPTH + 2)]

    def age(self) -> None:
        """A new decision: the history counts a quarter (the smallest counts are dropped)."""
        self.history = {action: value // 4 for action, value in self.history.items() if value >= 4}

    def priorities(
        self, actions: Iterable[tuple[int, int]], first: int | None, ply: int
    ) -> list[int]:
        """The ``(action, static hint)`` pairs' actions, best first (ties: lower action)."""
        history = self.history
        killer, second = self.killers[ply]
        scored = []
        for action, hint in actions:
            if action == first:
                value = 1 << 40
            elif action == killer:
                value = 1 << 38
            elif action == second:
                value = 1 << 37
            else:
                value = history.get(action, 0) + hint
            scored.append((-value, action))
        scored.sort()
        return [action for _, action in scored]

    def reward(self, action: int, first: int | None, depth: int, ply: int) -> None:
        """A cutoff: remember ``action`` as a killer of ``ply`` and in the history."""
        self.history[action] = self.history.get(action, 0) + depth * depth
        killers = self.killers[ply]
        if action != first and action != killers[0]:
            killers[1], killers[0] = killers[0], action


class AlphaBetaSearch:
    """What a game's alpha-beta search keeps: through a game, its transposition table
    and its killers and history; through a decision, its node count and clock check.

    A game's search subclasses it with its negamax, which calls :meth:`count_node` at every
    node and probes and records the table (:meth:`Table.probe`, :meth:`Table.record`)
    under its own keys.

    Args:
        table_size: the transposition table's capacity in positions.
    """

    check_every = 64
    """The search polls its clock every this many nodes (a power of two)."""

    def __init__(self, table_size: int) -> None:
        self.table = Table(table_size)
        self.nodes = 0
        self.stop: Callable[[], bool] = never
        self.moves = MoveOrder()

    def reset(self) -> None:
        """Forget the table, the history and the killers (a new game)."""
        self.table.clear()
        self.moves.reset()

    def start(self, stop: Callable[[], bool] = never) -> None:
        """Prepare a new decision: the clock check, node count, aged history, table room."""
        self.stop = stop
        self.nodes = 0
        self.moves.age()
        self.table.make_room()

    def count_node(self) -> None:
        """Count a node, and every :attr:`check_every` nodes ask the clock.

        Raises:
            SearchTimeout: when ``stop()`` says the time is up.
        """
        self.nodes += 1
        if not self.nodes & (self.check_every - 1) and self.stop():
            raise SearchTimeout


RootChild = Callable[[int, int, float, float], float]
"""``child(action, depth, alpha, beta)``: a root action's value for the player to act in
an iteration ``depth`` plies deep (the action is the first), searched fail-soft with the
window ``(alpha, beta)``: the negamax of the position after it, negated. It raises
:class:`SearchTimeout` when the clock runs out."""


def deepen(
    child: RootChild,
    order: list[int],
    max_depth: int,
    finished: Callable[[SearchResult], bool],
    *,
    null_window: bool = False,
) -> Iterator[SearchResult]:
    """Iterative deepening from depth 1 to ``max_depth`` over the root actions in
    ``order``: one result per depth, and a last incomplete one if the clock cut an
    iteration after its first root action; it stops after a result for which ``finished``
    is true (deeper would change nothing). ``null_window`` as :func:`_search_root`."""
    for depth in range(1, max_depth + 1):
        done: list[tuple[float, int]] = []
        scores: dict[int, float] = {}
        try:
            _search_root(child, depth, order, done, scores, null_window)
        except SearchTimeout:
            if done:
                value, action = done[0]
                yield SearchResult(action, value, depth, complete=False)
            return
        value, action = done[0]
        result = SearchResult(action, value, depth)
        yield result
        if finished(result):
            return
        # The best first; the rest by this iteration's values (fail-soft: better moves
        # have the higher bounds), in their order where none was recorded.
        order.sort(key=lambda a: (a != action, -scores.get(a, -math.inf)))


def _search_root(
    child: RootChild,
    depth: int,
    order: list[int],
    done: list[tuple[float, int]],
    scores: dict[int, float],
    null_window: bool,
) -> None:
    """One iteration over the root actions in ``order``; ``done`` holds the best
    ``(value, action)`` so far, updated after each action searched.

    Each action after the first is searched with a window above the best value so far.
    With ``null_window`` (principal-variation search) it first gets a null window just
    above that value (``math.nextafter``, so the test is exact on floats) and a re-search
    if it beats it; its values, bounds of a null window, are not recorded, so the next
    iteration keeps this one's order. Without, each value is recorded in ``scores``."""
    low = -math.inf
    for action in order:
        if done and null_window:
            score = child(action, depth, low, math.nextafter(low, math.inf))
            if score > low:
                score = child(action, depth, low, math.inf)
        else:
            score = child(action, depth, low, math.inf)
        if not null_window:
            scores[action] = score
        if not done or score > low:
            low = score
            done[:] = [(score, action)]


def choose(
    iterations: Iterable[SearchResult],
    ready: SearchResult,
    clock: Callable[[], float],
    started: float,
    limit: float | None,
    share: float = 0.5,
) -> SearchResult:
    """The last of ``iterations`` (``ready`` if none), starting none past ``share`` of the
    time to the decision's deadline (the next iteration costs several times the last)."""
    result = ready
    deadline = math.inf if limit is None else decision_deadline(started, limit)
    for found in iterations:
        result = found
        if limit is not None and clock() - started > share * (deadline - started):
            break
    return result


def narrowed(lower: int, upper: int, best: int, alpha: int, beta: int) -> tuple[int, int]:
    """A position's value bounds ``(lower, upper)`` narrowed by a fail-soft search of the
    window ``(alpha, beta)`` that returned ``best``: at most ``best`` below the window, at
    least ``best`` above it, exactly ``best`` inside.

    Example:
        >>> narrowed(-1, 1, 0, 0, 1), narrowed(-1, 1, 1, 0, 1), narrowed(-1, 1, 0, -1, 1)
        ((-1, 0), (1, 1), (0, 0))
    """
    if best <= alpha:
        return lower, min(upper, best)
    if best >= beta:
        return max(lower, best), upper
    return best, best

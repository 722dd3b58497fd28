"""Expectiminimax with alpha-beta, Star1/Star2 chance pruning, a table and iterative deepening.

The search is negamax from the side to act over any :class:`~agents.search.game.SearchGame`:
a decision node's value is the best of its children's, each seen from the player to act
(negated only when the child's player differs, since in Trap! the same player moves and
then throws); a chance node's value is the probability-weighted average of its children's.

Guarantee: with the table on or off, with Star1 and Star2 on or off,
``Search(game).value(state, depth)`` equals the plain, unpruned depth-limited expectimax
value (up to floating-point rounding in the sums). Depth counts decisions: a Trap! turn
is two plies (move, throw); chance nodes take no depth. Table entries give cutoffs only
at their own depth, so iterating to deeper depths never changes a shallower value.

Pruning at chance nodes (Ballard 1983; Hauk, Buro and Schaeffer 2004) uses the value
bounds ``[-B, B]``: once the children searched so far, together with the bounds of the
rest, put the average outside the window, the node is cut (Star1). Star2 first probes
each child by searching only its first action: that bounds the child's value from one
side (a lower bound for the child's player), which may cut the node before any full
search, and otherwise tightens the Star1 windows.

Optionally (``chance_reduction=R``), the outcomes of a chance node that are less likely than
``REDUCE_BELOW`` are searched ``R`` plies shallower than the likely one (a probability-based
depth reduction in the spirit of Schadd, Winands and Uiterwijk's ChanceProbCut, 2009): in
Trap! a throw lands on its target with probability 0.45 to 1 and the misses share the rest,
so the misses cost most of a chance node's search but move its value least. The search is
then exact for that reduced tree (the oracle in the tests takes the same ``reduction``).

Iterative deepening (:meth:`Search.iterate`) is a generator yielding one
:class:`SearchResult` per finished depth, sunfish-style; the caller owns the clock and
passes a ``stop`` callable that the search polls every few dozen nodes. When the clock
stops an iteration after its first root action (the previous best, searched first), the
best root action searched so far is yielded too, marked incomplete, as chess engines do.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, NamedTuple, TypeVar

from agents.search.game import SearchGame
from trap_env.cache import BoundedCache

__all__ = ["Search", "SearchResult", "SearchStats", "SearchTimeout", "never", "timed_iterations"]

S = TypeVar("S")

EXACT, LOWER, UPPER = 0, 1, 2
CHECK_EVERY = 64
"""The search polls ``stop`` every this many nodes (a power of two)."""
REDUCE_BELOW = 0.5
"""Chance outcomes less likely than this are searched ``chance_reduction`` plies shallower."""


class SearchTimeout(Exception):
    """Raised inside the search when ``stop()`` says the time is up."""


class Entry(NamedTuple):
    """A transposition-table entry: a value, what kind of bound it is, at what depth."""

    depth: int
    value: float
    flag: int
    action: int | None

    def settles(self, alpha: float, beta: float) -> bool:
        """Whether this value answers a search with the window ``(alpha, beta)`` on its own
        (at the entry's depth): exact, or a bound outside the window."""
        if self.flag == EXACT:
            return True
        if self.flag == LOWER:
            return self.value >= beta
        return self.value <= alpha


class Table:
    """The transposition table, kept as two bounded caches of plain ints and floats.

    Python's garbage collector tracks a dict only while it holds a tracked object; ints
    and floats are not, so these caches are never scanned, however large: a table of
    ``Entry`` tuples would cost a full collection tens of milliseconds, at moments the
    search clock cannot see. For the same reason a full table stores no new position
    rather than clearing itself: :meth:`make_room` clears it, between searches.

    Args:
        max_entries: the table stores no new position past this size.
    """

    _ACTIONS = 1 << 32
    """Room for ``action + 1`` in the packed metadata (0 stands for no action)."""

    def __init__(self, max_entries: int = 400_000) -> None:
        self._values: BoundedCache[Hashable, float] = BoundedCache(max_entries)
        self._meta: BoundedCache[Hashable, int] = BoundedCache(max_entries)

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._values

    def get(self, key: Hashable) -> Entry | None:
        """The entry of ``key``, or None."""
        meta = self._meta.get(key)
        if meta is None:  # most probes miss: one lookup for them
            return None
        value = self._values.get(key)
        if value is None:
            return None
        depth_flag, action = divmod(meta, self._ACTIONS)
        depth, flag = divmod(depth_flag, 4)
        return Entry(depth, value, flag, action - 1 if action else None)

    def probe(
        self, key: Hashable, depth: int, alpha: float, beta: float
    ) -> tuple[float | None, int | None]:
        """What the table knows of ``key`` for a search to ``depth`` with the window
        ``(alpha, beta)``: the value, if its entry is at that depth and settles the window
        (else None), and the entry's best action, to try first (None without one)."""
        entry = self.get(key)
        if entry is None:
            return None, None
        if entry.depth == depth and entry.settles(alpha, beta):
            return entry.value, entry.action
        return None, entry.action

    def record(
        self, key: Hashable, depth: int, value: float, alpha: float, beta: float, action: int | None
    ) -> None:
        """Store a fail-soft result of a search with the window ``(alpha, beta)``: exact
        inside it, else the bound on the side it fell."""
        flag = UPPER if value <= alpha else LOWER if value >= beta else EXACT
        self.store(key, Entry(depth, value, flag, action))

    def store(self, key: Hashable, entry: Entry) -> None:
        """Record ``entry`` under ``key``, replacing any older one (nothing new once full)."""
        action = 0 if entry.action is None else entry.action + 1
        if self._values.put(key, entry.value):
            self._meta.put(key, (entry.depth * 4 + entry.flag) * self._ACTIONS + action)

    def make_room(self) -> None:
        """Clear the table if it is more than three quarters full (call between searches)."""
        if self._values.make_room():
            self._meta.clear()

    def clear(self) -> None:
        """Forget every entry."""
        self._values.clear()
        self._meta.clear()


@dataclass(frozen=True)
class SearchResult:
    """The outcome of one finished iteration.

    Attributes:
        depth: the depth searched, in plies (decisions).
        value: the root's value for the player to act.
        action: the best action found.
        nodes: the nodes visited since the search object was last reset.
        complete: False for an iteration cut short by ``stop()`` after at least its first
            root action (the previous iteration's best) was searched: ``action`` is then
            the best of the root actions searched to ``depth``, and ``value`` its exact
            value, a lower bound of the root's.
    """

    depth: int
    value: float
    action: int
    nodes: int
    complete: bool = True


@dataclass(frozen=True)
class SearchStats:
    """What a search agent's last decision did, in any game (a game's agent may add fields).

    Attributes:
        nodes: nodes visited.
        depth: the depth of the iteration that gave the answer, in plies (0: the static
            guess was used); it may be one the clock cut short (see :class:`SearchResult`).
        seconds: the decision's time on the agent's clock.
        value: the chosen action's value for the player to act (0.0 for a static guess).
        budget: the time the decision was allowed.
    """

    nodes: int
    depth: int
    seconds: float
    value: float
    budget: float


def _nothing_known(
    key: Hashable, depth: int, alpha: float, beta: float
) -> tuple[float | None, int | None]:
    """The probe of a search without a table: no value, no action."""
    return None, None


def never() -> bool:
    """A clock check that never fires (a search without a time limit)."""
    return False


class Search(Generic[S]):
    """Pruned expectiminimax over a game, with state kept between calls (table, history).

    Args:
        game: the game.
        use_table: keep a transposition table.
        star1: Star1 pruning at chance nodes (off: children are averaged with full windows).
        star2: Star2 probing at chance nodes (needs ``star1``).
        chance_reduction: plies cut from the depth below chance outcomes less likely than
            :data:`REDUCE_BELOW` (0: every outcome is searched to the full depth).
        max_table_entries: the table stores no new position past this size (see
            :meth:`make_room`).
    """

    def __init__(
        self,
        game: SearchGame[S],
        *,
        use_table: bool = True,
        star1: bool = True,
        star2: bool = True,
        chance_reduction: int = 0,
        max_table_entries: int = 400_000,
    ) -> None:
        if star2 and not star1:
            raise ValueError("star2=True needs star1=True (Star2 refines Star1's windows)")
        if (
            isinstance(chance_reduction, bool)
            or not isinstance(chance_reduction, int)
            or chance_reduction < 0
        ):
            raise ValueError(f"chance_reduction must be an integer >= 0, got {chance_reduction!r}")
        self.game = game
        self.bound = game.value_bound
        self.use_table = use_table
        self.star1 = star1
        self.star2 = star2
        self.chance_reduction = chance_reduction
        self.table = Table(max_table_entries)
        # The probe of every node, bound once (a method in between cost 2.5% of the speed).
        self._probe: Callable[[Hashable, int, float, float], tuple[float | None, int | None]]
        self._probe = self.table.probe if use_table else _nothing_known
        self.history: dict[Hashable, int] = {}
        self.killers: list[list[int]] = []
        self.nodes = 0
        self._stop: Callable[[], bool] = never
        self._root_best: tuple[float, int] | None = None

    # --- public entry points --------------------------------------------------------------

    def reset(self) -> None:
        """Forget the table, the history and the killers; zero the node count."""
        self.table.clear()
        self.history.clear()
        self.killers = []
        self.nodes = 0

    def make_room(self) -> None:
        """Clear the table if it is more than three quarters full (call between searches)."""
        self.table.make_room()

    def start_decision(self, state: S) -> int | None:
        """Prepare to search ``state`` for a decision: the action the table already plans.

        Zeroes the node count and the killers (they are per decision; the table and the
        history carry over within a game), and makes room in the table (see
        :meth:`make_room`).

        Returns:
            The best action an earlier search stored for ``state`` (for example at the move,
            the throw it planned), or None.
        """
        self.make_room()
        self.nodes = 0
        self.killers = []
        return self._planned(self.game.key(state))

    def value(self, state: S, depth: int) -> float:
        """The depth-limited expectiminimax value of ``state`` for its player to act.

        Raises:
            ValueError: if ``depth < 0`` or the state is a chance node.
        """
        if depth < 0:
            raise ValueError(f"depth must be >= 0, got {depth}")
        if self.game.is_chance(state):
            raise ValueError("the search starts at a decision node or a finished game")
        self._stop = never
        return self._search(state, depth, -self.bound, self.bound, 0)

    def best(self, state: S, depth: int, first: int | None = None) -> tuple[float, int]:
        """The root's value and best action at ``depth`` (``first`` is tried first).

        Raises:
            ValueError: if the state is not a decision node of a game in progress.
            SearchTimeout: if the ``stop`` callable set by :meth:`iterate` fires.
        """
        game = self.game
        if game.is_terminal(state) or game.is_chance(state):
            raise ValueError("the root must be a decision node of a game in progress")
        if depth < 1:
            raise ValueError(f"depth must be >= 1 to choose an action, got {depth}")
        actions = self._ordered(state, game.legal_actions(state), first, 0)
        player = game.current_player(state)
        best_value, best_action = -self.bound - 1.0, actions[0]
        alpha, beta = -self.bound, self.bound
        self._root_best = None
        for action in actions:
            child = game.apply(state, action)
            value = self._child(child, depth - 1, max(alpha, best_value), beta, 1, player)
            if value > best_value:
                best_value, best_action = value, action
            self._root_best = best_value, best_action
        self._store(game.key(state), depth, best_value, alpha, beta, best_action)
        return best_value, best_action

    def iterate(
        self,
        state: S,
        max_depth: int = 64,
        stop: Callable[[], bool] = never,
        first: int | None = None,
        start: int = 1,
        step: int = 1,
    ) -> Iterator[SearchResult]:
        """Iterative deepening: yield the result of depths ``start``, ``start + step``, ...

        The generator ends early when ``stop()`` returns True during an iteration, or once
        a result is proven (a forced win or loss); it never goes past ``max_depth``. An
        iteration cut short by ``stop()`` yields a last, incomplete result if its first
        root action was searched (see :class:`SearchResult`), and nothing otherwise.
        """
        if start < 1 or step < 1:
            raise ValueError(f"start and step must be >= 1, got start={start}, step={step}")
        self._stop = stop
        depth = start
        try:
            for depth in range(start, max_depth + 1, step):
                value, first = self.best(state, depth, first)
                yield SearchResult(depth, value, first, self.nodes)
                if abs(value) >= self.bound:
                    return
        except SearchTimeout:
            if self._root_best is not None:
                value, action = self._root_best
                yield SearchResult(depth, value, action, self.nodes, complete=False)
        finally:
            self._stop = never
            self._root_best = None

    # --- the recursion --------------------------------------------------------------------

    def _search(self, state: S, depth: int, alpha: float, beta: float, ply: int) -> float:
        """Fail-soft value for the player to act: exact inside ``(alpha, beta)``, else a bound."""
        self.nodes += 1
        if not self.nodes & (CHECK_EVERY - 1) and self._stop():
            raise SearchTimeout
        game = self.game
        if game.is_terminal(state):
            return game.terminal_value(state, game.current_player(state))
        if game.is_chance(state):
            return self._chance(state, depth, alpha, beta, ply)
        if depth <= 0:
            return game.evaluate(state, game.current_player(state))
        return self._decision(state, depth, alpha, beta, ply)

    def _child(
        self, child: S, depth: int, alpha: float, beta: float, ply: int, player: int
    ) -> float:
        """A child's value seen by ``player``, searched with the window ``(alpha, beta)``."""
        if self.game.current_player(child) == player:
            return self._search(child, depth, alpha, beta, ply)
        return -self._search(child, depth, -beta, -alpha, ply)

    def _decision(self, state: S, depth: int, alpha: float, beta: float, ply: int) -> float:
        game = self.game
        key = game.key(state)
        settled, first = self._probe(key, depth, alpha, beta)
        if settled is not None:
            return settled
        actions = self._ordered(state, game.legal_actions(state), first, ply)
        player = game.current_player(state)
        best_value, best_action = -self.bound - 1.0, actions[0]
        for action in actions:
            child = game.apply(state, action)
            value = self._child(child, depth - 1, max(alpha, best_value), beta, ply + 1, player)
            if value > best_value:
                best_value, best_action = value, action
                if value >= beta:
                    self._reward(state, action, depth, ply)
                    break
        self._store(key, depth, best_value, alpha, beta, best_action)
        return best_value

    def _chance(self, state: S, depth: int, alpha: float, beta: float, ply: int) -> float:
        game = self.game
        if depth <= 0 and self.star1:
            return self._leaf_chance(state, alpha, beta)
        key = game.key(state)
        settled, _ = self._probe(key, depth, alpha, beta)
        if settled is not None:
            return settled
        player = game.current_player(state)
        reduced = max(0, depth - self.chance_reduction)
        children = [
            (game.apply(state, outcome), p, depth if p >= REDUCE_BELOW else reduced)
            for outcome, p in game.chance_outcomes(state)
        ]
        if not self.star1:
            value = sum(
                p * self._child(child, child_depth, -self.bound, self.bound, ply, player)
                for child, p, child_depth in children
            )
        else:
            value = self._star(children, alpha, beta, ply, player)
        self._store(key, depth, value, alpha, beta, None)
        return value

    def _leaf_chance(self, state: S, alpha: float, beta: float) -> float:
        """A chance node at the depth limit: Star1 over its outcomes' static values.

        The same value as the general case (whose Star2 pass would evaluate every child in
        this order and cut at the same points), without building child states (the game
        values the outcomes in :meth:`SearchGame.leaf_values`) or probing the table for positions
        the evaluation cache already holds.
        """
        bound = self.bound
        done, rest = 0.0, 1.0  # sum of p * value so far, probability not yet seen
        for p, value in self.game.leaf_values(state, self.game.current_player(state)):
            self.nodes += 1
            done += p * value
            rest -= p
            if done + rest * bound <= alpha:
                return done + rest * bound
            if done - rest * bound >= beta:
                return done - rest * bound
        return done

    def _star(
        self,
        children: list[tuple[S, float, int]],
        alpha: float,
        beta: float,
        ply: int,
        player: int,
    ) -> float:
        """Star1 (with Star2 probing first when on) over ``(child, probability, depth)``s."""
        bound = self.bound
        lower = [-bound] * len(children)
        upper = [bound] * len(children)
        if self.star2:
            cut = self._probe_children(children, alpha, beta, ply, player, lower, upper)
            if cut is not None:
                return cut
        done = 0.0  # sum of p * value over the children searched
        rest_lower = sum(p * low for (_, p, _), low in zip(children, lower, strict=True))
        rest_upper = sum(p * high for (_, p, _), high in zip(children, upper, strict=True))
        for index, (child, p, depth) in enumerate(children):
            low, high = lower[index], upper[index]
            rest_lower -= p * low
            rest_upper -= p * high
            if done + p * high + rest_upper <= alpha:
                return done + p * high + rest_upper
            if done + p * low + rest_lower >= beta:
                return done + p * low + rest_lower
            if low == high:
                done += p * low
                continue
            child_alpha = (alpha - done - rest_upper) / p
            child_beta = (beta - done - rest_lower) / p
            window_low, window_high = max(child_alpha, low), min(child_beta, high)
            value = self._child(child, depth, window_low, window_high, ply, player)
            if value <= window_low:
                if child_alpha >= low:
                    return min(done + p * value + rest_upper, alpha)
                value = low  # the child cannot be worth less than its lower bound
            elif value >= window_high:
                if child_beta <= high:
                    return max(done + p * value + rest_lower, beta)
                value = high
            done += p * value
        return done

    def _probe_children(
        self,
        children: list[tuple[S, float, int]],
        alpha: float,
        beta: float,
        ply: int,
        player: int,
        lower: list[float],
        upper: list[float],
    ) -> float | None:
        """Star2: bound each child by searching its first action; a cut value, or None.

        Fills ``lower`` and ``upper`` (values seen by ``player``) in place.
        """
        game = self.game
        high_sum, low_sum = self.bound, -self.bound  # the bounds of the average so far
        for index, (child, p, depth) in enumerate(children):
            if game.is_terminal(child) or depth <= 0 or game.is_chance(child):
                value = self._child(child, depth, -self.bound, self.bound, ply, player)
                lower[index] = upper[index] = value
            else:
                self._probe_first_action(child, depth, ply, player, index, lower, upper)
            high_sum += p * (upper[index] - self.bound)
            low_sum += p * (lower[index] + self.bound)
            if high_sum <= alpha:
                return high_sum
            if low_sum >= beta:
                return low_sum
        return None

    def _probe_first_action(
        self,
        child: S,
        depth: int,
        ply: int,
        player: int,
        index: int,
        lower: list[float],
        upper: list[float],
    ) -> None:
        """Search the child's first action: a lower bound for the child's own player."""
        game = self.game
        self.nodes += 1
        key = game.key(child)
        first = self._planned(key)
        action = self._ordered(child, game.legal_actions(child), first, ply)[0]
        mover = game.current_player(child)
        grandchild = game.apply(child, action)
        # A full window keeps the probe's value exact, hence a valid bound.
        value = self._child(grandchild, depth - 1, -self.bound, self.bound, ply + 1, mover)
        if mover == player:
            lower[index] = value
        else:
            upper[index] = -value

    # --- table, ordering, history ---------------------------------------------------------

    def _planned(self, key: Hashable) -> int | None:
        """The best action the table holds for ``key``, if the table is on and has one."""
        if not self.use_table:
            return None
        entry = self.table.get(key)
        return entry.action if entry is not None else None

    def _store(
        self,
        key: Hashable,
        depth: int,
        value: float,
        alpha: float,
        beta: float,
        action: int | None,
    ) -> None:
        """:meth:`Table.record`, if the table is on."""
        if self.use_table:
            self.table.record(key, depth, value, alpha, beta, action)

    def _ordered(
        self, state: S, actions: Sequence[int], first: int | None, ply: int
    ) -> list[int]:
        """Actions best-first: the table move, then killers, then by history and static hint."""
        ordered = self.game.order_hint(state, actions)
        history = self.history
        if history:
            game = self.game
            ordered.sort(key=lambda a: -history.get(game.history_key(state, a), 0))
        front: list[int] = []
        if first is not None and first in actions:
            front.append(first)
        if ply < len(self.killers):
            front.extend(k for k in self.killers[ply] if k in actions and k not in front)
        if not front:
            return ordered
        return front + [a for a in ordered if a not in front]

    def _reward(self, state: S, action: int, depth: int, ply: int) -> None:
        """Credit a cutoff move: a killer at this ply, and history by depth squared."""
        while len(self.killers) <= ply:
            self.killers.append([])
        killers = self.killers[ply]
        if action not in killers:
            killers.insert(0, action)
            del killers[2:]
        key = self.game.history_key(state, action)
        self.history[key] = self.history.get(key, 0) + depth * depth


def timed_iterations(
    search: Search[S], state: S, seconds: float, max_depth: int = 64
) -> list[SearchResult]:
    """Iterate deeper from ``state`` for ``seconds`` of wall-clock time (for benchmarks).

    Returns:
        The results of the finished iterations, shallowest first (the unfinished one is
        dropped). ``result.nodes`` counts from the search's last :meth:`Search.reset`.
    """
    deadline = time.perf_counter() + seconds
    results = search.iterate(state, max_depth, lambda: time.perf_counter() >= deadline)
    return [result for result in results if result.complete]

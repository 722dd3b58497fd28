"""Colosseum Survival!'s reference agent, ``expectiminimax`` (aliases ``alphabeta``,
``minimax``): iterative-deepening alpha-beta with the seed report's techniques.

After the start there is no chance, so the search is plain negamax with alpha-beta from
the side to act:

* **iterative deepening** under the agent's clock, one :class:`SearchResult` per depth
  (:meth:`AlphaBeta.iterate`, a generator: the clock and the choice live outside; the
  loop and the root, the table, the killers and history, the clock check and the
  settings are :mod:`agents.search.alphabeta`'s, shared with Othello's reference);
* **move ordering**: the transposition table's move, two **killer moves** per ply, then
  the history heuristic plus a static hint (destinations near the opponent, barriers
  facing it); at the root, the previous iteration's best first;
* a **transposition table** keyed by the position (barriers, cells, side to act), kept
  through a game; an entry cuts only at its own depth, so values equal plain minimax's;
* the **evaluation** of :mod:`agents.colosseum.evaluation` (reachable area, mobility,
  distance), and finished games scored beyond it by their zone margin.

Guarantee: :meth:`AlphaBeta.value` at depth d equals the plain negamax value at depth d
with :func:`~agents.colosseum.evaluation.evaluate` at the leaves and
:func:`~agents.colosseum.evaluation.final_score` at finished games; the tests check it
against a slow oracle.

The agent's clock is the one of the other references (:mod:`agents.timing`):
``time_limit`` CPU seconds per turn (a turn is one decision here), stopped a safety margin
early (:func:`~agents.timing.decision_deadline`), polled every 16 nodes, the collector
paused during a decision. A move is ready before the search starts (the first legal
action, then each iteration's best); no iteration starts past half the budget. With
``time_limit=inf`` (or ``none``) and a ``depth`` it is deterministic. ``last_search``
holds a :class:`SearchStats`.

Example:
    >>> from trap_env.colosseum.rules import ColosseumConfig, legal_actions, start_state
    >>> state = start_state(ColosseumConfig(board_size=5), 0)
    >>> agent = SearchAgent(SearchSettings(depth=2, time_limit=None))
    >>> agent.select_action(state) in legal_actions(state)
    True
    >>> agent.last_search.depth
    2
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from agents.colosseum.evaluation import DEFAULT_WEIGHTS, Weights, evaluate, final_score
from agents.colosseum.greedy import child
from agents.colosseum.random_agent import ColosseumAgent
from agents.search.alphabeta import (
    MAX_DEPTH,
    AlphaBetaSearch,
    AlphaBetaSettings,
    SearchResult,
    choose,
    deepen,
)
from agents.search.expectimax import SearchStats, never
from agents.timing import ClockedAgent
from trap_env.checks import check_type
from trap_env.colosseum import rules
from trap_env.colosseum.rules import NUM_SIDES, ColosseumState

__all__ = [
    "AlphaBeta",
    "SearchAgent",
    "SearchResult",
    "SearchSettings",
    "SearchStats",
    "WeightedAgent",
    "static_hints",
]

INFINITY = math.inf


class AlphaBeta(AlphaBetaSearch):
    """The search; its table, killers and history
    (:class:`~agents.search.alphabeta.AlphaBetaSearch`'s) live across the searches of a game.

    Args:
        weights: the evaluation's weights.
        table_size: the transposition table's capacity in positions.
    """

    check_every = 16
    """The search polls its clock every this many nodes (a power of two; a node with its
    evaluation costs about a tenth of a millisecond)."""

    def __init__(self, weights: Weights = DEFAULT_WEIGHTS, table_size: int = 200_000) -> None:
        super().__init__(table_size)
        self.weights = weights
        self.root_player = 0
        """The searching player, for whom the evaluation counts closeness."""

    # --- The search ---------------------------------------------------------------------

    def value(self, state: ColosseumState, depth: int) -> float:
        """The depth-limited negamax value for the player to act (no clock)."""
        self.start()
        self.root_player = state.player
        return self._negamax(state, depth, -INFINITY, INFINITY, 0)

    def _negamax(
        self, state: ColosseumState, depth: int, alpha: float, beta: float, ply: int
    ) -> float:
        """Fail-soft alpha-beta: exact inside ``(alpha, beta)``, else a bound on the
        correct side."""
        self.count_node()
        sizes = rules.zone_sizes(state)
        if sizes is not None:
            return final_score(state, sizes)
        if depth == 0:
            return evaluate(state, self.weights, self.root_player)
        key = _key(state, self.root_player)
        settled, first = self.table.probe(key, depth, alpha, beta)
        if settled is not None:
            return settled
        best, best_action, low = -INFINITY, -1, alpha
        for action in self._ordered(state, first, ply):
            score = -self._negamax(child(state, action), depth - 1, -beta, -low, ply + 1)
            if score > best:
                best, best_action = score, action
                if score > low:
                    low = score
                    if score >= beta:
                        self.moves.reward(action, first, depth, ply)
                        break
        self.table.record(key, depth, best, alpha, beta, best_action)
        return best

    def _ordered(self, state: ColosseumState, first: int | None, ply: int) -> list[int]:
        """The legal actions, best first: the table's move, the killers, then history
        plus :func:`static_hints`."""
        return self.moves.priorities(static_hints(state), first, ply)

    # --- The root -------------------------------------------------------------------------

    def iterate(
        self, state: ColosseumState, max_depth: int, stop: Callable[[], bool] = never
    ) -> Iterator[SearchResult]:
        """Iterative deepening from depth 1 to ``max_depth``: one result per depth, and a
        last incomplete one if the clock cut an iteration after its first root action.

        Call :meth:`start` first at each new decision.

        Raises:
            ValueError: for a state with no legal action (the chance node, a finished game).
        """
        self.stop = stop
        self.root_player = state.player
        if not rules.legal_actions(state):
            raise ValueError(f"nothing to search in {rules.to_text(state)}")
        # Once the game's end is within reach, deeper changes nothing.
        yield from deepen(
            functools.partial(self._root_child, state),
            self._ordered(state, None, 0),
            max_depth,
            lambda found: abs(found.value) >= WIN_BOUND,
        )

    def _root_child(
        self, state: ColosseumState, action: int, depth: int, alpha: float, beta: float
    ) -> float:
        """Root action ``action``'s value, as :data:`~agents.search.alphabeta.RootChild`."""
        return -self._negamax(child(state, action), depth - 1, -beta, -alpha, 1)


WIN_BOUND = 5_000.0
"""A root value past this is a finished game found by the search (a win or a loss)."""


def _key(state: ColosseumState, root_player: int) -> int:
    """The table key: the right and down barriers (the others mirror them), the cells,
    the side to act and the searching player, packed in one int."""
    n = state.board_size
    cells = n * n
    right, down = state.walls[1], state.walls[2]
    packed = ((state.cells[0] * cells + state.cells[1]) * 2 + state.player) * 2 + root_player
    return (packed << cells | down) << cells | right


def static_hints(state: ColosseumState) -> list[tuple[int, int]]:
    """Every legal action with a static ordering hint: destinations near the opponent
    first, a barrier on a side facing it next."""
    n = state.board_size
    other_row, other_col = divmod(state.cells[1 - state.player], n)
    hinted = []
    for action in rules.legal_actions(state):
        cell, side = divmod(action, NUM_SIDES)
        row, col = divmod(cell, n)
        distance = abs(row - other_row) + abs(col - other_col)
        facing = (
            (side == rules.UP and other_row < row)
            or (side == rules.DOWN and other_row > row)
            or (side == rules.LEFT and other_col < col)
            or (side == rules.RIGHT and other_col > col)
        )
        hinted.append((action, 2 * facing - 4 * distance))
    return hinted


# --- The agent ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchSettings(AlphaBetaSettings):
    """How the reference plays: :class:`~agents.search.alphabeta.AlphaBetaSettings`'s
    fields and defaults (2 s a turn, as the course allowed a move)."""


DEFAULT_SETTINGS = SearchSettings()


class WeightedAgent(ClockedAgent, ColosseumAgent):
    """Base of Colosseum Survival!'s agents that search on a clock with the evaluation's
    weights (the reference and ``mcts``): both checked, kept as ``settings`` and ``weights``.

    Raises:
        TypeError: for settings that are not a ``settings_type`` or weights not a Weights.
    """

    def __init__(
        self, settings: Any, settings_type: type, weights: Weights, seed: int | None
    ) -> None:
        check_type("settings", settings, settings_type, f"a {settings_type.__name__}")
        check_type("weights", weights, Weights, "a Weights")
        ColosseumAgent.__init__(self, seed)
        ClockedAgent.__init__(self, settings.clock)
        self.settings = settings
        self.weights = weights

    @property
    def time_limit(self) -> float | None:
        """The seconds of a turn it searches for (``settings.time_limit``); None: no clock,
        it stops at its depth or number of simulations (:func:`trap_env.agent.time_limit_of`)."""
        limit: float | None = self.settings.time_limit  # settings: the subclass's record
        return limit


class SearchAgent(WeightedAgent):
    """The reference: iterative-deepening alpha-beta under a CPU-time budget per turn;
    deterministic at a fixed depth (the seed is unused).

    Args:
        settings: how to search (see :class:`SearchSettings`).
        weights: the evaluation's weights (see :class:`~agents.colosseum.evaluation.Weights`).
        seed: accepted for the agents' common interface.
    """

    settings: SearchSettings

    def __init__(
        self,
        settings: SearchSettings = DEFAULT_SETTINGS,
        weights: Weights = DEFAULT_WEIGHTS,
        seed: int | None = None,
    ) -> None:
        super().__init__(settings, SearchSettings, weights, seed)
        self.search = AlphaBeta(weights, settings.table_size)
        self.last_search: SearchStats | None = None

    @property
    def depth(self) -> int | None:
        """The fixed depth, if any (``settings.depth``)."""
        return self.settings.depth

    def reset(self, seed: int | None = None) -> None:
        """Start a new game: forget the table, the history and the killers."""
        super().reset(seed)
        self.search.reset()
        self.last_search = None

    def _decide(self, state: ColosseumState) -> int:
        started = self.clock()
        legal = rules.legal_actions(state)
        if not legal:
            raise ValueError(f"select_action needs a game in progress, got {rules.to_text(state)}")
        limit = self.settings.time_limit
        result = SearchResult(legal[0], 0.0, 0)  # a move is ready before any search
        search = self.search
        stop = self._stopper(started, limit)
        search.start(stop)
        if len(legal) > 1:
            iterations = search.iterate(state, self.settings.depth or MAX_DEPTH, stop)
            result = choose(iterations, result, self.clock, started, limit)
        seconds = self.clock() - started
        self.last_search = SearchStats(
            search.nodes, result.depth, seconds, result.value, limit or 0.0
        )
        return result.action

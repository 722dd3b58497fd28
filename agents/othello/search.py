"""Othello's reference agent, ``expectiminimax`` (aliases ``alphabeta``, ``minimax``):
iterative-deepening alpha-beta on bitboards, with an exact endgame solver.

Othello has no chance, so the search is plain negamax with alpha-beta from the side to
act, over (own, other) bitboard pairs (:mod:`agents.othello.bitboards`):

* **principal-variation search**: the first child gets the full window, the others a
  null window just above alpha (``math.nextafter``, so the test is exact on floats) and a
  re-search if they beat it;
* a **transposition table** keyed by the bitboard pair, kept through a game; an entry
  cuts only at its own depth (so every value equals plain minimax's), and its best move
  is tried first at any depth;
* **move ordering**: the table's move, two killer moves per ply, then the history
  heuristic plus a static square value (corners first, X-squares last);
* the **evaluation** of :mod:`agents.othello.evaluation` (mobility, frontier, corners,
  stability, X-squares; its weights are options);
* an **exact endgame solver** once at most ``endgame_empties`` cells are empty: negamax on
  the final disc margin to the end, with its own table, fastest-first ordering (fewest
  replies) and null-window searches at the root.

Guarantees: :meth:`AlphaBeta.value` at depth d equals the plain minimax value at depth d
with :func:`~agents.othello.evaluation.evaluate` at the leaves and
:func:`~agents.othello.evaluation.final_score` at finished games (a pass is a ply),
exactly; :meth:`AlphaBeta.solve` equals the brute-force negamax disc margin. The tests
check both against slow oracles.

The agent's clock is the one of Trap!'s search (:mod:`agents.timing`): ``time_limit`` CPU
seconds per turn (a turn is one decision here), stopped a safety margin early
(:func:`~agents.timing.decision_deadline`), polled every 64 nodes, the collector paused
during a decision; it answers with the deepest finished iteration's move (or a later
root move that beat it in an iteration the clock cut). No iteration starts past half the
budget; before an endgame solve, past a quarter (the solve gets the rest). With
``time_limit=inf`` (or ``none``) and a ``depth`` it is deterministic. ``last_search`` holds
a :class:`SearchStats`.

Example:
    >>> from trap_env.othello.rules import initial_state
    >>> agent = SearchAgent(SearchSettings(depth=2, time_limit=None))
    >>> agent.select_action(initial_state()) in (19, 26, 37, 44)
    True
    >>> agent.last_search.depth
    2
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from agents.options import check_int
from agents.othello.bitboards import Geometry, geometry
from agents.othello.evaluation import (
    DEFAULT_WEIGHTS,
    Weights,
    evaluate_bitboards,
    final_score,
    score_of_margin,
)
from agents.othello.random_agent import OthelloAgent
from agents.search import expectimax
from agents.search.alphabeta import (
    MAX_DEPTH,
    AlphaBetaSearch,
    AlphaBetaSettings,
    SearchResult,
    choose,
    deepen,
    narrowed,
)
from agents.search.expectimax import SearchTimeout, never
from agents.timing import ClockedAgent
from trap_env.checks import check_type
from trap_env.othello import rules
from trap_env.othello.rules import COURSE, Bitboard, OthelloState

__all__ = [
    "AlphaBeta",
    "SearchAgent",
    "SearchResult",
    "SearchSettings",
    "SearchStats",
]

SOLVER_MIDGAME_SHARE = 0.25
"""Before a solve, the part of the budget after which no midgame iteration is started."""
INFINITY = math.inf


class AlphaBeta(AlphaBetaSearch):
    """The search for one board side and end rule; its tables live across searches
    (:class:`~agents.search.alphabeta.AlphaBetaSearch`'s, and the solver's).

    Args:
        board_size: N.
        end_rule: ``"standard"`` (a blocked player passes) or ``"course"`` (the game
            ends when the player to act is blocked).
        weights: the evaluation's weights.
        table_size: the transposition table's capacity in positions.
    """

    def __init__(
        self,
        board_size: int,
        end_rule: str = rules.STANDARD,
        weights: Weights = DEFAULT_WEIGHTS,
        table_size: int = 400_000,
    ) -> None:
        super().__init__(table_size)
        self.geo: Geometry = geometry(board_size)
        self.passes = end_rule != COURSE
        self.weights = weights
        self.solved: dict[int, int] = {}
        self.table_size = table_size

    # --- Housekeeping -----------------------------------------------------------------

    def reset(self) -> None:
        """Forget the tables, the history and the killers (a new game)."""
        super().reset()
        self.solved.clear()

    def start(self, stop: Callable[[], bool] = never) -> None:
        """Prepare a new decision: the clock check, node count, aged history, table room."""
        super().start(stop)
        if len(self.solved) > self.table_size:
            self.solved.clear()

    def _key(self, own: Bitboard, other: Bitboard) -> int:
        return own << self.geo.num_cells | other

    def _pass_replies(self, own: Bitboard, other: Bitboard) -> Bitboard:
        """The opponent's placements after ``own``'s side, blocked, passes (none under the
        course rule, where a blocked player's game ends)."""
        return self.geo.placements(other, own) if self.passes else 0

    # --- The midgame search ---------------------------------------------------------------

    def value(self, own: Bitboard, other: Bitboard, depth: int) -> float:
        """The depth-limited negamax value for ``own``'s side, to act (no clock)."""
        self.start()
        return self._negamax(own, other, depth, -INFINITY, INFINITY, 0)

    def _negamax(
        self, own: Bitboard, other: Bitboard, depth: int, alpha: float, beta: float, ply: int
    ) -> float:
        """Fail-soft alpha-beta with PVS: exact inside ``(alpha, beta)``, else a bound on
        the correct side."""
        self.count_node()
        geo = self.geo
        moves = geo.placements(own, other)
        if not moves:
            replies = self._pass_replies(own, other)
            if not replies:
                return final_score(own, other)
            if depth == 0:
                return evaluate_bitboards(geo, own, other, 0, replies, self.weights)
            return -self._negamax(other, own, depth - 1, -beta, -alpha, ply + 1)
        if depth == 0:
            replies = geo.placements(other, own)
            return evaluate_bitboards(geo, own, other, moves, replies, self.weights)
        key = self._key(own, other)
        settled, first = self.table.probe(key, depth, alpha, beta)
        if settled is not None:
            return settled
        best, best_move = -INFINITY, -1
        low = alpha
        for cell in self._ordered(moves, first, ply):
            flipped = geo.flips(own, other, cell)
            child_own, child_other = other & ~flipped, own | flipped | 1 << cell
            if best_move < 0:
                score = -self._negamax(child_own, child_other, depth - 1, -beta, -low, ply + 1)
            else:
                above = math.nextafter(low, INFINITY)
                score = -self._negamax(child_own, child_other, depth - 1, -above, -low, ply + 1)
                if low < score < beta:
                    score = -self._negamax(child_own, child_other, depth - 1, -beta, -low, ply + 1)
            if score > best:
                best, best_move = score, cell
                if score > low:
                    low = score
                    if score >= beta:
                        self.moves.reward(cell, first, depth, ply)
                        break
        self.table.record(key, depth, best, alpha, beta, best_move)
        return best

    def _ordered(self, moves: Bitboard, first: int | None, ply: int) -> list[int]:
        """The placements, best first: the table's move, the killers, then history plus
        the static square values."""
        squares = self.geo.square_values
        hinted = []
        while moves:
            low = moves & -moves
            moves ^= low
            cell = low.bit_length() - 1
            hinted.append((cell, squares[cell]))
        return self.moves.priorities(hinted, first, ply)

    # --- The root -------------------------------------------------------------------------

    def iterate(
        self, own: Bitboard, other: Bitboard, max_depth: int, stop: Callable[[], bool] = never
    ) -> Iterator[SearchResult]:
        """Iterative deepening from depth 1 to ``max_depth``: one result per depth, and a
        last incomplete one if the clock cut an iteration after its first root action.

        ``own`` must have a placement (a forced pass needs no search). Call :meth:`start`
        first at each new decision."""
        self.stop = stop
        moves = self.geo.placements(own, other)
        if not moves:
            raise ValueError("the player to act has no placement: nothing to search")
        # Every line has reached its end past twice the empties (two passes end a game).
        empties = self._empties(own, other)
        yield from deepen(
            functools.partial(self._root_child, own, other),
            self._ordered(moves, None, 0),
            max_depth,
            lambda found: found.depth >= 2 * empties,
            null_window=True,
        )

    def _root_child(
        self, own: Bitboard, other: Bitboard, cell: int, depth: int, alpha: float, beta: float
    ) -> float:
        """Root placement ``cell``'s value, as :data:`~agents.search.alphabeta.RootChild`."""
        flipped = self.geo.flips(own, other, cell)
        child_own, child_other = other & ~flipped, own | flipped | 1 << cell
        return -self._negamax(child_own, child_other, depth - 1, -beta, -alpha, 1)

    def static_guess(self, own: Bitboard, other: Bitboard) -> int:
        """The first placement in static order (an answer before any search)."""
        return self._ordered(self.geo.placements(own, other), None, 0)[0]

    def _empties(self, own: Bitboard, other: Bitboard) -> int:
        return self.geo.num_cells - (own | other).bit_count()

    # --- The endgame solver ---------------------------------------------------------------

    def solve(self, own: Bitboard, other: Bitboard, stop: Callable[[], bool] = never) -> int:
        """The exact final disc margin (own minus other) under perfect play, to act."""
        self.start(stop)
        return self._solve(own, other, -self.geo.num_cells - 1, self.geo.num_cells + 1)

    def solve_root(
        self, own: Bitboard, other: Bitboard, stop: Callable[[], bool] = never
    ) -> SearchResult:
        """The best placement and its exact result (own must have a placement); after
        :meth:`start`, as :meth:`iterate`."""
        self.stop = stop
        geo = self.geo
        moves = geo.placements(own, other)
        if not moves:
            raise ValueError("the player to act has no placement: nothing to solve")
        best, best_move = -geo.num_cells - 1, -1
        for cell in self._fastest_first(own, other, moves):
            flipped = geo.flips(own, other, cell)
            child_own, child_other = other & ~flipped, own | flipped | 1 << cell
            # Does it beat the best so far? A null window says, before any full search.
            if best_move >= 0 and -self._solve(child_own, child_other, -best - 1, -best) <= best:
                continue
            score = -self._solve(child_own, child_other, -geo.num_cells - 1, -best)
            if score > best or best_move < 0:
                best, best_move = score, cell
        empties = self._empties(own, other)
        return SearchResult(best_move, score_of_margin(best), empties, exact=True)

    def _solve(self, own: Bitboard, other: Bitboard, alpha: int, beta: int) -> int:
        """Fail-soft alpha-beta on the final disc margin, to the end of the game."""
        self.count_node()
        geo = self.geo
        moves = geo.placements(own, other)
        if not moves:
            if not self._pass_replies(own, other):
                return own.bit_count() - other.bit_count()
            return -self._solve(other, own, -beta, -alpha)
        key = self._key(own, other)
        bounds = self.solved.get(key)
        span = geo.num_cells
        if bounds is not None:  # lower and upper bounds packed in one int (no GC tracking)
            lower, upper = divmod(bounds, 2 * span + 1)
            lower, upper = lower - span, upper - span
            if lower >= beta or lower == upper:
                return lower
            if upper <= alpha:
                return upper
            alpha, beta = max(alpha, lower), min(beta, upper)
        else:
            lower, upper = -span, span
        best = -span - 1
        original_alpha = alpha
        ordered = self._fastest_first(own, other, moves) if self._empties(own, other) > 5 \
            else self._ordered(moves, None, 0)  # fmt: skip
        for cell in ordered:
            flipped = geo.flips(own, other, cell)
            score = -self._solve(other & ~flipped, own | flipped | 1 << cell, -beta, -alpha)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
        lower, upper = narrowed(lower, upper, best, original_alpha, beta)
        self.solved[key] = (lower + span) * (2 * span + 1) + upper + span
        return best

    def _fastest_first(self, own: Bitboard, other: Bitboard, moves: Bitboard) -> list[int]:
        """The placements ordered by the opponent's replies after each, fewest first
        (corners before the rest on ties)."""
        geo, squares = self.geo, self.geo.square_values
        scored = []
        while moves:
            low = moves & -moves
            moves ^= low
            cell = low.bit_length() - 1
            flipped = geo.flips(own, other, cell)
            replies = geo.placements(other & ~flipped, own | flipped | low).bit_count()
            scored.append((replies, -squares[cell], cell))
        scored.sort()
        return [cell for *_, cell in scored]


# --- The agent ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchSettings(AlphaBetaSettings):
    """How the reference plays: :class:`~agents.search.alphabeta.AlphaBetaSettings`'s
    fields (a pass is a ply of ``depth``; 5 s a turn and 400,000 positions by default), and
    its endgame solver's.

    Attributes:
        endgame_empties: solve exactly once at most this many cells are empty (0: never).
    """

    time_limit: float | None = 5.0
    table_size: int = 400_000
    endgame_empties: int = 12

    def __post_init__(self) -> None:
        super().__post_init__()
        check_int("endgame_empties", self.endgame_empties, 0)


@dataclass(frozen=True)
class SearchStats(expectimax.SearchStats):
    """What the last decision's search did (:class:`agents.search.expectimax.SearchStats`'s
    fields; ``depth`` is the number of empty cells for an exact solve, and ``value`` past
    :data:`~agents.othello.evaluation.WIN_SCORE` for a won game).

    Attributes:
        exact: whether the endgame solver gave the answer.
    """

    exact: bool = False


DEFAULT_SETTINGS = SearchSettings()


class SearchAgent(ClockedAgent, OthelloAgent):
    """The reference: iterative-deepening alpha-beta under a CPU-time budget per turn,
    exact in the endgame; deterministic at a fixed depth (the seed is unused).

    Args:
        settings: how to search (see :class:`SearchSettings`).
        weights: the evaluation's weights (see :class:`~agents.othello.evaluation.Weights`).
        seed: accepted for the agents' common interface.
    """

    def __init__(
        self,
        settings: SearchSettings = DEFAULT_SETTINGS,
        weights: Weights = DEFAULT_WEIGHTS,
        seed: int | None = None,
    ) -> None:
        check_type("settings", settings, SearchSettings, "a SearchSettings")
        check_type("weights", weights, Weights, "a Weights")
        OthelloAgent.__init__(self, seed)
        ClockedAgent.__init__(self, settings.clock)
        self.settings = settings
        self.weights = weights
        self.search: AlphaBeta | None = None
        self.last_search: SearchStats | None = None

    @property
    def time_limit(self) -> float | None:
        """The seconds of a turn it searches for (``settings.time_limit``); None: no clock,
        it stops at its depth (:func:`trap_env.agent.time_limit_of`)."""
        return self.settings.time_limit

    @property
    def depth(self) -> int | None:
        """The fixed depth, if any (``settings.depth``)."""
        return self.settings.depth

    def reset(self, seed: int | None = None) -> None:
        """Start a new game: forget the tables, the history and the killers."""
        super().reset(seed)
        if self.search is not None:
            self.search.reset()
        self.last_search = None

    def _searcher(self, state: OthelloState) -> AlphaBeta:
        """The search for the state's rules (a new one if the board or rule changed)."""
        search = self.search
        if (
            search is None
            or search.geo.board_size != state.board_size
            or search.passes != (state.end_rule != COURSE)
        ):
            search = self.search = AlphaBeta(
                state.board_size, state.end_rule, self.weights, self.settings.table_size
            )
        return search

    def _decide(self, state: OthelloState) -> int:
        started = self.clock()
        legal = rules.legal_actions(state)
        if not legal:
            raise ValueError(f"select_action needs a game in progress, got {rules.to_text(state)}")
        limit = self.settings.time_limit
        result = SearchResult(legal[0], 0.0, 0)
        search = self._searcher(state)
        search.start()
        if len(legal) > 1:
            result = self._choose(state, search, started, limit)
        seconds = self.clock() - started
        self.last_search = SearchStats(
            search.nodes, result.depth, seconds, result.value, limit or 0.0, result.exact
        )
        return result.action

    def _choose(
        self, state: OthelloState, search: AlphaBeta, started: float, limit: float | None
    ) -> SearchResult:
        """Iterate deeper (or solve) until the budget or the depth runs out."""
        own, other = rules.sides_of(state, state.player)
        stop = self._stopper(started, limit)
        settings = self.settings
        empties = search.geo.num_cells - (own | other).bit_count()
        solving = empties <= settings.endgame_empties
        # The next iteration costs several times this one: none is started past half the
        # budget, or past a quarter of it before a solve (which gets the rest, and whose
        # fallback, if the clock cuts it, is this midgame answer).
        share = SOLVER_MIDGAME_SHARE if solving else 0.5
        ready = SearchResult(search.static_guess(own, other), 0.0, 0)
        iterations = search.iterate(own, other, settings.depth or MAX_DEPTH, stop)
        result = choose(iterations, ready, self.clock, started, limit, share)
        if solving and not stop():
            with contextlib.suppress(SearchTimeout):  # the clock cut it: keep the midgame answer
                result = search.solve_root(own, other, stop)
        return result

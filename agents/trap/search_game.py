"""Trap! as the search's game (:class:`agents.search.game.SearchGame`), on top of
:mod:`trap_env.trap.core` and its kernel: the throw filter, merged landings, the evaluation
of :mod:`agents.trap.evaluation`, table keys and move-ordering hints."""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence

from agents.trap.evaluation import DEFAULT_WEIGHTS, Evaluator, Weights
from trap_env.bits import cells_of
from trap_env.cache import BoundedCache
from trap_env.trap import core, kernel
from trap_env.trap.core import Cell, Phase, State
from trap_env.trap.game import GAME
from trap_env.trap.kernel import (
    cached_geometry,
    geometry,
    is_trapped,
    king_distance,
    square_mask,
)

__all__ = ["TrapGame"]

MAX_LANDINGS = 100_000
"""The memo of landing distributions stores no new entry past this size (see ``make_room``)."""
_DECAYS = kernel.MAX_DECAY + 1
"""The number of possible decays: keys multiply by it to hold the state's decay."""


def _merged_landings(state: State) -> tuple[tuple[Cell, float], ...]:
    """:func:`trap_env.trap.kernel.landings`, landings on existing traps merged into one."""
    outcomes: list[tuple[Cell, float]] = []
    wasted = 0.0
    wasted_cell = -1
    for cell, probability in kernel.landings(state):
        if state.traps >> cell & 1:
            wasted += probability
            if wasted_cell < 0:
                wasted_cell = cell
        else:
            outcomes.append((cell, probability))
    if wasted_cell >= 0:
        outcomes.append((wasted_cell, wasted))
    return tuple(outcomes)


class TrapGame:
    """Trap! for the search, on top of :mod:`trap_env.trap.core`.

    Args:
        throw_filter: search only throws at empty cells within ``throw_radius`` king
            steps of the opponent (all legal targets when False).
        deterministic_throws: pretend every throw lands on its target (the course's
            minimax simplification); the landing is then not a real chance node.
        weights: the evaluation weights.
        throw_radius: the filter's radius, in king steps from the opponent. Every throw
            that can win at once targets a cell next to the opponent, so radius 1 keeps
            them all; radius 2 adds the throws that shrink the opponent's room, which
            decide many games (``docs/experiments.md`` has the comparison).

    Chance outcomes that land on a cell already holding a trap all lead to the same
    position, so they are merged into one outcome (the first such cell) with their summed
    probability.
    """

    value_bound = 1.0

    def __init__(
        self,
        throw_filter: bool = True,
        deterministic_throws: bool = False,
        weights: Weights = DEFAULT_WEIGHTS,
        throw_radius: int = 2,
    ) -> None:
        if isinstance(throw_radius, bool) or not isinstance(throw_radius, int) or throw_radius < 1:
            raise ValueError(f"throw_radius must be an integer >= 1, got {throw_radius!r}")
        self.throw_filter = throw_filter
        self.throw_radius = throw_radius
        self.deterministic_throws = deterministic_throws
        self.evaluator = Evaluator(weights)
        self._landings: BoundedCache[int, kernel.Outcomes] = BoundedCache(MAX_LANDINGS)
        self._landings_board_size = 0

    def legal_actions(self, state: State) -> list[Cell]:
        """Moves; throw targets (filtered when ``throw_filter``); landing cells."""
        if state.phase is Phase.THROW and self.throw_filter:
            return self._candidate_throws(state)
        return core.legal_actions(state)

    def _candidate_throws(self, state: State) -> list[Cell]:
        thrower = state.cells[state.player]
        opponent = state.cells[1 - state.player]
        near = square_mask(state.board_size, opponent, self.throw_radius)
        near &= ~(state.traps | 1 << thrower | 1 << opponent)
        if not near:
            return core.legal_actions(state)
        return cells_of(near)

    apply = staticmethod(kernel.apply)
    """The next state: :func:`trap_env.trap.kernel.apply`, ``core.apply`` without its checks.

    The search applies only actions that :meth:`legal_actions` or :meth:`chance_outcomes`
    listed, so the checks would only cost time.
    """

    is_chance = staticmethod(GAME.is_chance)
    """Whether the state waits for a landing: the protocol's own test."""

    def chance_outcomes(self, state: State) -> Sequence[tuple[Cell, float]]:
        """The landing distribution, landings on existing traps merged into one outcome."""
        if self.deterministic_throws:
            return ((state.target, 1.0),)
        # Memoised, as every chance node asks: only the traps around the target matter.
        n, target = state.board_size, state.target
        size = n * n
        cell0, cell1 = state.cells
        tables = cached_geometry(n) or geometry(n)
        near_traps = state.traps & (tables.neighbours[target] | 1 << target)
        rest = (((cell0 * size + cell1) * size + target) * 2 + state.player) * _DECAYS
        key = near_traps * (size * size * size * 2 * _DECAYS) + rest + state.decay
        if n != self._landings_board_size:  # the key says nothing of the board size
            self._landings.clear()
            self._landings_board_size = n
        outcomes = self._landings.get(key)
        if outcomes is None:
            outcomes = _merged_landings(state)
            # Full: clearing here would stall the search for tens of ms past a clock check.
            self._landings.put(key, outcomes)
        return outcomes

    def make_room(self) -> None:
        """Clear the memo and the evaluation cache if they are more than three quarters full.

        Call between searches: clearing takes tens of milliseconds, which the search's clock
        checks would not see coming.
        """
        self._landings.make_room()
        self.evaluator.make_room()

    is_terminal = staticmethod(core.is_terminal)
    """Whether a player has won: the rules' own test (the search knows no turn limit)."""

    def terminal_value(self, state: State, player: int) -> float:
        """+1 for the winner, -1 for the loser: :func:`trap_env.trap.core.returns`."""
        return core.returns(state)[player]

    def current_player(self, state: State) -> int:
        """The player to move or throw; at a landing, the thrower."""
        return state.player

    def evaluate(self, state: State, player: int) -> float:
        """:func:`agents.trap.evaluation.evaluate`, cached."""
        return self.evaluator(state, player)

    def leaf_values(self, state: State, player: int) -> Iterator[tuple[float, float]]:
        """Each landing's probability and value, computed on bitboards without new states."""
        n, traps, (cell0, cell1), thrower = state.board_size, state.traps, state.cells, state.player
        victim, thrower_cell = (cell1, cell0) if thrower == 0 else (cell0, cell1)
        victim_ring = (cached_geometry(n) or geometry(n)).neighbours[victim]
        won = 1.0 if player == thrower else -1.0
        sign = 1.0 if player == 0 else -1.0
        board_value = self.evaluator.board_value
        for cell, probability in self.chance_outcomes(state):
            landed = traps | 1 << cell
            if is_trapped(victim_ring, landed, thrower_cell):
                yield probability, won
            else:
                yield probability, sign * board_value(n, landed, cell0, cell1)

    def key(self, state: State) -> Hashable:
        """The state without its turn counter (which no subtree depends on), as one int.

        An int rather than a tuple: it hashes faster, and the garbage collector never
        scans it, however large the table grows. Everything but the traps is packed into
        a small int first, so that the (large) traps cost one product and one sum.
        """
        size = state.board_size * state.board_size
        cell0, cell1 = state.cells
        rest = ((cell0 * size + cell1) * (size + 1) + state.target + 1) * 6
        rest = (rest + state.player * 3 + state.phase) * _DECAYS + state.decay
        return state.traps * (size * size * (size + 1) * 6 * _DECAYS) + rest

    def order_hint(self, state: State, actions: Sequence[int]) -> list[int]:
        """Moves to cells with many free neighbours first; throws next to the opponent first."""
        n = state.board_size
        opponent = state.cells[1 - state.player]
        if state.phase is Phase.MOVE:
            blocked = state.traps | 1 << opponent
            neighbours = geometry(n).neighbours
            return sorted(actions, key=lambda cell: -(neighbours[cell] & ~blocked).bit_count())
        return sorted(actions, key=lambda cell: king_distance(n, opponent, cell))

    def history_key(self, state: State, action: int) -> Hashable:
        """Moves and throws of each player are credited apart (an int: it hashes fastest)."""
        return (state.player * 3 + state.phase) * state.board_size**2 + action

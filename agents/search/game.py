"""The small game interface the search is written against, and Trap! as one implementation.

A game for :mod:`agents.search.expectimax` is two-player, zero-sum, with explicit chance
nodes (as in OpenSpiel). Values are payoffs from one player's point of view and lie in
``[-value_bound, value_bound]``; a game's evaluation stays strictly inside that range so
that a proven result is never confused with an estimate.

Chance nodes are valued from the point of view of ``current_player(state)``: for Trap!,
the thrower whose trap is in the air.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Iterator, Sequence
from typing import Protocol, TypeVar

from agents.search.evaluation import DEFAULT_WEIGHTS, Evaluator, Weights
from trap_env import core
from trap_env.core import Cell, Phase, State

__all__ = ["Game", "TrapGame"]

S = TypeVar("S")
MAX_LANDINGS = 100_000
"""The memo of landing distributions stores no new entry past this size (see ``make_room``)."""
# Building states with tuple.__new__ skips NamedTuple's keyword handling (as core does).
_new_state = tuple.__new__


class Game(Protocol[S]):
    """What the search needs to know about a game."""

    value_bound: float
    """Every terminal value and evaluation lies in ``[-value_bound, value_bound]``."""

    def legal_actions(self, state: S) -> Sequence[int]:
        """The actions to search at a decision node (may be a filtered subset)."""
        ...

    def apply(self, state: S, action: int) -> S:
        """The state after ``action`` (a decision or a chance outcome)."""
        ...

    def is_chance(self, state: S) -> bool:
        """Whether chance acts in ``state``."""
        ...

    def chance_outcomes(self, state: S) -> Sequence[tuple[int, float]]:
        """The ``(outcome, probability)`` pairs of a chance node; probabilities sum to 1."""
        ...

    def is_terminal(self, state: S) -> bool:
        """Whether the game is over."""
        ...

    def terminal_value(self, state: S, player: int) -> float:
        """The payoff of a finished game for ``player``."""
        ...

    def current_player(self, state: S) -> int:
        """The player to act (at a chance node: the player whose view values it)."""
        ...

    def evaluate(self, state: S, player: int) -> float:
        """A heuristic value for ``player``, strictly inside ``±value_bound``."""
        ...

    def leaf_values(self, state: S, player: int) -> Iterator[tuple[float, float]]:
        """``(probability, value for player)`` of each outcome of a chance node, in order.

        An outcome's value is what the search takes at depth 0: its terminal value if the
        game is over there, else its evaluation. (A separate method so that a game can
        value the outcomes without building their states: this is most of the search's
        work.)
        """
        ...

    def key(self, state: S) -> Hashable:
        """The transposition-table key: equal for states with equal subtrees."""
        ...

    def order_hint(self, state: S, actions: Sequence[int]) -> list[int]:
        """``actions`` sorted best-first by a cheap static guess."""
        ...

    def history_key(self, state: S, action: int) -> Hashable:
        """The key under which the history heuristic credits ``action`` in ``state``."""
        ...


@functools.cache
def _king_distances(board_size: int) -> tuple[tuple[int, ...], ...]:
    """``table[a][b]``: the number of king steps from cell ``a`` to cell ``b``."""
    n = board_size
    return tuple(
        tuple(
            max(abs(a // n - b // n), abs(a % n - b % n)) for b in range(n * n)
        )
        for a in range(n * n)
    )


@functools.cache
def _neighbour_masks(board_size: int) -> tuple[int, ...]:
    """``masks[c]``: the cells one king step from ``c``."""
    return tuple(core.neighbour_mask(board_size, cell) for cell in range(board_size**2))


@functools.cache
def _near_masks(board_size: int, radius: int) -> tuple[int, ...]:
    """``masks[c]``: the cells within ``radius`` king steps of ``c``."""
    distances = _king_distances(board_size)
    return tuple(
        sum(1 << b for b, d in enumerate(row) if d <= radius) for row in distances
    )


def _merged_landings(state: State) -> tuple[tuple[Cell, float], ...]:
    """:func:`trap_env.core.chance_outcomes`, landings on existing traps merged into one."""
    outcomes: list[tuple[Cell, float]] = []
    wasted = 0.0
    wasted_cell = -1
    for cell, probability in core.chance_outcomes(state):
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
    """Trap! for the search, on top of :mod:`trap_env.core`.

    Args:
        throw_filter: search only throws at empty cells within ``throw_radius`` king
            steps of the opponent (all legal targets when False).
        deterministic_throws: pretend every throw lands on its target (the course's
            minimax simplification); the landing is then not a real chance node.
        weights: the evaluation weights.
        throw_radius: the filter's radius, in king steps from the opponent. Every throw
            that can win at once targets a cell next to the opponent, so radius 1 keeps
            them all; radius 2 adds the throws that shrink the opponent's room, which
            decide games: searching to depth 6 with throws landing on target, radius 1 won
            25 of 40 games against ``alphabeta`` and radius 2 won 35 of 40.

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
        self._landings: dict[int, tuple[tuple[Cell, float], ...]] = {}
        self._landings_board_size = 0

    def legal_actions(self, state: State) -> list[Cell]:
        """Moves; throw targets (filtered when ``throw_filter``); landing cells."""
        if state.phase is Phase.THROW and self.throw_filter:
            return self._candidate_throws(state)
        return core.legal_actions(state)

    def _candidate_throws(self, state: State) -> list[Cell]:
        n = state.board_size
        thrower = state.cells[state.player]
        opponent = state.cells[1 - state.player]
        near = _near_masks(n, self.throw_radius)[opponent]
        near &= ~(state.traps | 1 << thrower | 1 << opponent)
        if not near:
            return core.legal_actions(state)
        return [cell for cell in range(n * n) if near >> cell & 1]

    def apply(self, state: State, action: int) -> State:
        """The next state, as :func:`trap_env.core.apply` gives it, without its legality checks.

        The search applies only actions that :meth:`legal_actions` or
        :meth:`chance_outcomes` listed, so the checks would only cost time.
        """
        n, traps, cells, player = state.board_size, state.traps, state.cells, state.player
        neighbours = _neighbour_masks(n)
        phase = state.phase
        if phase is Phase.MOVE:
            other = cells[1 - player]
            won = not neighbours[other] & ~(traps | 1 << action)
            new_cells = (action, other) if player == 0 else (other, action)
            return _new_state(
                State,
                (n, traps, new_cells, player, Phase.THROW, -1, state.turn, player if won else -1),
            )
        if phase is Phase.THROW:
            return _new_state(
                State, (n, traps, cells, player, Phase.LANDING, action, state.turn, -1)
            )
        traps |= 1 << action
        won = not neighbours[cells[1 - player]] & ~(traps | 1 << cells[player])
        return _new_state(
            State,
            (n, traps, cells, 1 - player, Phase.MOVE, -1, state.turn + 1, player if won else -1),
        )

    def is_chance(self, state: State) -> bool:
        """Whether the state waits for a landing."""
        return state.phase is Phase.LANDING and state.winner == core.NO_PLAYER

    def chance_outcomes(self, state: State) -> Sequence[tuple[Cell, float]]:
        """The landing distribution, landings on existing traps merged into one outcome."""
        if self.deterministic_throws:
            return ((state.target, 1.0),)
        # Memoised, as every chance node asks: only the traps around the target matter.
        n, target = state.board_size, state.target
        size = n * n
        cell0, cell1 = state.cells
        near_traps = state.traps & _near_masks(n, 1)[target]
        key = (((near_traps * size + cell0) * size + cell1) * size + target) * 2 + state.player
        if n != self._landings_board_size:  # the key says nothing of the board size
            self._landings.clear()
            self._landings_board_size = n
        outcomes = self._landings.get(key)
        if outcomes is None:
            outcomes = _merged_landings(state)
            # Full: clearing here would stall the search for tens of ms past a clock check.
            if len(self._landings) < MAX_LANDINGS:
                self._landings[key] = outcomes
        return outcomes

    def make_room(self) -> None:
        """Clear the memo and the evaluation cache if they are more than three quarters full.

        Call between searches: clearing takes tens of milliseconds, which the search's clock
        checks would not see coming.
        """
        if len(self._landings) > 3 * MAX_LANDINGS // 4:
            self._landings.clear()
        self.evaluator.make_room()

    def is_terminal(self, state: State) -> bool:
        """Whether a player has won."""
        return state.winner != core.NO_PLAYER

    def terminal_value(self, state: State, player: int) -> float:
        """+1 for the winner, -1 for the loser."""
        return 1.0 if state.winner == player else -1.0

    def current_player(self, state: State) -> int:
        """The player to move or throw; at a landing, the thrower."""
        return state.player

    def evaluate(self, state: State, player: int) -> float:
        """:func:`agents.search.evaluation.evaluate`, cached."""
        return self.evaluator(state, player)

    def leaf_values(self, state: State, player: int) -> Iterator[tuple[float, float]]:
        """Each landing's probability and value, computed on bitboards without new states."""
        n, traps, (cell0, cell1), thrower = state.board_size, state.traps, state.cells, state.player
        victim = _neighbour_masks(n)[cell1 if thrower == 0 else cell0]
        blocked = 1 << (cell0 if thrower == 0 else cell1)
        won = 1.0 if player == thrower else -1.0
        sign = 1.0 if player == 0 else -1.0
        board_value = self.evaluator.board_value
        for cell, probability in self.chance_outcomes(state):
            landed = traps | 1 << cell
            if victim & ~(landed | blocked):
                yield probability, sign * board_value(n, landed, cell0, cell1)
            else:
                yield probability, won

    def key(self, state: State) -> Hashable:
        """The state without its turn counter (which no subtree depends on), as one int.

        An int rather than a tuple: it hashes faster, and the garbage collector never
        scans it, however large the table grows.
        """
        size = state.board_size * state.board_size
        cell0, cell1 = state.cells
        key = ((state.traps * size + cell0) * size + cell1) * (size + 1) + state.target + 1
        return key * 6 + state.player * 3 + state.phase

    def order_hint(self, state: State, actions: Sequence[int]) -> list[int]:
        """Moves to cells with many free neighbours first; throws next to the opponent first."""
        n = state.board_size
        if state.phase is Phase.MOVE:
            blocked = state.traps | 1 << state.cells[1 - state.player]
            neighbours = _neighbour_masks(n)
            return sorted(actions, key=lambda cell: -(neighbours[cell] & ~blocked).bit_count())
        distance = _king_distances(n)[state.cells[1 - state.player]]
        return sorted(actions, key=distance.__getitem__)

    def history_key(self, state: State, action: int) -> Hashable:
        """Moves and throws of each player are credited apart (an int: it hashes fastest)."""
        return (state.player * 3 + state.phase) * state.board_size**2 + action

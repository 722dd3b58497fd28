"""The exact value of one Colosseum Survival! position, by alpha-beta with a transposition table.

The 4x4 board has too many positions for a whole table (``2**24`` barrier sets, about four
billion positions), but one start reaches far fewer, and a game's value is only win, draw
or loss (1, 0, -1 for the player to act): a search that stops at the first winning move,
and remembers bounds of the positions it has met, solves a start alone.

A position is the 4 side bitboards of the barriers (:data:`~trap_env.colosseum.rules.Walls`),
the mover's cell and the other player's; the table is keyed by the inner barriers (the
right and down sides hold each once) and the two cells, and holds the lower and upper
bound found and the best move's index. A move that separates the players ends the game:
removing one barrier splits a zone in two at most, so the other player's cells are the
zone's less the mover's. The moves are searched winning ends first, then the table's best
move, then those that leave the opponent the fewest cells to move to.

Example:
    >>> from trap_env.colosseum.rules import ColosseumConfig, start_state
    >>> exact_value(start_state(ColosseumConfig(3), 0)).value
    1
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.search.alphabeta import narrowed
from trap_env.colosseum import rules
from trap_env.colosseum.rules import DOWN, LEFT, RIGHT, UP, ColosseumState

__all__ = ["ExactSearch", "Solved", "exact_value"]

_LOWER, _UPPER, _MOVE = 0, 1, 2
"""A table entry's fields: the value's bounds and the best move's index."""
_OPPOSITE = rules.OPPOSITE


@dataclass(frozen=True)
class Solved:
    """A position's exact value and what the search took.

    Attributes:
        value: 1 win, 0 draw, -1 loss for the player to act.
        nodes: positions searched (a position met again counts again).
        stored: positions the transposition table holds at the end.
    """

    value: int
    nodes: int
    stored: int


class ExactSearch:
    """Alpha-beta over one board size's positions, with the table it fills: positions
    valued by one object share what it has learnt (the moves of one decision, say)."""

    def __init__(self, board_size: int) -> None:
        self.n = board_size
        self.cells = board_size * board_size
        self.steps = rules.max_steps(board_size)
        self.table: dict[int, list[int]] = {}
        self.nodes = 0

    def decision_value(self, state: ColosseumState) -> int:
        """The value of the decision position ``state`` (the game going on) for its player
        to act."""
        me, other = state.cells[state.player], state.cells[1 - state.player]
        return self.value(state.walls, me, other, -1, 1)

    def spread(self, walls: rules.Walls, region: int) -> int:
        """``region`` and the cells one step from it across no barrier."""
        up, right, down, left = walls
        n = self.n
        return (
            region
            | (region & ~up) >> n
            | (region & ~down) << n
            | (region & ~right) << 1
            | (region & ~left) >> 1
        )

    def reach(self, walls: rules.Walls, me: int, other: int) -> int:
        """The cells the mover at ``me`` moves to (at most K steps, never through ``other``)."""
        blocked = ~(1 << other)
        region = 1 << me
        for _ in range(self.steps):
            grown = self.spread(walls, region) & blocked
            if grown == region:
                break
            region = grown
        return region

    def joined(self, walls: rules.Walls, cell: int, target: int) -> int:
        """The zone of ``cell``, or 0 as soon as it is seen to meet the cells ``target``."""
        region = 1 << cell
        while True:
            grown = self.spread(walls, region)
            if grown & target:
                return 0
            if grown == region:
                return region
            region = grown

    def children(
        self, walls: rules.Walls, me: int, other: int
    ) -> tuple[int, list[tuple[rules.Walls, int]]]:
        """The best value of the moves that end the game (-2 if none does), and the other
        moves' positions ``(walls, cell)``; a win ends the list early."""
        n = self.n
        whole = self.joined(walls, me, 0).bit_count()  # both players' zone
        ended = -2
        going: list[tuple[rules.Walls, int]] = []
        region = self.reach(walls, me, other)
        while region:
            low = region & -region
            region ^= low
            cell = low.bit_length() - 1
            for side, across in ((UP, -n), (RIGHT, 1), (DOWN, n), (LEFT, -1)):
                if walls[side] & low:
                    continue
                placed = list(walls)
                placed[side] |= low
                placed[_OPPOSITE[side]] |= low << across if across > 0 else low >> -across
                after = (placed[0], placed[1], placed[2], placed[3])
                mine = self.joined(after, cell, 1 << other).bit_count()
                if not mine:
                    going.append((after, cell))
                    continue
                result = (mine > whole - mine) - (mine < whole - mine)
                if result == 1:
                    return 1, []
                ended = max(ended, result)
        return ended, going

    def key(self, walls: rules.Walls, me: int, other: int) -> int:
        return ((walls[RIGHT] << self.cells | walls[DOWN]) * self.cells + me) * self.cells + other

    def value(self, walls: rules.Walls, me: int, other: int, alpha: int, beta: int) -> int:
        """The fail-soft alpha-beta value for the mover at ``me`` (the game goes on)."""
        self.nodes += 1
        key = self.key(walls, me, other)
        entry = self.table.get(key)
        if entry is not None:
            if entry[_LOWER] >= beta or entry[_LOWER] == entry[_UPPER]:
                return entry[_LOWER]
            if entry[_UPPER] <= alpha:
                return entry[_UPPER]
            alpha, beta = max(alpha, entry[_LOWER]), min(beta, entry[_UPPER])
        best, going = self.children(walls, me, other)
        start_alpha, best_move = alpha, -1
        if best < beta and going:
            alpha = max(alpha, best)
            for index in self.order(going, other, entry):
                after, cell = going[index]
                found = -self.value(after, other, cell, -beta, -alpha)
                if found > best:
                    best, best_move = found, index
                    alpha = max(alpha, found)
                    if alpha >= beta:
                        break
        self.store(key, entry, best, start_alpha, beta, best_move)
        return best

    def order(
        self, going: list[tuple[rules.Walls, int]], other: int, entry: list[int] | None
    ) -> list[int]:
        """The moves' indices: the table's best first, then by the opponent's reach."""
        moves = sorted(
            range(len(going)),
            key=lambda i: self.reach(going[i][0], other, going[i][1]).bit_count(),
        )
        if entry is not None and 0 <= entry[_MOVE] < len(going):
            moves.remove(entry[_MOVE])
            moves.insert(0, entry[_MOVE])
        return moves

    def store(
        self, key: int, entry: list[int] | None, best: int, alpha: int, beta: int, move: int
    ) -> None:
        """Narrow the position's bounds by a search of the window ``(alpha, beta)``."""
        low, high = (-1, 1) if entry is None else (entry[_LOWER], entry[_UPPER])
        low, high = narrowed(low, high, best, alpha, beta)
        self.table[key] = [low, high, move if move >= 0 or entry is None else entry[_MOVE]]


def exact_value(state: ColosseumState) -> Solved:
    """The value of ``state`` for its player to act under perfect play (its game going on
    or over; not the chance node).

    Raises:
        ValueError: at the chance node (the start is not drawn).
    """
    if rules.is_chance(state):
        raise ValueError("the start is not drawn yet: give a start number")
    sizes = rules.zone_sizes(state)
    if sizes is not None:
        mine, theirs = sizes[state.player], sizes[1 - state.player]
        return Solved((mine > theirs) - (mine < theirs), 0, 0)
    search = ExactSearch(state.board_size)
    value = search.decision_value(state)
    return Solved(value, search.nodes, len(search.table))

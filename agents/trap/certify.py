"""Trap!'s value without a turn limit certified by strategies, where the bounds of
:mod:`agents.trap.solve` stay apart.

Those bounds stay apart on 3x3 because play can cycle (a throw may land on a trap already
there): the equations have several solutions, and the bounds are the least and the
greatest. Here the board is laid out as a :class:`agents.stochastic_game.StochasticGame`
(each move and throw position once with player 0 to act and once with player 1, a throw's
action one per target with the kernel's landing odds,
:func:`trap_env.trap.kernel.landing_distribution`). A stationary strategy for the player to
act (positions are symmetric: one strategy serves both players) is played by player 0
against player 1's best response and by player 1 against player 0's, each best response
solved exactly with never-ending play worth 0 (:func:`agents.stochastic_game.best_response`:
end components collapsed, so the bounds are sound however the strategy was found). What
player 0 holds at the start is a lower bound on the value, what player 1 holds it to an
upper one; when they meet within :data:`WITHIN`, the value is proven and the strategy
optimal. Strategy improvement (:func:`agents.stochastic_game.certify`) runs if they do not.

The strategy comes from the game discounted by :data:`DISCOUNT` a decision (a game won
after ``k`` decisions pays ``DISCOUNT**k``): its values are the one solution of its
equations, and its greedy strategy wins sooner and loses later among actions the
undiscounted game ties, so it cannot stall in a cycle it should leave (the greedy strategy
of an undiscounted solution can: on 3x3 the one of the cut games' limit, which ``perfect``
played, holds player 0 to 0). For a discount close enough to 1 the discounted game's
optimal strategies are optimal without discount (Blackwell optimality); the certificate
checks that this one is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from agents.stochastic_game import StochasticGame, best_response, certify
from agents.trap.placements import Placements
from trap_env.trap import kernel

__all__ = ["DISCOUNT", "WITHIN", "Certified", "TrapGame", "certify_value"]

WITHIN = 1e-12
"""The bounds of a certified value are this close at the start."""
DISCOUNT = 1 - 1e-5
"""The discount a decision of the game whose greedy strategy is certified."""
SETTLED = 1e-10
"""The discounted game's values are swept until no value changes by more than this."""
MAX_SWEEPS = 100_000
"""The discounted game's sweeps stop here wherever its values are."""

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class TrapGame:
    """A board's positions as a stochastic game.

    Position ``k`` of the ``2 * P`` (``P`` placements) is the move position of placement
    ``k`` for ``k < P``, else the throw position of placement ``k - P``; state ``k`` of the
    game is position ``k`` with player 0 to act, state ``2 * P + k`` with player 1.

    Attributes:
        game: the stochastic game.
        cell: per action of player 0's states, its cell (the step or the throw's target);
            player 1's states' actions follow in the same order.
    """

    game: StochasticGame
    cell: IntArray

    @classmethod
    def of(cls, places: Placements, decay: int) -> TrapGame:
        n, size = len(places), places.board_size
        rings = kernel.geometry(size).neighbour_cells
        value = np.full(2 * n, np.nan)  # for the player to act, where finished
        actions: list[tuple[int, int]] = []  # (position, cell)
        outcomes: list[tuple[int, int, float, bool]] = []  # (action, position, odds, turn over)
        for k, (me, other, traps) in enumerate(
            zip(places.me.tolist(), places.other.tolist(), places.traps.tolist(), strict=True)
        ):
            steps = [d for d in rings[me] if not (traps | 1 << other) >> d & 1]
            if not steps:
                value[k] = -1.0  # a mover with no step has lost
            for d in steps:
                outcomes.append((len(actions), n + int(places.at(d, other, traps)), 1.0, False))
                actions.append((k, d))
            if all((traps | 1 << me) >> c & 1 for c in rings[other]):
                value[n + k] = 1.0  # the opponent is trapped: won
                continue
            for target in range(size * size):
                if target not in (me, other):
                    for cell, p in kernel.landing_distribution(size, decay, me, other, target):
                        landed = int(places.at(other, me, traps | 1 << cell))
                        outcomes.append((len(actions), landed, p, True))
                    actions.append((n + k, target))
        position = np.array([a[0] for a in actions], dtype=np.int64)
        order = np.argsort(position, kind="stable")  # by position, each one's by cell
        renumber = np.empty_like(order)
        renumber[order] = np.arange(len(order))
        action: IntArray = renumber[np.array([o[0] for o in outcomes], dtype=np.int64)]
        by_action = np.argsort(action, kind="stable")
        action = action[by_action]
        after = np.array([o[1] for o in outcomes], dtype=np.int64)[by_action]
        odds = np.array([o[2] for o in outcomes])[by_action]
        over = np.array([o[3] for o in outcomes])[by_action]
        other_side = 2 * n + after  # the same position with the other player to act
        game = StochasticGame(
            np.concatenate([value, -value]),
            np.repeat(np.array([0, 1], dtype=np.int64), 2 * n),
            np.concatenate([position[order], 2 * n + position[order]]),
            np.concatenate([action, len(actions) + action]),
            np.concatenate([np.where(over, other_side, after), np.where(over, after, other_side)]),
            np.concatenate([odds, odds]),
        )
        return cls(game, np.array([a[1] for a in actions], dtype=np.int64)[order])

    @property
    def positions(self) -> int:
        return len(self.game.payoff) // 2

    def worth(self, values: FloatArray, discount: float = 1.0) -> FloatArray:
        """Per action of player 0's states, its value for the player to act when the
        positions are worth ``values`` to theirs, the next decision's ``discount``-ed."""
        half = np.searchsorted(self.game.action_of, len(self.cell))
        states = np.concatenate([values, -values])
        game = self.game
        weights = game.odds[:half] * states[game.target[:half]]
        worth = np.bincount(game.action_of[:half], weights, len(self.cell)).astype(np.float64)
        return discount * worth

    def best(self, worth: FloatArray) -> FloatArray:
        """Per position, the best of its actions' ``worth``, its value where finished."""
        owner = self.game.state_of[: len(self.cell)]
        acting = np.flatnonzero(np.bincount(owner, minlength=self.positions) > 0)
        best: FloatArray = self.game.payoff[: self.positions].copy()
        best[acting] = np.maximum.reduceat(worth, np.searchsorted(owner, acting))
        return best

    def greedy(self, worth: FloatArray) -> IntArray:
        """Per position, its first action (by cell) of the best ``worth``; -1 where finished."""
        owner = self.game.state_of[: len(self.cell)]
        best = self.best(worth)
        choice = np.full(self.positions, -1, dtype=np.int64)
        at_best = np.flatnonzero(worth >= best[owner])[::-1]  # the first one written last
        choice[owner[at_best]] = at_best
        return choice

    def both(self, strategy: IntArray) -> IntArray:
        """A strategy for the player to act (an action per position) as each player's in
        the game: an action per state."""
        return np.concatenate([strategy, np.where(strategy < 0, -1, strategy + len(self.cell))])

    def bounds(self, strategy: IntArray) -> tuple[FloatArray, FloatArray]:
        """Per position, bounds on its value for the player to act: what ``strategy`` (an
        action per position) holds that player to against a best response, and what it
        holds them to when the other player plays it."""
        found = best_response(self.game, 0, self.both(strategy))
        # Player 0 plays the strategy: where player 1 acts, player 1 best responds to it.
        return found.low[: self.positions], -found.low[self.positions :]

    def discounted(self, discount: float) -> tuple[FloatArray, int]:
        """The positions' values in the game discounted by ``discount`` a decision, swept
        from all-draws until they settle (:data:`SETTLED`), and the sweeps."""
        values = np.nan_to_num(self.game.payoff[: self.positions])
        sweeps, moved = 0, np.inf
        while moved > SETTLED and sweeps < MAX_SWEEPS:
            new = self.best(self.worth(values, discount))
            moved, values, sweeps = float(np.abs(new - values).max()), new, sweeps + 1
        return values, sweeps


@dataclass(frozen=True)
class Certified:
    """A board's value without a turn limit, bounded by a strategy.

    Attributes:
        low: per position, what ``strategy`` holds its player to act to against a best
            response: a lower bound on the position's value.
        high: per position, what ``strategy`` played by the other player holds the player
            to act to: an upper bound.
        strategy: the cell to play per position (move positions first), -1 where finished.
        sweeps: the discounted game's sweeps.
        rounds: the strategy improvement rounds (0: the discounted game's strategy met).
    """

    low: FloatArray
    high: FloatArray
    strategy: IntArray
    sweeps: int
    rounds: int


def certify_value(places: Placements, decay: int, start: int) -> Certified:
    """Bound every position's value of Trap! without a turn limit on the board of
    ``places`` by a strategy, improved if the bounds at the move position ``start`` are
    more than :data:`WITHIN` apart (see the module)."""
    trap = TrapGame.of(places, decay)
    discounted, sweeps = trap.discounted(DISCOUNT)
    strategy = trap.greedy(trap.worth(discounted))
    low, high = trap.bounds(strategy)
    rounds = 0
    if high[start] - low[start] > WITHIN:
        both = trap.both(strategy)
        found = certify(trap.game, (both, both), start, WITHIN)
        strategy, rounds = found.strategies[0][: trap.positions], found.rounds
        low, high = trap.bounds(strategy)
    return Certified(low, high, np.append(trap.cell, -1)[strategy], sweeps, rounds)

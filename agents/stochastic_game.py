"""Finite turn-based stochastic games whose play ends in absorbing payoffs, play that never
ends worth 0: best responses solved exactly, and a game's value certified by two strategies.

A :class:`StochasticGame` has states, each absorbing (a payoff for player 0, player 1 gets
its negation) or owned by a player who picks one of its actions; an action is a
distribution over next states. Both players have pure stationary optimal strategies
(Liggett and Lippman 1969), and a position's value is well defined, but the equations
``v = max/min over actions of the expected v`` may have several solutions when play can
cycle, so value iteration from all-losses and all-wins need not meet.

Fix one player's stationary strategy and the game is a Markov decision process for the
other (:func:`best_response`). Its optimal value is solved soundly (after de Alfaro, and
Haddad and Monmege 2014's interval iteration): its maximal end components (sets of
non-absorbing states in which the optimiser can keep play forever, whatever chance does)
are found (:func:`end_components`) and each collapsed into one state whose actions are the
ones that may leave it, plus "stay forever" worth 0 (within one, the optimiser reaches any
state with probability 1, so every state of it is worth the best of those). The quotient
has no end component but its absorbing states: play ends with probability 1 under every
strategy, its equations have one solution, and value iteration from the payoffs' least and
greatest values (each sweep the value of the quotient cut after one more step, the cut
paying that value: a bound at every sweep) closes in on it from both sides.

The value player 0 holds with a strategy ``s`` against player 1's best response is a lower
bound on the game's value; the value player 1 holds with ``t`` an upper bound. When they
meet, the value is proven and both strategies are optimal (:func:`certify`): the strategies
are improved (a state switches to an action better by more than a tolerance under the
current best response's values, Hoffman and Karp's step) until the bounds meet or stop
improving. Every reported bound is sound whatever the strategies; only their meeting
depends on how good the strategies are.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "Bounds",
    "Certificate",
    "StochasticGame",
    "best_response",
    "certify",
    "end_components",
]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]

TOLERANCE = 1e-13
"""Value iteration on a quotient stops when its bounds are this close at every state."""
MAX_SWEEPS = 1_000_000
"""Value iteration on a quotient stops here wherever its bounds are."""
IMPROVEMENT = 1e-12
"""A strategy switches to an action only if it is better by more than this."""
MAX_ROUNDS = 100
"""Strategy improvement stops after this many rounds."""


@dataclass(frozen=True)
class StochasticGame:
    """A finite turn-based stochastic game with absorbing payoffs.

    Attributes:
        payoff: per state, player 0's payoff where it is absorbing, NaN where not.
        owner: per state, the player (0 or 1) who picks its action (ignored where absorbing).
        state_of: per action, the state it is played at, ascending; every non-absorbing state
            has one or more, an absorbing state none.
        action_of: per outcome, its action, ascending; every action has one or more.
        target: per outcome, the next state.
        odds: per outcome, its probability (an action's sum to 1).
    """

    payoff: FloatArray
    owner: IntArray
    state_of: IntArray
    action_of: IntArray
    target: IntArray
    odds: FloatArray

    def __post_init__(self) -> None:
        states, actions = len(self.payoff), len(self.state_of)
        absorbing = ~np.isnan(self.payoff)
        has_action = np.bincount(self.state_of, minlength=states) > 0
        if np.any(has_action == absorbing):
            raise ValueError("every non-absorbing state needs an action and no absorbing one has")
        if np.any(np.diff(self.state_of) < 0) or np.any(np.diff(self.action_of) < 0):
            raise ValueError("actions go by ascending state, outcomes by ascending action")
        if np.any(np.bincount(self.action_of, minlength=actions) == 0):
            raise ValueError("every action needs an outcome")
        sums = np.bincount(self.action_of, weights=self.odds, minlength=actions)
        if np.any(self.odds <= 0) or np.any(np.abs(sums - 1) > 1e-9):
            raise ValueError("an action's outcome odds are positive and sum to 1")

    @property
    def states(self) -> int:
        return len(self.payoff)

    def action_values(self, values: FloatArray) -> FloatArray:
        """Each action's expected value of the next state under ``values``."""
        weights = self.odds * values[self.target]
        return np.bincount(self.action_of, weights, len(self.state_of)).astype(np.float64)

    def restricted(self, keep: BoolArray) -> StochasticGame:
        """The game with only the actions ``keep`` (each non-absorbing state keeps one or more)."""
        renumber = np.cumsum(keep) - 1
        outcome = keep[self.action_of]
        return StochasticGame(
            self.payoff,
            self.owner,
            self.state_of[keep],
            renumber[self.action_of[outcome]],
            self.target[outcome],
            self.odds[outcome],
        )


@dataclass(frozen=True)
class Bounds:
    """Sound bounds on the value of every state for player 0 (``low <= value <= high``).

    Attributes:
        low: the lower bounds.
        high: the upper bounds.
        sweeps: the value iteration sweeps they took.
    """

    low: FloatArray
    high: FloatArray
    sweeps: int


def _strongly_connected(states: int, source: IntArray, sink: IntArray) -> IntArray:
    """The strongly connected component of each state in the graph of edges
    ``source -> sink`` (Tarjan's algorithm, without recursion)."""
    order = np.argsort(source, kind="stable")
    heads = np.searchsorted(source[order], np.arange(states + 1))
    successors = sink[order]
    index = np.full(states, -1, dtype=np.int64)
    low = np.zeros(states, dtype=np.int64)
    component = np.full(states, -1, dtype=np.int64)
    on_stack = np.zeros(states, dtype=bool)
    stack: list[int] = []
    counter = components = 0
    for root in range(states):
        if index[root] >= 0:
            continue
        work = [(root, int(heads[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            state, edge = work[-1]
            if edge < heads[state + 1]:
                work[-1] = (state, edge + 1)
                nxt = int(successors[edge])
                if index[nxt] < 0:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack[nxt] = True
                    work.append((nxt, int(heads[nxt])))
                elif on_stack[nxt]:
                    low[state] = min(low[state], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[state])
            if low[state] == index[state]:
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component[member] = components
                    if member == state:
                        break
                components += 1
    return component


def _every_outcome(game: StochasticGame, holds: BoolArray) -> BoolArray:
    """Per action, whether ``holds`` holds for every one of its outcomes."""
    failing = np.bincount(game.action_of[~holds], minlength=len(game.state_of))
    every: BoolArray = failing == 0
    return every


def end_components(game: StochasticGame) -> IntArray:
    """Each state's maximal end component (a number from 0), -1 for a state in none.

    An end component is a set of non-absorbing states, each with an action whose every
    outcome stays in the set, strongly connected by those actions: whoever picks actions
    can keep play in it forever. Found by removing, until nothing changes, the actions
    that may leave their state's strongly connected component (or reach a state removed)
    and the states left with no action.
    """
    alive = np.isnan(game.payoff)
    kept = alive[game.state_of] & _every_outcome(game, alive[game.target])
    while True:
        alive &= np.bincount(game.state_of[kept], minlength=game.states) > 0
        kept &= alive[game.state_of] & _every_outcome(game, alive[game.target])
        inside = kept[game.action_of]
        component = _strongly_connected(
            game.states, game.state_of[game.action_of[inside]], game.target[inside]
        )
        staying = _every_outcome(
            game, component[game.target] == component[game.state_of[game.action_of]]
        )
        if not np.any(kept & ~staying):
            break
        kept &= staying
    alive &= np.bincount(game.state_of[kept], minlength=game.states) > 0
    numbers = np.unique(component[alive], return_inverse=True)[1]
    found = np.full(game.states, -1, dtype=np.int64)
    found[alive] = numbers.reshape(-1)
    return found


def _optimal_values(
    game: StochasticGame, tolerance: float = TOLERANCE, max_sweeps: int = MAX_SWEEPS
) -> Bounds:
    """Bounds on the optimal value of the one-player game ``game`` (every state owned by
    player 0, the optimiser; player 1's states have one action each), play that never
    ends worth 0: its end components collapsed, value iteration on the quotient."""
    component = end_components(game)
    lumps = component.max() + 1
    lump = np.where(component >= 0, component, lumps + np.arange(game.states))
    numbers, lump = np.unique(lump, return_inverse=True)
    lump = lump.reshape(-1)
    stays = numbers < lumps  # the collapsed end components: they may stay forever, worth 0
    inside = component[game.state_of] >= 0
    inside &= _every_outcome(game, lump[game.target] == lump[game.state_of[game.action_of]])
    exits = ~inside
    actions = np.flatnonzero(exits)
    order = np.argsort(lump[game.state_of[actions]], kind="stable")
    actions = actions[order]
    renumber = np.full(len(game.state_of), -1, dtype=np.int64)
    renumber[actions] = np.arange(len(actions))
    outcome = exits[game.action_of]
    action_of = renumber[game.action_of[outcome]]
    by_action = np.argsort(action_of, kind="stable")
    action_of, target = action_of[by_action], lump[game.target[outcome]][by_action]
    odds = game.odds[outcome][by_action]
    state_of = lump[game.state_of[actions]]
    payoff = np.full(len(numbers), np.nan)
    payoff[lump] = game.payoff
    fixed = ~np.isnan(payoff)
    least = min(float(np.nanmin(game.payoff, initial=0.0)), 0.0)
    greatest = max(float(np.nanmax(game.payoff, initial=0.0)), 0.0)

    acting = np.bincount(state_of, minlength=len(numbers)) > 0
    heads = np.searchsorted(state_of, np.flatnonzero(acting))

    def sweep(values: FloatArray) -> FloatArray:
        worth = np.bincount(action_of, weights=odds * values[target], minlength=len(state_of))
        best = np.full(len(numbers), -np.inf)
        if len(heads):
            best[acting] = np.maximum.reduceat(worth, heads)
        best[stays] = np.maximum(best[stays], 0.0)
        return np.where(fixed, payoff, best)

    low = np.where(fixed, payoff, least)
    high = np.where(fixed, payoff, greatest)
    sweeps = 0
    while sweeps < max_sweeps and float(np.max(high - low, initial=0.0)) > tolerance:
        low, high, sweeps = sweep(low), sweep(high), sweeps + 1
    return Bounds(low[lump], high[lump], sweeps)


def best_response(game: StochasticGame, player: int, strategy: IntArray) -> Bounds:
    """Bounds on each state's value for player 0 when ``player`` plays ``strategy`` (an
    action per state, read at that player's non-absorbing states) and the other player
    best responds, play that never ends worth 0.

    Raises:
        ValueError: for a strategy that picks another state's action.
    """
    ruled = (game.owner == player) & np.isnan(game.payoff)
    picked = strategy[ruled]
    if np.any(picked < 0) or np.any(picked >= len(game.state_of)):
        raise ValueError("a strategy picks one of each of its player's states' actions")
    if np.any(game.state_of[picked] != np.flatnonzero(ruled)):
        raise ValueError("a strategy picks an action of the state it plays at")
    keep = ~ruled[game.state_of]
    keep[picked] = True
    sign = 1.0 if player == 1 else -1.0  # the optimiser's payoffs
    responder = game.restricted(keep)
    flipped = StochasticGame(
        sign * responder.payoff, responder.owner, responder.state_of,
        responder.action_of, responder.target, responder.odds,
    )  # fmt: skip
    bounds = _optimal_values(flipped)
    if sign > 0:
        return bounds
    return Bounds(-bounds.high, -bounds.low, bounds.sweeps)


@dataclass(frozen=True)
class Certificate:
    """A game's value bounded by two strategies.

    Attributes:
        low: per state, a lower bound on its value for player 0: what ``strategies[0]`` holds
            against player 1's best response.
        high: per state, an upper bound: what ``strategies[1]`` holds player 0 to.
        strategies: player 0's and player 1's strategies (an action per state).
        rounds: the strategy improvement rounds done (0: the given ones met).
    """

    low: FloatArray
    high: FloatArray
    strategies: tuple[IntArray, IntArray]
    rounds: int


def _improved(
    game: StochasticGame, player: int, strategy: IntArray, values: FloatArray
) -> IntArray:
    """``strategy`` with each of ``player``'s states switched to its best action under
    ``values`` where that beats the current one by more than :data:`IMPROVEMENT`."""
    sign = 1.0 if player == 0 else -1.0
    worth = sign * game.action_values(values)
    best = np.full(game.states, -np.inf)
    np.maximum.at(best, game.state_of, worth)
    first_best = np.full(game.states, sys.maxsize, dtype=np.int64)
    at_best = worth >= best[game.state_of]
    np.minimum.at(first_best, game.state_of[at_best], np.flatnonzero(at_best))
    ruled = np.flatnonzero((game.owner == player) & np.isnan(game.payoff))
    better = best[ruled] > worth[strategy[ruled]] + IMPROVEMENT
    switched: IntArray = strategy.copy()
    switched[ruled[better]] = first_best[ruled[better]]
    return switched


def certify(
    game: StochasticGame,
    strategies: tuple[IntArray, IntArray],
    at: int,
    within: float = 1e-12,
    max_rounds: int = MAX_ROUNDS,
) -> Certificate:
    """Bound the game's value by the two ``strategies``, improving them until the bounds
    at the state ``at`` are ``within`` each other or stop improving (or ``max_rounds``).

    The strategies returned are the best found: each bound is the tightest seen.
    """
    best = list(strategies)
    low = best_response(game, 0, best[0]).low
    high = best_response(game, 1, best[1]).high
    rounds = 0
    while high[at] - low[at] > within and rounds < max_rounds:
        rounds += 1
        trial = _improved(game, 0, best[0], low), _improved(game, 1, best[1], high)
        if all(np.array_equal(a, b) for a, b in zip(trial, best, strict=True)):
            break
        new_low = best_response(game, 0, trial[0]).low
        new_high = best_response(game, 1, trial[1]).high
        if new_low[at] < low[at] and new_high[at] > high[at]:
            break
        if new_low[at] >= low[at]:
            best[0], low = trial[0], new_low
        if new_high[at] <= high[at]:
            best[1], high = trial[1], new_high
    return Certificate(low, high, (best[0], best[1]), rounds)

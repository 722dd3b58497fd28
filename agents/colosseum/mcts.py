"""Colosseum Survival!'s ``mcts``: PUCT search guided by the reference's evaluation.

The tree is Trap!'s (:class:`agents.mcts.search.Tree`, over the game protocol); what a
network gives it there, a heuristic gives it here, since no network is trained for this
game: the priors are a softmax of :func:`~agents.colosseum.search.static_hints`
(destinations near the opponent, barriers facing it) and a leaf's value is
``tanh(evaluate / value_scale)`` with :func:`~agents.colosseum.evaluation.evaluate` (area,
mobility, closeness for the searching player), for the player to act. A finished game is
worth +1, 0 or -1. The most visited root action is played.

Time control is the reference's (:mod:`agents.timing`): ``time_limit`` CPU seconds per
turn, the clock checked every eight simulations with a safety margin; ``simulations``
caps the search (without a time limit it is deterministic).

Example:
    >>> from trap_env.colosseum.rules import ColosseumConfig, legal_actions, start_state
    >>> state = start_state(ColosseumConfig(board_size=5), 0)
    >>> agent = MCTSAgent(MCTSSettings(time_limit=None, simulations=50), seed=1)
    >>> agent.select_action(state) in legal_actions(state)
    True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.colosseum.evaluation import DEFAULT_WEIGHTS, Weights, evaluate
from agents.colosseum.search import WeightedAgent, static_hints
from agents.mcts.search import Tree
from agents.options import check_int
from agents.timing import Clock, check_clock, check_time_limit
from trap_env.colosseum import rules
from trap_env.colosseum.game import GAME
from trap_env.colosseum.rules import NUM_SIDES, ColosseumState

__all__ = ["MCTSAgent", "MCTSSettings"]

HINT_SCALE = 4.0
"""A prior's logit is its static hint over this (one step closer: ``e`` times likelier)."""


@dataclass(frozen=True)
class MCTSSettings:
    """How ``mcts`` searches; each field is also an option of its spec strings.

    Attributes:
        time_limit: CPU seconds per turn (one decision), at most a day; None (``inf`` or
            ``none`` in a spec) for no limit, then ``simulations`` must be given.
        simulations: the most simulations per decision; None for as many as the clock allows.
        c_puct: the weight of the prior-driven exploration term.
        value_scale: a leaf's value is ``tanh(evaluate / value_scale)`` (an area margin
            of this many cells is worth about 0.76).
        clock: ``"cpu"`` (this process's CPU time, as the match runner measures) or ``"wall"``.

    Raises:
        ValueError: for a value outside what its attribute allows, naming it.
    """

    time_limit: float | None = 2.0
    simulations: int | None = None
    c_puct: float = 1.5
    value_scale: float = 8.0
    clock: Clock = "cpu"

    def __post_init__(self) -> None:
        check_time_limit(self.time_limit, self.simulations, "simulations")
        check_int("simulations", self.simulations, 1, allow_none=True)
        for name in ("c_puct", "value_scale"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and 0 < value < math.inf):
                raise ValueError(f"{name} must be a number > 0, got {value!r}")
        check_clock(self.clock)


DEFAULT_SETTINGS = MCTSSettings()


class MCTSAgent(WeightedAgent):
    """PUCT search with heuristic priors and values under a CPU-time budget per turn.

    Args:
        settings: how to search (see :class:`MCTSSettings`).
        weights: the evaluation's weights (see :class:`~agents.colosseum.evaluation.Weights`).
        seed: seeds the tree's generator (ties and nothing else: the search is deterministic
            for a number of simulations).
    """

    settings: MCTSSettings

    def __init__(
        self,
        settings: MCTSSettings = DEFAULT_SETTINGS,
        weights: Weights = DEFAULT_WEIGHTS,
        seed: int | None = None,
    ) -> None:
        super().__init__(settings, MCTSSettings, weights, seed)
        self.last_simulations = 0
        """The simulations of the last decision."""

    def _decide(self, state: ColosseumState) -> int:
        started = self.clock()
        legal = rules.legal_actions(state)
        if not legal:
            raise ValueError(f"select_action needs a game in progress, got {rules.to_text(state)}")
        if len(legal) == 1:
            return legal[0]
        settings = self.settings
        tree = Tree(state, settings.c_puct, rng=self.rng, game=GAME)
        budget = settings.simulations if settings.simulations is not None else 1 << 62
        # The clock is read before every simulation: one evaluates a whole wide board.
        stop = self._stopper(started, settings.time_limit)
        tree.run(self._evaluator(state.player), budget, stop, check_every=1)
        self.last_simulations = tree.simulations
        root = tree.root
        return root.actions[root.best_index()] if root.is_expanded else legal[0]

    def _evaluator(self, perspective: int) -> Any:
        """The tree's evaluator: hint priors and evaluation values, for ``perspective``'s
        search (closeness counts for it)."""
        weights, scale = self.weights, self.settings.value_scale

        def evaluate_states(states: list[ColosseumState]) -> tuple[np.ndarray, np.ndarray]:
            n = states[0].board_size
            logits = np.zeros((len(states), n * n * NUM_SIDES))
            values = np.zeros(len(states))
            for row, state in enumerate(states):
                for action, hint in static_hints(state):
                    logits[row, action] = hint / HINT_SCALE
                values[row] = math.tanh(evaluate(state, weights, perspective) / scale)
            return logits, values

        return evaluate_states

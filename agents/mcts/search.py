"""PUCT search with chance nodes (AlphaZero's search, with the throw's landing as a chance node).

The tree has two kinds of nodes:

* a :class:`DecisionNode` (a MOVE or THROW state) chooses its child by PUCT,
  ``Q(a) + c * P(a) * sqrt(N) / (1 + N(a))``, with the network's priors ``P`` over the legal
  actions only (the illegal ones are masked out before the softmax);
* a :class:`ChanceNode` (a LANDING state) chooses the landing among the exact
  :func:`trap_env.trap.core.chance_outcomes`: with ``chance="expect"`` the outcome whose share of
  the visits lags its probability most (deterministic; the node's mean converges to the
  expectation over the outcomes), with ``chance="sample"`` one drawn with the exact
  probabilities from the caller's generator.

Values are from the point of view of the player to act at a node (the thrower at a chance
node); an edge's statistics are kept in its parent, from the parent's point of view. A
finished game is worth +1/-1; a state at the turn limit is a draw (0).

One simulation is two calls, so that a caller can evaluate the leaves of many trees in one
batch: :meth:`Tree.select` walks down to a leaf that needs the network (or ends at a finished
game and backs it up itself), :meth:`Tree.expand` gives that leaf its priors and backs up its
value. :meth:`Tree.run` does both with one network for a fixed number of simulations or until
a ``stop()`` says so.

Guarantee: with enough simulations, the value of a decision node converges to its
expectimax value in positions whose subtrees end in finished games within the tree (the
search is then PUCT over an exact expectimax tree), whatever the priors.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from trap_env.game import Game

__all__ = [
    "CHANCE_MODES",
    "CHECK_EVERY",
    "ChanceNode",
    "DecisionNode",
    "Evaluator",
    "Leaf",
    "Tree",
    "masked_priors",
]

CHECK_EVERY = 8
"""Simulations between two calls of the ``stop()`` of :meth:`Tree.run` (a clock check)."""
CHANCE_MODES = ("expect", "sample")
"""How a chance node picks the landing to descend into (see the module docstring)."""

Evaluator = Callable[[list[Any]], tuple[np.ndarray, np.ndarray]]
"""A network: decision states -> (logits ``(batch, num_actions)``, values ``(batch,)``)."""


def masked_priors(logits: np.ndarray, actions: list[int]) -> np.ndarray:
    """The softmax of ``logits`` over ``actions`` only: one probability per action."""
    # Over the whole row, the illegal cells at -inf: the same sums, bit for bit, as the
    # batched search's rows (agents.mcts.batched).
    masked = np.full(len(logits), -np.inf)
    masked[actions] = logits[actions]
    weights = np.exp(masked - masked.max())
    return (weights / weights.sum())[actions]  # type: ignore[no-any-return]


class DecisionNode:
    """A decision (Trap!: a MOVE or THROW state): its player, its legal actions, their
    priors and the edge statistics."""

    __slots__ = ("actions", "children", "count", "is_expanded", "player", "priors", "state",
                 "totals", "value", "visits")

    def __init__(self, state: Any, player: int, actions: list[int]) -> None:
        self.state = state
        self.player = player
        self.actions = actions
        self.priors = np.zeros(len(self.actions))
        self.visits = np.zeros(len(self.actions))
        self.totals = np.zeros(len(self.actions))
        self.children: dict[int, Node] = {}
        self.count = 0
        self.value = 0.0  # the network's estimate, until visits say more
        self.is_expanded = False

    def mean_value(self) -> float:
        """The node's value for its player: the visit-weighted mean over its edges."""
        visits = float(self.visits.sum())
        return float(self.totals.sum()) / visits if visits else self.value

    def select(self, c_puct: float) -> int:
        """The index of the action maximising the PUCT score."""
        visits = self.visits
        # An edge not tried yet counts at the node's own mean value (first-play urgency).
        q = np.where(visits > 0, self.totals / np.maximum(visits, 1), self.mean_value())
        u = c_puct * self.priors * math.sqrt(self.count + 1) / (1 + visits)
        return int(np.argmax(q + u))

    def best_index(self) -> int:
        """The most visited action's index (ties go to the higher prior)."""
        return int(np.lexsort((self.priors, self.visits))[-1])

    def visit_distribution(self, num_cells: int) -> np.ndarray:
        """The root's visit counts as a distribution over all ``num_cells`` cells."""
        policy = np.zeros(num_cells)
        total = self.visits.sum()
        if total > 0:
            policy[self.actions] = self.visits / total
        else:
            policy[self.actions] = self.priors
        return policy


class ChanceNode:
    """A chance node (Trap!: a LANDING state): the exact outcomes and how often each was
    followed; ``player`` is the one whose decision it follows (the thrower)."""

    __slots__ = ("cells", "children", "count", "player", "probabilities", "state", "totals",
                 "visits")

    def __init__(self, state: Any, player: int, outcomes: Sequence[tuple[int, float]]) -> None:
        self.state = state
        self.player = player
        self.cells = [cell for cell, _ in outcomes]
        self.probabilities = np.array([p for _, p in outcomes])
        self.visits = np.zeros(len(outcomes))
        self.totals = np.zeros(len(outcomes))
        self.children: dict[int, Node] = {}
        self.count = 0

    def select(self, mode: str, rng: random.Random) -> int:
        """The index of the landing to follow (see :data:`CHANCE_MODES`)."""
        if mode == "sample":
            return rng.choices(range(len(self.cells)), weights=self.probabilities.tolist())[0]
        return int(np.argmax(self.probabilities * (self.count + 1) - self.visits))


Node = DecisionNode | ChanceNode


@dataclass
class Leaf:
    """A leaf waiting for the network: the path of (node, edge index) that reached it."""

    node: DecisionNode
    path: list[tuple[Node, int]]


class Tree:
    """A search tree rooted at a decision of a game in progress.

    Args:
        state: the root state, a decision (Trap!: MOVE or THROW) of a game in progress.
        c_puct: the weight of the prior-driven exploration term.
        chance: ``"expect"`` or ``"sample"`` (see :data:`CHANCE_MODES`).
        max_turns: the turn limit: a state with this many turns done is a draw.
        rng: the generator of ``chance="sample"`` and of the root noise.
        root_noise: ``(alpha, fraction)`` of Dirichlet noise mixed into the root's
            priors (self-play exploration), or None.
        game: the rules (:class:`trap_env.game.Game`); Trap! by default.

    Raises:
        ValueError: for a bad option or a root that is not a decision of a game in progress.
    """

    def __init__(
        self,
        state: Any,
        c_puct: float = 1.5,
        chance: str = "expect",
        max_turns: int | None = None,
        rng: random.Random | None = None,
        root_noise: tuple[float, float] | None = None,
        *,
        game: Game[Any, Any],
    ) -> None:
        if chance not in CHANCE_MODES:
            raise ValueError(f"chance must be one of {list(CHANCE_MODES)}, got {chance!r}")
        if not c_puct > 0:
            raise ValueError(f"c_puct must be > 0, got {c_puct!r}")
        if game.outcome(state) is not None or game.is_chance(state):
            raise ValueError(
                f"a search starts at a decision of a game in progress, got {game.to_text(state)}"
            )
        self.rules = game
        self.root: DecisionNode = self._new_node(state)  # type: ignore[assignment]
        self.c_puct = c_puct
        self.chance = chance
        self.max_turns = max_turns
        self.rng = rng if rng is not None else random.Random(0)
        self.root_noise = root_noise
        self.simulations = 0
        self.max_depth = 0

    def select(self) -> Leaf | None:
        """Walk down to a leaf; return it if it needs the network, else back it up here."""
        path: list[tuple[Node, int]] = []
        node: Node = self.root
        while True:
            if isinstance(node, DecisionNode):
                if not node.is_expanded:
                    return Leaf(node, path)
                index = node.select(self.c_puct)
                action = node.actions[index]
            else:
                index = node.select(self.chance, self.rng)
                action = node.cells[index]
            path.append((node, index))
            child = node.children.get(index)
            if child is None:
                next_state = self.rules.apply(node.state, action)
                value = self._final_value(next_state)
                if value is not None:
                    self._backup(path, self.rules.current_player(next_state), value)
                    return None
                child = self._new_node(next_state)
                node.children[index] = child
            node = child

    def expand(self, leaf: Leaf, logits: np.ndarray, value: float) -> None:
        """Give ``leaf`` the network's priors (from its logits) and back up its value."""
        node = leaf.node
        if not node.is_expanded:
            node.priors = masked_priors(logits, node.actions)
            node.value = value
            node.is_expanded = True
            if node is self.root and self.root_noise is not None:
                self.add_root_noise()
        self._backup(leaf.path, node.player, value)

    def run(
        self,
        evaluate: Evaluator,
        simulations: int,
        stop: Callable[[], bool],
        check_every: int = CHECK_EVERY,
    ) -> None:
        """Up to ``simulations`` simulations, asking ``stop()`` every ``check_every``."""
        for done in range(simulations):
            if done % check_every == 0 and done and stop():
                return
            leaf = self.select()
            if leaf is not None:
                logits, values = evaluate([leaf.node.state])
                self.expand(leaf, logits[0], float(values[0]))

    def advance(self, state: Any) -> bool:
        """Make the node of ``state`` the root if the tree holds it; return whether it did.

        Looks up to six plies and landings below the root: the rest of this turn and the
        opponent's whole turn.
        """
        frontier: list[Node] = [self.root]
        for _ in range(6):
            below: list[Node] = []
            for node in frontier:
                for child in node.children.values():
                    if child.state == state and isinstance(child, DecisionNode):
                        self.root = child
                        return True
                    below.append(child)
            frontier = below
        return False

    def _final_value(self, state: Any) -> float | None:
        """A finished game's (or a truncated one's) value for the player to act; else None."""
        ended = self.rules.outcome(state, self.max_turns)
        return None if ended is None else ended.returns()[self.rules.current_player(state)]

    def _new_node(self, state: Any) -> Node:
        player = self.rules.current_player(state)
        if self.rules.is_chance(state):
            return ChanceNode(state, player, self.rules.chance_outcomes(state))
        return DecisionNode(state, player, self.rules.legal_actions(state))

    def _backup(self, path: list[tuple[Node, int]], player: int, value: float) -> None:
        self.simulations += 1
        self.max_depth = max(self.max_depth, len(path))
        for node, index in reversed(path):
            seen = value if node.player == player else -value
            node.visits[index] += 1
            node.totals[index] += seen
            node.count += 1

    def add_root_noise(self) -> None:
        """Mix Dirichlet noise into the root's priors (nothing without ``root_noise``)."""
        if self.root_noise is None or not self.root.is_expanded:
            return
        alpha, fraction = self.root_noise
        noise = np.random.default_rng(self.rng.getrandbits(63)).dirichlet(
            [alpha] * len(self.root.actions)
        )
        self.root.priors = (1 - fraction) * self.root.priors + fraction * noise


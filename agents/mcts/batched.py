"""The PUCT search of :mod:`agents.mcts.search` for B games at once, on a batched engine.

:class:`BatchedTree` holds B search trees as ``(B, M, ...)`` arrays, M nodes each, and runs
every step of a simulation for all of them together: the walk down (PUCT at decision nodes,
the ``chance="expect"`` rule at chance nodes), the new nodes' transitions (the engine's
``apply``), one network evaluation of all the leaves, and the backup. It is written
against the game protocol's batched engine (:class:`trap_env.batched.BatchedEngine`), so
it searches any game that has one. It is :class:`agents.mcts.search.Tree` restated for
arrays: the tests check it against ``Tree``, visit for visit, with the same network.
Self-play (:mod:`agents.rl.alphazero`) uses it; the ``mcts`` agent, which searches one
game under a clock, keeps ``Tree``.

Layout: node 0 of each tree is its root. A decision node's edges are the game's actions
(only the legal ones are ever chosen); a chance node's edges are the engine's
``chance_slots`` outcome slots, in the order of ``game.chance_outcomes`` (Trap!: the
target, then its neighbours ascending; a slot of probability 0 is never chosen). A
simulation adds at most two nodes (a chance node and the decision node below it), so
``M = 2 * simulations + 1`` always suffices.

Example:
    >>> from trap_env.trap import batched as batched_trap
    >>> engine = batched_trap.Engine(batched_trap.tables(5))
    >>> tree = BatchedTree(engine, engine.initial_batch(3), simulations=16)
    >>> tree.run(uniform_evaluator(engine))
    >>> tree.root_visits().sum(axis=1).tolist()       # the first simulation expands the root
    [15.0, 15.0, 15.0]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from trap_env.batched import NO_WINNER, BatchedEngine, gather

__all__ = [
    "BatchedTree",
    "PlanesEvaluator",
    "encode_batch",
    "uniform_evaluator",
]

DECISION, CHANCE = 0, 1

PlanesEvaluator = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
"""A network: inputs ``(L, N, N, planes + 1)`` float32 -> (logits ``(L, actions)``,
values ``(L,)``)."""

Ints = NDArray[np.int64]


def encode_batch(engine: BatchedEngine[Any], batch: Any) -> np.ndarray:
    """The network's input for the games of ``batch``, as :func:`agents.mcts.network.encode`
    gives it for their states: each seen from its player to act, then a plane of ones."""
    planes = engine.observations(batch, engine.players(batch)).astype(np.float32)
    return np.concatenate([planes, np.ones((*planes.shape[:-1], 1), np.float32)], axis=-1)


def uniform_evaluator(engine: BatchedEngine[Any]) -> PlanesEvaluator:
    """A network of equal logits and zero values (a plain PUCT search)."""

    def evaluate(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros((len(planes), engine.num_actions), np.float32), np.zeros(len(planes))

    return evaluate


class BatchedTree:
    """B search trees, one per game of ``roots``, searched together.

    Args:
        engine: the batched engine of the games' rules (Trap!'s:
            :class:`trap_env.trap.batched.Engine`).
        roots: B games, each at a decision of a game in progress.
        simulations: simulations per tree (the first expands the root).
        c_puct: the weight of the prior-driven exploration term.
        max_turns: the turn limit: a state with this many turns done is a draw (0).
        root_noise: ``(alpha, fraction)`` of Dirichlet noise mixed into the roots' priors
            (self-play exploration), or None.
        rng: the generator of the root noise (needed with ``root_noise``).

    Raises:
        ValueError: for a bad option or a root that is not a decision of a game in progress.
    """

    def __init__(
        self,
        engine: BatchedEngine[Any],
        roots: Any,
        simulations: int,
        c_puct: float = 1.5,
        max_turns: int | None = None,
        root_noise: tuple[float, float] | None = None,
        rng: np.random.Generator | None = None,
    ) -> None:
        if simulations < 1 or not c_puct > 0:
            raise ValueError(
                f"simulations must be >= 1 and c_puct > 0, got {simulations!r}, {c_puct!r}"
            )
        if root_noise is not None and rng is None:
            raise ValueError("root_noise needs an rng")
        if (engine.is_over(roots) | engine.is_chance(roots)).any():
            raise ValueError("a search starts at decisions (not chance) of games in progress")
        self.engine, self.simulations, self.c_puct = engine, simulations, c_puct
        self.max_turns, self.root_noise, self.rng = max_turns, root_noise, rng
        b, m, a = len(roots[0]), 2 * simulations + 1, engine.num_actions
        self.capacity, self.slots = m, engine.chance_slots
        self.states = type(roots)(
            *(np.zeros((b * m, *field.shape[1:]), field.dtype) for field in roots)
        )
        self.kind = np.zeros((b, m), np.int8)
        self.player = np.zeros((b, m), np.int8)
        self.legal = np.zeros((b, m, a), np.bool_)
        self.priors = np.zeros((b, m, a))  # a chance node's landing probabilities by slot
        self.slot_outcomes = np.zeros((b, m, self.slots), np.int64)
        self.visits = np.zeros((b, m, a))
        self.totals = np.zeros((b, m, a))
        self.children = np.full((b, m, a), -1, np.int32)
        self.count = np.zeros((b, m), np.int64)
        self.value = np.zeros((b, m))
        self.expanded = np.zeros((b, m), np.bool_)
        self.size = np.zeros(b, np.int64)
        self.max_depth = 0
        self._add(np.arange(b), roots)

    def run(self, evaluate: PlanesEvaluator) -> None:
        """All ``simulations`` simulations of every tree."""
        for _ in range(self.simulations):
            self.simulate(evaluate)

    def simulate(self, evaluate: PlanesEvaluator) -> None:
        """One simulation in every tree, with one call of ``evaluate`` for all the leaves."""
        b = len(self.size)
        rows, nodes = np.arange(b), np.zeros(b, np.int64)
        steps: list[tuple[Ints, Ints, Ints]] = []
        end_player = np.zeros(b, np.int8)
        end_value = np.zeros(b)
        leaves: list[tuple[Ints, Ints]] = []
        while len(rows):
            waiting = (self.kind[rows, nodes] == DECISION) & ~self.expanded[rows, nodes]
            leaves.append((rows[waiting], nodes[waiting]))
            rows, nodes = rows[~waiting], nodes[~waiting]
            if not len(rows):
                break
            edges, actions = self._choose(rows, nodes)
            steps.append((rows, nodes, edges))
            children = self.children[rows, nodes, edges].astype(np.int64)
            new = np.flatnonzero(children < 0)
            if len(new):
                children[new] = self._grow(
                    rows[new], nodes[new], edges[new], actions[new], end_player, end_value
                )
            going = children >= 0  # -1 left: a finished game, backed up below
            rows, nodes = rows[going], children[going]
        leaf_rows = np.concatenate([rows for rows, _ in leaves])
        leaf_nodes = np.concatenate([nodes for _, nodes in leaves])
        if len(leaf_rows):
            end_player[leaf_rows] = self.player[leaf_rows, leaf_nodes]
            end_value[leaf_rows] = self._expand(leaf_rows, leaf_nodes, evaluate)
        self._backup(steps, end_player, end_value)

    # --- Reading the roots ---------------------------------------------------------------

    def root_visits(self) -> np.ndarray:
        """``(B, actions)``: each root's visit counts per action."""
        return self.visits[:, 0]

    def root_legal(self) -> np.ndarray:
        """``(B, actions)`` bool: each root's legal actions."""
        return self.legal[:, 0]

    def root_priors(self) -> np.ndarray:
        """``(B, actions)``: each root's priors per action (with the noise, if any)."""
        return self.priors[:, 0]

    def root_values(self) -> np.ndarray:
        """``(B,)``: each root's value for its player, the visit-weighted mean of its edges."""
        return self._mean_values(np.arange(len(self.size)), np.zeros(len(self.size), np.int64))

    def best_actions(self) -> Ints:
        """Each root's most visited action; ties go to the higher prior, then the later one
        (the choice of :meth:`agents.mcts.search.DecisionNode.best_index`)."""
        visits, priors, legal = self.root_visits(), self.root_priors(), self.root_legal()
        most = np.where(legal, visits, -1.0)
        top = legal & (most == most.max(axis=1, keepdims=True))
        prior = np.where(top, priors, -1.0)
        best = top & (prior == prior.max(axis=1, keepdims=True))
        last: Ints = self.engine.num_actions - 1 - np.argmax(best[:, ::-1], axis=1)
        return last

    # --- Steps of a simulation -----------------------------------------------------------

    def _choose(self, rows: Ints, nodes: Ints) -> tuple[Ints, Ints]:
        """The edge each node follows, and the action it plays (a decision or an outcome)."""
        edges = np.empty(len(rows), np.int64)
        decision = self.kind[rows, nodes] == DECISION
        here = np.flatnonzero(decision)
        if len(here):
            r, n = rows[here], nodes[here]
            visits, totals = self.visits[r, n], self.totals[r, n]
            # An edge not tried yet counts at the node's own mean value (first-play urgency).
            q = np.where(
                visits > 0, totals / np.maximum(visits, 1), self._mean_values(r, n)[:, None]
            )
            u = (
                self.c_puct
                * self.priors[r, n]
                * np.sqrt(self.count[r, n] + 1)[:, None]
                / (1 + visits)
            )
            edges[here] = np.argmax(np.where(self.legal[r, n], q + u, -np.inf), axis=1)
        chance = np.flatnonzero(~decision)
        if len(chance):
            r, n = rows[chance], nodes[chance]
            probabilities = self.priors[r, n, : self.slots]
            lag = probabilities * (self.count[r, n] + 1)[:, None] - self.visits[r, n, : self.slots]
            edges[chance] = np.argmax(np.where(probabilities > 0, lag, -np.inf), axis=1)
        actions = edges.copy()
        if len(chance):
            actions[chance] = self.slot_outcomes[rows[chance], nodes[chance], edges[chance]]
        return edges, actions

    def _grow(
        self,
        rows: Ints,
        nodes: Ints,
        edges: Ints,
        actions: Ints,
        end_player: np.ndarray,
        end_value: np.ndarray,
    ) -> Ints:
        """The children reached by new edges: new nodes, or -1 for a finished game, whose
        value (for its player to act) goes into ``end_player``/``end_value``."""
        engine = self.engine
        after = engine.apply(gather(self.states, rows * self.capacity + nodes), actions,
                             validate=False)  # fmt: skip
        winners, players = engine.winners(after), engine.players(after)
        won = winners != NO_WINNER
        final = engine.is_over(after)
        if self.max_turns is not None:
            final |= engine.is_truncated(after, self.max_turns)
        ended = np.flatnonzero(final)
        end_player[rows[ended]] = players[ended]
        end_value[rows[ended]] = np.where(
            won[ended], np.where(winners[ended] == players[ended], 1.0, -1.0), 0.0
        )
        children = np.full(len(rows), -1, np.int64)
        kept = np.flatnonzero(~final)
        if len(kept):
            children[kept] = self._add(rows[kept], gather(after, kept))
            self.children[rows[kept], nodes[kept], edges[kept]] = children[kept]
        return children

    def _add(self, rows: Ints, games: Any) -> Ints:
        """New nodes for ``games``, one in each tree of ``rows``; their indices."""
        ids = self.size[rows]
        self.size[rows] += 1
        flat = rows * self.capacity + ids
        for field, values in zip(self.states, games, strict=True):
            np.asarray(field)[flat] = values
        chance = self.engine.is_chance(games)
        self.kind[rows, ids] = np.where(chance, CHANCE, DECISION)
        self.player[rows, ids] = self.engine.players(games)
        self.legal[rows, ids] = self.engine.legal_masks(games)
        if chance.any():
            outcomes, probabilities = self.engine.chance_outcomes(gather(games, chance))
            self.slot_outcomes[rows[chance], ids[chance]] = outcomes
            self.priors[rows[chance], ids[chance], : self.slots] = probabilities
        return ids

    def _expand(self, rows: Ints, nodes: Ints, evaluate: PlanesEvaluator) -> np.ndarray:
        """Give the leaves the network's priors and values; return the values."""
        games = gather(self.states, rows * self.capacity + nodes)
        logits, values = evaluate(encode_batch(self.engine, games))
        legal = self.legal[rows, nodes]
        masked = np.where(legal, logits.astype(np.float64), -np.inf)
        weights = np.exp(masked - masked.max(axis=1, keepdims=True))
        self.priors[rows, nodes] = weights / weights.sum(axis=1, keepdims=True)
        values = np.asarray(values, np.float64)
        self.value[rows, nodes] = values
        self.expanded[rows, nodes] = True
        roots = np.flatnonzero(nodes == 0)
        if self.root_noise is not None and len(roots):
            self._add_root_noise(rows[roots])
        return values

    def _add_root_noise(self, rows: Ints) -> None:
        assert self.rng is not None and self.root_noise is not None
        alpha, fraction = self.root_noise
        legal = self.legal[rows, 0]
        # Dirichlet over each root's legal actions: normalised gamma draws.
        draws = np.where(legal, self.rng.gamma(alpha, size=legal.shape), 0.0)
        noise = draws / np.maximum(draws.sum(axis=1, keepdims=True), 1e-300)
        self.priors[rows, 0] = (1 - fraction) * self.priors[rows, 0] + fraction * noise

    def _backup(
        self,
        steps: list[tuple[Ints, Ints, Ints]],
        end_player: np.ndarray,
        end_value: np.ndarray,
    ) -> None:
        """Add each simulation's value to the edges of its path, seen by each node's player."""
        self.max_depth = max(self.max_depth, len(steps))
        for rows, nodes, edges in steps:
            same = self.player[rows, nodes] == end_player[rows]
            self.visits[rows, nodes, edges] += 1
            self.totals[rows, nodes, edges] += np.where(same, end_value[rows], -end_value[rows])
            self.count[rows, nodes] += 1

    def _mean_values(self, rows: Ints, nodes: Ints) -> np.ndarray:
        visits = self.visits[rows, nodes].sum(axis=1)
        totals = self.totals[rows, nodes].sum(axis=1)
        return np.where(visits > 0, totals / np.maximum(visits, 1), self.value[rows, nodes])

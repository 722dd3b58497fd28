"""The mcts search's own work: scalar trees and the batched tree, in simulations per second."""

from __future__ import annotations

import numpy as np
from trap_scripts.benchmarks._shared import Figure, timed_loop

from trap_env.trap.core import (
    GameConfig,
    initial_state,
    resolve_turn_limit,
)
from trap_env.trap.game import GAME as TRAP

MCTS_SIMULATIONS = 32
"""Simulations per search in the mcts rows (each measurement repeats whole searches)."""

MCTS_BATCHES = (32, 256)
"""The batched tree's batch sizes."""


def scalar_trees_rate(num_trees: int, seconds: float, board_size: int = 7) -> float:
    """Simulations/s of ``num_trees`` scalar trees from the start, each simulation step
    evaluating the leaves of all of them in one call of a free network."""
    from agents.mcts.search import Tree

    start = initial_state(GameConfig(board_size))
    cells = board_size * board_size

    def searches() -> int:
        trees = [
            Tree(start, max_turns=resolve_turn_limit(None, board_size), game=TRAP)
            for _ in range(num_trees)
        ]
        for _ in range(MCTS_SIMULATIONS):
            leaves = [(tree, leaf) for tree in trees if (leaf := tree.select()) is not None]
            for tree, leaf in leaves:  # the free network: uniform priors, value 0
                tree.expand(leaf, np.zeros(cells), 0.0)
        return num_trees * MCTS_SIMULATIONS

    return timed_loop(searches, seconds)


def batched_tree_rate(num_games: int, seconds: float, board_size: int = 7) -> float:
    """Simulations/s of :class:`agents.mcts.batched.BatchedTree` over ``num_games`` games
    from the start, with a free network."""
    from agents.mcts.batched import BatchedTree, uniform_evaluator
    from trap_env.trap import batched as batched_trap

    t = batched_trap.tables(board_size)
    roots = batched_trap.initial_batch(t, num_games)
    engine = batched_trap.Engine(t)
    network = uniform_evaluator(engine)

    def searches() -> int:
        limit = resolve_turn_limit(None, board_size)
        tree = BatchedTree(engine, roots, MCTS_SIMULATIONS, max_turns=limit)
        tree.run(network)
        return num_games * MCTS_SIMULATIONS

    return timed_loop(searches, seconds)


def mcts_figures(seconds: float) -> list[Figure]:
    """The mcts rows (see the module docstring): the search's work, no network."""
    scalar = {size: scalar_trees_rate(size, seconds) for size in (1, MCTS_BATCHES[0])}
    batched = {size: batched_tree_rate(size, seconds) for size in MCTS_BATCHES}
    unit = "simulations/s"
    return [
        Figure("mcts: scalar Tree, 1 game", scalar[1], unit, "the agent's search"),
        Figure(
            f"mcts: {MCTS_BATCHES[0]} scalar Trees, batched evaluations",
            scalar[MCTS_BATCHES[0]],
            unit,
            "scalar trees, one batch of leaves",
        ),
        *(Figure(f"mcts: BatchedTree B={size}", rate, unit) for size, rate in batched.items()),
        Figure(
            f"mcts: BatchedTree B={MCTS_BATCHES[-1]} / {MCTS_BATCHES[0]} scalar Trees",
            batched[MCTS_BATCHES[-1]] / scalar[MCTS_BATCHES[0]],
            "ratio",
        ),
    ]

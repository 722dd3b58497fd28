"""The expectiminimax search: nodes per second, depth in a time limit, node counts by pruning."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from trap_scripts.benchmarks._shared import Figure

from trap_env.trap.core import (
    GameConfig,
    Phase,
    State,
    apply,
    initial_state,
    legal_actions,
    outcome,
    sample_landing,
)


def middle_game(board_size: int = 7, turns: int = 10, seed: int = 2) -> State:
    """A reproducible middle-game position: ``turns`` random turns from the start."""
    rng = random.Random(seed)
    state = initial_state(GameConfig(board_size))
    while state.turn < turns:
        previous = state
        if state.phase is Phase.LANDING:
            state = apply(state, sample_landing(state, rng))
        else:
            state = apply(state, rng.choice(legal_actions(state)))
        if outcome(state) is not None:
            return (
                previous
                if previous.phase is Phase.MOVE
                else middle_game(board_size, turns, seed + 1)
            )
    return state


def search_figures(seconds: Sequence[float]) -> list[Figure]:
    """Nodes/s and the depth finished within each time limit, from two positions."""
    figures = []
    for label, state in (("start", initial_state()), ("middle game", middle_game())):
        for limit in seconds:
            depth, nodes, elapsed = deepest_iteration(state, limit)
            figures.append(Figure(f"search depth in {limit:g} s, {label}", depth, "plies"))
            figures.append(
                Figure(f"search speed in {limit:g} s, {label}", nodes / elapsed, "nodes/s")
            )
    return figures


def deepest_iteration(state: State, seconds: float) -> tuple[int, int, float]:
    """The expectiminimax agent's search (default settings) iterating for ``seconds``.

    Returns the deepest finished depth, the nodes and the seconds used.
    """
    from agents.search.expectimax import timed_iterations
    from agents.trap.search import ExpectiminimaxAgent

    search = ExpectiminimaxAgent().search
    start = time.perf_counter()
    results = timed_iterations(search, state, seconds)
    depth = results[-1].depth if results else 0
    return depth, search.nodes, time.perf_counter() - start


def plain_expectimax_nodes(game: Any, state: State, depth: int) -> int:
    """The nodes of the full depth-limited expectimax tree (counted as the search counts)."""
    if game.is_terminal(state) or (depth <= 0 and not game.is_chance(state)):
        return 1
    if game.is_chance(state):
        children = [game.apply(state, cell) for cell, _ in game.chance_outcomes(state)]
        return 1 + sum(plain_expectimax_nodes(game, child, depth) for child in children)
    return 1 + sum(
        plain_expectimax_nodes(game, game.apply(state, action), depth - 1)
        for action in game.legal_actions(state)
    )


def pruning_figures(depth: int) -> list[Figure]:
    """Node counts at ``depth`` from the middle-game position, plain against pruned."""
    from agents.search.expectimax import Search
    from agents.trap.search_game import TrapGame

    game = TrapGame()
    state = middle_game()
    plain = plain_expectimax_nodes(game, state, depth)
    figures = [Figure(f"nodes at depth {depth}: plain expectimax", plain, "nodes", "middle game")]
    variants = {
        "alpha-beta only": {"use_table": False, "star1": False, "star2": False},
        "alpha-beta + Star1": {"use_table": False, "star1": True, "star2": False},
        "alpha-beta + Star1 + Star2": {"use_table": False, "star1": True, "star2": True},
        "all + table": {"use_table": True, "star1": True, "star2": True},
        "all + table, misses 2 plies shallower": {"chance_reduction": 2},
    }
    for label, options in variants.items():
        search = Search(game, **options)
        search.value(state, depth)
        note = f"{search.nodes / plain:.1%} of plain"
        figures.append(Figure(f"nodes at depth {depth}: {label}", search.nodes, "nodes", note))
    return figures

"""The batched search against the scalar one (agents.mcts.search.Tree), visit for visit."""

from __future__ import annotations

import doctest
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.mcts import batched
from agents.mcts.batched import BatchedTree, encode_batch, uniform_evaluator
from agents.mcts.network import encode
from agents.mcts.search import Tree
from tests.support.positions import random_position
from trap_env.trap import batched as batched_trap
from trap_env.trap import core
from trap_env.trap.core import GameConfig, State
from trap_env.trap.game import GAME as TRAP


def exact_network(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A made-up network whose outputs are exact in floating point whatever the batch:
    integer logits that depend on the position and the cell, values in eighths."""
    size = planes.shape[1]
    cells = np.arange(size * size) % 5
    own, other, traps = (planes[..., k].reshape(len(planes), -1) for k in range(3))
    logits = (3 * own.sum(1, keepdims=True) * cells + 2 * traps + other - cells).astype(np.float32)
    values = ((traps.sum(1) + 2 * planes[..., 3].sum((1, 2)) / size) % 9 - 4) / 8
    return logits, values


def scalar_network(states: list[State]) -> tuple[np.ndarray, np.ndarray]:
    return exact_network(encode(states, TRAP))


@settings(max_examples=60)
@given(
    seed=st.integers(0, 2**32 - 1),
    board_size=st.integers(3, 7),
    actions=st.integers(0, 40),
    games=st.integers(1, 5),
    simulations=st.integers(1, 80),
    c_puct=st.sampled_from([0.5, 1.5, 4.0]),
    turns_left=st.sampled_from([None, 1, 2, 5]),
    decay=st.sampled_from([50, 0, 300]),
)
def test_every_tree_equals_the_scalar_search(
    seed: int,
    board_size: int,
    actions: int,
    games: int,
    simulations: int,
    c_puct: float,
    turns_left: int | None,
    decay: int,
) -> None:
    rng = random.Random(seed)
    roots = [random_position(rng, board_size, rng.randint(0, actions), decay) for _ in range(games)]
    max_turns = None if turns_left is None else max(s.turn for s in roots) + turns_left
    engine = batched_trap.Engine(batched_trap.tables(board_size, decay))
    batched = BatchedTree(engine, batched_trap.from_states(roots), simulations, c_puct, max_turns)
    batched.run(exact_network)
    best = batched.best_actions()
    for index, root in enumerate(roots):
        tree = Tree(root, c_puct, "expect", max_turns, game=TRAP)
        tree.run(scalar_network, simulations, lambda: False)
        node = tree.root
        assert batched.root_visits()[index, node.actions].tolist() == node.visits.tolist()
        assert batched.root_visits()[index].sum() == node.visits.sum()
        assert batched.root_values()[index] == node.mean_value()
        assert batched.root_priors()[index, node.actions].tolist() == node.priors.tolist()
        assert best[index] == node.actions[node.best_index()]
        assert np.flatnonzero(batched.root_legal()[index]).tolist() == node.actions


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), board_size=st.integers(3, 8), actions=st.integers(0, 60))
def test_the_network_input_is_the_scalar_encoding(seed: int, board_size: int, actions: int) -> None:
    rng = random.Random(seed)
    states = [random_position(rng, board_size, actions, 50) for _ in range(3)]
    engine = batched_trap.Engine(batched_trap.tables(board_size))
    batch = batched_trap.from_states(states)
    assert np.array_equal(encode_batch(engine, batch), encode(states, TRAP))


def test_root_noise_changes_only_the_priors_and_follows_the_seed() -> None:
    engine = batched_trap.Engine(batched_trap.tables(5))
    roots = engine.initial_batch(4)

    def searched(seed: int) -> BatchedTree:
        rng = np.random.default_rng(seed)
        tree = BatchedTree(engine, roots, 30, root_noise=(0.3, 0.25), rng=rng)
        tree.run(uniform_evaluator(engine))
        return tree

    first, again, other = searched(1), searched(1), searched(2)
    assert np.array_equal(first.root_visits(), again.root_visits())
    assert not np.array_equal(first.root_priors(), other.root_priors())
    priors = first.root_priors()
    assert np.allclose(priors.sum(axis=1), 1.0)
    assert not priors[~first.root_legal()].any()


def test_searches_start_only_at_decisions_of_games_in_progress() -> None:
    t = batched_trap.tables(3)
    over = core.from_text("xx0/x1x/xxx 0 move - 4")
    landing = core.apply(core.apply(core.initial_state(GameConfig(3)), 0), 8)
    for state in (over, landing):
        with pytest.raises(ValueError, match=r"decisions \(not chance\) of games in progress"):
            BatchedTree(batched_trap.Engine(t), batched_trap.from_states([state]), 4)
    with pytest.raises(ValueError, match="simulations must be >= 1"):
        BatchedTree(batched_trap.Engine(t), batched_trap.initial_batch(t, 1), 0)
    with pytest.raises(ValueError, match="root_noise needs an rng"):
        BatchedTree(
            batched_trap.Engine(t), batched_trap.initial_batch(t, 1), 4, root_noise=(0.3, 0.25)
        )


def test_the_module_example_runs() -> None:
    assert doctest.testmod(batched).failed == 0

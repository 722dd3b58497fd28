"""The batched fixed-depth search against plain expectimax, the scalar search and agent.

Settings compared (the scalar agent's own, :class:`agents.trap.search.SearchSettings`):
the throw filter on (radius 1 or 2) or off, misses searched 0, 1 or 2 plies shallower
(``chance_reduction``), throws landing as the rules say or always on target
(``deterministic_throws``), depths 1 to 3 (a turn is two plies); at depth 0 a landed
position is valued by the evaluation, a won one +1.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.registry import make_agent
from agents.search.expectimax import Search
from agents.trap.batched_search import TIE_TOLERANCE, BatchedExpectiminimax, BatchedSearch
from agents.trap.search import ExpectiminimaxAgent, SearchSettings
from agents.trap.search_game import TrapGame
from tests.support.positions import random_position
from tests.support.search_oracle import action_values
from trap_env.batched_opponents import AgentOpponent
from trap_env.bits import cells_of
from trap_env.trap import batched as batched_trap
from trap_env.trap import core
from trap_env.trap.batched_env import TrapVectorEnv
from trap_env.trap.core import Phase, State


def _oracle(state: State, depth: int, filtered: bool, radius: int, reduction: int, sure: bool):
    game = TrapGame(throw_filter=filtered, throw_radius=radius)
    actions = game.legal_actions if filtered else core.legal_actions
    return action_values(state, depth, deterministic=sure, reduction=reduction, actions=actions)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    board_size=st.integers(3, 8),
    decay=st.sampled_from([50, 50, 0, 200, 500, 1000]),
    depth=st.integers(1, 3),
    filtered=st.booleans(),
    radius=st.integers(1, 2),
    reduction=st.integers(0, 2),
    sure=st.sampled_from([False, False, False, True]),
)
def test_root_values_are_plain_expectimax(
    seed: int,
    board_size: int,
    decay: int,
    depth: int,
    filtered: bool,
    radius: int,
    reduction: int,
    sure: bool,
) -> None:
    if board_size >= 6 and depth == 3:
        depth = 2  # the oracle is slow there
    rng = random.Random(seed)
    states = [
        random_position(rng, board_size, rng.randrange(6 * board_size), decay) for _ in range(3)
    ]
    search = BatchedSearch(
        batched_trap.tables(board_size, decay),
        depth,
        throw_filter=filtered,
        throw_radius=radius,
        chance_reduction=reduction,
        deterministic_throws=sure,
    )
    values = search.action_values(batched_trap.from_states(states))
    for state, row in zip(states, values, strict=True):
        want = _oracle(state, depth, filtered, radius, reduction, sure)
        assert set(np.flatnonzero(np.isfinite(row)).tolist()) == set(want), core.to_text(state)
        for action, value in want.items():
            assert abs(row[action] - value) <= 1e-9, (core.to_text(state), action)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    board_size=st.integers(4, 8),
    decay=st.sampled_from([50, 50, 200]),
    depth=st.integers(1, 2),
)
def test_the_scalar_agent_plays_one_of_the_best_actions(
    seed: int, board_size: int, decay: int, depth: int
) -> None:
    """The scalar search (pruning, table, the agent's default settings) agrees on the
    root's value, and the agent's choice is in the batched search's best set."""
    rng = random.Random(seed)
    states = [
        random_position(rng, board_size, rng.randrange(6 * board_size), decay) for _ in range(4)
    ]
    search = BatchedSearch(batched_trap.tables(board_size, decay), depth)
    values = search.action_values(batched_trap.from_states(states))
    best = search.best_actions(batched_trap.from_states(states))
    for state, row, bits in zip(states, values, best.tolist(), strict=True):
        scalar = Search(TrapGame(), chance_reduction=SearchSettings().chance_reduction)
        assert abs(scalar.value(state, depth) - row.max()) <= 1e-9
        agent = ExpectiminimaxAgent(SearchSettings(depth=depth, time_limit=None))
        chosen = agent.select_action(state)
        assert row[chosen] >= row.max() - 1e-9
        assert bits >> chosen & 1 or row[chosen] < row.max() - TIE_TOLERANCE


def _symmetric_start() -> State:
    """5x5, players on the middle column, a trap in front of player 0: its moves mirror
    each other (1 and 3, 6 and 8)."""
    return core.initial_state(core.GameConfig(5))._replace(traps=1 << 7)


def test_ties_are_broken_by_the_words_among_the_best() -> None:
    t = batched_trap.tables(5)
    batch = batched_trap.from_states([_symmetric_start()] * 64)
    best = BatchedSearch(t, 2).best_actions(batch)
    assert len(set(best.tolist())) == 1
    tied = cells_of(int(best[0]))
    assert tied in ([1, 3], [6, 8])
    opponent = BatchedExpectiminimax(2)
    engine = batched_trap.Engine(t)
    words = batched_trap.random_words(batched_trap.game_keys(0, np.arange(64), 0), 0, 0)
    chosen = opponent.act(engine, batch, np.ones(64, bool), words)
    assert set(chosen.tolist()) == set(tied)
    assert opponent.act(engine, batch, np.ones(64, bool), words).tolist() == chosen.tolist()


def test_finished_games_and_landings_are_refused() -> None:
    t = batched_trap.tables(5)
    state = core.apply(core.apply(core.initial_state(core.GameConfig(5)), 7), 12)
    with pytest.raises(ValueError, match="waiting for a landing"):
        BatchedSearch(t, 2).action_values(batched_trap.from_states([state]))


@pytest.mark.parametrize(
    "bad", [{"depth": 0}, {"depth": 1.5}, {"throw_radius": 0}, {"chance_reduction": -1}]
)
def test_bad_settings_are_refused(bad: dict) -> None:
    settings_ = {"depth": 2, **bad}
    with pytest.raises(ValueError, match="must be an integer"):
        BatchedExpectiminimax(**settings_)


def test_depth_specs_play_batched_in_the_env_and_time_limits_game_by_game() -> None:
    envs = TrapVectorEnv(
        16,
        board_size=5,
        opponent={"expectiminimax:depth=2,time_limit=1.0": 0.5, "alphabeta:depth=2": 0.5},
    )
    assert all(isinstance(o, BatchedExpectiminimax) for o in envs._opponents)
    assert isinstance(make_agent("alphabeta", game="trap").batched(), BatchedExpectiminimax)
    timed = TrapVectorEnv(2, board_size=5, opponent="expectiminimax:time_limit=0.01")
    assert isinstance(timed._opponents[0], AgentOpponent)
    envs.reset(seed=3)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        masks = envs.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        _, _, terminated, truncated, _ = envs.step(actions)
        ended += int((terminated | truncated).sum())
    assert ended > 0


def test_the_env_replays_a_game_against_the_batched_search() -> None:
    def run() -> list[list[int]]:
        envs = TrapVectorEnv(4, board_size=6, opponent="expectiminimax:depth=2")
        envs.reset(seed=11)
        seen = []
        for _ in range(30):
            masks = envs.action_masks()
            envs.step(np.array([np.flatnonzero(m)[0] if m.any() else 0 for m in masks]))
            seen.append(envs.batch.traps.tolist())
        return seen

    assert run() == run()


def test_the_batched_twin_plays_as_the_scalar_agent_in_a_game() -> None:
    """Game by game against the same random moves, every decision of the twin is one of
    the scalar agent's best (values within 1e-9)."""
    rng = random.Random(5)
    state = core.initial_state(core.GameConfig(6))
    agent = ExpectiminimaxAgent(SearchSettings(depth=2, time_limit=None))
    twin = agent.batched()
    assert twin is not None
    t = batched_trap.tables(6)
    engine = batched_trap.Engine(t)
    while not core.is_terminal(state) and state.turn < 20:
        if state.phase is Phase.LANDING:
            state = core.apply(state, core.sample_landing(state, rng))
        elif state.player == 0:
            state = core.apply(state, rng.choice(core.legal_actions(state)))
        else:
            batch = batched_trap.from_states([state])
            word = np.array([rng.getrandbits(64)], np.uint64)
            action = int(twin.act(engine, batch, np.ones(1, bool), word)[0])
            want = _oracle(state, 2, True, 2, 2, False)
            assert want[action] >= max(want.values()) - 1e-9
            state = core.apply(state, action)

"""Trap!'s solved 3x3 board against the plain expectimax and the reference search, and the
``perfect`` agent that plays it."""

from __future__ import annotations

import functools
import random
from pathlib import Path

import numpy as np
import pytest

from agents.registry import make_agent
from agents.solved import SolvedTable, action_values, table_path
from agents.trap.search import ExpectiminimaxAgent, SearchSettings
from agents.trap.solve import (
    Placements,
    _sweep,
    _Transitions,
    _value_iteration,
    decision_value,
    solve,
)
from tests.support.search_oracle import expectimax
from trap_env.agent import UnsupportedGameError
from trap_env.trap import core, kernel
from trap_env.trap.core import GameConfig, Phase, State
from trap_env.trap.game import GAME

REACH = 4
"""Positions whose every line of play ends within this many decisions are searched whole."""


@pytest.fixture(scope="module")
def table() -> SolvedTable:
    return solve(3)


@pytest.fixture(scope="module")
def places() -> Placements:
    return Placements.of(3)


def positions(places: Placements, min_traps: int) -> list[State]:
    """Every placement with at least ``min_traps`` traps, as a MOVE and a THROW position of
    a game in progress (the player to act alternating, to read both sides of the table)."""
    found = []
    for number, (me, other, traps) in enumerate(
        zip(places.me, places.other, places.traps, strict=True)
    ):
        if int(traps).bit_count() < min_traps:
            continue
        player = number % 2
        cells = (int(me), int(other)) if player == 0 else (int(other), int(me))
        for phase in (Phase.MOVE, Phase.THROW):
            state = State(3, int(traps), cells, player, phase, -1, 0, -1, kernel.DEFAULT_DECAY)
            state = state._replace(winner=kernel.decided_winner(state))
            if not core.is_terminal(state):
                found.append(state)
    return found


@functools.cache
def ends_within(state: State, depth: int) -> bool:
    """Whether every line of play from ``state`` ends within ``depth`` decisions."""
    if core.is_terminal(state):
        return True
    if state.phase is Phase.LANDING:
        return all(
            ends_within(kernel.land(state, cell), depth) for cell, _ in core.chance_outcomes(state)
        )
    return depth > 0 and all(
        ends_within(core.apply(state, action), depth - 1) for action in core.legal_actions(state)
    )


@pytest.fixture(scope="module")
def near_the_end(places: Placements) -> list[State]:
    return [state for state in positions(places, 4) if ends_within(state, REACH)]


def test_the_start_is_worth_what_the_report_says(table: SolvedTable, places: Placements) -> None:
    start = core.initial_state(GameConfig(3))
    assert decision_value(table, places, start) == table.report["value"]
    assert table.report["positions"] == 2 * 9 * 8 * 2**7
    assert 0.0 < table.report["value"] <= 1.0
    assert -1.0 <= table.report["value_turn_limited"] <= 1.0


def test_the_table_agrees_with_the_plain_expectimax_near_the_end(
    table: SolvedTable, places: Placements, near_the_end: list[State]
) -> None:
    assert len(near_the_end) >= 1000
    for state in near_the_end:
        assert expectimax(state, REACH) == pytest.approx(
            decision_value(table, places, state), abs=1e-9
        ), core.to_text(state)


def test_the_reference_search_agrees_with_the_table_near_the_end(
    table: SolvedTable, places: Placements, near_the_end: list[State]
) -> None:
    # Every throw, every landing at full depth, and twice the depth the positions need.
    settings = SearchSettings(
        time_limit=None, depth=2 * REACH, throw_filter=False, chance_reduction=0
    )
    for state in random.Random(0).sample(near_the_end, 200):
        agent = ExpectiminimaxAgent(settings)
        agent.select_action(state)
        assert agent.last_search is not None
        assert agent.last_search.value == pytest.approx(
            decision_value(table, places, state), abs=1e-9
        ), core.to_text(state)


def test_each_value_is_the_best_of_its_actions(table: SolvedTable, places: Placements) -> None:
    def lookup(state: State) -> float:
        return decision_value(table, places, state)

    for state in random.Random(1).sample(positions(places, 0), 500):
        best = max(action_values(GAME, lookup, state).values())
        assert lookup(state) == pytest.approx(best, abs=1e-9), core.to_text(state)


def test_perfect_plays_optimal_actions_and_beats_random_from_the_start(
    table: SolvedTable, places: Placements, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    table.save(table_path("trap", table.rules))  # the agent reads it instead of solving again
    limit = core.default_turn_limit(3)
    for seed in range(4):
        perfect, rival = (
            make_agent("perfect", game="trap"),
            make_agent("random", game="trap", seed=seed),
        )
        chance = random.Random(seed)
        state = core.initial_state(GameConfig(3))
        while core.outcome(state, limit) is None:
            if state.phase is Phase.LANDING:
                state = core.apply(state, core.sample_landing(state, chance))
                continue
            if state.player == 0:
                values = perfect.action_values(state)  # type: ignore[attr-defined]
                action = perfect.select_action(state)
                best = max(values.values())
                assert values[action] == pytest.approx(best, abs=1e-9)
                assert action == min(a for a, v in values.items() if v >= best - 1e-9)
                assert best == pytest.approx(decision_value(table, places, state), abs=1e-9)
            else:
                action = rival.select_action(state)
            state = core.apply(state, action)
        assert core.winner(state) == 0, seed


def test_perfect_refuses_a_board_with_no_table_in_one_line() -> None:
    agent = make_agent("perfect", game="trap")
    with pytest.raises(
        UnsupportedGameError,
        match=r"^perfect plays only the solved boards \(3x3\), not 4x4$",
    ):
        agent.check_game(GameConfig(4))  # type: ignore[attr-defined]


def test_solve_refuses_a_board_it_does_not_solve() -> None:
    with pytest.raises(ValueError, match=r"solved on the boards 3x3, 4x4 \(4x4: under the turn"):
        solve(5)


@pytest.mark.parametrize("decay", [500, 1000])
def test_values_that_swing_are_refused_early_with_the_turn_limited_value(decay: int) -> None:
    # A throw may land on a trap already there, so play cycles and the cut games' values
    # swing with the parity of the turns left: refused within SWING_SWEEPS past the limit.
    limited = _limited_value(decay)
    with pytest.raises(ValueError, match="the values swing") as refusal:
        solve(3, decay)
    assert f"under the turn limit the start is worth {limited!r}" in str(refusal.value)


def _limited_value(decay: int) -> float:
    """The start's value after 36 plain sweeps: the game cut after 36 turns."""
    places = Placements.of(3)
    transitions = _Transitions.of(places, decay)
    moves = np.where(transitions.lost, -1.0, 0.0)
    for _ in range(core.default_turn_limit(3)):
        moves = _sweep(moves, transitions)[0]
    return float(moves[places.of_state(core.initial_state(GameConfig(3, decay)))])


@pytest.mark.parametrize("board_size", [3, 4])
def test_a_sweep_is_the_rules_one_turn_deeper(board_size: int) -> None:
    # Any values (lost positions at -1, as every sweep leaves them): the new throw values
    # are the rules' best targets over those move values, the new move values the rules'
    # best steps over the new throw values, position by position.
    places = Placements.of(board_size)
    transitions = _Transitions.of(places, kernel.DEFAULT_DECAY)
    rng = np.random.default_rng(board_size)
    moves = np.where(transitions.lost, -1.0, rng.uniform(-1, 1, len(places)))
    new_moves, throws = _sweep(moves, transitions)

    def lookup(state: State) -> float:
        values = moves if state.phase is Phase.MOVE else throws
        return float(values[places.of_state(state)])

    for number in rng.choice(len(places), 300, replace=False):
        me, other, traps = (
            int(places.me[number]),
            int(places.other[number]),
            int(places.traps[number]),
        )
        for phase, found in ((Phase.THROW, throws), (Phase.MOVE, new_moves)):
            state = State(board_size, traps, (me, other), 0, phase, -1, 0, -1, kernel.DEFAULT_DECAY)
            state = state._replace(winner=kernel.decided_winner(state))
            if core.is_terminal(state):
                continue
            best = max(action_values(GAME, lookup, state).values())
            assert found[number] == pytest.approx(best, abs=1e-12), core.to_text(state)


def test_a_stopped_solve_resumes_from_its_saved_sweeps(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    decay = 200  # 224 sweeps
    whole, _ = _value_iteration(3, decay, None)
    monkeypatch.setattr("agents.trap.solve.MAX_SWEEPS", 45)  # stops at 45, saved at 40
    with pytest.raises(ValueError, match="does not converge"):
        _value_iteration(3, decay, tmp_path)
    monkeypatch.undo()
    resumed, report = _value_iteration(3, decay, tmp_path)
    assert report["resumed"] and report["iterations"] == 224
    np.testing.assert_array_equal(resumed["move"], whole["move"])

"""Trap!'s solved 3x3 board against the plain expectimax and the reference search, the
bounds of its value without a turn limit, and the ``perfect`` agent that plays it."""

from __future__ import annotations

import functools
import random
from pathlib import Path

import numpy as np
import pytest

from agents.registry import make_agent
from agents.solved import SolvedTable, action_values, load_or_solve, save_part, table_path
from agents.trap.search import ExpectiminimaxAgent, SearchSettings
from agents.trap.solve import (
    Placements,
    _cut_now,
    _sweep,
    _sweep_bounds,
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
CUT_LIMIT_3X3 = 0.9026902550234958
"""The 3x3 start's value in the limit of the games cut to a draw (plain sweeps from
all-draws, 838 of them): one solution of the equations, which the bounds must hold."""


@pytest.fixture(scope="module")
def table(trap_3x3_solved: Path) -> SolvedTable:
    with pytest.MonkeyPatch.context() as patch:  # the session's solve, not another
        patch.setenv("XDG_CACHE_HOME", str(trap_3x3_solved))
        return load_or_solve("trap", {"board_size": 3, "decay": 50})[0]


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
    start = places.of_state(core.initial_state(GameConfig(3)))
    report = table.report
    assert report["value"] == table.arrays["move"][start] == table.arrays["move_low"][start]
    assert report["value_swept_low"] <= report["value"] <= report["value_swept_high"]
    assert report["positions"] == 2 * 9 * 8 * 2**7
    assert -1.0 <= report["value_turn_limited"] <= 1.0


def test_the_3x3_value_is_certified_the_swept_lower_bound_not_the_cut_games_limit(
    table: SolvedTable,
) -> None:
    # The sweeps stop still 9e-4 apart after 1,463 (how never-ending play is scored changes
    # the value); a strategy, played by either player against a best response, pins it.
    report = table.report
    assert report["stopped"] == "still" and report["iterations"] == 1463
    assert report["value_swept_low"] == pytest.approx(0.9017766170031445, abs=1e-12)
    assert report["value_swept_high"] == pytest.approx(0.9026906357055314, abs=1e-12)
    assert report["certified_by"] == "strategy" and "value_low" not in report
    assert report["value"] == pytest.approx(0.9017766170031445, abs=1e-12)
    assert abs(report["value"] - CUT_LIMIT_3X3) > 9e-4
    assert report["positions_open"] == 0  # the strategy's bounds meet everywhere
    for kind in ("move", "throw"):
        low, high, value = (table.arrays[f"{kind}{end}"] for end in ("_low", "_high", ""))
        assert (low == value).all() and (high - low <= 1e-12).all()


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        # Player 1 can go only to the left cell of the middle row: 0 steps there and throws
        # at the centre, one away, so the throw lands: 1 is trapped, a win in one turn.
        ("1x./.0./... 0 move - 0", 1.0, 1.0),
        # 0 has no step: lost.
        ("0x./xx./..1 0 move - 0", -1.0, -1.0),
        # A 2x2 corner with two empty cells: who fills the third loses (the other steps in
        # and throws at the last), so each throws at a trap instead, and play goes on: the
        # sweeps' bounds stay at -0.9 and 0.9, the strategy's meet at 0 (a draw).
        ("01x/..x/xxx 0 move - 0", 0.0, 0.0),
    ],
)
def test_hand_checked_positions_are_bounded_as_reasoned(
    table: SolvedTable, places: Placements, text: str, low: float, high: float
) -> None:
    number = places.of_state(core.from_text(text))
    assert table.arrays["move_low"][number] == pytest.approx(low, abs=1e-12)
    assert table.arrays["move_high"][number] == pytest.approx(high, abs=1e-12)


def test_the_bounds_close_in_monotonically_around_every_solution(places: Placements) -> None:
    # Sweep k's lower bound is the game cut after k turns paying unfinished play as the loss
    # of the player to act: non-decreasing in k (the upper one, non-increasing), and every
    # solution of the equations, such as the limit of the games cut to a draw, between.
    transitions = _Transitions.of(places, kernel.DEFAULT_DECAY)
    start = places.of_state(core.initial_state(GameConfig(3)))
    low, high = _cut_now(transitions, -1.0), _cut_now(transitions, 1.0)
    for _ in range(150):
        (new_low, new_high), _ = _sweep_bounds(transitions, low, high)
        assert (new_low >= low).all() and (new_high <= high).all()
        assert new_low[start] <= CUT_LIMIT_3X3 <= new_high[start]
        low, high = new_low, new_high
    assert high[start] - low[start] < 0.01


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
                # The certifying strategy's action, not the lowest tied one: that may stall.
                play = table.arrays[f"{state.phase.name.lower()}_play"]
                assert action == play[places.of_state(state)]
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
    with pytest.raises(ValueError, match=r"^Trap! is solved on the boards 3x3, 4x4, not 5x5$"):
        solve(5)


SWINGING = 1000
"""A decay under which the games cut to a draw swing with the parity of the turns left."""


@pytest.fixture(scope="module")
def swinging() -> tuple[dict[str, np.ndarray], dict[str, object]]:
    return _value_iteration(3, SWINGING, None, certified=False)  # 183 sweeps, no strategy


def test_where_the_cut_games_swing_the_bounds_still_hold_the_value(
    swinging: tuple[dict[str, np.ndarray], dict[str, object]],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    arrays, report = swinging
    assert report["value_turn_limited"] == _limited_value(SWINGING)
    assert 0.1326 < report["value_low"] < report["value_high"] < 0.1357  # type: ignore[operator]
    assert "value" not in report and report["stopped"] == "still"
    assert "move" not in arrays  # no settled values for perfect to play: it says so
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    rules = {"board_size": 3, "decay": SWINGING}
    SolvedTable("trap", rules, arrays, report).save(table_path("trap", rules))
    with pytest.raises(UnsupportedGameError, match=r"^perfect does not play Trap! 3x3 with decay"):
        make_agent("perfect", game="trap").action_values(  # type: ignore[attr-defined]
            core.initial_state(GameConfig(3, SWINGING))
        )


def _limited_value(decay: int) -> float:
    """The start's value after 36 plain sweeps: the game cut to a draw after 36 turns."""
    places = Placements.of(3)
    transitions = _Transitions.of(places, decay)
    moves = _cut_now(transitions, 0.0)
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


def test_a_stopped_solve_resumes_from_its_saved_bounds_not_from_older_sweeps(
    swinging: tuple[dict[str, np.ndarray], dict[str, object]],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    whole, report = swinging
    # An earlier version's plain sweeps, saved beside: not bounds, so not read.
    save_part(tmp_path, "sweeps", {"move": whole["move_high"], "sweeps": np.array(100)})
    monkeypatch.setattr("agents.trap.solve.MAX_SWEEPS", 45)  # stops at 45, saved at 40
    _, at_cap = _value_iteration(3, SWINGING, tmp_path, certified=False)
    assert (at_cap["stopped"], at_cap["iterations"], at_cap["resumed"]) == ("sweep cap", 45, False)
    assert at_cap["value_low"] <= report["value_low"]  # still moving: a wider interval
    assert at_cap["value_high"] >= report["value_high"]
    monkeypatch.undo()
    resumed, again = _value_iteration(3, SWINGING, tmp_path, certified=False)
    assert again["resumed"] and again["iterations"] == report["iterations"] == 183
    assert again["value_turn_limited"] == report["value_turn_limited"]
    for name, values in whole.items():
        np.testing.assert_array_equal(resumed[name], values)

"""Colosseum Survival!'s solved 3x3 board against a plain exhaustive search and the
reference search, its starts, and the ``perfect`` agent that plays it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agents.colosseum.search import SearchAgent, SearchSettings
from agents.colosseum.solve import decision_value, inner_barriers, position_of, solve
from agents.registry import make_agent
from agents.solved import SolvedTable, table_path
from tests.support.colosseum_plain import exact, near_the_end
from trap_env.agent import UnsupportedGameError
from trap_env.colosseum import rules
from trap_env.colosseum.rules import ColosseumConfig

REACH = 3
"""Positions with at most this many inner barriers left are searched whole."""


@pytest.fixture(scope="module")
def table() -> SolvedTable:
    return solve(3, start=0)  # one start: the table is every start's


def test_the_table_agrees_with_the_plain_search_near_the_end(table: SolvedTable) -> None:
    for state in near_the_end(2000, seed=0, reach=REACH):
        assert decision_value(table, state) == exact(state), rules.to_text(state)


def test_the_reference_search_agrees_with_the_table_near_the_end(table: SolvedTable) -> None:
    # The reference's own search at twice the depth the positions need (its agent answers a
    # lone legal action unsearched). It scores a finished game beyond any evaluation (win
    # or loss plus the margin): the sign of its value is the result.
    for state in near_the_end(200, seed=1, reach=REACH):
        search = SearchAgent(SearchSettings(depth=2 * REACH, time_limit=None)).search
        value = search.value(state, 2 * REACH)
        assert np.sign(value) == decision_value(table, state), rules.to_text(state)


@pytest.mark.parametrize("start", [0, 1, 2])
def test_a_start_is_worth_what_the_plain_search_says(table: SolvedTable, start: int) -> None:
    state = rules.start_state(ColosseumConfig(3), start)
    assert decision_value(table, state) == exact(state)
    if start == 0:
        assert table.report["value"] == table.report["value_turn_limited"] == exact(state)


def test_the_positions_index_the_barriers_both_ways() -> None:
    state = rules.start_state(ColosseumConfig(3), 0)
    barriers, me, other = position_of(state)
    walls = rules.border_walls(3)
    for bit, (cell, side) in enumerate(inner_barriers(3)):
        if barriers >> bit & 1:
            walls = rules.set_wall(3, walls, cell, side)
    assert walls == state.walls and (me, other) == state.cells


def test_perfect_plays_optimal_actions_and_never_loses_a_start(
    table: SolvedTable, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    rules_of_the_agent = {"board_size": 3, "start": -1}
    SolvedTable("colosseum", rules_of_the_agent, table.arrays, table.report).save(
        table_path("colosseum", rules_of_the_agent)
    )
    for seed in range(4):
        perfect = make_agent("perfect", game="colosseum")
        rival = make_agent("random", game="colosseum", seed=seed)
        state = rules.start_state(ColosseumConfig(3), seed)
        while rules.outcome(state) is None:
            if state.player == 0:
                values = perfect.action_values(state)  # type: ignore[attr-defined]
                action = perfect.select_action(state)
                best = max(values.values())
                assert values[action] == best == decision_value(table, state)
                assert action == min(a for a, v in values.items() if v == best)
            else:
                action = rival.select_action(state)
            state = rules.apply(state, action)
        assert exact(rules.start_state(ColosseumConfig(3), seed)) >= 0  # no start is lost
        outcome = rules.outcome(state)
        assert outcome is not None and outcome.winner != 1, seed


def test_perfect_refuses_a_board_with_no_table_nor_search_in_one_line() -> None:
    agent = make_agent("perfect", game="colosseum")
    with pytest.raises(
        UnsupportedGameError,
        match=r"^perfect plays only the solved boards \(3x3; 4x4 by search\), not 5x5$",
    ):
        agent.check_game(ColosseumConfig(5))  # type: ignore[attr-defined]


def test_perfect_values_4x4_moves_by_search_as_the_plain_search_does() -> None:
    perfect = make_agent("perfect", game="colosseum")
    for state in near_the_end(20, seed=5, reach=5, board_size=4):
        values = perfect.action_values(state)  # type: ignore[attr-defined]
        expected = {a: -exact(rules.apply(state, a)) for a in rules.legal_actions(state)}
        assert values == expected, rules.to_text(state)


def test_solve_refuses_a_board_it_does_not_solve() -> None:
    with pytest.raises(ValueError, match=r"^Colosseum is solved on the boards 3x3, and one "
                       r"start at a time \(--rule start=S\) on 4x4; not 4x4 with every start$"):
        solve(4)
    with pytest.raises(ValueError, match=r"; not 5x5$"):
        solve(5, start=0)

"""The exact search of one Colosseum position (agents.colosseum.exact) against the 3x3 table
and the plain exhaustive search, and the shipped sample of solved 4x4 starts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import agents.colosseum
from agents.colosseum.exact import exact_value
from agents.colosseum.solve import decision_value, solve
from agents.solved import SolvedTable
from tests.support.colosseum_plain import exact, near_the_end, played_to_the_end
from trap_env.colosseum import rules
from trap_env.colosseum.rules import ColosseumConfig

SAMPLE_PATH = Path(agents.colosseum.__file__).parent / "solved" / "4x4-sample.json"
SAMPLE: dict[str, Any] = json.loads(SAMPLE_PATH.read_text())
REACH_4X4 = 6
"""4x4 positions with at most this many inner barriers left are searched whole."""


@pytest.fixture(scope="module")
def table() -> SolvedTable:
    return solve(3, start=0)


def test_it_agrees_with_the_3x3_table_on_its_starts_and_near_the_end(table: SolvedTable):
    starts = {rules.start_state(ColosseumConfig(3), number) for number in range(4096)}
    assert len(starts) > 100
    for state in [*starts, *near_the_end(300, seed=2, reach=6)]:
        assert exact_value(state).value == decision_value(table, state), rules.to_text(state)


def test_it_agrees_with_the_plain_search_near_the_end_of_4x4_games():
    for state in near_the_end(60, seed=3, reach=REACH_4X4, board_size=4):
        assert exact_value(state).value == exact(state), rules.to_text(state)


def test_a_finished_game_is_its_score_and_the_chance_node_is_refused():
    state = near_the_end(1, seed=4, reach=1)[0]
    ended = rules.apply(state, rules.legal_actions(state)[0])
    assert rules.outcome(ended) is not None
    assert exact_value(ended).value == exact(ended) and exact_value(ended).nodes == 0
    with pytest.raises(ValueError, match="the start is not drawn yet: give a start number"):
        exact_value(rules.initial_state(ColosseumConfig(4)))


# --- The shipped 4x4 sample ------------------------------------------------------------------


def test_the_sample_holds_consecutive_starts_each_valued():
    starts = SAMPLE["starts"]
    assert SAMPLE["game"] == "colosseum" and SAMPLE["rules"] == {"board_size": 4}
    assert [row["start"] for row in starts] == list(range(len(starts))) and len(starts) >= 400
    assert {row["value"] for row in starts} <= {-1, 0, 1}
    assert SAMPLE["command"].startswith("trap-solve --game colosseum --board-size 4 --rule start=")


def test_the_cheapest_shipped_starts_solve_again_to_their_values():
    for row in sorted(SAMPLE["starts"], key=lambda row: row["nodes"])[:3]:
        solved = exact_value(rules.start_state(ColosseumConfig(4), row["start"]))
        assert (solved.value, solved.nodes, solved.stored) == (
            row["value"], row["nodes"], row["positions"]), row  # fmt: skip


def test_positions_of_shipped_starts_agree_with_the_plain_search_near_the_end():
    checked = 0
    for row in SAMPLE["starts"][:30]:
        start = rules.start_state(ColosseumConfig(4), row["start"])
        for seed in range(8):
            state = played_to_the_end(start, seed, REACH_4X4)
            if state is not None:
                assert exact_value(state).value == exact(state), rules.to_text(state)
                checked += 1
    assert checked >= 10

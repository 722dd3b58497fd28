"""Tests for agents.rating.card_format: the card schema, the check of every card, and what a
card records of the run (software, machine, CPU per turn, the interval)."""

from __future__ import annotations

import copy
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.rating.accuracy import accuracy
from agents.rating.card_format import (
    CARD_FORMAT,
    CARD_KINDS,
    SPEED_UNIT,
    BaseCard,
    Provenance,
    card_schema,
    check_card,
    environment,
    machine,
)
from agents.rating.card_format import write_card as write_package_card
from agents.rating.cards import leaderboard, read_card
from agents.rating.comparison import SprtTest, walk_pairs
from agents.rating.comparison import make_card as make_comparison_card
from agents.rating.estimate import LIKELIHOOD_RATIO, METHOD
from agents.rating.ladder import find_ladder, shipped_ladders
from agents.rating.run import make_card, policy_cpu
from tests.support.results_roots import as_format_1, card_of, write_card
from tests.support.schemas import STRICT, assert_known_schema, places
from tests.support.solved_positions import SAMPLE

SCHEMA = card_schema()
TRAP = find_ladder("trap", version="v1")
WRITTEN = card_of(TRAP, "greedy", {TRAP.rungs[0].spec: (2, 0, 1), TRAP.rungs[1].spec: (1, 1, 1)})
"""A card as the package writes it."""
ACCURACY = json.loads(accuracy("greedy", game="trap", positions=SAMPLE).to_json())
"""An accuracy card as the package writes it."""


def passes(card: object) -> bool:
    try:
        check_card(card)
    except ValueError as error:
        assert "\n" not in str(error)
        return False
    return True


def test_the_schema_is_valid_and_uses_only_what_the_checker_knows():
    assert_known_schema(SCHEMA)
    assert SCHEMA["properties"]["format"]["enum"] == [CARD_FORMAT]


def test_a_written_card_passes_the_check_and_jsonschema():
    assert passes(WRITTEN) and STRICT(SCHEMA).is_valid(WRITTEN)
    assert passes(ACCURACY) and STRICT(SCHEMA).is_valid(ACCURACY)
    assert WRITTEN["format"] == CARD_FORMAT and WRITTEN["kind"] == "rating"


def test_a_card_records_its_software_machine_cpu_and_interval():
    assert {"python", "numpy", "gymnasium"} <= set(WRITTEN["environment"])
    assert WRITTEN["machine"]["cpu"] and WRITTEN["machine"]["speed"] > 0
    assert WRITTEN["interval"] == {"level": 0.95, "method": METHOD}
    # card_of's games: 10 turns each, the policy in seat 0 with 0.01 s and a 0.002 s turn
    assert WRITTEN["policy_cpu"] == {"mean": 0.002, "max": 0.002}
    assert set(environment()) >= {"python", "numpy", "gymnasium"}
    assert machine()["speed_unit"].endswith("per CPU second")


def test_the_libraries_a_policy_loads_in_its_workers_are_on_the_card(monkeypatch):
    pytest.importorskip("pyspiel")
    monkeypatch.delitem(sys.modules, "pyspiel")  # as in a process that never built the bot
    assert "open_spiel" not in environment()
    found = environment(["openspiel-mcts:simulations=2"], "othello")
    assert found["open_spiel"] not in ("", "unknown")
    for spec in ("exec:no-such-program", "nobody", "greedy:x"):  # nothing run, nothing added
        assert environment([spec], "trap").keys() == environment().keys()


def test_a_card_of_the_old_interval_is_still_read_and_another_method_is_refused():
    old = WRITTEN | {"interval": {"level": 0.95, "method": LIKELIHOOD_RATIO}}
    assert passes(old) and STRICT(SCHEMA).is_valid(old)
    assert not passes(WRITTEN | {"interval": {"level": 0.95, "method": "wald"}})


WRITTEN_CARDS = Path(__file__).resolve().parents[2] / "data" / "written_cards"
"""A card of each kind, ``<kind>.json``, as the package wrote it when each kind had its own
JSON code, of the inputs of :func:`card_of_kind` and :data:`PROVENANCE` (with the fields
added since: the rating card's ``scale_low`` and ``scale_high``)."""
PROVENANCE = Provenance(
    "0.0.0", "0" * 40, "2026-01-01", {"python": "3.11.7", "numpy": "2.0.0", "gymnasium": "1.0.0"},
    {"cpu": "a CPU", "speed": 1000.0, "speed_unit": SPEED_UNIT},
)  # fmt: skip


def card_of_kind(kind: str) -> BaseCard:
    """A card of ``kind`` made from fixed inputs, its provenance :data:`PROVENANCE`."""
    if kind == "rating":
        records = [{"pairing": ["greedy", rung.spec], "game_id": f"{rung.spec} #{2 * index}",
                    "winner": winner, "reason": "score", "turns": 10, "cpu_time": [0.01, 0.02],
                    "max_turn_time": [0.002, 0.004]}
                   for rung, winners in zip(TRAP.rungs[:2], ([0, 0, 1], [0, -1, 1]), strict=True)
                   for index, winner in enumerate(winners)]  # fmt: skip
        card: BaseCard = make_card(TRAP, "greedy", 3, records, cpu_cap=1.5,
                                   files={"a.zip": "ab" * 32})  # fmt: skip
    elif kind == "comparison":
        run = {"a": "random", "b": "greedy", "files": {}, "seed": 1}
        card = make_comparison_card(TRAP, run, walk_pairs(SprtTest(), [2.0, 1.5, 1.0, 2.0]),
                                    cpu_cap=1.0)  # fmt: skip
    else:
        card = accuracy("greedy", game="trap", positions=SAMPLE, seed=2)
    return replace(card, provenance=PROVENANCE)


@pytest.mark.parametrize("kind", CARD_KINDS)
def test_each_kind_of_card_writes_the_bytes_it_wrote_before(kind: str, tmp_path: Path):
    path = tmp_path / "new" / "card.json"
    write_package_card(card_of_kind(kind), path)
    assert path.read_bytes() == (WRITTEN_CARDS / f"{kind}.json").read_bytes()


def test_the_policy_cpu_is_its_own_seat_s():
    records = [{"game_id": "random #1", "turns": 4, "cpu_time": [3.0, 1.0],
                "max_turn_time": [2.0, 0.5]}]  # fmt: skip
    assert policy_cpu(records) == {"mean": 0.5, "max": 0.5}
    assert policy_cpu([]) == {"mean": 0.0, "max": 0.0}


def test_each_kind_of_card_needs_its_own_fields_beside_the_common_ones():
    common = {key: WRITTEN[key] for key in SCHEMA["required"]}
    for kind in ("rating", "comparison", "accuracy"):  # without their own fields
        assert not passes(common | {"kind": kind})
        assert not STRICT(SCHEMA).is_valid(common | {"kind": kind})
    with pytest.raises(ValueError, match="the card has no 'ladder'; it needs ladder, "):
        check_card(common | {"kind": "comparison"})


def test_another_format_is_refused_in_one_line_naming_the_formats_read():
    for value in (3, 1, "2", 2.5, True):
        try:
            check_card(WRITTEN | {"format": value})
        except ValueError as error:
            assert "format" in str(error) and "\n" not in str(error)
        else:
            raise AssertionError(value)


WRONG = [None, True, 0, -1, 2, 3, 0.5, 1e300, "", "x", "rating", "comparison", "accuracy", [],
         [1], {}, {"a": 1}, "a" * 65, "0" * 64, "2026-11-28", "v1"]  # fmt: skip
KEYS = ["extra", "format", "kind", "mean", "rating", "python", "cpu", "level", "wins", "move",
        "optimal"]


@st.composite
def mutated_cards(draw: st.DrawFn) -> Any:
    """A written card (a rating's or an accuracy's) with one to three fields replaced,
    removed or added."""
    card: Any = copy.deepcopy(draw(st.sampled_from([WRITTEN, ACCURACY])))
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(places(card)))
        value = copy.deepcopy(draw(st.sampled_from(WRONG)))
        if not where:
            card = value
            continue
        *path, last = where
        target = card
        for key in path:
            target = target[key]
        action = draw(st.sampled_from(["set", "remove", "add"]))
        if action == "add" and isinstance(target[last], dict):
            target[last][draw(st.sampled_from(KEYS))] = value
        elif action == "remove" and isinstance(target, dict):
            del target[last]
        else:
            target[last] = value
    return card


@settings(max_examples=150, deadline=None)
@given(mutated_cards())
def test_the_check_reads_the_schema_as_jsonschema_does(card):
    assert passes(card) == STRICT(SCHEMA).is_valid(card)


def test_a_format_1_card_written_before_stays_readable_and_ranked(tmp_path: Path):
    old = as_format_1(WRITTEN)
    write_card(tmp_path / "old", old)
    write_card(tmp_path / "new", WRITTEN | {"spec": "new"})
    assert read_card(tmp_path / "old" / "card.json") == old
    board = leaderboard(tmp_path)
    assert sorted(row.spec for row in board.boards[TRAP.identity].rows) == ["greedy", "new"]
    assert not board.notes


COMPARISON = {
    "ladder": "v1", "ladder_sha256": "0" * 64, "game": "trap", "params": {}, "a": "random",
    "b": "greedy", "files": {}, "seed": 0, "cpu_cap": 10.0, "elo0": 0.0, "elo1": 50.0,
    "alpha": 0.05, "beta": 0.05, "max_games": 2000, "pentanomial": [0, 1, 2, 3, 4],
    "llr": 1.0, "lower": -2.9444, "upper": 2.9444, "num_games": 20, "decision": "stronger",
    "line": "'greedy' against 'random', 20 games, LLR 1.00 (bounds -2.94, 2.94): stronger",
}  # fmt: skip
"""A comparison card's own fields."""


def test_a_card_of_another_kind_or_format_is_left_out_with_a_note(tmp_path: Path):
    write_card(tmp_path / "cmp", {key: WRITTEN[key] for key in SCHEMA["required"]}
               | COMPARISON | {"kind": "comparison"})  # fmt: skip
    write_card(tmp_path / "future", WRITTEN | {"format": 3})
    write_card(tmp_path / "added", WRITTEN | {"a_later_field": [1]})  # format 2, added to
    board = leaderboard(tmp_path)
    notes = "\n".join(board.notes)
    assert "a card of kind 'comparison', not a rating" in notes and "format is 3" in notes
    assert [row.spec for row in board.boards[TRAP.identity].rows] == ["greedy"]
    assert json.loads((tmp_path / "added" / "card.json").read_text())["a_later_field"] == [1]


def test_the_reference_cards_in_the_docs_are_valid_cards_of_shipped_ladders() -> None:
    identities = {ladder.identity for ladder in shipped_ladders()}
    paths = sorted((Path(__file__).parents[3] / "docs" / "cards").glob("*.json"))
    assert paths
    for path in paths:
        card = json.loads(path.read_text())
        check_card(card)
        assert card["ladder_sha256"] in identities, path.name

"""Tests for agents.rating.cards: cards ranked per shipped ladder, others apart, and what a
results root may hold (non-finite numbers, contradictions, deep trees, odd names, FIFOs)."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.rating import cards
from agents.rating.cards import ladders_by_identity, leaderboard, read_card
from agents.rating.ladder import (
    ANCHOR,
    Ladder,
    Rung,
    ladder_games,
    load_ladder,
    shipped_ladders,
    write_ladder,
)
from tests.support.results_roots import (
    as_format_1,
    card_of,
    deep_tree,
    fifo_released_after,
    write_card,
)

OTHELLO = load_ladder("othello")
GREEDY, DEPTH_2 = OTHELLO.rungs[1].spec, OTHELLO.rungs[3].spec
GOOD = card_of(OTHELLO, "good", {GREEDY: (3, 1, 0), DEPTH_2: (2, 0, 2)})
"""A card whose fields agree, on the shipped Othello ladder."""


def ranked(board: cards.Leaderboard, ladder: Ladder = OTHELLO) -> list[str]:
    return [row.spec for row in board.boards[ladder.identity].rows]


def notes_of(board: cards.Leaderboard) -> str:
    return "\n".join(board.notes)


def shifted(ladder: Ladder, points: float) -> Ladder:
    """``ladder`` with every rung's rating moved by ``points``: an edited ladder."""
    rungs = tuple(Rung(rung.spec, rung.rating + points) for rung in ladder.rungs)
    return dataclasses.replace(ladder, rungs=rungs)


def test_the_shipped_ladders_are_a_set_by_identity() -> None:
    shipped = ladders_by_identity()
    assert sorted({ladder.game for ladder in shipped.values()}) == sorted(ladder_games())
    assert len(shipped) == len(shipped_ladders())
    assert all(key == ladder.identity for key, ladder in shipped.items())


def test_cards_are_ranked_under_their_shipped_ladder_best_first(tmp_path: Path) -> None:
    colosseum = load_ladder("colosseum")
    write_card(tmp_path / "a", GOOD | {"spec": "a"})
    best = OTHELLO.rungs[6].spec
    write_card(tmp_path / "b", card_of(OTHELLO, "b", {best: (4, 0, 0)}))  # > a bound only
    write_card(tmp_path / "c", card_of(colosseum, "c", {colosseum.rungs[0].spec: (1, 0, 1)}))
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "card.json").write_text("[1, 2")
    board = leaderboard(tmp_path)
    assert ranked(board) == ["b", "a"] and ranked(board, colosseum) == ["c"]
    assert board.boards[OTHELLO.identity].name == "othello ladder v1"
    assert not board.apart
    assert board.notes == ["junk/card.json: left out, not a card: not JSON: Expecting ',' "
                           "delimiter: line 1 column 6 (char 5)"]  # fmt: skip


def test_a_card_of_an_edited_ladder_is_listed_apart_with_a_note(tmp_path: Path) -> None:
    """The issue's case: 3520 [3090, 4067] on a ladder shifted by 2000 ranked above all."""
    edited = shifted(OTHELLO, 2000.0)
    write_card(tmp_path / "genuine", GOOD)
    write_card(tmp_path / "edited", card_of(edited, "edited", {GREEDY: (3, 1, 0)}))
    board = leaderboard(tmp_path)
    assert ranked(board) == ["good"]
    [apart] = board.apart
    assert apart.spec == "edited" and apart.rating is not None and apart.rating > 3000
    assert "made on a ladder that is not shipped" in apart.note
    assert edited.identity[:12] in apart.note


def test_an_old_card_without_the_identity_is_matched_by_its_opponents(tmp_path: Path) -> None:
    old = as_format_1(GOOD, "ladder_sha256")
    edited = card_of(shifted(OTHELLO, 2000.0), "edited", {GREEDY: (3, 1, 0)})
    write_card(tmp_path / "old", old | {"spec": "old"})
    write_card(tmp_path / "old-edited", as_format_1(edited, "ladder_sha256"))
    write_card(tmp_path / "old-v0", old | {"spec": "v0", "ladder": "v0",
                                           "line": old["line"].replace("v1", "v0")})  # fmt: skip
    board = leaderboard(tmp_path)
    assert ranked(board) == ["old"]
    notes = {row.spec: row.note for row in board.apart}
    assert set(notes) == {"edited", "v0"}
    assert "records no ladder_sha256" in notes["edited"]
    assert "opponents and their ratings are not the othello ladder v1's" in notes["edited"]
    assert "its ladder is 'v0', not 'v1'" in notes["v0"]


def test_a_card_of_a_later_version_names_its_rules_in_its_line(tmp_path: Path) -> None:
    six = dataclasses.replace(OTHELLO, version="v2", params={"board_size": 6})
    card = card_of(six, "six", {GREEDY: (3, 1, 0)})
    assert card["line"].startswith("othello 6x6 ladder v2: ")
    write_card(tmp_path / "six", card)
    unnamed = card["line"].replace("othello 6x6 ladder", "othello ladder")
    write_card(tmp_path / "unnamed", card | {"spec": "unnamed", "line": unnamed})
    module = card["line"].replace("othello", "os:getcwd")  # a path is never imported
    write_card(tmp_path / "module", card | {"spec": "module", "game": "os:getcwd", "line": module})
    board = leaderboard(tmp_path)
    assert [row.spec for row in board.apart] == ["six"]
    notes = notes_of(board)
    assert "unnamed/card.json: left out, its fields contradict each other: its line" in notes
    assert "module/card.json: left out" in notes and "no registered game" in notes


def each_opponent(change: Callable[[dict[str, Any]], dict[str, Any]]) -> list[dict[str, Any]]:
    return [opponent | change(opponent) for opponent in GOOD["opponents"]]


CONTRADICTIONS: dict[str, dict[str, Any]] = {
    "is outside its interval": {"rating": GOOD["high"] + 100},
    "outside its interval on the ladder's scale": {"scale_low": GOOD["rating"] + 1},
    "is not bounded on the sides its interval": {"scale_high": None},
    "low end above its high end": {"low": GOOD["high"] + 1, "rating": None, "high": GOOD["low"]},
    "num_games": {"num_games": GOOD["num_games"] + 1},
    "line": {"line": "othello ladder v1: 2900 [2800, 3000] (8 games)"},
    "negative count": {
        "opponents": each_opponent(lambda o: {"wins": o["wins"] - 5, "losses": o["losses"] + 5})
    },
    "faults than losses": {"opponents": each_opponent(lambda o: {"faults": o["losses"] + 1})},
    "game": {"game": "trap", "line": GOOD["line"].replace("othello", "trap")},
    "other rules": {"params": GOOD["params"] | {"board_size": 6}},
    "opponents": {"opponents": each_opponent(lambda o: {"rating": o["rating"] + 2000})},
}


SCHEMA_REFUSES = {"negative count"}
"""Contradictions a card of format 2 cannot hold (its schema refuses it first): checked on
one of format 1."""


@pytest.mark.parametrize("words", CONTRADICTIONS)
def test_a_card_whose_fields_contradict_each_other_is_left_out(tmp_path: Path, words: str) -> None:
    write_card(tmp_path / "good", GOOD)
    base = as_format_1(GOOD) if words in SCHEMA_REFUSES else GOOD
    write_card(tmp_path / "bad", base | {"spec": "bad"} | CONTRADICTIONS[words])
    board = leaderboard(tmp_path)
    assert ranked(board) == ["good"] and not board.apart
    assert notes_of(board).startswith("bad/card.json: left out, its fields contradict each other")
    assert words in notes_of(board)


@pytest.mark.parametrize("text", ["NaN", "-Infinity", "Infinity", "1e400"])
def test_a_card_with_a_number_that_is_not_finite_is_left_out(tmp_path: Path, text: str) -> None:
    write_card(tmp_path / "good", GOOD)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "card.json").write_text(
        json.dumps(GOOD).replace(f'"rating": {GOOD["rating"]}', f'"rating": {text}')
    )
    board = leaderboard(tmp_path)
    assert ranked(board) == ["good"]
    assert notes_of(board).startswith("bad/card.json: left out, not a card:")
    assert "finite" in notes_of(board)


def test_a_tree_deeper_than_the_recursion_limit_is_walked_in_part(tmp_path: Path) -> None:
    write_card(tmp_path / "good", GOOD)
    with deep_tree(tmp_path, 1200) as deepest:
        write_card(deepest, GOOD | {"spec": "deep"})
        board = leaderboard(tmp_path)
    assert ranked(board) == ["good"]
    assert board.notes == ["not read: 1 folders more than 32 levels below the root"]


def test_a_folder_name_that_is_not_utf8_is_shown_escaped(tmp_path: Path) -> None:
    folder = Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xff"))
    write_card(folder, GOOD)
    board = leaderboard(tmp_path)
    [row] = board.boards[OTHELLO.identity].rows
    assert row.path == "caf\\xff/card.json"
    json.dumps(dataclasses.asdict(board), ensure_ascii=False).encode("utf-8")


def test_a_fifo_named_card_json_is_left_out_at_once(tmp_path: Path) -> None:
    write_card(tmp_path / "good", GOOD)
    (tmp_path / "fifo").mkdir()
    with fifo_released_after(tmp_path / "fifo" / "card.json"):
        board = leaderboard(tmp_path)
    assert ranked(board) == ["good"]
    assert board.notes == ["fifo/card.json: left out, not a regular file"]


def test_cards_past_the_cap_are_counted_in_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cards, "MAX_CARDS", 2)
    for name in "abcde":
        write_card(tmp_path / name, GOOD | {"spec": name})
    board = leaderboard(tmp_path)
    assert ranked(board) == ["a", "b"]
    assert board.notes == ["3 cards past the first 2 were not read"]


# --- Any card file -------------------------------------------------------------------------

NEEDED = ("benchmark", "ladder", "game", "params", "spec", "num_games", "rating", "low", "high",
          "line", "opponents", "date")  # fmt: skip
"""What a card is ranked by; the others (seed, version, commit, the identity) may be absent."""


def test_a_card_without_a_field_it_is_ranked_by_is_refused(tmp_path: Path) -> None:
    old = as_format_1(GOOD)
    for key in old:
        path = write_card(tmp_path / key, {name: old[name] for name in old if name != key})
        if key in NEEDED:
            with pytest.raises(ValueError, match=r"^not a card|^its"):
                read_card(path)
        else:
            assert read_card(path)["spec"] == "good"
    for key in set(GOOD) - {"format"}:  # format 2 (without it, a card is of format 1)
        path = write_card(tmp_path / "2" / key, {name: GOOD[name] for name in GOOD if name != key})
        needed = rf"^the card has no {key!r}" if key not in SCALE else "both, or neither"
        with pytest.raises(ValueError, match=needed):
            read_card(path)
    written_before = {name: GOOD[name] for name in GOOD if name not in SCALE}
    assert read_card(write_card(tmp_path / "before", written_before))["spec"] == "good"


SCALE = ("scale_low", "scale_high")
"""A rating card's interval on its ladder's scale: both or neither (cards written before it)."""


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)
FIELDS = [*GOOD, "ladder_sha256"]
OPPONENT_FIELDS = [*GOOD["opponents"][0]]


@st.composite
def card_files(draw: st.DrawFn) -> bytes:
    """A card with a few fields (its own or an opponent's) changed, deleted or added, or
    bytes that are no JSON at all."""
    if draw(st.booleans()):
        return draw(st.binary(max_size=40))
    card = json.loads(json.dumps(GOOD))
    for _ in range(draw(st.integers(1, 3))):
        target, opponents = card, card.get("opponents")
        if isinstance(opponents, list) and opponents and draw(st.booleans()):
            target = opponents[draw(st.integers(0, len(opponents) - 1))]
            if not isinstance(target, dict):  # replaced by an earlier change
                continue
        key = draw(st.sampled_from(OPPONENT_FIELDS if target is not card else FIELDS)
                   | st.text(max_size=4))  # fmt: skip
        if draw(st.booleans()):
            target.pop(key, None)
        else:
            target[key] = draw(json_values | st.sampled_from(["\ud800", -1, 10**40, 2**64]))
    return json.dumps(card).encode("utf-8", "surrogatepass")


@settings(max_examples=80, deadline=None)
@given(st.lists(card_files(), min_size=1, max_size=3))
def test_any_card_file_is_read_or_refused_with_a_value_error(files: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for index, content in enumerate(files):
            (root / str(index)).mkdir()
            (root / str(index) / "card.json").write_bytes(content)
            with contextlib.suppress(ValueError):  # anything else fails the test
                read_card(root / str(index) / "card.json")
        board = leaderboard(root)
    rows = [row for ladder in board.boards.values() for row in ladder.rows] + board.apart
    assert len(rows) + len(board.notes) == len(files)
    json.dumps(dataclasses.asdict(board), allow_nan=False, ensure_ascii=False).encode("utf-8")


def test_cards_of_a_v1_and_a_v2_of_the_same_rules_are_never_ranked_together(
    tmp_path: Path, ladders_root: Path
) -> None:
    v2 = dataclasses.replace(OTHELLO, version="v2", covariance=tuple(
        tuple(0.0 if ANCHOR in (i, j) else 100.0 * (i == j) for j in OTHELLO.specs)
        for i in OTHELLO.specs
    ))  # the same rules, rungs and ratings: another version, another scale
    for ladder in (OTHELLO, v2):
        write_ladder(ladder, ladders_root / "othello" / "ladders" / f"{ladder.file_stem}.json")
    write_card(tmp_path / "one", card_of(OTHELLO, "one", {GREEDY: (3, 1, 0)}))
    write_card(tmp_path / "two", card_of(v2, "two", {GREEDY: (3, 1, 0)}))
    board = leaderboard(tmp_path)
    assert ranked(board, OTHELLO) == ["one"] and ranked(board, v2) == ["two"]
    assert board.boards[v2.identity].name == "othello 8x8 ladder v2"
    assert [row.line.split(":")[0] for row in board.boards[v2.identity].rows] == [
        "othello 8x8 ladder v2"
    ]  # the line names the setting
    assert not board.apart and not board.notes

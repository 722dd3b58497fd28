"""Tests for agents.rating.ladder's reader: a ladder file is data, every field checked when read.

A file's rungs are agents of the game by name, never a program or a dotted path it names
(unless the user gave the same spec); each rung plays without a clock; every field has its
type and range; the shape is ``ladder.schema.json``'s, read as jsonschema reads it; and
whatever the bytes, ``load_ladder`` returns a ladder or raises a one-line ValueError, and
``trap-rate --ladder FILE`` answers in one line with exit status 2.
"""

from __future__ import annotations

import copy
import json
import math
import os
import sys
from pathlib import Path
from typing import Any
from unittest import mock

import jsonschema
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from trap_scripts import rate as rate_cli

from agents import make_agent, registry
from agents.arena.record_rules import DrawnRule
from agents.files import game_files
from agents.json_schema import check_json
from agents.rating import ladder as ladder_module
from agents.rating.ladder import (
    MAX_LADDER_BYTES,
    Ladder,
    find_ladder,
    ladder_name,
    ladder_schema,
    ladder_target,
    ladder_version,
    load_ladder,
    new_ladder,
    setting_name,
    shipped_ladders,
    write_ladder,
)
from agents.trap.random_agent import RandomAgent
from tests.support.cli_fuzz import check_command, raise_run_started
from tests.support.crafted_files import assert_one_line
from tests.support.games import SHIPPED as SHIPPED_GAMES
from tests.support.schemas import STRICT, assert_known_schema, places
from trap_env.agent import time_limit_of

IDENTITIES = {
    "trap": "02b772b9c09dfeabbc3cf97ea845f7b1a1358b0cdd36603a7863ce206e7d88c9",
    "othello": "d6460f9f7e634833a4fd8dd827624b97d71485700920fb6e70c2255d826b65db",
    "colosseum": "3b9a5a5380da17ec582da1664d0e4e5c734261c2242a72bd813652fd3525ad40",
}
"""The shipped v1 ladders' identities, which cards record: reading them must not change them."""
NEWER_IDENTITIES = {
    "othello 6x6 ladder v2": "993d8a9b7819dbbb2b8a02df28bdffab61c655ed697946740473aefeec766b1c",
    "colosseum 8x8 ladder v2": "89e289b4e9f24140cf349df9d50af2f35076721fb137177f7c53399afc4c85b0",
    "trap 7x7 ladder v2": "df834287a2e6467fca52ddf74e81d1594ccb34c9cbb31870e9f508717eb8c4d2",
}
"""The identities of the shipped ladders after v1, by name."""



SHIPPED = {
    game: next(text for path in game_files(game, "ladders")
               if json.loads(text := path.read_text())["version"] == "v1")
    for game in SHIPPED_GAMES
}  # fmt: skip
"""Each game's shipped v1 ladder file, as text."""
SCHEMA = ladder_schema()


def shipped(game: str) -> dict[str, Any]:
    """The shipped ladder file of ``game``, as JSON data."""
    return json.loads(SHIPPED[game])


def write(folder: Path, content: object, name: str = "ladder.json") -> Path:
    """``content`` (bytes, text, or JSON data) in the file ``folder/name``."""
    path = folder / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def changed(data: dict[str, Any], where: tuple[Any, ...], value: object) -> dict[str, Any]:
    """A copy of ``data`` with the field at ``where`` set to ``value`` (DELETE: removed)."""
    data = copy.deepcopy(data)
    parent = data
    for key in where[:-1]:
        parent = parent[key]
    if value is DELETE:
        del parent[where[-1]]
    else:
        parent[where[-1]] = value
    return data


DELETE = object()


def refusal(path: Path, **options: Any) -> str:
    """The message ``load_ladder("trap", path)`` refuses the file with (one line, naming it)."""
    with pytest.raises(ValueError) as refused:
        load_ladder("trap", path, **options)
    message = str(refused.value)
    assert message.startswith(f"{path}: ") and "\n" not in message, message
    return message


# --- The shipped ladders --------------------------------------------------------------------


@pytest.mark.parametrize("game", SHIPPED_GAMES)
def test_a_shipped_ladder_loads_as_before_and_every_rung_plays_without_a_clock(game, tmp_path):
    ladder = find_ladder(game, version="v1")
    assert ladder.identity == IDENTITIES[game]
    assert load_ladder(game, write(tmp_path, shipped(game))) == ladder  # the same file, copied
    assert STRICT(SCHEMA).is_valid(shipped(game))
    for spec in ladder.specs:  # the built agent, not the text: it decides by no clock
        assert time_limit_of(make_agent(spec, game=game, seed=0)) is None, spec


def test_every_shipped_ladder_after_v1_loads_as_before_and_plays_without_a_clock():
    newer = [ladder for ladder in shipped_ladders() if ladder.version != "v1"]
    assert {ladder.name: ladder.identity for ladder in newer} == NEWER_IDENTITIES
    for ladder in newer:
        for spec in ladder.specs:
            assert time_limit_of(make_agent(spec, game=ladder.game, seed=0)) is None, spec


# --- A game's ladders, found by their content ------------------------------------------------


def put(root: Path, game: str, name: str, data: dict[str, Any]) -> Path:
    """``data`` as the file ``name`` of ``game``'s ladders folder under ``root`` (the
    lookup, which reads a folder once, reads it afresh)."""
    ladder_module._shipped.cache_clear()
    return write(root / game / "ladders", data, name)


def test_a_ladder_is_found_by_its_content_whatever_its_file_is_named(ladders_root):
    put(ladders_root, "trap", "mine.json", shipped("trap"))
    five = shipped("trap") | {"version": "v2", "params": {"board_size": 5}}
    five["rungs"] = five["rungs"][:2]  # random and greedy, which play any board
    put(ladders_root, "trap", "v1-7x7.json", five)  # a name that says otherwise: for people
    assert find_ladder("trap").identity == IDENTITIES["trap"]
    assert find_ladder("trap", {"board_size": 5}).name == "trap 5x5 ladder v2"
    newer = changed(shipped("trap"), ("version",), "v3")
    put(ladders_root, "trap", "z.json", newer)
    assert find_ladder("trap").version == "v3"  # the newest version of the rules asked
    for version in ("1", "v1", 1):
        assert find_ladder("trap", {"board_size": 7}, version).identity == IDENTITIES["trap"]
    assert [ladder.version for ladder in shipped_ladders("trap")] == ["v1", "v2", "v3"]


def test_two_files_of_the_same_rules_and_version_are_refused_naming_both(ladders_root):
    first = put(ladders_root, "othello", "a.json", shipped("othello"))
    second = put(ladders_root, "othello", "b.json", changed(shipped("othello"), ("seed",), 9))
    with pytest.raises(ValueError) as refused:
        find_ladder("othello")
    both = f"{first} and {second} are both the othello ladder v1 of othello 8x8; keep one"
    assert both in str(refused.value)
    second.unlink()
    put(ladders_root, "othello", "b.json", shipped("trap"))  # a file of another game's ladder
    with pytest.raises(ValueError, match="the ladder of another game than 'othello'"):
        shipped_ladders()


@pytest.mark.parametrize(
    ("game", "params", "version", "words"),
    [
        ("othello", {"board_size": 6, "end_rule": "course"}, None,
         "no ladder of othello 6x6-end_rule=course; the ladders of othello: 8x8 (v1); 6x6 (v2)"),
        ("trap", {"decay": 30}, None,
         "no ladder of trap 7x7-decay=30; the ladders of trap: 7x7 (v1, v2)"),
        ("trap", None, "3", "no v3 ladder of trap 7x7; the ladders of trap: 7x7 (v1, v2)"),
        ("colosseum", {"board_size": 8}, "x",
         "a ladder version is v1, v2, ... (or 1, 2, ...), got 'x'"),
        ("othello", {"end_rule": "chess"}, None, "end_rule"),
    ],
)
def test_rules_or_a_version_without_a_ladder_are_refused_naming_those_that_have_one(
    game, params, version, words
):
    with pytest.raises(ValueError) as refused:
        find_ladder(game, params, version)
    assert words in str(refused.value) and "\n" not in str(refused.value)


def test_a_game_without_a_ladder_says_how_to_make_its_first(ladders_root):
    with pytest.raises(ValueError) as refused:
        load_ladder("trap")
    assert "trap ships no ladder (agents/trap/ladders/); trap-rate --calibrate --rungs random " \
        "... --game trap makes its first" in str(refused.value)


def test_a_new_ladder_is_by_default_the_version_after_the_newest_of_its_own_rules():
    def version(game: str, params: dict[str, Any]) -> str:
        return new_ladder(game, params, ["random", "greedy"]).version

    assert version("othello", {"board_size": 6}) == "v3"  # after the shipped 6x6 v2
    assert version("othello", {"board_size": 8}) == "v2"  # 8x8 has v1 alone
    assert version("trap", {"board_size": 4}) == "v2"  # no 4x4 ladder; v1 is 7x7's


def test_a_setting_is_named_by_its_board_and_the_rules_that_are_not_the_game_s_defaults():
    assert setting_name("trap", {"board_size": 7}) == "7x7" == find_ladder("trap").setting
    assert setting_name("othello", {"board_size": 6, "end_rule": "course"}) == "6x6-end_rule=course"
    assert setting_name("trap", {"decay": 30}) == "7x7-decay=30"
    assert ladder_name("othello", "v1", {"board_size": 6}) == "othello ladder v1"  # as ever
    assert ladder_name("othello", "v2", {"board_size": 6}) == "othello 6x6 ladder v2"
    stems = [ladder.file_stem for ladder in shipped_ladders()]
    assert stems == ["v1-8x8", "v2-8x8", "v1-8x8", "v2-6x6", "v1-7x7", "v2-7x7"]


@given(st.text(max_size=8) | st.integers(-5, 10_001).map(str))
def test_a_version_is_vN_or_N_and_anything_else_a_one_line_refusal(text):
    try:
        version = ladder_version(text)
    except ValueError as error:
        assert str(error).startswith("a ladder version is v1, v2, ...") and "\n" not in str(error)
        return
    assert version == "v" + text.strip().removeprefix("v") and 1 <= int(version[1:]) <= 9999


# --- What a file may name -------------------------------------------------------------------


def test_a_rung_that_is_a_program_or_a_dotted_path_is_refused_unless_the_user_gave_it(tmp_path):
    program = f"exec:{sys.executable} -c pass"
    dotted = "tests.support.faulty_agents.RaisingAgent"
    for spec in (program, dotted):
        path = write(tmp_path, changed(shipped("trap"), ("rungs", 1, "spec"), spec))
        message = refusal(path)
        assert "names no agent of 'trap' (" in message and "exec, " not in message
        assert "given on the command line too" in message
        assert spec in load_ladder("trap", path, allowed_specs=[spec]).specs


def test_a_rung_whose_constructor_raises_is_refused_in_one_line_naming_it():
    spec = "tests.support.faulty_agents.RaisingConstructorAgent"
    words = f"rungs\\[1\\] '{spec}': building agent '{spec}' raised RuntimeError: cannot build"
    with pytest.raises(ValueError, match=words):
        new_ladder("trap", {"board_size": 4}, ["random", spec])


def test_a_registered_agent_is_a_rung_by_its_name(tmp_path, monkeypatch):
    monkeypatch.setitem(registry._REGISTERED, ("trap", "my-rung"), RandomAgent)
    path = write(tmp_path, changed(shipped("trap"), ("rungs", 1, "spec"), "my-rung"))
    assert load_ladder("trap", path).specs[1] == "my-rung"


def test_trap_rate_refuses_a_ladder_that_names_a_program_and_never_runs_it(tmp_path, capsys):
    marker = tmp_path / "ran"
    spec = f"exec:{sys.executable} -c \"open('{marker}', 'w')\""
    weakest = changed(shipped("trap"), ("rungs", 1), {"spec": spec, "rating": 500.0})
    path = write(tmp_path, weakest)  # played first, were the file read as before
    status = rate_cli.main(["random", "--ladder", str(path), "--games", "2", "--workers", "0",
                            "--output", str(tmp_path / "out")])
    assert status == 2 and not marker.exists()
    assert_one_line(capsys.readouterr().err, "trap-rate: error: ", "names no agent of 'trap'")


# --- Every field checked when read ----------------------------------------------------------

RUNG = ("rungs", 1)
CALIBRATION = ("calibration", "games_per_pairing")


@pytest.mark.parametrize(
    ("where", "value", "words"),
    [
        ((*RUNG, "spec"), "random", "rungs[1] 'random' is there twice"),
        ((*RUNG, "rating"), "1000", 'rating must be a number from -10000 to 10000, got "1000"'),
        ((*RUNG, "rating"), True, "rungs[1].rating must be a number"),
        ((*RUNG, "rating"), 10_001, "rungs[1].rating must be a number from -10000 to 10000"),
        (("seed",), "abc", 'seed must be an integer from 0 to 9223372036854775807, got "abc"'),
        (("seed",), -1, "seed must be an integer"),
        (("seed",), 7.0, "seed must be an integer"),
        ((*RUNG, "spec"), "reference", "rungs[1] 'reference': plays by a clock (5 s a turn)"),
        ((*RUNG, "spec"), "alphabeta:depth=2", "plays by a clock (5 s a turn)"),
        ((*RUNG, "spec"), "mcts:simulations=4", "plays by a clock (1 s a turn)"),
        ((*RUNG, "spec"), "greedy:x=1", "'greedy:x=1': agent 'greedy' takes no option 'x'"),
        ((*RUNG, "spec"), "greedy:x", "is not key=value"),
        ((*RUNG, "spec"), "nobody", "rungs[1] 'nobody': names no agent of 'trap'"),
        (CALIBRATION, 1.5, "calibration.games_per_pairing must be an integer from 2 to 1000"),
        (CALIBRATION, "16", "calibration.games_per_pairing must be an integer"),
        (CALIBRATION, 3, "a multiple of 2, got 3"),
        (CALIBRATION, 10_000_000, "calibration.games_per_pairing must be an integer"),
        (("calibration", "seed"), None, "calibration.seed must be an integer"),
        (("calibration", "date"), "soon", "calibration.date must be a string matching"),
        (("rungs",), [], "rungs must be a list of 2 to 32 items, got []"),
        (("rungs",), [{"spec": "random", "rating": 1000.0}], "got a list of 1"),
        (("rungs", 0), DELETE, "rungs has no 'random', the anchor of the scale"),
        (("rungs", 0), "random", "rungs[0] must be an object, got \"random\""),
        ((*RUNG, "seat"), 1, "rungs[1] has an unknown key 'seat'; its keys: spec, rating"),
        ((*RUNG, "rating"), DELETE, "rungs[1] has no 'rating'; it needs spec, rating"),
        (("params",), DELETE, "the ladder has no 'params'"),
        (("opening_ply",), 2, "the ladder has an unknown key 'opening_ply'"),
        (("params", "board_size"), 2, "params: board_size must be an integer from 3"),
        (("params", "rule"), 1, "params: Trap! has no rule parameter ['rule']"),
        (("params", "board_size"), [7], "params.board_size must be a string of at most 1000"),
        (("params", "board_size"), {"a": [7]}, "or null, got an object of 1"),
        (("params", "board_size"), 5, "'mcts:simulations=16,time_limit=none': the mcts network"),
        (("opening_plies",), 5000, "opening_plies must be an integer from 0 to 1000, got 5000"),
        (("opening_plies",), False, "opening_plies must be an integer >= 0, got false"),
        (("version",), "v1\n", 'version must be a string matching ^v[1-9][0-9]{0,3}$, got "v1\\n"'),
        (("game",), "othello", "game is 'othello': the ladder of another game than 'trap'"),
    ],
)
def test_a_field_out_of_type_or_range_is_refused_when_read_naming_it(tmp_path, where, value, words):
    path = write(tmp_path, changed(shipped("trap"), where, value))
    assert words in refusal(path)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "not JSON: Expecting value"),
        ("[]", "the ladder must be an object, got []"),
        ("[" * 100_000, "nested too deeply"),
        (SHIPPED["trap"].replace('"rungs": [', '"rungs": [' + "[" * 900 + "]" * 900 + ",", 1),
         "rungs[0] must be an object, got a list of 1"),
        ('{"seed": 1, "seed": 2}', "the key 'seed' is given twice"),
        ("{" + ",".join(f'"{n}": 0' for n in range(80_000)) + ', "1": 0}', "the key '1' is given"),
        ('{"seed": NaN}', "NaN is not a JSON number"),
        ('{"seed": -Infinity}', "-Infinity is not a JSON number"),
        ('{"seed": 1e400}', "1e400 is too large for a number"),
        ('{"seed": 1' + "0" * 5000 + "}", "an integer of more than 30 digits"),
        (b"\xff\xfe{}", "not UTF-8 text"),
        (b" " * MAX_LADDER_BYTES + b"{}", f"larger than {MAX_LADDER_BYTES} bytes"),
    ],
)
def test_a_file_that_is_no_json_ladder_is_refused_in_one_line(tmp_path, text, words):
    assert words in refusal(write(tmp_path, text))


def test_what_is_no_regular_file_is_refused_without_waiting(tmp_path):
    os.mkfifo(tmp_path / "fifo")  # opened for reading, a FIFO would wait for a writer
    assert "not a regular file" in refusal(tmp_path / "fifo")
    assert "not a regular file" in refusal(tmp_path)
    assert "cannot be read: No such file or directory" in refusal(tmp_path / "none.json")


def test_a_rating_in_a_file_is_a_float_and_an_integer_one_keeps_the_identity(tmp_path):
    whole = changed(shipped("trap"), ("rungs", 0, "rating"), 1000)
    ladder = load_ladder("trap", write(tmp_path, whole))
    assert ladder.rungs[0].rating == 1000.0 and isinstance(ladder.rungs[0].rating, float)
    assert ladder.identity == IDENTITIES["trap"]


def covariance_of(size: int, value: float = 25.0) -> list[list[float]]:
    """A diagonal covariance of ``size`` rungs with the anchor (the first rung) fixed."""
    return [[value if i == j and i else 0.0 for j in range(size)] for i in range(size)]


def test_a_published_covariance_is_read_and_is_part_of_the_identity(tmp_path):
    data = shipped("trap")
    size = len(data["rungs"])
    ladder = load_ladder("trap", write(tmp_path, {**data, "covariance": covariance_of(size)}))
    assert ladder.covariance is not None and ladder.covariance[1][1] == 25.0
    assert ladder.identity != IDENTITIES["trap"]
    again = write(tmp_path, json.loads(ladder.to_json()), "again.json")
    assert load_ladder("trap", again) == ladder
    assert "covariance" not in find_ladder("trap", version="v1").to_json()


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda m: m[:-1], "covariance is not 9x9"),
        (lambda m: [row[:-1] for row in m], "covariance is not 9x9"),
        (lambda m: [[-1.0 if i == j == 2 else v for j, v in enumerate(row)]
                    for i, row in enumerate(m)], "covariance[2][2] is -1; a variance is at least"),
        (lambda m: [[5.0 if (i, j) == (0, 0) else v for j, v in enumerate(row)]
                    for i, row in enumerate(m)], "row or column 0 of the anchor 'random'"),
        (lambda m: [[3.0 if (i, j) == (2, 1) else v for j, v in enumerate(row)]
                    for i, row in enumerate(m)], "covariance[2][1] differs from covariance[1][2]"),
    ],
)
def test_a_covariance_that_is_no_rungs_covariance_is_refused_naming_it(tmp_path, edit, words):
    data = shipped("trap")
    matrix = edit(covariance_of(len(data["rungs"])))
    assert words in refusal(write(tmp_path, {**data, "covariance": matrix}))


# --- The schema -----------------------------------------------------------------------------

def test_the_schema_is_valid_and_uses_only_what_the_reader_knows():
    assert_known_schema(SCHEMA)


WRONG = [None, True, False, 0, -1, 1, 2, 3, 7, 1.5, 16.0, -0.5, 1e300, -1e300, 2**63,
         10_000_000, "", "16", "abc", "v1", "v12345", "2026-11-27", "random", "greedy",
         "reference", "exec:true", "tests.support.faulty_agents.RaisingAgent", [], [1], {},
         {"a": 1}, {"spec": "random", "rating": 1000.0}, {"spec": "greedy"}, "x" * 1001,
         1234.5, "greedy:heuristic=is", "expectiminimax:depth=1,time_limit=none"]  # fmt: skip
"""Values that a mutation puts in a ladder's field: wrong types, edges, near misses."""

KEYS = ["extra", "spec", "rating", "seed", "board_size", "games_per_pairing"]


@st.composite
def mutated_ladders(draw: st.DrawFn, values: list[object] = WRONG) -> tuple[str, Any]:
    """A shipped ladder's data with one to three fields replaced, removed or added."""
    game = draw(st.sampled_from(SHIPPED_GAMES))
    data: Any = shipped(game)
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(places(data)))
        value = copy.deepcopy(draw(st.sampled_from(values)))
        action = draw(st.sampled_from(["set", "remove", "add"]))
        if not where:
            data = value
            continue
        target = data
        for key in where:
            target = target[key]
        if action == "add" and isinstance(target, dict):
            target[draw(st.sampled_from(KEYS))] = value
        elif action == "add" and isinstance(target, list):
            target.insert(draw(st.integers(0, len(target))), value)
        else:
            data = changed(data, where, DELETE if action == "remove" else value)
    return game, data


def passes(data: object) -> bool:
    """Whether the reader's own reading of the schema lets ``data`` through."""
    try:
        check_json(data, SCHEMA, "the ladder")
    except ValueError as error:
        assert "\n" not in str(error)
        return False
    return True


@settings(max_examples=100, deadline=None)
@given(mutated_ladders())
def test_the_reader_reads_the_schema_as_jsonschema_does(mutated):
    _, data = mutated
    assert passes(data) == STRICT(SCHEMA).is_valid(data)


# --- Fuzzed files ---------------------------------------------------------------------------

FUZZ_VALUES = [*WRONG, math.nan, math.inf, -math.inf, "v1\n", "reference:depth=2",
               f"exec:{sys.executable} -c pass", "é\x00\n"]  # fmt: skip


def damaged(text: str) -> st.SearchStrategy[bytes]:
    """``text`` cut short, or with one byte changed."""
    data = text.encode()
    cut = st.integers(0, len(data)).map(lambda end: data[:end])
    flipped = st.tuples(st.integers(0, len(data) - 1), st.integers(0, 255)).map(
        lambda change: data[: change[0]] + bytes([change[1]]) + data[change[0] + 1 :]
    )
    return cut | flipped


ladder_files = st.one_of(
    mutated_ladders(FUZZ_VALUES).map(lambda item: (item[0], json.dumps(item[1]).encode())),
    st.sampled_from(SHIPPED_GAMES).flatmap(
        lambda game: st.tuples(st.just(game), damaged(SHIPPED[game]))
    ),
    st.tuples(st.sampled_from(SHIPPED_GAMES), st.binary(max_size=200)),
)
"""(game, file content): mutated shipped ladders, damaged ones, and garbage."""


@settings(max_examples=80, deadline=None)
@given(ladder_files)
@example(("trap", b"[]"))
@example(("othello", json.dumps(changed(shipped("othello"), ("rungs",), [])).encode()))
def test_a_fuzzed_ladder_file_is_a_ladder_or_a_one_line_value_error(tmp_path_factory, file):
    game, content = file
    path = write(tmp_path_factory.mktemp("ladder"), content)
    try:
        ladder = load_ladder(game, path)
    except ValueError as error:
        assert str(error).startswith(f"{path}: ") and "\n" not in str(error), error
        return
    assert isinstance(ladder, Ladder) and len(ladder.rungs) >= 2
    assert jsonschema.Draft202012Validator(SCHEMA).is_valid(json.loads(content))


@settings(max_examples=40, deadline=None)
@given(ladder_files, st.booleans())
@example(("trap", json.dumps(changed(shipped("trap"), ("rungs",), [])).encode()), False)
def test_trap_rate_answers_a_fuzzed_ladder_file_in_one_line(tmp_path_factory, file, calibrate):
    game, content = file
    folder = tmp_path_factory.mktemp("rate")
    path = write(folder, content)
    argv = [*(["--calibrate"] if calibrate else ["random"]), "--ladder", str(path), "--game",
            game, "--workers", "0", "--output", str(folder / "out")]  # fmt: skip
    with mock.patch.object(rate_cli, "rate_spec", raise_run_started), \
            mock.patch.object(rate_cli, "calibrate_ladder", raise_run_started):  # fmt: skip
        started = check_command(rate_cli.main, argv, "trap-rate")
    try:
        load_ladder(game, path)
    except ValueError:
        assert not started  # a file the reader refuses never starts a run


def test_a_ladder_may_draw_its_board_per_game_from_each_game_s_seed(ladders_root):
    drawn = new_ladder("colosseum", {"board_size": DrawnRule(6, 12)}, ["random", "greedy"],
                       version=2)  # fmt: skip
    assert drawn.params["board_size"] == "6-12" and drawn.setting == "6-12"
    assert (drawn.name, drawn.file_stem) == ("colosseum 6-12 ladder v2", "v2-6-12")
    config = drawn.run_config()
    assert config.rule_params["board_size"] == DrawnRule(6, 12)
    assert {config.rule_params_for(seed)["board_size"] for seed in range(40)} == set(range(6, 13))
    write_ladder(drawn, ladder_target(drawn))
    assert find_ladder("colosseum", {"board_size": DrawnRule(6, 12)}) == drawn
    with pytest.raises(ValueError, match="no ladder of colosseum 8x8"):
        find_ladder("colosseum", {"board_size": 8})
    with pytest.raises(ValueError, match="board_size"):
        new_ladder("colosseum", {"board_size": "6-40"}, ["random", "greedy"], version=2)

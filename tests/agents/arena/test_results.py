"""Tests of agents.arena.results: reading records, the lock, the settings, whole-line appends."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents import make_agent
from agents.arena.match import play_game
from agents.arena.record_rules import DrawnRule
from agents.arena.replays import replay_record
from agents.arena.results import (
    ResultsError,
    ResultsLog,
    ResultsWarning,
    check_record,
    load_results,
    read_results,
)
from tests.support.games import ALL_GAMES, small_rules

RECORD = {
    "game_id": "a vs b #0", "pairing": ["a", "b"], "seats": ["b", "a"], "winner_spec": "a",
    "time_budget": 5.0, "seed": 12, "board_size": 5, "max_turns": 100, "winner": 1,
    "reason": "trapped", "detail": "", "turns": 3, "cpu_time": [0.01, 0.02],
    "max_turn_time": [0.01, 0.01], "actions": [1, 2, 3, 4], "replays": 0, "replay_details": [],
}  # fmt: skip
SETTINGS = {"board_size": 5, "max_turns": 100, "time_budget": 5.0, "wall_ceiling": 11.0}


def line(**changes: object) -> str:
    return json.dumps({**RECORD, **changes}) + "\n"


def test_a_torn_last_line_is_skipped_with_a_warning(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(line(game_id="x") + line(game_id="y")[:30])
    assert read_results(path).torn_tail == line(game_id="y")[:30]
    with pytest.warns(ResultsWarning, match="unfinished last line"):
        assert [r["game_id"] for r in load_results(path)] == ["x"]


@pytest.mark.parametrize(
    ("bad_line", "words"),
    [
        ("{not json\n", "line 2: not JSON"),
        ("[1, 2]\n", "line 2: a game record is a JSON object, got list"),
        (line(reason="bored"), "line 2: 'reason' must be one of trapped"),
        (line(winner=True), "line 2: 'winner' must be -1, 0 or 1"),
        (line(seats=["a", "c"]), "line 2: seats ['a', 'c'] are not the pairing"),
        (line(winner_spec="b"), "line 2: winner_spec 'b' is not the winner's seat's spec 'a'"),
        (line(actions=[1, -2]), "line 2: 'actions' must be a list of cells"),
        (line(decay=1001), "line 2: 'decay' must be an integer per mille in 0..1000"),
        (line(decay="0"), "line 2: 'decay' must be an integer per mille in 0..1000"),
        (line(replays=-1), "line 2: 'replays' must be an integer >= 0"),
        (json.dumps({k: v for k, v in RECORD.items() if k != "seed"}) + "\n", "no 'seed'"),
        ("\xff\n", "line 2: not UTF-8"),
    ],
)
def test_a_bad_line_inside_the_file_is_an_error_naming_it(tmp_path, bad_line, words):
    path = tmp_path / "r.jsonl"
    path.write_bytes(
        (line() + bad_line + line()).encode("latin-1" if "\xff" in bad_line else "utf-8")
    )
    with pytest.raises(ResultsError, match="line 2") as caught:
        read_results(path)
    assert words in str(caught.value)


def test_check_record_accepts_a_record_of_the_runner():
    check_record(RECORD)
    check_record({**RECORD, "winner": -1, "winner_spec": None, "reason": "truncated"})
    check_record({**RECORD, "decay": 0})  # a rule variant names its decay


@given(st.one_of(st.integers(-5, 1005), st.text(max_size=3), st.floats(), st.booleans()))
def test_an_old_records_decay_is_checked_by_its_games_own_rules(decay):
    """A record that names no game is Trap!'s: its game's ``make_config`` (through the
    table of games) says which decays there are, in its own words."""
    from trap_env.games import get_game

    try:
        get_game("trap").make_config(decay=decay)
    except ValueError as error:
        with pytest.raises(ResultsError) as caught:
            check_record({**RECORD, "decay": decay})
        assert str(caught.value) == f"'decay'{str(error).removeprefix('decay')}"
    else:
        check_record({**RECORD, "decay": decay})


@given(st.lists(st.one_of(st.binary(max_size=40), st.sampled_from([line().encode(), b"\n"]))))
def test_any_bytes_read_as_records_or_a_clear_error(tmp_path_factory, chunks):
    path = tmp_path_factory.mktemp("fuzz") / "r.jsonl"
    path.write_bytes(b"".join(chunks))
    try:
        results = read_results(path)
    except ResultsError as error:
        assert "line" in str(error)
        return
    for record in results.records:
        check_record(record)


@given(st.integers(min_value=0, max_value=3 * len(line(game_id="0"))))
def test_a_file_cut_anywhere_keeps_every_whole_record(tmp_path_factory, cut):
    path = tmp_path_factory.mktemp("cut") / "r.jsonl"
    data = "".join(line(game_id=str(i)) for i in range(3)).encode()
    path.write_bytes(data[:cut])
    results = read_results(path)
    size = len(line(game_id="0"))
    is_whole = cut % size in (0, size - 1)  # a record without its newline counts
    whole = (cut + 1) // size
    assert [r["game_id"] for r in results.records] == [str(i) for i in range(whole)]
    assert (results.torn_tail is None) == is_whole


def test_appends_are_whole_lines_flushed_to_disk(tmp_path, monkeypatch):
    synced = []
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd))
    path = tmp_path / "r.jsonl"
    with ResultsLog(path) as log:
        assert log.previous(SETTINGS, resume=False, overwrite=False) == []
        log.start(SETTINGS, keep=False)
        for i in range(3):
            log.append({**RECORD, "game_id": str(i)})
            assert path.read_text().endswith("\n")
    assert len(synced) >= 3
    assert [r["game_id"] for r in load_results(path)] == ["0", "1", "2"]
    assert json.loads((tmp_path / "r.settings.json").read_text()) == SETTINGS


def recorded(path, count=2):
    with ResultsLog(path) as log:
        log.previous(SETTINGS, resume=False, overwrite=True)
        log.start(SETTINGS, keep=False)
        for i in range(count):
            log.append({**RECORD, "game_id": str(i)})


def test_a_file_with_games_is_only_resumed_or_overwritten(tmp_path):
    path = tmp_path / "r.jsonl"
    recorded(path)
    with ResultsLog(path) as log, pytest.raises(ResultsError, match="already holds 2 recorded"):
        log.previous(SETTINGS, resume=False, overwrite=False)
    with ResultsLog(path) as log:
        assert len(log.previous(SETTINGS, resume=True, overwrite=False)) == 2
        assert log.previous(SETTINGS, resume=False, overwrite=True) == []
    path.write_text(line() + "garbled\n")
    with ResultsLog(path) as log:
        with pytest.raises(ResultsError, match=r"line 2: not JSON.*--overwrite"):
            log.previous(SETTINGS, resume=True, overwrite=False)
        assert log.previous(SETTINGS, resume=False, overwrite=True) == []  # replaced unread


def test_resume_with_other_settings_names_each_difference(tmp_path):
    path = tmp_path / "r.jsonl"
    recorded(path)
    other = {**SETTINGS, "board_size": 7, "time_budget": None}
    with ResultsLog(path) as log, pytest.raises(ResultsError) as caught:
        log.previous(other, resume=True, overwrite=False)
    message = str(caught.value)
    assert "board_size 5 there, 7 now" in message and "time_budget 5 there, none now" in message
    assert "max_turns" not in message


def test_resume_of_a_file_without_settings_compares_its_games(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(line())  # written before settings files existed
    with ResultsLog(path) as log, pytest.raises(ResultsError, match="board_size 5 there, 7 now"):
        log.previous({**SETTINGS, "board_size": 7}, resume=True, overwrite=False)


@pytest.mark.parametrize("decay", [None, 0])
def test_a_file_without_settings_is_resumed_only_with_its_games_decay(tmp_path, decay):
    path = tmp_path / "r.jsonl"
    path.write_text(line() if decay is None else line(decay=decay))
    recorded, now = (50, 0) if decay is None else (decay, 50)  # no decay: the default
    with (
        ResultsLog(path) as log,
        pytest.raises(ResultsError, match=f"decay {recorded} there, {now} now"),
    ):
        log.previous({**SETTINGS, "decay": now}, resume=True, overwrite=False)


def test_a_settings_file_from_before_decay_says_the_default(tmp_path):
    path = tmp_path / "r.jsonl"
    recorded(path)  # settings without a decay
    with ResultsLog(path) as log:
        assert log.previous({**SETTINGS, "decay": 50}, resume=True, overwrite=False)
    with ResultsLog(path) as log, pytest.raises(ResultsError, match="decay 50 there, 0 now"):
        log.previous({**SETTINGS, "decay": 0}, resume=True, overwrite=False)


def test_resume_cuts_a_torn_line_and_reports_it(tmp_path):
    path = tmp_path / "r.jsonl"
    recorded(path)
    with open(path, "a") as file:
        file.write(line()[:25])
    notes = []
    with ResultsLog(path, notes.append) as log:
        log.previous(SETTINGS, resume=True, overwrite=False)
        log.start(SETTINGS, keep=True)
        log.append({**RECORD, "game_id": "2"})
    assert [r["game_id"] for r in load_results(path)] == ["0", "1", "2"]
    assert len(notes) == 1 and "unfinished last line" in notes[0]


HOLD_LOCK = """
import sys, time
from agents.arena.results import ResultsLog
with ResultsLog(sys.argv[1]) as log:
    log.acquire()
    print("locked", flush=True)
    time.sleep(30)
"""


def test_a_second_run_is_refused_while_the_first_holds_the_lock(tmp_path):
    path = tmp_path / "r.jsonl"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(ResultsError, match=f"another run \\(process {holder.pid}\\)"):
            ResultsLog(path).__enter__()
    finally:
        holder.kill()
        holder.wait()
    with ResultsLog(path):  # released when its holder ends
        pass


def test_a_file_another_run_made_since_this_one_was_checked_is_refused(tmp_path):
    # Neither run finds the file, so neither holds it while it is checked: the second to
    # make it is refused, and the first's file is left to it.
    path = tmp_path / "out" / "r.jsonl"
    with ResultsLog(path) as first, ResultsLog(path) as second:
        for log in (first, second):
            assert log.previous(SETTINGS, resume=False, overwrite=False) == []
        assert not path.parent.exists()  # nothing made while checking
        first.start(SETTINGS, keep=False)
        first.append(RECORD)
        with pytest.raises(ResultsError, match=f"^another run made {path} while this one"):
            second.start(SETTINGS, keep=False)
    assert load_results(path) == [RECORD]


def test_a_record_names_its_game_and_one_without_is_trap():
    from agents.arena.match import FAULTS
    from agents.arena.record_rules import rule_fields
    from agents.arena.results import check_record, end_reasons, record_game

    assert rule_fields("trap", {"board_size": 7, "decay": 50}) == {
        "game": "trap", "rules": {"board_size": 7, "decay": 50}
    }  # fmt: skip
    assert record_game({}) == "trap"
    assert end_reasons("trap") == ("trapped", "truncated", *FAULTS)
    record = {
        "game_id": "a vs b #0", "pairing": ["a", "b"], "seats": ["a", "b"], "winner_spec": "a",
        "seed": 0, "board_size": 5, "max_turns": 100, "winner": 0, "reason": "trapped",
        "detail": "", "turns": 3, "cpu_time": [0.0, 0.0], "max_turn_time": [0.0, 0.0],
        "actions": [],
    }  # fmt: skip
    check_record(record)
    check_record({**record, "game": "trap"})
    with pytest.raises(ResultsError, match="'game' must be a game's name"):
        check_record({**record, "game": "chess"})
    with pytest.raises(ResultsError, match="'reason' must be one of trapped, truncated"):
        check_record({**record, "reason": "checkmate"})


def test_reading_a_file_never_imports_the_game_path_it_names(tmp_path, planted_game):
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(planted_game.record) + "\n")
    refused = "'game' must be a game's name .*got 'planted_game:GAME'"
    for read in (read_results, load_results, lambda _: check_record(planted_game.record)):
        with pytest.raises(ResultsError, match=refused):
            read(path)
    with pytest.raises(ValueError, match="'planted_game:GAME' is a path"):
        replay_record(planted_game.record)
    with ResultsLog(path) as log, pytest.raises(ResultsError, match=refused):
        log.previous(SETTINGS, resume=True, overwrite=False)  # a run of Trap!
    assert not planted_game.was_imported()
    given = (planted_game.path,)  # the same path given as the game: read, and imported
    assert read_results(path, allow_paths=given).records == [planted_game.record]
    assert planted_game.was_imported()


def test_resume_over_a_record_of_another_game_is_refused(tmp_path):
    path = tmp_path / "r.jsonl"
    recorded(path)
    seats = [make_agent("random", game="othello", seed=seat) for seat in (0, 1)]
    trap_fields = {name: value for name, value in RECORD.items() if name != "board_size"}
    othello = {**trap_fields, **play_game(seats, seed=0, game="othello").to_dict()}
    othello["winner_spec"] = None if othello["winner"] < 0 else othello["seats"][othello["winner"]]
    with open(path, "a") as file:
        file.write(json.dumps(othello) + "\n")
    with ResultsLog(path) as log, pytest.raises(ResultsError) as caught:
        log.previous(SETTINGS, resume=True, overwrite=False)
    assert "game 3 ('a vs b #0') is a game of othello, this run plays trap" in str(caught.value)


@pytest.mark.parametrize("linked", ["r.jsonl", "r.settings.json"])
def test_a_results_or_settings_file_that_is_a_link_is_refused(tmp_path, linked):
    target = tmp_path / "precious.txt"
    target.write_text("precious\n")
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / linked).symlink_to(target)
    with pytest.raises(ResultsError) as caught, ResultsLog(folder / "r.jsonl") as log:
        log.previous(SETTINGS, resume=False, overwrite=True)
        log.start(SETTINGS, keep=False)
    assert f"{folder / linked} is a symbolic link" in str(caught.value)
    assert "\n" not in str(caught.value) and target.read_text() == "precious\n"


def test_a_run_leaves_no_lock_file_and_follows_no_old_one(tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("precious\n")
    linked = tmp_path / "linked"
    linked.symlink_to(tmp_path / "out", target_is_directory=True)
    (tmp_path / "out").mkdir()
    recorded(linked / "r.jsonl")  # a linked output folder is fine
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["r.jsonl", "r.settings.json"]
    (tmp_path / "out" / "r.lock").symlink_to(target)  # an old run's lock, or a planted link
    with ResultsLog(linked / "r.jsonl") as log:
        assert len(log.previous(SETTINGS, resume=True, overwrite=False)) == 2
        log.start(SETTINGS, keep=True)
        log.append({**RECORD, "game_id": "2"})
    assert target.read_text() == "precious\n" and len(load_results(linked / "r.jsonl")) == 3


def test_a_results_file_replaced_during_a_run_is_noticed_and_its_games_kept(tmp_path):
    path = tmp_path / "r.jsonl"
    with ResultsLog(path) as log:
        log.previous(SETTINGS, resume=False, overwrite=False)
        log.start(SETTINGS, keep=False)
        for i in range(2):
            log.append({**RECORD, "game_id": str(i)})
        log.check_in_place()
        saved = tmp_path / "r.jsonl.edited"  # an editor's save: a new file renamed over it
        saved.write_text(path.read_text()[:-1])
        os.replace(saved, path)
        with pytest.raises(ResultsError) as caught:
            log.check_in_place()
        with pytest.raises(ResultsError):
            log.append({**RECORD, "game_id": "2"})
    rescue = tmp_path / f"r.{os.getpid()}.jsonl"
    message = str(caught.value)
    assert f"{path} was replaced" in message and str(rescue) in message and "\n" not in message
    assert [r["game_id"] for r in load_results(rescue)] == ["0", "1", "2"]


@given(st.sampled_from(ALL_GAMES), st.sampled_from([6, 8, 10]), st.data())
def test_the_one_reader_reads_what_the_one_writer_writes(game, size, data):
    """Every game's rule dictionary goes into a record's fields and comes back the same."""
    from agents.arena.record_rules import record_params, rule_fields
    from trap_env.games import get_game

    found = get_game(game)
    others = {
        "trap": {"decay": data.draw(st.integers(0, 1000))},
        "othello": {"end_rule": data.draw(st.sampled_from(["standard", "course"]))},
    }.get(game, {})
    params = found.config_params(found.make_config(**small_rules(game, board_size=size, **others)))
    read = record_params(rule_fields(game, params))
    assert found.config_params(found.make_config(**read)) == params


def test_records_written_so_far_are_read_in_their_own_shape():
    """Trap!'s old records name no game and hold decay only off its default; other games'
    hold their board size beside their rules; records now hold every rule in ``rules``."""
    from agents.arena.record_rules import record_params, rule_fields

    assert record_params({"board_size": 5}) == {"board_size": 5}
    assert record_params({"board_size": 5, "decay": 0}) == {"board_size": 5, "decay": 0}
    old_othello = {"game": "othello", "board_size": 6, "rules": {"end_rule": "course"}}
    assert record_params(old_othello) == {"board_size": 6, "end_rule": "course"}
    for game, params in [("trap", {"board_size": 5, "decay": 50}), ("race", {"goal": 4})]:
        assert rule_fields(game, params) == {"game": game, "rules": params}
        assert record_params(rule_fields(game, params)) == params


@pytest.mark.parametrize(
    ("settings", "rules"),
    [
        ({"board_size": 5}, {"board_size": 5}),  # Trap!'s, from before the decay was one
        ({"board_size": 7, "decay": 0, "board_sizes": [6, 8]},
         {"decay": 0, "board_size": DrawnRule(6, 8)}),
        ({"game": "othello", "board_size": 7, "decay": 50}, {}),  # Trap!'s fields, not played
        ({"game": "colosseum", "board_sizes": [5, 7]}, {"board_size": DrawnRule(5, 7)}),
        ({"game": "trap", "rules": {"decay": 0}, "drawn_rules": {"board_size": [6, 8]}},
         {"decay": 0, "board_size": DrawnRule(6, 8)}),
    ],
)  # fmt: skip
def test_settings_of_every_shape_give_their_rules(settings, rules):
    from agents.arena.record_rules import settings_rules

    assert settings_rules(settings) == rules


@given(
    st.dictionaries(st.sampled_from(["board_size", "decay"]), st.integers(0, 12), max_size=2),
    st.one_of(st.none(), st.tuples(st.integers(3, 6), st.integers(0, 3))),
)
def test_the_settings_a_run_writes_read_back_as_its_rules(fixed, sizes):
    """What :meth:`RunConfig.settings` writes reads back as the run's rules, defaults
    filled in: a resumed run is the same run."""
    from agents.arena.plan import RunConfig
    from agents.arena.record_rules import settings_rules

    drawn = {} if sizes is None else {"board_size": DrawnRule(sizes[0], sum(sizes))}
    params = dict(fixed) | drawn
    try:
        config = RunConfig(game_name="trap", params=params)
    except ValueError:
        return  # rules the game refuses
    written = json.loads(json.dumps(config.settings()))
    defaults = {"board_size": 7, "decay": 50}
    assert settings_rules(written) == defaults | params

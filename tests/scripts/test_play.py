"""trap-play --replay: every record is replayed through the core before it is shown."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from trap_scripts import evaluate, play, tournament

from agents import make_agent
from agents.arena.match import play_game
from tests.support.old_records import old_shape


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """Four genuine records of 5x5 games, as trap-evaluate writes them."""
    folder = tmp_path_factory.mktemp("evaluate")
    argv = ["--agents", "random", "agents.trap.random_agent.RandomAgent", "--games", "4"]
    quick = ["--board-size", "5", "--workers", "0", "--quiet", "--no-plot"]
    assert evaluate.main([*argv, *quick, "--output", str(folder)]) == 0
    lines = (folder / "results.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


@pytest.fixture(scope="module")
def variant_records(tmp_path_factory: pytest.TempPathFactory) -> dict[int, list[dict[str, Any]]]:
    """Records of 5x5 games played with decay 0 and 1000, as trap-tournament writes them."""
    found = {}
    for decay in (0, 1000):
        folder = tmp_path_factory.mktemp(f"decay{decay}")
        argv = ["random", "agents.trap.random_agent.RandomAgent"]
        argv += ["--games", "4", "--decay", str(decay)]
        quick = ["--board-size", "5", "--workers", "0", "--quiet", "--no-plot"]
        with contextlib.redirect_stdout(io.StringIO()):
            assert tournament.main([*argv, *quick, "--output", str(folder)]) == 0
        lines = (folder / "results.jsonl").read_text().splitlines()
        found[decay] = [json.loads(line) for line in lines]
    return found


def replay_status(
    path: Path, record: object, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """trap-play --replay of a file holding ``record``: the exit status and stderr."""
    path.write_text(json.dumps(record) + "\n")
    capsys.readouterr()
    try:
        status = play.main(["--replay", str(path), "--index", "0"])
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    return status, capsys.readouterr().err


def changed(record: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {**record, **fields}


def with_rules(record: dict[str, Any], **rules: Any) -> dict[str, Any]:
    return {**record, "rules": {**record["rules"], **rules}}


def winner_fields(record: dict[str, Any], winner: int) -> dict[str, Any]:
    """``winner`` and the ``winner_spec`` that agrees with it."""
    return {"winner": winner, "winner_spec": None if winner < 0 else record["seats"][winner]}


TAMPERED = [
    ("an illegal action", lambda r: changed(r, actions=[0, *r["actions"][1:]]), "action 0 of"),
    ("actions cut short", lambda r: changed(r, actions=r["actions"][:-1]), "its actions"),
    ("the other winner", lambda r: changed(r, **winner_fields(r, 1 - r["winner"])), "winner"),
    ("a draw claimed", lambda r: changed(r, reason="truncated", **winner_fields(r, -1)), "trap"),
    ("wrong turns", lambda r: changed(r, turns=r["turns"] + 1), "turns"),
    ("another board", lambda r: with_rules(r, board_size=7), "action"),
    ("a huge board", lambda r: with_rules(r, board_size=10**9), "board_size must be"),
    ("no actions", lambda r: changed(r, actions=[]), "its actions"),
    ("a bad decay", lambda r: with_rules(r, decay=1001), "decay must be an integer per mille"),
    ("a board said twice", lambda r: changed(r, board_size=7), "contradict"),
    ("an old record's bad decay", lambda r: old_shape(r, decay=1001),
     "'decay' must be an integer per mille"),
]


@pytest.mark.parametrize(("name", "tamper", "message"), TAMPERED, ids=[t[0] for t in TAMPERED])
def test_a_tampered_record_is_refused_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    records: list[dict[str, Any]],
    name: str,
    tamper: Any,
    message: str,
) -> None:
    record = next(r for r in records if r["reason"] == "trapped")
    status, err = replay_status(tmp_path / "results.jsonl", tamper(record), capsys)
    assert status == 2 and message in err, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("trap-play: error:")


def test_a_genuine_record_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], records: list[dict[str, Any]]
) -> None:
    for record in records:
        assert play.replay_record(record)[-1][0].winner == record["winner"]
    status, err = replay_status(tmp_path / "results.jsonl", records[0], capsys)
    assert status == 0 and err == ""


@pytest.mark.parametrize("decay", [0, 1000])
def test_a_record_replays_under_its_recorded_decay(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    variant_records: dict[int, list[dict[str, Any]]],
    decay: int,
) -> None:
    for record in variant_records[decay]:
        final, _ = play.replay_record(record)[-1]
        assert record["rules"]["decay"] == final.decay == decay
        assert final.winner == record["winner"]
    status, err = replay_status(tmp_path / "results.jsonl", variant_records[decay][0], capsys)
    assert status == 0 and err == ""


def test_a_record_replayed_under_another_decay_is_refused(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    variant_records: dict[int, list[dict[str, Any]]],
) -> None:
    # With decay 1000 a throw two or more steps away lands beside its target; with 0, never.
    record = with_rules(variant_records[1000][0], decay=0)
    status, err = replay_status(tmp_path / "results.jsonl", record, capsys)
    assert status == 2 and "landing on" in err and len(err.strip().splitlines()) == 1


def test_a_truncated_game_replays_to_its_turn_limit() -> None:
    agents = [make_agent("random", game="trap"), make_agent("random", game="trap")]
    record = play_game(agents, seed=0, params={"board_size": 7}, max_turns=2, game="trap").to_dict()
    assert record["reason"] == "truncated"
    assert play.replay_record(record)[-1][0].turn == 2
    with pytest.raises(ValueError, match="max_turns 3"):
        play.replay_record(changed(record, max_turns=3))
    with pytest.raises(ValueError, match="max_turns must be an integer"):
        play.replay_record(changed(record, max_turns=1))


def test_a_fault_is_charged_to_the_seat_to_act(records: list[dict[str, Any]]) -> None:
    record = records[0]
    # Seat 0 moved, then failed to throw: seat 1 wins.
    fault = changed(record, actions=record["actions"][:1], reason="illegal", turns=0)
    play.replay_record(changed(fault, **winner_fields(record, 1)))
    with pytest.raises(ValueError, match="winner 0"):
        play.replay_record(changed(fault, **winner_fields(record, 0)))


def test_a_record_without_actions_is_only_a_fault_before_the_first_move(
    records: list[dict[str, Any]],
) -> None:
    empty = changed(records[0], actions=[], turns=0)
    for winner in (0, 1):  # a failed reset, of either seat
        play.replay_record(changed(empty, reason="exception", **winner_fields(empty, winner)))
    with pytest.raises(ValueError, match="its actions go on"):
        play.replay_record(changed(empty, reason="trapped"))
    with pytest.raises(ValueError, match="max_turns"):
        play.replay_record(changed(empty, reason="truncated", **winner_fields(empty, -1)))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = st.sampled_from(
    [
        "board_size",
        "actions",
        "winner",
        "reason",
        "turns",
        "max_turns",
        "seats",
        "winner_spec",
        "decay",
        "rules",
        "game",
    ]
)


@given(data=st.data())
def test_fuzzed_records_give_a_replay_or_a_one_line_error(
    tmp_path_factory: pytest.TempPathFactory, records: list[dict[str, Any]], data: st.DataObject
) -> None:
    record = dict(data.draw(st.sampled_from(records)))
    for field in data.draw(st.lists(FIELDS, min_size=1, max_size=3)):
        record[field] = data.draw(
            JSON | st.lists(st.integers(-2, 30), max_size=60) | st.integers(-3, 200), label=field
        )
    try:
        play.replay_record(record)
    except ValueError as error:
        assert "\n" not in str(error)
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / "results.jsonl"
    path.write_text(json.dumps(record) + "\n")
    status, err = quiet_main(["--replay", str(path), "--gif", str(folder / "g.gif")])
    assert status in (0, 2) and len(err.splitlines()) == (status == 2)


@given(st.binary(max_size=200) | JSON.map(lambda value: json.dumps(value).encode()))
def test_fuzzed_files_give_a_one_line_error(
    tmp_path_factory: pytest.TempPathFactory, content: bytes
) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "results.jsonl"
    path.write_bytes(content)
    status, err = quiet_main(["--replay", str(path)])
    assert status == 2 and len(err.splitlines()) == 1 and err.startswith("trap-play: error:")


def quiet_main(argv: list[str]) -> tuple[int, str]:
    """``play.main(argv)``'s status and stderr, its stdout discarded."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = play.main(argv)
    return status, err.getvalue()


def test_a_missing_model_file_and_an_unsupported_board_are_one_line_errors(
    tmp_path: Path,
) -> None:
    status, err = quiet_main(["mcts:path=" + str(tmp_path / "none.npz"), "random"])
    assert status != 0 and err.count("\n") == 1 and "none.npz" in err
    status, err = quiet_main(["ppo", "random", "--board-size", "5"])
    assert status != 0 and err.count("\n") == 1 and "board_size=5" in err


def test_game_n_with_replay_is_a_one_line_error_naming_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], records: list[dict[str, Any]]
) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records[:2]))
    capsys.readouterr()
    assert play.main(["--replay", str(path), "--game", "1"]) == 2
    assert capsys.readouterr().err == (
        "trap-play: error: --game takes a game's name, not a record's number: replay record 1 "
        "with --index 1\n"
    )
    assert play.main(["--replay", str(path), "--index", "1"]) == 0


def test_an_unknown_game_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert play.main(["random", "random", "--game", "chess"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown game 'chess'" in err and "trap" in err


def test_game_trap_plays_as_without_it(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["random", "greedy", "--board-size", "5", "--seed", "4"]
    assert play.main(argv) == 0
    plain = capsys.readouterr().out
    assert play.main([*argv, "--game", "trap"]) == 0
    assert capsys.readouterr().out == plain


def test_a_replay_imports_a_records_game_path_only_when_it_is_given(
    tmp_path: Path, planted_game: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "results.jsonl"
    status, err = replay_status(path, planted_game.record, capsys)
    assert status == 2 and err.count("\n") == 1 and "'planted_game:GAME'" in err
    assert not planted_game.was_imported()
    assert play.main(["--replay", str(path), "--game", planted_game.path]) == 0
    assert planted_game.was_imported()

"""``trap-solve``: one JSON line, cached under the user's cache folder, one-line refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from trap_scripts import solve as solve_cli
from trap_scripts.solve import main


def test_it_prints_one_json_line_and_reads_the_cache_next_time(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    # decay=0: every throw lands, so the solve takes the turn limit's sweeps and no more.
    argv = ["--game", "trap", "--board-size", "3", "--rule", "decay=0"]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["rules"] == {"board_size": 3, "decay": 0}
    assert first["value"] == first["value_turn_limited"] == 1.0
    assert first["positions"] == 18432 and not first["cached"]
    assert {"seconds", "peak_memory_mb"} <= set(first)
    assert main(argv) == 0
    again = json.loads(capsys.readouterr().out)
    assert again == {**first, "cached": True}


def test_a_value_the_bounds_do_not_pin_is_printed_as_its_interval(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    # decay=1000: play can go on forever, and how it is scored changes the value (183 sweeps);
    # on a board perfect plays no more a strategy certifies it (a minute of CPU): not here.
    monkeypatch.setattr("agents.trap.solve.SOLVED_SIZES", ())
    assert main(["--game", "trap", "--board-size", "3", "--rule", "decay=1000"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert "value" not in line and line["value_low"] < line["value_high"]
    assert line["stopped"] == "still" and line["positions_open"] > 0
    assert {"value_turn_limited", "iterations", "seconds", "peak_memory_mb"} <= set(line)


def test_it_solves_a_colosseum_start(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert main(["--game", "colosseum", "--board-size", "3", "--rule", "start=0"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["rules"] == {"board_size": 3, "start": 0}
    assert line["value"] == line["value_turn_limited"] == 1.0  # A wins start 0
    assert line["positions"] == 2**12 * 9 * 8


def test_it_solves_othello_4x4_with_its_disc_counts_and_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("numba", reason="Othello's solver is the solve extra's (numba)")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    argv = ["--game", "othello", "--board-size", "4"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    first = json.loads(out)
    assert out.count("\n") == 1 and first["rules"] == {"board_size": 4, "end_rule": "standard"}
    assert (first["value"], first["margin"], first["discs"]) == (-1.0, -8, [3, 11])
    assert first["principal_variation"][0] == "b1" and not first["cached"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out) == {**first, "cached": True}


def test_it_solves_one_colosseum_4x4_start(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert main(["--game", "colosseum", "--board-size", "4", "--rule", "start=10"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["rules"] == {"board_size": 4, "start": 10}
    assert line["value"] == line["value_turn_limited"] == 0.0  # as shipped in the sample
    assert line["nodes"] >= line["positions"] > 0 and not line["cached"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--board-size", "5"], "Trap! is solved on the boards 3x3, 4x4, not 5x5"),
        (["--game", "colosseum", "--board-size", "4"], "on 4x4; not 4x4 with every start"),
        (["--game", "colosseum", "--board-size", "5", "--rule", "start=0"], "; not 5x5"),
        (["--game", "othello", "--board-size", "8"], "Othello is solved on the boards 4x4, 6x6"),
        (["--board-size", "3-4"], "board_size"),
    ],
)
def test_it_refuses_what_it_does_not_solve_in_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("trap-solve: error: ") and message in err and err.count("\n") == 1


def test_positions_are_drawn_into_a_file_that_records_its_command(
    solved_cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agents.solved_positions import read_positions

    argv = ["--board-size", "3", "--positions", str(tmp_path / "p.npz"), "--rungs", "random",
            "greedy", "--per-decision", "5", "--seed", "2"]  # fmt: skip
    assert main(argv) == 0
    drawn = json.loads(capsys.readouterr().out)["drawn"]
    positions = read_positions(tmp_path / "p.npz")
    assert drawn == {"file": str(tmp_path / "p.npz"), "positions": len(positions),
                     "sha256": positions.sha256} and 0 < len(positions) <= 10  # fmt: skip
    assert positions.drawn["command"] == (
        "trap-solve --game trap --rule=board_size=3 --rule=decay=50 --positions FILE --rungs "
        "random greedy --per-decision 5 --seed 2"
    )


def test_positions_of_a_board_perfect_plays_by_search_are_drawn_without_a_value(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Colosseum 4x4 has no table: its perfect agent searches each move. One game is enough.
    draw = solve_cli.draw_positions
    monkeypatch.setattr(
        solve_cli,
        "draw_positions",
        lambda *args, **kwargs: draw(*args, **kwargs, games_per_pairing=1),
    )
    argv = ["--game", "colosseum", "--board-size", "4", "--positions", str(tmp_path / "p.npz"),
            "--rungs", "greedy", "--per-decision", "3"]  # fmt: skip
    assert main(argv) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["rules"] == {"board_size": 4, "start": -1} and "value" not in line
    assert 0 < line["drawn"]["positions"] <= 3


def test_an_othello_6x6_endgame_set_is_drawn_without_solving_the_start(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("numba", reason="the endgame solver is the solve extra's (numba)")
    from agents.solved_positions import read_positions

    def no_solve(*args: object) -> None:
        raise AssertionError("the 6x6 start is solved in hours: an endgame set must not ask")

    draw = solve_cli.draw_positions
    monkeypatch.setattr(solve_cli, "load_or_solve", no_solve)
    monkeypatch.setattr(
        solve_cli,
        "draw_positions",
        lambda *args, **kwargs: draw(*args, **kwargs, games_per_pairing=1),
    )
    argv = ["--game", "othello", "--board-size", "6", "--positions", str(tmp_path / "p.npz"),
            "--rungs", "random", "greedy", "--per-decision", "3"]  # fmt: skip
    assert main(argv) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["rules"] == {"board_size": 6, "end_rule": "standard"} and "value" not in line
    positions = read_positions(tmp_path / "p.npz")
    assert 0 < len(positions) <= 3 and positions.endgame == "positions with at most 12 empty cells"
    assert 0 < positions.drawn["endgame"]["reached"] < positions.drawn["candidates"]


@pytest.mark.parametrize("flag", [["--seed", "1"], ["--rungs", "random"], ["--per-decision", "3"]])
def test_the_drawing_options_go_with_positions(
    flag: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--board-size", "3", *flag])
    assert exited.value.code == 2
    assert f"{flag[0]} goes with --positions" in capsys.readouterr().err

"""The CSC384 course adapter (:mod:`agents.othello.course`, run by the manager through
``examples/othello_csc384_ai.py``) under a stand-in of the course's manager
(:mod:`tests.support.othello_course_manager`): whole games from another directory, both forms of
the colour line, legal moves only, and its parsing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents.othello import course
from tests.support import othello_course_manager as manager
from trap_env.othello import rules

ROOT = Path(__file__).resolve().parents[3]
AI_FILE = ROOT / "examples" / "othello_csc384_ai.py"


def ai_env(seconds: str = "0.05") -> dict[str, str]:
    """The environment of an installed package (here: this checkout on the path) and a
    short time limit, so that a whole game takes seconds."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env["OTHELLO_AI_TIME_LIMIT"] = seconds
    return env


def players(tmp_path: Path, colour_only: bool) -> list[manager.AiPlayer]:
    command = [sys.executable, str(AI_FILE)]
    return [
        manager.AiPlayer(command, color, colour_only=colour_only, cwd=str(tmp_path), env=ai_env())
        for color in (1, 2)
    ]


def check_finished(record: manager.GameRecord, dimension: int) -> None:
    """The game ran to the course's end: the player to act (or both) had no move."""
    dark, light = manager.get_score(record.board)
    assert dark + light == 4 + len(record.moves)
    to_act = 1 if len(record.moves) % 2 == 0 else 2
    assert not manager.get_possible_moves(record.board, to_act)
    assert [player for player, _, _ in record.moves][:2] == [1, 2]
    assert len(record.moves) <= dimension * dimension - 4


def test_a_whole_6x6_game_under_the_csc384_manager(tmp_path: Path) -> None:
    ais = players(tmp_path, colour_only=False)
    assert [ai.name for ai in ais] == ["trap_env reference (alpha-beta)"] * 2
    record = manager.play_game(6, ais)  # raises on any illegal move or a late answer
    check_finished(record, 6)
    assert len(record.moves) >= 20


def test_a_whole_8x8_game_with_the_colour_alone_and_final_read(tmp_path: Path) -> None:
    record = manager.play_game(8, players(tmp_path, colour_only=True), flush_final=True)
    check_finished(record, 8)
    assert record.exit_codes == [0, 0]  # each AI read FINAL and exited cleanly


def test_the_answer_is_column_then_row() -> None:
    board = [[0] * 4 for _ in range(4)]
    board[1][1] = board[2][2] = 2
    board[2][1] = board[1][2] = 1
    # Dark's moves, as (column, row): the course's get_possible_moves.
    moves = manager.get_possible_moves(board, 1)
    state = course.to_state(course.parse_board(str(board)), 1)
    assert state == rules.initial_state(rules.OthelloConfig(4, rules.COURSE))
    legal = [divmod(action, 4) for action in rules.legal_actions(state)]  # (row, col)
    assert sorted((col, row) for row, col in legal) == sorted(moves)


def test_the_board_and_the_colour_line_are_read_in_every_form() -> None:
    board = manager.play_move(manager.initial_board(4), 1, 0, 1)
    assert course.parse_board(str(board)) == [list(row) for row in board]
    assert course.read_colour("2,4,0,1,1\n") == 2 and course.read_colour("1\n") == 1
    with pytest.raises(ValueError, match="must start with 1 or 2"):
        course.read_colour("3,4,0,0,0")
    with pytest.raises(ValueError, match="must be square"):
        course.parse_board("[[0, 0], [0]]")
    with pytest.raises(ValueError, match="0, 1 or 2"):
        course.parse_board("[[0, 3], [0, 0]]")


def test_without_the_package_it_says_how_to_install_it(tmp_path: Path) -> None:
    # -S -E: no site-packages, no PYTHONPATH, as on a machine without the package.
    done = subprocess.run(
        [sys.executable, "-S", "-E", str(AI_FILE)],
        input=b"", capture_output=True, cwd=tmp_path, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 1 and done.stdout == b""
    assert b"needs the trap_env package" in done.stderr and b"pip install" in done.stderr


def test_a_board_it_cannot_read_gets_a_line_on_stderr_and_an_answer(tmp_path: Path) -> None:
    """The manager's sequence with boards that are no position (another shape, not a
    list, no centre discs, no discs, a 40x40 board) and a stray line: each answered, the
    first placement the discs allow where there is one, ``0 0`` where there is none."""
    start = manager.initial_board(4)
    lines = [
        "2,4,0,1,1",
        "SCORE 0 0", "[[0, 0], [0]]",
        "SCORE 0 0", "__import__('os')",
        "SCORE 1 1", str([[2, 1, 0, 0]] + [[0] * 4] * 3),  # light may place on c1 only
        "SCORE 0 0", str([[0] * 4] * 4),
        "SCORE 0 0", str([[0] * 40] * 40),
        "HELLO",
        "SCORE 2 2", str(start),
        "FINAL 2 2",
    ]  # fmt: skip
    done = subprocess.run(
        [sys.executable, str(AI_FILE)], input="\n".join(lines) + "\n", capture_output=True,
        text=True, cwd=tmp_path, env=ai_env(), timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stderr
    _name, *answers = done.stdout.splitlines()
    assert answers[:5] == ["0 0", "0 0", "2 0", "0 0", "0 0"]
    col, row = map(int, answers[5].split())
    assert (col, row) in manager.get_possible_moves(start, 2)
    assert done.stderr.count("cannot read the board") == 5 and "got 'HELLO" in done.stderr


def test_a_failing_search_still_gets_a_legal_answer(capsys: pytest.CaptureFixture[str]) -> None:
    class Broken(course.SearchAgent):
        def select_action(self, state: object) -> int:
            raise RuntimeError("no search today")

    board = manager.initial_board(6)
    line = course.answer(Broken(course.SearchSettings(depth=1)), str(board), 2)
    col, row = map(int, line.split())
    assert (col, row) in manager.get_possible_moves(board, 2)
    assert "the search failed (no search today)" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["0", "-1", "10", "soon", "nan"])
def test_a_time_limit_outside_the_managers_ten_seconds_is_refused(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTHELLO_AI_TIME_LIMIT", text)
    message = "OTHELLO_AI_TIME_LIMIT must be a number of seconds above 0 and below 10, got "
    with pytest.raises(ValueError, match=message):
        course.time_limit()
    monkeypatch.setenv("OTHELLO_AI_TIME_LIMIT", "2")
    assert course.time_limit() == 2.0

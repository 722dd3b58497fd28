"""The CSC384 course adapter (:mod:`agents.othello.course`, run by the manager through
``examples/othello_csc384_ai.py``) under a stand-in of the course's manager
(:mod:`tests.support.othello_course_manager`): whole games from another directory, both forms of
the colour line, legal moves only, and its parsing."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.othello import course
from tests.support import crafted_files
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
    with pytest.raises(ValueError, match=r"must be square, got 2 rows of lengths \[2, 1\]"):
        course.parse_board("[[0, 0], [0]]")
    with pytest.raises(ValueError, match="must be 0, 1 or 2, found 3"):
        course.parse_board("[[0, 3], [0, 0]]")
    assert course.read_status("SCORE 2 2\n") == "SCORE"
    assert course.read_status("FINAL 1 0") == "FINAL"
    with pytest.raises(ValueError, match="expected 'SCORE dark light' or 'FINAL dark light', got"):
        course.read_status("HELLO")


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


# --- Every line the manager sends is read in our words -----------------------------------

PYTHONS_WORDS = ("object at 0x", "ast.", "invalid syntax", "is not iterable", "Traceback",
                 "unexpected EOF", "malformed node", "line 1")  # fmt: skip


@pytest.mark.parametrize(
    "text",
    ["__import__('os')", "[1, 2]", "", "[[0, 1], [2, 0]", "((0, 1), [2, 0]", "[[0, 1], (2, 0]]",
     "[[0x1, 0], [0, 0]]", "[[True, 0], [0, 0]]", "[[0, 1], [2, 0]] + []", "[[٣, 0], [0, 0]]",
     "[" * 10_000 + "]" * 10_000, "[[" + "0, " * 20_000 + "0]]"],
)
def test_a_board_line_that_is_no_board_is_refused_in_our_words(text: str) -> None:
    with pytest.raises(ValueError, match=r"^the board line must be a list or tuple of rows of "
                                         r"0, 1 and 2, as str\(board\) writes it") as raised:
        course.parse_board(text)
    assert len(str(raised.value).splitlines()) == 1


boards = st.integers(1, 6).flatmap(
    lambda n: st.lists(st.lists(st.sampled_from([0, 1, 2]), min_size=n, max_size=n),
                       min_size=n, max_size=n)
)


@given(boards, st.booleans())
def test_the_managers_board_text_reads_back(board: list[list[int]], as_tuples: bool) -> None:
    text = str(tuple(tuple(row) for row in board)) if as_tuples else str(board)
    assert course.parse_board(text + "\n") == board


@given(st.one_of(
    st.text(max_size=60),
    st.text(alphabet="[](),012 3-x", max_size=60),
    boards.map(str).flatmap(lambda text: st.integers(0, len(text)).map(
        lambda cut: text[:cut] + text[cut + 1:])),
))
def test_any_board_line_is_read_or_refused_in_one_line_of_ours(text: str) -> None:
    try:
        board = course.parse_board(text)
    except ValueError as error:
        message = str(error)
        assert message.startswith("the board") and len(message.splitlines()) == 1
        assert not any(words in message.split(": ", 1)[0] for words in PYTHONS_WORDS)
    else:
        assert board and all(len(row) == len(board) for row in board)
        assert {cell for row in board for cell in row} <= {0, 1, 2}


def test_answers_to_boards_it_cannot_read_say_so_in_our_words(
    capsys: pytest.CaptureFixture[str],
) -> None:
    agent = course.SearchAgent(course.SearchSettings(depth=1))
    for text in ["Board(8)", "[1, 2]", "[[0, 1], [2, 0]", "3", "[[0, 3], [0, 0]]"]:
        assert course.answer(agent, text, 1) == "0 0"
    err = capsys.readouterr().err
    assert err.count("cannot read the board: the board") == 5
    assert not any(words in err for words in PYTHONS_WORDS[:5]), err


def test_a_board_where_its_colour_has_no_move_gets_a_line_and_0_0(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The manager ends the game there rather than ask (the course's end rule); given the
    board anyway, the AI says so (once: select_action's own 'needs a game in progress')."""
    state = rules.initial_state(rules.OthelloConfig(4, rules.COURSE))
    while rules.legal_actions(state):
        state = rules.apply(state, rules.legal_actions(state)[0])
    board = [[1 if state.dark >> (row * 4 + col) & 1 else 2 if state.light >> (row * 4 + col) & 1
              else 0 for col in range(4)] for row in range(4)]  # fmt: skip
    agent = course.SearchAgent(course.SearchSettings(depth=1))
    assert course.answer(agent, str(board), state.player + 1) == "0 0"
    err = capsys.readouterr().err
    assert f"colour {state.player + 1} has no move on this board" in err
    assert "game in progress" not in err and len(err.splitlines()) == 1


def run_main(lines: str, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(sys, "stdin", io.StringIO(lines))
    monkeypatch.setattr(sys, "argv", ["othello_csc384_ai.py"])
    return course.main()


@pytest.mark.parametrize("line", ["3", "0,4,0,1,1", "", "dark", "12"])
def test_a_colour_line_not_1_or_2_ends_the_ai_with_one_line(
    line: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_main(line + "\n", monkeypatch) == 2
    out, err = capsys.readouterr()
    assert out == f"{course.NAME}\n"
    crafted_files.assert_one_line(err, "othello_csc384_ai.py: error: the colour line must "
                                  "start with 1 or 2")


@pytest.mark.parametrize("text", ["soon", "0", "11", "nan"])
def test_a_bad_time_limit_ends_the_ai_with_one_line(
    text: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OTHELLO_AI_TIME_LIMIT", text)
    assert run_main("1\n", monkeypatch) == 2
    out, err = capsys.readouterr()
    assert out == ""
    crafted_files.assert_one_line(err, "othello_csc384_ai.py: error: OTHELLO_AI_TIME_LIMIT "
                                  "must be a number of seconds above 0 and below 10, got")

"""Play the reference search under the CSC384 Othello manager (``othello_game.py``).

The manager launches an AI as ``python3 FILE`` (here ``examples/othello_csc384_ai.py``,
which calls :func:`main`) and talks over stdin/stdout:

1. the AI writes its name on one line;
2. the manager sends the AI's colour, 1 (dark, moves first) or 2 (light): in the CSC384
   version as ``color,limit,minimax,caching,ordering`` (the depth limit and three 0/1
   switches, meant for the students' own search: this AI reads them and plays by time),
   in Columbia's original as the colour alone; both are accepted;
3. on each of its turns the manager sends ``SCORE dark light`` and then the board as the
   text of a Python list (or tuple) of rows, 0 empty, 1 dark, 2 light, ``board[row][col]``;
   the AI answers two integers, **the column, then the row**; a board it cannot read, or
   a position no game reaches, gets a line on standard error and the first cell where
   its discs may be placed as they stand (``0 0`` if none), never a traceback; a board
   where its colour has no move (the manager then ends the game rather than ask) gets a
   line saying so and ``0 0``;
4. ``FINAL dark light`` comes before the manager ends the process (it may kill the process
   without sending it); the AI then exits.

Each line the manager sends is read by one function here (:func:`read_colour`,
:func:`read_status`, :func:`parse_board`), whose refusal says in one line what was read
and what was expected. A colour line that is not 1 or 2, or a bad
``OTHELLO_AI_TIME_LIMIT``, ends the AI with ``FILE: error: ...`` on standard error and
exit status 2: it cannot play without them.

The manager allows 10 s of wall-clock time per move; the AI searches for
:data:`TIME_LIMIT` seconds of wall-clock time (the environment variable
``OTHELLO_AI_TIME_LIMIT`` overrides it), so a loaded machine cannot make it late. The
game ends under the course's rule (the manager stops as soon as the player to act has no
move), which the search knows.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Literal

from agents.othello.search import SearchAgent, SearchSettings
from agents.timing import seconds_from_environment
from trap_env.othello import rules
from trap_env.othello.rules import OthelloState

__all__ = [
    "MAX_LINE_LENGTH", "NAME", "TIME_LIMIT", "answer", "fallback_answer", "main",
    "parse_board", "read_colour", "read_status", "time_limit", "to_state",
]  # fmt: skip

NAME = "trap_env reference (alpha-beta)"
TIME_LIMIT = 2.5
"""Seconds of wall-clock time per move: a quarter of the manager's 10 s."""


def eprint(*parts: object) -> None:
    """Print to stderr (stdout belongs to the manager)."""
    print(*parts, file=sys.stderr, flush=True)


# --- The manager's lines -----------------------------------------------------------------

MAX_LINE_LENGTH = 10_000
"""The longest board line read: the text of a 26x26 board (the largest Othello plays) is
about 2,200 characters."""

_CELLS = r"\s*[0-9]+(?:\s*,\s*[0-9]+)*\s*,?\s*"
_ROW = rf"(?:\[{_CELLS}\]|\({_CELLS}\))"
_ROWS = rf"\s*{_ROW}(?:\s*,\s*{_ROW})*\s*,?\s*"
_BOARD = re.compile(rf"\s*(?:\[{_ROWS}\]|\({_ROWS}\))\s*")
"""A list or tuple of lists or tuples of numbers, as ``str(board)`` writes one."""


def _shown(line: str) -> str:
    """The start of a line the manager sent, for a message."""
    text = line.strip()
    return repr(text[:80]) + ("..." if len(text) > 80 else "")


def read_colour(line: str) -> int:
    """The colour from ``color`` or ``color,limit,minimax,caching,ordering`` (the other
    fields are for the students' own search: this AI plays by time).

    Raises:
        ValueError: if the first field is not 1 or 2.
    """
    first = line.strip().split(",")[0].strip()
    if first not in ("1", "2"):
        raise ValueError(
            "the colour line must start with 1 or 2 (1 dark, 2 light; as 'color' or "
            f"'color,limit,minimax,caching,ordering'), got {_shown(line)}"
        )
    return int(first)


def read_status(line: str) -> Literal["SCORE", "FINAL"]:
    """The first word of a line that comes before a board (``SCORE dark light``) or ends
    the game (``FINAL dark light``).

    Raises:
        ValueError: for any other line.
    """
    first = line.split()[:1]
    if first == ["SCORE"]:
        return "SCORE"
    if first == ["FINAL"]:
        return "FINAL"
    raise ValueError(f"expected 'SCORE dark light' or 'FINAL dark light', got {_shown(line)}")


def parse_board(text: str) -> list[list[int]]:
    """The board's rows from the manager's text: a list or tuple of rows of 0, 1 and 2,
    as ``str(board)`` writes it (read by a pattern, never evaluated).

    Raises:
        ValueError: for text that is not such a square board, saying what was read.
    """
    if len(text) > MAX_LINE_LENGTH or not _BOARD.fullmatch(text):
        raise ValueError(
            "the board line must be a list or tuple of rows of 0, 1 and 2, as str(board) "
            f"writes it, such as ((0, 1), (2, 0)); got {_shown(text)}"
        )
    rows = [re.findall(r"[0-9]+", row) for row in re.findall(_ROW, text)]
    if any(len(row) != len(rows) for row in rows):
        lengths = [len(row) for row in rows][:10]
        raise ValueError(
            f"the board must be square, got {len(rows)} rows of lengths {lengths}: "
            f"{_shown(text)}"
        )
    cells = {cell for row in rows for cell in row}
    if not cells <= {"0", "1", "2"}:
        found = sorted(cells - {"0", "1", "2"}, key=len)[0]
        raise ValueError(
            f"the board's cells must be 0, 1 or 2, found {found[:10]}: {_shown(text)}"
        )
    return [[int(cell) for cell in row] for row in rows]


# --- Answers ------------------------------------------------------------------------------


def to_state(board: list[list[int]], colour: int) -> OthelloState:
    """The position under the course's end rule, ``colour`` to act (not checked: see
    :func:`trap_env.othello.rules.check_state`)."""
    n = len(board)
    dark = light = 0
    for row, cells in enumerate(board):
        for col, cell in enumerate(cells):
            dark |= (1 << (row * n + col)) if cell == 1 else 0
            light |= (1 << (row * n + col)) if cell == 2 else 0
    turn = (dark | light).bit_count() - 4  # no pass is ever played under the course's rule
    return OthelloState(n, rules.COURSE, dark, light, colour - 1, max(turn, 0))


def time_limit() -> float:
    """:data:`TIME_LIMIT`, or the environment's ``OTHELLO_AI_TIME_LIMIT`` (under the
    manager's 10 s).

    Raises:
        ValueError: if the environment's value is not a number of seconds in (0, 10).
    """
    return seconds_from_environment("OTHELLO_AI_TIME_LIMIT", TIME_LIMIT, most=10.0)


def answer(agent: SearchAgent, text: str, colour: int) -> str:
    """The answer line, ``"column row"``, to the board ``text``: the search's move; for a
    board it cannot read (or a position no game reaches) a line on standard error and
    :func:`fallback_answer`; for a board where ``colour`` has no move (which the manager
    never sends: it ends the game) a line saying so and ``"0 0"``."""
    try:
        state = to_state(parse_board(text), colour)
        rules.check_state(state)
    except ValueError as error:  # an answer in any case, never a traceback
        eprint(f"{NAME} cannot read the board: {str(error)[:300]}")
        return fallback_answer(text, colour)
    if not rules.own_placements(state):
        eprint(
            f"{NAME}: colour {colour} has no move on this board (the manager ends the game "
            f"there instead of asking); answering 0 0: {text.strip()[:80]!r}"
        )
        return "0 0"
    try:
        action = agent.select_action(state)
    except Exception as error:  # the rules' first move rather than none
        eprint(f"{NAME}: the search failed ({str(error)[:200]})")
        return fallback_answer(text, colour)
    row, col = divmod(action, state.board_size)
    return f"{col} {row}"


def fallback_answer(text: str, colour: int) -> str:
    """The first cell where ``colour`` may place on the discs as they stand, as
    ``"column row"``, even in a position no game reaches; ``"0 0"`` if the board cannot
    be read or allows no placement."""
    try:
        board = parse_board(text)
        rules.check_board_size(len(board))
        state = to_state(board, colour)
        own, other = rules.sides_of(state, colour - 1)
        cell = rules.cells_of(rules.placements(state.board_size, own, other))[0]
    except Exception:  # an answer in any case, never a traceback
        return "0 0"
    row, col = divmod(cell, state.board_size)
    return f"{col} {row}"


def main() -> int:
    """Talk to the manager on stdin/stdout until ``FINAL`` or the end of input.

    Returns:
        0, or 2 after a line ``FILE: error: ...`` on stderr for a bad
        ``OTHELLO_AI_TIME_LIMIT`` or colour line (the AI cannot play without them).
    """
    prog = Path(sys.argv[0]).name or "othello_csc384_ai.py"
    try:
        seconds = time_limit()
        print(NAME, flush=True)
        colour = read_colour(sys.stdin.readline())
    except ValueError as error:
        eprint(f"{prog}: error: {error}")
        return 2
    agent = SearchAgent(SearchSettings(time_limit=seconds, clock="wall"))
    agent.reset()
    while True:
        line = sys.stdin.readline()
        if not line:
            return 0  # the manager closed the pipe
        try:
            status = read_status(line)
        except ValueError as error:
            eprint(f"{NAME}: {error}")
            continue
        if status == "FINAL":
            return 0
        print(answer(agent, sys.stdin.readline(), colour), flush=True)

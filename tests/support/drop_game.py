"""Drop, a test-only game of the protocol on a board that is not square, whose actions are
columns: it proves the generic parts generic beyond square boards of cells (the page's
generic board above all).

Two players, X (seat 0, who starts) and O, drop pieces into the columns of a ``rows`` x
``cols`` board (default 4 x 5); a piece falls to the lowest empty cell of its column. A
drop is a decision, a column with room (action ``c``), and then chance: the piece lands in
that column with probability 3/4, or slips to a neighbouring column with room (the 1/4
split evenly between them; with none, it stays). Three of a player's pieces in a row
(across, down or diagonally) win ("three"); a full board without one is a draw ("full").

Text: the rows from the top, ``/`` between them (``.`` empty, ``X``, ``O``), and the column
of a drop awaiting chance (``-`` for none): ``"...../...../..X../.OX.. -"``.

Name it to the runners and to ``trap-serve`` by its path: ``--game
tests.support.drop_game:GAME``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from agents.seeded import OneGameAgent
from trap_env.checks import describe, is_int, parse_natural
from trap_env.game import TRUNCATED, IllegalActionError, Outcome, RandomSource, action_index
from trap_env.game_base import GameBase
from trap_env.grid import SEAT_COLORS, Click, Grid, Legend

__all__ = ["GAME", "Drop", "DropConfig", "DropState", "RandomDropper"]

EMPTY, PIECES = ".", "XO"
"""A cell's character: empty, or the piece of seat 0 or 1."""
NO_DROP = -1
"""The pending column of a state that awaits no chance."""
STAY = 0.75
"""The probability that a piece lands in the column it was dropped in (when it may slip)."""
LINE = 3
"""The pieces in a row that win."""
MIN_SIDE, MAX_SIDE = 3, 16
_PIXELS = 16
_RGB = ((192, 57, 43), (36, 113, 163))
_BOARD_RGB = (234, 242, 227)
_LEGEND = (
    Legend("X", "X", SEAT_COLORS[0], "seat 0"),
    Legend("O", "O", SEAT_COLORS[1], "seat 1"),
    Legend("aim", "", "#f5b041", "where the piece falls unless it slips"),
    Legend("three", "", "#58d68d", "three in a row"),
)


@dataclass(frozen=True)
class DropConfig:
    """The board's shape: ``rows`` and ``cols``, each 3 to 16."""

    rows: int = 4
    cols: int = 5

    def __post_init__(self) -> None:
        for name in ("rows", "cols"):
            value = getattr(self, name)
            if not (is_int(value) and MIN_SIDE <= value <= MAX_SIDE):
                raise ValueError(f"{name} must be an integer from {MIN_SIDE} to {MAX_SIDE}, "
                                 f"got {describe(value)}")  # fmt: skip


class DropState(NamedTuple):
    """A position: the shape, the cells row by row from the top, a drop awaiting chance."""

    rows: int
    cols: int
    board: str
    pending: int


class Drop(GameBase[DropState, DropConfig]):
    """The game protocol for Drop, on the defaults of :class:`trap_env.game_base.GameBase`."""

    name: str = "drop"
    title: str = "Drop"
    end_reasons: tuple[str, ...] = ("three", "full")
    config_type = DropConfig
    has_chance: bool = True
    decision_names: tuple[str, ...] = ("drop", "landing")

    # --- Configuration ----------------------------------------------------------------

    def config_of(self, state: DropState) -> DropConfig:
        return DropConfig(state.rows, state.cols)

    def num_actions(self, config: DropConfig) -> int:
        return config.cols

    def observation_shape(self, config: DropConfig) -> tuple[int, ...]:
        return (config.rows, config.cols, 2)

    def default_turn_limit(self, config: DropConfig) -> int:
        return config.rows * config.cols  # the board is full by then

    # --- Play ---------------------------------------------------------------------------

    def initial_state(self, config: DropConfig) -> DropState:
        return DropState(config.rows, config.cols, EMPTY * (config.rows * config.cols), NO_DROP)

    def current_player(self, state: DropState) -> int:
        return self.turn(state) % 2

    def is_chance(self, state: DropState) -> bool:
        return state.pending != NO_DROP

    def legal_actions(self, state: DropState) -> list[int]:
        if self.outcome(state) is not None:
            return []
        if self.is_chance(state):
            return [column for column, _ in _landings(state)]
        return [column for column in range(state.cols) if _has_room(state, column)]

    def apply(self, state: DropState, action: int) -> DropState:
        if type(action) is not int:
            action = action_index(action, f"a column 0..{state.cols - 1}")
        legal = self.legal_actions(state)
        if action not in legal:
            raise IllegalActionError(
                f"illegal {self.decision_name(state)} {action}; legal columns: {legal}"
            )
        if not self.is_chance(state):
            return state._replace(pending=action)
        cell = _landing_row(state, action) * state.cols + action
        piece = PIECES[self.current_player(state)]
        board = state.board[:cell] + piece + state.board[cell + 1 :]
        return state._replace(board=board, pending=NO_DROP)

    def chance_outcomes(self, state: DropState) -> Sequence[tuple[int, float]]:
        if not self.is_chance(state):
            raise ValueError("chance_outcomes needs a drop awaiting chance")
        return _landings(state)

    def sample_chance(self, state: DropState, rng: RandomSource) -> int:
        draw, total = rng.random(), 0.0
        outcomes = self.chance_outcomes(state)
        for column, probability in outcomes:
            total += probability
            if draw < total:
                return column
        return outcomes[-1][0]

    def turn(self, state: DropState) -> int:
        return len(state.board) - state.board.count(EMPTY)

    def outcome(self, state: DropState, max_turns: int | None = None) -> Outcome | None:
        line = _winning_line(state)
        if line:
            return Outcome(PIECES.index(state.board[line[0]]), "three")
        if EMPTY not in state.board:
            return Outcome(None, "full")
        if max_turns is not None and not self.is_chance(state) and self.turn(state) >= max_turns:
            return Outcome(None, TRUNCATED)
        return None

    # --- Views --------------------------------------------------------------------------

    def observe(self, state: DropState, player: int) -> Any:
        cells = np.array(list(state.board)).reshape(state.rows, state.cols)
        own, other = PIECES[player], PIECES[1 - player]
        return np.stack([cells == own, cells == other], axis=-1).astype(np.int8)

    def to_text(self, state: DropState) -> str:
        rows = (state.board[row * state.cols : (row + 1) * state.cols] for row in range(state.rows))
        pending = "-" if state.pending == NO_DROP else str(state.pending)
        return f"{'/'.join(rows)} {pending}"

    def from_text(self, text: str) -> DropState:
        fields = text.split(" ")
        if len(fields) != 2:
            raise ValueError(f"drop text is 'ROW/ROW/... PENDING' (PENDING a column or -), "
                             f"got {text[:60]!r}")  # fmt: skip
        rows = fields[0].split("/")
        if len({len(row) for row in rows}) != 1 or set(fields[0]) - set(EMPTY + PIECES + "/"):
            raise ValueError(f"drop rows are of one length, of '.', 'X' and 'O', got "
                             f"{fields[0][:60]!r}")  # fmt: skip
        pending = NO_DROP if fields[1] == "-" else parse_natural(
            fields[1], "the pending column is '-' or ASCII digits")
        state = DropState(len(rows), len(rows[0]), "".join(rows), pending)
        self.check_state(state)
        return state

    def check_state(self, state: DropState) -> None:
        if not isinstance(state, DropState):
            raise TypeError(f"state must be a DropState, got {type(state).__name__}")
        self.config_of(state)  # the shape's range
        board = state.board
        if not (isinstance(board, str) and len(board) == state.rows * state.cols
                and not set(board) - set(EMPTY + PIECES)):  # fmt: skip
            raise ValueError(f"the board is {state.rows * state.cols} characters of '.', 'X' "
                             f"and 'O', got {describe(board)}")  # fmt: skip
        _check_gravity(state)
        _check_counts(state)
        _check_pending(self, state)

    def render_text(self, state: DropState, last_chance: tuple[int, int] | None = None) -> str:
        rows = [" ".join(state.board[row * state.cols : (row + 1) * state.cols])
                for row in range(state.rows)]  # fmt: skip
        footer = " ".join(str(column % 10) for column in range(state.cols))
        piece = PIECES[self.current_player(state)]
        ended = self.outcome(state)
        status = (
            f"over: {ended.reason}" if ended
            else f"{piece} drops in column {state.pending}" if self.is_chance(state)
            else f"{piece} to drop"
        )  # fmt: skip
        return "\n".join([*rows, footer, status])

    def render_rgb(self, state: DropState, last_chance: tuple[int, int] | None = None) -> Any:
        image = np.empty((state.rows * _PIXELS, state.cols * _PIXELS, 3), np.uint8)
        image[:] = _BOARD_RGB
        for cell, char in enumerate(state.board):
            if char != EMPTY:
                top, left = (_PIXELS * at for at in divmod(cell, state.cols))
                block = image[top : top + _PIXELS, left : left + _PIXELS]
                block[2:-2, 2:-2] = _RGB[PIECES.index(char)]
        return image

    def describe(self, state: DropState) -> Mapping[str, Any]:
        return {
            "game": self.name,
            "rows": state.rows,
            "cols": state.cols,
            "player": self.current_player(state),
            "pending": None if state.pending == NO_DROP else state.pending,
            "turn": self.turn(state),
            "grid": _grid(state).to_json(),
        }


def _has_room(state: DropState, column: int) -> bool:
    return state.board[column] == EMPTY  # the top cell of the column


def _landing_row(state: DropState, column: int) -> int:
    """The lowest empty row of ``column`` (which has room)."""
    return max(row for row in range(state.rows) if state.board[row * state.cols + column] == EMPTY)


def _landings(state: DropState) -> tuple[tuple[int, float], ...]:
    """The pending drop's landing columns with their probabilities, ascending."""
    column = state.pending
    slips = [c for c in (column - 1, column + 1) if 0 <= c < state.cols and _has_room(state, c)]
    if not slips:
        return ((column, 1.0),)
    share = (1 - STAY) / len(slips)
    return tuple(sorted([(column, STAY), *((c, share) for c in slips)]))


@functools.lru_cache(maxsize=32)
def _lines(rows: int, cols: int) -> tuple[tuple[int, ...], ...]:
    """Every run of :data:`LINE` cells in a row: across, down and both diagonals."""
    found = []
    for row in range(rows):
        for col in range(cols):
            for down, right in ((0, 1), (1, 0), (1, 1), (1, -1)):
                end_row, end_col = row + down * (LINE - 1), col + right * (LINE - 1)
                if end_row < rows and 0 <= end_col < cols:
                    found.append(tuple((row + down * i) * cols + col + right * i
                                       for i in range(LINE)))  # fmt: skip
    return tuple(found)


def _winning_lines(state: DropState) -> list[tuple[int, ...]]:
    """The lines of three pieces of one player."""
    board = state.board
    return [line for line in _lines(state.rows, state.cols)
            if board[line[0]] != EMPTY and len({board[cell] for cell in line}) == 1]  # fmt: skip


def _winning_line(state: DropState) -> tuple[int, ...]:
    """A line of three pieces of one player, or ``()``."""
    lines = _winning_lines(state)
    return lines[0] if lines else ()


def _check_gravity(state: DropState) -> None:
    """No piece floats above an empty cell."""
    for cell in range(state.cols, len(state.board)):
        if state.board[cell] == EMPTY and state.board[cell - state.cols] != EMPTY:
            row, col = divmod(cell - state.cols, state.cols)
            raise ValueError(f"the piece at row {row}, column {col} floats above an empty cell")


def _check_counts(state: DropState) -> None:
    """X has as many pieces as O, or one more; only the last to drop may have three."""
    xs, os = state.board.count("X"), state.board.count("O")
    if xs - os not in (0, 1):
        raise ValueError(f"X has as many pieces as O or one more (X starts), got {xs} and {os}")
    winners = {state.board[line[0]] for line in _winning_lines(state)}
    last = PIECES[(xs + os - 1) % 2]
    if winners - {last}:
        raise ValueError(f"only the last to drop ({last}) can have three in a row, got "
                         f"{''.join(sorted(winners))}")  # fmt: skip


def _check_pending(game: Drop, state: DropState) -> None:
    """A pending drop is in a column with room, of a game going on."""
    if state.pending == NO_DROP:
        return
    if not (is_int(state.pending) and 0 <= state.pending < state.cols):
        raise ValueError(f"the pending column is 0..{state.cols - 1} or -, got "
                         f"{describe(state.pending)}")  # fmt: skip
    if not _has_room(state, state.pending) or game.outcome(state) is not None:
        raise ValueError(f"a drop in column {state.pending} awaits chance, but the column is "
                         "full or the game is over")  # fmt: skip


def _grid(state: DropState) -> Grid:
    """The board: the pieces, where a pending drop falls unless it slips, a winning line;
    a click on any cell of a column drops there."""
    pieces = {cell: char for cell, char in enumerate(state.board) if char != EMPTY}
    marks = dict.fromkeys(_winning_line(state), "three")
    if state.pending != NO_DROP:
        marks[_landing_row(state, state.pending) * state.cols + state.pending] = "aim"
    return Grid(state.rows, state.cols, _LEGEND, pieces, marks, click=Click(0, 1))


GAME = Drop()
"""Drop, by its path: ``tests.support.drop_game:GAME``."""


class RandomDropper(OneGameAgent):
    """A uniformly random column with room."""

    config_type = DropConfig
    title = "Drop"

    def select_action(self, state: DropState) -> int:
        return self.rng.choice(GAME.legal_actions(state))

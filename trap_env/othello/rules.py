"""The rules of Othello as a pure module: states are values, transitions are functions.

The board is N x N (N even, 4 to 26 so that letters a-z name the columns; 8 by default)
held as two Python-int bitboards, one per colour; cell ``row * N + col`` is bit
``row * N + col``. The start is the usual four discs of the CSC384 course engine
(``othello_game.py``) and of OpenSpiel: with
``m = N // 2 - 1``, light on ``(m, m)`` and ``(m+1, m+1)``, dark on ``(m, m+1)`` and
``(m+1, m)`` (on 8x8: light d4 and e5, dark e4 and d5). **Dark moves first**: player 0
here, colour 1 in the course, black ``x`` in OpenSpiel; light is player 1 (colour 2).

A move places a disc on an empty cell that brackets at least one line of opponent discs
along any of the eight directions, and flips every bracketed line. Actions are the N*N
cells plus :func:`pass_action` (N*N), which is legal only when the player to act has no
placement, so a live game always has a legal action. Two end rules (:data:`END_RULES`):

* ``"standard"``: a player without a placement passes; the game ends when neither player
  can place;
* ``"course"`` (the CSC384 manager): the game ends as soon as the player to act cannot
  place (no pass is ever played).

Either way the player with more discs wins; equal counts draw.

Example:
    >>> state = initial_state(OthelloConfig(board_size=8))
    >>> " ".join(cell_name(8, cell) for cell in legal_actions(state))
    'd3 c4 f5 e6'
    >>> state = apply(state, cell_from_name(8, "d3"))
    >>> disc_counts(state), state.player
    ((4, 1), 1)

This module imports nothing outside the standard library.
"""

from __future__ import annotations

import functools
import string
from dataclasses import dataclass

from trap_env.bits import Bitboard, Cell, cells_of
from trap_env.cache import per_board_size
from trap_env.checks import check_type, describe, is_int, parse_natural
from trap_env.game import TRUNCATED, IllegalActionError, Outcome, action_index

__all__ = [
    "BOARD_FULL",
    "COURSE",
    "DARK",
    "EMPTY",
    "END_REASONS",
    "END_RULES",
    "LIGHT",
    "MAX_BOARD_SIZE",
    "MIN_BOARD_SIZE",
    "NO_MOVES",
    "STANDARD",
    "SYMBOLS",
    "Bitboard",
    "Cell",
    "IllegalActionError",
    "OthelloConfig",
    "OthelloState",
    "action_name",
    "apply",
    "cell_from_name",
    "cell_name",
    "cells_of",
    "check_board_size",
    "check_state",
    "disc_counts",
    "flips",
    "from_text",
    "full_board",
    "initial_state",
    "is_live",
    "legal_action_mask",
    "legal_actions",
    "opponent_placements",
    "outcome",
    "own_placements",
    "pass_action",
    "placements",
    "sides_of",
    "to_text",
]

DARK, LIGHT = 0, 1
"""The players: dark moves first (the course's colour 1), light second (colour 2)."""
STANDARD, COURSE = "standard", "course"
END_RULES = (STANDARD, COURSE)
"""The end rules: pass when blocked, end when both are (standard), or end when the
player to act is blocked (course)."""
NO_MOVES, BOARD_FULL = "no_moves", "board_full"
END_REASONS = (BOARD_FULL, NO_MOVES)
"""Why a game ends: the board is full, or (with empty cells left) no placement remains
for both players (standard) or for the player to act (course)."""
SYMBOLS = ("x", "o")
"""Each player's disc in text: dark ``x``, light ``o`` (OpenSpiel's letters)."""
EMPTY = "."
MIN_BOARD_SIZE = 4
"""The smallest board side (even, as every side is)."""
MAX_BOARD_SIZE = 26
"""The largest board side: the letters a-z name the columns (:func:`cell_name`)."""

_ACTIONS = "a cell index row*N+col or the pass N*N (an int)"
"""What an action is, for the message that refuses another type."""
PLACEMENT_MEMO = 1024
"""Positions whose placements :func:`placements` remembers (a few hundred bytes each)."""
_DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


@dataclass(frozen=True)
class OthelloConfig:
    """The rule parameters: the board's side and the end rule.

    Raises:
        ValueError: for an odd, small or non-integer size, or an unknown end rule.
    """

    board_size: int = 8
    end_rule: str = STANDARD

    def __post_init__(self) -> None:
        check_board_size(self.board_size)
        if self.end_rule not in END_RULES:
            raise ValueError(f"end_rule must be one of {list(END_RULES)}, got {self.end_rule!r}")


def check_board_size(board_size: object) -> None:
    """Refuse a board side that is not an even integer from 4 to :data:`MAX_BOARD_SIZE`.

    Raises:
        ValueError: naming the value and the sizes allowed.
    """
    size = board_size if is_int(board_size) else None
    if not (isinstance(size, int) and MIN_BOARD_SIZE <= size <= MAX_BOARD_SIZE and size % 2 == 0):
        raise ValueError(
            f"board_size must be an even integer from {MIN_BOARD_SIZE} to {MAX_BOARD_SIZE}, "
            f"got {describe(board_size)}"
        )


@dataclass(frozen=True)
class OthelloState:
    """A position: the rules, each colour's discs, the player to act, plies played.

    A value: hashable, never changed; :func:`apply` returns a new one. ``turn`` counts
    plies (placements and passes) since the start.
    """

    board_size: int
    end_rule: str
    dark: Bitboard
    light: Bitboard
    player: int
    turn: int = 0

    @property
    def config(self) -> OthelloConfig:
        """The rules this position is played under."""
        return OthelloConfig(self.board_size, self.end_rule)


# --- Geometry ---------------------------------------------------------------------------


@per_board_size()
def _rays(board_size: int) -> tuple[tuple[tuple[Bitboard, ...], ...], ...]:
    """For each cell, the eight rays leading away from it, each as its cells' bits in order."""
    n = board_size
    return tuple(
        tuple(_ray(n, row, col, step) for step in _DIRECTIONS if _ray(n, row, col, step))
        for row in range(n)
        for col in range(n)
    )


def _ray(n: int, row: int, col: int, step: tuple[int, int]) -> tuple[Bitboard, ...]:
    """The bits of the cells from ``(row, col)`` outward along ``step``, the cell excluded."""
    cells = []
    row, col = row + step[0], col + step[1]
    while 0 <= row < n and 0 <= col < n:
        cells.append(1 << (row * n + col))
        row, col = row + step[0], col + step[1]
    return tuple(cells)


def full_board(board_size: int) -> Bitboard:
    """Every cell of an N x N board."""
    return (1 << board_size * board_size) - 1


def pass_action(board_size: int) -> int:
    """The pass: N * N, the action after the cells."""
    return board_size * board_size


# --- Moves ------------------------------------------------------------------------------


def sides_of(state: OthelloState, player: int) -> tuple[Bitboard, Bitboard]:
    """The discs of ``player`` and of its opponent."""
    if player == DARK:
        return state.dark, state.light
    return state.light, state.dark


def _sides(state: OthelloState) -> tuple[Bitboard, Bitboard]:
    """The discs of the player to act and of its opponent."""
    return sides_of(state, state.player)


def flips(board_size: int, own: Bitboard, other: Bitboard, cell: Cell) -> Bitboard:
    """The opponent discs that a disc of ``own``'s side on ``cell`` would flip (0: none).

    Example:
        >>> state = initial_state(OthelloConfig(4))
        >>> cells_of(flips(4, state.dark, state.light, 4))   # (1, 0) flips (1, 1)
        [5]
    """
    flipped = 0
    for ray in _rays(board_size)[cell]:
        line = 0
        for bit in ray:
            if bit & other:
                line |= bit
            elif bit & own:
                flipped |= line
                break
            else:
                break
    return flipped


@functools.lru_cache(maxsize=PLACEMENT_MEMO)
def placements(board_size: int, own: Bitboard, other: Bitboard) -> Bitboard:
    """The empty cells where ``own``'s side may place (cells that flip at least one disc).

    Remembered for the last :data:`PLACEMENT_MEMO` positions: a position's legal actions,
    mask, outcome, observation and ``apply`` all start here, so each builds it once.
    """
    empty = full_board(board_size) & ~(own | other)
    candidates = _neighbours(board_size, other) & empty
    found = 0
    for cell in cells_of(candidates):
        if flips(board_size, own, other, cell):
            found |= 1 << cell
    return found


def _neighbours(board_size: int, board: Bitboard) -> Bitboard:
    """The cells next to any cell of ``board`` in the eight directions."""
    n = board_size
    full = full_board(n)
    not_first = full & ~_column(n, 0)
    not_last = full & ~_column(n, n - 1)
    west = (board >> 1) & not_last
    east = (board << 1) & not_first
    row = board | west | east
    return (row | (row << n) | (row >> n)) & full


@per_board_size(entries_per_size=2)  # its first and last columns
def _column(board_size: int, col: int) -> Bitboard:
    """The cells of one column."""
    return sum(1 << (row * board_size + col) for row in range(board_size))


# --- States and transitions -------------------------------------------------------------


def initial_state(config: OthelloConfig | None = None) -> OthelloState:
    """The start: light on ``(m, m)`` and ``(m+1, m+1)``, dark on ``(m, m+1)`` and
    ``(m+1, m)`` with ``m = N // 2 - 1``; dark (player 0) to move.

    Example:
        >>> state = initial_state(OthelloConfig(4))
        >>> cells_of(state.dark), cells_of(state.light), state.player
        ([6, 9], [5, 10], 0)
    """
    config = OthelloConfig() if config is None else config
    n = config.board_size
    m = n // 2 - 1
    light = 1 << (m * n + m) | 1 << ((m + 1) * n + m + 1)
    dark = 1 << (m * n + m + 1) | 1 << ((m + 1) * n + m)
    return OthelloState(n, config.end_rule, dark, light, DARK, 0)


def own_placements(state: OthelloState) -> Bitboard:
    """The placements of the player to act."""
    own, other = _sides(state)
    return placements(state.board_size, own, other)


def opponent_placements(state: OthelloState) -> Bitboard:
    """The placements the opponent of the player to act would have if it were to act."""
    own, other = _sides(state)
    return placements(state.board_size, other, own)


def is_live(state: OthelloState) -> bool:
    """Whether the rules let the game go on (the turn limit aside)."""
    if own_placements(state):
        return True
    return state.end_rule == STANDARD and bool(opponent_placements(state))


def legal_actions(state: OthelloState) -> list[int]:
    """The cells the player to act may place on, ascending; else ``[pass]`` while the
    game goes on; else ``[]``."""
    found = own_placements(state)
    if found:
        return cells_of(found)
    return [pass_action(state.board_size)] if is_live(state) else []


def legal_action_mask(state: OthelloState) -> list[int]:
    """:func:`legal_actions` as N * N + 1 zeros and ones."""
    mask = [0] * (pass_action(state.board_size) + 1)
    for action in legal_actions(state):
        mask[action] = 1
    return mask


def apply(state: OthelloState, action: int) -> OthelloState:
    """The position after the player to act places on ``action`` or passes.

    Raises:
        IllegalActionError: naming the action and the legal ones (none once the game is over).
    """
    action = action if type(action) is int else action_index(action, _ACTIONS)
    legal = legal_actions(state)
    if action not in legal:
        raise IllegalActionError(_illegal_message(state, action, legal))
    n = state.board_size
    own, other = _sides(state)
    if action != pass_action(n):
        flipped = flips(n, own, other, action)
        own, other = own | flipped | 1 << action, other & ~flipped
    dark, light = (own, other) if state.player == DARK else (other, own)
    return OthelloState(n, state.end_rule, dark, light, 1 - state.player, state.turn + 1)


def _illegal_message(state: OthelloState, action: int, legal: list[int]) -> str:
    n = state.board_size
    if not legal:
        return f"illegal action {action}: the game is over"
    names = ", ".join(f"{a} ({action_name(n, a)})" for a in legal)
    what = f"{action} ({action_name(n, action)})" if 0 <= action <= n * n else str(action)
    return f"illegal action {what} for {SYMBOLS[state.player]}; legal: {names}"


def disc_counts(state: OthelloState) -> tuple[int, int]:
    """The discs of dark and of light."""
    return state.dark.bit_count(), state.light.bit_count()


def outcome(state: OthelloState, max_turns: int | None = None) -> Outcome | None:
    """Whether and why the game is over: more discs wins, equal counts draw; a game the
    rules have not ended is cut as a draw (:data:`TRUNCATED`) once ``turn >= max_turns``.

    Example:
        >>> outcome(initial_state()) is None
        True
    """
    if is_live(state):
        if max_turns is not None and state.turn >= max_turns:
            return Outcome(None, TRUNCATED)
        return None
    full = (state.dark | state.light) == full_board(state.board_size)
    dark, light = disc_counts(state)
    winner = None if dark == light else (DARK if dark > light else LIGHT)
    return Outcome(winner, BOARD_FULL if full else NO_MOVES)


# --- Text -------------------------------------------------------------------------------


def cell_name(board_size: int, cell: Cell) -> str:
    """A cell as column letter and row number from 1 (OpenSpiel's: ``d3`` is row 2, col 3).

    Example:
        >>> cell_name(8, 19)
        'd3'
    """
    row, col = divmod(cell, board_size)
    return f"{string.ascii_lowercase[col]}{row + 1}"


def action_name(board_size: int, action: int) -> str:
    """:func:`cell_name` of a cell, or ``"pass"``."""
    return "pass" if action == pass_action(board_size) else cell_name(board_size, action)


def cell_from_name(board_size: int, text: str) -> Cell:
    """A cell from a name such as ``d3`` (letter: column; number: row from 1).

    Raises:
        ValueError: for another form, or a cell off the board.
    """
    letter, digits = text[:1].lower(), text[1:]
    letters = string.ascii_lowercase[:board_size]
    problem = f"a cell is a column letter a..{letters[-1]} and a row 1..{board_size}, such as 'd3'"
    if not (letter and letter in letters):
        raise ValueError(f"{problem}; got {text[:40]!r}")
    row = parse_natural(digits, problem) - 1
    if not 0 <= row < board_size:
        raise ValueError(f"row {row + 1} of {text[:40]!r} is off the board (1..{board_size})")
    return row * board_size + letters.index(letter)


def to_text(state: OthelloState) -> str:
    """One line: the rows from the top joined by ``/`` (``x`` dark, ``o`` light, ``.``
    empty), the player to act, the plies played, the end rule.

    Example:
        >>> to_text(initial_state(OthelloConfig(4, "course")))
        '..../.ox./.xo./.... x 0 course'
    """
    n = state.board_size
    rows = ("".join(_symbol(state, row * n + col) for col in range(n)) for row in range(n))
    return f"{'/'.join(rows)} {SYMBOLS[state.player]} {state.turn} {state.end_rule}"


def _symbol(state: OthelloState, cell: Cell) -> str:
    if state.dark >> cell & 1:
        return SYMBOLS[DARK]
    return SYMBOLS[LIGHT] if state.light >> cell & 1 else EMPTY


def from_text(text: str) -> OthelloState:
    """Parse :func:`to_text`'s notation.

    Raises:
        ValueError: naming the first problem and the form allowed.
    """
    form = "'ROWS PLAYER TURN END_RULE' such as '..../.ox./.xo./.... x 0 standard'"
    fields = text.split() if isinstance(text, str) else []
    if len(fields) != 4:
        raise ValueError(f"Othello text is {form}; got {str(text)[:80]!r}")
    rows_text, side, turn, end_rule = fields
    dark, light, n = _parse_rows(rows_text)
    if side not in SYMBOLS:
        raise ValueError(f"the player to act is 'x' (dark) or 'o' (light), got {side[:40]!r}")
    plies = parse_natural(turn, "the plies played are an integer >= 0")
    if end_rule not in END_RULES:
        raise ValueError(f"the end rule is one of {list(END_RULES)}, got {end_rule[:40]!r}")
    state = OthelloState(n, end_rule, dark, light, SYMBOLS.index(side), plies)
    check_state(state)
    return state


def check_state(state: OthelloState) -> None:
    """Refuse a position that no game reaches, naming what is wrong; every entrance of a
    state (text, the environments, the adapters, the batched engine) checks here.

    A game starts with the four centre discs and never empties a cell; each ply places
    one disc or passes; a pass only follows a placement (the opponent of a player who
    passes can place), and the course's end rule never passes. So, with ``placed`` the
    discs beyond the first four: ``placed <= turn <= 2 * placed`` (standard) or
    ``turn == placed`` (course).

    Raises:
        TypeError: if ``state`` is not an :class:`OthelloState`.
        ValueError: for a size or end rule out of range, discs off the board or on both
            colours, an empty centre cell, a player other than 0 and 1, or plies that
            the discs contradict.
    """
    check_type("state", state, OthelloState, "an OthelloState, such as from_text(...) gives")
    OthelloConfig(state.board_size, state.end_rule)
    n, dark, light = state.board_size, state.dark, state.light
    full = full_board(n)
    for name, board in (("dark", dark), ("light", light)):
        if not (is_int(board) and 0 <= board <= full):
            raise ValueError(
                f"{name} must be a bitboard of the {n * n} cells, got {describe(board)}"
            )
    if dark & light:
        raise ValueError(f"cells {_names(n, dark & light)} hold a disc of both colours")
    if not (is_int(state.player) and state.player in (DARK, LIGHT)):
        raise ValueError(
            f"the player to act is 0 (dark) or 1 (light), got {describe(state.player)}"
        )
    turn = state.turn
    if not (is_int(turn) and turn >= 0):
        raise ValueError(f"the plies played are an integer >= 0, got {describe(turn)}")
    start = initial_state(state.config)
    empty_centre = (start.dark | start.light) & ~(dark | light)
    if empty_centre:
        raise ValueError(
            f"the centre cells {_names(n, empty_centre)} are empty; no ply empties one"
        )
    placed = (dark | light).bit_count() - 4
    most = placed if state.end_rule == COURSE else 2 * placed
    if not placed <= turn <= most:
        passes = "" if state.end_rule == COURSE else ", or passes right after a placement"
        raise ValueError(
            f"{placed + 4} discs after {turn} plies: under the {state.end_rule} end rule each "
            f"ply places one disc{passes}, so the plies are {placed}..{most}"
        )


def _names(board_size: int, board: Bitboard) -> str:
    """The cells of ``board`` by name, for a message."""
    return ", ".join(cell_name(board_size, cell) for cell in cells_of(board)[:10])


def _parse_rows(text: str) -> tuple[Bitboard, Bitboard, int]:
    """Dark's and light's bitboards and the side from the rows field."""
    rows = text.split("/")
    n = len(rows)
    try:
        check_board_size(n)
    except ValueError:
        raise ValueError(
            f"the board needs an even number of rows from {MIN_BOARD_SIZE} to {MAX_BOARD_SIZE}, "
            f"got {n}"
        ) from None
    dark = light = 0
    for row, line in enumerate(rows):
        if len(line) != n or set(line) - {EMPTY, *SYMBOLS}:
            raise ValueError(
                f"row {row + 1} must be {n} of '.', 'x', 'o' (the board is square), "
                f"got {line[:40]!r}"
            )
        for col, char in enumerate(line):
            bit = 1 << (row * n + col)
            dark |= bit if char == SYMBOLS[DARK] else 0
            light |= bit if char == SYMBOLS[LIGHT] else 0
    return dark, light, n

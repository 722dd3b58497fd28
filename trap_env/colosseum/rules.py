"""The rules of Colosseum Survival! (McGill COMP 424, Winter 2022) as a pure module.

An M x M board (3 <= M <= 32; 8 by default) of cells ``row * M + col``, with barriers on the
sides of cells. A barrier is one wall seen from both cells it separates: a barrier on the
right of ``(r, c)`` is the left of ``(r, c + 1)``; the board's border counts as barriers
all round. Sides are numbered as in the course engine (``constants.py``): up 0, right 1,
down 2, left 3, with steps ``(-1, 0), (0, 1), (1, 0), (0, -1)``.

Player A (player 0) moves first, then B (player 1). A turn is one decision: the player
moves at most ``K = (M + 1) // 2`` steps up, down, left or right (staying is allowed;
a step never crosses a barrier or enters the opponent's cell; the engine checks reach by
breadth-first search), then puts a barrier on one side of its destination cell that has
none. The game ends when the two players are in separate zones (sets of cells connected
without crossing a barrier): each scores the cells of its own zone, more cells win and
equal counts draw. Every turn adds a barrier, so every game ends.

**The start** is the only chance. The course engine (``world.py``) draws K barriers,
each on a uniformly random (cell, side) without one, with its mirror image (cell
``(M-1-r, M-1-c)``, opposite side) — 2K barriers in all — then player A on a uniformly
random cell and B on the mirror cell (drawn again if they coincide), and draws the whole
board again if the players start separated. :func:`draw_start` runs exactly that
procedure on a caller's generator. In the game protocol the start is one chance node
(:func:`chance_outcomes`): :data:`NUM_STARTS` equally likely *start numbers*, number
``s`` standing for :func:`draw_start` on ``random.Random(s)``; :func:`start_state` builds
it. A start is also a rule parameter (``start=s``, :class:`ColosseumConfig`), and every
position, the start included, is in the text notation (:func:`to_text`).

Actions are a destination cell and a side: ``cell * 4 + side`` (``M * M * 4`` actions),
written ``"row,col,side"`` with the engine's numbers (``"2,3,1"``: to row 2, column 3, a
barrier on the right).

Example:
    >>> state = start_state(ColosseumConfig(board_size=4), 0)
    >>> to_text(state)
    '9393/802a/a802/c6c6 2,3 1,0 A 0'
    >>> len(legal_actions(state)), action_name(state, legal_actions(state)[0])
    (21, '0,3,2')

This module imports nothing outside the standard library.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass

from trap_env.bits import Bitboard, Cell, cells_of
from trap_env.cache import per_board_size
from trap_env.checks import check_type, describe, is_int, parse_natural
from trap_env.game import TRUNCATED, IllegalActionError, Outcome, RandomSource, action_index

__all__ = [
    "DOWN",
    "END_REASONS",
    "LEFT",
    "MAX_BOARD_SIZE",
    "MIN_BOARD_SIZE",
    "MOVES",
    "NO_CELL",
    "NUM_SIDES",
    "NUM_STARTS",
    "OPPOSITE",
    "PLAYER_NAMES",
    "RANDOM_START",
    "RIGHT",
    "SEPARATED",
    "SIDE_NAMES",
    "UP",
    "Bitboard",
    "Cell",
    "ColosseumConfig",
    "ColosseumState",
    "IllegalActionError",
    "Walls",
    "action_name",
    "action_of",
    "apply",
    "border_walls",
    "cells_of",
    "chance_outcomes",
    "check_board_size",
    "check_state",
    "decode_action",
    "draw_start",
    "from_text",
    "has_wall",
    "initial_state",
    "is_chance",
    "legal_action_mask",
    "legal_actions",
    "max_steps",
    "outcome",
    "reachable",
    "sample_start",
    "set_wall",
    "spread",
    "start_state",
    "to_text",
    "zone",
    "zone_counts",
    "zone_sizes",
]

Walls = tuple[Bitboard, Bitboard, Bitboard, Bitboard]
"""The barriers as one bitboard per side: ``walls[side]`` holds the cells with a barrier
on that side. Both cells of a barrier hold it, and the border is barriers."""

UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3
"""The sides, numbered as the course engine's ``DIRECTION_*`` constants."""
NUM_SIDES = 4
MOVES = ((-1, 0), (0, 1), (1, 0), (0, -1))
"""The step towards each side, ``(row, col)``: the engine's ``moves``."""
OPPOSITE = (DOWN, LEFT, UP, RIGHT)
"""The same barrier seen from the neighbouring cell: the engine's ``opposites``."""
SIDE_NAMES = ("up", "right", "down", "left")
PLAYER_NAMES = ("A", "B")
"""Player 0 (first to move) is the engine's A, player 1 its B."""
SEPARATED = "separated"
END_REASONS = (SEPARATED,)
"""Why a game ends: the players are in separate zones."""
NUM_STARTS = 1 << 16
"""The start numbers of the chance node: ``range(NUM_STARTS)``, equally likely."""
RANDOM_START = -1
"""The ``start`` parameter that leaves the start to chance (a chance node first)."""
NO_CELL = -1
"""The players' cells at the chance node, before the start is drawn."""
MIN_BOARD_SIZE = 3
"""The smallest board side (the handout's game is 6 to 12, the engine's 5 to 9)."""
MAX_BOARD_SIZE = 32
"""The largest board side: four times the handout's largest, and small enough that the
cache behind :func:`zone_sizes` (65,536 positions of four M*M-bit boards) stays small."""
_BITS = bytes.maketrans(b"01", b"\x00\x01")
"""A bitboard's binary digits as bytes 0 and 1 (a list takes them as ints)."""
_ACTIONS = "an int, cell * 4 + side (cell = row * M + col)"
"""What an action is, for the message that refuses another type."""


def check_board_size(board_size: object) -> None:
    """Refuse a board side that is not an integer from 3 to :data:`MAX_BOARD_SIZE`.

    Raises:
        ValueError: naming the value and the range allowed.
    """
    size = board_size if is_int(board_size) else None
    if not (isinstance(size, int) and MIN_BOARD_SIZE <= size <= MAX_BOARD_SIZE):
        raise ValueError(
            f"board_size must be an integer from {MIN_BOARD_SIZE} to {MAX_BOARD_SIZE}, "
            f"got {describe(board_size)}"
        )


@dataclass(frozen=True)
class ColosseumConfig:
    """The rule parameters: the board's side and the start.

    Attributes:
        board_size: M >= 3.
        start: :data:`RANDOM_START` (-1, the default) for a start drawn by chance, or a
            start number in ``range(NUM_STARTS)`` for that start (no chance node).

    Raises:
        ValueError: for a size or start out of range.
    """

    board_size: int = 8
    start: int = RANDOM_START

    def __post_init__(self) -> None:
        check_board_size(self.board_size)
        start = self.start
        if isinstance(start, bool) or not isinstance(start, int) or not -1 <= start < NUM_STARTS:
            raise ValueError(
                f"start must be -1 (drawn by chance) or a start number 0..{NUM_STARTS - 1}, "
                f"got {start!r}"
            )


@dataclass(frozen=True)
class ColosseumState:
    """A position: the board side, the barriers, both players' cells, the player to act
    and the turns played. A value: hashable, never changed; :func:`apply` returns a new one.

    Before the start is drawn (the chance node) the cells are :data:`NO_CELL` and the
    barriers are the border's.
    """

    board_size: int
    walls: Walls
    cells: tuple[Cell, Cell]
    player: int = 0
    turn: int = 0


# --- Geometry ---------------------------------------------------------------------------


def max_steps(board_size: int) -> int:
    """K = (M + 1) // 2, the most steps of a move.

    Example:
        >>> max_steps(8), max_steps(9)
        (4, 5)
    """
    return (board_size + 1) // 2


@per_board_size()
def border_walls(board_size: int) -> Walls:
    """The border: the top row's up sides, the right column's right sides, and so on."""
    n = board_size
    top = (1 << n) - 1
    bottom = top << (n * (n - 1))
    left = sum(1 << (row * n) for row in range(n))
    right = left << (n - 1)
    return (top, right, bottom, left)


def has_wall(walls: Walls, cell: Cell, side: int) -> bool:
    """Whether ``cell`` has a barrier (or the border) on ``side``."""
    return bool(walls[side] >> cell & 1)


def _neighbour(board_size: int, cell: Cell, side: int) -> Cell:
    """The cell across ``side`` of ``cell`` (on the board: the side is not a border)."""
    row, col = divmod(cell, board_size)
    step_row, step_col = MOVES[side]
    return (row + step_row) * board_size + col + step_col


def set_wall(board_size: int, walls: Walls, cell: Cell, side: int) -> Walls:
    """``walls`` with a barrier on ``side`` of ``cell`` and on the opposite side of the
    neighbour across it (the same barrier), which must be on the board."""
    other = _neighbour(board_size, cell, side)
    placed = list(walls)
    placed[side] |= 1 << cell
    placed[OPPOSITE[side]] |= 1 << other
    return (placed[0], placed[1], placed[2], placed[3])


def spread(board_size: int, walls: Walls, region: Bitboard) -> Bitboard:
    """``region`` and every cell one step from it without crossing a barrier.

    The border is barriers, so no shift wraps around a row or leaves the board.
    """
    up, right, down, left = walls
    return (
        region
        | (region & ~up) >> board_size
        | (region & ~down) << board_size
        | (region & ~right) << 1
        | (region & ~left) >> 1
    )


def zone(board_size: int, walls: Walls, cell: Cell) -> Bitboard:
    """The cells connected to ``cell`` without crossing a barrier (players block nothing).

    At most M * M spreads, whatever ``walls`` hold (a zone has at most M * M cells).
    """
    region = 1 << cell
    for _ in range(board_size * board_size):
        grown = spread(board_size, walls, region)
        if grown == region:
            break
        region = grown
    return region


@functools.lru_cache(maxsize=1024)
def reachable(state: ColosseumState) -> Bitboard:
    """The cells the player to act can move to: at most K steps, never across a barrier
    nor into or through the opponent's cell (its own cell included: staying).

    Remembered for the last 1,024 positions: a position's mask and the move played from
    it both start here.
    """
    n, walls = state.board_size, state.walls
    me, other = state.cells[state.player], state.cells[1 - state.player]
    blocked = ~(1 << other)
    region = 1 << me
    for _ in range(max_steps(n)):
        grown = spread(n, walls, region) & blocked
        if grown == region:
            break
        region = grown
    return region


# --- The start --------------------------------------------------------------------------


def _below(rng: RandomSource, bound: int) -> int:
    """A uniform integer in ``range(bound)`` from one ``rng.random()``."""
    return min(int(rng.random() * bound), bound - 1)


def draw_start(board_size: int, rng: RandomSource) -> ColosseumState:
    """A start drawn as the course engine draws it (``World.__init__`` and the
    simulator's redraw), from ``rng``: K mirrored pairs of barriers, each first barrier on
    a uniform (row, col, side) without one; A on a uniform cell, B on its mirror, A drawn
    again while they coincide; all drawn again while the players start separated.

    Example:
        >>> state = draw_start(8, random.Random(1))
        >>> sum(bin(side).count("1") for side in state.walls) - 4 * 8  # barrier sides
        16
    """
    check_board_size(board_size)
    n = board_size
    while True:
        walls = border_walls(n)
        for _ in range(max_steps(n)):
            row, col, side = _below(rng, n), _below(rng, n), _below(rng, NUM_SIDES)
            while has_wall(walls, row * n + col, side):
                row, col, side = _below(rng, n), _below(rng, n), _below(rng, NUM_SIDES)
            walls = set_wall(n, walls, row * n + col, side)
            walls = set_wall(n, walls, (n - 1 - row) * n + n - 1 - col, OPPOSITE[side])
        first = _below(rng, n) * n + _below(rng, n)
        while first == n * n - 1 - first:
            first = _below(rng, n) * n + _below(rng, n)
        state = ColosseumState(n, walls, (first, n * n - 1 - first), 0, 0)
        if not _is_separated(state):
            return state


@functools.lru_cache(maxsize=4096)
def start_state(config: ColosseumConfig, start: int) -> ColosseumState:
    """The start numbered ``start``: :func:`draw_start` on ``random.Random(start)``.

    Raises:
        ValueError: for a start number outside ``range(NUM_STARTS)``.
    """
    if isinstance(start, bool) or not isinstance(start, int) or not 0 <= start < NUM_STARTS:
        raise ValueError(f"a start number is in 0..{NUM_STARTS - 1}, got {start!r}")
    return draw_start(config.board_size, random.Random(start))


def initial_state(config: ColosseumConfig | None = None) -> ColosseumState:
    """The chance node before the start is drawn, or the start ``config.start`` names.

    Example:
        >>> is_chance(initial_state(ColosseumConfig(board_size=5)))
        True
        >>> is_chance(initial_state(ColosseumConfig(board_size=5, start=3)))
        False
    """
    config = ColosseumConfig() if config is None else config
    if config.start != RANDOM_START:
        return start_state(config, config.start)
    n = config.board_size
    return ColosseumState(n, border_walls(n), (NO_CELL, NO_CELL), 0, 0)


def is_chance(state: ColosseumState) -> bool:
    """Whether the start is still to be drawn."""
    return state.cells[0] == NO_CELL


def chance_outcomes(state: ColosseumState) -> list[tuple[int, float]]:
    """The start numbers, each with probability ``1 / NUM_STARTS``.

    Raises:
        ValueError: if ``state`` is not the chance node.
    """
    if not is_chance(state):
        raise ValueError("only the start is drawn by chance, and it has been drawn")
    probability = 1.0 / NUM_STARTS
    return [(start, probability) for start in range(NUM_STARTS)]


def sample_start(state: ColosseumState, rng: RandomSource) -> int:
    """A start number drawn with exactly one ``rng.random()``.

    Raises:
        ValueError: if ``state`` is not the chance node.
    """
    if not is_chance(state):
        raise ValueError("only the start is drawn by chance, and it has been drawn")
    return _below(rng, NUM_STARTS)


# --- Moves ------------------------------------------------------------------------------


def action_of(cell: Cell, side: int) -> int:
    """The action: move to ``cell``, then a barrier on ``side`` of it."""
    return cell * NUM_SIDES + side


def decode_action(action: int) -> tuple[Cell, int]:
    """``(cell, side)`` of an action."""
    return divmod(action, NUM_SIDES)


def legal_actions(state: ColosseumState) -> list[int]:
    """Every (destination, free side) of the player to act, ascending; ``[]`` at the
    chance node and once the game is over."""
    if is_chance(state) or _is_separated(state):
        return []
    region = reachable(state)
    walls = state.walls
    return sorted(
        cell * NUM_SIDES + side
        for side in range(NUM_SIDES)
        for cell in cells_of(region & ~walls[side])
    )


def legal_action_mask(state: ColosseumState) -> list[int]:
    """:func:`legal_actions` as ``M * M * 4`` zeros and ones."""
    cells = state.board_size * state.board_size
    mask = [0] * (cells * NUM_SIDES)
    if is_chance(state) or _is_separated(state):
        return mask
    region = reachable(state)
    for side, walls in enumerate(state.walls):
        # Action cell * 4 + side: each side's free reachable cells fill every fourth entry.
        mask[side::NUM_SIDES] = f"{region & ~walls:0{cells}b}"[::-1].encode().translate(_BITS)
    return mask


def apply(state: ColosseumState, action: int) -> ColosseumState:
    """The position after the player to act moves and places a barrier (at the chance
    node: after the start numbered ``action`` is drawn).

    Raises:
        IllegalActionError: naming the action and why it is not allowed (a destination
            out of reach, a side that has a barrier, a finished game).
    """
    action = action if type(action) is int else action_index(action, _ACTIONS)
    if is_chance(state):
        if not 0 <= action < NUM_STARTS:
            raise IllegalActionError(f"a start number is in 0..{NUM_STARTS - 1}, got {action}")
        return start_state(ColosseumConfig(state.board_size), action)
    problem = _problem(state, action)
    if problem:
        raise IllegalActionError(problem)
    n = state.board_size
    cell, side = decode_action(action)
    cells = (cell, state.cells[1]) if state.player == 0 else (state.cells[0], cell)
    walls = set_wall(n, state.walls, cell, side)
    return ColosseumState(n, walls, cells, 1 - state.player, state.turn + 1)


def _problem(state: ColosseumState, action: int) -> str:
    """Why ``action`` is illegal for the player to act; empty if it is legal."""
    n = state.board_size
    if _is_separated(state):
        return f"illegal action {action}: the game is over"
    if not 0 <= action < n * n * NUM_SIDES:
        return f"illegal action {action}: actions are 0..{n * n * NUM_SIDES - 1} on {n}x{n}"
    cell, side = decode_action(action)
    region = reachable(state)
    if not region >> cell & 1:
        reach = ", ".join(_cell_name(n, c) for c in cells_of(region))
        return (
            f"{_named(state, action)}: {_cell_name(n, cell)} is not within {max_steps(n)} "
            f"steps (reachable: {reach})"
        )
    if has_wall(state.walls, cell, side):
        free = [SIDE_NAMES[s] for s in range(NUM_SIDES) if not has_wall(state.walls, cell, s)]
        where = f"{_cell_name(n, cell)} has a barrier {SIDE_NAMES[side]}"
        return f"{_named(state, action)}: {where}; free: {free}"
    return ""


def _named(state: ColosseumState, action: int) -> str:
    """The start of an illegal action's message (written only for an illegal one)."""
    player = PLAYER_NAMES[state.player]
    return f"illegal action {action} ({action_name(state, action)}) for {player}"


# --- The end ----------------------------------------------------------------------------


def _is_separated(state: ColosseumState) -> bool:
    return zone_sizes(state) is not None


def zone_sizes(state: ColosseumState) -> tuple[int, int] | None:
    """The end test, stated once: the cells of A's zone and of B's zone if the players
    are in separate zones, else None (the game goes on; also at the chance node)."""
    if is_chance(state):
        return None
    first, second, separated = _zones(state)
    return (first, second) if separated else None


def zone_counts(state: ColosseumState) -> tuple[int, int]:
    """The cells of A's zone and of B's zone, separated or not (one zone, so one count
    twice, while the game goes on); not at the chance node."""
    first, second, _ = _zones(state)
    return first, second


@functools.lru_cache(maxsize=65536)
def _zones(state: ColosseumState) -> tuple[int, int, bool]:
    """The cells of A's zone, of B's zone, and whether those are two zones."""
    n = state.board_size
    first, second = state.cells
    mine = zone(n, state.walls, first)
    if mine >> second & 1:
        return mine.bit_count(), mine.bit_count(), False
    return mine.bit_count(), zone(n, state.walls, second).bit_count(), True


def outcome(state: ColosseumState, max_turns: int | None = None) -> Outcome | None:
    """Whether and why the game is over: once the players are separated, the larger zone
    wins and equal zones draw; a game still going is cut as a draw (:data:`TRUNCATED`)
    once ``turn >= max_turns``.

    Example:
        >>> outcome(start_state(ColosseumConfig(board_size=6), 0)) is None
        True
    """
    sizes = zone_sizes(state)
    if sizes is None:
        if max_turns is not None and state.turn >= max_turns and not is_chance(state):
            return Outcome(None, TRUNCATED)
        return None
    first, second = sizes
    winner = None if first == second else (0 if first > second else 1)
    return Outcome(winner, SEPARATED)


# --- Text -------------------------------------------------------------------------------


def _cell_name(board_size: int, cell: Cell) -> str:
    row, col = divmod(cell, board_size)
    return f"({row}, {col})"


def action_name(state: ColosseumState, action: int) -> str:
    """An action as ``"row,col,side"`` with the engine's side numbers (``"2,3,1"``)."""
    cell, side = decode_action(action)
    row, col = divmod(cell, state.board_size)
    return f"{row},{col},{side}"


def to_text(state: ColosseumState) -> str:
    """One line: the rows from the top joined by ``/``, each cell a hex digit of its
    barriers (up 1, right 2, down 4, left 8, the border included); A's and B's cells as
    ``row,col`` (``-`` before the start); the player to act (``A`` or ``B``); turns played.

    Example:
        >>> to_text(initial_state(ColosseumConfig(board_size=3)))
        '913/802/c46 - - A 0'
    """
    n = state.board_size
    rows = []
    for row in range(n):
        digits = []
        for col in range(n):
            cell = row * n + col
            value = sum(1 << side for side in range(NUM_SIDES) if has_wall(state.walls, cell, side))
            digits.append(f"{value:x}")
        rows.append("".join(digits))
    cells = " ".join("-" if cell == NO_CELL else "{},{}".format(*divmod(cell, n))
                     for cell in state.cells)  # fmt: skip
    return f"{'/'.join(rows)} {cells} {PLAYER_NAMES[state.player]} {state.turn}"


def from_text(text: str) -> ColosseumState:
    """Parse :func:`to_text`'s notation; the position must pass :func:`check_state`.

    Raises:
        ValueError: naming the first problem: the form, a board over
            :data:`MAX_BOARD_SIZE`, a barrier seen from one side only, a missing border,
            cells off the board or shared, a start with a turn.
    """
    form = "'ROWS A_CELL B_CELL PLAYER TURN' such as '913/802/c46 0,0 2,2 A 0'"
    fields = text.split() if isinstance(text, str) else []
    if len(fields) != 5:
        raise ValueError(f"Colosseum text is {form}; got {str(text)[:80]!r}")
    rows_text, first, second, side, turn = fields
    n, walls = _parse_rows(rows_text)
    if side not in PLAYER_NAMES:
        raise ValueError(f"the player to act is 'A' or 'B', got {side[:40]!r}")
    turns = parse_natural(turn, "the turns played are an integer >= 0")
    cells = (_parse_cell(n, first, "A"), _parse_cell(n, second, "B"))
    state = ColosseumState(n, walls, cells, PLAYER_NAMES.index(side), turns)
    check_state(state)
    return state


def check_state(state: ColosseumState) -> None:
    """Refuse a position that no game reaches, naming what is wrong: every entrance of a
    state (text, the environments, the adapters) checks here, so that the searches over
    a position (:func:`zone`, :func:`reachable`) only ever see boards they are made for.

    Raises:
        TypeError: if ``state`` is not a :class:`ColosseumState`.
        ValueError: for a board size out of range, barriers off the board or seen from
            one side only, a border with a gap, cells off the board or shared, a player
            other than 0 and 1, a negative turn, or cells ``-1`` (the start to draw)
            anywhere but at :func:`initial_state`.
    """
    check_type("state", state, ColosseumState, "a ColosseumState, such as from_text(...) gives")
    check_board_size(state.board_size)
    n, walls, cells = state.board_size, state.walls, state.cells
    if not (
        isinstance(walls, tuple)
        and len(walls) == NUM_SIDES
        and all(is_int(side) and 0 <= side < 1 << n * n for side in walls)
    ):
        raise ValueError(
            f"walls must be 4 bitboards (up, right, down, left) of {n * n} bits, "
            f"got {describe(walls)}"
        )
    _check_walls(n, walls)
    if not (
        isinstance(cells, tuple)
        and len(cells) == 2
        and all(is_int(cell) and NO_CELL <= cell < n * n for cell in cells)
    ):
        raise ValueError(
            f"cells must be two cells in 0..{n * n - 1} (both -1 before the start), "
            f"got {describe(cells)}"
        )
    if not (is_int(state.player) and state.player in (0, 1)):
        raise ValueError(f"the player to act is 0 (A) or 1 (B), got {describe(state.player)}")
    if not (is_int(state.turn) and state.turn >= 0):
        raise ValueError(f"the turns played are an integer >= 0, got {describe(state.turn)}")
    if NO_CELL in cells and state != initial_state(ColosseumConfig(n)):
        raise ValueError(
            "'-' for the cells (-1) marks the start to draw: both '-', border only, A, 0"
        )
    if NO_CELL not in cells and cells[0] == cells[1]:
        raise ValueError(f"A and B cannot share the cell {_cell_name(n, cells[0])}")


def _parse_rows(text: str) -> tuple[int, Walls]:
    rows = text.split("/")
    n = len(rows)
    if not MIN_BOARD_SIZE <= n <= MAX_BOARD_SIZE:
        raise ValueError(
            f"the board needs {MIN_BOARD_SIZE} to {MAX_BOARD_SIZE} rows (its side), got {n}"
        )
    sides = [0, 0, 0, 0]
    for row, line in enumerate(rows):
        if len(line) != n or any(char not in "0123456789abcdef" for char in line):
            raise ValueError(
                f"row {row} must be {n} hex digits 0-f (the board is square), got {line[:40]!r}"
            )
        for col, char in enumerate(line):
            for side in range(NUM_SIDES):
                if int(char, 16) >> side & 1:
                    sides[side] |= 1 << (row * n + col)
    return n, (sides[0], sides[1], sides[2], sides[3])


def _check_walls(n: int, walls: Walls) -> None:
    """Refuse barriers seen from one side only, or a border with a gap."""
    border = border_walls(n)
    for side in range(NUM_SIDES):
        if border[side] & ~walls[side]:
            (cell, *_) = cells_of(border[side] & ~walls[side])
            raise ValueError(
                f"the border lacks the {SIDE_NAMES[side]} side of {_cell_name(n, cell)}"
            )
        for cell in cells_of(walls[side] & ~border[side]):
            other = _neighbour(n, cell, side)
            if not has_wall(walls, other, OPPOSITE[side]):
                raise ValueError(
                    f"the barrier {SIDE_NAMES[side]} of {_cell_name(n, cell)} must also be "
                    f"{SIDE_NAMES[OPPOSITE[side]]} of {_cell_name(n, other)}"
                )


def _parse_cell(n: int, text: str, name: str) -> Cell:
    if text == "-":
        return NO_CELL
    row_text, sep, col_text = text.partition(",")
    problem = f"{name}'s cell is 'row,col' (or '-' before the start)"
    if not sep:
        raise ValueError(f"{problem}, got {text[:40]!r}")
    row, col = parse_natural(row_text, problem), parse_natural(col_text, problem)
    if row >= n or col >= n:
        raise ValueError(f"{name}'s cell {text[:40]} is off the {n}x{n} board")
    return row * n + col

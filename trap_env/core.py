"""The rules of Trap!, as a pure module: states are values, transitions are functions.

The board is a bitboard held in a Python ``int``: bit ``row * N + col`` stands for the
cell ``(row, col)``. Neighbour tables are built once per board size (the default size at
import) and every transition returns a new :class:`State`.

A turn is three steps, each an ``apply``: the player to act moves (phase ``MOVE``), names a
throw target (phase ``THROW``), and then chance decides where the trap lands (phase
``LANDING``, a chance node as in OpenSpiel: :func:`chance_outcomes` lists the exact
distribution and ``apply(state, cell)`` places the trap).

Example:
    >>> import random
    >>> state = initial_state(GameConfig(board_size=5))
    >>> state = apply(state, legal_actions(state)[0])   # move
    >>> state = apply(state, 12)                        # throw at the centre
    >>> state = apply(state, sample_landing(state, random.Random(0)))
    >>> state.phase, state.player
    (<Phase.MOVE: 0>, 1)

This module imports nothing outside the standard library.
"""

from __future__ import annotations

import enum
import functools
import operator
from dataclasses import dataclass
from typing import NamedTuple, Protocol

__all__ = [
    "NO_PLAYER",
    "Bitboard",
    "Cell",
    "GameConfig",
    "IllegalActionError",
    "Phase",
    "State",
    "apply",
    "chance_outcomes",
    "from_text",
    "initial_state",
    "is_terminal",
    "legal_action_mask",
    "legal_actions",
    "mobility",
    "move_mask",
    "neighbour_mask",
    "returns",
    "sample_landing",
    "to_ascii",
    "to_text",
    "validate_state",
    "winner",
]

Bitboard = int
"""A set of cells: bit ``row * N + col`` is set when cell ``(row, col)`` is in the set."""
Cell = int
"""A flat cell index, ``row * N + col``."""

NO_PLAYER = -1
"""The ``winner`` (and ``target``) field's value when there is none."""

MIN_BOARD_SIZE = 3
MAX_DISTANCE_ON_TARGET = 21
"""At Manhattan distance 21 or more the trap never lands on its target."""


class Phase(enum.IntEnum):
    """The step of a turn that the state is waiting for."""

    MOVE = 0
    THROW = 1
    LANDING = 2


class IllegalActionError(ValueError):
    """An action that the rules do not allow in this state, or any action in a finished game."""


class RandomSource(Protocol):
    """Anything with ``random() -> float`` in ``[0, 1)``: ``random.Random``, numpy's Generator."""

    def random(self) -> float: ...


@dataclass(frozen=True)
class GameConfig:
    """The parameters of a game.

    Attributes:
        board_size: N, the side of the square board; any integer N >= 3.
    """

    board_size: int = 7

    def __post_init__(self) -> None:
        size = self.board_size
        if isinstance(size, bool) or not isinstance(size, int) or size < MIN_BOARD_SIZE:
            raise ValueError(
                f"board_size must be an integer >= {MIN_BOARD_SIZE}, got {size!r}"
            )


class State(NamedTuple):
    """A position: a handful of ints, immutable and hashable.

    Attributes:
        board_size: N.
        traps: the cells holding a trap.
        cells: the cells of player 0 and player 1.
        player: the player to act; during ``LANDING``, the thrower.
        phase: what the state waits for: a move, a throw target, or chance.
        target: the pending throw's target during ``LANDING``, else ``NO_PLAYER`` (-1).
        turn: the number of turns completed (a turn is one player's move and throw).
        winner: 0 or 1 once the game is over, else ``NO_PLAYER`` (-1).
    """

    board_size: int
    traps: Bitboard
    cells: tuple[Cell, Cell]
    player: int
    phase: Phase
    target: Cell
    turn: int
    winner: int


_MOVE, _THROW, _LANDING = Phase.MOVE, Phase.THROW, Phase.LANDING
# State(...) costs a keyword-capable __new__; the transitions below build many states, so
# they call tuple.__new__ directly with the fields in order.
_new_state = tuple.__new__


class _Tables(NamedTuple):
    """Per-board-size lookup tables."""

    neighbours: tuple[Bitboard, ...]
    neighbour_cells: tuple[tuple[Cell, ...], ...]
    all_cells: list[Cell]


@functools.cache
def _tables(board_size: int) -> _Tables:
    cells = range(board_size * board_size)
    neighbour_cells = tuple(_king_step_cells(board_size, cell) for cell in cells)
    neighbours = tuple(_mask_of(group) for group in neighbour_cells)
    return _Tables(neighbours, neighbour_cells, list(cells))


def _king_step_cells(board_size: int, cell: Cell) -> tuple[Cell, ...]:
    row, col = divmod(cell, board_size)
    return tuple(
        r * board_size + c
        for r in (row - 1, row, row + 1)
        for c in (col - 1, col, col + 1)
        if (r, c) != (row, col) and 0 <= r < board_size and 0 <= c < board_size
    )


def _mask_of(cells: tuple[Cell, ...]) -> Bitboard:
    mask = 0
    for cell in cells:
        mask |= 1 << cell
    return mask


_tables(GameConfig().board_size)


def neighbour_mask(board_size: int, cell: Cell) -> Bitboard:
    """The on-board cells one king step from ``cell``."""
    return _tables(board_size).neighbours[cell]


def move_mask(state: State, player: int) -> Bitboard:
    """The cells ``player`` could step to now: neighbours holding no trap and no player."""
    blocked = state.traps | (1 << state.cells[1 - player])
    return _tables(state.board_size).neighbours[state.cells[player]] & ~blocked


def mobility(state: State, player: int) -> int:
    """The number of cells ``player`` could step to now."""
    return move_mask(state, player).bit_count()


def _can_move(neighbours: Bitboard, traps: Bitboard, other_cell: Cell) -> bool:
    return neighbours & ~(traps | (1 << other_cell)) != 0


def initial_state(config: GameConfig = GameConfig()) -> State:
    """The start: player 0 on ``(0, N // 2)``, player 1 on ``(N - 1, N // 2)``, no traps."""
    n = config.board_size
    return State(n, 0, (n // 2, (n - 1) * n + n // 2), 0, _MOVE, NO_PLAYER, 0, NO_PLAYER)


def is_terminal(state: State) -> bool:
    """Whether the game is over."""
    return state.winner != NO_PLAYER


def winner(state: State) -> int | None:
    """The winning player, or None while the game goes on."""
    return None if state.winner == NO_PLAYER else state.winner


def returns(state: State) -> tuple[float, float]:
    """The players' payoffs: +1 for the winner, -1 for the loser, 0 and 0 otherwise."""
    if state.winner == NO_PLAYER:
        return (0.0, 0.0)
    return (1.0, -1.0) if state.winner == 0 else (-1.0, 1.0)


def legal_actions(state: State) -> list[Cell]:
    """The actions allowed now, as ascending flat cells.

    Destinations in ``MOVE``, targets in ``THROW``, landing cells in ``LANDING``; nothing
    once the game is over.
    """
    if state.winner != NO_PLAYER:
        return []
    phase = state.phase
    if phase is _MOVE:
        player = state.player
        blocked = state.traps | (1 << state.cells[1 - player])
        cells = _tables(state.board_size).neighbour_cells[state.cells[player]]
        return [cell for cell in cells if not blocked >> cell & 1]
    if phase is _THROW:
        low, high = sorted(state.cells)
        every = _tables(state.board_size).all_cells
        return every[:low] + every[low + 1 : high] + every[high + 1 :]
    return sorted(cell for cell, _ in _landing(state))


def legal_action_mask(state: State) -> list[int]:
    """``legal_actions`` as a list of N*N zeros and ones."""
    mask = [0] * (state.board_size * state.board_size)
    for cell in legal_actions(state):
        mask[cell] = 1
    return mask


def chance_outcomes(state: State) -> list[tuple[Cell, float]]:
    """The landing distribution of the pending throw: ``(cell, probability)`` pairs.

    Each cell that the trap can land on appears once, the target first; the
    probabilities sum to 1 within rounding.

    Raises:
        ValueError: if the state is not in ``LANDING``.
    """
    if state.phase is not _LANDING or state.winner != NO_PLAYER:
        raise ValueError(
            f"chance_outcomes needs a state in phase LANDING, got {state.phase.name}"
            + (" (game over)" if state.winner != NO_PLAYER else "")
        )
    return list(_landing(state))


def _landing(state: State) -> tuple[tuple[Cell, float], ...]:
    thrower, other = state.cells if state.player == 0 else state.cells[::-1]
    return _landing_distribution(state.board_size, thrower, other, state.target)


@functools.lru_cache(maxsize=1 << 17)
def _landing_distribution(
    board_size: int, thrower: Cell, other: Cell, target: Cell
) -> tuple[tuple[Cell, float], ...]:
    thrower_row, thrower_col = divmod(thrower, board_size)
    target_row, target_col = divmod(target, board_size)
    distance = abs(thrower_row - target_row) + abs(thrower_col - target_col)
    eligible = [
        cell
        for cell in _tables(board_size).neighbour_cells[target]
        if cell != thrower and cell != other
    ]
    if distance >= MAX_DISTANCE_ON_TARGET:
        return tuple((cell, 1.0 / len(eligible)) for cell in eligible)
    on_target = ((target, (MAX_DISTANCE_ON_TARGET - distance) / 20),)
    if distance == 1:
        return on_target
    # Each neighbour gets (a - 1) / (20 n): the exact rational, not (1 - p) / n.
    share = (distance - 1) / (20 * len(eligible))
    return on_target + tuple((cell, share) for cell in eligible)


def sample_landing(state: State, rng: RandomSource) -> Cell:
    """Draw the landing cell of the pending throw from ``rng`` (anything with ``.random()``)."""
    if state.phase is not _LANDING or state.winner != NO_PLAYER:
        chance_outcomes(state)  # raises the error that explains the phase
    outcomes = _landing(state)
    draw = rng.random()
    for cell, probability in outcomes:
        draw -= probability
        if draw < 0:
            return cell
    return outcomes[-1][0]  # rounding left a sliver above the last cumulative sum


def apply(state: State, action: int) -> State:
    """The state after ``action``: a move, a throw target, or the landing cell.

    Raises:
        IllegalActionError: if the game is over or the action is not legal now; the
            message names the action, the phase and the legal choices.
    """
    cell = action if type(action) is int else _action_cell(action)
    if state.winner != NO_PLAYER:
        raise IllegalActionError(
            f"action {cell}: the game is over (player {state.winner} won); no action is legal"
        )
    phase = state.phase
    if phase is _MOVE:
        return _apply_move(state, cell)
    if phase is _THROW:
        return _apply_throw(state, cell)
    return _apply_landing(state, cell)


def _action_cell(action: object) -> Cell:
    """An action that is not a plain int: numpy integers pass, bools and the rest raise."""
    try:
        if isinstance(action, bool):
            raise TypeError
        return operator.index(action)  # type: ignore[arg-type]
    except TypeError:
        raise IllegalActionError(
            f"an action is a flat cell index (int), got {type(action).__name__} {action!r}"
        ) from None


def _apply_move(state: State, cell: Cell) -> State:
    n, traps, cells, player = state.board_size, state.traps, state.cells, state.player
    neighbours = _tables(n).neighbours
    other = cells[1 - player]
    if not 0 <= cell < n * n or not neighbours[cells[player]] >> cell & 1 or (
        (traps | (1 << other)) >> cell & 1
    ):
        raise _illegal(state, cell)
    new_cells = (cell, other) if player == 0 else (other, cell)
    won = not _can_move(neighbours[other], traps, cell)
    return _new_state(
        State,
        (n, traps, new_cells, player, _THROW, NO_PLAYER, state.turn, player if won else NO_PLAYER),
    )


def _apply_throw(state: State, cell: Cell) -> State:
    n = state.board_size
    if not 0 <= cell < n * n or cell in state.cells:
        raise _illegal(state, cell)
    return _new_state(
        State,
        (n, state.traps, state.cells, state.player, _LANDING, cell, state.turn, NO_PLAYER),
    )


def _apply_landing(state: State, cell: Cell) -> State:
    # The target is the likeliest landing cell; any other cell needs the full list.
    outcomes = _landing(state)
    if cell != outcomes[0][0] and all(cell != outcome for outcome, _ in outcomes):
        raise _illegal(state, cell)
    n, cells, player = state.board_size, state.cells, state.player
    traps = state.traps | (1 << cell)
    other = 1 - player
    won = not _can_move(_tables(n).neighbours[cells[other]], traps, cells[player])
    return _new_state(
        State,
        (n, traps, cells, other, _MOVE, NO_PLAYER, state.turn + 1, player if won else NO_PLAYER),
    )


def _illegal(state: State, action: int) -> IllegalActionError:
    legal = legal_actions(state)
    if state.phase is _THROW:
        allowed = (
            f"any cell 0..{state.board_size ** 2 - 1} except the players' cells "
            f"{sorted(state.cells)}"
        )
    else:
        allowed = f"one of {legal}"
    what = {_MOVE: "move to", _THROW: "throw at", _LANDING: "landing on"}[state.phase]
    return IllegalActionError(
        f"illegal action {action} ({what} {_coord_text(state.board_size, action)}) "
        f"for player {state.player} in phase {state.phase.name}; legal: {allowed}"
    )


def _coord_text(board_size: int, cell: int) -> str:
    if 0 <= cell < board_size * board_size:
        return "cell {},{}".format(*divmod(cell, board_size))
    return f"a cell outside the {board_size}x{board_size} board"


# --- Text notation --------------------------------------------------------------------

_EMPTY, _TRAP, _PLAYER_CHARS = ".", "x", "01"


def to_text(state: State) -> str:
    """A one-line notation of the state, read back exactly by :func:`from_text`.

    Five space-separated fields: the rows top to bottom joined by ``/`` (``.`` empty,
    ``x`` trap, ``0`` and ``1`` the players), the player to act, the phase, the pending
    target as ``row,col`` (``-`` outside ``LANDING``), and the number of turns completed.
    Example: ``...0.../......./......./......./......./......./...1... 0 move - 0``.
    """
    n = state.board_size
    chars = [_TRAP if state.traps >> cell & 1 else _EMPTY for cell in range(n * n)]
    for player, cell in enumerate(state.cells):
        chars[cell] = _PLAYER_CHARS[player]
    rows = "/".join("".join(chars[row * n : row * n + n]) for row in range(n))
    target = "-" if state.target == NO_PLAYER else "{},{}".format(*divmod(state.target, n))
    return f"{rows} {state.player} {state.phase.name.lower()} {target} {state.turn}"


def from_text(text: str) -> State:
    """Parse :func:`to_text`'s notation; the winner follows from the position.

    Raises:
        ValueError: naming the first problem found in the text.
    """
    fields = text.split()
    if len(fields) != 5:
        raise ValueError(
            f"state text needs 5 space-separated fields (rows, player, phase, target, turn), "
            f"got {len(fields)}: {text!r}"
        )
    board, player_text, phase_text, target_text, turn_text = fields
    n, traps, cells = _parse_board(board)
    player = _parse_choice(player_text, "player", ("0", "1"))
    phase = Phase[_parse_choice(phase_text, "phase", ("move", "throw", "landing")).upper()]
    target = _parse_target(target_text, n, phase)
    if not _is_digits(turn_text):
        raise ValueError(f"turn must be a non-negative integer, got {turn_text!r}")
    state = State(n, traps, cells, int(player), phase, target, int(turn_text), NO_PLAYER)
    state = state._replace(winner=_decided_winner(state))
    validate_state(state)
    return state


def _is_digits(text: str) -> bool:
    # str.isdigit() accepts '²' and other characters that int() rejects.
    return text.isascii() and text.isdigit()


def _parse_board(board: str) -> tuple[int, Bitboard, tuple[Cell, Cell]]:
    rows = board.split("/")
    n = len(rows)
    if n < MIN_BOARD_SIZE or any(len(row) != n for row in rows):
        raise ValueError(
            f"the board must be N >= {MIN_BOARD_SIZE} rows of N characters joined by '/', "
            f"got row lengths {[len(row) for row in rows]}"
        )
    flat = "".join(rows)
    unknown = set(flat) - {_EMPTY, _TRAP, *_PLAYER_CHARS}
    if unknown:
        raise ValueError(
            f"unknown board characters {sorted(unknown)}; allowed: '.' empty, 'x' trap, "
            "'0' and '1' the players"
        )
    if flat.count("0") != 1 or flat.count("1") != 1:
        raise ValueError(
            f"the board must hold each player exactly once, found player 0 "
            f"{flat.count('0')} times and player 1 {flat.count('1')} times"
        )
    traps = sum(1 << cell for cell, char in enumerate(flat) if char == _TRAP)
    return n, traps, (flat.index("0"), flat.index("1"))


def _parse_choice(text: str, name: str, allowed: tuple[str, ...]) -> str:
    if text not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {text!r}")
    return text


def _parse_target(text: str, n: int, phase: Phase) -> Cell:
    if phase is not _LANDING:
        if text != "-":
            raise ValueError(f"the target must be '-' outside phase landing, got {text!r}")
        return NO_PLAYER
    row_text, _, col_text = text.partition(",")
    if not (_is_digits(row_text) and _is_digits(col_text)):
        raise ValueError(f"the target must be 'row,col' in phase landing, got {text!r}")
    row, col = int(row_text), int(col_text)
    if not (row < n and col < n):
        raise ValueError(f"the target {text} is off the {n}x{n} board")
    return row * n + col


def validate_state(state: State) -> None:
    """Check that a state could arise in a game; raise ``ValueError`` naming what is wrong.

    Checks the field types and ranges, that no player stands on a trap or on the other
    player, that a pending target is a legal one, and that the stored winner is the one
    the position implies.
    """
    n = state.board_size
    GameConfig(n)
    size = n * n
    if not isinstance(state.traps, int) or not 0 <= state.traps < 1 << size:
        raise ValueError(f"traps must be a bitboard of {size} bits, got {state.traps!r}")
    if (
        not isinstance(state.cells, tuple)
        or len(state.cells) != 2
        or not all(_is_int(cell) and 0 <= cell < size for cell in state.cells)
    ):
        raise ValueError(f"cells must be two cells in 0..{size - 1}, got {state.cells!r}")
    if state.cells[0] == state.cells[1]:
        raise ValueError(f"both players stand on cell {state.cells[0]}")
    for player, cell in enumerate(state.cells):
        if state.traps >> cell & 1:
            raise ValueError(f"player {player} stands on a trap at cell {cell}")
    if not _is_int(state.player) or state.player not in (0, 1) or not isinstance(
        state.phase, Phase
    ):
        raise ValueError(
            f"player must be 0 or 1 and phase a Phase, got {state.player!r}, {state.phase!r}"
        )
    if not _is_int(state.turn) or state.turn < 0:
        raise ValueError(f"turn must be a non-negative int, got {state.turn!r}")
    if not _is_int(state.target) or (
        (state.phase is _LANDING) != (state.target != NO_PLAYER) or state.target in state.cells
    ):
        raise ValueError(
            f"target {state.target} does not fit phase {state.phase.name}: a target is a cell "
            "other than the players' in LANDING and -1 otherwise"
        )
    if state.phase is _LANDING and not 0 <= state.target < size:
        raise ValueError(f"target must be in 0..{size - 1}, got {state.target}")
    if state.winner != _decided_winner(state):
        raise ValueError(
            f"winner {state.winner!r} contradicts the position (the rules give "
            f"{_decided_winner(state)}; -1 means none)"
        )
    if state.phase is _LANDING and _decided_winner(state) != NO_PLAYER:
        raise ValueError("a throw is pending although the opponent is already trapped")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _decided_winner(state: State) -> int:
    """The winner that the position implies (``NO_PLAYER`` while play goes on).

    In ``MOVE`` a player with no legal move loses; in ``THROW`` and ``LANDING`` the player
    to act has just moved and wins if the opponent cannot move.
    """
    if state.phase is _MOVE:
        return 1 - state.player if mobility(state, state.player) == 0 else NO_PLAYER
    return state.player if mobility(state, 1 - state.player) == 0 else NO_PLAYER


def to_ascii(state: State) -> str:
    """A board drawing for people: coordinates, ``0``/``1`` players, ``x`` traps, ``*`` target."""
    n = state.board_size
    width = len(str(n - 1))
    header = " " * (width + 1) + " ".join(str(col).rjust(width) for col in range(n))
    lines = [header]
    for row in range(n):
        marks = []
        for col in range(n):
            cell = row * n + col
            if cell in state.cells:
                mark = _PLAYER_CHARS[state.cells.index(cell)]
            elif cell == state.target:
                mark = "*"
            else:
                mark = _TRAP if state.traps >> cell & 1 else _EMPTY
            marks.append(mark.rjust(width))
        lines.append(str(row).rjust(width) + " " + " ".join(marks))
    status = (
        f"player {state.winner} won"
        if state.winner != NO_PLAYER
        else f"player {state.player} to {state.phase.name.lower()}"
    )
    lines.append(f"turn {state.turn}, {status}")
    return "\n".join(lines)

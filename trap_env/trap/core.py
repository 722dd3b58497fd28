"""Trap!'s checked public API over the kernel: states as values, validated transitions, text.

The rules themselves live in :mod:`trap_env.trap.kernel` (the board geometry, the landing rule,
the transitions on bitboards); this module is their public, checked face: it validates
every action and every state it is given (a wrong type is a ``TypeError`` naming the
argument), names what was wrong when it refuses one, and reads and writes the text
notation.

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

from collections.abc import Sequence
from dataclasses import dataclass

from trap_env.bits import Bitboard, Cell, cells_of
from trap_env.checks import check_int, check_type, describe, is_int, parse_natural
from trap_env.game import (
    TRUNCATED,
    IllegalActionError,
    Outcome,
    RandomSource,
    action_index,
    turn_limit,
)
from trap_env.trap.kernel import (
    DEFAULT_DECAY,
    MAX_DECAY,
    NO_PLAYER,
    Phase,
    State,
    cached_geometry,
    decided_winner,
    geometry,
    land,
    landings,
    move,
    throw,
)

__all__ = [
    "DEFAULT_DECAY",
    "MAX_BOARD_SIZE",
    "MAX_DECAY",
    "MIN_BOARD_SIZE",
    "NO_PLAYER",
    "TRAPPED",
    "Bitboard",
    "Cell",
    "GameConfig",
    "IllegalActionError",
    "Outcome",
    "Phase",
    "State",
    "apply",
    "chance_outcomes",
    "default_turn_limit",
    "from_text",
    "initial_state",
    "is_terminal",
    "legal_action_mask",
    "legal_actions",
    "mobility",
    "move_mask",
    "neighbour_mask",
    "outcome",
    "resolve_turn_limit",
    "returns",
    "sample_landing",
    "to_ascii",
    "to_text",
    "validate_state",
    "winner",
]

MIN_BOARD_SIZE = 3
"""The smallest board side."""
MAX_BOARD_SIZE = 1000
"""The largest board side: the rules keep no per-cell table that grows as N**4, and are
tested on this board (the batched engine plays up to 8, the search agent up to 100)."""
TRAPPED = "trapped"
"""Trap!'s one end reason: a player has no step left (see :func:`outcome`)."""
# Module names for the phases: reading an enum member off its class is slow in the hot paths.
_MOVE, _THROW, _LANDING = Phase.MOVE, Phase.THROW, Phase.LANDING


@dataclass(frozen=True)
class GameConfig:
    """The parameters of a game.

    Attributes:
        board_size: N, the side of the square board; an integer from 3 to
            :data:`MAX_BOARD_SIZE` (1000).
        decay: the throw's accuracy loss per step of Manhattan distance beyond the first,
            an integer in per mille from 0 to 1000: a throw at distance ``a`` lands on its
            target with probability ``1 - (a - 1) * decay / 1000`` (clamped to ``[0, 1]``).
            50, the rules' 0.05, by default; 0 makes every throw land on its target.
    """

    board_size: int = 7
    decay: int = DEFAULT_DECAY

    def __post_init__(self) -> None:
        size = self.board_size
        if not (is_int(size) and MIN_BOARD_SIZE <= size <= MAX_BOARD_SIZE):
            raise ValueError(
                f"board_size must be an integer from {MIN_BOARD_SIZE} to {MAX_BOARD_SIZE}, "
                f"got {describe(size)}"
            )
        if not is_int(self.decay) or not 0 <= self.decay <= MAX_DECAY:
            raise ValueError(
                f"decay must be an integer per mille in 0..{MAX_DECAY} ({DEFAULT_DECAY} is "
                f"the rules' 0.05 per step), got {self.decay!r}"
            )


def default_turn_limit(board_size: int) -> int:
    """The turn after which environments and match runners call a game a draw: ``4 * N * N``.

    The rules have no limit; this is the one default that every runner shares.

    Raises:
        TypeError: if ``board_size`` is not an int.
    """
    check_int("board_size", board_size, "an int")
    return 4 * board_size * board_size


def resolve_turn_limit(max_turns: object, board_size: int) -> int:
    """``max_turns``, or :func:`default_turn_limit` when it is None; the one place a
    Trap! runner or environment turns its argument into a limit.

    Raises:
        ValueError: if ``max_turns`` is neither None nor a positive integer.
    """
    return turn_limit(max_turns, default_turn_limit(board_size))


def neighbour_mask(board_size: int, cell: Cell) -> Bitboard:
    """The on-board cells one king step from ``cell``.

    Raises:
        TypeError: if ``board_size`` or ``cell`` is not an int.
        ValueError: for a board size out of 3..1000 or a cell off the board.
    """
    sizes = f"{MIN_BOARD_SIZE}..{MAX_BOARD_SIZE}"
    check_int("board_size", board_size, f"an int in {sizes}")
    check_int("cell", cell, "an int cell index")
    if not MIN_BOARD_SIZE <= board_size <= MAX_BOARD_SIZE or not 0 <= cell < board_size**2:
        raise ValueError(
            f"neighbour_mask needs board_size in {sizes} and a cell in "
            f"0..board_size**2 - 1, got board_size {board_size} and cell {cell}"
        )
    return geometry(board_size).neighbours[cell]


def move_mask(state: State, player: int) -> Bitboard:
    """The cells ``player`` could step to now: neighbours holding no trap and no player.

    Raises:
        TypeError: if ``state`` is not a :class:`State` or ``player`` not an int.
        ValueError: if ``player`` is not 0 or 1.
    """
    _check_state_type(state)
    check_int("player", player, "0 or 1")
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player}")
    blocked = state.traps | (1 << state.cells[1 - player])
    tables = cached_geometry(state.board_size) or geometry(state.board_size)
    return tables.neighbours[state.cells[player]] & ~blocked


def mobility(state: State, player: int) -> int:
    """The number of cells ``player`` could step to now."""
    return move_mask(state, player).bit_count()


def initial_state(config: GameConfig = GameConfig()) -> State:
    """The start: player 0 on ``(0, N // 2)``, player 1 on ``(N - 1, N // 2)``, no traps.

    Raises:
        TypeError: if ``config`` is not a :class:`GameConfig`.
    """
    check_type("config", config, GameConfig, "a GameConfig, such as GameConfig(board_size=7)")
    n = config.board_size
    return State(
        n, 0, (n // 2, (n - 1) * n + n // 2), 0, _MOVE, NO_PLAYER, 0, NO_PLAYER, config.decay
    )


def is_terminal(state: State) -> bool:
    """Whether the rules have decided the game (a player is trapped)."""
    _check_state_type(state)
    return state.winner != NO_PLAYER


def outcome(state: State, max_turns: int | None = None) -> Outcome | None:
    """Whether and why the game is over: the one definition, used by every env and runner.

    A trapped player has lost (reason :data:`TRAPPED`); otherwise, at the start of a turn
    once ``max_turns`` turns are complete, the game is cut as a draw (reason
    ``"truncated"``). None while the game goes on.

    Args:
        state: the position.
        max_turns: the turn limit (see :func:`resolve_turn_limit`); None: no limit.

    Raises:
        TypeError: if ``state`` is not a :class:`State` or ``max_turns`` neither an int
            nor None.
    """
    _check_state_type(state)
    if max_turns is not None:
        check_int("max_turns", max_turns, "an int or None")
    if state.winner != NO_PLAYER:
        return Outcome(state.winner, TRAPPED)
    if max_turns is not None and state.phase is _MOVE and state.turn >= max_turns:
        return Outcome(None, TRUNCATED)
    return None


def winner(state: State) -> int | None:
    """The winning player, or None while the game goes on."""
    _check_state_type(state)
    return None if state.winner == NO_PLAYER else state.winner


def returns(state: State) -> tuple[float, float]:
    """The players' payoffs: +1 for the winner, -1 for the loser, 0 and 0 otherwise."""
    _check_state_type(state)
    if state.winner == NO_PLAYER:
        return (0.0, 0.0)
    return (1.0, -1.0) if state.winner == 0 else (-1.0, 1.0)


def legal_actions(state: State) -> list[Cell]:
    """The actions allowed now, as ascending flat cells.

    Destinations in ``MOVE``, targets in ``THROW``, landing cells in ``LANDING``; nothing
    once the game is over. (In ``THROW`` that is every cell but two: on large boards
    :func:`legal_action_mask` or a check of the two players' cells is cheaper.)
    """
    _check_state_type(state)
    if state.winner != NO_PLAYER:
        return []
    phase = state.phase
    if phase is _MOVE:
        return cells_of(move_mask(state, state.player))
    if phase is _THROW:
        low, high = sorted(state.cells)
        targets = list(range(state.board_size * state.board_size))
        del targets[high]
        del targets[low]
        return targets
    return sorted(cell for cell, _ in landings(state))


def legal_action_mask(state: State) -> list[int]:
    """``legal_actions`` as a list of N*N zeros and ones."""
    _check_state_type(state)
    size = state.board_size * state.board_size
    if state.phase is _THROW and state.winner == NO_PLAYER:
        mask = [1] * size
        for cell in state.cells:
            mask[cell] = 0
        return mask
    mask = [0] * size
    for cell in legal_actions(state):
        mask[cell] = 1
    return mask


def chance_outcomes(state: State) -> list[tuple[Cell, float]]:
    """The landing distribution of the pending throw: ``(cell, probability)`` pairs.

    Each cell that the trap can land on appears once, the target first (unless the throw
    cannot land on it); the probabilities sum to 1 within rounding. The distribution
    follows the state's ``decay`` (see :class:`GameConfig`).

    Raises:
        ValueError: if the state is not in ``LANDING``.
    """
    _check_state_type(state)
    if state.phase is not _LANDING or state.winner != NO_PLAYER:
        raise ValueError(
            f"chance_outcomes needs a state in phase LANDING, got {state.phase.name}"
            + (" (game over)" if state.winner != NO_PLAYER else "")
        )
    return list(landings(state))


def sample_landing(state: State, rng: RandomSource) -> Cell:
    """Draw the landing cell of the pending throw from ``rng`` (anything with ``.random()``)."""
    _check_state_type(state)
    if state.phase is not _LANDING or state.winner != NO_PLAYER:
        chance_outcomes(state)  # raises the error that explains the phase
    outcomes = landings(state)
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
    _check_state_type(state)
    cell = action if type(action) is int else action_index(action, "a flat cell index (int)")
    if state.winner != NO_PLAYER:
        raise IllegalActionError(
            f"action {cell}: the game is over (player {state.winner} won); no action is legal"
        )
    phase = state.phase
    n = state.board_size
    if 0 <= cell < n * n:
        if phase is _MOVE:
            if move_mask(state, state.player) >> cell & 1:
                return move(state, cell)
        elif phase is _THROW:
            if cell not in state.cells:
                return throw(state, cell)
        else:
            # The target is the likeliest landing cell; any other cell needs the full list.
            outcomes = landings(state)
            if cell == outcomes[0][0] or any(cell == outcome for outcome, _ in outcomes):
                return land(state, cell)
    raise _illegal(state, cell)


def _illegal(state: State, action: int) -> IllegalActionError:
    if state.phase is _THROW:
        allowed = (
            f"any cell 0..{state.board_size**2 - 1} except the players' cells {sorted(state.cells)}"
        )
    else:
        allowed = f"one of {legal_actions(state)}"
    what = {_MOVE: "move to", _THROW: "throw at", _LANDING: "landing on"}
    return IllegalActionError(
        f"illegal action {action} ({what[state.phase]} {_coord_text(state.board_size, action)}) "
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
    target as ``row,col`` (``-`` outside ``LANDING``), and the number of turns completed;
    then, only when the rule differs from the default, a sixth: ``decay=D`` (per mille).
    Example: ``...0.../......./......./......./......./......./...1... 0 move - 0``.

    Raises:
        TypeError: if ``state`` is not a :class:`State`.
    """
    _check_state_type(state)
    n = state.board_size
    chars = [_TRAP if state.traps >> cell & 1 else _EMPTY for cell in range(n * n)]
    for player, cell in enumerate(state.cells):
        chars[cell] = _PLAYER_CHARS[player]
    rows = "/".join("".join(chars[row * n : row * n + n]) for row in range(n))
    target = "-" if state.target == NO_PLAYER else "{},{}".format(*divmod(state.target, n))
    text = f"{rows} {state.player} {state.phase.name.lower()} {target} {state.turn}"
    return text if state.decay == DEFAULT_DECAY else f"{text} {_DECAY_FIELD}{state.decay}"


_DECAY_FIELD = "decay="


def from_text(text: str) -> State:
    """Parse :func:`to_text`'s notation; the winner follows from the position.

    Raises:
        TypeError: if ``text`` is not a str.
        ValueError: naming the first problem found in the text.
    """
    check_type("text", text, str, "a str in to_text's notation")
    fields = text.split()
    if len(fields) not in (5, 6):
        raise ValueError(
            "state text needs 5 space-separated fields (rows, player, phase, target, turn) "
            f"and optionally a 6th, decay=D; got {len(fields)}: {text[:80]!r}"
        )
    board, player_text, phase_text, target_text, turn_text = fields[:5]
    n, traps, cells = _parse_board(board)
    player = _parse_choice(player_text, "player", ("0", "1"))
    phase = Phase[_parse_choice(phase_text, "phase", ("move", "throw", "landing")).upper()]
    target = _parse_target(target_text, n, phase)
    turn = parse_natural(turn_text, "turn must be a non-negative integer")
    decay = _parse_decay(fields[5]) if len(fields) == 6 else DEFAULT_DECAY
    state = State(n, traps, cells, int(player), phase, target, turn, NO_PLAYER, decay)
    state = state._replace(winner=decided_winner(state))
    validate_state(state)
    return state


def _parse_decay(text: str) -> int:
    problem = f"the 6th field must be {_DECAY_FIELD}D with D an integer in 0..{MAX_DECAY}"
    name, sep, value = text.partition("=")
    if not sep or name != _DECAY_FIELD[:-1]:
        raise ValueError(f"{problem}, got {text[:40]!r}")
    decay = parse_natural(value, problem)
    if decay > MAX_DECAY:
        raise ValueError(f"{problem}, got {text[:40]!r}")
    return decay


def _parse_board(board: str) -> tuple[int, Bitboard, tuple[Cell, Cell]]:
    rows = board.split("/")
    n = len(rows)
    if not MIN_BOARD_SIZE <= n <= MAX_BOARD_SIZE or any(len(row) != n for row in rows):
        raise ValueError(
            f"the board must be N rows of N characters joined by '/', N from {MIN_BOARD_SIZE} "
            f"to {MAX_BOARD_SIZE}, "
            f"got row lengths {_some([len(row) for row in rows])}"
        )
    flat = "".join(rows)
    unknown = set(flat) - {_EMPTY, _TRAP, *_PLAYER_CHARS}
    if unknown:
        raise ValueError(
            f"unknown board characters {_some(sorted(unknown))}; allowed: '.' empty, 'x' trap, "
            "'0' and '1' the players"
        )
    if flat.count("0") != 1 or flat.count("1") != 1:
        raise ValueError(
            f"the board must hold each player exactly once, found player 0 "
            f"{flat.count('0')} times and player 1 {flat.count('1')} times"
        )
    traps = sum(1 << cell for cell, char in enumerate(flat) if char == _TRAP)
    return n, traps, (flat.index("0"), flat.index("1"))


def _some(items: Sequence[object], shown: int = 10) -> str:
    """``items`` for an error message: the first few, and how many more."""
    more = f" and {len(items) - shown} more" if len(items) > shown else ""
    return f"{list(items[:shown])}{more}"


def _parse_choice(text: str, name: str, allowed: tuple[str, ...]) -> str:
    if text not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {text[:40]!r}")
    return text


def _parse_target(text: str, n: int, phase: Phase) -> Cell:
    if phase is not _LANDING:
        if text != "-":
            raise ValueError(f"the target must be '-' outside phase landing, got {text[:40]!r}")
        return NO_PLAYER
    row_text, sep, col_text = text.partition(",")
    problem = "the target must be 'row,col' in phase landing"
    if not sep:
        raise ValueError(f"{problem}, got {text[:40]!r}")
    row, col = parse_natural(row_text, problem), parse_natural(col_text, problem)
    if not (row < n and col < n):
        raise ValueError(f"the target {text[:40]} is off the {n}x{n} board")
    return row * n + col


def validate_state(state: State) -> None:
    """Check that a state could arise in a game; raise ``ValueError`` naming what is wrong.

    Checks the field types and ranges (the board size and the decay as
    :class:`GameConfig` does), that no player stands on a trap or on the other
    player, that a pending target is a legal one, and that the stored winner is the one
    the position implies.

    Raises:
        TypeError: if ``state`` is not a :class:`State`.
    """
    _check_state_type(state)
    n = state.board_size
    GameConfig(n, state.decay)
    size = n * n
    if not isinstance(state.traps, int) or not 0 <= state.traps < 1 << size:
        raise ValueError(f"traps must be a bitboard of {size} bits, got {state.traps!r}")
    if (
        not isinstance(state.cells, tuple)
        or len(state.cells) != 2
        or not all(is_int(cell) and 0 <= cell < size for cell in state.cells)
    ):
        raise ValueError(f"cells must be two cells in 0..{size - 1}, got {state.cells!r}")
    if state.cells[0] == state.cells[1]:
        raise ValueError(f"both players stand on cell {state.cells[0]}")
    for player, cell in enumerate(state.cells):
        if state.traps >> cell & 1:
            raise ValueError(f"player {player} stands on a trap at cell {cell}")
    if not is_int(state.player) or state.player not in (0, 1) or not isinstance(state.phase, Phase):
        raise ValueError(
            f"player must be 0 or 1 and phase a Phase, got {state.player!r}, {state.phase!r}"
        )
    if not is_int(state.turn) or state.turn < 0:
        raise ValueError(f"turn must be a non-negative int, got {state.turn!r}")
    if not is_int(state.target) or (
        (state.phase is _LANDING) != (state.target != NO_PLAYER) or state.target in state.cells
    ):
        raise ValueError(
            f"target {state.target} does not fit phase {state.phase.name}: a target is a cell "
            "other than the players' in LANDING and -1 otherwise"
        )
    if state.phase is _LANDING and not 0 <= state.target < size:
        raise ValueError(f"target must be in 0..{size - 1}, got {state.target}")
    decided = decided_winner(state)
    if state.winner != decided:
        raise ValueError(
            f"winner {state.winner!r} contradicts the position (the rules give "
            f"{decided}; -1 means none)"
        )
    if state.phase is _LANDING and decided != NO_PLAYER:
        raise ValueError("a throw is pending although the opponent is already trapped")


def _check_state_type(state: object) -> None:
    """Refuse anything but a :class:`State` as the ``state`` of a public function (the
    searches' inner loops call :mod:`trap_env.trap.kernel` instead, which checks nothing)."""
    if not isinstance(state, State):  # the check itself only on the way to the error
        wanted = "a trap_env.trap.core.State, such as from_text(...) gives"
        check_type("state", state, State, wanted)


def to_ascii(state: State) -> str:
    """A board drawing for people: coordinates, ``0``/``1`` players, ``x`` traps, ``*`` target.

    Raises:
        TypeError: if ``state`` is not a :class:`State`.
    """
    _check_state_type(state)
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

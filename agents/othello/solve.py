"""Othello solved from the start on small boards (4x4, 6x6), and its ``perfect`` agent.

The value is the final disc margin, first player's discs minus second's, under perfect
play by both, with the rules' counting (:func:`trap_env.othello.rules.disc_counts`: an empty
cell at the end counts for nobody) and either end rule. Othello 6x6 under the standard
rule is a second-player win, 16 to 20 (Feinstein, 1993); the line of perfect play fills
the board, so the counting that gives empty cells to the winner agrees there.

The search is negamax alpha-beta on the margin: the compiled kernel
(:mod:`agents.othello.solve_kernel`, the ``solve`` extra's numba) below :data:`BOOK_PLIES`
plies, and above it a Python search that keeps each position's proven bounds in a
:class:`Book`, keyed by the position's canonical form under the square's eight
symmetries. The root runs MTD(f): null-window searches that close on the value. Each
bound is appended to a progress file as it is proven, so a solve that is stopped and
started again continues where it stood.

Example:
    >>> table = solve(board_size=4)          # doctest: +SKIP
    >>> table.report["margin"], table.report["discs"]   # doctest: +SKIP
    (-8, [3, 11])
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from agents.othello.random_agent import OthelloAgent
from agents.solved import SolvedTable, action_values, cache_folder, measured_solve
from trap_env.agent import UnsupportedGameError
from trap_env.cache import per_board_size
from trap_env.othello import rules
from trap_env.othello.game import GAME
from trap_env.othello.rules import Bitboard, OthelloConfig, OthelloState

__all__ = [
    "BOOK_PLIES",
    "ENDGAME",
    "ENDGAME_EMPTIES",
    "EXPECTED_MARGINS",
    "FEINSTEIN_LINE",
    "PERFECT_SIZES",
    "SOLVED_SIZES",
    "Book",
    "PerfectAgent",
    "Solver",
    "canonical",
    "endgame_values",
    "line_states",
    "line_values",
    "outcome_values",
    "solve",
]

SOLVED_SIZES = (4, 6)
"""The board sizes :func:`solve` solves from the start (either end rule)."""
BOOK_PLIES = 8
"""Plies from the start whose positions the Python search keeps in the book."""
PERFECT_SIZES = (4,)
"""The boards the ``perfect`` agent plays: those where it solves every position it meets
exactly. 6x6 joins once its start's solve has finished and its book ships with the package
(a book a local solve has logged only in part, read from a user's cache, would make the agent
neither perfect nor the same on every machine)."""
ENDGAME_EMPTIES = 12
"""The most empty cells of a position in a board's endgame set of solved positions
(:func:`endgame_values`): each action is solved in milliseconds there on 6x6."""
TABLE_BITS = 22
"""The kernel's transposition table has ``2**TABLE_BITS`` slots (19 bytes each)."""
FEINSTEIN_LINE = [
    "c2",
    "b4",
    "c5",
    "d2",
    "e4",
    "e3",
    "d1",
    "c1",
    "b1",
    "d5",
    "d6",
    "f4",
    "b3",
    "b2",
    "f3",
    "f2",
    "e2",
    "b6",
    "a4",
    "c6",
    "a6",
    "a2",
    "b5",
    "a5",
    "e6",
    "e5",
    "a3",
    "a1",
    "f5",
    "f6",
    "e1",
    "f1",
]
"""Perfect play on 6x6 under the standard rule as Feinstein published it (1993, "Perfect
play in 6x6 Othello", the 8x8 board's columns b-g and rows 2-7 shifted to a-f and 1-6):
dark passes before ``e1``; light wins 20 to 16."""
EXPECTED_MARGINS = {(4, rules.STANDARD): -8, (4, rules.COURSE): -6, (6, rules.STANDARD): -4}
"""The start's margin for dark where it is known (6x6 standard: Feinstein's; 4x4: this
solver's): the root's first null windows test it, so that a right one is proven by two
(at least it, at most it) and a wrong one only costs more windows (0 elsewhere)."""
MISSING_NUMBA = (
    "the Othello solver needs numba: install the solve extra (pip install 'trap_env[solve]')"
)


def kernel() -> Any:
    """The compiled kernel module.

    Raises:
        ValueError: in one line when numba is missing.
    """
    try:
        return importlib.import_module("agents.othello.solve_kernel")
    except ImportError:
        raise ValueError(MISSING_NUMBA) from None


# --- Symmetry ---------------------------------------------------------------------------


@per_board_size()
def _symmetries(board_size: int) -> list[list[int]]:
    """The square's eight symmetries as cell permutations (``perm[cell]`` is the image)."""
    n = board_size
    maps: list[Callable[[int, int], tuple[int, int]]] = [
        lambda r, c: (r, c), lambda r, c: (c, n - 1 - r), lambda r, c: (n - 1 - r, n - 1 - c),
        lambda r, c: (n - 1 - c, r), lambda r, c: (r, n - 1 - c), lambda r, c: (n - 1 - r, c),
        lambda r, c: (c, r), lambda r, c: (n - 1 - c, n - 1 - r),
    ]  # fmt: skip
    return [[(lambda rc: rc[0] * n + rc[1])(f(*divmod(cell, n))) for cell in range(n * n)]
            for f in maps]  # fmt: skip


def _permute(board: Bitboard, perm: list[int]) -> Bitboard:
    image = 0
    for cell in rules.cells_of(board):
        image |= 1 << perm[cell]
    return image


def canonical(board_size: int, own: Bitboard, other: Bitboard) -> tuple[tuple[int, int], int]:
    """The least image of ``(own, other)`` under the eight symmetries, and which one."""
    images = [
        ((_permute(own, perm), _permute(other, perm)), index)
        for index, perm in enumerate(_symmetries(board_size))
    ]
    return min(images)


# --- The book ---------------------------------------------------------------------------


@dataclass
class Book:
    """Proven bounds on positions' values, for the player to act, by canonical position.

    ``entries[(own, other)] = [lower, upper, cell]``: the value lies in ``[lower, upper]``
    and ``cell`` (in the canonical frame; -1 if none) is a placement whose value is at
    least ``lower``. A ``log`` receives each new bound as a JSON line.
    """

    board_size: int
    entries: dict[tuple[int, int], list[int]] = field(default_factory=dict)
    log: TextIO | None = None

    def get(self, own: Bitboard, other: Bitboard) -> tuple[int, int, int] | None:
        """The bounds and the move of a position in its own frame, or None."""
        key, symmetry = canonical(self.board_size, own, other)
        entry = self.entries.get(key)
        if entry is None:
            return None
        lower, upper, cell = entry
        if cell >= 0:
            cell = _symmetries(self.board_size)[symmetry].index(cell)
        return lower, upper, cell

    def record(self, own: Bitboard, other: Bitboard, lower: int, upper: int, cell: int) -> None:
        """Tighten the bounds of a position (``cell`` a move proving ``lower``, or -1)."""
        key, symmetry = canonical(self.board_size, own, other)
        if cell >= 0:
            cell = _symmetries(self.board_size)[symmetry][cell]
        new = self._merge(key, lower, upper, cell)
        if new is not None and self.log is not None:
            self.log.write(json.dumps([*key, *new]) + "\n")
            self.log.flush()

    def load(self, lines: Iterator[str]) -> None:
        """Read bounds that :meth:`record` logged (a cut last line is skipped)."""
        for line in lines:
            try:
                own, other, lower, upper, cell = json.loads(line)
            except (ValueError, TypeError):
                continue
            self._merge((own, other), lower, upper, cell)

    def _merge(self, key: tuple[int, int], lower: int, upper: int, cell: int) -> list[int] | None:
        """Narrow the entry of a canonical position; the new entry, or None if unchanged."""
        old = self.entries.get(key, [-64, 64, -1])
        new = [max(lower, old[0]), min(upper, old[1]), cell if lower > old[0] else old[2]]
        if new == old:
            return None
        self.entries[key] = new
        return new


# --- The solver -------------------------------------------------------------------------


class Solver:
    """Exact values of one board's positions: the book above :data:`BOOK_PLIES` plies from
    the start, the compiled kernel below.

    Args:
        config: the rules.
        book: proven bounds so far (a fresh one if None).
        table_bits: the kernel table's size.
        settings: where the kernel's techniques start (a
            :class:`agents.othello.solve_kernel.Settings`; its ``SETTINGS`` if None). They
            change the work, never a value.
    """

    def __init__(
        self,
        config: OthelloConfig,
        book: Book | None = None,
        table_bits: int = TABLE_BITS,
        settings: Any = None,
    ) -> None:
        if config.board_size * config.board_size > 64:
            raise ValueError(
                f"the solver plays boards up to 8x8, not {config.board_size}x{config.board_size}"
            )
        self.config = config
        self.book = Book(config.board_size) if book is None else book
        self.passes = config.end_rule == rules.STANDARD
        self.kernel = kernel()
        self.tables = self.kernel.make_tables(
            config.board_size, self.passes, table_bits, settings or self.kernel.SETTINGS
        )
        self.start_discs = 4

    @property
    def nodes(self) -> int:
        """Positions the kernel has searched (its move ordering's shallow searches apart)."""
        return int(self.tables.nodes[0])

    @property
    def ordering_nodes(self) -> int:
        """Positions the kernel's move ordering has visited in its shallow searches."""
        return int(self.tables.nodes[1])

    def _placements(self, own: Bitboard, other: Bitboard) -> Bitboard:
        return rules.placements(self.config.board_size, own, other)

    def _child(self, own: Bitboard, other: Bitboard, cell: int) -> tuple[Bitboard, Bitboard]:
        flipped = rules.flips(self.config.board_size, own, other, cell)
        return other & ~flipped, own | flipped | 1 << cell

    def window(self, own: Bitboard, other: Bitboard, alpha: int, beta: int) -> int:
        """The fail-soft value within ``(alpha, beta)``: exact inside, else a bound.

        Within :data:`BOOK_PLIES` plies of the start and at that ply, the book answers
        what it has proven and records what is proven next; deeper, the kernel alone."""
        moves = self._placements(own, other)
        if not moves:
            if self.passes and self._placements(other, own):
                return -self.window(other, own, -beta, -alpha)
            return own.bit_count() - other.bit_count()
        ply = (own | other).bit_count() - self.start_discs
        if ply > BOOK_PLIES:
            return int(self.kernel.solve_window(own, other, alpha, beta, self.tables)[0])
        known = self.book.get(own, other)
        lower, upper, hint = (-64, 64, -1) if known is None else known
        if lower >= beta or lower == upper:
            return lower
        if upper <= alpha:
            return upper
        alpha, beta = max(alpha, lower), min(beta, upper)
        if ply == BOOK_PLIES:
            best, best_cell = self.kernel.solve_window(own, other, alpha, beta, self.tables)
        else:
            best, best_cell = self._children(own, other, moves, hint, alpha, beta)
        if best <= alpha:
            self.book.record(own, other, -64, best, -1)
        else:
            self.book.record(own, other, best, 64 if best >= beta else best, best_cell)
        return int(best)

    def _children(
        self, own: Bitboard, other: Bitboard, moves: Bitboard, hint: int, alpha: int, beta: int
    ) -> tuple[int, int]:
        """Principal-variation search over the placements: the fail-soft value and the
        placement that gave it."""
        best, best_cell, low = -65, -1, alpha
        for cell in self._ordered(own, other, moves, hint):
            child_own, child_other = self._child(own, other, cell)
            if best_cell < 0:
                score = -self.window(child_own, child_other, -beta, -low)
            else:
                score = -self.window(child_own, child_other, -low - 1, -low)
                if low < score < beta:
                    score = -self.window(child_own, child_other, -beta, -score)
            if score > best:
                best, best_cell = score, cell
                low = max(low, score)
                if score >= beta:
                    break
        return best, best_cell

    def _ordered(self, own: Bitboard, other: Bitboard, moves: Bitboard, hint: int) -> list[int]:
        """The book's move first, then the fewest replies, then the lowest cell."""

        def key(cell: int) -> tuple[bool, int, int]:
            child_own, child_other = self._child(own, other, cell)
            return cell != hint, self._placements(child_own, child_other).bit_count(), cell

        return sorted(rules.cells_of(moves), key=key)

    def value(
        self,
        own: Bitboard,
        other: Bitboard,
        progress: Callable[[int, int], None] | None = None,
        guess: int = 0,
    ) -> int:
        """The exact margin for the player to act, by MTD(f) null windows from ``guess``;
        ``progress(lower, upper)`` hears each narrowing.

        A right guess costs two null windows (the value is at least ``guess``, and at most
        it): together a full proof. A wrong one costs more windows, never a wrong value."""
        lower, upper = -64, 64
        while lower < upper:
            beta = guess + 1 if guess == lower else guess
            guess = self.window(own, other, beta - 1, beta)
            if guess < beta:
                upper = guess
            else:
                lower = guess
            if progress is not None:
                progress(lower, upper)
        return lower

    def best_cell(self, own: Bitboard, other: Bitboard, value: int) -> int:
        """The lowest placement whose child keeps ``value`` (the position's exact value)."""
        for cell in rules.cells_of(self._placements(own, other)):
            child_own, child_other = self._child(own, other, cell)
            if -self.window(child_own, child_other, -value, -value + 1) >= value:
                return cell
        raise ValueError(f"no placement keeps the value {value}: it is not the position's value")

    def principal_variation(self, state: OthelloState, value: int) -> list[int]:
        """The game from ``state`` to its end by the lowest optimal action at each turn."""
        line: list[int] = []
        margin = value  # for the player to act
        while rules.legal_actions(state):
            own, other = rules.sides_of(state, state.player)
            if not self._placements(own, other):
                action = rules.pass_action(state.board_size)
            else:
                action = self.best_cell(own, other, margin)
            line.append(action)
            state = rules.apply(state, action)
            margin = -margin
        return line


def line_states(config: OthelloConfig, names: list[str]) -> list[OthelloState]:
    """The positions of a game given by its placements' names, from the start to its end;
    a pass is played where the player to act has none (as published lines leave them out).

    Raises:
        ValueError: for a placement the rules refuse.
    """
    state = rules.initial_state(config)
    states = [state]
    for name in names:
        if rules.legal_actions(state) == [rules.pass_action(config.board_size)]:
            state = rules.apply(state, rules.pass_action(config.board_size))
            states.append(state)
        state = rules.apply(state, rules.cell_from_name(config.board_size, name))
        states.append(state)
    return states


def line_values(
    solver: Solver, states: list[OthelloState], max_empties: int
) -> Iterator[tuple[int, int, int]]:
    """The exact margin for dark of each position of a game with at most ``max_empties``
    empty cells, from the end back (each solve warms the table for the next): ``(ply,
    empties, margin)``."""
    for ply in range(len(states) - 1, -1, -1):
        state = states[ply]
        empties = state.board_size**2 - (state.dark | state.light).bit_count()
        if empties > max_empties:
            return
        own, other = rules.sides_of(state, state.player)
        margin = solver.value(own, other) if rules.legal_actions(state) else (
            own.bit_count() - other.bit_count()
        )  # fmt: skip
        yield ply, empties, margin if state.player == rules.DARK else -margin


def outcome_values(solver: Solver, state: OthelloState) -> dict[int, float]:
    """Each legal action's outcome for the player to act under perfect play: win 1, loss -1,
    draw 0 (the sign of the final disc margin after it; a pass too).

    One search each, in the window ``(-1, 1)``: fail-soft, its result has the margin's sign
    without pinning the margin.
    """

    def decision_value(position: OthelloState) -> float:
        own, other = rules.sides_of(position, position.player)
        return float(np.sign(solver.window(own, other, -1, 1)))

    return action_values(GAME, decision_value, state)


def endgame_values(
    params: Mapping[str, Any],
) -> tuple[Callable[[OthelloState], dict[int, float] | None], str]:
    """The endgame set's values on the board of ``params`` (its ``solved_positions`` entry):
    :func:`outcome_values` of a position with at most :data:`ENDGAME_EMPTIES` empty cells,
    None of one with more; and what they cover.

    Raises:
        ValueError: for rules Othello refuses, a board over 8x8, or without numba.
    """
    solver = Solver(GAME.make_config(**params))

    def values(state: OthelloState) -> dict[int, float] | None:
        empties = state.board_size**2 - (state.dark | state.light).bit_count()
        return outcome_values(solver, state) if empties <= ENDGAME_EMPTIES else None

    return values, f"positions with at most {ENDGAME_EMPTIES} empty cells"


ENDGAME = endgame_values
"""Othello's endgame solver for solved positions (:func:`agents.solved_positions.endgame_solver`):
6x6, which ``perfect`` does not play, draws its endgame set with it."""


# --- The solve ---------------------------------------------------------------------------


def progress_path(config: OthelloConfig) -> Path:
    """Where a solve logs its bounds as it proves them (and a restart reads them)."""
    return cache_folder() / (
        f"othello-board_size={config.board_size}-end_rule={config.end_rule}.progress.jsonl"
    )


def _solve_start(config: OthelloConfig, log: TextIO) -> tuple[dict[str, Any], dict[str, Any]]:
    start = rules.initial_state(config)
    book = Book(config.board_size)
    path = progress_path(config)
    if path.exists():
        with path.open() as lines:
            book.load(lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with path.open("a") as book_log:
        book.log = book_log
        solver = Solver(config, book)

        def progress(lower: int, upper: int) -> None:
            print(json.dumps({"lower": lower, "upper": upper, "nodes": solver.nodes,
                              "seconds": round(time.perf_counter() - started, 1)}),
                  file=log, flush=True)  # fmt: skip

        guess = EXPECTED_MARGINS.get((config.board_size, config.end_rule), 0)
        margin = solver.value(start.dark, start.light, progress, guess)
        line = solver.principal_variation(start, margin)
    end = start
    for action in line:
        end = rules.apply(end, action)
    report = {
        "value": float(np.sign(margin)),
        "margin": margin,
        "discs": list(rules.disc_counts(end)),
        "principal_variation": [rules.action_name(config.board_size, a) for a in line],
        "positions": len(book.entries),
        "nodes": solver.nodes,
    }
    return _book_arrays(book), report


def _book_arrays(book: Book) -> dict[str, Any]:
    """The book as arrays (bitboards of at most 53 bits are exact in float64)."""
    rows = np.array([[*key, *entry] for key, entry in sorted(book.entries.items())],
                    dtype=np.float64).reshape(-1, 5)  # fmt: skip
    names = ("own", "other", "lower", "upper", "cell")
    return {name: rows[:, index] for index, name in enumerate(names)}


def solve(
    board_size: int = 6, end_rule: str = rules.STANDARD, log: TextIO | None = None
) -> SolvedTable:
    """Solve Othello from the start on a ``board_size`` board (see the module's docstring).

    The report's ``value`` is the start's value for the first player (1, 0, -1), ``margin``
    its disc margin, ``discs`` the final disc counts (dark, light) and
    ``principal_variation`` the game of perfect play (lowest optimal action each turn).

    Raises:
        ValueError: for a board outside :data:`SOLVED_SIZES`, or without numba.
    """
    config = OthelloConfig(board_size, end_rule)
    if board_size not in SOLVED_SIZES:
        sizes = ", ".join(f"{n}x{n}" for n in SOLVED_SIZES)
        raise ValueError(f"Othello is solved on the boards {sizes}, not {board_size}x{board_size}")
    kernel()
    arrays, report = measured_solve(lambda: _solve_start(config, log or sys.stderr))
    return SolvedTable("othello", GAME.config_params(config), arrays, report)


# --- The perfect agent -------------------------------------------------------------------


class PerfectAgent(OthelloAgent):
    """Perfect play on the boards of :data:`PERFECT_SIZES` (either end rule): at each
    decision an exact solve of the position, and the lowest placement that keeps the best
    disc margin. Needs the ``solve`` extra (numba).

    Its :meth:`action_values` value the outcome instead (win 1, loss -1, draw 0), the scale
    of every game's solved positions: the margin it plays by is a finer order, so its
    placement is always among the best by outcome, though not always the lowest of them.
    """

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._solvers: dict[OthelloConfig, Solver] = {}

    def check_game(self, config: object) -> None:
        """Refuse another game, a board it does not play perfectly, or a missing numba, in
        one line.

        Raises:
            UnsupportedGameError: naming the boards it plays or the extra to install.
        """
        super().check_game(config)
        assert isinstance(config, OthelloConfig)
        if config.board_size not in PERFECT_SIZES:
            sizes = ", ".join(f"{n}x{n}" for n in PERFECT_SIZES)
            raise UnsupportedGameError(
                f"perfect plays only the boards it solves at every move ({sizes}), not "
                f"{config.board_size}x{config.board_size} (6x6's start is not solved yet)"
            )
        try:
            kernel()
        except ValueError as error:
            raise UnsupportedGameError(f"perfect: {error}") from None

    def _solver(self, config: OthelloConfig) -> Solver:
        if config not in self._solvers:
            self.check_game(config)
            self._solvers[config] = Solver(config)
        return self._solvers[config]

    def action_values(self, state: OthelloState) -> dict[int, float]:
        """Each legal action's outcome for the player to act (:func:`outcome_values`)."""
        if not rules.legal_actions(state):
            raise ValueError(f"action_values needs a game in progress, got {rules.to_text(state)}")
        return outcome_values(self._solver(state.config), state)

    def select_action(self, state: OthelloState) -> int:
        """The lowest placement keeping the best margin (or the pass), by an exact solve."""
        legal = rules.legal_actions(state)
        if not legal:
            raise ValueError(f"select_action needs a game in progress, got {rules.to_text(state)}")
        if len(legal) == 1:
            return legal[0]
        solver = self._solver(state.config)
        own, other = rules.sides_of(state, state.player)
        return solver.best_cell(own, other, solver.value(own, other))

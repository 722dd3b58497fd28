"""Trap! solved on small boards by value iteration, and its ``perfect`` agent.

A decision position is the mover's cell, the other player's cell, the traps and the phase
(``MOVE`` or ``THROW``); who is player 0 does not matter (the rules are the same for both),
nor the turn (the game has no limit). Each placement ``(me, other, traps)`` with neither
player on a trap and the players apart has an index, by ascending
``(me * N*N + other) * 2**(N*N) + traps``; the table holds two arrays over them, ``move``
and ``throw``: the value for the player to act (win 1, loss -1, draw 0).

Value iteration sweeps a turn at a time: a throw position is worth the best target's
average over its landings (:func:`trap_env.trap.kernel.landing_distribution`, the kernel's
exact odds) of minus the opponent's move position after it; a move position the best
step's throw position. Finished positions keep their value (a mover with no step has lost,
a mover who has trapped the opponent has won). From all-draws, sweep ``k`` gives the value
of the game cut to a draw after ``k`` more turns, so sweep ``4 * N * N`` gives the start's
value under the runners' turn limit (:func:`trap_env.trap.core.default_turn_limit`); the
sweeps go on until no value changes by more than :data:`TOLERANCE`, the value of the game
in which a game that never ends is a draw: the limit of the cut games' values.

The sweeps are plain (every position from the last sweep's values) on purpose: the game
may cycle (a throw may land on a trap already there), its equations have more than one
solution, and solving the placements layer by layer by trap count, the most first, settles
on another (the 3x3 start 0.90178 instead of 0.90269, both exact solutions to 1e-12).
Where the cut games' values swing with the parity of the turns left they have no limit,
and the solve refuses once the largest change has not shrunk over :data:`SWING_SWEEPS`
sweeps, giving the turn-limited value: so on 4x4 with the default rules, and on 3x3 with
``decay=500`` or ``1000``.

A sweep is one matrix product per pair of players' cells; 4x4 (3.9 million placements)
takes 1-3 s a sweep and saves its values every :data:`CHECKPOINT_SWEEPS` sweeps under
:func:`agents.solved.work_folder`, where a stopped solve resumes.

Boards with a table: :data:`SOLVED_SIZES`; swept: :data:`SWEPT_SIZES`.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from threadpoolctl import threadpool_limits

from agents.seeded import SeededAgent
from agents.solved import (
    SolvedTable,
    action_values,
    best_action,
    load_or_solve,
    load_part,
    measured_solve,
    save_part,
    work_folder,
)
from agents.trap.search import check_decision_state
from trap_env.agent import UnsupportedGameError
from trap_env.trap import kernel
from trap_env.trap.core import GameConfig, Phase, State, default_turn_limit, initial_state
from trap_env.trap.game import GAME

__all__ = [
    "CHECKPOINT_PLACEMENTS",
    "SOLVED_SIZES",
    "SWEPT_SIZES",
    "TOLERANCE",
    "PerfectAgent",
    "Placements",
    "decision_value",
    "solve",
]

SOLVED_SIZES = (3,)
"""The board sizes with a table (default rules): :func:`solve`'s values settle there."""
SWEPT_SIZES = (3, 4)
"""The board sizes :func:`solve` sweeps: on 4x4 the values swing (it refuses, giving the
value under the turn limit)."""
TOLERANCE = 1e-12
"""Value iteration stops when no value changed by more than this in a sweep."""
MAX_SWEEPS = 20_000
"""The sweeps after which a solve gives up: some rules' values never settle (with
``decay=1000`` the values of cut games swing with the parity of the turns left)."""
SWING_SWEEPS = 64
"""Sweeps past the turn limit over which a largest change that does not shrink at all means
the values swing (see :func:`_value_iteration`)."""
CHECKPOINT_PLACEMENTS = 100_000
"""Boards with at least this many placements save their progress (:func:`solve`)."""
CHECKPOINT_SWEEPS = 10
"""Those boards save their values every this many sweeps."""

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Placements:
    """The placements of a board: ``(me, other, traps)`` with the players apart and off traps.

    Attributes:
        board_size: N.
        me: the mover's cell, per placement.
        other: the other player's cell, per placement.
        traps: the traps, per placement, as a bitboard.
        index: placement number by ``(me * N*N + other) * 2**(N*N) + traps``, -1 where none.
    """

    board_size: int
    me: IntArray
    other: IntArray
    traps: IntArray
    index: IntArray

    @classmethod
    def of(cls, board_size: int) -> Placements:
        """Every placement of the ``board_size`` board, in ascending key order."""
        cells = board_size * board_size
        every = np.arange(1 << cells, dtype=np.int64)
        index = np.full(cells * cells << cells, -1, dtype=np.int64)
        me, other, traps = [], [], []
        count = 0
        for a, b in _pairs(cells):  # pair by pair: no array of the whole key space but the index
            free = every[every & (1 << a | 1 << b) == 0]
            index[((a * cells + b) << cells) + free] = np.arange(count, count + free.size)
            count += free.size
            me.append(np.full(free.size, a))
            other.append(np.full(free.size, b))
            traps.append(free)
        joined = [np.concatenate(part) for part in (me, other, traps)]
        return cls(board_size, joined[0], joined[1], joined[2], index)

    def __len__(self) -> int:
        return len(self.me)

    def at(self, me: IntArray | int, other: IntArray | int, traps: IntArray | int) -> Any:
        """The placement number(s) of ``(me, other, traps)``."""
        cells = self.board_size * self.board_size
        key = (np.asarray(me, dtype=np.int64) * cells + other << cells) + traps
        return self.index[key]

    def of_state(self, state: State) -> int:
        """The placement number of a state, seen from its player to act."""
        me, other = state.cells[state.player], state.cells[1 - state.player]
        return int(self.at(me, other, state.traps))


def _landing_odds(board_size: int, decay: int) -> FloatArray:
    """``odds[thrower, other, target, cell]``: the kernel's chance that the throw lands on
    ``cell``; all 0 for a target on a player's cell (no such throw)."""
    cells = board_size * board_size
    odds = np.zeros((cells, cells, cells, cells))
    for a in range(cells):
        for b in range(cells):
            for t in range(cells):
                if len({a, b, t}) == 3:
                    for cell, p in kernel.landing_distribution(board_size, decay, a, b, t):
                        odds[a, b, t, cell] = p
    return odds


def _bit(a: int, b: int, cell: int) -> int:
    """The bit of ``cell`` in a trap set of the block ``(a, b)``: its rank among the cells
    other than ``a`` and ``b``."""
    return cell - (cell > a) - (cell > b)


_PAIRS_AT_ONCE = 16
"""Pairs of players' cells whose landings are laid out at once (4x4: 30 MB)."""


@dataclass(frozen=True)
class _Steps:
    """The steps that read and write the same bits (see :class:`_Transitions`): from the
    pairs ``source`` with ``here``'s bit clear to the pairs ``target`` with ``there``'s."""

    here: int
    there: int
    source: IntArray
    target: IntArray


@dataclass(frozen=True)
class _Transitions:
    """A board's sweep, by blocks of placements sharing the players' cells ``(me, other)``.

    A block holds one placement per trap set of the other cells, in ascending order: the
    index of a placement in its block is its trap set with the pair's two bits taken out
    (:func:`_bit`). The block ``(b, a)`` holds the same trap sets, so a landing on a cell
    (bit ``j``) leads from index ``i`` to index ``i | 1 << j`` there: every landing is a
    strided view, and a block's throw values are one matrix product with its odds. A step
    to ``d`` leads to the block ``(d, b)``, whose indices with ``a``'s bit clear are, in
    order, this block's with ``d``'s bit clear: another strided view. No gathers by
    placement, and the blocks go through each view together.
    """

    swapped: IntArray  # per pair (a, b): the block of (b, a)
    odds: FloatArray  # per pair: (legal target, landing cell), the pair's cells left out
    steps: list[_Steps]
    lost: BoolArray  # move positions whose mover has no step
    won: BoolArray  # throw positions whose mover has trapped the opponent

    @classmethod
    def of(cls, places: Placements, decay: int) -> _Transitions:
        n = places.board_size
        cells = np.arange(n * n)
        geometry = kernel.geometry(n)
        rings = np.array(geometry.neighbours, dtype=np.int64)
        me, other, traps = places.me, places.other, places.traps
        odds = _landing_odds(n, decay)
        pairs = _pairs(n * n)
        number = {pair: k for k, pair in enumerate(pairs)}
        others = [(cells != a) & (cells != b) for a, b in pairs]  # no throw at a player
        grouped: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for (a, b), k in number.items():
            for d in geometry.neighbour_cells[a]:
                if d != b:
                    key = (_bit(a, b, d), _bit(d, b, a))
                    grouped.setdefault(key, []).append((k, number[d, b]))
        return cls(
            np.array([number[b, a] for a, b in pairs]),
            np.stack(
                [odds[a, b][keep][:, keep] for (a, b), keep in zip(pairs, others, strict=True)]
            ),
            [_Steps(here, there, *np.array(moves).T) for (here, there), moves in grouped.items()],
            rings[me] & ~(traps | 1 << other) == 0,
            rings[other] & ~(traps | 1 << me) == 0,
        )


def _pairs(cells: int) -> list[tuple[int, int]]:
    """The pairs of players' cells ``(me, other)`` in the placements' order."""
    return [(a, b) for a in range(cells) for b in range(cells) if a != b]


def _sweep(moves: FloatArray, moves_of: _Transitions) -> tuple[FloatArray, FloatArray]:
    """One turn of value iteration: the throw values from ``moves``, then the move values."""
    t = moves_of
    pairs, bits = t.odds.shape[:2]
    by_pair = moves.reshape(pairs, -1)
    size = by_pair.shape[1]
    throws = np.empty_like(by_pair)
    for first in range(0, pairs, _PAIRS_AT_ONCE):
        chunk = slice(first, first + _PAIRS_AT_ONCE)
        after = -by_pair[t.swapped[chunk]]
        count = after.shape[0]
        landed = np.empty((count, bits, size))
        for bit in range(bits):
            set_half = after.reshape(count, -1, 2, 1 << bit)[:, :, 1:, :]
            wide = np.broadcast_to(set_half, (count, size >> bit + 1, 2, 1 << bit))
            landed[:, bit] = wide.reshape(count, size)
        throws[chunk] = (t.odds[chunk] @ landed).max(axis=1)
    throws.reshape(-1)[t.won] = 1.0
    best = np.full_like(by_pair, -np.inf)
    for step in t.steps:
        here = best[step.source]
        clear = here.reshape(here.shape[0], -1, 2, 1 << step.here)[:, :, 0, :]
        there = throws[step.target].reshape(here.shape[0], -1, 2, 1 << step.there)[:, :, 0, :]
        np.maximum(clear, there.reshape(clear.shape), out=clear)
        best[step.source] = here
    new_moves = best.reshape(-1)
    new_moves[t.lost] = -1.0
    return new_moves, throws.reshape(-1)


def _value_iteration(
    board_size: int, decay: int, folder: Path | None
) -> tuple[dict[str, FloatArray], dict[str, Any]]:
    places = Placements.of(board_size)
    t = _Transitions.of(places, decay)
    start = places.of_state(initial_state(GameConfig(board_size, decay)))
    limit = default_turn_limit(board_size)
    moves = np.where(t.lost, -1.0, 0.0)
    throws = np.zeros_like(moves)
    limited, done, earlier, change = None, 0, 0.0, np.inf
    found = None if folder is None else load_part(folder, "sweeps")
    if found is not None:  # resume where the last run saved
        moves, done, earlier = found["move"], int(found["sweeps"]), float(found["seconds"])
        limited = float(found["limited"]) if done >= limit else None
    started = time.perf_counter()
    changes: list[float] = []
    for sweep in range(done + 1, MAX_SWEEPS + 1):
        new_moves, throws = _sweep(moves, t)
        change = float(np.abs(new_moves - moves).max())
        moves = new_moves
        if sweep == limit:
            limited = float(moves[start])
        if sweep >= limit and change <= TOLERANCE:
            break
        if sweep > limit:
            changes = [*changes[1 - SWING_SWEEPS :], change]
            _check_settling(changes, limited)
        if folder is not None and sweep % CHECKPOINT_SWEEPS == 0:
            seconds = earlier + time.perf_counter() - started
            save_part(folder, "sweeps", _checkpoint(moves, sweep, limited, seconds))
            _log.info("sweep %d: change %.3g, %.0f s", sweep, change, seconds)
    else:
        raise ValueError(
            f"value iteration does not converge: values still change by {change:.3g} after "
            f"{MAX_SWEEPS} sweeps"
        )
    report = {
        "value": float(moves[start]),
        "value_turn_limited": limited,
        "turn_limit": limit,
        "positions": 2 * len(moves),
        "iterations": sweep,
        "seconds_all_runs": round(earlier + time.perf_counter() - started, 3),
        "resumed": found is not None,
    }
    return {"move": moves, "throw": throws}, report


def _check_settling(changes: list[float], limited: float | None) -> None:
    """Refuse values that swing: the cut games' values have no limit when the largest change
    over the last half of :data:`SWING_SWEEPS` sweeps is no smaller than over the first half
    (converging values shrink it geometrically; swinging ones repeat it exactly).

    Raises:
        ValueError: saying so, with the start's value under the turn limit.
    """
    half = SWING_SWEEPS // 2
    # Far above the tolerance only: near it, rounding may keep a converging change flat.
    if (
        len(changes) == SWING_SWEEPS
        and min(changes) > 1e3 * TOLERANCE
        and max(changes[half:]) >= max(changes[:half])
    ):
        raise ValueError(
            f"the values swing with the turns left (the largest change stays "
            f"{changes[-1]:.3g} a sweep), so the cut games' values have no limit and there is "
            f"no value without a turn limit; under the turn limit the start is worth {limited!r}"
        )


def _checkpoint(
    moves: FloatArray, sweep: int, limited: float | None, seconds: float
) -> dict[str, Any]:
    return {
        "move": moves,
        "sweeps": np.array(sweep),
        "limited": np.array(np.nan if limited is None else limited),
        "seconds": np.array(seconds),
    }


def solve(board_size: int = 3, decay: int = kernel.DEFAULT_DECAY) -> SolvedTable:
    """Solve Trap! on a ``board_size`` board (see the module's docstring).

    Boards of :data:`CHECKPOINT_PLACEMENTS` or more save each part as it finishes under
    :func:`agents.solved.work_folder` and resume from there.

    Raises:
        ValueError: for rules it does not solve (a board size outside :data:`SOLVED_SIZES`,
            values that never settle).
    """
    config = GameConfig(board_size, decay)  # checks the rules' ranges
    if board_size not in SWEPT_SIZES:
        raise ValueError(
            f"Trap! is solved on the boards {_sizes_text(SWEPT_SIZES)} (4x4: under the turn "
            f"limit only), not {board_size}x{board_size}"
        )
    rules = GAME.config_params(config)
    folder = work_folder("trap", rules) if _is_long(board_size) else None
    try:
        # One BLAS thread: the products are small, and threads that wait on a busy core spin.
        with threadpool_limits(limits=1):
            arrays, report = measured_solve(lambda: _value_iteration(board_size, decay, folder))
    except ValueError as error:
        raise ValueError(f"Trap! {board_size}x{board_size} with decay {decay}: {error}") from None
    return SolvedTable("trap", rules, arrays, report)


def _is_long(board_size: int) -> bool:
    """Whether the board's solve is long, saved as it goes."""
    cells = board_size * board_size
    return cells * (cells - 1) << (cells - 2) >= CHECKPOINT_PLACEMENTS


def _sizes_text(sizes: tuple[int, ...] = SOLVED_SIZES) -> str:
    return ", ".join(f"{n}x{n}" for n in sizes)


def decision_value(table: SolvedTable, places: Placements, state: State) -> float:
    """The table's value of a decision position (``MOVE`` or ``THROW``) for its player to act."""
    array = table.arrays["move" if state.phase is Phase.MOVE else "throw"]
    return float(array[places.of_state(state)])


class PerfectAgent(SeededAgent):
    """Perfect play without a turn limit, from the solved table of the board (solved and
    cached on first use): the optimal action, ties broken by the lowest.

    It plays only boards with a table (:data:`SOLVED_SIZES`, any decay).
    """

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._tables: dict[GameConfig, tuple[SolvedTable, Placements]] = {}

    def check_game(self, config: GameConfig) -> None:
        """Refuse a board with no table.

        Raises:
            UnsupportedGameError: naming the boards with one.
        """
        n = config.board_size
        if n not in SOLVED_SIZES:
            raise UnsupportedGameError(
                f"perfect plays only the solved boards ({_sizes_text()}), not {n}x{n}"
            )

    def action_values(self, state: State) -> dict[int, float]:
        """Each legal action's value for the player to act, from the table."""
        check_decision_state(state)
        config = GAME.config_of(state)
        self.check_game(config)
        if config not in self._tables:
            table, _ = load_or_solve("trap", GAME.config_params(config))
            self._tables[config] = table, Placements.of(config.board_size)
        table, places = self._tables[config]
        return action_values(GAME, lambda s: decision_value(table, places, s), state)

    def select_action(self, state: State) -> int:
        """The optimal action; the lowest of those tied."""
        return best_action(self.action_values(state))

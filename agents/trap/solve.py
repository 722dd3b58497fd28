"""Trap! solved on small boards by value iteration, and its ``perfect`` agent.

A decision position is the mover's cell, the other player's cell, the traps and the phase
(``MOVE`` or ``THROW``); who is player 0 does not matter (the rules are the same for both),
nor the turn (the game has no limit). Each placement ``(me, other, traps)`` with neither
player on a trap and the players apart has an index, by ascending
``(me * N*N + other) * 2**(N*N) + traps``; the table's arrays over them hold values for
the player to act (win 1, loss -1, draw 0): ``move_low``, ``move_high``, ``throw_low`` and
``throw_high``, the bounds below; ``move`` and ``throw`` the values where a strategy
certifies them (the lower bounds), or else the values of the games cut to a draw where
they settle (what ``perfect`` plays by).

Value iteration sweeps a turn at a time: a throw position is worth the best target's
average over its landings (:func:`trap_env.trap.kernel.landing_distribution`, the kernel's
exact odds) of minus the opponent's move position after it; a move position the best
step's throw position. Finished positions keep their value (a mover with no step has lost,
a mover who has trapped the opponent has won). Sweep ``k`` from a vector of move values
gives the game cut after ``k`` more turns that pays those values where it is cut: from
all-draws, sweep ``4 * N * N`` gives the start's value under the runners' turn limit
(:func:`trap_env.trap.core.default_turn_limit`).

Without a limit (a game that never ends is a draw) the value is bounded, not iterated to: a
throw may land on a trap already there, so play can cycle and the equations have several
solutions (plain sweeps from all-draws settle on one on 3x3 and swing on 4x4). Cut the game
after ``k`` turns with unfinished play the loss of the player to act at the position valued:
every payoff of the game without a limit is at least that, so that player holds it to no
less (``low``); with unfinished play that player's win, to no more (``high``). A sweep
is antitone (it negates the opponent's values), so ``low = sweep(high)`` and ``high =
sweep(low)`` from all-losses and all-wins make ``low`` non-decreasing and ``high``
non-increasing in ``k``, with every solution between them. At the start (player 0 to act)
they bound the first player's value. They stop when they meet there (to :data:`TOLERANCE`:
``value``), when neither moves by more than :data:`STILL` in a sweep, or at
:data:`MAX_SWEEPS` (``value_low``, ``value_high``: a gap means that how never-ending play is
scored changes the value, so optimal play may go on forever). 3x3's stay apart.

Where they stay apart on a board of :data:`SOLVED_SIZES`, a strategy certifies the value
(:mod:`agents.trap.certify`): played by either player against the other's best response,
each solved exactly with never-ending play a draw, it holds bounds that are sound whatever
the strategy; where they meet at the start within :data:`TOLERANCE`, the report gives
``value`` (``"certified_by": "strategy"``, the sweeps' bounds as ``value_swept_low`` and
``value_swept_high``), the bounds arrays take the tighter of the two, ``move`` and
``throw`` hold the lower ones and ``move_play`` and ``throw_play`` the strategy's cell per
position (``perfect`` plays them: greedy play of a solution may stall in a cycle it should
leave). On 3x3 the value is the sweeps' lower bound.

A sweep is one matrix product per pair of players' cells; 4x4 (3.9 million placements)
takes 1-3 s a sweep (two a bound sweep) and saves its bounds every :data:`CHECKPOINT_SWEEPS`
sweeps under :func:`agents.solved.work_folder`, where a stopped solve resumes.

Boards ``perfect`` plays: :data:`SOLVED_SIZES`; bounded: :data:`SWEPT_SIZES`.
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
from agents.trap.certify import certify_value
from agents.trap.placements import Placements, pairs_of
from agents.trap.search import check_decision_state
from trap_env.agent import UnsupportedGameError
from trap_env.trap import kernel
from trap_env.trap.core import GameConfig, Phase, State, default_turn_limit, initial_state
from trap_env.trap.game import GAME

__all__ = [
    "CHECKPOINT_PLACEMENTS",
    "MAX_SWEEPS",
    "POSITION_RUNGS",
    "SOLVED_SIZES",
    "STILL",
    "SWEPT_SIZES",
    "TOLERANCE",
    "PerfectAgent",
    "Placements",
    "decision_value",
    "solve",
]

SOLVED_SIZES = (3,)
"""The board sizes ``perfect`` plays, where the value is certified by a strategy when the
bounds stay apart (:mod:`agents.trap.certify`); its table."""
SWEPT_SIZES = (3, 4)
"""The board sizes :func:`solve` bounds."""
TOLERANCE = 1e-12
"""The bounds pin a value this close; the games cut to a draw settle when no value changes
by more than this in a sweep."""
STILL = 1e-15
"""The bounds stop when neither moves by more than this in a sweep."""
MAX_SWEEPS = 20_000
"""The sweeps after which the bounds stop, wherever they are."""
CHECKPOINT_PLACEMENTS = 100_000
"""Boards with at least this many placements save their progress (:func:`solve`)."""
CHECKPOINT_SWEEPS = 10
"""Those boards save their values every this many sweeps."""
POSITION_RUNGS = (
    "random",
    "epsilon-greedy:epsilon=0.5",
    "greedy",
    "alphabeta:depth=2,time_limit=none",
    "expectiminimax:depth=2,time_limit=none",
)
"""The ladder's rungs that play 3x3 without a clock, whose games the solved positions are
drawn from by default (:func:`agents.solved_positions.default_rungs`; the shipped set's)."""

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]

_log = logging.getLogger(__name__)


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
        pairs = pairs_of(n * n)
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


def _cut_now(t: _Transitions, unfinished: float) -> FloatArray:
    """The move values of the game cut before any turn: a mover with no step has lost, any
    other position pays ``unfinished`` to its player to act."""
    return np.where(t.lost, -1.0, unfinished)


@dataclass
class _Progress:
    """Where a solve stands after ``sweeps`` sweeps (what a checkpoint saves).

    Attributes:
        low: the move values of the games cut after ``sweeps`` turns with unfinished play the
            loss of the player to act: lower bounds, for that player, without a limit.
        high: the same with unfinished play that player's win: upper bounds.
        cut: the move values of the games cut to a draw (from all-draws); None past the turn
            limit on a board ``perfect`` does not play.
        cut_settled: whether ``cut`` has settled (changed by at most :data:`TOLERANCE` in a
            sweep past the turn limit): it is swept no more.
        sweeps: the sweeps done.
        limited: the start's value under the turn limit, once swept that far.
        seconds: the time of the earlier runs and this one up to the last save.
    """

    low: FloatArray
    high: FloatArray
    cut: FloatArray | None
    cut_settled: bool
    sweeps: int
    limited: float | None
    seconds: float

    @classmethod
    def first(cls, t: _Transitions) -> _Progress:
        return cls(_cut_now(t, -1.0), _cut_now(t, 1.0), _cut_now(t, 0.0), False, 0, None, 0.0)

    def saved(self) -> dict[str, Any]:
        """The arrays :func:`agents.solved.save_part` writes (as :data:`_PART`)."""
        return {
            "low": self.low,
            "high": self.high,
            "cut": np.empty(0) if self.cut is None else self.cut,
            "cut_settled": np.array(self.cut_settled),
            "sweeps": np.array(self.sweeps),
            "limited": np.array(np.nan if self.limited is None else self.limited),
            "seconds": np.array(self.seconds),
        }

    @classmethod
    def of_saved(cls, found: dict[str, Any]) -> _Progress:
        limited = float(found["limited"])
        return cls(
            found["low"],
            found["high"],
            found["cut"] if found["cut"].size else None,
            bool(found["cut_settled"]),
            int(found["sweeps"]),
            None if np.isnan(limited) else limited,
            float(found["seconds"]),
        )


_PART = "bounds-v1"
"""The checkpoint's name under the work folder: the bounds' sweeps. The plain sweeps of
earlier versions were saved as ``sweeps`` and are not read as bounds."""


def _value_iteration(
    board_size: int, decay: int, folder: Path | None, certified: bool = True
) -> tuple[dict[str, FloatArray], dict[str, Any]]:
    """The table's arrays and report (see the module); ``certified``: whether a strategy
    certifies the value where the bounds stay apart on a board of :data:`SOLVED_SIZES`."""
    places = Placements.of(board_size)
    t = _Transitions.of(places, decay)
    start = places.of_state(initial_state(GameConfig(board_size, decay)))
    limit = default_turn_limit(board_size)
    found = None if folder is None else load_part(folder, _PART)
    now = _Progress.first(t) if found is None else _Progress.of_saved(found)
    started, earlier = time.perf_counter(), now.seconds
    while True:  # at least one sweep: the bounds' throw values come from the last one
        (low, high), throws = _sweep_bounds(t, now.low, now.high)
        moved = max(float(np.abs(low - now.low).max()), float(np.abs(high - now.high).max()))
        now.low, now.high, now.sweeps = low, high, now.sweeps + 1
        _sweep_cut(now, t, board_size in SOLVED_SIZES, start, limit)
        stopped = _stopped(now, start, moved)
        if now.sweeps >= MAX_SWEEPS or (stopped != "sweep cap" and now.sweeps >= limit):
            break
        if folder is not None and now.sweeps % CHECKPOINT_SWEEPS == 0:
            now.seconds = earlier + time.perf_counter() - started
            save_part(folder, _PART, now.saved())
            _log.info(
                "sweep %d: the start in [%.12f, %.12f], bounds moved %.3g, %.0f s",
                now.sweeps, now.low[start], now.high[start], moved, now.seconds,
            )  # fmt: skip
    arrays = {"move_low": now.low, "move_high": now.high}
    arrays |= {"throw_low": throws[0], "throw_high": throws[1]}
    if now.cut is not None and now.cut_settled:  # settled: one more sweep changes nothing
        arrays["move"], arrays["throw"] = _sweep(now.cut, t)
    values = _start_values(now, start, stopped)
    if certified and stopped != "pinned" and board_size in SOLVED_SIZES:
        values = _certified(arrays, places, decay, start)
    report = {
        **values,
        "value_turn_limited": now.limited,
        "turn_limit": limit,
        "positions": 2 * len(now.low),
        "positions_open": _open(arrays),
        "iterations": now.sweeps,
        "stopped": stopped,
        "seconds_all_runs": round(earlier + time.perf_counter() - started, 3),
        "resumed": found is not None,
    }
    return arrays, report


def _sweep_bounds(
    t: _Transitions, low: FloatArray, high: FloatArray
) -> tuple[tuple[FloatArray, FloatArray], tuple[FloatArray, FloatArray]]:
    """A sweep of the bounds' move values ``low`` and ``high``: the new ones and their throw
    values. Each bound is a sweep of the other: a sweep negates the opponent's values, so
    the lower bound comes from the opponent's upper one."""
    (new_low, low_throws), (new_high, high_throws) = _sweep(high, t), _sweep(low, t)
    return (new_low, new_high), (low_throws, high_throws)


def _sweep_cut(now: _Progress, t: _Transitions, kept: bool, start: int, limit: int) -> None:
    """Sweep the games cut to a draw as far as they are needed: to the turn limit (the
    start's value there), and on a board ``perfect`` plays (``kept``) until they settle (its
    table)."""
    if now.cut is None or now.cut_settled:
        return
    cut, _ = _sweep(now.cut, t)
    now.cut_settled = now.sweeps >= limit and float(np.abs(cut - now.cut).max()) <= TOLERANCE
    now.cut = cut if kept or now.sweeps < limit else None
    if now.sweeps == limit:
        now.limited = float(cut[start])


def _stopped(now: _Progress, start: int, moved: float) -> str:
    """Why the bounds may stop: ``"pinned"`` (within :data:`TOLERANCE` at the start),
    ``"still"`` (neither moved by more than :data:`STILL` in the last sweep), or
    ``"sweep cap"`` (neither: they stop only at :data:`MAX_SWEEPS`)."""
    if now.high[start] - now.low[start] <= TOLERANCE:
        return "pinned"
    return "still" if moved <= STILL else "sweep cap"


def _start_values(now: _Progress, start: int, stopped: str) -> dict[str, float]:
    """The start's value without a turn limit where the bounds pin it (the lower one, within
    :data:`TOLERANCE` of the upper); else the bounds."""
    low, high = float(now.low[start]), float(now.high[start])
    return {"value": low} if stopped == "pinned" else {"value_low": low, "value_high": high}


def _certified(
    arrays: dict[str, FloatArray], places: Placements, decay: int, start: int
) -> dict[str, Any]:
    """Certify the value by a strategy (:func:`agents.trap.certify.certify_value`); where
    its bounds meet at the start, its value and play become the table's ``move`` and
    ``throw`` (what ``perfect`` plays) and its bounds the ``_low`` and ``_high`` arrays.
    The start's value, or its bounds (the tighter of the sweeps' and the strategy's)."""
    found = certify_value(places, decay, start)
    n = len(places)
    swept_low, swept_high = float(arrays["move_low"][start]), float(arrays["move_high"][start])
    low, high = float(found.low[start]), float(found.high[start])
    if high - low > TOLERANCE:
        return {"value_low": max(low, swept_low), "value_high": min(high, swept_high)}
    for kind, part in (("move", slice(None, n)), ("throw", slice(n, None))):
        arrays[f"{kind}_low"] = np.maximum(arrays[f"{kind}_low"], found.low[part])
        arrays[f"{kind}_high"] = np.minimum(arrays[f"{kind}_high"], found.high[part])
        arrays[kind] = arrays[f"{kind}_low"]  # the best lower bound: rounding apart, both
        arrays[f"{kind}_play"] = found.strategy[part].astype(np.float64)
    return {
        "value": max(low, swept_low),
        "certified_by": "strategy",
        "value_swept_low": swept_low,
        "value_swept_high": swept_high,
    }


def _open(arrays: dict[str, FloatArray]) -> int:
    """The positions (move and throw) whose bounds are more than :data:`TOLERANCE` apart."""
    return sum(
        int((arrays[f"{kind}_high"] - arrays[f"{kind}_low"] > TOLERANCE).sum())
        for kind in ("move", "throw")
    )


def solve(board_size: int = 3, decay: int = kernel.DEFAULT_DECAY) -> SolvedTable:
    """Solve Trap! on a ``board_size`` board (see the module's docstring).

    Boards of :data:`CHECKPOINT_PLACEMENTS` or more save their sweeps as they go under
    :func:`agents.solved.work_folder` and resume from there.

    Raises:
        ValueError: for a board size outside :data:`SWEPT_SIZES`.
    """
    config = GameConfig(board_size, decay)  # checks the rules' ranges
    if board_size not in SWEPT_SIZES:
        raise ValueError(
            f"Trap! is solved on the boards {_sizes_text(SWEPT_SIZES)}, not "
            f"{board_size}x{board_size}"
        )
    rules = GAME.config_params(config)
    folder = work_folder("trap", rules) if _is_long(board_size) else None
    # One BLAS thread: the products are small, and threads that wait on a busy core spin.
    with threadpool_limits(limits=1):
        arrays, report = measured_solve(lambda: _value_iteration(board_size, decay, folder))
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
    cached on first use).

    On the boards of :data:`SOLVED_SIZES` it plays the strategy that certifies the value
    (the table's ``move_play`` and ``throw_play``: optimal against any play, never stalling
    in a cycle it should leave). Where that strategy does not meet its bounds but the
    games cut to a draw settle, it plays the optimal action of their values (ties broken
    by the lowest), which lie within the bounds of the value.
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

    def _table(self, state: State) -> tuple[SolvedTable, Placements]:
        """The table of the state's board, and its placements."""
        check_decision_state(state)
        config = GAME.config_of(state)
        self.check_game(config)
        if config not in self._tables:
            table, _ = load_or_solve("trap", GAME.config_params(config))
            if "move" not in table.arrays:
                raise UnsupportedGameError(
                    f"perfect does not play Trap! {config.board_size}x{config.board_size} with "
                    f"decay {config.decay}: no strategy certifies its value and the values of "
                    "the games cut to a draw swing there"
                )
            self._tables[config] = table, Placements.of(config.board_size)
        return self._tables[config]

    def action_values(self, state: State) -> dict[int, float]:
        """Each legal action's value for the player to act, from the table."""
        table, places = self._table(state)
        return action_values(GAME, lambda s: decision_value(table, places, s), state)

    def select_action(self, state: State) -> int:
        """The certifying strategy's action; else the optimal action, the lowest of those tied."""
        table, places = self._table(state)
        play = table.arrays.get("move_play" if state.phase is Phase.MOVE else "throw_play")
        if play is not None:
            return int(play[places.of_state(state)])
        return best_action(self.action_values(state))

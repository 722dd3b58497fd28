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
in which a game that never ends is a draw.

Solved boards: :data:`SOLVED_SIZES` (4x4 needs the landing table of 3.9 million
placements by 14 targets by 9 landings, 4 GB: not built this way).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from agents.seeded import SeededAgent
from agents.solved import (
    SolvedTable,
    action_values,
    best_action,
    load_or_solve,
    measured_solve,
)
from agents.trap.search import check_decision_state
from trap_env.agent import UnsupportedGameError
from trap_env.trap import kernel
from trap_env.trap.core import GameConfig, Phase, State, default_turn_limit, initial_state
from trap_env.trap.game import GAME

__all__ = ["SOLVED_SIZES", "TOLERANCE", "PerfectAgent", "Placements", "decision_value", "solve"]

SOLVED_SIZES = (3,)
"""The board sizes :func:`solve` solves (any decay)."""
TOLERANCE = 1e-12
"""Value iteration stops when no value changed by more than this in a sweep."""
MAX_SWEEPS = 5_000
"""The sweeps after which a solve gives up: some rules' values never settle (with
``decay=1000`` the values of cut games swing with the parity of the turns left)."""

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]


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
        key = np.arange(cells * cells << cells, dtype=np.int64)
        me, other, traps = (key >> cells) // cells, (key >> cells) % cells, key & ((1 << cells) - 1)
        valid = (me != other) & (traps >> me & 1 == 0) & (traps >> other & 1 == 0)
        index = np.full(key.size, -1, dtype=np.int64)
        index[valid] = np.arange(int(valid.sum()))
        return cls(board_size, me[valid], other[valid], traps[valid], index)

    def at(self, me: IntArray | int, other: IntArray | int, traps: IntArray | int) -> Any:
        """The placement number(s) of ``(me, other, traps)``."""
        cells = self.board_size * self.board_size
        key = (np.asarray(me, dtype=np.int64) * cells + other << cells) + traps
        return self.index[key]

    def of_state(self, state: State) -> int:
        """The placement number of a state, seen from its player to act."""
        me, other = state.cells[state.player], state.cells[1 - state.player]
        return int(self.at(me, other, state.traps))


def _neighbour_table(board_size: int) -> IntArray:
    """Each cell's king-step neighbours, padded with -1 to 8."""
    rings = kernel.geometry(board_size).neighbour_cells
    return np.array([list(ring) + [-1] * (8 - len(ring)) for ring in rings], dtype=np.int64)


def _is_trapped(
    places: Placements, neighbours: IntArray, who: IntArray, blocker: IntArray
) -> BoolArray:
    """Whether the player on ``who`` has no step: each neighbour a trap or ``blocker``."""
    ring = neighbours[who]
    free = (ring >= 0) & (places.traps[:, None] >> np.maximum(ring, 0) & 1 == 0)
    free &= ring != blocker[:, None]
    trapped: BoolArray = ~free.any(axis=1)
    return trapped


@dataclass(frozen=True)
class _Transitions:
    """A board's sweep, as gathers: steps to throw positions, landings to move positions.

    The landings are listed flat, by placement, then legal target, then landing cell (only
    those with a chance): ``first[k]`` is where the k-th (placement, target) pair starts,
    each placement having the same number of legal targets, ``N*N - 2``.
    """

    step: IntArray  # (placements, 8): the throw position after each step, -1 where none
    landing: IntArray  # the opponent's move position after each landing
    odds: FloatArray  # its probability
    first: IntArray  # where each (placement, target) pair's landings start
    lost: BoolArray  # move positions whose mover has no step
    won: BoolArray  # throw positions whose mover has trapped the opponent


def _landing_odds(board_size: int, decay: int) -> tuple[IntArray, FloatArray]:
    """The kernel's landing distributions by (thrower, other, target), padded to 9 with odds 0."""
    cells = board_size * board_size
    land_cell = np.zeros((cells, cells, cells, 9), dtype=np.int64)
    land_odds = np.zeros((cells, cells, cells, 9))
    for a in range(cells):
        for b in range(cells):
            for t in range(cells):
                if len({a, b, t}) == 3:
                    outcomes = kernel.landing_distribution(board_size, decay, a, b, t)
                    land_cell[a, b, t, : len(outcomes)] = [cell for cell, _ in outcomes]
                    land_odds[a, b, t, : len(outcomes)] = [p for _, p in outcomes]
    return land_cell, land_odds


def _transitions(places: Placements, decay: int) -> _Transitions:
    n = places.board_size
    cells = n * n
    neighbours = _neighbour_table(n)
    me, other, traps = places.me, places.other, places.traps
    dest = neighbours[me]
    free = (dest >= 0) & (dest != other[:, None]) & (traps[:, None] >> np.maximum(dest, 0) & 1 == 0)
    step = np.where(free, places.at(np.maximum(dest, 0), other[:, None], traps[:, None]), -1)
    land_cell, land_odds = _landing_odds(n, decay)
    targets = np.arange(cells)
    target_ok = (targets != me[:, None]) & (targets != other[:, None])
    odds = land_odds[me, other]  # (placements, cells, 9)
    landed = traps[:, None, None] | (1 << land_cell[me, other])
    landing = places.at(other[:, None, None], me[:, None, None], landed)
    listed = (odds > 0) & target_ok[:, :, None]
    per_pair = listed.sum(axis=2)[target_ok]
    first = np.concatenate([[0], np.cumsum(per_pair)[:-1]])
    lost = _is_trapped(places, neighbours, me, other)
    won = _is_trapped(places, neighbours, other, me)
    return _Transitions(step, landing[listed], odds[listed], first, lost, won)


def _sweep(moves: FloatArray, moves_of: _Transitions) -> tuple[FloatArray, FloatArray]:
    """One turn of value iteration: the throw values from ``moves``, then the move values."""
    t = moves_of
    by_target = -np.add.reduceat(t.odds * moves[t.landing], t.first)
    throws = by_target.reshape(len(moves), -1).max(axis=1)
    throws[t.won] = 1.0
    by_step = np.where(t.step >= 0, throws[np.maximum(t.step, 0)], -np.inf)
    new_moves = by_step.max(axis=1)
    new_moves[t.lost] = -1.0
    return new_moves, throws


def _value_iteration(board_size: int, decay: int) -> tuple[dict[str, FloatArray], dict[str, Any]]:
    places = Placements.of(board_size)
    t = _transitions(places, decay)
    start = places.of_state(initial_state(GameConfig(board_size, decay)))
    limit = default_turn_limit(board_size)
    moves = np.where(t.lost, -1.0, 0.0)
    throws = np.zeros_like(moves)
    limited = None
    for sweep in range(1, MAX_SWEEPS + 1):
        new_moves, throws = _sweep(moves, t)
        change = float(np.abs(new_moves - moves).max())
        moves = new_moves
        if sweep == limit:
            limited = float(moves[start])
        if sweep >= limit and change <= TOLERANCE:
            break
    else:
        raise ValueError(
            f"value iteration on the {board_size}x{board_size} board with decay {decay} does not "
            f"converge: values still change by {change:.3g} after {MAX_SWEEPS} sweeps"
        )
    report = {
        "value": float(moves[start]),
        "value_turn_limited": limited,
        "turn_limit": limit,
        "positions": 2 * len(moves),
        "iterations": sweep,
    }
    return {"move": moves, "throw": throws}, report


def solve(board_size: int = 3, decay: int = kernel.DEFAULT_DECAY) -> SolvedTable:
    """Solve Trap! on a ``board_size`` board (see the module's docstring).

    Raises:
        ValueError: for rules it does not solve (a board size outside :data:`SOLVED_SIZES`).
    """
    config = GameConfig(board_size, decay)  # checks the rules' ranges
    if board_size not in SOLVED_SIZES:
        raise ValueError(
            f"Trap! is solved on the boards {_sizes_text()}, not {board_size}x{board_size}"
        )
    arrays, report = measured_solve(lambda: _value_iteration(config.board_size, config.decay))
    return SolvedTable("trap", GAME.config_params(config), arrays, report)


def _sizes_text() -> str:
    return ", ".join(f"{n}x{n}" for n in SOLVED_SIZES)


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
        if config.board_size not in SOLVED_SIZES:
            raise UnsupportedGameError(
                f"perfect plays only the solved boards ({_sizes_text()}), not "
                f"{config.board_size}x{config.board_size}"
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

"""Colosseum Survival! solved on the 3x3 board by retrograde analysis, and its ``perfect`` agent.

After the start there is no chance, and every turn puts one of the board's inner barriers
(``2 * M * (M - 1)``: 12 on 3x3) in place, so every game ends and the positions order
themselves by their barriers: a position's value needs only positions with one barrier
more. A decision position is the set of inner barriers (bit ``i`` for barrier ``i`` of
:func:`inner_barriers`), the mover's cell and the other player's cell; the table's one
array, ``value``, has shape ``(2**B, M*M, M*M)``, the value for the player to act (win 1,
loss -1, draw 0; players on one cell: 0, no position). A finished position (the players in
separate zones) scores its zones; any other is the best move's value: a destination within
:func:`~trap_env.colosseum.rules.max_steps` steps and a barrier on a free side of it, minus
the opponent's value after it. Each layer of barrier count is one set of NumPy gathers.

The start is the one chance (:data:`~trap_env.colosseum.rules.NUM_STARTS` start numbers);
the report gives the value of the start the rules name, or with ``start=-1`` the average
over every start number and how many the first player wins, draws and loses. No turn limit
cuts a game (the runners' limit exceeds the barriers), so both values are one.

Solved boards: :data:`SOLVED_SIZES` (4x4, 24 inner barriers, has 4 billion positions). On
:data:`START_SIZES` a start is solved alone, ``start=S`` (:mod:`agents.colosseum.exact`, an
alpha-beta search with a transposition table): the report gives its value, the positions
the search stored and the ``nodes`` it searched, and the table has no arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from agents.colosseum.exact import ExactSearch, exact_value
from agents.colosseum.random_agent import ColosseumAgent
from agents.solved import SolvedTable, action_values, best_action, load_or_solve, measured_solve
from agents.solved_positions import COMMON_RUNGS
from trap_env.agent import UnsupportedGameError
from trap_env.colosseum import rules
from trap_env.colosseum.game import GAME
from trap_env.colosseum.rules import (
    DOWN,
    NUM_STARTS,
    RANDOM_START,
    RIGHT,
    ColosseumConfig,
    ColosseumState,
)

__all__ = [
    "POSITION_RUNGS",
    "SOLVED_SIZES",
    "START_SIZES",
    "PerfectAgent",
    "decision_value",
    "inner_barriers",
    "position_of",
    "solve",
    "start_values",
]

SOLVED_SIZES = (3,)
"""The board sizes :func:`solve` solves whole."""
START_SIZES = (4,)
"""The board sizes :func:`solve` solves one start at a time."""
POSITION_RUNGS = (*COMMON_RUNGS, "mcts:simulations=20,time_limit=none")
"""The ladder's rungs that play 3x3 and 4x4 without a clock, whose games the solved
positions are drawn from by default (:func:`agents.solved_positions.default_rungs`; the
shipped sets')."""

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]


def inner_barriers(board_size: int) -> list[tuple[int, int]]:
    """The board's inner barriers as ``(cell, side)`` seen from the cell above or to the
    left: each cell's right side (but the last column's), then each cell's down side (but
    the last row's)."""
    n = board_size
    right = [(r * n + c, RIGHT) for r in range(n) for c in range(n - 1)]
    down = [(r * n + c, DOWN) for r in range(n - 1) for c in range(n)]
    return right + down


def position_of(state: ColosseumState) -> tuple[int, int, int]:
    """``(barriers, me, other)``: the table's index of a decision position."""
    barriers = 0
    for bit, (cell, side) in enumerate(inner_barriers(state.board_size)):
        barriers |= (state.walls[side] >> cell & 1) << bit
    return barriers, state.cells[state.player], state.cells[1 - state.player]


def _ends(board_size: int) -> IntArray:
    """``(B, 2)``: the two cells each inner barrier separates."""
    step = {RIGHT: 1, DOWN: board_size}
    return np.array([(cell, cell + step[side]) for cell, side in inner_barriers(board_size)])


def _closure(open_: BoolArray, cells: int) -> BoolArray:
    """The reflexive-transitive closure of each barrier set's adjacency ``(sets, c, c)``."""
    linked = (open_ | np.eye(cells, dtype=bool)).astype(np.uint8)
    for _ in range(max(1, (cells - 1).bit_length())):  # squaring doubles the path length
        linked = (linked @ linked > 0).astype(np.uint8)
    closed: BoolArray = linked > 0
    return closed


def _retrograde(board_size: int) -> FloatArray:
    """Every decision position's value (see the module's docstring)."""
    cells = board_size * board_size
    ends = _ends(board_size)
    count = len(ends)
    sets = np.arange(1 << count)
    has = (sets[:, None] >> np.arange(count) & 1).astype(bool)  # (sets, B)
    open_ = np.zeros((sets.size, cells, cells), dtype=bool)
    open_[:, ends[:, 0], ends[:, 1]] = ~has
    open_[:, ends[:, 1], ends[:, 0]] = ~has
    linked = _closure(open_, cells)
    zone = linked.sum(axis=2)  # (sets, cells): the size of each cell's zone
    me, other = np.meshgrid(np.arange(cells), np.arange(cells), indexing="ij")
    apart = ~linked[:, me, other]  # (sets, me, other)
    margin = zone[:, me] - zone[:, other]
    # Reach within K steps, never into the other player's cell.
    steps = open_.astype(np.uint8)
    reach = np.zeros((sets.size, cells, cells, cells), dtype=np.uint8)
    reach[:, me, other, me] = 1
    for _ in range(rules.max_steps(board_size)):
        reach = (reach | (np.einsum("somc,scd->somd", reach, steps) > 0)).astype(np.uint8)
        reach[:, me, other, other] = 0
    value = np.zeros((sets.size, cells, cells))
    done = apart & (me != other)
    value[done] = np.sign(margin[done])
    order = np.argsort(-has.sum(axis=1), kind="stable")
    layer_of = has.sum(axis=1)
    for layer in range(count, -1, -1):
        rows = order[layer_of[order] == layer]
        best = np.full((rows.size, cells, cells), -np.inf)
        reached = reach[rows] > 0
        for bit in range(count):
            free = ~has[rows, bit]
            child = rows | 1 << bit
            for end in ends[bit]:
                # Move to ``end``, barrier ``bit`` on its side: the opponent moves next.
                after = -value[child[:, None, None], other[None], end]
                ok = free[:, None, None] & reached[:, :, :, end]
                best = np.where(ok, np.maximum(best, after), best)
        playing = ~done[rows] & (me != other)
        value[rows] = np.where(playing, best, value[rows])
    return value


def start_values(value: FloatArray, board_size: int) -> FloatArray:
    """The value of each start number for the first player (``NUM_STARTS`` of them)."""
    found = np.empty(NUM_STARTS)
    config = ColosseumConfig(board_size)
    for start in range(NUM_STARTS):
        found[start] = value[position_of(rules.start_state(config, start))]
    return found


def _solve(board_size: int, start: int) -> tuple[dict[str, FloatArray], dict[str, Any]]:
    value = _retrograde(board_size)
    report: dict[str, Any] = {}
    if start == RANDOM_START:
        each = start_values(value, board_size)
        start_value = float(each.mean())
        report = {
            "starts_won": int((each > 0).sum()),
            "starts_drawn": int((each == 0).sum()),
            "starts_lost": int((each < 0).sum()),
        }
    else:
        start_value = float(
            value[position_of(rules.start_state(ColosseumConfig(board_size), start))]
        )
    positions = int((value.shape[1] * (value.shape[1] - 1)) * value.shape[0])
    report = {
        "value": start_value,
        "value_turn_limited": start_value,
        "turn_limit": GAME.default_turn_limit(ColosseumConfig(board_size)),
        "positions": positions,
        **report,
    }
    return {"value": value}, report


def _solve_start(config: ColosseumConfig) -> tuple[dict[str, FloatArray], dict[str, Any]]:
    """One start's value by the exact search; no arrays."""
    solved = exact_value(rules.start_state(config, config.start))
    report = {
        "value": float(solved.value),
        "value_turn_limited": float(solved.value),
        "turn_limit": GAME.default_turn_limit(config),
        "positions": solved.stored,
        "nodes": solved.nodes,
    }
    return {}, report


def solve(board_size: int = 3, start: int = RANDOM_START) -> SolvedTable:
    """Solve Colosseum Survival! on a ``board_size`` board, or one start of it (see the
    module's docstring).

    Raises:
        ValueError: for a board size outside :data:`SOLVED_SIZES`, or outside
            :data:`START_SIZES` with a start number.
    """
    config = ColosseumConfig(board_size, start)  # checks the rules' ranges
    if board_size in SOLVED_SIZES:
        arrays, report = measured_solve(lambda: _solve(board_size, start))
    elif board_size in START_SIZES and start != RANDOM_START:
        arrays, report = measured_solve(lambda: _solve_start(config))
    else:
        raise ValueError(
            f"Colosseum is solved on the boards {_sizes_text()}, and one start at a time "
            f"(--rule start=S) on {_sizes_text(START_SIZES)}; not {board_size}x{board_size}"
            + (" with every start" if board_size in START_SIZES else "")
        )
    return SolvedTable("colosseum", GAME.config_params(config), arrays, report)


def _sizes_text(sizes: tuple[int, ...] = SOLVED_SIZES) -> str:
    return ", ".join(f"{n}x{n}" for n in sizes)


def decision_value(table: SolvedTable, state: ColosseumState) -> float:
    """The table's value of a decision position for its player to act."""
    return float(table.arrays["value"][position_of(state)])


class PerfectAgent(ColosseumAgent):
    """Perfect play from the solved table of the board (solved and cached on first use), or
    on :data:`START_SIZES` from an exact search of each move (seconds a decision near the
    start): the optimal action, ties broken by the lowest."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._tables: dict[int, SolvedTable] = {}

    def check_game(self, config: object) -> None:
        """Refuse another game, or a board with no table.

        Raises:
            UnsupportedGameError: naming the boards with one.
        """
        super().check_game(config)
        assert isinstance(config, ColosseumConfig)
        if config.board_size not in SOLVED_SIZES + START_SIZES:
            raise UnsupportedGameError(
                f"perfect plays only the solved boards ({_sizes_text()}; "
                f"{_sizes_text(START_SIZES)} by search), not "
                f"{config.board_size}x{config.board_size}"
            )

    def action_values(self, state: ColosseumState) -> dict[int, float]:
        """Each legal action's value for the player to act, from the table."""
        config = GAME.config_of(state)
        self.check_game(config)
        if config.board_size in START_SIZES:
            search = ExactSearch(config.board_size)  # the moves share its table
            return action_values(GAME, lambda s: float(search.decision_value(s)), state)
        if config.board_size not in self._tables:
            rules_ = GAME.config_params(ColosseumConfig(config.board_size))
            self._tables[config.board_size] = load_or_solve("colosseum", rules_)[0]
        table = self._tables[config.board_size]
        return action_values(GAME, lambda s: decision_value(table, s), state)

    def select_action(self, state: ColosseumState) -> int:
        """The optimal action; the lowest of those tied."""
        return best_action(self.action_values(state))

"""A deliberately plain implementation of the Trap! rules, used only by the tests.

Everything here is written the obvious way, straight from docs/RULES.md: the board is a list of
lists of characters, cells are ``(row, col)`` pairs, probabilities are exact
``Fraction``s. It is slow and that is fine; its only job is to disagree with
``trap_env.trap.core`` when the core is wrong.

A grid state is a plain dict (copied on every step, never mutated in place):
``grid`` (N lists of N chars: '.' empty, 'x' trap), ``pos`` (two ``(row, col)``),
``player``, ``phase`` ('move', 'throw', 'landing'), ``target`` (``(row, col)`` or None),
``turn``, ``winner`` (None while play goes on) and ``decay`` (the throw's accuracy loss per
step of distance beyond the first, in per mille).
"""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

GridState = dict[str, Any]
Coord = tuple[int, int]


def start(n: int, decay: int = 50) -> GridState:
    """The fixed start: player 0 at (0, N//2), player 1 at (N-1, N//2), no traps."""
    return {
        "n": n,
        "grid": [["." for _ in range(n)] for _ in range(n)],
        "pos": [(0, n // 2), (n - 1, n // 2)],
        "player": 0,
        "phase": "move",
        "target": None,
        "turn": 0,
        "winner": None,
        "decay": decay,
    }


def neighbours(n: int, cell: Coord) -> list[Coord]:
    """The on-board cells around ``cell`` (up to 8), row by row."""
    row, col = cell
    found = []
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr == 0 and dc == 0:
                continue
            r, c = row + dr, col + dc
            if 0 <= r < n and 0 <= c < n:
                found.append((r, c))
    return found


def moves(state: GridState, player: int) -> list[Coord]:
    """The cells ``player`` may step to: on the board, no trap, not the opponent."""
    opponent = state["pos"][1 - player]
    return [
        (r, c)
        for (r, c) in neighbours(state["n"], state["pos"][player])
        if state["grid"][r][c] != "x" and (r, c) != opponent
    ]


def throw_targets(state: GridState) -> list[Coord]:
    """Every cell except the two players' cells (traps included)."""
    n = state["n"]
    return [(r, c) for r in range(n) for c in range(n) if (r, c) not in state["pos"]]


def landing(state: GridState) -> dict[Coord, Fraction]:
    """The exact landing distribution of the pending throw (cells with probability > 0)."""
    me = state["pos"][state["player"]]
    target = state["target"]
    a = abs(me[0] - target[0]) + abs(me[1] - target[1])
    p = 1 - (a - 1) * Fraction(state["decay"], 1000)
    if p < 0:
        p = Fraction(0)
    if p > 1:
        p = Fraction(1)
    eligible = [cell for cell in neighbours(state["n"], target) if cell not in state["pos"]]
    result: dict[Coord, Fraction] = {}
    if p > 0:
        result[target] = p
    if p < 1:
        for cell in eligible:
            result[cell] = (1 - p) / len(eligible)
    return result


def actions(state: GridState) -> list[Coord]:
    """The legal actions, as coordinates, in row-major order."""
    if state["winner"] is not None:
        return []
    if state["phase"] == "move":
        found = moves(state, state["player"])
    elif state["phase"] == "throw":
        found = throw_targets(state)
    else:
        found = list(landing(state))
    return sorted(found)


def step(state: GridState, action: Coord) -> GridState:
    """The state after ``action``; raises ValueError on an illegal one."""
    if action not in actions(state):
        raise ValueError(f"illegal action {action}")
    new = copy.deepcopy(state)
    me = state["player"]
    if state["phase"] == "move":
        new["pos"][me] = action
        if not moves(new, 1 - me):
            new["winner"] = me
        new["phase"] = "throw"
    elif state["phase"] == "throw":
        new["target"] = action
        new["phase"] = "landing"
    else:
        r, c = action
        new["grid"][r][c] = "x"
        new["target"] = None
        new["phase"] = "move"
        new["player"] = 1 - me
        new["turn"] += 1
        if not moves(new, 1 - me):
            new["winner"] = me
    return new


def to_index(n: int, cell: Coord) -> int:
    """The flat index of ``cell``."""
    return cell[0] * n + cell[1]


def to_coord(n: int, index: int) -> Coord:
    """The ``(row, col)`` of a flat index."""
    return (index // n, index % n)


def perft(state: GridState, depth: int) -> tuple[int, int]:
    """``(leaves, terminals)``: the states ``depth`` actions away, and how many of them are over.

    Every phase counts as one action, chance included; a finished game is a leaf at the
    depth where it ended and is counted once in both numbers.
    """
    if depth == 0 or state["winner"] is not None:
        return (1, 1 if state["winner"] is not None else 0) if depth == 0 else (0, 0)
    leaves = terminals = 0
    for action in actions(state):
        sub_leaves, sub_terminals = perft(step(state, action), depth - 1)
        leaves += sub_leaves
        terminals += sub_terminals
    return leaves, terminals


# The perft table that tests/data/perft.json holds: board size -> deepest depth.
PERFT_DEPTHS = {3: 9, 4: 7, 5: 6, 7: 5}


def perft_table() -> list[dict[str, int]]:
    """Compute the perft table with this oracle (about a minute)."""
    return [
        {"board_size": n, "depth": depth, "leaves": leaves, "terminals": terminals}
        for n, deepest in PERFT_DEPTHS.items()
        for depth in range(1, deepest + 1)
        for leaves, terminals in [perft(start(n), depth)]
    ]


if __name__ == "__main__":
    # Regenerate the data file: python -m tests.support.grid_oracle > tests/data/perft.json
    import json

    print(json.dumps(perft_table(), indent=1))

#!/usr/bin/env python3
"""An example Trap! agent in plain Python (standard library only), speaking trap-protocol 1.

It answers its first line with the hello ``trap-protocol 1``, so it receives the extras: a
``game`` line (it seeds its generator with the game's seed, so that one seed replays one
game) and a ``time`` line before each state, which it reads and skips. Its play is a
one-step greedy rule: move where it keeps the most room, throw next to the opponent.

Try it:
    trap-tournament random 'exec:python3 examples/python_agent.py' --games 4 --board-size 5

The protocol is in docs/PROTOCOL.md.
"""

from __future__ import annotations

import random
import sys

Board = list[str]
"""The board as N rows of characters: '.' empty, 'x' trap, '0' and '1' the players."""


def parse_state(line: str) -> tuple[Board, int, str]:
    """The board, the player to act and the phase ('move' or 'throw') of a state line."""
    rows, player, phase = line.split()[:3]  # later fields (target, turn) are not needed here
    return rows.split("/"), int(player), phase


def find(board: Board, char: str) -> tuple[int, int]:
    """The (row, col) of a player's character."""
    for row, text in enumerate(board):
        if char in text:
            return row, text.index(char)
    raise ValueError(f"player {char!r} is not on the board")


def neighbours(board: Board, row: int, col: int) -> list[tuple[int, int]]:
    """The up-to-8 cells around (row, col) that are on the board."""
    n = len(board)
    return [
        (row + dr, col + dc)
        for dr in (-1, 0, 1)
        for dc in (-1, 0, 1)
        if (dr or dc) and 0 <= row + dr < n and 0 <= col + dc < n
    ]


def free_neighbours(board: Board, row: int, col: int) -> list[tuple[int, int]]:
    """The cells around (row, col) holding neither a trap nor a player."""
    return [(r, c) for r, c in neighbours(board, row, col) if board[r][c] == "."]


def choose_move(board: Board, me: str, rng: random.Random) -> tuple[int, int]:
    """The free neighbouring cell with the most free cells around it (ties at random)."""
    moves = free_neighbours(board, *find(board, me))
    rng.shuffle(moves)
    return max(moves, key=lambda cell: len(free_neighbours(board, *cell)))


def choose_throw(board: Board, me: str, rng: random.Random) -> tuple[int, int]:
    """A free cell next to the opponent, the nearest to me (the most accurate throw)."""
    my_row, my_col = find(board, me)
    other = find(board, "1" if me == "0" else "0")
    targets = free_neighbours(board, *other) or [
        (r, c) for r in range(len(board)) for c in range(len(board)) if board[r][c] in ".x"
    ]
    rng.shuffle(targets)
    return min(targets, key=lambda cell: abs(cell[0] - my_row) + abs(cell[1] - my_col))


def decide(line: str, rng: random.Random) -> int:
    """The answer to a state line: the chosen cell's flat index, row * N + col."""
    board, player, phase = parse_state(line)
    me = str(player)
    row, col = choose_move(board, me, rng) if phase == "move" else choose_throw(board, me, rng)
    return row * len(board) + col


def main() -> None:
    """Say hello, then answer every state line; skip the other lines."""
    rng = random.Random(0)
    sys.stdin.readline()  # the first line is a state: answering the hello asks for the extras
    print("trap-protocol 1", flush=True)
    while line := sys.stdin.readline():
        keyword = line.split()[0]
        if keyword == "game":  # game seed=S size=N decay=D
            fields = dict(item.split("=") for item in line.split()[1:])
            rng.seed(fields["seed"])
        elif keyword not in ("trap-protocol", "time"):
            print(decide(line, rng), flush=True)


if __name__ == "__main__":
    main()

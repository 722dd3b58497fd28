"""A stand-in for the CSC384 Othello manager (``othello_game.py`` with ``othello_shared.py``),
for tests: the same writes and reads, in the same order, and the same rules.

Written from the starter's code, not from :mod:`trap_env.othello.rules`, so that it checks
the course AI against the manager rather than against our own rules:

* the AI is launched as ``[python, FILE]`` with pipes; the manager reads one line, the
  AI's name, then writes ``color,limit,minimax,caching,ordering`` (0/1 switches) or, as
  Columbia's original does, the colour alone;
* the board is a list of rows (``board[row][col]``, 0 empty, 1 dark, 2 light); the start
  puts 2 on ``(m, m)`` and ``(m+1, m+1)`` and 1 on ``(m+1, m)`` and ``(m, m+1)``,
  ``m = N // 2 - 1``; after the first move it is a tuple of tuples (``play_move``);
* each turn: if the player to act has no move, the game is over (the AIs get ``FINAL``
  and are killed); else the AI gets ``SCORE dark light`` and ``str(board)``, and must
  answer ``"i j"`` (column ``i``, row ``j``) within the time limit (wall clock);
  an occupied cell or a cell that flips nothing is an invalid move;
* ``FINAL dark light`` is written without a flush and the process is killed right after,
  as the starter does (``flush_final=True`` flushes it first, to see the AI exit on it).
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

Board = Sequence[Sequence[int]]
DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))


class InvalidMoveError(RuntimeError):
    """The AI named an occupied cell or one that captures nothing."""


class AiTimeoutError(RuntimeError):
    """The AI did not answer within the time limit."""


def find_lines(board: Board, i: int, j: int, player: int) -> list[list[tuple[int, int]]]:
    """The lines of opponent discs a disc of ``player`` on column ``i``, row ``j`` captures."""
    lines = []
    n = len(board)
    for xdir, ydir in DIRECTIONS:
        u, v = i + xdir, j + ydir
        line: list[tuple[int, int]] = []
        found = False
        while 0 <= u < n and 0 <= v < n:
            if board[v][u] == 0:
                break
            if board[v][u] == player:
                found = True
                break
            line.append((u, v))
            u, v = u + xdir, v + ydir
        if found and line:
            lines.append(line)
    return lines


def get_possible_moves(board: Board, player: int) -> list[tuple[int, int]]:
    """The (column, row) pairs where ``player`` may play, column by column."""
    n = len(board)
    return [
        (i, j) for i in range(n) for j in range(n)
        if board[j][i] == 0 and find_lines(board, i, j, player)
    ]  # fmt: skip


def play_move(board: Board, player: int, i: int, j: int) -> tuple[tuple[int, ...], ...]:
    """The board after ``player`` plays column ``i``, row ``j`` (a tuple of tuples)."""
    new = [list(row) for row in board]
    new[j][i] = player
    for line in find_lines(board, i, j, player):
        for u, v in line:
            new[v][u] = player
    return tuple(tuple(row) for row in new)


def get_score(board: Board) -> tuple[int, int]:
    """The discs of dark (1) and light (2)."""
    cells = [cell for row in board for cell in row]
    return cells.count(1), cells.count(2)


def initial_board(dimension: int) -> list[list[int]]:
    """The starter's ``create_initial_board`` (a list of lists)."""
    board = [[0] * dimension for _ in range(dimension)]
    m = dimension // 2 - 1
    board[m][m] = board[m + 1][m + 1] = 2
    board[m + 1][m] = board[m][m + 1] = 1
    return board


class AiPlayer:
    """``AiPlayerInterface``: the AI's process and the manager's side of the protocol."""

    def __init__(
        self,
        command: Sequence[str],
        color: int,
        limit: int = 4,
        *,
        colour_only: bool = False,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        timeout: float = 10.0,
    ) -> None:
        self.color, self.timeout = color, timeout
        self.process = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=cwd, env=env
        )
        assert self.process.stdout is not None and self.process.stdin is not None
        self.name = self.process.stdout.readline().decode("ASCII").strip()
        line = str(color) if colour_only else f"{color},{limit},0,1,1"
        self.process.stdin.write(f"{line}\n".encode("ASCII"))
        self.process.stdin.flush()

    def get_move(self, board: Board) -> tuple[int, int]:
        """Send the score and the board; read ``i j`` within the time limit."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        dark, light = get_score(board)
        stdin.write(f"SCORE {dark} {light}\n".encode("ASCII"))
        stdin.flush()
        stdin.write(f"{board!s}\n".encode("ASCII"))
        stdin.flush()
        timed_out = threading.Event()

        def expire() -> None:
            timed_out.set()
            self.process.kill()

        timer = threading.Timer(self.timeout, expire)
        timer.start()
        answer = stdout.readline().decode("ASCII")
        timer.cancel()
        if timed_out.is_set():
            raise AiTimeoutError(f"{self.name} timed out")
        i_s, j_s = answer.strip().split()
        return int(i_s), int(j_s)

    def kill(self, board: Board, flush_final: bool = False) -> int | None:
        """Write ``FINAL dark light``, then kill the process (or, with ``flush_final``,
        flush and give it a second to exit on its own); its exit code if it exited."""
        stdin = self.process.stdin
        assert stdin is not None
        dark, light = get_score(board)
        try:
            stdin.write(f"FINAL {dark} {light}\n".encode("ASCII"))
            if flush_final:
                stdin.flush()
                return self.process.wait(timeout=5)
        except (BrokenPipeError, subprocess.TimeoutExpired):
            pass
        finally:
            self.process.kill()
            self.process.wait()
        return None


@dataclass
class GameRecord:
    """What a managed game did: the moves (player, column, row), the final board."""

    moves: list[tuple[int, int, int]] = field(default_factory=list)
    board: Board = ()
    exit_codes: list[int | None] = field(default_factory=list)


def play_game(dimension: int, players: Sequence[AiPlayer], flush_final: bool = False) -> GameRecord:
    """The starter's ``play_game``: dark (player 1) first, the game over as soon as the
    player to act has no move.

    Raises:
        InvalidMoveError: for an occupied cell or a move that captures nothing.
        AiTimeoutError: for an AI that is late.
    """
    board: Board = initial_board(dimension)
    current = 1
    record = GameRecord()
    while get_possible_moves(board, current):
        i, j = players[current - 1].get_move(board)
        if not (0 <= i < dimension and 0 <= j < dimension) or board[j][i] != 0:
            raise InvalidMoveError(f"occupied or off the board: {i},{j}")
        if not find_lines(board, i, j, current):
            raise InvalidMoveError(f"invalid move: {i},{j}")
        board = play_move(board, current, i, j)
        record.moves.append((current, i, j))
        current = 1 if current == 2 else 2
    record.board = board
    record.exit_codes = [player.kill(board, flush_final) for player in players]
    return record

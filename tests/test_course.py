"""The course adapter: PlayerAI inside a stand-in of the course's Grid and game loop."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents import make_agent
from agents.course import PlayerAI, state_from_grid
from trap_env import core
from trap_env.core import Phase


class Grid:
    """A stand-in for the course's Grid: a float map, 0 empty, 1/2 players, -1 traps."""

    def __init__(self, dim: int = 7) -> None:
        self.dim = dim
        self.map = np.zeros((dim, dim), dtype=float)

    def find(self, value: int) -> tuple[np.int64, np.int64]:
        rows, cols = np.where(self.map == value)
        return rows[0], cols[0]

    def clone(self) -> Grid:
        grid = Grid(self.dim)
        grid.map = self.map.copy()
        return grid

    def getAvailableCells(self) -> list[tuple[int, int]]:
        return [(int(r), int(c)) for r, c in zip(*np.where(self.map == 0), strict=True)]

    def get_neighbors(
        self, pos: tuple[int, int], only_available: bool = False
    ) -> list[tuple[int, int]]:
        row, col = pos
        cells = [
            (r, c)
            for r in range(row - 1, row + 2)
            for c in range(col - 1, col + 2)
            if (r, c) != (row, col) and 0 <= r < self.dim and 0 <= c < self.dim
        ]
        return [cell for cell in cells if not only_available or self.map[cell] == 0]


def test_state_from_grid_reads_players_and_traps() -> None:
    grid = Grid(5)
    grid.map[0, 2], grid.map[4, 2], grid.map[2, 2] = 1.0, 2.0, -1.0
    state = state_from_grid(grid, 1, Phase.MOVE)
    assert state.cells == (2, 22) and state.traps == 1 << 12 and state.player == 1


def test_state_from_grid_rejects_a_missing_player() -> None:
    grid = Grid(5)
    grid.map[0, 2] = 1.0
    with pytest.raises(ValueError, match="player 2 once"):
        state_from_grid(grid, 0, Phase.MOVE)


def test_player_number_must_be_1_or_2() -> None:
    with pytest.raises(ValueError, match="1 or 2"):
        PlayerAI("random").setPlayerNum(0)


def play_course_game(players: list[PlayerAI], dim: int, seed: int) -> int:
    """The course's loop in miniature: move, check, throw, land, check. Returns the winner."""
    rng = random.Random(seed)
    grid = Grid(dim)
    starts = [(0, dim // 2), (dim - 1, dim // 2)]
    for number, (player, start) in enumerate(zip(players, starts, strict=True), start=1):
        player.setPlayerNum(number)
        player.setPosition(start)
        grid.map[start] = number
    turn = 0
    for _ in range(4 * dim * dim):
        me = players[turn]
        before = grid.find(turn + 1)
        move = me.getMove(grid.clone())
        assert move in grid.get_neighbors(before, only_available=True)
        assert me.getPosition() == before
        grid.map[before] = 0
        grid.map[move] = turn + 1
        me.setPosition(move)
        if not grid.get_neighbors(grid.find(2 - turn), only_available=True):
            return turn + 1
        target = me.getTrap(grid.clone())
        state = state_from_grid(grid, turn, Phase.THROW)
        landing = core.apply(state, target[0] * dim + target[1])
        cell = core.sample_landing(landing, rng)
        grid.map[divmod(cell, dim)] = -1
        if not grid.get_neighbors(grid.find(2 - turn), only_available=True):
            return turn + 1
        turn = 1 - turn
    return 0


@pytest.mark.parametrize(
    "specs, dim",
    [(("random", "greedy"), 7), (("expectiminimax:time_limit=0.05", "random"), 5)],
)
def test_full_game_between_two_player_ais(specs: tuple[str, str], dim: int) -> None:
    players = [PlayerAI(spec, seed=index) for index, spec in enumerate(specs)]
    winner = play_course_game(players, dim, seed=1)
    assert winner in (0, 1, 2)
    assert [player.getPlayerNum() for player in players] == [1, 2]


def test_player_ai_wraps_an_agent_object() -> None:
    grid = Grid(5)
    grid.map[0, 2], grid.map[4, 2] = 1.0, 2.0
    player = PlayerAI(make_agent("greedy", seed=0))
    player.setPlayerNum(2)
    row, col = player.getMove(grid)
    assert isinstance(row, int) and (row, col) in grid.get_neighbors((4, 2), True)

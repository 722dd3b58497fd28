"""The course adapter: PlayerAI inside a stand-in of the course engine (course_engine.py)."""

from __future__ import annotations

import re
import time
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from agents import make_agent
from agents.course import PlayerAI, state_from_grid
from agents.trap.random_agent import RandomAgent
from tests.support.course_engine import CourseEngine, Grid, landing_distribution
from trap_env.agent import UnsupportedGameError
from trap_env.trap import core
from trap_env.trap.core import GameConfig, Phase, State

COURSE_TIME_LIMIT = 1.0
"""The grading copy's limit: one CPU second per call."""


def grid_of(state: State) -> Grid:
    """The course grid of a state (player 0 is the course's 1, player 1 its 2)."""
    n = state.board_size
    grid = Grid(n)
    for cell in range(n * n):
        if state.traps >> cell & 1:
            grid.map[divmod(cell, n)] = -1.0
    for player, cell in enumerate(state.cells):
        grid.map[divmod(cell, n)] = player + 1.0
    return grid


# --- The stand-in engine itself ----------------------------------------------------------


@st.composite
def pending_throws(draw: st.DrawFn) -> State:
    """A state in LANDING, reached by random play on a random board size."""
    state = core.initial_state(GameConfig(draw(st.integers(3, 8))))
    for throws_left in range(draw(st.integers(0, 10)), -1, -1):
        for _ in ("move", "target"):
            state = core.apply(state, draw(st.sampled_from(core.legal_actions(state))))
            assume(not core.is_terminal(state))
        if throws_left == 0:
            return state
        state = core.apply(state, draw(st.sampled_from(core.legal_actions(state))))
        assume(not core.is_terminal(state))
    raise AssertionError("unreachable")


@given(pending_throws())
def test_the_engines_landing_law_is_the_cores(state: State) -> None:
    n = state.board_size
    thrower = divmod(state.cells[state.player], n)
    engine = landing_distribution(grid_of(state), thrower, divmod(state.target, n))
    expected = dict(core.chance_outcomes(state))
    got = {row * n + col: p for (row, col), p in engine if p > 0}
    assert got.keys() == expected.keys()
    assert all(got[cell] == pytest.approx(p) for cell, p in expected.items())


class Scripted:
    """A course player that answers from lists and can burn CPU time."""

    def __init__(self, moves: list[Any], traps: list[Any], burn: float = 0.0) -> None:
        self.moves, self.traps, self.burn = moves, traps, burn
        self.number: int | None = None
        self.position: tuple[int, int] | None = None

    def setPlayerNum(self, num: int) -> None:
        self.number = num

    def getPlayerNum(self) -> int | None:
        return self.number

    def setPosition(self, new_position: tuple[int, int]) -> None:
        self.position = new_position

    def getPosition(self) -> tuple[int, int] | None:
        return self.position

    def getMove(self, grid: Grid) -> Any:
        end = time.process_time() + self.burn
        while time.process_time() < end:
            pass
        return self.moves.pop(0)

    def getTrap(self, grid: Grid) -> Any:
        return self.traps.pop(0)


@pytest.mark.parametrize(
    ("move", "trap", "reason"),
    [
        ((0, 0), (2, 2), "invalid move"),  # two steps from (0, 2)
        ((0, 2), (2, 2), "invalid move"),  # staying put
        ((5, 1), (2, 2), "invalid move"),  # off the board
        ((1, 2), (4, 2), "invalid trap"),  # the opponent's cell
        ((1, 2), (1, 2), "invalid trap"),  # its own cell
    ],
)
def test_the_engine_scores_an_invalid_move_or_trap_as_a_loss(
    move: tuple[int, int], trap: tuple[int, int], reason: str
) -> None:
    players = [Scripted([move], [trap]), Scripted([], [])]
    result = CourseEngine(dim=5).play(players)
    assert result.winner == 2 and result.reason.startswith(reason)


def test_the_engine_scores_a_call_over_the_cpu_limit_as_a_loss() -> None:
    players = [Scripted([(1, 2)], [(2, 2)], burn=0.15), Scripted([], [])]
    result = CourseEngine(dim=5, time_limit=0.1).play(players)
    assert result.winner == 2 and "CPU" in result.reason


class PositionSettingPlayerAI(PlayerAI):
    """The old adapter: getMove set the new position before the engine checked it."""

    def getMove(self, grid: Any) -> tuple[int, int]:
        move = super().getMove(grid)
        self.setPosition(move)
        return move


def test_the_engine_rejects_an_adapter_that_sets_its_own_position() -> None:
    players = [PositionSettingPlayerAI("random", seed=0), PlayerAI("random", seed=1)]
    result = CourseEngine(dim=5).play(players)
    assert result.winner == 2 and result.reason.startswith("invalid move")


# --- PlayerAI in the engine --------------------------------------------------------------

SEARCH = "expectiminimax:time_limit=0.05"
PAIRINGS = [
    ("random", "greedy", 7),
    ("greedy", "random", 5),
    (SEARCH, "random", 5),
    ("random", SEARCH, 5),
    ("ppo", SEARCH, 7),
    (SEARCH, "ppo", 7),
    ("ppo", "greedy", 7),
]


@pytest.mark.parametrize(("first", "second", "dim"), PAIRINGS)
def test_whole_games_in_the_engine_end_without_a_fault(first: str, second: str, dim: int) -> None:
    if "ppo" in (first, second):
        pytest.importorskip("sb3_contrib")
    players = [PlayerAI(first, seed=1), PlayerAI(second, seed=2)]
    for seed in range(2):
        result = CourseEngine(dim=dim, time_limit=COURSE_TIME_LIMIT, seed=seed).play(players)
        assert result.reason in ("trapped", "truncated"), result
    assert [player.getPlayerNum() for player in players] == [1, 2]


class TurnRecorder:
    """An agent that plays the lowest legal cell and records each state's turn and phase."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, Phase]] = []

    def reset(self, seed: int | None = None) -> None:
        del seed

    def select_action(self, state: State) -> int:
        self.seen.append((state.turn, state.phase))
        return core.legal_actions(state)[0]


def test_the_agent_sees_the_games_turn_count() -> None:
    recorders = [TurnRecorder(), TurnRecorder()]
    players = [PlayerAI(recorder) for recorder in recorders]
    for _ in range(2):  # a second game starts the count again
        for recorder in recorders:
            recorder.seen.clear()
        CourseEngine(dim=5, max_turns=6).play(players)
        for number, recorder in enumerate(recorders):
            turns = [turn for turn, _ in recorder.seen]
            assert turns[:6] == [number, number, number + 2, number + 2, number + 4, number + 4]


def test_get_move_leaves_the_position_to_the_engine() -> None:
    grid = Grid(5)
    grid.map[0, 2], grid.map[4, 2] = 1.0, 2.0
    player = PlayerAI("greedy", seed=0)
    player.setPlayerNum(1)
    player.setPosition((0, 2))
    player.getMove(grid.clone())
    assert player.getPosition() == (0, 2)


# --- Reading the grid ------------------------------------------------------------------


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


def test_player_ai_wraps_an_agent_object() -> None:
    grid = Grid(5)
    grid.map[0, 2], grid.map[4, 2] = 1.0, 2.0
    player = PlayerAI(make_agent("greedy", seed=0, game="trap"))
    player.setPlayerNum(2)
    row, col = player.getMove(grid)
    assert isinstance(row, int) and (row, col) in grid.get_neighbors((4, 2), True)


def test_find_returns_numpy_integers_as_the_course_grid_does() -> None:
    grid = Grid(5)
    grid.map[0, 2] = 1.0
    row, col = grid.find(1)
    assert isinstance(row, np.integer) and isinstance(col, np.integer)


def test_a_new_game_resets_the_wrapped_agent() -> None:
    resets: list[int | None] = []

    class Recording(RandomAgent):
        def reset(self, seed: int | None = None) -> None:
            resets.append(seed)

    player = PlayerAI(Recording())
    player.setPlayerNum(1)
    player.setPlayerNum(2)  # the engine numbers the player as each game begins
    assert len(resets) == 2


# --- Types at the edges -----------------------------------------------------------------


class LooseGrid:
    """A grid of any ``dim`` and ``map``, as a careless caller might build one."""

    def __init__(self, dim: Any, cells: Any) -> None:
        self.dim, self.map = dim, cells


def opening_rows(n: int = 4) -> list[list[float]]:
    rows = [[0.0] * n for _ in range(n)]
    rows[0][1], rows[n - 1][1] = 1.0, 2.0
    return rows


@pytest.mark.parametrize(
    ("grid", "error", "words"),
    [
        (None, TypeError, "grid must be the course's Grid, with dim and map, got NoneType"),
        (LooseGrid("4", opening_rows()), TypeError, "grid.dim must be an integer board size"),
        (LooseGrid(4.0, opening_rows()), TypeError, "grid.dim must be an integer board size"),
        (LooseGrid(4, None), TypeError, "grid.map must be 4 rows of 4 numbers"),
        (
            LooseGrid(4, [[0, 1, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0], [0, 2, 0, 0]]),
            ValueError,
            "got rows of lengths [3, 5, 4, 4]",
        ),
        (LooseGrid(4, ["0100", "0000", "0000", "0200"]), TypeError, "found str '0'"),
        (LooseGrid(4, np.zeros((4, 4, 2))), TypeError, "found ndarray"),
        (LooseGrid(4, [[0, True, 0, 0], *opening_rows()[1:]]), TypeError, "found bool True"),
    ],
)
def test_a_malformed_grid_is_refused_naming_what_is_wrong(
    grid: Any, error: type, words: str, capsys: Any
) -> None:
    with pytest.raises(error, match=re.escape(words)):
        state_from_grid(grid, 0, Phase.MOVE)
    player = PlayerAI("random")  # in the engine: a line on stderr and an answer
    player.setPlayerNum(1)
    player.setPosition((0, 1))
    answer = player.getMove(grid)
    assert isinstance(answer, tuple) and len(answer) == 2
    assert words in capsys.readouterr().err


def test_a_grid_no_game_reaches_gets_an_answer_the_engine_accepts(capsys: Any) -> None:
    """Through the engine's own calls: a grid holding player 2 twice is no position; it is
    told on stderr and answered with a free neighbour and a free cell."""
    player = PlayerAI("random")
    player.setPlayerNum(1)
    player.setPosition((0, 1))
    grid = Grid(4)
    grid.map[:] = 0
    grid.map[0, 1], grid.map[3, 1], grid.map[0, 0] = 1, 2, -1
    grid.map[3, 3] = 2  # player 2 twice
    move = player.getMove(grid.clone())
    assert move in grid.get_neighbors((0, 1), only_available=True)
    target = player.getTrap(grid.clone())
    assert grid.map[target] not in (1, 2)
    assert capsys.readouterr().err.count("PlayerAI cannot read the grid") == 2


@pytest.mark.parametrize("agent", [123, None, 1.5, b"random"])
def test_player_ai_refuses_what_is_neither_a_spec_nor_an_agent(agent: Any) -> None:
    with pytest.raises(TypeError, match="agent must be an agent spec string such as 'random'"):
        PlayerAI(agent)


@pytest.mark.parametrize("num", [1.0, True, "1", None])
def test_the_player_number_must_be_an_integer(num: Any) -> None:
    with pytest.raises(TypeError, match="num, the player number, must be 1 or 2"):
        PlayerAI("random").setPlayerNum(num)


@pytest.mark.parametrize("position", ["ab", None, (1.5, 2), (1, 2, 3), 7])
def test_a_position_must_be_a_pair_of_integers(position: Any) -> None:
    with pytest.raises(TypeError, match=re.escape("new_position must be a (row, col) pair")):
        PlayerAI("random").setPosition(position)


def test_numpy_integers_are_positions_as_the_course_engine_gives_them() -> None:
    player = PlayerAI("random")
    player.setPosition((np.intp(3), np.int64(2)))
    assert player.getPosition() == (3, 2)


# --- Every board the engine sets, within the time limit -----------------------------------

PLAYER_AI_LIMIT = 0.9
"""PlayerAI's default agent's seconds a turn (``expectiminimax:time_limit=0.9``)."""


def opening_grid(n: int) -> Grid:
    grid = Grid(n)
    grid.map[n // 2 - 1, n // 2], grid.map[n // 2 + 1, n // 2] = 1.0, 2.0
    return grid


def test_a_turn_on_a_1000x1000_board_takes_well_under_the_time_limit(capsys: Any) -> None:
    """The engine kills a slow player. The grid was once read cell by cell in Python (3 CPU
    s on this board) and the search asked although one evaluation took 1.5 s: now the grid
    is read with NumPy and a board the search declines (over 100x100) is played greedy."""
    grid = opening_grid(1000)
    player = PlayerAI()
    player.setPlayerNum(1)
    player.setPosition((499, 500))
    started = time.process_time()
    move = player.getMove(grid.clone())
    assert move in grid.get_neighbors((499, 500), only_available=True)
    grid.map[499, 500], grid.map[move] = 0.0, 1.0
    player.setPosition(move)
    target = player.getTrap(grid.clone())
    spent = time.process_time() - started
    assert grid.map[target] == 0.0
    assert spent < PLAYER_AI_LIMIT / 3, f"{spent:.2f} CPU s for a turn"
    err = capsys.readouterr().err
    said = "PlayerAI: expectiminimax plays boards up to 100x100, not 1000x1000; playing greedy"
    assert err.count(said) == 1


class Declining(RandomAgent):
    """An agent that plays 5x5 only."""

    def check_game(self, config: GameConfig) -> None:
        if config.board_size != 5:
            raise UnsupportedGameError(f"declining plays 5x5 only, not {config.board_size}")


def test_a_board_the_agent_declines_is_played_greedy_and_said_once_a_game(capsys: Any) -> None:
    """Once: PlayerAI asked the agent anyway (a traceback in the engine for a ppo model of
    another board, a turn far over the limit for the search on a huge board)."""
    players = [PlayerAI(Declining(seed=0)), PlayerAI("random", seed=1)]
    for _ in range(2):
        result = CourseEngine(dim=6, max_turns=6, time_limit=COURSE_TIME_LIMIT).play(players)
        assert result.reason in ("trapped", "truncated"), result
    err = capsys.readouterr().err
    assert err.count("PlayerAI: declining plays 5x5 only, not 6; playing greedy (one ply)") == 2
    CourseEngine(dim=5, max_turns=4).play(players)
    assert capsys.readouterr().err == ""


@given(pending_throws(), st.booleans())
def test_the_grid_read_as_numpy_rows_or_lists_is_the_state(state: State, as_lists: bool) -> None:
    grid = grid_of(state)
    if as_lists:
        grid.map = grid.map.tolist()
    read = state_from_grid(grid, state.player, Phase.MOVE)
    assert (read.traps, read.cells) == (state.traps, state.cells)

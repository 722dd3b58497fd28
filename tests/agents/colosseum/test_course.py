"""The COMP 424 course adapter (:mod:`agents.colosseum.course`, registered in the engine by
``examples/colosseum_comp424_agent.py``) inside a stand-in of the course engine
(:mod:`tests.support.colosseum_course_engine`): laid out as the engine's directory, whose own
``agents`` package hides this project's; whole autoplay games on the engine's random sizes
against its random agent, no random walk ever made for ours; and the engine's tests of a step
agreeing with our rules."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.colosseum import course
from tests.support import colosseum_course_engine as engine
from tests.support.example_files import load_module
from trap_env.colosseum import rules
from trap_env.colosseum.rules import ColosseumConfig

ROOT = Path(__file__).resolve().parents[3]
AGENT_FILE = ROOT / "examples" / "colosseum_comp424_agent.py"


def autoplay(
    tmp_path: Path, player_1: str, player_2: str, runs: int, seed: int, *extra: str
) -> dict:
    """``simulator.py`` of the stand-in, run in an engine directory with our agent in it."""
    tree = engine.write_course_tree(tmp_path / "engine", (AGENT_FILE,))
    env = dict(os.environ)
    # trap_env installed (here: this checkout, at the end of the path, so that the
    # engine's own agents package comes first, as in a real install's site-packages).
    env["PYTHONPATH"] = os.pathsep.join([env.get("PYTHONPATH", ""), str(ROOT)])
    env["COLOSSEUM_AGENT_TIME_LIMIT"] = "0.05"
    argv = [sys.executable, "simulator.py", "--player_1", player_1, "--player_2", player_2,
            "--autoplay_runs", str(runs), "--seed", str(seed), *extra]  # fmt: skip
    done = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_our_agent_wins_whole_games_against_the_engines_random_agent(tmp_path: Path) -> None:
    result = autoplay(tmp_path, "trap_env_agent", "random_agent", runs=6, seed=1)
    assert result["random_walks"] == {"trap_env_agent": 0, "random_agent": 0}
    assert result["wins"]["trap_env_agent"] == 6
    assert {game["size"] for game in result["games"]} <= set(range(5, 10))
    assert {tuple(game["players"]) for game in result["games"]} == {
        ("trap_env_agent", "random_agent"), ("random_agent", "trap_env_agent")
    }  # fmt: skip


def test_the_random_agent_never_needs_a_random_walk(tmp_path: Path) -> None:
    result = autoplay(tmp_path, "random_agent", "random_agent", runs=1, seed=2)
    assert result["random_walks"] == {"random_agent": 0}


def test_the_handouts_sizes_can_be_asked_for(tmp_path: Path) -> None:
    result = autoplay(tmp_path, "random_agent", "random_agent", 6, 3, "--sizes", "11-12")
    assert {game["size"] for game in result["games"]} <= {11, 12}


def a_world(state: rules.ColosseumState) -> engine.World:
    """The stand-in's world in ``state`` (not drawn: set field by field)."""
    n = state.board_size
    world = engine.World.__new__(engine.World)
    world.board_size, world.max_step, world.turn = n, rules.max_steps(n), state.player
    world.chess_board = np.zeros((n, n, 4), dtype=bool)
    for side in range(4):
        for cell in rules.cells_of(state.walls[side]):
            world.chess_board[cell // n, cell % n, side] = True
    world.p0_pos, world.p1_pos = (np.array(divmod(cell, n)) for cell in state.cells)
    return world


def test_the_engines_step_test_and_end_test_agree_with_our_rules() -> None:
    rng = random.Random(0)
    for start in range(6):
        state = rules.start_state(ColosseumConfig(5 + start % 3), start)
        while True:
            world = a_world(state)
            ended, score_0, score_1 = world.check_endgame()
            assert ended == (rules.zone_sizes(state) is not None)
            if ended:
                assert (score_0, score_1) == rules.zone_sizes(state)
                break
            n = state.board_size
            me = np.array(divmod(state.cells[state.player], n))
            valid = {
                rules.action_of(row * n + col, side)
                for row in range(n)
                for col in range(n)
                for side in range(4)
                if world.check_valid_step(me, np.array((row, col)), side)
            }
            assert valid == set(rules.legal_actions(state))
            state = rules.apply(state, rng.choice(rules.legal_actions(state)))


def test_the_agent_reads_the_engines_arguments() -> None:
    module = load_module(AGENT_FILE)
    state = rules.start_state(ColosseumConfig(7), 3)
    world = a_world(state)
    read = course.to_state(world.chess_board, tuple(world.p0_pos), tuple(world.p1_pos), 4, 0)
    assert read.walls == state.walls and read.cells == state.cells
    agent = module.TrapEnvAgent()
    assert agent.autoplay is True
    (row, col), side = agent.step(world.chess_board, tuple(world.p0_pos), tuple(world.p1_pos), 4)
    assert world.check_valid_step(world.p0_pos, np.array((row, col)), side)
    import agents.colosseum.search  # ours, still there after the agent's import dance

    assert sys.modules["agents.colosseum.search"] is agents.colosseum.search


def test_the_agent_answers_a_legal_move_when_its_search_fails(capsys: Any) -> None:
    state = rules.start_state(ColosseumConfig(6), 1)
    world = a_world(state)

    class Broken:
        def select_action(self, state: object) -> int:
            raise RuntimeError("no search today")

        def reset(self, seed: int | None = None) -> None:
            pass

    player = course.CoursePlayer(search=Broken())
    (row, col), side = player.step(world.chess_board, tuple(world.p0_pos), tuple(world.p1_pos), 3)
    assert world.check_valid_step(world.p0_pos, np.array((row, col)), side)
    assert "the search failed (no search today)" in capsys.readouterr().err


def test_the_agent_answers_a_legal_move_for_a_board_it_cannot_read(capsys: Any) -> None:
    """A board without its border walls, a player off the board, another shape: a line on
    standard error and a move that stays put with a free side (the zone search never runs
    on such a board: it used to loop for good)."""
    state = rules.start_state(ColosseumConfig(6), 1)
    world = a_world(state)
    me, other = tuple(world.p0_pos), tuple(world.p1_pos)
    no_border = world.chess_board.copy()
    no_border[-1, :, 2] = False  # the bottom row's down sides
    agent = course.CoursePlayer()
    (row, col), side = agent.step(no_border, me, other, 3)
    assert (row, col) == me and not no_border[row, col, side]
    assert "cannot read the engine's position" in capsys.readouterr().err
    for board, mine, theirs in [
        (world.chess_board, (9, 9), other),
        (world.chess_board, me, me),
        (world.chess_board[:, :, :3], me, other),
        (world.chess_board, "junk", other),
    ]:
        answer = agent.step(board, mine, theirs, 3)
        assert isinstance(answer, tuple) and len(answer) == 2
        assert "cannot read" in capsys.readouterr().err
    (row, col), side = agent.step(world.chess_board, me, me, 3)
    assert world.check_valid_step(world.p0_pos, np.array((row, col)), side)


@pytest.mark.parametrize("text", ["0", "-1", "soon", "nan", "30", "86000", "inf"])
def test_a_time_limit_outside_the_handouts_turns_is_refused_naming_the_range(
    text: str, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("COLOSSEUM_AGENT_TIME_LIMIT", text)
    message = "COLOSSEUM_AGENT_TIME_LIMIT must be a number of seconds above 0 and below 30, got "
    with pytest.raises(ValueError, match=message):
        course.time_limit()
    # In the engine: said on standard error at each move, and a legal move played.
    world = a_world(rules.start_state(ColosseumConfig(5), 0))
    (row, col), side = course.CoursePlayer().step(
        world.chess_board, tuple(world.p0_pos), tuple(world.p1_pos), 3
    )
    assert world.check_valid_step(world.p0_pos, np.array((row, col)), side)
    assert message in capsys.readouterr().err
    monkeypatch.setenv("COLOSSEUM_AGENT_TIME_LIMIT", "0.5")
    assert course.time_limit() == 0.5


@pytest.mark.parametrize(
    ("mine", "theirs", "max_step", "words"),
    [((1.7, 2), None, 3, "my_pos must be a (row, col) pair of integers from 0 to 4, got "
                         "tuple (1.7, 2)"),
     (None, (np.float64(4.0), 2), 3, "adv_pos must be a (row, col) pair of integers"),
     ((True, 0), None, 3, "my_pos must be a (row, col) pair"),
     ((1, 2, 3), None, 3, "got tuple (1, 2, 3)"),
     (None, None, 2, "max_step must be the 5x5 board's K = (M + 1) // 2 = 3 (the rules take K "
                     "from the board), got int 2"),
     (None, None, 3.0, "got float 3.0"),
     (None, None, np.int64(4), "got int64 np.int64(4)")],
)
def test_positions_and_max_step_are_read_strictly_never_truncated_or_ignored(
    mine: Any, theirs: Any, max_step: Any, words: str, capsys: Any
) -> None:
    state = rules.start_state(ColosseumConfig(5), 0)
    world = a_world(state)
    me, other = tuple(world.p0_pos), tuple(world.p1_pos)
    args = (world.chess_board, me if mine is None else mine, other if theirs is None else theirs)
    with pytest.raises(ValueError) as raised:
        course.to_state(*args, max_step, 0)
    assert words in str(raised.value)
    (row, col), side = course.CoursePlayer().step(*args, max_step)
    assert "cannot read the engine's position" in capsys.readouterr().err
    if mine is None:  # staying put, with a barrier on a free side
        assert (row, col) == me and world.check_valid_step(world.p0_pos, np.array(me), side)
    else:
        assert ((row, col), side) == ((0, 0), 0)
    numpy_ints = (np.int64(me[0]), np.intp(me[1]))
    assert course.to_state(world.chess_board, numpy_ints, other, np.int64(3), 0).cells == (
        state.cells
    )

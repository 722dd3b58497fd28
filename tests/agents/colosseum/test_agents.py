"""Colosseum Survival!'s agents without search (:mod:`agents.colosseum`): ``random`` is
the course engine's random walk draw for draw, ``greedy`` takes a winning cut and refuses
a losing one, both answer within 0.1 s on 12x12; and the evaluation's terms."""

from __future__ import annotations

import doctest
import random
import time

import numpy as np
import pytest

from agents import UnsupportedGameError, agent_names, make_agent
from agents.arena.match import play_game
from agents.colosseum import evaluation, greedy, random_agent
from agents.colosseum.evaluation import WIN_SCORE, Weights, areas, evaluate, final_score
from agents.colosseum.greedy import GreedyAgent
from agents.colosseum.random_agent import random_walk
from tests.support import colosseum_course_engine as engine
from tests.trap_env.colosseum.test_rules import TOP_ROW_CUT, board
from trap_env.colosseum import rules
from trap_env.colosseum.rules import ColosseumConfig, start_state
from trap_env.trap.core import GameConfig


def test_the_module_examples_run() -> None:
    for module in (random_agent, greedy, evaluation):
        assert doctest.testmod(module).failed == 0


def test_the_table_lists_colosseums_agents() -> None:
    assert agent_names("colosseum") == [
        "alphabeta", "epsilon-greedy", "exec", "expectiminimax", "greedy", "mcts", "minimax",
        "openspiel-mcts", "perfect", "ppo", "random", "reference",
    ]  # fmt: skip
    built = make_agent("greedy:area=2,distance=0", game="colosseum")
    assert isinstance(built, GreedyAgent)
    assert built.weights == Weights(area=2.0, mobility=0.25, distance=0.0)


@pytest.mark.parametrize("spec", ["random", "greedy", "expectiminimax"])
def test_agents_refuse_another_game(spec: str) -> None:
    agent = make_agent(spec, game="colosseum")
    agent.check_game(ColosseumConfig(6))  # type: ignore[attr-defined]
    with pytest.raises(UnsupportedGameError, match="plays Colosseum Survival!"):
        agent.check_game(GameConfig(5))  # type: ignore[attr-defined]


class NumpyDraws:
    """``randrange`` from numpy's global generator, as the engine draws."""

    def randrange(self, bound: int) -> int:
        return int(np.random.randint(0, bound))


def engine_arguments(state: rules.ColosseumState) -> tuple:
    n = state.board_size
    board = np.zeros((n, n, 4), dtype=bool)
    for side in range(4):
        for cell in rules.cells_of(state.walls[side]):
            board[cell // n, cell % n, side] = True
    mover, other = state.cells[state.player], state.cells[1 - state.player]
    me, them = (tuple(np.array(divmod(cell, n))) for cell in (mover, other))
    return board, me, them, rules.max_steps(n)


def test_random_is_the_engines_random_walk_draw_for_draw() -> None:
    rng = random.Random(0)
    for start in range(20):
        state = start_state(ColosseumConfig(5 + start % 6), start)
        while rules.outcome(state) is None:
            np.random.seed(start * 1000 + state.turn)
            ours = random_walk(state, NumpyDraws())  # type: ignore[arg-type]
            np.random.seed(start * 1000 + state.turn)
            (row, col), side = engine.random_walk(*engine_arguments(state))
            assert ours == rules.action_of(row * state.board_size + col, side)
            assert ours in rules.legal_actions(state)
            state = rules.apply(state, rng.choice(rules.legal_actions(state)))


def test_the_walk_gives_up_where_the_opponent_blocks_the_only_way() -> None:
    state = board("""
+---+---+---+---+
| A   B         |
+---+   +   +   +
|               |
+   +   +   +   +
|               |
+   +   +   +   +
|               |
+---+---+---+---+
""")  # A's only way out is B's cell: the walk stays and puts the barrier between them
    for seed in range(20):
        action = random_walk(state, random.Random(seed))
        assert action == rules.action_of(0, rules.RIGHT)


def test_greedy_takes_a_winning_cut_and_refuses_a_losing_one() -> None:
    state = board(TOP_ROW_CUT)  # A closing the top row off (3 cells of 9) loses
    agent = GreedyAgent(seed=0)
    chosen = agent.select_action(state)
    after = rules.apply(state, chosen)
    sizes = rules.zone_sizes(after)
    assert sizes is None or sizes[0] > sizes[1]
    losing = rules.action_of(0, rules.DOWN)
    assert rules.zone_sizes(rules.apply(state, losing)) == (3, 6)
    assert chosen != losing


def test_the_evaluation_is_antisymmetric_and_weighs_its_terms() -> None:
    state = start_state(ColosseumConfig(8), 4)
    swapped = rules.ColosseumState(8, state.walls, state.cells, 1, 0)
    assert evaluate(state, perspective=0) == pytest.approx(-evaluate(swapped, perspective=0))
    distance = abs(state.cells[0] // 8 - state.cells[1] // 8) + abs(
        state.cells[0] % 8 - state.cells[1] % 8
    )
    assert evaluate(state) - evaluate(state, perspective=1) == pytest.approx(-2 * 0.1 * distance)
    only_area = Weights(area=1.0, mobility=0.0, distance=0.0)
    mine, theirs = areas(8, state.walls, *state.cells)
    assert evaluate(state, only_area) == mine - theirs == -evaluate(swapped, only_area)
    assert mine + theirs <= 64
    assert final_score(state, (40, 24)) == WIN_SCORE + 16
    assert final_score(swapped, (40, 24)) == -WIN_SCORE - 16
    assert final_score(state, (32, 32)) == 0.0


@pytest.mark.parametrize("spec", ["random", "greedy"])
def test_simple_agents_answer_within_a_tenth_of_a_second_on_12x12(spec: str) -> None:
    agent = make_agent(spec, game="colosseum", seed=0)
    rng = random.Random(1)
    worst = 0.0
    for start in range(3):
        state = start_state(ColosseumConfig(12), start)
        while rules.outcome(state) is None:
            began = time.process_time()
            action = agent.select_action(state)
            worst = max(worst, time.process_time() - began)
            assert action in rules.legal_actions(state)
            state = rules.apply(state, rng.choice(rules.legal_actions(state)))
    assert worst < 0.1


def test_greedy_beats_random() -> None:
    wins = 0
    for seed in range(10):
        players = [make_agent("greedy", game="colosseum"), make_agent("random", game="colosseum")]
        seat = seed % 2
        result = play_game(players[::-1] if seat else players, seed=seed, game="colosseum",
                           params={"board_size": 6}, time_budget=None)  # fmt: skip
        wins += result.winner == seat
    assert wins >= 9

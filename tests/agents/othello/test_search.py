"""Othello's reference search (:mod:`agents.othello.search`) and what it stands on: the
bitboards against the rules, stable discs that never flip, the evaluation, the search
against plain minimax value for value, the endgame solver against brute force, and the
agent's options, clock and determinism."""

from __future__ import annotations

import doctest
import math
import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import SpecError, make_agent
from agents.arena.match import play_game
from agents.othello import bitboards, evaluation, search
from agents.othello.bitboards import geometry
from agents.othello.evaluation import WIN_SCORE, Weights, evaluate, final_score
from agents.othello.search import AlphaBeta, SearchAgent, SearchSettings
from tests.support.positions import othello_position, random_game
from trap_env.othello import rules
from trap_env.othello.game import GAME
from trap_env.othello.rules import OthelloConfig, OthelloState, initial_state


def test_the_module_examples_run() -> None:
    for module in (bitboards, evaluation, search):
        assert doctest.testmod(module).failed == 0


# --- Bitboards ------------------------------------------------------------------------------


@settings(max_examples=12, deadline=None)
@given(board_size=st.sampled_from([4, 6, 8, 10]), seed=st.integers(0, 2**32))
def test_placements_and_flips_agree_with_the_rules(board_size: int, seed: int) -> None:
    geo = geometry(board_size)
    for state in random_game(GAME, seed, board_size=board_size):
        own, other = rules.sides_of(state, state.player)
        assert geo.placements(own, other) == rules.placements(board_size, own, other)
        empty = geo.full & ~(own | other)
        for cell in rules.cells_of(empty):
            assert geo.flips(own, other, cell) == rules.flips(board_size, own, other, cell)


def reachable(state: OthelloState) -> list[OthelloState]:
    """Every position reachable from ``state`` (4x4: a few thousand at most)."""
    seen = {state}
    found = [state]
    frontier = [state]
    while frontier:
        current = frontier.pop()
        for action in rules.legal_actions(current):
            child = rules.apply(current, action)
            if child not in seen:
                seen.add(child)
                found.append(child)
                frontier.append(child)
    return found


@pytest.mark.parametrize("seed", range(3))
def test_stable_discs_never_flip_in_any_continuation_on_4x4(seed: int) -> None:
    geo = geometry(4)
    checked = 0
    for state in random_game(GAME, seed, board_size=4)[4:]:
        stable = (geo.stable(state.dark), geo.stable(state.light))
        if not any(stable):
            continue
        for later in reachable(state):
            assert later.dark & stable[0] == stable[0]
            assert later.light & stable[1] == stable[1]
        checked += 1
    assert checked


def test_stable_discs_never_flip_in_random_continuations_on_8x8() -> None:
    geo, rng = geometry(8), random.Random(8)
    checked = 0
    for seed in range(6):
        for state in random_game(GAME, seed, board_size=8)[30::6]:
            stable = (geo.stable(state.dark), geo.stable(state.light))
            checked += bool(any(stable))
            for _ in range(15):
                later = state
                while legal := rules.legal_actions(later):
                    later = rules.apply(later, rng.choice(legal))
                    assert later.dark & stable[0] == stable[0]
                    assert later.light & stable[1] == stable[1]
    assert checked >= 5


def test_stable_discs_grow_from_the_corners_along_lines() -> None:
    geo = geometry(6)
    state = othello_position("xxxo../xx..../x...../....../....../...... o 9 standard")
    # a1 anchors the edge a1..c1 and the column; b2 is shielded on all four lines.
    cells = [rules.cell_name(6, cell) for cell in rules.cells_of(geo.stable(state.dark))]
    assert cells == ["a1", "b1", "c1", "a2", "b2", "a3"]
    assert geo.stable(state.light) == 0


# --- The evaluation -------------------------------------------------------------------------


def test_the_evaluation_is_zero_sum_and_weights_each_term() -> None:
    for state in random_game(GAME, 3, board_size=6)[:-1]:
        assert evaluate(state, 0) == -evaluate(state, 1)
    state = othello_position("x...../.xo.../.oxo../...x../....../...... o 5 standard")
    only = {name: Weights(**{**dict.fromkeys(ZERO, 0.0), name: 1.0}) for name in ZERO}
    assert evaluate(state, 0, only["corners"]) == 1.0
    assert evaluate(state, 0, only["discs"]) == 4 - 3
    assert evaluate(state, 0, only["stability"]) == 1.0  # the corner
    assert evaluate(state, 0, only["x_squares"]) == 0.0  # b2's corner is taken
    geo = geometry(6)
    own, other = state.dark, state.light
    mobility = geo.placements(own, other).bit_count() - geo.placements(other, own).bit_count()
    assert evaluate(state, 0, only["mobility"]) == mobility


ZERO = ("discs", "mobility", "frontier", "corners", "stability", "x_squares")


def test_an_x_square_next_to_an_empty_corner_counts_against() -> None:
    state = othello_position("....../.x..../..xo../..ox../....../...... o 1 standard")
    weights = Weights(**{**dict.fromkeys(ZERO, 0.0), "x_squares": 1.0})
    assert evaluate(state, 0, weights) == -1.0


def test_weights_are_checked() -> None:
    with pytest.raises(ValueError, match="weight corners must be finite"):
        Weights(corners=math.inf)
    with pytest.raises(ValueError, match="absolute sum must stay below"):
        Weights(corners=10_000)


# --- The search against plain minimax ---------------------------------------------------------


def plain_minimax(state: OthelloState, depth: int) -> float:
    """Unpruned negamax for the player to act: the final score at the end, the evaluation
    at depth 0; every legal action, the pass included, is a ply."""
    own, other = rules.sides_of(state, state.player)
    if rules.outcome(state) is not None:
        return final_score(own, other)
    if depth == 0:
        return evaluate(state, state.player)
    return max(-plain_minimax(rules.apply(state, a), depth - 1) for a in rules.legal_actions(state))


def brute_force_margin(state: OthelloState) -> int:
    """The final disc margin for the player to act under perfect play, unpruned."""
    own, other = rules.sides_of(state, state.player)
    if rules.outcome(state) is not None:
        return own.bit_count() - other.bit_count()
    return max(-brute_force_margin(rules.apply(state, a)) for a in rules.legal_actions(state))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), end_rule=st.sampled_from([rules.STANDARD, rules.COURSE]))
def test_the_search_equals_plain_minimax_on_4x4(seed: int, end_rule: str) -> None:
    searcher = AlphaBeta(4, end_rule)
    for state in random_game(GAME, seed, board_size=4, end_rule=end_rule):
        own, other = rules.sides_of(state, state.player)
        for depth in range(1, 6):
            assert searcher.value(own, other, depth) == plain_minimax(state, depth)


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32), end_rule=st.sampled_from([rules.STANDARD, rules.COURSE]))
def test_the_search_equals_plain_minimax_on_6x6(seed: int, end_rule: str) -> None:
    searcher = AlphaBeta(6, end_rule)  # one table through the game, as the agent keeps it
    for state in random_game(GAME, seed, board_size=6, end_rule=end_rule)[::2]:
        own, other = rules.sides_of(state, state.player)
        for depth in (1, 2, 3):
            assert searcher.value(own, other, depth) == plain_minimax(state, depth)


def test_every_iteration_of_deepening_is_plain_minimax() -> None:
    state = random_game(GAME, 11, board_size=6)[8]
    own, other = rules.sides_of(state, state.player)
    results = list(AlphaBeta(6).iterate(own, other, 3))
    assert [result.depth for result in results] == [1, 2, 3]
    for result in results:
        assert result.value == plain_minimax(state, result.depth)
        after = rules.apply(state, result.action)
        assert -plain_minimax(after, result.depth - 1) == result.value


@pytest.mark.parametrize(
    ("board_size", "end_rule", "empties"),
    [(4, rules.STANDARD, 9), (4, rules.COURSE, 9), (6, rules.STANDARD, 8), (6, rules.COURSE, 8)],
)
def test_the_endgame_solver_equals_brute_force(
    board_size: int, end_rule: str, empties: int
) -> None:
    searcher = AlphaBeta(board_size, end_rule)
    checked = 0
    for seed in range(4):
        for state in random_game(GAME, seed, board_size=board_size, end_rule=end_rule):
            own, other = rules.sides_of(state, state.player)
            if geometry(board_size).num_cells - (own | other).bit_count() > empties:
                continue
            margin = brute_force_margin(state)
            assert searcher.solve(own, other) == margin
            if searcher.geo.placements(own, other):
                result = searcher.solve_root(own, other)
                assert result.exact and result.value == evaluation.score_of_margin(margin)
                assert -brute_force_margin(rules.apply(state, result.action)) == margin
            checked += 1
    assert checked >= 8


def test_the_solver_finds_4x4_lost_for_dark_by_eight() -> None:
    # 4x4 from the start: light wins 11 to 3 (published), so dark's margin is -8.
    state = initial_state(OthelloConfig(4))
    assert AlphaBeta(4).solve(state.dark, state.light) == -8


# --- The agent ---------------------------------------------------------------------------------


def test_the_agent_is_in_the_table_under_its_three_names_with_its_options() -> None:
    for name in ("expectiminimax", "alphabeta", "minimax"):
        agent = make_agent(f"{name}:depth=2,time_limit=inf,corners=40", game="othello", seed=0)
        assert isinstance(agent, SearchAgent)
        assert agent.settings == SearchSettings(time_limit=None, depth=2)
        assert agent.weights == Weights(corners=40.0)
    default = make_agent("expectiminimax", game="othello")
    assert isinstance(default, SearchAgent) and default.settings.time_limit == 5.0  # as Trap!
    with pytest.raises(SpecError, match="depth must be an integer >= 1"):
        make_agent("expectiminimax:depth=0", game="othello")
    with pytest.raises(SpecError, match="give a time_limit, a depth, or both"):
        make_agent("expectiminimax:time_limit=none", game="othello")
    with pytest.raises(SpecError, match="endgame_empties must be an integer >= 0"):
        make_agent("expectiminimax:endgame_empties=-1", game="othello")


def test_a_fixed_depth_is_deterministic_and_reports_its_search() -> None:
    states = [
        s for s in random_game(GAME, 5, board_size=8)[:30] if len(rules.legal_actions(s)) > 1
    ]

    def choices(seed: int) -> list[int]:
        agent = SearchAgent(SearchSettings(time_limit=None, depth=3), seed=seed)
        return [agent.select_action(state) for state in states]

    assert choices(1) == choices(2)
    agent = SearchAgent(SearchSettings(time_limit=None, depth=3))
    action = agent.select_action(states[3])
    stats = agent.last_search
    assert stats is not None and stats.depth == 3 and stats.nodes > 0 and stats.budget == 0.0
    assert stats.value == plain_minimax(states[3], 3)
    assert -plain_minimax(rules.apply(states[3], action), 2) == stats.value


def test_a_forced_action_is_answered_without_search() -> None:
    state = othello_position("ox../..../..../.... x 0 standard")
    agent = SearchAgent(SearchSettings(time_limit=None, depth=4))
    assert agent.select_action(state) == 16  # the pass
    assert agent.last_search is not None and agent.last_search.depth == 0
    with pytest.raises(ValueError, match="a game in progress"):
        agent.select_action(othello_position("xxx./..../..../.... o 3 standard"))


def test_the_endgame_is_solved_exactly() -> None:
    state = next(s for s in random_game(GAME, 2, board_size=6) if rules.to_text(s).count(".") <= 9)
    while len(rules.legal_actions(state)) < 2:
        state = rules.apply(state, rules.legal_actions(state)[0])
    agent = SearchAgent(SearchSettings(time_limit=None, depth=1, endgame_empties=10))
    action = agent.select_action(state)
    stats = agent.last_search
    assert stats is not None and stats.exact
    margin = brute_force_margin(state)
    assert stats.value == evaluation.score_of_margin(margin)
    assert -brute_force_margin(rules.apply(state, action)) == margin
    assert abs(stats.value) >= WIN_SCORE or margin == 0


def test_the_clock_is_kept() -> None:
    agent = make_agent("expectiminimax:time_limit=0.1", game="othello")
    state = random_game(GAME, 1, board_size=8)[12]
    started = time.process_time()
    agent.select_action(state)
    spent = time.process_time() - started
    assert spent < 0.1
    assert agent.last_search is not None and agent.last_search.depth >= 2  # type: ignore[attr-defined]


def test_the_reference_beats_greedy_on_6x6() -> None:
    score = 0.0
    for seat in range(2):
        players = [make_agent("greedy", game="othello", seed=seat)] * 2
        players[seat] = make_agent("expectiminimax:depth=3,time_limit=inf", game="othello")
        result = play_game(players, seed=seat, game="othello", params={"board_size": 6},
                           time_budget=None)  # fmt: skip
        score += 1.0 if result.winner == seat else 0.5 if result.winner is None else 0.0
    assert score >= 1.5

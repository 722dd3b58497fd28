"""Othello's exact solver (:mod:`agents.othello.solve`) and its ``perfect`` agent: the
compiled kernel against a plain negamax over the rules and against the reference's
endgame solver, 4x4 solved from the start (a second-player win, 3 to 11), a stopped solve
that continues, and the agent's choices and refusals."""

from __future__ import annotations

import functools
import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import make_agent
from agents.othello.search import AlphaBeta, SearchAgent, SearchSettings
from agents.solved import load_or_solve
from trap_env.agent import UnsupportedGameError
from trap_env.othello import rules
from trap_env.othello.rules import OthelloConfig, OthelloState

pytest.importorskip("numba", reason="the solver is the solve extra's (numba)")

from agents.othello import solve, solve_kernel
from agents.othello.solve import Book, PerfectAgent, Solver
from agents.othello.solve_kernel import SETTINGS, Settings

CONFIGS = [OthelloConfig(size, rule) for size in (4, 6) for rule in rules.END_RULES]
EVERY_PATH = Settings(
    table=1, fastest_first=3, shallow=4, shallow_depth=1, shallow_step=1, etc=2, few=2, stability=3
)
"""Settings under which a position of 6 empty cells or fewer meets every technique of the
kernel: the table, enhanced transposition cutoffs, shallow-search ordering (1 to 3 plies),
fastest-first ordering, parity ordering at 3, the stability cutoff from 3 and the few-cells
search at 1 or 2."""
PLAIN = Settings(few=0, stability=65)
"""The kernel without its few-cells search (placements' bitboards down to the last cell) and
without the stability cutoff."""


@functools.cache
def _solver(config: OthelloConfig, settings: Settings = SETTINGS) -> Solver:
    """One solver per rules and settings for the whole module (its table is reused, as in a
    real solve)."""
    return Solver(config, table_bits=14, settings=settings)


def _playout(config: OthelloConfig, empties: int, seed: int) -> OthelloState | None:
    """A random game's position with ``empties`` empty cells or fewer, still in play."""
    rng = random.Random(seed)
    state = rules.initial_state(config)
    while (legal := rules.legal_actions(state)) and _empties(state) > empties:
        state = rules.apply(state, rng.choice(legal))
    return state if rules.legal_actions(state) else None


def _empties(state: OthelloState) -> int:
    return state.board_size**2 - (state.dark | state.light).bit_count()


def _random_plies(state: OthelloState, rng: random.Random, plies: int) -> OthelloState:
    """``state`` after up to ``plies`` uniform legal actions (fewer where the game ends)."""
    for _ in range(plies):
        if not (legal := rules.legal_actions(state)):
            break
        state = rules.apply(state, rng.choice(legal))
    return state


def _plain_negamax(state: OthelloState) -> int:
    """The final disc margin for the player to act, by the rules alone (the oracle)."""
    legal = rules.legal_actions(state)
    if not legal:
        dark, light = rules.disc_counts(state)
        return dark - light if state.player == rules.DARK else light - dark
    return max(-_plain_negamax(rules.apply(state, action)) for action in legal)


@settings(max_examples=25, deadline=None)
@given(size=st.sampled_from([4, 6, 8]), seed=st.integers(0, 2**32), plies=st.integers(0, 40))
def test_the_kernels_bitboard_moves_are_the_rules(size: int, seed: int, plies: int) -> None:
    """Placements and flips by whole-board shifts: no line wraps a row's edge or leaves the
    board, on every board size up to the 64-bit limit."""
    state = _random_plies(rules.initial_state(OthelloConfig(size)), random.Random(seed), plies)
    geo = solve_kernel.make_tables(size, True, table_bits=2).geo
    for own, other in (rules.sides_of(state, 0), rules.sides_of(state, 1)):
        sides = np.uint64(own), np.uint64(other)  # as the solver passes them: 8x8 needs 64 bits
        found = int(solve_kernel.placements(*sides, geo))
        assert found == rules.placements(size, own, other), rules.to_text(state)
        for cell in rules.cells_of(found):
            flipped = int(solve_kernel.flips(*sides, cell, geo))
            assert flipped == rules.flips(size, own, other, cell), rules.to_text(state)


@settings(max_examples=25, deadline=None)
@given(size=st.sampled_from([4, 6, 8]), seed=st.integers(0, 2**32), plies=st.integers(0, 60))
def test_the_stable_discs_are_never_flipped(size: int, seed: int, plies: int) -> None:
    """Every disc the kernel calls stable keeps its colour to the end of a random game."""
    rng = random.Random(seed)
    state = _random_plies(rules.initial_state(OthelloConfig(size)), rng, plies)
    geo = solve_kernel.make_tables(size, True, table_bits=2).geo
    dark = int(solve_kernel.stable(np.uint64(state.dark), np.uint64(state.light), geo))
    light = int(solve_kernel.stable(np.uint64(state.light), np.uint64(state.dark), geo))
    assert dark & ~state.dark == 0 and light & ~state.light == 0
    while legal := rules.legal_actions(state):
        state = rules.apply(state, rng.choice(legal))
        assert dark & ~state.dark == 0 and light & ~state.light == 0, rules.to_text(state)
    if state.dark | state.light == (1 << size * size) - 1:  # a full board: every disc
        assert int(solve_kernel.stable(np.uint64(state.dark), np.uint64(state.light), geo)) == (
            state.dark
        )


@settings(max_examples=30, deadline=None)
@given(
    config=st.sampled_from(CONFIGS),
    kernel_settings=st.sampled_from([SETTINGS, EVERY_PATH, PLAIN]),
    seed=st.integers(0, 2**32),
    empties=st.integers(1, 6),
)
def test_the_kernel_agrees_with_plain_negamax_over_the_rules(
    config: OthelloConfig, kernel_settings: Settings, seed: int, empties: int
) -> None:
    state = _playout(config, empties, seed)
    if state is None:
        return
    own, other = rules.sides_of(state, state.player)
    solver = _solver(config, kernel_settings)
    assert solver.value(own, other) == _plain_negamax(state), rules.to_text(state)


def test_every_ordering_path_runs_and_keeps_the_values() -> None:
    config = OthelloConfig(4)
    fast, plain = Solver(config, settings=EVERY_PATH), Solver(config, settings=SETTINGS)
    for seed in range(4):
        state = _playout(config, 8, seed)
        assert state is not None
        own, other = rules.sides_of(state, state.player)
        assert fast.value(own, other) == plain.value(own, other) == _plain_negamax(state)
    assert fast.ordering_nodes > 0 and plain.ordering_nodes == 0  # shallow searches ran


def test_the_ordering_halves_the_work_on_feinsteins_line_at_18_empties() -> None:
    """Fastest-first ordering alone searched 492,018 positions here (docs/experiments.md,
    2026-11-28 (night)); the shallow searches' positions count against the new ordering."""
    config = OthelloConfig(6)
    state = next(s for s in solve.line_states(config, solve.FEINSTEIN_LINE) if _empties(s) == 18)
    solver = Solver(config, table_bits=18)
    assert solver.value(*rules.sides_of(state, state.player)) == -4
    assert solver.nodes + solver.ordering_nodes < 492_018 // 2


@settings(max_examples=10, deadline=None)
@given(config=st.sampled_from(CONFIGS[2:]), seed=st.integers(0, 2**32))
def test_the_kernel_agrees_with_the_reference_endgame_solver_at_ten_empties(
    config: OthelloConfig, seed: int
) -> None:
    state = _playout(config, 10, seed)
    if state is None:
        return
    own, other = rules.sides_of(state, state.player)
    reference = AlphaBeta(config.board_size, config.end_rule)
    value = _solver(config).value(own, other)
    assert value == reference.solve(own, other), rules.to_text(state)
    # A guess, right or wrong, changes the null windows tried, never the value.
    for guess in (value - 5, value, value + 3):
        assert Solver(config, table_bits=14).value(own, other, guess=guess) == value
    # Each window gives the value inside it and a bound on the correct side outside.
    for alpha in (value - 3, value - 1, value, value + 2):
        found = _solver(config).window(own, other, alpha, alpha + 1)
        assert (found <= alpha) == (value <= alpha)


@settings(max_examples=8, deadline=None)
@given(config=st.sampled_from(CONFIGS[2:]), seed=st.integers(0, 2**32))
def test_the_reference_agent_solving_to_the_end_plays_an_optimal_placement(
    config: OthelloConfig, seed: int
) -> None:
    state = _playout(config, 9, seed)
    if state is None or len(rules.legal_actions(state)) < 2:
        return
    reference = SearchAgent(SearchSettings(depth=1, time_limit=None, endgame_empties=36))
    values = {}
    for cell in rules.legal_actions(state):
        child = rules.apply(state, cell)
        values[cell] = -_solver(config).value(*rules.sides_of(child, child.player))
    assert values[reference.select_action(state)] == max(values.values()), rules.to_text(state)


@pytest.mark.parametrize(
    ("end_rule", "margin", "discs"), [("standard", -8, [3, 11]), ("course", -6, [5, 11])]
)
def test_4x4_from_the_start_is_a_second_player_win(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, end_rule: str, margin: int, discs: list[int]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    table, cached = load_or_solve("othello", {"board_size": 4, "end_rule": end_rule})
    report = table.report
    assert (report["value"], report["margin"], report["discs"]) == (-1.0, margin, discs)
    assert not cached and {"nodes", "seconds", "peak_memory_mb"} <= set(report)
    # The principal variation is a game of the rules that ends with those discs, and
    # every position on it keeps the start's value.
    state, solver = (
        rules.initial_state(OthelloConfig(4, end_rule)),
        Solver(OthelloConfig(4, end_rule)),
    )
    for name in report["principal_variation"]:
        own, other = rules.sides_of(state, state.player)
        expected = margin if state.player == rules.DARK else -margin
        assert solver.value(own, other) == expected
        state = rules.apply(state, rules.cell_from_name(4, name) if name != "pass" else 16)
    assert list(rules.disc_counts(state)) == discs and not rules.legal_actions(state)


def test_a_stopped_solve_continues_from_its_logged_bounds(tmp_path: Path) -> None:
    config = OthelloConfig(4)
    start = rules.initial_state(config)
    log_path = tmp_path / "progress.jsonl"

    class Stop(Exception):
        pass

    def stop_after_first_window(lower: int, upper: int) -> None:
        raise Stop

    with log_path.open("a") as log, pytest.raises(Stop):
        Solver(config, Book(4, log=log)).value(start.dark, start.light, stop_after_first_window)
    logged = log_path.read_text().splitlines()
    assert logged and all(len(json.loads(line)) == 5 for line in logged)
    book = Book(4)
    book.load(iter([*logged, logged[-1][:5]]))  # a line cut by the stop is skipped
    resumed = Solver(config, book)
    assert resumed.value(start.dark, start.light) == -8
    fresh = Solver(config)
    assert fresh.value(start.dark, start.light) == -8
    assert resumed.nodes < fresh.nodes


def test_the_book_keys_positions_by_symmetry() -> None:
    config = OthelloConfig(6)
    start = rules.initial_state(config)
    book = Book(6)
    first = rules.legal_actions(start)
    after = [rules.apply(start, cell) for cell in first]
    own, other = rules.sides_of(after[0], after[0].player)
    reply = rules.legal_actions(after[0])[0]
    book.record(own, other, -4, -4, reply)
    for state in after:  # the four first moves are one position turned
        own, other = rules.sides_of(state, state.player)
        lower, upper, cell = book.get(own, other) or (0, 0, -1)
        assert (lower, upper) == (-4, -4) and cell in rules.legal_actions(state)


def test_perfect_plays_the_lowest_optimal_placement_on_4x4(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # no book but its own
    config = OthelloConfig(4)
    solver = _solver(config)
    perfect, rival = (
        make_agent("perfect", game="othello"),
        make_agent("random", game="othello", seed=3),
    )
    for game in range(2):
        state = rules.initial_state(config)
        while legal := rules.legal_actions(state):
            if state.player == game:
                action = perfect.select_action(state)
                values = {}
                for cell in legal:
                    child = rules.apply(state, cell)
                    child_own, child_other = rules.sides_of(child, child.player)
                    values[cell] = -solver.value(child_own, child_other)
                assert action == min(c for c, v in values.items() if v == max(values.values()))
            else:
                action = rival.select_action(state)
            state = rules.apply(state, action)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), empties=st.integers(0, 8))
def test_perfect_values_each_action_by_its_outcome_a_pass_too(seed: int, empties: int) -> None:
    config = OthelloConfig(4)
    state = _playout(config, empties, seed)
    if state is None:
        return
    values = PerfectAgent().action_values(state)
    plain = {action: -_sign(_plain_negamax(rules.apply(state, action)))
             for action in rules.legal_actions(state)}  # fmt: skip
    assert values == plain, rules.to_text(state)


def test_perfect_values_a_forced_pass_alone() -> None:
    state = rules.from_text("xxo./xxoo/oxoo/xxxx o 11 standard")  # light has no placement
    plain = -_sign(_plain_negamax(rules.apply(state, rules.pass_action(4))))
    assert PerfectAgent().action_values(state) == {rules.pass_action(4): plain}


def _sign(margin: int) -> float:
    return float((margin > 0) - (margin < 0))


def test_perfect_refuses_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    agent = PerfectAgent()
    for size in (8, 6):
        with pytest.raises(
            UnsupportedGameError,
            match=rf"^perfect plays only the boards it solves at every move \(4x4\), "
            rf"not {size}x{size}",
        ):
            agent.check_game(OthelloConfig(size))
    monkeypatch.setitem(sys.modules, "agents.othello.solve_kernel", None)  # numba missing
    with pytest.raises(
        UnsupportedGameError, match=r"^perfect: .*needs numba: install the solve extra"
    ):
        agent.check_game(OthelloConfig(4))
    with pytest.raises(ValueError, match=r"needs numba"):
        solve.solve(4)


def test_feinsteins_published_6x6_line_is_legal_ends_16_to_20_and_keeps_its_value() -> None:
    config = OthelloConfig(6)
    states = solve.line_states(config, solve.FEINSTEIN_LINE)
    end = states[-1]
    outcome = rules.outcome(end)
    assert rules.disc_counts(end) == (16, 20) and outcome is not None
    assert outcome.winner == rules.LIGHT
    # Every position of its last 12 empty cells keeps the published value (dark -4); the
    # earlier ones are the experiment's (docs/experiments.md, 2026-11-28).
    values = list(solve.line_values(_solver(config), states, max_empties=12))
    assert len(values) >= 13 and {margin for *_, margin in values} == {-4}

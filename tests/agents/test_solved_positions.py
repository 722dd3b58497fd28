"""Solved positions (agents.solved_positions): the shipped Trap! 3x3 set, its values against
the solver, a draw's bytes, the lookup's refusal, and the strict reading of a damaged file;
Colosseum's and Othello's sets against plain searches over their rules."""

from __future__ import annotations

import dataclasses
import functools
import io
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import solved_positions
from agents.colosseum import solve as colosseum_solve
from agents.othello import solve as othello_solve
from agents.registry import make_agent
from agents.solved import TIE_TOLERANCE
from agents.solved_positions import (
    COMMON_RUNGS,
    DEFAULT_GAMES_PER_PAIRING,
    DEFAULT_OPENING_PLIES,
    DEFAULT_PER_DECISION,
    Positions,
    board_values,
    default_rungs,
    draw_positions,
    endgame_solver,
    find_positions,
    read_positions,
    shipped_positions,
)
from agents.trap import solve as trap_solve
from trap_env.games import game_names, get_game
from trap_env.othello import rules as othello_rules
from trap_env.othello.rules import OthelloState

SHIPPED = find_positions("trap", {"board_size": 3})
SHIPPED_BYTES = SHIPPED.to_bytes()
TRAP = get_game("trap")


def test_the_shipped_trap_3x3_set_holds_both_decisions_each_valued_and_observed():
    assert len(SHIPPED) == 800 and SHIPPED.rules == {"board_size": 3, "decay": 50}
    assert np.bincount(SHIPPED.decisions).tolist() == [400, 400]  # move, throw
    assert (SHIPPED.legal == ~np.isnan(SHIPPED.values)).all()
    assert len(set(SHIPPED.states.tolist())) == len(SHIPPED)
    for row, text in enumerate(SHIPPED.states):
        state = TRAP.from_text(str(text))
        values = SHIPPED.values[row]
        legal = np.flatnonzero(SHIPPED.legal[row]).tolist()
        assert legal == TRAP.legal_actions(state)
        assert TRAP.decision_names[SHIPPED.decisions[row]] == TRAP.decision_name(state)
        assert (SHIPPED.observations[row] == TRAP.observe(state, TRAP.current_player(state))).all()
        best = np.nanmax(values)
        assert SHIPPED.best[row] == min(a for a in legal if values[a] >= best - TIE_TOLERANCE)
        assert best - np.nanmin(values) > TIE_TOLERANCE  # a choice that matters


def test_it_records_how_it_was_drawn_with_the_defaults():
    assert {key: SHIPPED.drawn[key] for key in (
        "rungs", "games_per_pairing", "opening_plies", "per_decision", "seed")} == {
        "rungs": list(trap_solve.POSITION_RUNGS), "games_per_pairing": DEFAULT_GAMES_PER_PAIRING,
        "opening_plies": DEFAULT_OPENING_PLIES, "per_decision": DEFAULT_PER_DECISION, "seed": 0,
    }  # fmt: skip
    assert SHIPPED.drawn["command"].startswith("trap-solve --game trap --rule=board_size=3 ")


def test_its_values_agree_with_the_solver_on_a_sample(solved_cache: Path):
    perfect = make_agent("perfect", game="trap")
    for row in range(0, len(SHIPPED), 37):
        solved = perfect.action_values(TRAP.from_text(str(SHIPPED.states[row])))  # type: ignore[attr-defined]
        assert {a: SHIPPED.values[row, a] for a in solved} == pytest.approx(solved, abs=1e-12)


def test_a_draw_is_the_same_bytes_each_time_and_reads_back(solved_cache: Path, tmp_path: Path):
    def draw() -> Positions:
        return draw_positions("trap", {"board_size": 3}, rungs=("random", "greedy"),
                              games_per_pairing=1, per_decision=10, seed=3)  # fmt: skip

    first = draw()
    assert first.to_bytes() == draw().to_bytes()
    assert 0 < len(first) <= 20 and first.drawn["candidates"] >= first.drawn["decisive"]
    path = tmp_path / "positions" / "p.npz"  # a folder not made yet
    first.save(path)
    again = read_positions(path)
    assert len(again.sha256) == 64 and path.read_bytes() == first.to_bytes()
    for name in ("states", "decisions", "observations", "legal", "best"):
        assert (getattr(again, name) == getattr(first, name)).all()
    assert np.array_equal(again.values, first.values, equal_nan=True)


def test_a_rung_that_cannot_play_the_board_is_refused(solved_cache: Path):
    with pytest.raises(ValueError, match=r"mcts network .* was trained for"):
        draw_positions("trap", {"board_size": 3}, rungs=("random", "mcts:time_limit=0.1"),
                       games_per_pairing=1)  # fmt: skip


@pytest.mark.parametrize(
    ("game", "rules", "message"),
    [
        ("trap", {"board_size": 5},
         "no solved positions of Trap! 5x5 (board_size=5, decay=50); shipped: 3x3 "
         "(board_size=3, decay=50)"),
        ("trap", {"board_size": 3, "decay": 0}, "shipped: 3x3 (board_size=3, decay=50)"),
        ("othello", {"board_size": 8}, "no solved positions of Othello 8x8"),
        ("othello", {"board_size": 6, "end_rule": "course"}, "shipped: 4x4 (board_size=4, "
         "end_rule=standard); 6x6 (board_size=6, end_rule=standard)"),
    ],
)  # fmt: skip
def test_a_board_without_positions_is_refused_naming_those_with_them(game, rules, message):
    with pytest.raises(ValueError) as raised:
        find_positions(game, rules)
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_trap_ships_3x3_positions_colosseum_3x3_and_4x4_and_othello_4x4_and_6x6():
    assert [p.rules for p in shipped_positions("trap")] == [{"board_size": 3, "decay": 50}]
    assert [p.rules for p in shipped_positions("colosseum")] == [
        {"board_size": 3, "start": -1}, {"board_size": 4, "start": -1}]  # fmt: skip
    assert [p.rules for p in shipped_positions("othello")] == [
        {"board_size": 4, "end_rule": "standard"},
        {"board_size": 6, "end_rule": "standard"},
    ]


def test_each_game_draws_from_the_rungs_its_agents_package_declares_by_default():
    assert default_rungs("trap") == trap_solve.POSITION_RUNGS
    assert default_rungs("colosseum") == (*COMMON_RUNGS, "mcts:simulations=20,time_limit=none")
    assert default_rungs("othello") == COMMON_RUNGS  # it declares none


def test_a_games_endgame_solver_is_the_one_its_agents_package_declares():
    assert endgame_solver("othello") is othello_solve.endgame_values
    assert endgame_solver("trap") is None and endgame_solver("colosseum") is None


def test_the_generic_module_holds_no_table_by_game():
    # A game's rungs and endgame solver are declared in its own agents package, so a new
    # game adds its own there, not here.
    for name, value in vars(solved_positions).items():
        assert not (isinstance(value, dict) and set(value) & set(game_names())), name


# --- Colosseum 3x3 -------------------------------------------------------------------------

COLOSSEUM_SHIPPED = find_positions("colosseum", {"board_size": 3})


def test_the_shipped_colosseum_3x3_set_is_rebuilt_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # What ``trap-solve --game colosseum --board-size 3 --positions FILE`` draws (seconds).
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    command = COLOSSEUM_SHIPPED.drawn["command"]
    assert command.startswith("trap-solve --game colosseum --rule=board_size=3 --rule=start=-1")
    rebuilt = draw_positions("colosseum", {"board_size": 3}, command=command)
    assert rebuilt.to_bytes() == COLOSSEUM_SHIPPED.to_bytes()
    assert rebuilt.drawn["rungs"] == list(colosseum_solve.POSITION_RUNGS)


def test_the_colosseum_3x3_values_agree_with_the_exact_search():
    # The alpha-beta of agents.colosseum.exact, which shares no code with the table.
    from agents.colosseum.exact import exact_value

    game = get_game("colosseum")
    assert len(COLOSSEUM_SHIPPED) > 200 and set(COLOSSEUM_SHIPPED.decisions.tolist()) == {0}
    for row in range(0, len(COLOSSEUM_SHIPPED), 5):
        state = game.from_text(str(COLOSSEUM_SHIPPED.states[row]))
        for action in np.flatnonzero(COLOSSEUM_SHIPPED.legal[row]).tolist():
            after = game.apply(state, action)
            assert COLOSSEUM_SHIPPED.values[row, action] == -exact_value(after).value


def _rewritten(name: str, array: np.ndarray | None) -> bytes:
    """The shipped file with the array ``name`` replaced by ``array`` (None: dropped)."""
    source = zipfile.ZipFile(io.BytesIO(SHIPPED_BYTES))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for member in source.namelist():
            data = source.read(member)
            if member == f"{name}.npy" and array is not None:
                written = io.BytesIO()
                np.save(written, array)
                data = written.getvalue()
            if member != f"{name}.npy" or array is not None:
                archive.writestr(member, data)
    return buffer.getvalue()


DAMAGES = [
    ("states", None), ("meta", np.zeros(3, dtype=np.int8)), ("meta", np.array("{}")),
    ("values", SHIPPED.values[:, :4]), ("observations", SHIPPED.observations[:, :2]),
    ("best", SHIPPED.best.astype(np.float64)), ("best", np.full(len(SHIPPED), 9)),
    ("legal", ~SHIPPED.legal), ("decisions", np.full(len(SHIPPED), 7, dtype=np.int8)),
    ("values", np.where(SHIPPED.legal, 0.0, 1.0)),
]  # fmt: skip


@settings(max_examples=30)
@given(
    st.one_of(
        st.integers(0, 24_000).map(lambda cut: SHIPPED_BYTES[:cut]),
        st.tuples(st.integers(0, 24_000), st.integers(1, 255)).map(
            lambda flip: _flipped(SHIPPED_BYTES, *flip)
        ),
        st.sampled_from(DAMAGES).map(lambda damage: _rewritten(*damage)),
    )
)
def test_a_damaged_file_is_refused_in_one_line_naming_it(data: bytes):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "p.npz"
        path.write_bytes(data)
        try:
            read_positions(path)
        except ValueError as error:
            message = str(error)
            assert message.startswith(f"{path} is not a positions file: ") and "\n" not in message


@pytest.mark.parametrize("damage", DAMAGES, ids=[name for name, _ in DAMAGES])
def test_each_damage_of_the_arrays_is_refused(damage, tmp_path: Path):
    path = tmp_path / "p.npz"
    path.write_bytes(_rewritten(*damage))
    with pytest.raises(ValueError, match="is not a positions file: it"):
        read_positions(path)


def _flipped(data: bytes, at: int, by: int) -> bytes:
    at %= len(data)
    return data[:at] + bytes([data[at] ^ by]) + data[at + 1 :]


def test_a_set_of_another_format_is_refused(tmp_path: Path):
    path = tmp_path / "p.npz"
    meta = np.array('{"format": 9, "game": "trap", "rules": {}, "drawn": {}}')
    path.write_bytes(_rewritten("meta", meta))
    with pytest.raises(ValueError, match="its format is 9; this trap_env reads 1"):
        read_positions(path)


# --- Colosseum 4x4 -------------------------------------------------------------------------

COLOSSEUM_4X4 = find_positions("colosseum", {"board_size": 4})


def test_the_shipped_colosseum_4x4_set_agrees_with_the_plain_search_near_the_end():
    # The set is redrawn in minutes (not here): its positions with few barriers left are
    # checked against the plain search, a sample of the rest against perfect's search.
    from tests.support.colosseum_plain import barriers_left, exact

    game = get_game("colosseum")
    checked = 0
    for row, text in enumerate(COLOSSEUM_4X4.states):
        state = game.from_text(str(text))
        if barriers_left(state) <= 12:  # 25 of them, each in milliseconds
            for action in np.flatnonzero(COLOSSEUM_4X4.legal[row]).tolist():
                after = game.apply(state, action)
                assert COLOSSEUM_4X4.values[row, action] == -exact(after), (row, action)
            checked += 1
    assert checked >= 20
    assert COLOSSEUM_4X4.drawn["command"].startswith(
        "trap-solve --game colosseum --rule=board_size=4 --rule=start=-1 --positions FILE")


def test_a_sample_of_the_colosseum_4x4_set_is_valued_again_alike():
    perfect = make_agent("perfect", game="colosseum")
    game = get_game("colosseum")
    for row in range(0, len(COLOSSEUM_4X4), 100):
        state = game.from_text(str(COLOSSEUM_4X4.states[row]))
        solved = perfect.action_values(state)  # type: ignore[attr-defined]
        assert {a: COLOSSEUM_4X4.values[row, a] for a in solved} == solved


# --- Othello 4x4 ---------------------------------------------------------------------------

OTHELLO_4X4 = find_positions("othello", {"board_size": 4})
OTHELLO = get_game("othello")


def _plain_outcome(state: OthelloState) -> int:
    """The outcome for the player to act under perfect play (1, 0, -1), by the rules alone:
    every line of play to its end (the oracle; a 4x4 game has at most 12 placements)."""
    return _plain_outcome_of(dataclasses.replace(state, turn=0))


@functools.cache
def _plain_outcome_of(state: OthelloState) -> int:
    # Keyed without the turn (which the value does not depend on): the lines share positions.
    result = othello_rules.outcome(state)
    if result is not None:
        return 0 if result.winner is None else (1 if result.winner == state.player else -1)
    return max(-_plain_outcome(othello_rules.apply(state, action))
               for action in othello_rules.legal_actions(state))  # fmt: skip


def _plain_action_values(state: OthelloState) -> dict[int, float]:
    """Each legal action's outcome for the player to act, by :func:`_plain_outcome`."""
    return {action: float(-_plain_outcome(othello_rules.apply(state, action)))
            for action in othello_rules.legal_actions(state)}  # fmt: skip


def test_the_shipped_othello_4x4_set_agrees_with_a_plain_negamax_on_a_sample():
    # Every 4th position (a second of the plain search; all 280 take three or four).
    assert len(OTHELLO_4X4) == 280 and OTHELLO_4X4.drawn["rungs"] == list(COMMON_RUNGS)
    assert OTHELLO_4X4.drawn["command"].startswith(
        "trap-solve --game othello --rule=board_size=4 --rule=end_rule=standard --positions FILE")
    for row in range(0, len(OTHELLO_4X4), 4):
        plain = _plain_action_values(OTHELLO.from_text(str(OTHELLO_4X4.states[row])))
        assert {a: OTHELLO_4X4.values[row, a] for a in plain} == plain, row
        assert np.flatnonzero(OTHELLO_4X4.legal[row]).tolist() == list(plain)
        assert OTHELLO_4X4.best[row] == min(a for a, v in plain.items() if v == max(plain.values()))


def test_an_othello_pass_is_met_in_the_games_and_dropped_as_indifferent():
    # Valued by the plain negamax: the draw's rule, not the solver, is what is checked.
    valued: list[OthelloState] = []

    def values(state: OthelloState) -> dict[int, float]:
        valued.append(state)
        return _plain_action_values(state)

    drawn = draw_positions("othello", {"board_size": 4}, rungs=("random", "greedy"),
                           games_per_pairing=2, action_values=values)  # fmt: skip
    passes = [state for state in valued if OTHELLO.decision_name(state) == "pass"]
    assert passes and all(len(values(state)) == 1 for state in passes)
    assert 0 < len(drawn) == drawn.drawn["decisive"] < drawn.drawn["candidates"]
    assert set(drawn.decisions.tolist()) == {OTHELLO.decision_names.index("place")}
    assert set(OTHELLO_4X4.decisions.tolist()) == {OTHELLO.decision_names.index("place")}


# --- Othello 6x6 endgames ------------------------------------------------------------------

OTHELLO_6X6 = find_positions("othello", {"board_size": 6})


def _empties(state: OthelloState) -> int:
    return state.board_size**2 - (state.dark | state.light).bit_count()


def test_the_othello_6x6_set_is_of_endgames_and_agrees_with_a_plain_negamax_near_the_end():
    # The plain search takes a second for the 89 positions with at most 5 empty cells.
    assert len(OTHELLO_6X6) == 400
    assert OTHELLO_6X6.endgame == "positions with at most 12 empty cells"
    assert OTHELLO_6X6.describe().endswith(": 400 endgame positions (positions with at most 12 "
                                           "empty cells)")  # fmt: skip
    states = [OTHELLO.from_text(str(text)) for text in OTHELLO_6X6.states]
    assert max(map(_empties, states)) == 12
    checked = 0
    for row, state in enumerate(states):
        if _empties(state) <= 5:
            plain = _plain_action_values(state)
            assert {a: OTHELLO_6X6.values[row, a] for a in plain} == plain, row
            checked += 1
    assert checked >= 80


def test_a_sample_of_the_othello_6x6_set_is_valued_again_alike_by_the_endgame_solver():
    pytest.importorskip("numba", reason="the endgame solver is the solve extra's (numba)")
    values, covers = board_values("othello", OTHELLO_6X6.rules)
    assert covers == OTHELLO_6X6.endgame
    for row in range(0, len(OTHELLO_6X6), 50):
        solved = values(OTHELLO.from_text(str(OTHELLO_6X6.states[row])))
        assert solved is not None and {a: OTHELLO_6X6.values[row, a] for a in solved} == solved
    assert values(OTHELLO.initial_state(OTHELLO.make_config(board_size=6))) is None


def test_a_board_that_neither_perfect_nor_an_endgame_solver_values_is_refused_in_one_line():
    with pytest.raises(ValueError, match=r"^perfect plays only the solved boards \(3x3\), not "
                       r"4x4; and trap has no endgame solver$"):  # fmt: skip
        board_values("trap", {"board_size": 4, "decay": 50})

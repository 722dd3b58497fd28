"""The rules of Othello (:mod:`trap_env.othello.rules`): a test for every rule on ASCII
boards, perft node counts, known values on 4x4, games checked state by state against
OpenSpiel's own ``othello`` and against a model of the CSC384 course engine, and random
playouts that keep every invariant."""

from __future__ import annotations

import doctest
import functools
import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.positions import othello_position
from trap_env.othello import rules
from trap_env.othello.rules import (
    BOARD_FULL,
    COURSE,
    NO_MOVES,
    STANDARD,
    IllegalActionError,
    OthelloConfig,
    OthelloState,
    apply,
    cell_from_name,
    cell_name,
    disc_counts,
    from_text,
    initial_state,
    legal_action_mask,
    legal_actions,
    outcome,
    pass_action,
    to_text,
)
from trap_env.testing import check_text


def board(rows: str, side: str = "x", end_rule: str = STANDARD, turn: int = 0) -> OthelloState:
    """A state from rows written one per line (``x`` dark, ``o`` light, ``.`` empty), any
    discs (:func:`tests.support.positions.othello_position`)."""
    lines = "/".join(line.strip() for line in rows.strip().splitlines())
    return othello_position(f"{lines} {side} {turn} {end_rule}")


def names(state: OthelloState) -> list[str]:
    return [rules.action_name(state.board_size, action) for action in legal_actions(state)]


def playout(board_size: int, end_rule: str, seed: int) -> list[OthelloState]:
    """The states of one random game, start to end."""
    rng = random.Random(seed)
    state = initial_state(OthelloConfig(board_size, end_rule))
    states = [state]
    while legal_actions(state):
        state = apply(state, rng.choice(legal_actions(state)))
        states.append(state)
    return states


# --- The start ----------------------------------------------------------------------------


def test_the_module_examples_run() -> None:
    assert doctest.testmod(rules).failed == 0


@pytest.mark.parametrize("board_size", [4, 6, 8, 10])
def test_the_start_is_the_course_engines_and_dark_moves_first(board_size: int) -> None:
    # The course's create_initial_board: with i = j = N // 2 - 1, board[i][j] and
    # board[i+1][j+1] are 2 (light), board[i+1][j] and board[i][j+1] are 1 (dark);
    # board[row][col], and its current_player starts at 1 (dark).
    state = initial_state(OthelloConfig(board_size))
    assert course_board(state) == course_start(board_size)
    assert state.player == rules.DARK == 0 and state.turn == 0
    assert disc_counts(state) == (2, 2)


def test_the_8x8_start_in_algebraic_names() -> None:
    state = initial_state()
    dark = [cell_name(8, cell) for cell in rules.cells_of(state.dark)]
    light = [cell_name(8, cell) for cell in rules.cells_of(state.light)]
    assert (dark, light) == (["e4", "d5"], ["d4", "e5"])
    assert names(state) == ["d3", "c4", "f5", "e6"]


@pytest.mark.parametrize(
    "params, message",
    [
        ({"board_size": 7}, "even integer from 4 to 26"),
        ({"board_size": 2}, "even integer from 4 to 26"),
        ({"board_size": 28}, "even integer from 4 to 26"),
        ({"board_size": 100}, "even integer from 4 to 26"),
        ({"board_size": True}, "even integer from 4 to 26"),
        ({"board_size": 8.0}, "even integer from 4 to 26"),
        ({"end_rule": "csc384"}, r"one of \['standard', 'course'\]"),
    ],
)
def test_bad_rule_parameters_say_what_is_allowed(params: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        OthelloConfig(**params)


# --- Placing and flipping ---------------------------------------------------------------


def test_a_placement_flips_the_bracketed_line() -> None:
    state = apply(initial_state(), cell_from_name(8, "d3"))
    assert (
        to_text(state).split()[0]
        == "......../......../...x..../...xx.../...xo.../......../......../........"
    )
    assert state.player == rules.LIGHT and state.turn == 1


def test_a_placement_flips_every_bracketed_line_at_once() -> None:
    state = board(
        """
        x..x..x.
        .o.o.o..
        ..ooo...
        xoo.ooox
        ..ooo...
        .o.o.o..
        x..x..x.
        ........
        """
    )
    after = apply(state, cell_from_name(8, "d4"))
    # Eight lines meet at d4: 2 + 2 + 3 + 2 + 2 + 2 + 2 + 2 light discs flip.
    assert disc_counts(state) == (8, 17) and disc_counts(after) == (26, 0)


def test_lines_that_end_at_an_empty_cell_or_the_edge_do_not_flip() -> None:
    state = board(
        """
        ......
        .oo.x.
        ......
        .o....
        ......
        o.....
        """
    )
    # From a2 the light line b2, c2 ends at the empty d2; from b5 the line b4 ends at the
    # empty b3; from a5 the line a6 runs off the board: none of them brackets.
    assert not {"a2", "b5", "a5"} & set(names(state))
    state = board(
        """
        ......
        xoo.x.
        ......
        .o....
        ......
        o.....
        """
    )
    after = apply(state, cell_from_name(6, "d2"))
    # d2 flips c2 and b2 (bracketed by a2) and nothing else.
    assert to_text(after).split()[0] == "....../xxxxx./....../.o..../....../o....."


def test_a_disc_brackets_only_up_to_the_first_own_disc() -> None:
    state = board(
        """
        ......
        .oxo..
        ......
        ......
        ......
        ......
        """
    )
    after = apply(state, cell_from_name(6, "a2"))
    assert to_text(after).split()[0] == "....../xxxo../....../....../....../......"


@pytest.mark.parametrize("cell", ["a1", "b1", "a2", "f6", "c3"])
def test_occupied_and_non_bracketing_cells_are_illegal_and_named(cell: str) -> None:
    state = board(
        """
        ......
        ......
        ..ox..
        ..xo..
        ......
        ......
        """
    )
    action = cell_from_name(6, cell)
    with pytest.raises(
        IllegalActionError, match=r"legal: 8 \(c2\), 13 \(b3\), 22 \(e4\), 27 \(d5\)"
    ):
        apply(state, action)


@pytest.mark.parametrize("action", [-1, 37, 1.0, "d3", True, None])
def test_actions_out_of_range_or_of_another_type_are_illegal(action: object) -> None:
    with pytest.raises(IllegalActionError):
        apply(initial_state(OthelloConfig(6)), action)  # type: ignore[arg-type]


def test_numpy_integers_are_actions() -> None:
    np = pytest.importorskip("numpy")
    assert apply(initial_state(), np.int64(19)) == apply(initial_state(), 19)


# --- Passing and the end ------------------------------------------------------------------

BOTH_BLOCKED = """
    x.oo
    ....
    ....
    ....
"""
"""Neither colour brackets anything: the standard game is over, light ahead 2 to 1."""

DARK_PASSES = """
    ox..
    ....
    ....
    ....
"""
"""Dark, to act, brackets nothing; light may place on c1 (bracketing b1 with a1)."""


def test_a_blocked_player_passes_under_the_standard_rule() -> None:
    state = board(DARK_PASSES)
    assert rules.own_placements(state) == 0
    assert legal_actions(state) == [pass_action(4)] == [16]
    assert legal_action_mask(state) == [0] * 16 + [1]
    assert outcome(state) is None
    passed = apply(state, 16)
    assert passed.player == rules.LIGHT and passed.turn == 1
    assert (passed.dark, passed.light) == (state.dark, state.light)
    assert names(passed) == ["c1"]


def test_the_pass_is_illegal_when_a_placement_is_legal() -> None:
    with pytest.raises(
        IllegalActionError, match=r"illegal action 64 \(pass\) for x; legal: 19 \(d3\)"
    ):
        apply(initial_state(), 64)


def test_the_course_rule_ends_the_game_when_the_player_to_act_is_blocked() -> None:
    state = board(DARK_PASSES, end_rule=COURSE)
    assert legal_actions(state) == []
    ended = outcome(state)
    assert ended is not None and ended.reason == NO_MOVES
    assert ended.winner is None  # one disc each
    with pytest.raises(IllegalActionError, match="the game is over"):
        apply(state, 16)


def test_the_standard_game_ends_when_neither_player_can_place() -> None:
    state = board(BOTH_BLOCKED)
    assert legal_actions(state) == [] and legal_action_mask(state) == [0] * 17
    ended = outcome(state)
    assert ended is not None and ended.reason == NO_MOVES
    assert ended.winner == rules.LIGHT and ended.returns() == (-1.0, 1.0)


def test_a_wiped_out_player_loses_with_no_moves() -> None:
    state = board("xx..\n....\n....\n....", side="o")
    ended = outcome(state)
    assert ended is not None and (ended.winner, ended.reason) == (rules.DARK, NO_MOVES)


@pytest.mark.parametrize(
    "rows, winner",
    [
        ("xxxx\nxxxx\noooo\noooo", None),
        ("xxxx\nxxxx\nxooo\noooo", rules.DARK),
        ("oxxx\nxxxx\noooo\noooo", rules.LIGHT),
    ],
)
def test_a_full_board_ends_the_game_more_discs_win_equal_draw(
    rows: str, winner: int | None
) -> None:
    for end_rule in (STANDARD, COURSE):
        ended = outcome(board(rows, end_rule=end_rule))
        assert ended is not None and (ended.winner, ended.reason) == (winner, BOARD_FULL)


def test_the_turn_limit_cuts_only_a_live_game() -> None:
    state = initial_state()
    assert outcome(state, max_turns=0) == rules.Outcome(None, rules.TRUNCATED)
    assert outcome(state, max_turns=1) is None
    over = board(BOTH_BLOCKED, turn=50)
    assert outcome(over, max_turns=10) == outcome(over)


# --- Text ---------------------------------------------------------------------------------


def test_text_round_trips_and_names_every_field() -> None:
    state = apply(initial_state(OthelloConfig(6, COURSE)), 8)
    assert to_text(state) == "....../..x.../..xx../..xo../....../...... o 1 course"
    assert from_text(to_text(state)) == state


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "Othello text is"),
        ("..../..../..../.... x 0", "Othello text is"),
        ("..../..../..../... x 0 standard", "row 4 must be 4"),
        ("..../..../..../...z x 0 standard", "row 4 must be 4 of"),
        ("..../..../.... x 0 standard", "even number of rows from 4 to 26, got 3"),
        ("../.. x 0 standard", "even number of rows from 4 to 26, got 2"),
        ("..../..../..../.... b 0 standard", "'x' \\(dark\\) or 'o' \\(light\\), got 'b'"),
        ("..../..../..../.... x -1 standard", "integer >= 0, got '-1'"),
        ("..../..../..../.... x 0 csc384", "one of \\['standard', 'course'\\], got 'csc384'"),
    ],
)
def test_bad_text_names_the_problem(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        from_text(text)


def test_cell_names_round_trip_and_bad_ones_are_named() -> None:
    for n in (4, 8, 12):
        for cell in range(n * n):
            assert cell_from_name(n, cell_name(n, cell)) == cell
    assert cell_from_name(8, "D3") == 19
    with pytest.raises(ValueError, match=r"column letter a\.\.h and a row 1\.\.8"):
        cell_from_name(8, "i1")
    with pytest.raises(ValueError, match="off the board"):
        cell_from_name(8, "a9")
    with pytest.raises(ValueError, match="such as 'd3'"):
        cell_from_name(8, "3d")


# --- Known values ------------------------------------------------------------------------

PERFT_8X8 = (1, 4, 12, 56, 244, 1396, 8200, 55092)
"""Leaf counts of standard 8x8 Othello from the start, depths 0 to 7 (published)."""


def perft(state: OthelloState, depth: int) -> int:
    """The leaves ``depth`` plies on (a pass is a ply; a finished game is one leaf)."""
    actions = legal_actions(state)
    if depth == 0 or not actions:
        return 1
    return sum(perft(apply(state, action), depth - 1) for action in actions)


@pytest.mark.parametrize("depth", range(1, 7))
def test_perft_of_8x8_matches_the_published_counts(depth: int) -> None:
    # Depth 6 takes about 0.3 s; depth 7 (55,092, 1.6 s) is left to explore by hand.
    assert perft(initial_state(), depth) == PERFT_8X8[depth]


@functools.cache
def margin(state: OthelloState) -> int:
    """Plain negamax: the final disc margin for the player to act under perfect play."""
    actions = legal_actions(state)
    if not actions:
        dark, light = disc_counts(state)
        return dark - light if state.player == rules.DARK else light - dark
    return max(-margin(apply(state, action)) for action in actions)


def test_4x4_othello_is_a_win_by_8_discs_for_light() -> None:
    # Published: on 4x4 the second player wins, 11 to 3, with perfect play.
    assert margin(initial_state(OthelloConfig(4))) == -8


# --- A second implementation: OpenSpiel's own othello ------------------------------------


def spiel_board(text: str) -> tuple[int, int]:
    """Dark's and light's bitboards from ``str(state)`` of OpenSpiel's othello (8x8,
    rows 1..8 between the column letters; ``x`` black, ``o`` white)."""
    dark = light = 0
    rows = [line.split()[1:9] for line in text.splitlines() if line[:1].isdigit()]
    for row, cells in enumerate(rows):
        for col, char in enumerate(cells):
            dark |= (char == "x") << (row * 8 + col)
            light |= (char == "o") << (row * 8 + col)
    return dark, light


@pytest.mark.parametrize("seed", range(12))
def test_random_8x8_games_match_openspiel_state_by_state(seed: int) -> None:
    # OpenSpiel's othello: player 0 is black (x) and moves first, as dark here; actions
    # are row * 8 + col and the pass is 64, as here; it passes only when blocked.
    pyspiel = pytest.importorskip("pyspiel")
    rng = random.Random(seed)
    spiel = pyspiel.load_game("othello").new_initial_state()
    state = initial_state()
    while not spiel.is_terminal():
        assert spiel_board(str(spiel)) == (state.dark, state.light)
        assert spiel.current_player() == state.player
        assert spiel.legal_actions() == legal_actions(state)
        assert outcome(state) is None
        action = rng.choice(legal_actions(state))
        spiel.apply_action(action)
        state = apply(state, action)
    assert spiel_board(str(spiel)) == (state.dark, state.light)
    ended = outcome(state)
    assert legal_actions(state) == [] and ended is not None
    assert tuple(spiel.returns()) == ended.returns()


def test_openspiel_games_with_passes_match_too() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    game, passes = pyspiel.load_game("othello"), 0
    for seed in range(200):
        rng = random.Random(1000 + seed)
        spiel, state = game.new_initial_state(), initial_state()
        while legal_actions(state):
            assert spiel.legal_actions() == legal_actions(state)
            action = rng.choice(legal_actions(state))
            passes += action == 64
            spiel.apply_action(action)
            state = apply(state, action)
        assert spiel.is_terminal() and tuple(spiel.returns()) == outcome(state).returns()  # type: ignore[union-attr]
    assert passes > 20


# --- The CSC384 course engine ------------------------------------------------------------

CourseBoard = list[list[int]]
"""The course's board: ``board[row][col]``, 0 empty, 1 dark, 2 light."""


def course_start(n: int) -> CourseBoard:
    """The course engine's start, as its ``create_initial_board`` lays it out."""
    grid = [[0] * n for _ in range(n)]
    m = n // 2 - 1
    grid[m][m] = grid[m + 1][m + 1] = 2
    grid[m + 1][m] = grid[m][m + 1] = 1
    return grid


def course_board(state: OthelloState) -> CourseBoard:
    n = state.board_size
    return [
        [1 if state.dark >> (r * n + c) & 1 else 2 if state.light >> (r * n + c) & 1 else 0
         for c in range(n)]
        for r in range(n)
    ]  # fmt: skip


def course_captures(grid: CourseBoard, row: int, col: int, colour: int) -> list[tuple[int, int]]:
    """The cells a disc of ``colour`` at ``(row, col)`` would capture, walked cell by cell."""
    n, captured = len(grid), []
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            line, r, c = [], row + dr, col + dc
            while (dr or dc) and 0 <= r < n and 0 <= c < n and grid[r][c] == 3 - colour:
                line.append((r, c))
                r, c = r + dr, c + dc
            if line and 0 <= r < n and 0 <= c < n and grid[r][c] == colour:
                captured += line
    return captured


def course_moves(grid: CourseBoard, colour: int) -> list[int]:
    n = len(grid)
    return [
        r * n + c
        for r in range(n)
        for c in range(n)
        if grid[r][c] == 0 and course_captures(grid, r, c, colour)
    ]


@pytest.mark.parametrize("board_size", [4, 6, 8])
def test_the_course_rule_plays_as_the_course_engine(board_size: int) -> None:
    # The manager stops as soon as the player to act has no legal claim, then counts.
    for seed in range(15):
        rng = random.Random(seed)
        state = initial_state(OthelloConfig(board_size, COURSE))
        grid, colour = course_start(board_size), 1
        while course_moves(grid, colour):
            assert legal_actions(state) == course_moves(grid, colour)
            action = rng.choice(legal_actions(state))
            row, col = divmod(action, board_size)
            for r, c in [(row, col), *course_captures(grid, row, col, colour)]:
                grid[r][c] = colour
            colour = 3 - colour
            state = apply(state, action)
            assert course_board(state) == grid and state.player == colour - 1
        ended = outcome(state)
        assert legal_actions(state) == [] and ended is not None
        dark, light = disc_counts(state)
        assert (dark, light) == tuple(sum(row.count(k) for row in grid) for k in (1, 2))


# --- Invariants of random playouts ------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    board_size=st.sampled_from([4, 6, 8, 10]),
    end_rule=st.sampled_from([STANDARD, COURSE]),
    seed=st.integers(0, 2**32),
)
def test_random_playouts_keep_every_invariant(board_size: int, end_rule: str, seed: int) -> None:
    n = board_size
    states = playout(n, end_rule, seed)
    placed = 0
    for before, after in itertools.pairwise(states):
        placed += (after.dark | after.light) != (before.dark | before.light)
    for index, state in enumerate(states):
        assert state.dark & state.light == 0
        assert state.turn == index
        assert from_text(to_text(state)) == state
        legal = legal_actions(state)
        mask = legal_action_mask(state)
        assert [a for a in range(n * n + 1) if mask[a]] == legal == sorted(legal)
        live = outcome(state) is None
        assert live == bool(legal) == any(mask)
        assert (pass_action(n) in legal) == (live and rules.own_placements(state) == 0)
        if end_rule == COURSE:
            assert pass_action(n) not in legal
        # Every action on the small boards; a sample of the edges and the legal on the large.
        tried = range(-1, n * n + 2) if n <= 6 else {-1, 0, n * n - 1, n * n, n * n + 1, *legal}
        for action in tried:
            if action in legal:
                apply(state, action)
            else:
                with pytest.raises(IllegalActionError):
                    apply(state, action)
    final = states[-1]
    assert sum(disc_counts(final)) == 4 + placed
    ended = outcome(final)
    assert ended is not None and ended.reason in rules.END_REASONS
    dark, light = disc_counts(final)
    assert ended.winner == (None if dark == light else int(light > dark))
    assert (ended.reason == BOARD_FULL) == (dark + light == n * n)


# --- Impossible states, sizes and any text --------------------------------------------------


START = initial_state(OthelloConfig(8))


@pytest.mark.parametrize(
    ("state", "error", "words"),
    [
        (OthelloState(8, STANDARD, 0, 0, 0, 0), ValueError, "centre cells d4, e4, d5, e5"),
        (START.__class__(8, STANDARD, START.dark, START.light, 0, 57), ValueError,
         "4 discs after 57 plies"),
        (OthelloState(8, STANDARD, START.dark | 1, START.light | 1, 0, 1), ValueError,
         "a1 hold a disc of both colours"),
        (OthelloState(8, STANDARD, START.dark, START.light, 7, 0), ValueError, "0 \\(dark\\)"),
        (OthelloState(8, STANDARD, START.dark | 1 << 200, START.light, 0, 1), ValueError,
         "bitboard of the 64 cells"),
        (OthelloState(8, STANDARD, START.dark | 1, START.light, 1, 0), ValueError,
         "5 discs after 0 plies"),
        (OthelloState(8, COURSE, START.dark | 1, START.light, 1, 2), ValueError,
         "course end rule .* plies are 1..1"),
        (OthelloState(8, STANDARD, START.dark, START.light, 0, -1), ValueError, "plies played"),
        (OthelloState(100, STANDARD, 0, 0, 0, 0), ValueError, "even integer from 4 to 26"),
        (OthelloState(8, "csc384", START.dark, START.light, 0, 0), ValueError, "end_rule"),
        (to_text(START), TypeError, "an OthelloState"),
    ],
)  # fmt: skip
def test_check_state_refuses_what_no_game_reaches(state: object, error: type, words: str) -> None:
    with pytest.raises(error, match=words):
        rules.check_state(state)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("..../..../..../.... x 0 standard", "centre cells b2, c2, b3, c3 are empty"),
        ("..../.ox./.xo./.... o 57 standard", "4 discs after 57 plies"),
        ("x.../.ox./.xo./.... o 2 course", "5 discs after 2 plies"),
    ],
)
def test_text_of_a_position_no_game_reaches_is_refused(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        from_text(text)


@pytest.mark.parametrize(("board_size", "end_rule"), [(4, STANDARD), (6, STANDARD), (6, COURSE)])
def test_check_state_passes_every_position_of_random_games(board_size: int, end_rule: str) -> None:
    for seed in range(20):
        for state in playout(board_size, end_rule, seed):
            rules.check_state(state)
            assert from_text(to_text(state)) == state


@settings(max_examples=60, deadline=None)
@given(size=st.integers(1, 40))
def test_one_size_range_for_the_config_the_text_and_the_drawings(size: int) -> None:
    if rules.MIN_BOARD_SIZE <= size <= rules.MAX_BOARD_SIZE and size % 2 == 0:
        state = initial_state(OthelloConfig(size))
        assert from_text(to_text(state)) == state
        from trap_env.othello.game import GAME

        assert GAME.render_text(state) and GAME.describe(state)["board_size"] == size
        last = rules.cell_name(size, size * size - 1)
        assert cell_from_name(size, last) == size * size - 1
        return
    with pytest.raises(ValueError, match="even integer from 4 to 26"):
        OthelloConfig(size)
    rows = "/".join(["." * size] * size)
    with pytest.raises(ValueError, match="even number of rows from 4 to 26"):
        from_text(f"{rows} x 0 standard")


@settings(max_examples=300, deadline=None)
@given(
    text=st.one_of(
        st.text(max_size=60),
        st.builds(
            " ".join,
            st.lists(st.sampled_from(["..../.ox./.xo./....", "x", "o", "0", "٣", "²", "4" * 5000,
                                      "standard", "course", "d3", "pass", "1,٣"]), max_size=5),
        ),
    )
)  # fmt: skip
def test_any_text_gives_a_state_or_a_value_error(text: str) -> None:
    check_text("othello", text, [initial_state(OthelloConfig(4))])


@pytest.mark.parametrize("text", ["d٣", "d²", "٣", "1,٣", "d" + "3" * 5000, "9" * 5000])
def test_action_numbers_are_ascii_digits_of_at_most_4300(text: str) -> None:
    from trap_env.othello.game import GAME

    with pytest.raises(ValueError, match=r"a cell is|an action is") as error:
        GAME.action_from_text(initial_state(), text)
    assert "Exceeds the limit" not in str(error.value)
    with pytest.raises(ValueError, match="plies played are an integer >= 0 of at most 4300"):
        from_text("..../.ox./.xo./.... x " + "1" * 5000 + " standard")

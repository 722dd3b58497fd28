"""The rules of Colosseum Survival! (:mod:`trap_env.colosseum.rules`): a test for every
rule on ASCII boards, the start drawn as the course engine draws it, the end test and the
moves checked against plain oracles (a flood fill and the engine's breadth-first search,
written here cell by cell) along random playouts that Hypothesis drives."""

from __future__ import annotations

import collections
import doctest
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trap_env.colosseum import rules
from trap_env.colosseum.game import GAME
from trap_env.colosseum.rules import (
    DOWN,
    LEFT,
    MOVES,
    NUM_STARTS,
    OPPOSITE,
    RIGHT,
    SEPARATED,
    UP,
    ColosseumConfig,
    ColosseumState,
    IllegalActionError,
    apply,
    draw_start,
    from_text,
    has_wall,
    initial_state,
    legal_actions,
    outcome,
    start_state,
    to_text,
    zone_sizes,
)
from trap_env.testing import check_text


def board(picture: str, player: str = "A", turn: int = 0) -> ColosseumState:
    """A state from a drawing as :meth:`Colosseum.render_text` draws it (``|`` and ``---``
    barriers between ``+`` corners; ``A`` and ``B`` in their cells)."""
    lines = [line.strip() for line in picture.strip().splitlines()]
    n = (len(lines) - 1) // 2
    digits, cells = [], {}
    for row in range(n):
        above, middle, below = lines[2 * row], lines[2 * row + 1], lines[2 * row + 2]
        values = []
        for col in range(n):
            value = (above[4 * col + 1] == "-") * 1 + (middle[4 * col + 4] == "|") * 2
            value += (below[4 * col + 1] == "-") * 4 + (middle[4 * col] == "|") * 8
            values.append(f"{value:x}")
            if middle[4 * col + 2] in "AB":
                cells[middle[4 * col + 2]] = f"{row},{col}"
        digits.append("".join(values))
    return from_text(f"{'/'.join(digits)} {cells['A']} {cells['B']} {player} {turn}")


def picture_of(state: ColosseumState) -> str:
    return "\n".join(GAME.render_text(state).splitlines()[:-1])


def moves(state: ColosseumState) -> set[tuple[int, int, int]]:
    n = state.board_size
    return {(*divmod(a // 4, n), a % 4) for a in legal_actions(state)}


def destinations(state: ColosseumState) -> set[tuple[int, int]]:
    return {(row, col) for row, col, _ in moves(state)}


OPEN_4 = """
+---+---+---+---+
| A             |
+   +   +   +   +
|               |
+   +   +   +   +
|               |
+   +   +   +   +
|             B |
+---+---+---+---+
"""

TOP_ROW_CUT = """
+---+---+---+
| A         |
+   +---+---+
|         B |
+   +   +   +
|           |
+---+---+---+
"""
"""A on move can close the top row off: its 3 cells against B's 6, a loss."""


def test_the_module_examples_run() -> None:
    import trap_env.colosseum

    assert doctest.testmod(rules).failed == 0
    assert doctest.testmod(trap_env.colosseum).failed == 0


def test_a_drawing_reads_back_as_it_is_drawn() -> None:
    state = board(OPEN_4)
    assert picture_of(state) == OPEN_4.strip()
    assert to_text(state) == "9113/8002/8002/c446 0,0 3,3 A 0"


def test_k_is_half_the_side_rounded_up() -> None:
    assert [rules.max_steps(n) for n in range(3, 13)] == [2, 2, 3, 3, 4, 4, 5, 5, 6, 6]


def test_a_move_goes_at_most_k_steps_and_may_stay() -> None:
    state = board(OPEN_4)  # K = 2
    reach = destinations(state)
    assert reach == {(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (2, 0)}
    assert (0, 0) in reach  # staying is a move


def test_a_step_never_crosses_a_barrier() -> None:
    state = board("""
+---+---+---+---+
| A     |       |
+---+   +   +   +
|               |
+   +   +   +   +
|               |
+   +   +   +   +
|             B |
+---+---+---+---+
""")  # K = 2: right, then down; not through the barrier right of (0, 1)
    assert destinations(state) == {(0, 0), (0, 1), (1, 1)}
    assert {side for row, col, side in moves(state) if (row, col) == (0, 0)} == {RIGHT}


def test_a_step_never_enters_or_passes_the_opponent() -> None:
    state = board("""
+---+---+---+---+---+
| A   B         |   |
+---+   +   +   +   +
|                   |
+   +   +   +   +   +
|                   |
+   +   +   +   +   +
|                   |
+   +   +   +   +   +
|                   |
+---+---+---+---+---+
""")  # K = 3; B blocks the only way out of A's corner
    assert destinations(state) == {(0, 0)}
    assert moves(state) == {(0, 0, RIGHT)}  # a barrier between A and B is allowed


def test_a_barrier_goes_only_where_there_is_none() -> None:
    state = board(OPEN_4)
    corner_sides = {side for row, col, side in moves(state) if (row, col) == (0, 0)}
    assert corner_sides == {RIGHT, DOWN}  # up and left are the border
    with pytest.raises(IllegalActionError, match=r"has a barrier up; free: \['right', 'down'\]"):
        apply(state, rules.action_of(0, UP))


def test_a_barrier_is_shared_by_both_cells() -> None:
    state = apply(board(OPEN_4), rules.action_of(1, RIGHT))  # A to (0, 1), right
    assert has_wall(state.walls, 1, RIGHT) and has_wall(state.walls, 2, LEFT)
    assert state.cells == (1, 15) and state.player == 1 and state.turn == 1
    for side in range(4):
        for cell in rules.cells_of(state.walls[side] & ~rules.border_walls(4)[side]):
            row, col = divmod(cell, 4)
            other = (row + MOVES[side][0]) * 4 + col + MOVES[side][1]
            assert has_wall(state.walls, other, OPPOSITE[side])


def test_an_action_out_of_reach_says_where_the_player_can_go() -> None:
    with pytest.raises(IllegalActionError, match=r"\(3, 0\) is not within 2 steps"):
        apply(board(OPEN_4), rules.action_of(12, UP))
    with pytest.raises(IllegalActionError, match=r"actions are 0\.\.63"):
        apply(board(OPEN_4), 64)
    with pytest.raises(IllegalActionError, match="an action is an int"):
        apply(board(OPEN_4), 1.0)  # type: ignore[arg-type]


def test_the_game_ends_when_the_players_are_separated() -> None:
    state = board(TOP_ROW_CUT)
    assert outcome(state) is None and zone_sizes(state) is None
    after = apply(state, rules.action_of(0, DOWN))  # A stays and closes the top row
    assert zone_sizes(after) == (3, 6)
    ended = outcome(after)
    assert ended is not None and ended.winner == 1 and ended.reason == SEPARATED
    assert legal_actions(after) == []
    with pytest.raises(IllegalActionError, match="the game is over"):
        apply(after, 0)


def test_equal_zones_draw() -> None:
    state = board("""
+---+---+---+---+
|       |       |
+   +   +   +   +
|       |       |
+   +   +   +   +
|     A |       |
+   +   +   +   +
|             B |
+---+---+---+---+
""")
    after = apply(state, rules.action_of(13, RIGHT))  # A walks to (3, 1), closes the gap
    ended = outcome(after)
    assert zone_sizes(after) == (8, 8) and ended is not None and ended.winner is None


def test_the_handout_example_on_4x4() -> None:
    """Figure 2 of the handout: A goes to (1, 1) and puts a barrier up, B stays at
    (2, 1) and puts one right, A stays and puts one down: A controls 9 cells."""
    state = board("""
+---+---+---+---+
|               |
+   +   +   +   +
|     A         |
+---+   +   +---+
|     B     |   |
+   +   +---+   +
|               |
+---+---+---+---+
""")  # the handout does not list its barriers: these make the same moves end the same way
    state = apply(state, rules.action_of(5, UP))
    state = apply(state, rules.action_of(9, RIGHT))
    assert outcome(state) is None
    state = apply(state, rules.action_of(5, DOWN))
    ended = outcome(state)
    assert zone_sizes(state) == (9, 7) and ended is not None and ended.winner == 0


# --- The start ----------------------------------------------------------------------------


@pytest.mark.parametrize("board_size", [3, 4, 5, 8, 9, 12])
def test_the_start_is_drawn_as_the_course_engine_draws_it(board_size: int) -> None:
    n, k = board_size, rules.max_steps(board_size)
    for seed in range(30):
        state = draw_start(n, random.Random(seed))
        first, second = state.cells
        assert divmod(second, n) == (n - 1 - first // n, n - 1 - first % n) and first != second
        border = rules.border_walls(n)
        inner = [wall & ~edge for wall, edge in zip(state.walls, border, strict=True)]
        assert sum(side.bit_count() for side in inner) == 2 * 2 * k  # 2K barriers, 2 sides each
        for side in range(4):  # mirrored: (r, c, side) <-> (M-1-r, M-1-c, opposite)
            for cell in rules.cells_of(inner[side]):
                assert has_wall(state.walls, n * n - 1 - cell, OPPOSITE[side])
        assert outcome(state) is None and state.player == 0 and state.turn == 0


def test_the_start_is_one_chance_node_over_start_numbers() -> None:
    config = ColosseumConfig(board_size=6)
    chance = initial_state(config)
    assert rules.is_chance(chance) and legal_actions(chance) == [] and outcome(chance) is None
    pairs = rules.chance_outcomes(chance)
    assert len(pairs) == NUM_STARTS and pairs[5] == (5, 1 / NUM_STARTS)
    assert apply(chance, 5) == start_state(config, 5) == initial_state(ColosseumConfig(6, 5))
    assert start_state(config, 5) == draw_start(6, random.Random(5))
    assert rules.sample_start(chance, random.Random(0)) == int(
        random.Random(0).random() * NUM_STARTS
    )
    with pytest.raises(ValueError, match="has been drawn"):
        rules.chance_outcomes(apply(chance, 5))
    with pytest.raises(IllegalActionError, match="start number"):
        apply(chance, NUM_STARTS)


def test_the_config_refuses_bad_sizes_and_starts() -> None:
    with pytest.raises(ValueError, match="board_size must be an integer from 3 to "):
        ColosseumConfig(board_size=2)
    with pytest.raises(ValueError, match="start must be -1"):
        ColosseumConfig(start=NUM_STARTS)


def test_different_starts_differ() -> None:
    texts = {to_text(start_state(ColosseumConfig(8), start)) for start in range(50)}
    assert len(texts) == 50


# --- Text ---------------------------------------------------------------------------------


def test_text_round_trips_and_explains_its_errors() -> None:
    chance = initial_state(ColosseumConfig(3))
    assert to_text(chance) == "913/802/c46 - - A 0" and from_text(to_text(chance)) == chance
    for text, message in [
        ("913/802/c46 0,0 2,2 A", "Colosseum text is"),
        ("913/802/c4 0,0 2,2 A 0", "row 2 must be 3 hex digits"),
        ("913/802/c46 0,0 0,0 A 0", "cannot share"),
        ("913/802/c46 0,0 3,3 A 0", "off the 3x3 board"),
        ("913/800/c46 0,0 2,2 A 0", "border lacks the right side of"),
        ("933/802/c46 0,0 2,2 A 0", "must also be left of"),
        ("913/802/c46 0,0 2,2 C 0", "'A' or 'B'"),
        ("913/802/c46 - 2,2 A 0", "'-' for the cells"),
    ]:
        with pytest.raises(ValueError, match=message):
            from_text(text)


# --- Oracles ------------------------------------------------------------------------------


def engine_board(state: ColosseumState) -> dict[tuple[int, int, int], bool]:
    """The engine's ``chess_board[r, c, side]`` as a dict."""
    n = state.board_size
    return {
        (row, col, side): has_wall(state.walls, row * n + col, side)
        for row in range(n)
        for col in range(n)
        for side in range(4)
    }


def oracle_zones(state: ColosseumState) -> tuple[bool, int, int]:
    """A plain flood fill, cell by cell: (separated, A's zone, B's zone)."""
    n, walls = state.board_size, engine_board(state)

    def flood(start: tuple[int, int]) -> set[tuple[int, int]]:
        seen, todo = {start}, [start]
        while todo:
            row, col = todo.pop()
            for side, (dr, dc) in enumerate(MOVES):
                nxt = (row + dr, col + dc)
                if not walls[row, col, side] and nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    first, second = (divmod(cell, n) for cell in state.cells)
    zone_a, zone_b = flood(first), flood(second)
    return second not in zone_a, len(zone_a), len(zone_b)


def oracle_moves(state: ColosseumState) -> set[tuple[int, int, int]]:
    """The engine's ``check_valid_step`` over every (cell, side): breadth-first search of
    at most K steps, not through barriers or the opponent."""
    n, walls = state.board_size, engine_board(state)
    me, other = (
        divmod(cell, n) for cell in (state.cells[state.player], state.cells[1 - state.player])
    )
    depth = {me: 0}
    queue = collections.deque([me])
    while queue:
        row, col = queue.popleft()
        if depth[row, col] == rules.max_steps(n):
            continue
        for side, (dr, dc) in enumerate(MOVES):
            nxt = (row + dr, col + dc)
            if not walls[row, col, side] and nxt != other and nxt not in depth:
                depth[nxt] = depth[row, col] + 1
                queue.append(nxt)
    return {
        (row, col, side) for row, col in depth for side in range(4) if not walls[row, col, side]
    }


@settings(max_examples=40, deadline=None)
@given(
    board_size=st.integers(3, 9), start=st.integers(0, NUM_STARTS - 1), seed=st.integers(0, 2**32)
)
def test_random_playouts_agree_with_the_oracles(board_size: int, start: int, seed: int) -> None:
    rng = random.Random(seed)
    state = start_state(ColosseumConfig(board_size), start)
    limit = GAME.default_turn_limit(ColosseumConfig(board_size))
    while True:
        separated, zone_a, zone_b = oracle_zones(state)
        assert (zone_sizes(state) is not None) == separated
        if separated:
            assert zone_sizes(state) == (zone_a, zone_b)
            ended = outcome(state)
            assert ended is not None
            assert ended.winner == (None if zone_a == zone_b else 0 if zone_a > zone_b else 1)
            break
        assert moves(state) == oracle_moves(state)
        assert from_text(to_text(state)) == state
        state = apply(state, rng.choice(legal_actions(state)))
        assert state.turn < limit


# --- Impossible states, sizes and any text --------------------------------------------------


def _impossible_states() -> list[tuple[object, type, str]]:
    start = start_state(ColosseumConfig(5), 0)
    border = rules.border_walls(5)
    inner = (start.walls[0] | 1 << 12, *start.walls[1:])  # (2, 2) up, not (1, 2) down
    return [
        (start.__class__(5, start.walls, (25, 3), 0, 0), ValueError, "cells must be two cells"),
        (start.__class__(5, start.walls, (-5, 3), 0, 0), ValueError, "cells must be two cells"),
        (start.__class__(5, start.walls, (3, 3), 0, 0), ValueError, "cannot share the cell"),
        (start.__class__(5, (0, 0, 0, 0), start.cells, 0, 0), ValueError, "border lacks"),
        (start.__class__(5, inner, start.cells, 0, 0), ValueError, "must also be down of"),
        (start.__class__(5, (*border[:3], 1 << 40), start.cells, 0, 0), ValueError, "bitboards"),
        (start.__class__(5, start.walls[:3], start.cells, 0, 0), ValueError, "bitboards"),
        (start.__class__(5, start.walls, start.cells, 7, 0), ValueError, "0 \\(A\\) or 1 \\(B\\)"),
        (start.__class__(5, start.walls, start.cells, 0, -1), ValueError, "turns played"),
        (start.__class__(5, border, (-1, -1), 1, 0), ValueError, "marks the start to draw"),
        (start.__class__(40, start.walls, start.cells, 0, 0), ValueError, "from 3 to 32"),
        ("913/802/c46 0,0 2,2 A 0", TypeError, "a ColosseumState"),
    ]


@pytest.mark.parametrize(("state", "error", "words"), _impossible_states())
def test_check_state_refuses_what_no_game_reaches(state: object, error: type, words: str) -> None:
    with pytest.raises(error, match=words):
        rules.check_state(state)  # type: ignore[arg-type]
    with pytest.raises(error, match=words):
        GAME.check_state(state)  # type: ignore[arg-type]


def test_check_state_passes_every_position_of_a_game() -> None:
    state = initial_state(ColosseumConfig(6))
    rules.check_state(state)
    state = apply(state, 4)
    while legal_actions(state):
        rules.check_state(state)
        state = apply(state, legal_actions(state)[-1])
    rules.check_state(state)


def test_the_zone_searches_end_on_a_board_without_border_walls() -> None:
    """They used to grow past the board's last row for good; now at most M*M spreads."""
    from agents.colosseum.evaluation import areas

    walls = (0, 0, 0, 0)
    assert rules.zone(5, walls, 12) >> 25 != 0  # garbage, but an answer
    assert areas(5, walls, 0, 24)
    unchecked = ColosseumState(5, walls, (0, 24), 0, 0)
    assert zone_sizes(unchecked) is None or zone_sizes(unchecked)


@settings(max_examples=60, deadline=None)
@given(size=st.integers(-2, 40))
def test_one_size_range_for_the_config_and_the_text(size: int) -> None:
    allowed = rules.MIN_BOARD_SIZE <= size <= rules.MAX_BOARD_SIZE
    if allowed:
        config = ColosseumConfig(size)
        assert from_text(to_text(initial_state(config))).board_size == size
        return
    with pytest.raises(ValueError, match="from 3 to 32"):
        ColosseumConfig(size)
    if size >= 1:  # a board of side 0 is no text: no rows field at all
        rows = "/".join(["0" * size] * size)
        with pytest.raises(ValueError, match="3 to 32 rows"):
            from_text(f"{rows} - - A 0")


@settings(max_examples=300, deadline=None)
@given(
    text=st.one_of(
        st.text(max_size=60),
        st.builds(
            " ".join,
            st.lists(st.sampled_from(["913/802/c46", "0,0", "2,2", "A", "0", "-", "٣", "²",
                                      "1,٣", "9" * 5000, "B", "x"]), max_size=6),
        ),
    )
)  # fmt: skip
def test_any_text_gives_a_state_or_a_value_error(text: str) -> None:
    check_text("colosseum", text, [start_state(ColosseumConfig(5), 0),
                                   initial_state(ColosseumConfig(5))])


@pytest.mark.parametrize("text", ["0,0,٣", "0,0,²", "٣", "0,٣,1", "0,0," + "1" * 5000])
def test_action_numbers_are_ascii_digits(text: str) -> None:
    with pytest.raises(ValueError, match="an action is 'row,col,side'") as error:
        GAME.action_from_text(start_state(ColosseumConfig(5), 0), text)
    assert "\n" not in str(error.value) and "int" not in str(error.value)


def test_a_number_of_5000_digits_in_the_text_is_a_one_line_error() -> None:
    with pytest.raises(ValueError, match="turns played are an integer >= 0 of at most 4300"):
        from_text("913/802/c46 0,0 2,2 A " + "7" * 5000)
    with pytest.raises(ValueError, match="A's cell is 'row,col'"):
        from_text("913/802/c46 0,٣ 2,2 A 0")

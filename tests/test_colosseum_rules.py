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

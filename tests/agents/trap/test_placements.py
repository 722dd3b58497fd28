"""Trap!'s placements (agents.trap.placements): every ``(me, other, traps)`` with the players
apart and off traps, numbered in ascending key order, looked up alike one by one, in arrays
and from a state seen by its player to act; checked against a plain count on tiny boards."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.trap.placements import Placements, pairs_of
from trap_env.trap import kernel
from trap_env.trap.core import Phase, State

SIZES = (2, 3)
"""Tiny boards: 48 and 9,216 placements (4x4 has 3.9 million, too many for a fast test)."""


@functools.cache
def placements(board_size: int) -> Placements:
    return Placements.of(board_size)


def key(board_size: int, me: int, other: int, traps: int) -> int:
    """A placement's key as the module's docstring writes it."""
    cells = board_size * board_size
    return (me * cells + other) * 2**cells + traps


@pytest.mark.parametrize("cells", [1, 2, 4, 9])
def test_pairs_are_every_ordered_pair_of_distinct_cells_in_order(cells: int) -> None:
    plain = [(a, b) for a in range(cells) for b in range(cells) if a != b]
    assert pairs_of(cells) == plain
    assert len(pairs_of(cells)) == cells * (cells - 1)


@pytest.mark.parametrize("board_size", SIZES)
def test_every_placement_is_there_once_with_the_players_apart_and_off_traps(
    board_size: int,
) -> None:
    found = placements(board_size)
    cells = board_size * board_size
    plain = {
        (me, other, traps)
        for me, other in pairs_of(cells)
        for traps in range(2**cells)
        if not traps >> me & 1 and not traps >> other & 1
    }
    listed = list(zip(found.me.tolist(), found.other.tolist(), found.traps.tolist(), strict=True))
    assert len(found) == len(plain) == cells * (cells - 1) * 2 ** (cells - 2)
    assert set(listed) == plain and len(set(listed)) == len(listed)


@pytest.mark.parametrize("board_size", SIZES)
def test_placements_are_numbered_in_ascending_key_order_and_the_index_holds_no_other(
    board_size: int,
) -> None:
    found = placements(board_size)
    rows = zip(found.me.tolist(), found.other.tolist(), found.traps.tolist(), strict=True)
    keys = [key(board_size, *row) for row in rows]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert found.index[keys].tolist() == list(range(len(found)))
    assert int((found.index >= 0).sum()) == len(found)  # every other key is -1


@settings(max_examples=60, deadline=None)
@given(me=st.integers(0, 8), other=st.integers(0, 8), traps=st.integers(0, 2**9 - 1))
def test_a_lookup_gives_the_placement_or_minus_one_where_there_is_none(
    me: int, other: int, traps: int
) -> None:
    found = placements(3)
    number = int(found.at(me, other, traps))
    if me == other or traps >> me & 1 or traps >> other & 1:
        assert number == -1
    else:
        assert (found.me[number], found.other[number], found.traps[number]) == (me, other, traps)


@settings(max_examples=20, deadline=None)
@given(rows=st.lists(st.integers(0, 9215), min_size=1, max_size=30))
def test_a_lookup_of_arrays_is_the_lookups_one_by_one(rows: list[int]) -> None:
    found = placements(3)
    me, other, traps = found.me[rows], found.other[rows], found.traps[rows]
    assert found.at(me, other, traps).tolist() == rows
    one_by_one = zip(me.tolist(), other.tolist(), traps.tolist(), strict=True)
    assert [int(found.at(a, b, t)) for a, b, t in one_by_one] == rows


@settings(max_examples=40, deadline=None)
@given(row=st.integers(0, 9215), player=st.sampled_from([0, 1]), phase=st.sampled_from(
    [Phase.MOVE, Phase.THROW]))  # fmt: skip
def test_a_state_is_numbered_as_seen_by_its_player_to_act(
    row: int, player: int, phase: Phase
) -> None:
    found = placements(3)
    me, other, traps = int(found.me[row]), int(found.other[row]), int(found.traps[row])
    cells = (me, other) if player == 0 else (other, me)
    state = State(3, traps, cells, player, phase, -1, 0, -1, kernel.DEFAULT_DECAY)
    number = found.of_state(state)
    assert isinstance(number, int) and number == row
    other_side = state._replace(player=1 - player)  # the same board, the other player to act
    assert found.of_state(other_side) == int(found.at(other, me, traps))

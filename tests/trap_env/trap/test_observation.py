"""Tests of trap_env.trap.observation: the planes and the mask, against the rules core."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.positions import playout
from trap_env.trap.core import (
    GameConfig,
    Phase,
    apply,
    from_text,
    initial_state,
    is_terminal,
    legal_action_mask,
)
from trap_env.trap.observation import NUM_PLANES, action_mask, bitboard_to_array, observe

# --- Scenario: a position drawn as text ------------------------------------------------

THROW_STATE = from_text("x.0../...../..x../..1.x/..... 1 throw - 3")


def test_planes_are_seen_from_the_observer() -> None:
    for player in (0, 1):
        planes = observe(THROW_STATE, player)
        own, other = THROW_STATE.cells[player], THROW_STATE.cells[1 - player]
        assert planes.shape == (5, 5, NUM_PLANES) and planes.dtype == np.int8
        assert planes[..., 0].ravel().nonzero()[0].tolist() == [own]
        assert planes[..., 1].ravel().nonzero()[0].tolist() == [other]
    traps = observe(THROW_STATE, 0)[..., 2]
    assert list(zip(*traps.nonzero(), strict=True)) == [(0, 0), (2, 2), (3, 4)]


def test_the_phase_plane_is_ones_to_throw_and_zeros_to_move() -> None:
    assert observe(THROW_STATE, 1)[..., 3].all()
    assert not observe(initial_state(), 0)[..., 3].any()


def test_the_mask_lists_the_legal_actions() -> None:
    mask = action_mask(THROW_STATE)
    assert mask.dtype == np.int8 and mask.shape == (25,)
    assert mask.tolist() == legal_action_mask(THROW_STATE)
    assert mask[2] == 0 and mask[17] == 0 and mask[0] == 1  # players no, a trap yes
    assert action_mask(initial_state()).nonzero()[0].tolist() == [2, 4, 9, 10, 11]


def test_the_mask_is_empty_once_the_game_is_over() -> None:
    won = from_text("0x.../xx.../...../...../....1 0 move - 9")
    assert is_terminal(won)
    assert not action_mask(won).any()
    assert observe(won, 0).shape == (5, 5, 4)


def test_observations_are_fresh_arrays() -> None:
    first = observe(THROW_STATE, 0)
    first[...] = 0
    assert observe(THROW_STATE, 0).any()


# --- Errors ------------------------------------------------------------------------------


def test_landing_states_are_not_observed() -> None:
    landing = apply(apply(initial_state(), 2), 24)
    with pytest.raises(ValueError, match="phase LANDING"):
        observe(landing, 0)
    with pytest.raises(ValueError, match="phase LANDING"):
        action_mask(landing)


def test_a_bad_player_is_named() -> None:
    with pytest.raises(ValueError, match="player must be 0 or 1, got 2"):
        observe(initial_state(), 2)


# --- Properties over random games ------------------------------------------------------


@given(st.integers(0, 2**49 - 1))
def test_bitboard_to_array_reads_every_bit(bitboard: int) -> None:
    array = bitboard_to_array(bitboard, 49)
    assert array.dtype == np.int8
    assert array.tolist() == [bitboard >> cell & 1 for cell in range(49)]


@given(st.sampled_from([3, 4, 5, 7, 9]), st.integers(0, 10_000))
def test_planes_and_mask_agree_with_the_core_in_random_games(board_size: int, seed: int) -> None:
    start = initial_state(GameConfig(board_size))
    game = playout(start, random.Random(seed), 12 * board_size * board_size)
    for state in (s for s in game if s.phase is not Phase.LANDING):
        assert action_mask(state).tolist() == legal_action_mask(state)
        mine, theirs = observe(state, state.player), observe(state, 1 - state.player)
        assert np.array_equal(mine[..., 0], theirs[..., 1])
        assert np.array_equal(mine[..., 2:], theirs[..., 2:])
        assert mine[..., :3].sum(axis=-1).max() == 1  # no two things on one cell
        assert set(np.unique(mine).tolist()) <= {0, 1}

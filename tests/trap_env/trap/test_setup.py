"""Trap!'s start and its configuration (trap_env.trap.core): where the players stand, the
board sizes and decays a GameConfig takes, and the turn limit.
"""

from __future__ import annotations

import pytest

from tests.support.trap_boards import DECAYS
from trap_env.trap.core import (
    DEFAULT_DECAY,
    GameConfig,
    Phase,
    State,
    apply,
    default_turn_limit,
    initial_state,
)

# --- The start and the configuration ------------------------------------------------


@pytest.mark.parametrize("n", [3, 4, 7, 10])
def test_initial_state_places_players_mid_top_and_mid_bottom(n: int) -> None:
    state = initial_state(GameConfig(board_size=n))
    assert state == State(n, 0, (n // 2, (n - 1) * n + n // 2), 0, Phase.MOVE, -1, 0, -1)
    assert initial_state() == initial_state(GameConfig(7))


@pytest.mark.parametrize("bad", [2, 1, 0, -7, True, False, 7.0, "7", None])
def test_game_config_rejects_bad_board_sizes(bad: object) -> None:
    with pytest.raises(ValueError, match=r"board_size must be an integer from 3 to "):
        GameConfig(board_size=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, 1001, 50.0, True, "50", None])
def test_game_config_rejects_bad_decays(bad: object) -> None:
    with pytest.raises(ValueError, match=r"decay must be an integer per mille in 0\.\.1000"):
        GameConfig(decay=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("decay", DECAYS)
def test_the_decay_is_part_of_the_state(decay: int) -> None:
    state = initial_state(GameConfig(5, decay=decay))
    assert state.decay == decay
    assert apply(apply(state, 3), 12).decay == decay
    assert initial_state().decay == DEFAULT_DECAY == 50


def test_the_turn_limit_is_four_n_squared() -> None:
    assert default_turn_limit(7) == 196
    assert default_turn_limit(3) == 36


def test_game_config_is_frozen() -> None:
    with pytest.raises(AttributeError):
        GameConfig().board_size = 5  # type: ignore[misc]

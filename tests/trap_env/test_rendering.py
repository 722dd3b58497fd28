"""Tests of trap_env.rendering (the env renderer, the pygame window) and of Trap!'s pictures
(trap_env.trap.rendering: text, numpy images)."""

from __future__ import annotations

import copy
import pickle
import sys
import warnings

import numpy as np
import pytest

from tests.support.games import every_game
from trap_env.games import get_game
from trap_env.rendering import PYGAME_MISSING, GameRenderer, HumanRenderer
from trap_env.trap.core import from_text, initial_state
from trap_env.trap.game import GAME as TRAP
from trap_env.trap.rendering import CELL_PIXELS, COLOURS, render_ansi, render_rgb

STATE = from_text("x.0../...../..x../..1.x/..... 1 throw - 3")


@pytest.fixture(autouse=True)
def _headless_pygame(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def pixel_at(image: np.ndarray, cell: int, board_size: int = 5) -> tuple[int, ...]:
    """The colour at the centre of ``cell``."""
    row, col = divmod(cell, board_size)
    centre = CELL_PIXELS // 2
    return tuple(image[row * CELL_PIXELS + centre, col * CELL_PIXELS + centre].tolist())


def test_ansi_draws_the_board_and_the_last_throw() -> None:
    text = render_ansi(STATE, last_throw=(12, 13))
    assert "0 x . 0 . ." in text and "3 . . 1 . x" in text
    assert "player 1 to throw" in text
    assert "last throw: target 2,2, landed on 2,3" in text
    assert "last throw" not in render_ansi(STATE)


def test_rgb_is_a_fresh_uint8_image_of_the_board() -> None:
    image = render_rgb(STATE)
    assert image.shape == (5 * CELL_PIXELS, 5 * CELL_PIXELS, 3) and image.dtype == np.uint8
    assert image.flags.writeable and render_rgb(STATE) is not image
    assert render_rgb(initial_state()).shape == (7 * CELL_PIXELS, 7 * CELL_PIXELS, 3)


def test_rgb_colours_players_traps_and_empty_cells() -> None:
    image = render_rgb(STATE)
    assert pixel_at(image, 2) == COLOURS["player_0"]
    assert pixel_at(image, 17) == COLOURS["player_1"]
    assert pixel_at(image, 0) == pixel_at(image, 12) == COLOURS["trap"]
    assert pixel_at(image, 6) == COLOURS["board"]
    assert COLOURS["player_0"] != COLOURS["player_1"]


def test_rgb_marks_the_target_and_the_landing() -> None:
    image = render_rgb(STATE, last_throw=(7, 8))
    assert pixel_at(image, 8) == COLOURS["landing"]
    row, col = divmod(7, 5)
    frame = image[row * CELL_PIXELS + 3, col * CELL_PIXELS + CELL_PIXELS // 2]
    assert tuple(frame.tolist()) == COLOURS["target"]
    assert not np.array_equal(image, render_rgb(STATE))


def test_human_renderer_opens_a_window_and_closes_twice() -> None:
    pytest.importorskip("pygame")
    window = HumanRenderer("Trap!", fps=1000)
    window.show(render_rgb(STATE))
    window.show(render_rgb(STATE))
    window.close()
    window.close()


def test_a_missing_pygame_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pygame", None)
    with pytest.raises(ImportError, match=r'pip install "trap_env\[render\]"'):
        HumanRenderer("Trap!")
    assert "pygame" in PYGAME_MISSING


def test_env_renderer_follows_the_render_mode() -> None:
    assert GameRenderer(TRAP, "ansi").render(STATE, (12, 13)) == render_ansi(STATE, (12, 13))
    assert isinstance(GameRenderer(TRAP, "ansi").render(STATE, None), str)
    assert GameRenderer(TRAP, "rgb_array").render(STATE, (7, 8)).shape == (240, 240, 3)
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert GameRenderer(TRAP, None).render(STATE, None) is None


def test_env_renderer_in_human_mode_survives_copies() -> None:
    pytest.importorskip("pygame")
    renderer = GameRenderer(TRAP, "human", fps=1000)
    assert renderer.render(STATE, None) is None
    for twin in (copy.deepcopy(renderer), pickle.loads(pickle.dumps(renderer))):
        assert twin.render_mode == "human"
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            twin.close()
    renderer.close()
    renderer.close()


def test_env_renderer_rejects_unknown_modes() -> None:
    with pytest.raises(ValueError, match=r"render_mode must be None or one of \['ansi'"):
        GameRenderer(TRAP, "svg")


@every_game()
def test_the_env_renderer_draws_every_game_with_its_own_pictures(game: str) -> None:
    rules = get_game(game)
    state = rules.initial_state(rules.make_config())  # the game's own defaults
    text = GameRenderer(rules, "ansi").render(state, None)
    assert isinstance(text, str) and text.endswith("\n") and not text.endswith("\n\n")
    assert text == rules.render_text(state).rstrip("\n") + "\n"
    image = GameRenderer(rules, "rgb_array").render(state, None)
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.shape[2] == 3

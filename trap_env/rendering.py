"""Rendering for the envs: a game's text and RGB image in an env's render mode, a pygame window.

:class:`GameRenderer` is an env's ``render()``: it draws any game with the game's own
pictures (``game.render_text``, ``game.render_rgb``; Trap!'s are in
:mod:`trap_env.trap.rendering`). :class:`HumanRenderer` opens a pygame window and imports
pygame only when it is built, so the environments import pygame only for
``render_mode="human"``.

Example:
    >>> from trap_env.games import get_game
    >>> game = get_game("othello")
    >>> renderer = GameRenderer(game, "rgb_array")
    >>> renderer.render(game.initial_state(game.make_config(board_size=4)), None).shape
    (128, 128, 3)
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
from gymnasium import logger

__all__ = [
    "PYGAME_MISSING",
    "RENDER_MODES",
    "GameRenderer",
    "HumanRenderer",
    "available_render_modes",
]

LastChance = tuple[int, int] | None
"""The last chance outcome, ``(before, outcome)`` (Trap!'s: the throw's target and landing)."""

RENDER_MODES = ("ansi", "rgb_array", "human")
"""The render modes of every env (``"human"`` needs pygame)."""

PYGAME_MISSING = (
    'render_mode="human" needs pygame, which is not installed; '
    'install it with: pip install "trap_env[render]"'
)


def available_render_modes() -> list[str]:
    """The render modes an env's ``metadata`` lists: :data:`RENDER_MODES`, ``"human"`` only
    where pygame is installed, so that Gymnasium's ``check_env``, which tries every listed
    mode, passes without it (asking for ``"human"`` still says how to install pygame)."""
    has_pygame = importlib.util.find_spec("pygame") is not None
    return [mode for mode in RENDER_MODES if mode != "human" or has_pygame]


class HumanRenderer:
    """A pygame window that shows RGB images; built only for ``render_mode="human"``.

    Args:
        caption: the window title.
        fps: the most images shown per second (``show`` waits to keep to it).

    Raises:
        ImportError: if pygame is not installed, saying how to install it.
    """

    def __init__(self, caption: str, fps: int = 4) -> None:
        try:
            import pygame
        except ImportError as error:
            raise ImportError(PYGAME_MISSING) from error
        self._pygame = pygame
        self._caption = caption
        self._fps = fps
        self._window: Any = None
        self._clock = pygame.time.Clock()

    def show(self, image: np.ndarray) -> None:
        """Draw ``image`` (``(H, W, 3)`` ``uint8``) in the window, opening it on first use."""
        pygame = self._pygame
        if self._window is None:
            pygame.display.init()
            pygame.display.set_caption(self._caption)
            self._window = pygame.display.set_mode((image.shape[1], image.shape[0]))
        pygame.event.pump()  # keeps the window responsive
        surface = pygame.surfarray.make_surface(image.swapaxes(0, 1))
        self._window.blit(surface, (0, 0))
        pygame.display.flip()
        self._clock.tick(self._fps)

    def close(self) -> None:
        """Close the window; closing twice, or before anything was shown, is fine."""
        if self._window is not None:
            self._pygame.display.quit()
            self._window = None


class GameRenderer:
    """What an env's ``render()`` does in its render mode, with the game's own pictures:
    ``game.render_text`` for ``"ansi"``, ``game.render_rgb`` for ``"rgb_array"`` and the
    ``"human"`` window.

    Args:
        game: a :class:`trap_env.game.Game`.
        render_mode: None, ``"ansi"``, ``"rgb_array"`` or ``"human"``.
        fps: the most frames per second a ``"human"`` window shows.

    Raises:
        ValueError: for any other render mode.
    """

    def __init__(self, game: Any, render_mode: str | None, fps: int = 4) -> None:
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(
                f"render_mode must be None or one of {list(RENDER_MODES)}, got {render_mode!r}"
            )
        self.render_mode = render_mode
        self._game = game
        self._fps = fps
        self._window: HumanRenderer | None = None

    def render(self, state: Any, last_chance: LastChance) -> str | np.ndarray | None:
        """Text for ``"ansi"``, an image for ``"rgb_array"``, a window update for ``"human"``."""
        if self.render_mode is None:
            logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', "
                "'rgb_array' or 'human' when making the env"
            )
            return None
        if self.render_mode == "ansi":
            text: str = self._game.render_text(state, last_chance)
            return text if text.endswith("\n") else text + "\n"
        image: np.ndarray = self._game.render_rgb(state, last_chance)
        if self.render_mode == "rgb_array":
            return image
        if self._window is None:
            self._window = HumanRenderer(self._game.title, self._fps)
        self._window.show(image)
        return None

    def close(self) -> None:
        """Close the window if one is open; closing twice is fine."""
        if self._window is not None:
            self._window.close()
            self._window = None

    def __getstate__(self) -> dict[str, Any]:
        """Everything but the window, so that copies and pickles of an env work."""
        return {**self.__dict__, "_window": None}

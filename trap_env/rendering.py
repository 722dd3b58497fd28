"""Rendering for the envs: Trap!'s text and RGB image (numpy alone), a pygame window.

``render_ansi`` and ``render_rgb`` need nothing beyond numpy. :class:`HumanRenderer` opens a
pygame window and imports pygame only when it is built, so the environments import pygame
only for ``render_mode="human"``. :class:`EnvRenderer` is an env's ``render()`` with
Trap!'s pictures; :class:`GameRenderer` draws any game with its own (``game.render_text``,
``game.render_rgb``).

A *last throw* is a ``(target, landing)`` pair of flat cells, or None before any throw. The
image marks the target with a yellow frame and the landing cell with an orange dot.

Example:
    >>> from trap_env.trap.core import initial_state
    >>> render_rgb(initial_state(), last_throw=(24, 25)).shape
    (336, 336, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import logger

from trap_env.trap.core import State, to_ascii

__all__ = [
    "CELL_PIXELS",
    "COLOURS",
    "PYGAME_MISSING",
    "RENDER_MODES",
    "EnvRenderer",
    "GameRenderer",
    "HumanRenderer",
    "render_ansi",
    "render_rgb",
]

LastThrow = tuple[int, int] | None

RENDER_MODES = ("ansi", "rgb_array", "human")
"""The render modes of every env."""

CELL_PIXELS = 48
"""The side of one board cell in the RGB image, in pixels."""

COLOURS: dict[str, tuple[int, int, int]] = {
    "board": (238, 228, 206),
    "grid": (150, 138, 118),
    "trap": (60, 56, 52),
    "player_0": (40, 110, 220),
    "player_1": (215, 50, 50),
    "target": (250, 205, 20),
    "landing": (245, 130, 20),
}
"""The RGB colour of each element of the image."""

PYGAME_MISSING = (
    'render_mode="human" needs pygame, which is not installed; '
    'install it with: pip install "trap_env[render]"'
)


def render_ansi(state: State, last_throw: LastThrow = None) -> str:
    """A text board: coordinates, ``0``/``1`` players, ``x`` traps, and the last throw."""
    text = to_ascii(state)
    if last_throw is not None:
        n = state.board_size
        target, landing = last_throw
        text += "\nlast throw: target {},{}".format(*divmod(target, n))
        text += ", landed on {},{}".format(*divmod(landing, n))
    return text + "\n"


def render_rgb(state: State, last_throw: LastThrow = None) -> np.ndarray:
    """An ``(N * 48, N * 48, 3)`` ``uint8`` image of the board (a fresh array).

    Traps are dark squares, player 0 a blue disc, player 1 a red disc; the last throw's
    target gets a yellow frame and its landing cell an orange dot.
    """
    n = state.board_size
    cells = np.zeros((n * n, CELL_PIXELS, CELL_PIXELS, 3), dtype=np.uint8)
    cells[:] = COLOURS["board"]
    sprites = _sprites()
    traps = [cell for cell in range(n * n) if state.traps >> cell & 1]
    cells[traps] = np.where(sprites["trap"][..., None], COLOURS["trap"], cells[traps])
    if last_throw is not None:
        target, landing = last_throw
        _paint(cells, target, sprites["frame"], "target")
        _paint(cells, landing, sprites["dot"], "landing")
    for player, cell in enumerate(state.cells):
        _paint(cells, cell, sprites["disc"], f"player_{player}")
    grid = cells.reshape(n, n, CELL_PIXELS, CELL_PIXELS, 3).transpose(0, 2, 1, 3, 4)
    image = grid.reshape(n * CELL_PIXELS, n * CELL_PIXELS, 3)
    image[::CELL_PIXELS, :] = COLOURS["grid"]
    image[:, ::CELL_PIXELS] = COLOURS["grid"]
    image[-1, :] = COLOURS["grid"]
    image[:, -1] = COLOURS["grid"]
    return np.asarray(image, dtype=np.uint8)


def _paint(cells: np.ndarray, cell: int, sprite: np.ndarray, colour: str) -> None:
    cells[cell][sprite] = COLOURS[colour]


_SPRITES: dict[str, np.ndarray] = {}


def _sprites() -> dict[str, np.ndarray]:
    """Boolean masks of one cell's pixels: trap square, target frame, landing dot, disc."""
    if not _SPRITES:
        centre = (CELL_PIXELS - 1) / 2
        rows, cols = np.mgrid[:CELL_PIXELS, :CELL_PIXELS]
        radius = np.hypot(rows - centre, cols - centre)
        edge = np.maximum(abs(rows - centre), abs(cols - centre))
        _SPRITES["trap"] = edge <= CELL_PIXELS * 0.40
        _SPRITES["frame"] = (edge >= CELL_PIXELS * 0.40) & (edge <= CELL_PIXELS * 0.47)
        _SPRITES["dot"] = radius <= CELL_PIXELS * 0.16
        _SPRITES["disc"] = radius <= CELL_PIXELS * 0.36
    return _SPRITES


class HumanRenderer:
    """A pygame window that shows RGB images; built only for ``render_mode="human"``.

    Args:
        caption: the window title.
        fps: the most images shown per second (``show`` waits to keep to it).

    Raises:
        ImportError: if pygame is not installed, saying how to install it.
    """

    def __init__(self, caption: str = "Trap!", fps: int = 4) -> None:
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


class EnvRenderer:
    """What an env's ``render()`` does in its render mode, with Trap!'s pictures.

    Args:
        render_mode: None, ``"ansi"``, ``"rgb_array"`` or ``"human"``.
        fps: the most frames per second a ``"human"`` window shows.

    Raises:
        ValueError: for any other render mode.
    """

    def __init__(self, render_mode: str | None, fps: int = 4) -> None:
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(
                f"render_mode must be None or one of {list(RENDER_MODES)}, got {render_mode!r}"
            )
        self.render_mode = render_mode
        self._fps = fps
        self._window: HumanRenderer | None = None

    def render(self, state: State, last_throw: LastThrow) -> str | np.ndarray | None:
        """Text for ``"ansi"``, an image for ``"rgb_array"``, a window update for ``"human"``."""
        if self.render_mode is None:
            logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', "
                "'rgb_array' or 'human' when making the env"
            )
            return None
        if self.render_mode == "ansi":
            return self._text(state, last_throw)
        image = self._image(state, last_throw)
        if self.render_mode == "rgb_array":
            return image
        if self._window is None:
            self._window = HumanRenderer(self._caption, self._fps)
        self._window.show(image)
        return None

    _caption = "Trap!"

    def _text(self, state: Any, last_throw: LastThrow) -> str:
        return render_ansi(state, last_throw)

    def _image(self, state: Any, last_throw: LastThrow) -> np.ndarray:
        return render_rgb(state, last_throw)

    def close(self) -> None:
        """Close the window if one is open; closing twice is fine."""
        if self._window is not None:
            self._window.close()
            self._window = None

    def __getstate__(self) -> dict[str, Any]:
        """Everything but the window, so that copies and pickles of an env work."""
        return {**self.__dict__, "_window": None}


class GameRenderer(EnvRenderer):
    """:class:`EnvRenderer` for any game: ``game.render_text`` and ``game.render_rgb``.

    Args:
        game: a :class:`trap_env.game.Game`.
        render_mode: None, ``"ansi"``, ``"rgb_array"`` or ``"human"``.
        fps: the most frames per second a ``"human"`` window shows.
    """

    def __init__(self, game: Any, render_mode: str | None, fps: int = 4) -> None:
        super().__init__(render_mode, fps)
        self._game = game
        self._caption = game.title

    def _text(self, state: Any, last_throw: LastThrow) -> str:
        return self._game.render_text(state) + "\n"  # type: ignore[no-any-return]

    def _image(self, state: Any, last_throw: LastThrow) -> np.ndarray:
        return self._game.render_rgb(state, last_throw)  # type: ignore[no-any-return]

"""Trap!'s pictures: the text board and the RGB image (numpy alone).

:meth:`trap_env.trap.game.Trap.render_text` and ``render_rgb`` draw with these, and every
env draws Trap! through them (:class:`trap_env.rendering.GameRenderer`).

A *last throw* is a ``(target, landing)`` pair of flat cells, or None before any throw. The
image marks the target with a yellow frame and the landing cell with an orange dot.

Example:
    >>> from trap_env.trap.core import initial_state
    >>> render_rgb(initial_state(), last_throw=(24, 25)).shape
    (336, 336, 3)
"""

from __future__ import annotations

import numpy as np

from trap_env.trap.core import State, to_ascii

__all__ = ["CELL_PIXELS", "COLOURS", "render_ansi", "render_rgb"]

LastThrow = tuple[int, int] | None

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

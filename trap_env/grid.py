"""The board a web page draws for any game: the ``grid`` field of :meth:`Game.describe
<trap_env.game.Game.describe>`, named here once.

A game whose positions are a grid of cells says so in ``describe(state)["grid"]``, built
with :class:`Grid` (``Grid(...).to_json()``); the page's generic board
(``agents/web/static/boards.js``) draws every such game, of any shape, without code of its
own. The fields, as JSON:

- ``rows``, ``cols``: the grid's shape; cell ``row * cols + col`` is row ``row`` (0 at the
  top) and column ``col`` (0 at the left).
- ``cells``: for each cell that holds something, by its number written as a string (JSON's
  keys): its ``piece`` and its ``mark`` (each a key of the legend), and its ``walls``, the
  sides that have one, as letters of ``"nesw"`` (up, right, down, left) in that order. A
  cell without an entry is empty.
- ``legend``: what each key looks like and means, in the order the page lists them:
  ``key``, ``label`` (a few characters drawn in the cell), ``color`` (``#rrggbb``: a
  piece's disc, a mark's cell) and ``text`` (the legend's words, with the game's counts).
- ``click``: which action a click on a cell is, or None where no click is an action
  (the page then takes the choice typed, in the game's action text). A click on cell
  ``(row, col)`` is the action ``row * click.row + col * click.col``; with ``click.side``
  > 0 each side of the cell is a click of its own, side ``s`` (0 up, 1 right, 2 down,
  3 left) adding ``s * click.side``. Trap! and Othello: ``{"row": N, "col": 1, "side":
  0}``; Colosseum: ``{"row": 4 N, "col": 4, "side": 1}``; a game whose actions are
  columns: ``{"row": 0, "col": 1, "side": 0}`` (any cell of a column is its action). A
  legal action that no click reaches (Othello's pass) gets a button of its own.

This module imports nothing outside the standard library.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trap_env.checks import describe, is_int

__all__ = ["SEAT_COLORS", "SIDES", "Click", "Grid", "Legend", "click_targets"]

SIDES = "nesw"
"""The sides of a cell, by number: up, right, down, left (a wall's letters, a click's side)."""
SEAT_COLORS = ("#c0392b", "#2471a3")
"""The colours of seats 0 and 1 on the page: a game's players' pieces take them."""
_COLOR = re.compile(r"#[0-9a-f]{6}")
_MAX_LABEL = 3
"""The most characters of a label (it is drawn inside a cell)."""
_MAX_CELLS = 1 << 16
"""The most cells of a grid (a 256x256 board)."""

Target = tuple[int, int | None]
"""Where a click is: a cell and its side (None: the cell as a whole)."""


@dataclass(frozen=True)
class Legend:
    """What a piece or a mark looks like and means.

    Attributes:
        key: the name the grid's pieces and marks use.
        label: up to 3 characters drawn in the cell (``"●"``, ``"A"``, ``"×"``).
        color: ``#rrggbb``: a piece's disc, a mark's cell.
        text: the legend's words (``"dark (seat 0): 12"``).
    """

    key: str
    label: str
    color: str
    text: str

    def __post_init__(self) -> None:
        for name in ("key", "label", "color", "text"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise ValueError(f"a legend's {name} is a string, got {describe(value)}")
        if not self.key or len(self.label) > _MAX_LABEL:
            raise ValueError(f"a legend has a key and a label of at most {_MAX_LABEL} characters, "
                             f"got {self.key!r:.40} and {self.label!r:.40}")  # fmt: skip
        if not _COLOR.fullmatch(self.color):
            raise ValueError(f"a legend's color is #rrggbb (lower case), got {self.color!r:.40}")


@dataclass(frozen=True)
class Click:
    """The action of a click on a cell: ``row * self.row + col * self.col``, plus ``s *
    self.side`` on side ``s`` of the cell when ``self.side`` > 0."""

    row: int
    col: int
    side: int = 0

    def __post_init__(self) -> None:
        for name in ("row", "col", "side"):
            value = getattr(self, name)
            if not (is_int(value) and value >= 0):
                raise ValueError(f"a click's {name} is an integer >= 0, got {describe(value)}")


@dataclass(frozen=True)
class Grid:
    """A position as a grid of cells, for the page to draw (the module's fields).

    Attributes:
        rows: the number of rows, at least 1.
        cols: the number of columns, at least 1.
        legend: every key the pieces and marks use, in the order the page lists them.
        pieces: a piece's legend key by cell.
        marks: a mark's legend key by cell (drawn under its piece, if any).
        walls: the sides of a cell that have a wall, letters of ``"nesw"`` in that order.
        click: which action a click on a cell is; None: no click is an action.

    Raises:
        ValueError: naming the field that is wrong and what it allows.
    """

    rows: int
    cols: int
    legend: Sequence[Legend]
    pieces: Mapping[int, str] = field(default_factory=dict)
    marks: Mapping[int, str] = field(default_factory=dict)
    walls: Mapping[int, str] = field(default_factory=dict)
    click: Click | None = None

    def __post_init__(self) -> None:
        for name in ("rows", "cols"):
            value = getattr(self, name)
            if not (is_int(value) and value >= 1):
                raise ValueError(f"a grid's {name} is an integer >= 1, got {describe(value)}")
        if self.rows * self.cols > _MAX_CELLS:
            raise ValueError(f"a grid has at most {_MAX_CELLS} cells, got {self.rows}x{self.cols}")
        keys = [entry.key for entry in self.legend]
        if len(set(keys)) != len(keys):
            raise ValueError(f"a grid's legend names each key once, got {keys}")
        for name in ("pieces", "marks", "walls"):
            self._check_cells(name, set(keys))

    def _check_cells(self, name: str, keys: set[str]) -> None:
        """Each cell of ``pieces``, ``marks`` or ``walls`` on the grid, its value allowed."""
        for cell, value in getattr(self, name).items():
            if not (is_int(cell) and 0 <= cell < self.rows * self.cols):
                raise ValueError(f"a grid's {name} are of cells 0..{self.rows * self.cols - 1}, "
                                 f"got cell {describe(cell)}")  # fmt: skip
            if name == "walls":
                if not (isinstance(value, str) and value and _is_sides(value)):
                    raise ValueError(f"a cell's walls are letters of 'nesw' in that order, got "
                                     f"{describe(value)} at cell {cell}")  # fmt: skip
            elif not (isinstance(value, str) and value in keys):
                raise ValueError(f"cell {cell}'s {name[:-1]} {describe(value)} is not a key of "
                                 f"the legend {sorted(keys)}")  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        """The grid as ``describe`` gives it (the module's fields)."""
        cells: dict[int, dict[str, str]] = {}
        for name, by_cell in (("piece", self.pieces), ("mark", self.marks),
                              ("walls", self.walls)):  # fmt: skip
            for cell, value in by_cell.items():
                cells.setdefault(cell, {})[name] = value
        return {
            "rows": self.rows,
            "cols": self.cols,
            "cells": {str(cell): cells[cell] for cell in sorted(cells)},
            "legend": [vars(entry).copy() for entry in self.legend],
            "click": None if self.click is None else vars(self.click).copy(),
        }

    @classmethod
    def from_json(cls, data: object) -> Grid:
        """Read :meth:`to_json`'s form back (what a page, or a check, receives).

        Raises:
            ValueError: naming the field that is wrong and what it allows.
        """
        fields = _object(data, "a grid", {"rows", "cols", "cells", "legend", "click"})
        legend = fields["legend"]
        if not isinstance(legend, list):
            raise ValueError(f"a grid's legend is a list, got {describe(legend)}")
        cells = _object(fields["cells"], "a grid's cells")
        by_field: dict[str, dict[int, str]] = {"piece": {}, "mark": {}, "walls": {}}
        for number, cell in cells.items():
            if not (number.isascii() and number.isdigit() and len(number) < 6):
                raise ValueError(f"a grid's cells are keyed by cell numbers, got {number!r:.20}")
            for name, value in _object(cell, f"cell {number}", set(), set(by_field)).items():
                by_field[name][int(number)] = value
        click = fields["click"]
        return cls(
            fields["rows"],
            fields["cols"],
            [Legend(**_object(entry, "a legend", {"key", "label", "color", "text"}))
             for entry in legend],
            by_field["piece"],
            by_field["mark"],
            by_field["walls"],
            None if click is None else Click(**_object(click, "a click", {"row", "col", "side"})),
        )  # fmt: skip


def _object(
    data: object, what: str, required: set[str] | None = None, allowed: set[str] | None = None
) -> dict[str, Any]:
    """``data`` as a JSON object with ``required`` keys and no keys but those (and
    ``allowed``); any keys when ``required`` is None."""
    if not isinstance(data, dict):
        raise ValueError(f"{what} is a JSON object, got {describe(data)}")
    if required is not None:
        known = required | (allowed or set())
        if not required <= data.keys() <= known:
            raise ValueError(f"{what} has the keys {sorted(required)}"
                             + (f" and may have {sorted(allowed)}" if allowed else "")
                             + f", got {sorted(map(str, data))[:8]}")  # fmt: skip
    return data


def _is_sides(text: str) -> bool:
    """Whether ``text`` is distinct letters of :data:`SIDES` in their order."""
    positions = [SIDES.find(letter) for letter in text]
    return -1 not in positions and positions == sorted(set(positions))


def click_targets(grid: Mapping[str, Any]) -> dict[int, list[Target]]:
    """Every action that a click on a grid's cell (or side) is, with where it is clicked:
    the cells in order (a side's, its side); empty when the grid has no click."""
    click, cols = grid.get("click"), grid["cols"]
    targets: dict[int, list[Target]] = {}
    if click is None:
        return targets
    sides: Sequence[int | None] = range(len(SIDES)) if click["side"] else [None]
    for cell in range(grid["rows"] * cols):
        row, col = divmod(cell, cols)
        for side in sides:
            action = row * click["row"] + col * click["col"] + (side or 0) * click["side"]
            targets.setdefault(action, []).append((cell, side))
    return targets

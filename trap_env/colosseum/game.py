"""Colosseum Survival! behind the game protocol (:class:`trap_env.game.Game`): the rules
of :mod:`trap_env.colosseum.rules`.

Every method translates to the rules; none restates one. ``GAME`` is the instance that
:mod:`trap_env.games` registers as ``"colosseum"``.

Example:
    >>> from trap_env.colosseum.game import GAME
    >>> start = GAME.initial_state(GAME.make_config(board_size=6))
    >>> GAME.is_chance(start), GAME.decision_name(start)
    (True, 'start')
    >>> state = GAME.apply(start, 7)  # the start numbered 7
    >>> GAME.num_actions(GAME.config_of(state)), GAME.outcome(state) is None
    (144, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trap_env.checks import parse_natural
from trap_env.colosseum import rules
from trap_env.colosseum.rules import NUM_SIDES, ColosseumConfig, ColosseumState
from trap_env.game_base import GameBase
from trap_env.grid import SEAT_COLORS, SIDES, Click, Grid, Legend

__all__ = ["GAME", "NUM_PLANES", "Colosseum"]

NUM_PLANES = 7
"""Observation planes: own cell, opponent's cell, barriers up, right, down, left, ones
when to act."""

_CELL_PIXELS = 32
_WALL_PIXELS = 3
_FLOOR = (235, 225, 200)
_GRID = (200, 190, 165)
_WALL = (40, 30, 20)
_PLAYER_COLOURS = ((31, 119, 180), (140, 86, 75))  # the engine's tab:blue and tab:brown
_SIDE_WORDS = {"u": 0, "up": 0, "r": 1, "right": 1, "d": 2, "down": 2, "l": 3, "left": 3}


class Colosseum(GameBase[ColosseumState, ColosseumConfig]):
    """Colosseum Survival! as a :class:`trap_env.game.Game`: states are
    :class:`~trap_env.colosseum.rules.ColosseumState`, the configuration is
    :class:`~trap_env.colosseum.rules.ColosseumConfig` (``board_size`` 8, ``start`` -1: drawn
    by chance), actions are ``cell * 4 + side``;
    the start is a chance node over start numbers (or the rule parameter ``start``)."""

    name: str = "colosseum"
    title: str = "Colosseum"
    end_reasons: tuple[str, ...] = rules.END_REASONS
    config_type = ColosseumConfig
    has_chance: bool = True
    decision_names: tuple[str, ...] = ("move", "start")
    paired_starts: bool = True
    """Tournaments play each start twice, seats swapped (the start is all its chance)."""

    # --- Configuration ----------------------------------------------------------------

    def config_of(self, state: ColosseumState) -> ColosseumConfig:
        """The board size; the start is drawn by chance (a state does not say how its
        start came about: :meth:`to_text` holds the position itself)."""
        return ColosseumConfig(state.board_size)

    def num_actions(self, config: ColosseumConfig) -> int:
        """M * M * 4: a destination cell and a side."""
        return config.board_size * config.board_size * NUM_SIDES

    def num_chance_outcomes(self, config: ColosseumConfig) -> int:
        """The start numbers: :data:`~trap_env.colosseum.rules.NUM_STARTS`."""
        return rules.NUM_STARTS

    def observation_shape(self, config: ColosseumConfig) -> tuple[int, ...]:
        """``(M, M, 7)``: see :meth:`observe`."""
        return (config.board_size, config.board_size, NUM_PLANES)

    def default_turn_limit(self, config: ColosseumConfig) -> int:
        """``2 * M * (M - 1) + 1``, more turns than there are inner barriers to place (each
        turn places one), so the limit never cuts a game."""
        n = config.board_size
        return 2 * n * (n - 1) + 1

    # --- Play: the rules' own functions (trap_env.colosseum.rules) -----------------------

    initial_state = staticmethod(rules.initial_state)
    is_chance = staticmethod(rules.is_chance)
    legal_actions = staticmethod(rules.legal_actions)
    legal_action_mask = staticmethod(rules.legal_action_mask)
    apply = staticmethod(rules.apply)
    chance_outcomes = staticmethod(rules.chance_outcomes)
    sample_chance = staticmethod(rules.sample_start)
    outcome = staticmethod(rules.outcome)

    def current_player(self, state: ColosseumState) -> int:
        """The player to move: 0 (A), 1 (B); 0 at the chance node."""
        return state.player

    def turn(self, state: ColosseumState) -> int:
        """Turns played: a turn is one decision, a move and its barrier."""
        return state.turn

    def scores(self, state: ColosseumState) -> dict[str, Any]:
        """``{"zones": [A's, B's]}``, the cells of each player's zone (the same zone, so
        the same count, while the game goes on); empty before the start."""
        if rules.is_chance(state):
            return {}
        return {"zones": list(rules.zone_counts(state))}

    # --- Views --------------------------------------------------------------------------

    to_text = staticmethod(rules.to_text)
    from_text = staticmethod(rules.from_text)
    check_state = staticmethod(rules.check_state)

    def observe(self, state: ColosseumState, player: int) -> Any:
        """``int8`` planes ``(M, M, 7)`` seen by ``player``: 0 its cell, 1 the opponent's,
        2-5 the barriers up, right, down, left (the engine's ``chess_board`` layout, the
        border included), 6 ones when it is to act."""
        import numpy as np

        n = state.board_size
        planes = np.zeros((n * n, NUM_PLANES), np.int8)
        own, other = state.cells[player], state.cells[1 - player]
        if own != rules.NO_CELL:
            planes[own, 0] = planes[other, 1] = 1
        size = (n * n + 7) // 8
        walls = b"".join(side.to_bytes(size, "little") for side in state.walls)
        bits = np.unpackbits(np.frombuffer(walls, np.uint8), bitorder="little")
        planes[:, 2 : 2 + NUM_SIDES] = bits.reshape(NUM_SIDES, size * 8)[:, : n * n].T
        to_act = not rules.is_chance(state) and rules.zone_sizes(state) is None  # has actions
        if state.player == player and to_act:
            planes[:, 6] = 1
        return planes.reshape(n, n, NUM_PLANES)

    def action_to_text(self, state: ColosseumState, action: int) -> str:
        """``"row,col,side"`` with the engine's side numbers (``"2,3,1"``); a start number
        at the chance node."""
        if rules.is_chance(state):
            return str(action)
        return rules.action_name(state, action)

    def action_from_text(self, state: ColosseumState, text: str) -> int:
        """An action from ``"row,col,side"`` or ``"row col side"`` (side 0-3 or
        ``up``/``u``, ``right``/``r``, ``down``/``d``, ``left``/``l``), or a flat index.

        Raises:
            ValueError: for any other text, or a cell off the board.
        """
        n = state.board_size
        fields = text.replace(",", " ").lower().split()
        form = (
            f"an action is 'row,col,side' (side 0-3 or up/right/down/left, rows and columns "
            f"0..{n - 1}) or a flat index 0..{n * n * NUM_SIDES - 1}"
        )
        wrong = ValueError(f"{form}; got {text[:40]!r}")
        if len(fields) == 1 and _is_number(fields[0]):
            action = parse_natural(fields[0], form)
            limit = rules.NUM_STARTS if rules.is_chance(state) else n * n * NUM_SIDES
            if action >= limit:
                raise wrong
            return action
        if len(fields) != 3:
            raise wrong
        row, col = parse_natural(fields[0], form), parse_natural(fields[1], form)
        side = _SIDE_WORDS.get(fields[2], -1)
        if _is_number(fields[2]):
            side = parse_natural(fields[2], form)
        if not (row < n and col < n and side in range(NUM_SIDES)):
            raise wrong
        return rules.action_of(row * n + col, side)

    def render_text(self, state: ColosseumState, last_chance: tuple[int, int] | None = None) -> str:
        """The board with its barriers (``|`` and ``---``), ``A`` and ``B``, and the
        player to move or the zones at the end."""
        n = state.board_size
        lines = [_horizontal(state, 0, rules.UP)]
        for row in range(n):
            cells = []
            for col in range(n):
                cell = row * n + col
                cells.append("|" if rules.has_wall(state.walls, cell, rules.LEFT) else " ")
                cells.append(f" {_occupant(state, cell)} ")
            last = row * n + n - 1
            cells.append("|" if rules.has_wall(state.walls, last, rules.RIGHT) else " ")
            lines.append("".join(cells))
            lines.append(_horizontal(state, row, rules.DOWN))
        lines.append(_status(state))
        return "\n".join(lines)

    def render_rgb(self, state: ColosseumState, last_chance: tuple[int, int] | None = None) -> Any:
        """The board as a ``(32 M, 32 M, 3)`` ``uint8`` image: the floor, thick dark
        barriers, A in blue and B in brown (``last_chance`` is ignored)."""
        import numpy as np

        n, size, wall = state.board_size, _CELL_PIXELS, _WALL_PIXELS
        image = np.empty((n * size, n * size, 3), np.uint8)
        image[:] = _FLOOR
        image[::size, :] = image[:, ::size] = _GRID
        for cell in range(n * n):
            row, col = divmod(cell, n)
            top, left = row * size, col * size
            block = image[top : top + size, left : left + size]
            if rules.has_wall(state.walls, cell, rules.UP):
                block[:wall] = _WALL
            if rules.has_wall(state.walls, cell, rules.DOWN):
                block[-wall:] = _WALL
            if rules.has_wall(state.walls, cell, rules.LEFT):
                block[:, :wall] = _WALL
            if rules.has_wall(state.walls, cell, rules.RIGHT):
                block[:, -wall:] = _WALL
        ys, xs = np.mgrid[0:size, 0:size]
        centre = (size - 1) / 2
        disc = (ys - centre) ** 2 + (xs - centre) ** 2 <= (0.3 * size) ** 2
        for player, cell in enumerate(state.cells):
            if cell != rules.NO_CELL:
                row, col = divmod(cell, n)
                block = image[row * size : (row + 1) * size, col * size : (col + 1) * size]
                block[disc] = _PLAYER_COLOURS[player]
        return image

    def describe(self, state: ColosseumState) -> Mapping[str, Any]:
        """The board size, the barriers as the engine's ``(M, M, 4)`` array (nested
        lists of 0 and 1), both cells as ``[row, col]`` (None before the start), the
        player to move, the turns, the most steps, the legal actions, the zones, the
        winner (None while play goes on or after a draw; see ``over``), and the board as a
        :class:`~trap_env.grid.Grid` (``grid``: the players as pieces, the barriers as
        walls, the zones in the legend; a click on a side of a cell is the move there with
        the barrier on that side)."""
        n = state.board_size
        ended = rules.outcome(state)
        walls = [
            [[int(rules.has_wall(state.walls, row * n + col, side)) for side in range(NUM_SIDES)]
             for col in range(n)]
            for row in range(n)
        ]  # fmt: skip
        cells = [None if cell == rules.NO_CELL else list(divmod(cell, n)) for cell in state.cells]
        return {
            "game": self.name,
            "board_size": n,
            "max_steps": rules.max_steps(n),
            "walls": walls,
            "cells": cells,
            "player": state.player,
            "turn": state.turn,
            "legal": rules.legal_actions(state),
            "zones": self.scores(state).get("zones"),
            "over": ended is not None,
            "winner": None if ended is None else ended.winner,
            "grid": self._grid(state).to_json(),
        }

    def _grid(self, state: ColosseumState) -> Grid:
        """The board: A and B as pieces, the barriers (and the border) as walls."""
        n = state.board_size
        zones = self.scores(state).get("zones")
        legend = [
            Legend(name, name, SEAT_COLORS[player], f"seat {player}"
                   + ("" if zones is None else f", zone {zones[player]}"))
            for player, name in enumerate("AB")
        ]  # fmt: skip
        walls = {}
        for cell in range(n * n):
            sides = "".join(letter for side, letter in enumerate(SIDES)
                            if rules.has_wall(state.walls, cell, side))  # fmt: skip
            if sides:
                walls[cell] = sides
        pieces = {cell: "AB"[player] for player, cell in enumerate(state.cells)
                  if cell != rules.NO_CELL}  # fmt: skip
        return Grid(n, n, legend, pieces, walls=walls, click=Click(NUM_SIDES * n, NUM_SIDES, 1))


def _is_number(text: str) -> bool:
    """Whether ``text`` is ASCII digits (``str.isdigit`` takes ``'٣'`` too)."""
    return text.isascii() and text.isdigit()


def _occupant(state: ColosseumState, cell: int) -> str:
    if cell in state.cells:
        return rules.PLAYER_NAMES[state.cells.index(cell)]
    return " "


def _horizontal(state: ColosseumState, row: int, side: int) -> str:
    """The line of ``+`` corners and ``---`` barriers on ``side`` (up or down) of ``row``."""
    n = state.board_size
    parts = ["+"]
    for col in range(n):
        parts.append("---" if rules.has_wall(state.walls, row * n + col, side) else "   ")
        parts.append("+")
    return "".join(parts)


def _status(state: ColosseumState) -> str:
    if rules.is_chance(state):
        return "the start is to be drawn"
    sizes = rules.zone_sizes(state)
    if sizes is None:
        steps = rules.max_steps(state.board_size)
        return f"{rules.PLAYER_NAMES[state.player]} to move, at most {steps} steps"
    return f"game over; A {sizes[0]}, B {sizes[1]}"


GAME = Colosseum()
"""Colosseum Survival!, as registered in :mod:`trap_env.games`."""

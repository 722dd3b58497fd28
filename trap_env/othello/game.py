"""Othello behind the game protocol (:class:`trap_env.game.Game`): the rules of
:mod:`trap_env.othello.rules`.

Every method translates to the rules; none restates one. ``GAME`` is the instance that
:mod:`trap_env.games` registers as ``"othello"``.

Example:
    >>> from trap_env.othello.game import GAME
    >>> state = GAME.initial_state(GAME.make_config(board_size=8))
    >>> " ".join(GAME.action_to_text(state, action) for action in GAME.legal_actions(state))
    'd3 c4 f5 e6'
    >>> GAME.num_actions(GAME.config_of(state)), GAME.outcome(state) is None
    (65, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trap_env.checks import parse_natural
from trap_env.game_base import GameBase
from trap_env.grid import Click, Grid, Legend
from trap_env.othello import rules
from trap_env.othello.rules import OthelloConfig, OthelloState

__all__ = ["GAME", "NUM_PLANES", "Othello"]

NUM_PLANES = 4
"""Observation planes: own discs, opponent's discs, own placements, ones when to act."""

_CELL_PIXELS = 32
_GREEN = (0, 110, 50)
_LINE = (0, 60, 25)
_DISC_COLOURS = ((20, 20, 20), (235, 235, 235))


class Othello(GameBase[OthelloState, OthelloConfig]):
    """Othello as a :class:`trap_env.game.Game`: states are
    :class:`~trap_env.othello.rules.OthelloState`, the configuration is
    :class:`~trap_env.othello.rules.OthelloConfig` (``board_size`` 8, ``end_rule``
    ``"standard"``), actions are cells and the pass (N*N); no chance."""

    name: str = "othello"
    title: str = "Othello"
    end_reasons: tuple[str, ...] = rules.END_REASONS
    config_type = OthelloConfig
    decision_names: tuple[str, ...] = ("place", "pass")

    # --- Configuration ----------------------------------------------------------------

    def config_of(self, state: OthelloState) -> OthelloConfig:
        """The board size and end rule the state carries."""
        return state.config

    def num_actions(self, config: OthelloConfig) -> int:
        """N * N + 1: the cells and the pass."""
        return rules.pass_action(config.board_size) + 1

    def observation_shape(self, config: OthelloConfig) -> tuple[int, ...]:
        """``(N, N, 4)``: see :meth:`observe`."""
        return (config.board_size, config.board_size, NUM_PLANES)

    def batched_engine(self, config: OthelloConfig) -> Any:
        """:class:`trap_env.othello.batched.Engine` (``board_size`` up to 8).

        Raises:
            ValueError: for a board the batched engine does not hold, naming the single
                env and ``vectorization_mode="sync"`` instead.
        """
        from trap_env.othello import batched  # numpy: only for those who batch

        return batched.Engine(batched.tables(config))

    def default_turn_limit(self, config: OthelloConfig) -> int:
        """``2 * N * N``, more plies than any game lasts (N*N - 4 placements, and a pass
        is never followed by another), so the limit never cuts a game."""
        return 2 * config.board_size * config.board_size

    # --- Play: the rules' own functions (trap_env.othello.rules) ------------------------

    initial_state = staticmethod(rules.initial_state)
    legal_actions = staticmethod(rules.legal_actions)
    apply = staticmethod(rules.apply)
    outcome = staticmethod(rules.outcome)

    def current_player(self, state: OthelloState) -> int:
        """The player to place or pass: 0 dark, 1 light."""
        return state.player

    def turn(self, state: OthelloState) -> int:
        """Plies played: a turn is one decision, a placement or a pass."""
        return state.turn

    def scores(self, state: OthelloState) -> dict[str, Any]:
        """``{"discs": [dark, light]}``."""
        return {"discs": list(rules.disc_counts(state))}

    def decision_name(self, state: OthelloState) -> str:
        """``"place"``, or ``"pass"`` when passing is the only legal action."""
        return "pass" if rules.legal_actions(state) == [rules.pass_action(state.board_size)] \
            else "place"  # fmt: skip

    # --- Views --------------------------------------------------------------------------

    to_text = staticmethod(rules.to_text)
    from_text = staticmethod(rules.from_text)
    check_state = staticmethod(rules.check_state)

    def observe(self, state: OthelloState, player: int) -> Any:
        """``int8`` planes ``(N, N, 4)`` seen by ``player``: 0 its discs, 1 the opponent's,
        2 the cells where it may place now, 3 ones when it is to act."""
        import numpy as np

        n = state.board_size
        own, other = rules.sides_of(state, player)
        boards = (own, other, rules.placements(n, own, other))
        planes = np.zeros((n * n, NUM_PLANES), np.int8)
        for plane, board in enumerate(boards):
            planes[rules.cells_of(board), plane] = 1
        if state.player == player and rules.is_live(state):
            planes[:, 3] = 1
        return planes.reshape(n, n, NUM_PLANES)

    def action_to_text(self, state: OthelloState, action: int) -> str:
        """A cell as ``d3`` (column letter, row from 1), or ``"pass"``."""
        return rules.action_name(state.board_size, action)

    def action_from_text(self, state: OthelloState, text: str) -> int:
        """An action from ``d3``, ``"row,col"`` (from 0), a flat index, or ``pass``.

        Raises:
            ValueError: for any other text, or a cell off the board.
        """
        n = state.board_size
        text = text.strip().lower()
        if text == "pass":
            return rules.pass_action(n)
        if text[:1].isalpha():
            return rules.cell_from_name(n, text)
        row, sep, col = text.replace(" ", "").partition(",")
        problem = (
            f"an action is a cell such as 'd3', 'row,col' from 0, a flat index 0..{n * n}, "
            "or 'pass'"
        )
        fields = [parse_natural(field, problem) for field in ((row, col) if sep else (row,))]
        if sep and (fields[0] >= n or fields[1] >= n):
            raise ValueError(f"cell {text[:40]!r} is off the {n}x{n} board")
        action = fields[0] * n + fields[1] if sep else fields[0]
        if action > n * n:
            raise ValueError(f"action {action} is out of range 0..{n * n} ({n * n}: pass)")
        return action

    def render_text(self, state: OthelloState, last_chance: tuple[int, int] | None = None) -> str:
        """The board (``x`` dark, ``o`` light, ``*`` a legal placement), the side to act
        and the disc counts."""
        n = state.board_size
        legal = set(rules.legal_actions(state))
        header = "   " + " ".join(rules.cell_name(n, col)[0] for col in range(n))
        lines = [header]
        for row in range(n):
            cells = [_cell_char(state, row * n + col, legal) for col in range(n)]
            lines.append(f"{row + 1:>2} " + " ".join(cells))
        dark, light = rules.disc_counts(state)
        ended = rules.outcome(state)
        status = "game over" if ended else f"{rules.SYMBOLS[state.player]} to play"
        lines.append(f"{status}; x {dark}, o {light}")
        return "\n".join(lines)

    def render_rgb(self, state: OthelloState, last_chance: tuple[int, int] | None = None) -> Any:
        """The board as a ``(32 N, 32 N, 3)`` ``uint8`` image: green cells, dark and light
        discs (``last_chance`` is ignored: there is no chance)."""
        import numpy as np

        n, size = state.board_size, _CELL_PIXELS
        image = np.empty((n * size, n * size, 3), np.uint8)
        image[:] = _GREEN
        image[::size, :] = image[-1, :] = _LINE
        image[:, ::size] = image[:, -1] = _LINE
        ys, xs = np.mgrid[0:size, 0:size]
        centre = (size - 1) / 2
        disc = (ys - centre) ** 2 + (xs - centre) ** 2 <= (0.4 * size) ** 2
        for player, board in enumerate((state.dark, state.light)):
            for cell in rules.cells_of(board):
                row, col = divmod(cell, n)
                image[row * size : (row + 1) * size, col * size : (col + 1) * size][disc] = (
                    _DISC_COLOURS[player]
                )
        return image

    def describe(self, state: OthelloState) -> Mapping[str, Any]:
        """The board size and end rule, each colour's cells, the side to act, the plies,
        the legal actions, the disc counts, the winner (None while play goes on or after
        a draw; see ``over``), and the board as a :class:`~trap_env.grid.Grid` (``grid``:
        the discs as pieces, their counts in the legend; a click on a cell is that cell,
        the pass no cell)."""
        ended = rules.outcome(state)
        return {
            "game": self.name,
            "board_size": state.board_size,
            "end_rule": state.end_rule,
            "dark": rules.cells_of(state.dark),
            "light": rules.cells_of(state.light),
            "player": state.player,
            "turn": state.turn,
            "legal": rules.legal_actions(state),
            "discs": list(rules.disc_counts(state)),
            "over": ended is not None,
            "winner": None if ended is None else ended.winner,
            "grid": _grid(state).to_json(),
        }


def _grid(state: OthelloState) -> Grid:
    """The board: the discs as pieces, each colour's count in the legend."""
    n, counts = state.board_size, rules.disc_counts(state)
    legend, pieces = [], {}
    for player, (name, board) in enumerate((("dark", state.dark), ("light", state.light))):
        colour = "#{:02x}{:02x}{:02x}".format(*_DISC_COLOURS[player])
        legend.append(Legend(name, "", colour, f"{name} (seat {player}): {counts[player]}"))
        pieces.update(dict.fromkeys(rules.cells_of(board), name))
    return Grid(n, n, legend, pieces, click=Click(n, 1))


def _cell_char(state: OthelloState, cell: int, legal: set[int]) -> str:
    if state.dark >> cell & 1:
        return rules.SYMBOLS[rules.DARK]
    if state.light >> cell & 1:
        return rules.SYMBOLS[rules.LIGHT]
    return "*" if cell in legal else rules.EMPTY


GAME = Othello()
"""Othello, as registered in :mod:`trap_env.games`."""

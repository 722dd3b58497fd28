"""Trap! behind the game protocol (:class:`trap_env.game.Game`): the rules of
:mod:`trap_env.trap.core`.

Every method translates to the core; none restates a rule. ``GAME`` is the instance that
:mod:`trap_env.games` registers as ``"trap"``.

Example:
    >>> from trap_env.trap.game import GAME
    >>> state = GAME.initial_state(GAME.make_config(board_size=5))
    >>> GAME.decision_name(state), GAME.legal_actions(state)
    ('move', [1, 3, 6, 7, 8])
    >>> GAME.outcome(state) is None
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trap_env.bits import cells_of
from trap_env.checks import parse_natural
from trap_env.game_base import GameBase
from trap_env.grid import SEAT_COLORS, Click, Grid, Legend
from trap_env.trap import core
from trap_env.trap.core import Cell, GameConfig, Phase, State

__all__ = ["GAME", "Trap"]


class Trap(GameBase[State, GameConfig]):
    """Trap! as a :class:`trap_env.game.Game`: states are :class:`trap_env.trap.core.State`,
    the configuration is :class:`trap_env.trap.core.GameConfig` (``board_size`` 7, ``decay``
    50), actions are flat cells."""

    name: str = "trap"
    title: str = "Trap!"
    end_reasons: tuple[str, ...] = (core.TRAPPED,)
    config_type = GameConfig
    has_chance: bool = True
    decision_names: tuple[str, ...] = ("move", "throw", "landing")
    decisions_per_turn: int = 2

    # --- Configuration ----------------------------------------------------------------

    def config_of(self, state: State) -> GameConfig:
        """The board size and decay the state carries."""
        return GameConfig(state.board_size, state.decay)

    def num_actions(self, config: GameConfig) -> int:
        """N * N: a move's destination or a throw's target, as a flat cell."""
        return config.board_size * config.board_size

    def observation_shape(self, config: GameConfig) -> tuple[int, ...]:
        """``(N, N, 4)``: see :mod:`trap_env.trap.observation`."""
        from trap_env.trap.observation import NUM_PLANES

        return (config.board_size, config.board_size, NUM_PLANES)

    def batched_engine(self, config: GameConfig) -> Any:
        """:class:`trap_env.trap.batched.Engine` (``board_size`` up to 8).

        Raises:
            ValueError: for a board the batched engine does not hold.
        """
        from trap_env.trap import batched as batched_trap  # numpy: only for those who batch

        return batched_trap.Engine(batched_trap.tables(config.board_size, config.decay))

    def default_turn_limit(self, config: GameConfig) -> int:
        """``4 * N * N`` (:func:`trap_env.trap.core.default_turn_limit`)."""
        return core.default_turn_limit(config.board_size)

    # --- Play: the rules' own functions (trap_env.trap.core) -----------------------------

    initial_state = staticmethod(core.initial_state)
    legal_actions = staticmethod(core.legal_actions)
    legal_action_mask = staticmethod(core.legal_action_mask)
    apply = staticmethod(core.apply)
    chance_outcomes = staticmethod(core.chance_outcomes)
    sample_chance = staticmethod(core.sample_landing)
    outcome = staticmethod(core.outcome)

    def current_player(self, state: State) -> int:
        """The player to move or throw; at a landing, the thrower."""
        return state.player

    def is_chance(self, state: State) -> bool:
        """Whether a throw waits for its landing."""
        return state.phase is Phase.LANDING and state.winner == core.NO_PLAYER

    def chance_key(self, state: State) -> tuple[int, int, int]:
        """``(turn, thrower's cell, target)``: a throw from one cell at one target on one
        turn lands alike in both games of a pair (the turn tells the thrower's seat)."""
        return (state.turn, state.cells[state.player], state.target)

    def turn(self, state: State) -> int:
        """Turns completed; a turn is one player's move and throw."""
        return state.turn

    def decision_name(self, state: State) -> str:
        """``"move"``, ``"throw"`` or ``"landing"`` (chance)."""
        return state.phase.name.lower()

    # --- Views --------------------------------------------------------------------------

    to_text = staticmethod(core.to_text)
    from_text = staticmethod(core.from_text)
    check_state = staticmethod(core.validate_state)

    def observe(self, state: State, player: int) -> Any:
        """:func:`trap_env.trap.observation.observe`."""
        from trap_env.trap.observation import observe

        return observe(state, player)

    def action_to_text(self, state: State, action: int) -> str:
        """``"row,col"``."""
        return "{},{}".format(*divmod(action, state.board_size))

    def action_from_text(self, state: State, text: str) -> Cell:
        """A cell from ``"row,col"`` (spaces allowed) or a flat cell index.

        Raises:
            ValueError: for any other text, or a cell off the board.
        """
        n = state.board_size
        row, sep, col = text.replace(" ", "").partition(",")
        problem = f"a cell is 'row,col' or a flat index row*{n}+col"
        fields = [parse_natural(field, problem) for field in ((row, col) if sep else (row,))]
        if sep and (fields[0] >= n or fields[1] >= n):
            raise ValueError(f"cell {text[:40]!r} is off the {n}x{n} board")
        cell = fields[0] * n + fields[1] if sep else fields[0]
        if cell >= n * n:
            raise ValueError(f"cell {cell} is off the {n}x{n} board (0..{n * n - 1})")
        return cell

    def render_text(self, state: State, last_chance: tuple[int, int] | None = None) -> str:
        """:func:`trap_env.trap.rendering.render_ansi`: the board and the last throw."""
        from trap_env.trap.rendering import render_ansi

        return render_ansi(state, last_chance)

    def render_rgb(self, state: State, last_chance: tuple[int, int] | None = None) -> Any:
        """:func:`trap_env.trap.rendering.render_rgb`; ``last_chance`` is the last throw's
        ``(target, landing)``."""
        from trap_env.trap.rendering import render_rgb

        return render_rgb(state, last_chance)

    def describe(self, state: State) -> Mapping[str, Any]:
        """The board size, the players' and traps' cells, the side to act and its phase,
        a pending target, the winner (None while play goes on), and the board as a
        :class:`~trap_env.grid.Grid` (``grid``: the players and the traps as pieces, the
        target as a mark; a click on a cell is that cell)."""
        n = state.board_size
        return {
            "game": self.name,
            "board_size": n,
            "players": list(state.cells),
            "traps": cells_of(state.traps),
            "player": state.player,
            "phase": self.decision_name(state),
            "target": None if state.target == core.NO_PLAYER else state.target,
            "turn": state.turn,
            "winner": core.winner(state),
            "decay": state.decay,
            "grid": _grid(state).to_json(),
        }


_LEGEND = (
    Legend("p0", "0", SEAT_COLORS[0], "seat 0"),
    Legend("p1", "1", SEAT_COLORS[1], "seat 1"),
    Legend("trap", "×", "#566573", "a trap"),
    Legend("target", "", "#f5b041", "the throw's target"),
)


def _grid(state: State) -> Grid:
    """The board: the players and the traps as pieces, a pending throw's target as a mark."""
    n = state.board_size
    pieces = dict.fromkeys(cells_of(state.traps), "trap")
    pieces.update({cell: f"p{player}" for player, cell in enumerate(state.cells)})
    marks = {} if state.target == core.NO_PLAYER else {state.target: "target"}
    return Grid(n, n, _LEGEND, pieces, marks, click=Click(n, 1))


GAME = Trap()
"""Trap!, as registered in :mod:`trap_env.games`."""

"""Trap! in OpenSpiel, ``python_trap``: :class:`TrapSpielGame`, the generic
:class:`trap_env.openspiel.GameSpielGame` with Trap!'s action strings and observer.

``import trap_env.openspiel`` registers it (with every other game of the suite). It is a
thin adapter: every rule, landing probability and win check comes from
:mod:`trap_env.trap.core` (needs the ``openspiel`` extra: ``pip install trap_env[openspiel]``).

Game type: sequential, explicit stochastic chance, zero-sum, perfect information,
terminal rewards, two players.

- **Parameters.** ``board_size`` (N, default 7), ``decay`` (the throw's accuracy loss per
  step of distance beyond the first, an integer per mille, default 50: see
  :class:`trap_env.trap.core.GameConfig`) and ``max_turns`` (the truncation limit in turns, a
  turn being one player's move and throw; the default -1 means
  :func:`trap_env.trap.core.default_turn_limit`, ``4 * N * N``, as in the environments).
- **Actions.** A flat cell ``row * N + col``, so ``num_distinct_actions`` is N*N. The
  move and the throw are separate decisions of the same player: the player to act first
  names the cell it steps to, then the cell it throws at.
- **Chance.** After each throw a chance node lists the landing cells with the exact
  probabilities of :func:`trap_env.trap.core.chance_outcomes` (sorted by cell, as OpenSpiel
  lists actions). Outcomes are cells too, so ``max_chance_outcomes`` is N*N.
- **Length.** ``max_game_length`` counts decisions, as OpenSpiel does: two per turn,
  ``2 * max_turns``; the at most ``max_turns`` chance nodes come on top.
- **Returns.** +1 for the winner and -1 for the loser; a game cut at the turn limit
  ends with 0 for both. A game is cut when ``max_turns`` turns are complete and nobody
  has won.
- **Observation.** The environments' planes (:func:`trap_env.trap.observation.observe`) as a
  ``float32`` tensor of shape ``[N, N, 4]`` (channel last, the environments' layout and
  what OpenSpiel's AlphaZero convolutions read), seen by the player asked for: plane 0
  its own cell, 1 the opponent's cell, 2 the traps, 3 ones in phase ``THROW``. At a
  chance node the planes are those of the throw that it follows. The information state
  tensor is the same (the game has perfect information); the observation and
  information state strings are :func:`trap_env.trap.core.to_text`.
- **Text and serialization.** ``str(state)`` is the core's one-line notation
  (:func:`trap_env.trap.core.to_text`). States serialize through OpenSpiel's default for
  Python games (``pyspiel.serialize_game_and_state`` stores the action history and the
  state's attributes) and pickle. Both pickle: deserializing a crafted string runs code
  (OpenSpiel's C++ unpickles the attributes; this adapter cannot change that), so
  deserialize only your own; exchange positions as text (:func:`trap_env.trap.core.from_text`
  parses, never executes).

Example:
    >>> import pyspiel
    >>> import trap_env.openspiel
    >>> game = pyspiel.load_game("python_trap(board_size=5)")
    >>> state = game.new_initial_state()
    >>> str(state)
    '..0../...../...../...../..1.. 0 move - 0'
    >>> state.apply_action(7)   # move to (1, 2)
    >>> state.apply_action(17)  # throw at (3, 2)
    >>> state.is_chance_node(), dict(state.chance_outcomes())[17]  # on target: 1 - 1/20
    (True, 0.95)
"""

from __future__ import annotations

from typing import Any

import pyspiel

from trap_env.openspiel import (
    GameObserver,
    GameSpielGame,
    GameSpielState,
    default_params,
    spiel_game_type,
)
from trap_env.trap import core
from trap_env.trap.game import GAME

__all__ = [
    "DEFAULT_PARAMS",
    "GAME_TYPE",
    "SHORT_NAME",
    "TrapObserver",
    "TrapSpielGame",
    "TrapSpielState",
]


SHORT_NAME = "python_trap"
"""The name to load: ``pyspiel.load_game("python_trap")`` (the table's
:attr:`~trap_env.games.GameEntry.spiel_name` for Trap!)."""

DEFAULT_PARAMS: dict[str, int] = default_params(GAME)
"""The game parameters and their defaults; ``max_turns=-1`` stands for ``4 * N * N``."""

GAME_TYPE = spiel_game_type(GAME, SHORT_NAME)


class TrapSpielState(GameSpielState):
    """A Trap! position in OpenSpiel; :attr:`game_state` is a
    :class:`trap_env.trap.core.State`."""

    game_state: core.State

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            verb = "land"
        else:
            verb = "move" if self.game_state.phase is core.Phase.MOVE else "throw"
        row, col = divmod(self._checked_action(player, action), self.game_state.board_size)
        return f"{verb} {row},{col}"


class TrapObserver(GameObserver):
    """The Trap! observer: :func:`trap_env.trap.observation.observe`, a pending landing shown
    as the throw it follows (no agent sees chance)."""

    def _observe(self, state: core.State, player: int) -> Any:
        return super()._observe(_decision_view(state), player)


class TrapSpielGame(GameSpielGame):
    """Trap! for OpenSpiel; ``pyspiel.load_game`` builds it from the parameters.

    Args:
        params: ``board_size``, ``decay`` and ``max_turns`` (see the module docstring);
            missing ones take :data:`DEFAULT_PARAMS`.

    Raises:
        ValueError: naming a parameter that is unknown or out of range.
    """

    game = GAME
    game_type = GAME_TYPE
    decisions_per_turn = 2  # a move and a throw
    state_type = TrapSpielState
    observer_type = TrapObserver


def _decision_view(state: core.State) -> core.State:
    """The state with a pending landing shown as the throw it follows (no agent sees chance)."""
    if state.phase is core.Phase.LANDING:
        return state._replace(phase=core.Phase.THROW, target=core.NO_PLAYER)
    return state


pyspiel.register_game(GAME_TYPE, TrapSpielGame)

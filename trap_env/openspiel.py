"""Trap! as an OpenSpiel game: importing this module registers ``python_trap`` with pyspiel.

A thin adapter over :mod:`trap_env.core`: every rule, landing probability and win check
comes from the core; this module only translates to OpenSpiel's ``Game``/``State`` API
(needs the ``openspiel`` extra: ``pip install trap_env[openspiel]``).

Game type: sequential, explicit stochastic chance, zero-sum, perfect information,
terminal rewards, two players.

- **Parameters.** ``board_size`` (N, default 7), ``decay`` (the throw's accuracy loss per
  step of distance beyond the first, an integer per mille, default 50: see
  :class:`trap_env.core.GameConfig`) and ``max_turns`` (the truncation limit in turns, a
  turn being one player's move and throw; the default -1 means
  :func:`trap_env.core.default_turn_limit`, ``4 * N * N``, as in the environments).
- **Actions.** A flat cell ``row * N + col``, so ``num_distinct_actions`` is N*N. The
  move and the throw are separate decisions of the same player: the player to act first
  names the cell it steps to, then the cell it throws at.
- **Chance.** After each throw a chance node lists the landing cells with the exact
  probabilities of :func:`trap_env.core.chance_outcomes` (sorted by cell, as OpenSpiel
  lists actions). Outcomes are cells too, so ``max_chance_outcomes`` is N*N.
- **Length.** ``max_game_length`` counts decisions, as OpenSpiel does: two per turn,
  ``2 * max_turns``; the at most ``max_turns`` chance nodes come on top.
- **Returns.** +1 for the winner and -1 for the loser; a game cut at the turn limit
  ends with 0 for both. A game is cut when ``max_turns`` turns are complete and nobody
  has won.
- **Observation.** The environments' planes (:func:`trap_env.observation.observe`) as a
  ``float32`` tensor of shape ``[N, N, 4]`` (channel last, the environments' layout and
  what OpenSpiel's AlphaZero convolutions read), seen by the player asked for: plane 0
  its own cell, 1 the opponent's cell, 2 the traps, 3 ones in phase ``THROW``. At a
  chance node the planes are those of the throw that it follows. The information state
  tensor is the same (the game has perfect information); the observation and
  information state strings are :func:`trap_env.core.to_text`.
- **Text and serialization.** ``str(state)`` is the core's one-line notation
  (:func:`trap_env.core.to_text`). States serialize through OpenSpiel's default for
  Python games (``pyspiel.serialize_game_and_state`` stores the action history and the
  state's attributes) and pickle.

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

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyspiel

from trap_env import core
from trap_env.observation import NUM_PLANES, observe

__all__ = ["DEFAULT_PARAMS", "GAME_TYPE", "SHORT_NAME", "PlanesObserver", "SpielGame", "SpielState"]

SHORT_NAME = "python_trap"
"""The name to load: ``pyspiel.load_game("python_trap")``."""

DEFAULT_PARAMS: dict[str, int] = {
    "board_size": core.GameConfig().board_size,
    "decay": core.GameConfig().decay,
    "max_turns": -1,
}
"""The game parameters and their defaults; ``max_turns=-1`` stands for ``4 * N * N``."""

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Trap!",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMS,
)


class SpielGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel has no type stubs
    """Trap! for OpenSpiel; ``pyspiel.load_game`` builds it from the parameters.

    Args:
        params: ``board_size``, ``decay`` and ``max_turns`` (see the module docstring);
            missing ones take :data:`DEFAULT_PARAMS`.

    Raises:
        ValueError: naming a parameter that is unknown or out of range.
    """

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        params = {**DEFAULT_PARAMS, **(params or {})}
        unknown = sorted(set(params) - set(DEFAULT_PARAMS))
        if unknown:
            raise ValueError(f"unknown parameters {unknown}; allowed: {sorted(DEFAULT_PARAMS)}")
        self.config = core.GameConfig(board_size=params["board_size"], decay=params["decay"])
        size = self.config.board_size
        self.max_turns = _turn_limit(params["max_turns"], size)
        info = pyspiel.GameInfo(
            num_distinct_actions=size * size,
            max_chance_outcomes=size * size,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=2 * self.max_turns,
        )
        super().__init__(GAME_TYPE, info, params)

    def new_initial_state(self) -> SpielState:
        """The start position, player 0 to move."""
        return SpielState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> PlanesObserver:
        """The observer of both tensors and strings (perfect information: every type sees all)."""
        del iig_obs_type  # every observation type sees the whole position
        return PlanesObserver(self.config.board_size, params)


class SpielState(pyspiel.State):  # type: ignore[misc]  # pyspiel has no type stubs
    """A Trap! position in OpenSpiel; :attr:`core_state` is the :class:`trap_env.core.State`."""

    def __init__(self, game: SpielGame) -> None:
        super().__init__(game)
        self.core_state = core.initial_state(game.config)
        self.max_turns = game.max_turns

    def current_player(self) -> int:
        """The player to move or throw, ``CHANCE`` while a trap flies, ``TERMINAL`` at the end."""
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        if self.core_state.phase is core.Phase.LANDING:
            return int(pyspiel.PlayerId.CHANCE)
        return self.core_state.player

    def is_terminal(self) -> bool:
        """Whether someone has won or ``max_turns`` turns are complete."""
        return core.outcome(self.core_state, self.max_turns) is not None

    def _legal_actions(self, player: int) -> list[int]:
        del player  # only the player to act has actions, and OpenSpiel asks only for it
        return core.legal_actions(self.core_state)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The landing cells of the pending throw with their exact probabilities, by cell."""
        return sorted(core.chance_outcomes(self.core_state))

    def _apply_action(self, action: int) -> None:
        self.core_state = core.apply(self.core_state, int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            verb = "land"
        else:
            verb = "move" if self.core_state.phase is core.Phase.MOVE else "throw"
        row, col = divmod(int(action), self.core_state.board_size)
        return f"{verb} {row},{col}"

    def returns(self) -> list[float]:
        """+1 for the winner, -1 for the loser; 0 for both while playing or when cut."""
        return list(core.returns(self.core_state))

    def __str__(self) -> str:
        """The core's one-line notation (:func:`trap_env.core.to_text`)."""
        return core.to_text(self.core_state)


class PlanesObserver:
    """OpenSpiel's observer protocol over :func:`trap_env.observation.observe`.

    ``tensor`` is the flat ``float32`` buffer; ``dict["observation"]`` views it as
    ``[N, N, 4]``.

    Raises:
        ValueError: if observation parameters are given (there are none).
    """

    def __init__(self, board_size: int, params: Mapping[str, Any] | None) -> None:
        if params:
            raise ValueError(f"python_trap takes no observation parameters, got {dict(params)}")
        shape = (board_size, board_size, NUM_PLANES)
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: SpielState, player: int) -> None:
        """Fill the planes of ``state`` as ``player`` sees it."""
        self.dict["observation"][...] = observe(_decision_view(state.core_state), player)

    def string_from(self, state: SpielState, player: int) -> str:
        """The position in the core's notation (the same for both players)."""
        del player  # perfect information
        return core.to_text(state.core_state)


def _turn_limit(max_turns: object, board_size: int) -> int:
    """OpenSpiel's ``max_turns`` parameter: -1 (its stand-in for None) means the default."""
    try:
        return core.resolve_turn_limit(None if max_turns == -1 else max_turns, board_size)
    except ValueError:
        raise ValueError(
            f"max_turns must be a positive integer, or -1 for 4 * N * N turns; got {max_turns!r}"
        ) from None


def _decision_view(state: core.State) -> core.State:
    """The state with a pending landing shown as the throw it follows (no agent sees chance)."""
    if state.phase is core.Phase.LANDING:
        return state._replace(phase=core.Phase.THROW, target=core.NO_PLAYER)
    return state


pyspiel.register_game(GAME_TYPE, SpielGame)

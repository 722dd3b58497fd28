"""The OpenSpiel adapter: any game of the protocol as a pyspiel game; Trap! is ``python_trap``.

Importing this module registers ``python_trap`` with pyspiel. It is a thin adapter: for
Trap! every rule, landing probability and win check comes from :mod:`trap_env.trap.core`; this
module only translates to OpenSpiel's ``Game``/``State`` API (needs the ``openspiel``
extra: ``pip install trap_env[openspiel]``).

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

The generic part, :class:`GameSpielGame`, :class:`GameSpielState` and
:class:`GameObserver`, plays any :class:`trap_env.game.Game`; :func:`register_spiel_game`
builds and registers the OpenSpiel game of one (``register_spiel_game(game, "python_x")``).
``SpielGame``/``SpielState``/``PlanesObserver`` are the Trap! instances.

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
from typing import Any, ClassVar

import numpy as np
import pyspiel

from trap_env.game import Game, turn_limit
from trap_env.games import get_game
from trap_env.trap import core

__all__ = [
    "DEFAULT_PARAMS",
    "GAME_TYPE",
    "SHORT_NAME",
    "GameObserver",
    "GameSpielGame",
    "GameSpielState",
    "PlanesObserver",
    "SpielGame",
    "SpielState",
    "register_spiel_game",
    "spiel_game_type",
]


def default_params(game: Game[Any, Any]) -> dict[str, Any]:
    """The game's rule parameters with their defaults, and ``max_turns=-1`` (its default)."""
    return {**game.config_params(game.make_config()), "max_turns": -1}


def spiel_game_type(game: Game[Any, Any], short_name: str) -> pyspiel.GameType:
    """The OpenSpiel game type of ``game``: sequential, explicit stochastic chance (or
    deterministic, for a game without chance), zero-sum, perfect information, terminal
    rewards, two players."""
    modes = pyspiel.GameType.ChanceMode
    return pyspiel.GameType(
        short_name=short_name,
        long_name=f"Python {game.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=modes.EXPLICIT_STOCHASTIC if game.has_chance else modes.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=default_params(game),
    )


class GameSpielState(pyspiel.State):  # type: ignore[misc]  # pyspiel has no type stubs
    """A position in OpenSpiel; :attr:`game_state` is the game's own state (a value)."""

    def __init__(self, game: GameSpielGame) -> None:
        super().__init__(game)
        self.game = game.game
        self._store(self.game.initial_state(game.config))
        self.max_turns = game.max_turns

    @property
    def game_state(self) -> Any:
        """The game's own state (a value). Setting it, as deserializing does, checks it
        (``game.check_state``: a ``ValueError`` for a state no game reaches)."""
        return self.__dict__["game_state"]

    @game_state.setter
    def game_state(self, state: Any) -> None:
        self.game.check_state(state)
        self._store(state)

    def _store(self, state: Any) -> None:
        """Keep a state the rules made (unchecked), where serialization finds it."""
        self.__dict__["game_state"] = state

    def current_player(self) -> int:
        """The player to act, ``CHANCE`` at a chance node, ``TERMINAL`` at the end."""
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        if self.game.is_chance(self.game_state):
            return int(pyspiel.PlayerId.CHANCE)
        return int(self.game.current_player(self.game_state))

    def is_terminal(self) -> bool:
        """Whether the game is over or ``max_turns`` turns are complete (``game.outcome``)."""
        return self.game.outcome(self.game_state, self.max_turns) is not None

    def _legal_actions(self, player: int) -> list[int]:
        del player  # only the player to act has actions, and OpenSpiel asks only for it
        return list(self.game.legal_actions(self.game_state))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The chance outcomes with their exact probabilities, by outcome."""
        return sorted(self.game.chance_outcomes(self.game_state))

    def _apply_action(self, action: int) -> None:
        self._store(self.game.apply(self.game_state, int(action)))

    def _action_to_string(self, player: int, action: int) -> str:
        state = self.game_state
        action = self._checked_action(player, action)
        return f"{self.game.decision_name(state)} {self.game.action_to_text(state, action)}"

    def _checked_action(self, player: int, action: int) -> int:
        """``action`` as an int if it is in the range of ``player``'s actions (chance's
        outcomes for ``CHANCE``).

        Raises:
            ValueError: naming the action and the range.
        """
        game = self.get_game()
        chance = player == pyspiel.PlayerId.CHANCE
        limit = game.max_chance_outcomes() if chance else game.num_distinct_actions()
        if not 0 <= int(action) < limit:
            kind = "chance outcome" if chance else "action"
            raise ValueError(f"{kind} {action} is out of range 0..{limit - 1}")
        return int(action)

    def returns(self) -> list[float]:
        """+1 for the winner, -1 for the loser; 0 for both while playing or when cut."""
        ended = self.game.outcome(self.game_state, self.max_turns)
        return [0.0, 0.0] if ended is None else list(ended.returns())

    def __str__(self) -> str:
        """The game's one-line notation (``game.to_text``)."""
        return str(self.game.to_text(self.game_state))


class GameObserver:
    """OpenSpiel's observer protocol over ``game.observe``.

    ``tensor`` is the flat ``float32`` buffer; ``dict["observation"]`` views it in the
    game's observation shape.

    Raises:
        ValueError: if observation parameters are given (there are none).
    """

    def __init__(self, game: Any, config: Any, params: Mapping[str, Any] | None) -> None:
        if params:
            raise ValueError(f"{game.name} takes no observation parameters, got {dict(params)}")
        self.game = game
        shape = game.observation_shape(config)
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: GameSpielState, player: int) -> None:
        """Fill the planes of ``state`` as ``player`` sees it."""
        self.dict["observation"][...] = self._observe(state.game_state, player)

    def _observe(self, state: Any, player: int) -> Any:
        return self.game.observe(state, player)

    def string_from(self, state: GameSpielState, player: int) -> str:
        """The position in the game's notation (the same for both players)."""
        del player  # perfect information
        return str(self.game.to_text(state.game_state))


class GameSpielGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel has no type stubs
    """Any game for OpenSpiel; a subclass per game names it (:func:`register_spiel_game`).

    Args:
        params: the game's rule parameters and ``max_turns`` (-1: the game's default);
            missing ones take their defaults.

    Raises:
        ValueError: naming a parameter that is unknown or out of range.
    """

    game: ClassVar[Any]
    """The :class:`trap_env.game.Game` played."""
    game_type: ClassVar[Any]
    """Its :func:`spiel_game_type`."""
    decisions_per_turn: ClassVar[int] = 1
    """The most decisions a turn holds, for ``max_game_length``."""
    state_type: ClassVar[type[GameSpielState]] = GameSpielState
    """The class of its states (:meth:`new_initial_state`)."""
    observer_type: ClassVar[type[GameObserver]] = GameObserver
    """The class of its observers (:meth:`make_py_observer`)."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        defaults = default_params(self.game)
        params = {**defaults, **(params or {})}
        unknown = sorted(set(params) - set(defaults))
        if unknown:
            raise ValueError(f"unknown parameters {unknown}; allowed: {sorted(defaults)}")
        rules = {name: value for name, value in params.items() if name != "max_turns"}
        self.config = self.game.make_config(**rules)
        self.max_turns = _turn_limit(params["max_turns"], self.game.default_turn_limit(self.config))
        num_actions = self.game.num_actions(self.config)
        # A game whose chance outcomes are not actions says how many there are (Colosseum).
        chance = getattr(self.game, "num_chance_outcomes", None)
        outcomes = num_actions if chance is None else chance(self.config)
        info = pyspiel.GameInfo(
            num_distinct_actions=num_actions,
            max_chance_outcomes=outcomes if self.game.has_chance else 0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.decisions_per_turn * self.max_turns,
        )
        super().__init__(self.game_type, info, params)

    def new_initial_state(self) -> GameSpielState:
        """The start position."""
        return self.state_type(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> GameObserver:
        """The observer of both tensors and strings (perfect information: every type sees all)."""
        del iig_obs_type  # every observation type sees the whole position
        return self.observer_type(self.game, self.config, params)


def register_spiel_game(
    game: Game[Any, Any], short_name: str, *, decisions_per_turn: int = 1
) -> type[GameSpielGame]:
    """Build the OpenSpiel game class of ``game`` and register it as ``short_name``.

    Args:
        game: the game.
        short_name: the name to load (``pyspiel.load_game(short_name)``).
        decisions_per_turn: the most decisions one turn holds (``max_game_length``).

    Returns:
        The registered class, a :class:`GameSpielGame`.
    """
    game_type = spiel_game_type(game, short_name)
    attributes = {"game": game, "game_type": game_type, "decisions_per_turn": decisions_per_turn}
    spiel_class: type[GameSpielGame] = type(f"SpielGame_{game.name}", (GameSpielGame,), attributes)
    pyspiel.register_game(game_type, spiel_class)
    return spiel_class


# --- Trap! ------------------------------------------------------------------------------

SHORT_NAME = "python_trap"
"""The name to load: ``pyspiel.load_game("python_trap")``."""

GAME: Game[core.State, core.GameConfig] = get_game("trap")

DEFAULT_PARAMS: dict[str, int] = default_params(GAME)
"""The game parameters and their defaults; ``max_turns=-1`` stands for ``4 * N * N``."""

GAME_TYPE = spiel_game_type(GAME, SHORT_NAME)


class SpielState(GameSpielState):
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


class PlanesObserver(GameObserver):
    """The Trap! observer: :func:`trap_env.trap.observation.observe`, a pending landing shown
    as the throw it follows (no agent sees chance)."""

    def _observe(self, state: core.State, player: int) -> Any:
        return super()._observe(_decision_view(state), player)


class SpielGame(GameSpielGame):
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
    state_type = SpielState
    observer_type = PlanesObserver


def _turn_limit(max_turns: object, default: int) -> int:
    if max_turns == -1:
        return default
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise ValueError(
            "max_turns must be a positive integer, or -1 for the game's default "
            f"({default} turns); got {max_turns!r}"
        )
    return turn_limit(max_turns, default)


def _decision_view(state: core.State) -> core.State:
    """The state with a pending landing shown as the throw it follows (no agent sees chance)."""
    if state.phase is core.Phase.LANDING:
        return state._replace(phase=core.Phase.THROW, target=core.NO_PLAYER)
    return state


pyspiel.register_game(GAME_TYPE, SpielGame)

"""The OpenSpiel adapter: every game of the suite as a pyspiel game.

Importing this module registers each game of the table (:data:`trap_env.games.GAME_TABLE`)
under its OpenSpiel short name, ``python_trap``, ``python_othello`` and ``python_colosseum``,
so that ``pyspiel.load_game("python_othello")`` works right after the import (needs the
``openspiel`` extra: ``pip install trap_env[openspiel]``). It is a thin adapter: every rule
comes from the game's protocol object (:class:`trap_env.game.Game`); this module only
translates it to OpenSpiel's ``Game``/``State`` API.

Every game is sequential, zero-sum, of perfect information, with terminal rewards (+1 for
the winner, -1 for the loser, 0 for both on a draw or when ``max_turns`` cuts the game) and
two players; its chance (Trap!'s landings, Colosseum's start) is explicit and stochastic,
with the exact probabilities of ``game.chance_outcomes``, and a game without chance
(Othello) is deterministic.

- **Parameters.** The game's rule parameters with their defaults, and ``max_turns`` (the
  truncation limit in turns; the default -1 means the game's own default, as in the
  environments): ``pyspiel.load_game("python_othello(board_size=6)")``.
- **Actions.** The game's actions (``game.num_actions``); ``max_game_length`` counts
  decisions, ``game.decisions_per_turn * max_turns``.
- **Observation.** The environments' planes (``game.observe``) as a ``float32`` tensor in
  the game's observation shape (channel last), seen by the player asked for; the
  information state tensor is the same (perfect information); the strings are the game's
  one-line notation (``game.to_text``), as is ``str(state)``.
- **Serialization.** States serialize through OpenSpiel's default for Python games
  (``pyspiel.serialize_game_and_state`` stores the action history and the state's
  attributes) and pickle. Both pickle: deserializing a crafted string runs code (OpenSpiel's
  C++ unpickles the attributes; this adapter cannot change that), so deserialize only your
  own; exchange positions as text (each game's ``from_text`` parses, never executes).

:class:`GameSpielGame`, :class:`GameSpielState` and :class:`GameObserver` play any game;
:func:`register_spiel_game` builds and registers the OpenSpiel game of one (a game from
outside: ``register_spiel_game(game, "python_x")``). A game may bring its own class
(:attr:`trap_env.games.GameEntry.spiel_module`: Trap!'s
:class:`trap_env.trap.openspiel.TrapSpielGame`, which documents Trap!'s specifics).

Example:
    >>> import pyspiel
    >>> import trap_env.openspiel
    >>> game = pyspiel.load_game("python_othello(board_size=6)")
    >>> state = game.new_initial_state()
    >>> str(state)
    '....../....../..ox../..xo../....../...... x 0 standard'
    >>> game.num_distinct_actions(), game.get_type().chance_mode.name
    (37, 'DETERMINISTIC')
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pyspiel

from trap_env.game import Game, played_params, turn_limit
from trap_env.games import GameEntry, entries, entry_of, get_game

__all__ = [
    "GameObserver",
    "GameSpielGame",
    "GameSpielState",
    "default_params",
    "register_entry",
    "register_spiel_game",
    "spiel_game_type",
    "spiel_name_of",
]


def default_params(game: Game[Any, Any]) -> dict[str, Any]:
    """The game's rule parameters with their defaults, and ``max_turns=-1`` (its default)."""
    return {**played_params(game), "max_turns": -1}


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


_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_CHANCE = int(pyspiel.PlayerId.CHANCE)


class GameSpielState(pyspiel.State):  # type: ignore[misc]  # pyspiel has no type stubs
    """A position in OpenSpiel; :attr:`game_state` is the game's own state (a value)."""

    def __init__(self, game: GameSpielGame) -> None:
        super().__init__(game)
        self.game = game.game
        self.max_turns = game.max_turns
        self._store(self.game.initial_state(game.config))

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
        """Keep a state the rules made (unchecked), where serialization finds it, with the
        player to act beside it: OpenSpiel asks for that several times per action (its
        ``ApplyAction``, ``LegalActions`` and ``IsChanceNode`` each do), so it is derived
        once per state here rather than at every question."""
        self.__dict__["game_state"] = state
        self.__dict__["_player"] = self._player_of(state)

    def _player_of(self, state: Any) -> int:
        """The player to act in ``state``: ``TERMINAL`` once ``game.outcome`` says the game
        is over (``max_turns`` counted), ``CHANCE`` at a chance node."""
        if self.game.outcome(state, self.max_turns) is not None:
            return _TERMINAL
        if self.game.is_chance(state):
            return _CHANCE
        return int(self.game.current_player(state))

    def current_player(self) -> int:
        """The player to act, ``CHANCE`` at a chance node, ``TERMINAL`` at the end."""
        return int(self.__dict__["_player"])

    def is_terminal(self) -> bool:
        """Whether the game is over or ``max_turns`` turns are complete (``game.outcome``)."""
        return bool(self.__dict__["_player"] == _TERMINAL)

    # OpenSpiel's C++ answers the next two by calling back into Python (``LegalActions``
    # asks ``is_terminal``, ``current_player`` twice and ``_legal_actions``); a Python
    # caller, such as OpenSpiel's MCTSBot in its rollouts, gets the same answers here.

    def is_chance_node(self) -> bool:
        """Whether chance acts now."""
        return bool(self.__dict__["_player"] == _CHANCE)

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal actions of ``player`` (None: the player to act), as OpenSpiel's
        ``LegalActions`` gives them: the chance outcomes at a chance node, none at the end."""
        to_act = self.__dict__["_player"]
        if player is not None and player != to_act:
            return list(super().legal_actions(player))  # OpenSpiel's answer: none, or its error
        if to_act == _TERMINAL:
            return []
        if to_act == _CHANCE:
            return [outcome for outcome, _ in self.chance_outcomes()]
        return self._legal_actions(to_act)

    def _legal_actions(self, player: int) -> list[int]:
        del player  # only the player to act has actions, and OpenSpiel asks only for it
        return list(self.game.legal_actions(self.__dict__["game_state"]))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The chance outcomes with their exact probabilities, by outcome."""
        return sorted(self.game.chance_outcomes(self.__dict__["game_state"]))

    def _apply_action(self, action: int) -> None:
        self._store(self.game.apply(self.__dict__["game_state"], int(action)))

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
    game: Game[Any, Any], short_name: str, *, decisions_per_turn: int | None = None
) -> type[GameSpielGame]:
    """Build the OpenSpiel game class of ``game`` and register it as ``short_name``
    (registering a name again replaces it).

    Args:
        game: the game.
        short_name: the name to load (``pyspiel.load_game(short_name)``).
        decisions_per_turn: the most decisions one turn holds (``max_game_length``); None
            means ``game.decisions_per_turn``.

    Returns:
        The registered class, a :class:`GameSpielGame`.
    """
    if decisions_per_turn is None:
        decisions_per_turn = game.decisions_per_turn
    game_type = spiel_game_type(game, short_name)
    attributes = {"game": game, "game_type": game_type, "decisions_per_turn": decisions_per_turn}
    spiel_class: type[GameSpielGame] = type(f"SpielGame_{game.name}", (GameSpielGame,), attributes)
    pyspiel.register_game(game_type, spiel_class)
    return spiel_class


def spiel_name_of(game: Game[Any, Any]) -> str:
    """The short name that loads ``game`` in OpenSpiel: its table entry's (``python_othello``),
    or for a game without one (registered from outside without it, or named by its path)
    ``python_<name>``, registered with the generic class on first use."""
    entry = entry_of(game.name)
    if entry is not None and entry.spiel_name is not None and get_game(entry.name) is game:
        return entry.spiel_name
    short_name = f"python_{game.name}"
    if short_name not in pyspiel.registered_names():
        register_spiel_game(game, short_name)
    return short_name


def _turn_limit(max_turns: object, default: int) -> int:
    if max_turns == -1:
        return default
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise ValueError(
            "max_turns must be a positive integer, or -1 for the game's default "
            f"({default} turns); got {max_turns!r}"
        )
    return turn_limit(max_turns, default)


def register_entry(entry: GameEntry) -> None:
    """Register the OpenSpiel game of a table entry under its short name: the generic class
    of the game, or, for a game with its own (:attr:`~trap_env.games.GameEntry.spiel_module`),
    that module's, which registers itself when imported."""
    if entry.spiel_module is not None:
        importlib.import_module(entry.spiel_module)
    elif entry.spiel_name is not None:
        register_spiel_game(get_game(entry.name), entry.spiel_name)


for _entry in entries():
    register_entry(_entry)

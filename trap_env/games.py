"""The table of games: each game's object and the ids it registers, by name.

``get_game("trap")`` gives Trap!'s :class:`~trap_env.game.Game`. :data:`GAME_TABLE` declares,
for each game of the suite, where its game object is and its own ids and entry points
(:class:`GameEntry`: Gymnasium, PettingZoo, OpenSpiel), as ``"module:attribute"`` strings, so
that ``import trap_env`` registers every id without importing a game. Games are imported
when first asked for, so naming one loads only its package. A game from outside this
package joins with :func:`register_game` (with its ids, if it gives them), or is named by its path,
``"mypackage.mygame:GAME"`` (which a runner's worker processes import by themselves).
A name read from a file is looked up with ``allow_paths``: a path is imported only when
the user gave the same one, so that reading a file never imports code.

Example:
    >>> from trap_env.games import game_names, get_game
    >>> get_game("trap").title
    'Trap!'
    >>> "trap" in game_names()
    True
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from trap_env.checks import describe
from trap_env.game import Game

__all__ = [
    "GAME_TABLE",
    "GameEntry",
    "UnknownGameError",
    "bound_entry_point",
    "entries",
    "entry_for",
    "entry_of",
    "game_names",
    "game_of",
    "get_game",
    "path_of",
    "recorded_game",
    "register_entry_points",
    "register_game",
]

GENERIC_ENV = "trap_env.gym_env:GameEnv"
"""The Gymnasium entry point of a game without its own env class (with ``game=`` its name)."""
SYNC_VECTOR_ENV = "trap_env.gym_env:make_sync_vector_env"
"""The vector entry point of a game without a batched engine (Gymnasium's ``SyncVectorEnv``)."""
BATCHED_VECTOR_ENV = "trap_env.batched_env:GameVectorEnv"
"""The vector entry point of a game with a batched engine (:mod:`trap_env.batched`)."""
GENERIC_AEC_ENV = "trap_env.aec_env:game_env"
"""The PettingZoo entry point of a game without its own AEC module (with ``game=`` its name)."""
BOUND_ENTRY_POINTS = "trap_env.entry_points"
"""The module of the entry points every id is registered with (:func:`bound_entry_point`)."""


@dataclass(frozen=True)
class GameEntry:
    """One game of the table: where its game object is, and its ids and entry points.

    Every path is a ``"module:attribute"`` string, imported only when used, and every id is
    the game's own (none is derived from the title, which a rename may change).

    Attributes:
        name: the game's registered name (``get_game(name)``).
        game: the path of the game object (a :class:`~trap_env.game.Game`), or the object
            (a game :func:`register_game` joined).
        gym_id: its Gymnasium id, ``trap_env/<Title>-v0``; None registers none.
        env_entry_point: the Gymnasium env's entry point.
        vector_entry_point: ``make_vec``'s entry point: the batched env where the game has a
            batched engine, Gymnasium's ``SyncVectorEnv`` otherwise.
        aec_id: its PettingZoo AEC id, ``trap_env/<game>_v0``; None registers none.
        aec_module: the module with its PettingZoo ``env()`` and ``raw_env``, which
            ``from trap_env import <game>_v0`` gives: the game's own, or
            ``"trap_env.<game>_v0"`` itself, which the package makes (a
            :func:`trap_env.aec_env.game_module`: a game's folder holds no module that only
            names the game); None: the generic entry point.
        spiel_name: its OpenSpiel short name (``pyspiel.load_game``); None registers none.
        spiel_module: the module of its own ``pyspiel.Game`` class, which registers it under
            ``spiel_name`` when imported, or None for the generic class
            (:func:`trap_env.openspiel.register_spiel_game`).
        env_kwargs: what the generic entry points are called with (the game's name).
    """

    name: str
    game: str | Game[Any, Any]
    gym_id: str | None
    env_entry_point: str
    vector_entry_point: str
    aec_id: str | None
    aec_module: str | None
    spiel_name: str | None
    spiel_module: str | None = None
    env_kwargs: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @property
    def aec_entry_point(self) -> str:
        """The PettingZoo entry point: the AEC module's ``env``, or the generic one."""
        return GENERIC_AEC_ENV if self.aec_module is None else f"{self.aec_module}:env"

    @property
    def aec_kwargs(self) -> dict[str, Any]:
        """What the PettingZoo entry point is called with: the game's own ``env()`` needs
        nothing, the generic one :attr:`env_kwargs`."""
        return dict(self.env_kwargs) if self.aec_module is None else {}


GAME_TABLE: tuple[GameEntry, ...] = (
    GameEntry(
        name="trap",
        game="trap_env.trap.game:GAME",
        gym_id="trap_env/Trap-v0",
        env_entry_point="trap_env.trap.gym_env:TrapEnv",
        vector_entry_point="trap_env.trap.batched_env:TrapVectorEnv",
        aec_id="trap_env/trap_v0",
        aec_module="trap_env.trap.aec_env",
        spiel_name="python_trap",
        spiel_module="trap_env.trap.openspiel",
    ),
    GameEntry(
        name="othello",
        game="trap_env.othello.game:GAME",
        gym_id="trap_env/Othello-v0",
        env_entry_point=GENERIC_ENV,
        vector_entry_point=BATCHED_VECTOR_ENV,
        aec_id="trap_env/othello_v0",
        aec_module="trap_env.othello_v0",
        spiel_name="python_othello",
        env_kwargs={"game": "othello"},
    ),
    GameEntry(
        name="colosseum",
        game="trap_env.colosseum.game:GAME",
        gym_id="trap_env/Colosseum-v0",
        env_entry_point=GENERIC_ENV,
        vector_entry_point=SYNC_VECTOR_ENV,
        aec_id="trap_env/colosseum_v0",
        aec_module="trap_env.colosseum_v0",
        spiel_name="python_colosseum",
        env_kwargs={"game": "colosseum"},
    ),
)
"""The games of the suite and their entry points; ``trap_env`` registers each on import."""

_ENTRIES: dict[str, GameEntry] = {entry.name: entry for entry in GAME_TABLE}
"""Name -> the game's entry (the table's, and those :func:`register_game` adds)."""

_GAMES: dict[str, str | Game[Any, Any]] = {entry.name: entry.game for entry in GAME_TABLE}
"""Name -> the game, or ``"module:attribute"`` where it is until first asked for."""


class UnknownGameError(ValueError):
    """A game name that is not registered."""


def game_names() -> list[str]:
    """The registered games' names, sorted."""
    return sorted(_GAMES)


def get_game(name: str, *, allow_paths: bool | Collection[str] = True) -> Game[Any, Any]:
    """The game registered as ``name``, or the game at the path ``"module:attribute"``.

    Args:
        name: a registered game's name or a game's path.
        allow_paths: which paths may be imported: any (a name the user gave), none, or only
            these (a name read from a file, which imports only a path the user gave too).

    Raises:
        UnknownGameError: naming the games there are, or a path not allowed.
    """
    if not isinstance(name, str) or (name not in _GAMES and not _is_path(name)):
        raise UnknownGameError(
            f"unknown game {name!r}; the games: {', '.join(game_names())}, or a path "
            "such as 'mypackage.mygame:GAME'"
        )
    if name not in _GAMES and not (allow_paths is True or (allow_paths and name in allow_paths)):
        raise UnknownGameError(
            f"the game {name!r:.80} is a path, which a file may not import; the games: "
            f"{', '.join(game_names())}, or the same path given as the game to play (--game)"
        )
    found = _GAMES.get(name, name)
    if isinstance(found, str):
        found = _import(name, found)
        if name in _GAMES:
            _GAMES[name] = found
    return found


def recorded_game(name: object, playing: Game[Any, Any] | None = None) -> Game[Any, Any]:
    """The game that a file records by its name (an ``mcts`` network, a ``ppo`` zip): a
    registered game, or ``playing``, the game the reader plays, where it is its name (a
    game named by its path records its ``name``, registered nowhere). A file never makes
    us import a module.

    Raises:
        UnknownGameError: for any other name, naming the games there are.
    """
    if playing is not None and name == playing.name:
        return playing
    if isinstance(name, str) and name in _GAMES:
        return get_game(name)
    played = "" if playing is None or playing.name in _GAMES else f", nor {playing.name!r:.40}"
    raise UnknownGameError(
        f"the game {name!r:.40}, which is not one of {', '.join(game_names())}{played}"
    )


def game_of(game: object) -> Game[Any, Any]:
    """``game`` itself if it is a game object, or the game it names (:func:`get_game`): what
    the environments take as their ``game`` argument.

    Raises:
        UnknownGameError: for a name that names no game.
        TypeError: for anything but a name or a game object.
    """
    if isinstance(game, str):
        return get_game(game)
    if not _is_game(game):
        raise TypeError(
            f"game must be a game's name ({', '.join(game_names())}) or a game object (with "
            f"{', '.join(_REQUIRED)}), got {describe(game)}"
        )
    return game  # type: ignore[return-value]


def _is_game(found: object) -> bool:
    return all(callable(getattr(found, method, None)) for method in _REQUIRED)


def _import(name: str, path: str) -> Game[Any, Any]:
    module, _, attribute = path.partition(":")
    try:
        found = getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as error:
        raise UnknownGameError(f"cannot import the game {name!r}: {error}") from error
    if not _is_game(found):
        raise UnknownGameError(f"{name!r} is not a game (it lacks {', '.join(_REQUIRED)})")
    return found  # type: ignore[no-any-return]


_REQUIRED = ("initial_state", "legal_actions", "apply", "outcome")
"""What :func:`get_game` checks that a game found by its path has."""


def _is_path(name: str) -> bool:
    module, sep, attribute = name.partition(":")
    parts = [*module.split("."), attribute]
    return bool(sep) and all(part.isidentifier() for part in parts)


def entry_of(name: str) -> GameEntry | None:
    """The entry of the game registered as ``name`` (None for a game given by its path)."""
    return _ENTRIES.get(name)


def entry_for(game: str) -> GameEntry:
    """The entry of the game registered as ``game``, or for a game given by its path the
    generic entry points with ``game=`` the path (no ids).

    Raises:
        UnknownGameError: for a name that names no game.
    """
    return _ENTRIES.get(game) or _generic_entry(game, get_game(game))


def _generic_entry(
    name: str, game: Game[Any, Any], gym_id: str | None = None, aec_id: str | None = None
) -> GameEntry:
    """The entry of a game without entry points of its own: the generic ones, with the
    batched env where the game has a batched engine."""
    batched = hasattr(game, "batched_engine")
    return GameEntry(
        name=name,
        game=game,
        gym_id=gym_id,
        env_entry_point=GENERIC_ENV,
        vector_entry_point=BATCHED_VECTOR_ENV if batched else SYNC_VECTOR_ENV,
        aec_id=aec_id,
        aec_module=None,
        spiel_name=None,
        env_kwargs={"game": name},
    )


def bound_entry_point(kind: str, game: str) -> str:
    """The entry point an id of ``game`` is registered with: the ``kind`` (``"env"``,
    ``"vector_env"`` or ``"aec_env"``) of the game's entry (:func:`entry_for`) bound to the
    game, ``"trap_env.entry_points:<kind>@<game>"`` (a path's ``:`` written ``/``), which
    refuses a ``game=`` naming another game (:mod:`trap_env.entry_points`)."""
    return f"{BOUND_ENTRY_POINTS}:{kind}@{game.replace(':', '/')}"


def entries() -> list[GameEntry]:
    """Every game's entry: the table's and those :func:`register_game` added."""
    return list(_ENTRIES.values())


def register_entry_points(entry: GameEntry) -> None:
    """Register ``entry``'s Gymnasium id (unless it is registered) and, where the installed
    PettingZoo has a registry (``pettingzoo.register``), its AEC id, each with its entry
    points bound to the game (:func:`bound_entry_point`).

    Imports no game: the entry points are paths, imported by ``make``.
    """
    import gymnasium

    bound = _bound_game(entry)
    if entry.gym_id is not None and entry.gym_id not in gymnasium.registry:
        gymnasium.register(
            id=entry.gym_id,
            entry_point=bound_entry_point("env", bound),
            vector_entry_point=bound_entry_point("vector_env", bound),
            kwargs=dict(entry.env_kwargs),
        )
    if entry.aec_id is None:
        return
    try:
        import pettingzoo
    except ImportError:
        return
    register = getattr(pettingzoo, "register", None)  # PettingZoo 1.27 and later
    if register is not None:
        entry_point = bound_entry_point("aec_env", bound)
        register("aec", entry.aec_id, entry_point=entry_point, kwargs=entry.aec_kwargs)


def _bound_game(entry: GameEntry) -> str:
    """What the ids of ``entry`` are bound to: the game's name, or for a game that
    :func:`register_game` joined, its path where one finds it (:func:`path_of`), so that
    a fresh process, which knows only the suite's table (a spawned worker of Gymnasium's
    ``AsyncVectorEnv`` or TorchRL's ``ParallelEnv``), makes its envs too."""
    if isinstance(entry.game, str):
        return entry.name
    return path_of(entry.game) or entry.name


def path_of(game: Game[Any, Any]) -> str | None:
    """``"module:attribute"`` where an import finds ``game`` itself: an attribute of the
    module that defines its class (``tests.support.toy_game:GAME``), or None for a game
    made at run time."""
    module_name = type(game).__module__
    module = sys.modules.get(module_name)
    for attribute, value in vars(module).items() if module is not None else ():
        if value is game and not attribute.startswith("_"):
            return f"{module_name}:{attribute}"
    return None


def register_game(
    game: Game[Any, Any], *, gym_id: str | None = None, aec_id: str | None = None
) -> GameEntry:
    """Make ``game`` known as ``game.name`` (to envs, agents' tables, runners and CLIs), and
    register the ids it gives.

    Args:
        game: the game.
        gym_id: its Gymnasium id (``"mypackage/MyGame-v0"``): :class:`trap_env.gym_env.GameEnv`,
            and with ``make_vec`` the batched env where the game has a batched engine.
        aec_id: its PettingZoo AEC id (``"mypackage/mygame_v0"``), where PettingZoo has a
            registry: :class:`trap_env.aec_env.GameAECEnv` in PettingZoo's wrappers.

    Returns:
        The game's entry (OpenSpiel: :func:`trap_env.openspiel.register_spiel_game`).

    Raises:
        ValueError: if the name is taken by another game or is not an identifier, or an id
            is not a string.
    """
    name = getattr(game, "name", None)
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"a game's name must be an identifier, got {name!r}")
    for label, value in (("gym_id", gym_id), ("aec_id", aec_id)):
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{label} must be a string such as 'mypackage/MyGame-v0' or None, "
                             f"got {describe(value)}")
    current = _GAMES.get(name)
    if current is not None and current is not game and not isinstance(current, str):
        raise ValueError(f"the game name {name!r} is taken")
    if isinstance(current, str):
        raise ValueError(f"the game name {name!r} is taken by a built-in game")
    _GAMES[name] = game
    entry = _generic_entry(name, game, gym_id, aec_id)
    _ENTRIES[name] = entry
    register_entry_points(entry)
    return entry

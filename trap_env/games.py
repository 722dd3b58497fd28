"""The games on the stack, by name: ``get_game("trap")`` gives Trap!'s :class:`~trap_env.game.Game`.

Games are imported when first asked for, so naming one loads only its package. A game
from outside this package joins with :func:`register_game`, or is named by its path,
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
from collections.abc import Collection
from typing import Any

from trap_env.checks import describe
from trap_env.game import Game

__all__ = [
    "DEFAULT_GAME",
    "UnknownGameError",
    "game_names",
    "game_of",
    "get_game",
    "register_game",
]

DEFAULT_GAME = "trap"
"""The game every command, env and agent table means when none is named."""

_GAMES: dict[str, str | Game[Any, Any]] = {
    "trap": "trap_env.trap.game:GAME",
    "othello": "trap_env.othello.game:GAME",
    "colosseum": "trap_env.colosseum.game:GAME",
}
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
            f"game must be a game's name such as {DEFAULT_GAME!r} or a game object (with "
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


def register_game(game: Game[Any, Any]) -> None:
    """Make ``game`` known as ``game.name`` (to envs, agents' tables, runners and CLIs).

    Raises:
        ValueError: if the name is taken by another game or is not an identifier.
    """
    name = getattr(game, "name", None)
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"a game's name must be an identifier, got {name!r}")
    current = _GAMES.get(name)
    if current is not None and current is not game and not isinstance(current, str):
        raise ValueError(f"the game name {name!r} is taken")
    if isinstance(current, str):
        raise ValueError(f"the game name {name!r} is taken by a built-in game")
    _GAMES[name] = game

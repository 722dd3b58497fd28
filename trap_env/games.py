"""The games on the stack, by name: ``get_game("trap")`` gives Trap!'s :class:`~trap_env.game.Game`.

Games are imported when first asked for, so naming one loads only its package. A game
from outside this package joins with :func:`register_game`.

Example:
    >>> from trap_env.games import game_names, get_game
    >>> get_game("trap").title
    'Trap!'
    >>> "trap" in game_names()
    True
"""

from __future__ import annotations

import importlib
from typing import Any

from trap_env.game import Game

__all__ = ["DEFAULT_GAME", "UnknownGameError", "game_names", "get_game", "register_game"]

DEFAULT_GAME = "trap"
"""The game every command, env and agent table means when none is named."""

_GAMES: dict[str, str | Game[Any, Any]] = {
    "trap": "trap_env.trap:GAME",
}
"""Name -> the game, or ``"module:attribute"`` where it is until first asked for."""


class UnknownGameError(ValueError):
    """A game name that is not registered."""


def game_names() -> list[str]:
    """The registered games' names, sorted."""
    return sorted(_GAMES)


def get_game(name: str) -> Game[Any, Any]:
    """The game registered as ``name``.

    Raises:
        UnknownGameError: naming the games there are.
    """
    if not isinstance(name, str) or name not in _GAMES:
        raise UnknownGameError(f"unknown game {name!r}; the games: {', '.join(game_names())}")
    found = _GAMES[name]
    if isinstance(found, str):
        module, _, attribute = found.partition(":")
        found = _GAMES[name] = getattr(importlib.import_module(module), attribute)
    return found


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

"""The entry points every game's ids are registered with: each the entry point of the game's
table entry (:class:`trap_env.games.GameEntry`) bound to the game.

Gymnasium's ``make`` and ``make_vec`` and PettingZoo's ``make`` lay the caller's keyword
arguments over an id's own, so an id that named its game in its ``kwargs`` alone (the
generic envs' ``game=``) would make whatever game a caller's ``game=`` named, under the
id's name. An id names ``"trap_env.entry_points:<kind>@<game>"`` instead
(:func:`trap_env.games.bound_entry_point`), an attribute this module makes when it is read
(PEP 562): it refuses a ``game=`` that names another game (:func:`check_own_game`, the
rule the games' PettingZoo modules follow too) and calls the game's entry point.

Example:
    >>> import gymnasium, trap_env
    >>> gymnasium.spec("trap_env/Othello-v0").entry_point
    'trap_env.entry_points:env@othello'
    >>> gymnasium.make("trap_env/Othello-v0", game="colosseum")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: trap_env/Othello-v0 plays the game 'othello', so game= names only it; got ...
"""

from __future__ import annotations

from typing import Any

from gymnasium.envs.registration import load_env_creator

from trap_env.checks import describe
from trap_env.games import entry_for, get_game

__all__ = ["BoundEntryPoint", "check_own_game"]

_FIELDS = {
    "env": "env_entry_point",
    "vector_env": "vector_entry_point",
    "aec_env": "aec_entry_point",
}
"""Each kind of entry point -> the field of :class:`trap_env.games.GameEntry` that holds it."""


def check_own_game(game: str, given: object, where: str) -> None:
    """Refuse a ``game=`` argument of an id or module of ``game`` unless it names ``game``.

    Args:
        game: the name (or path) of the game the id or module plays.
        given: the ``game`` argument: ``game`` itself, the game's name or the game object
            pass.
        where: the id or module, for the message.

    Raises:
        ValueError: ``"WHERE plays the game 'GAME', so game= names only it; got ..."``.
    """
    if isinstance(given, str) and given in (game, get_game(game).name):
        return  # the game's path, or its name (the name a registered game's id gives)
    if not isinstance(given, str) and given is get_game(game):
        return
    raise ValueError(
        f"{where} plays the game {game!r}, so game= names only it; got {describe(given)} "
        "(each game has ids and a module of its own, and the generic envs take any game)"
    )


class BoundEntryPoint:
    """The ``kind`` entry point of ``game``'s entry, bound to the game: a call with the
    id's arguments refuses a ``game=`` naming another game, then makes the env.

    Args:
        kind: ``"env"``, ``"vector_env"`` or ``"aec_env"``.
        game: the game's registered name, or its path.

    Raises:
        UnknownGameError: for a game that is not registered.
    """

    def __init__(self, kind: str, game: str) -> None:
        entry = entry_for(game)
        self.game = game
        self.target = load_env_creator(getattr(entry, _FIELDS[kind]))
        self._kwargs = dict(entry.aec_kwargs if kind == "aec_env" else entry.env_kwargs)
        self._where = (entry.aec_id if kind == "aec_env" else entry.gym_id) or "this id"
        # Gymnasium reads the creator's render modes (to offer its HumanRendering wrapper).
        if hasattr(self.target, "metadata"):
            self.metadata = self.target.metadata

    def __call__(self, **kwargs: Any) -> Any:
        """The env of the game, made with ``kwargs`` (a ``game=`` only the game's own).

        Raises:
            ValueError: for a ``game=`` naming another game, and what the env refuses.
        """
        check_own_game(self.game, kwargs.pop("game", self.game), self._where)
        return self.target(**self._kwargs, **kwargs)


def __getattr__(attribute: str) -> BoundEntryPoint:
    """``"<kind>@<game>"``: the entry point of :func:`trap_env.games.bound_entry_point`."""
    kind, at, game = attribute.partition("@")
    if not at or kind not in _FIELDS:
        raise AttributeError(f"module {__name__!r} has no attribute {attribute!r}")
    return BoundEntryPoint(kind, game.replace("/", ":"))

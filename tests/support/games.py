"""The games a game-parametrised test runs over: the shipped games and the strangers.

A stranger is a test-only game of the protocol, unlike the shipped ones where they are
alike (Race, ``toy_game``: a one-row track, actions that are no cells, chance; Drop,
``drop_game``: a board that is not square, actions that are columns, a chance slip). Each is
listed once, in :data:`STRANGERS`; ``tests/conftest.py`` registers them in the game table
for the test session (:func:`register_strangers`), so that every generic surface takes
them by name as it takes Trap!. A test over every game parametrises with
:func:`every_game`; a game without a capability the test needs (a batched engine, a
``greedy`` agent) is skipped with the reason, read from the game, not from its name.

Example:
    >>> @every_game("batched engine")  # doctest: +SKIP
    ... def test_x(game: str) -> None: ...
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from trap_env.game import Game, played_params
from trap_env.games import GAME_TABLE, get_game, register_game

STRANGERS: tuple[tuple[str, str], ...] = (
    ("race", "tests.support.toy_game:GAME"),  # a one-row track, actions no cells, chance
    ("drop", "tests.support.drop_game:GAME"),  # 4 x 5, actions are columns, a chance slip
)
"""Each test-only game: its name and its path (one line a game)."""

SHIPPED: tuple[str, ...] = tuple(entry.name for entry in GAME_TABLE)
"""The games of the suite, for tests of their own specifics (their ladders, their ids)."""

ALL_GAMES: tuple[str, ...] = (*SHIPPED, *(name for name, _ in STRANGERS))
"""Every game a game-parametrised test runs over."""

PATHS: Mapping[str, str] = dict(STRANGERS)
"""A stranger's path by its name: how a runner's worker process, which has no table of
this session, finds it (``--game tests.support.toy_game:GAME``)."""


def game_object(name: str) -> Game[Any, Any]:
    """The game ``name`` of :data:`ALL_GAMES` (by its path for a stranger, so before the
    session registers it: at collection)."""
    return get_game(PATHS.get(name, name))


def gym_id(game: Game[Any, Any]) -> str:
    """A stranger's Gymnasium id: ``tests/<Title>-v0``."""
    return f"tests/{game.title}-v0"


def aec_id(game: Game[Any, Any]) -> str:
    """A stranger's PettingZoo id: ``tests/<name>_v0``."""
    return f"tests/{game.name}_v0"


def register_strangers() -> None:
    """Register every stranger by its name, with its Gymnasium and PettingZoo ids (again:
    a no-op, as registering the same game object twice is)."""
    for name, path in STRANGERS:
        game = get_game(path)
        assert game.name == name, f"{path} is named {game.name!r}, listed as {name!r}"
        register_game(game, gym_id=gym_id(game), aec_id=aec_id(game))


def forget_strangers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Take the strangers' names out of the game table till the test ends: each is then
    known by its path only, as in a fresh process given the path (a runner's worker)."""
    from trap_env import games

    for name, _ in STRANGERS:
        monkeypatch.delitem(games._GAMES, name)
        monkeypatch.delitem(games._ENTRIES, name)


def _has_greedy(name: str) -> bool:
    from agents.registry import agent_names

    return "greedy" in agent_names(PATHS.get(name, name))


CAPABILITIES: Mapping[str, tuple[Callable[[str], bool], str]] = {
    "batched engine": (lambda name: hasattr(game_object(name), "batched_engine"),
                       "has no batched engine (game.batched_engine)"),
    "greedy": (_has_greedy, "has no greedy agent (agent_names(game))"),
    "chance": (lambda name: game_object(name).has_chance, "has no chance (game.has_chance)"),
}  # fmt: skip
"""What a test may need of a game: a test of it, and what a game without it lacks."""


def lacks(name: str, *needs: str) -> str | None:
    """Why the game ``name`` cannot run a test that needs ``needs`` (None: it can)."""
    for need in needs:
        has, missing = CAPABILITIES[need]
        if not has(name):
            return f"{game_object(name).title} {missing}"
    return None


def games_with(*needs: str) -> list[Any]:
    """:data:`ALL_GAMES` as parameters, each game that lacks one of ``needs`` skipped with
    the reason."""
    return [
        pytest.param(name, id=name, marks=[] if reason is None else pytest.mark.skip(reason=reason))
        for name in ALL_GAMES
        for reason in [lacks(name, *needs)]
    ]


def every_game(*needs: str, argname: str = "game") -> pytest.MarkDecorator:
    """Parametrise a test over every game (:func:`games_with`) as its ``argname``."""
    return pytest.mark.parametrize(argname, games_with(*needs))


def small_rules(name: str, **rules: Any) -> dict[str, Any]:
    """``rules`` where the game ``name`` has them (a shipped game's ``board_size``) and they
    are not None; the others are left to its defaults (a stranger's small ones)."""
    known = played_params(game_object(name))
    return {rule: value for rule, value in rules.items() if rule in known and value is not None}

"""How a game record holds its game and rule parameters: the one writer and the one reader.

Every results file written so far keeps its shape: a record that names no game is Trap!'s
(written before the suite had other games), with its rules in fields of their own,
``board_size`` and ``decay`` (the latter only when it is not the default); a record of
another game names it in ``game`` and holds its board size in ``board_size`` and its other
rule parameters in ``rules``. The runner itself knows only a game and its rule dictionary,
``params``, for every game alike.

Example:
    >>> rule_fields("othello", {"board_size": 6, "end_rule": "course"})
    {'board_size': 6, 'game': 'othello', 'rules': {'end_rule': 'course'}}
    >>> record_params({"board_size": 5})  # an old record of Trap!'s
    {'board_size': 5}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trap_env.game import played_params
from trap_env.games import get_game

__all__ = [
    "UNNAMED_GAME",
    "record_game",
    "record_params",
    "recorded_settings",
    "rule_fields",
    "settings_rule_fields",
]

UNNAMED_GAME = "trap"
"""The game of records and settings that name none: Trap!'s, whose files predate the
``game`` field (and keep their shape when a run of them resumes)."""


def rule_fields(game: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The fields a record of ``game`` holds the rule parameters ``params`` in (the inverse
    of :func:`record_params`): the board size, if the game has one; then Trap!'s other rules
    in fields of their own, left out at their defaults, or another game's name and
    ``rules``."""
    others = dict(params)
    fields = {} if "board_size" not in others else {"board_size": others.pop("board_size")}
    if game != UNNAMED_GAME:
        return fields | {"game": game, "rules": others}
    found = get_game(game)
    defaults = played_params(found)
    return fields | {name: value for name, value in others.items() if defaults[name] != value}


def record_game(record: Mapping[str, Any]) -> str:
    """The game a (checked) record's game is of: Trap! when it names none."""
    return record.get("game", UNNAMED_GAME)  # type: ignore[no-any-return]


def record_params(record: Mapping[str, Any]) -> dict[str, Any]:
    """The rule parameters a (checked) record's game was played with, as
    ``make_config`` takes them: its board size and its other rules, whichever shape the
    record has (the game's defaults fill the rules it leaves out)."""
    size = record.get("board_size")
    params: dict[str, Any] = {} if size is None else {"board_size": size}
    if record_game(record) == UNNAMED_GAME:
        return params | ({"decay": record["decay"]} if "decay" in record else {})
    return params | dict(record.get("rules", {}))


def settings_rule_fields(game: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """The fields a run's settings hold its game and the rule parameters ``given`` in (the
    inverse of :func:`recorded_settings`): Trap!'s board size and decay in fields of their
    own, always (the defaults where not given); another game's name, and ``rules`` when
    any is given."""
    if game != UNNAMED_GAME:
        return {"game": game} | ({"rules": dict(given)} if given else {})
    return _unnamed_defaults() | dict(given)


def recorded_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """A settings file's settings, with its game named: settings that name none are
    Trap!'s, and those from before the decay was a setting played the default decay."""
    if "game" in settings:
        return dict(settings)
    return {"decay": _unnamed_defaults()["decay"], "game": UNNAMED_GAME} | dict(settings)


def _unnamed_defaults() -> dict[str, Any]:
    return played_params(get_game(UNNAMED_GAME))

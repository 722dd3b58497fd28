"""How records and settings hold a game and its rules: the one writer and the one reader.

The runner knows a game and its rule dictionary, ``params``, for every game alike; a rule
may be drawn per game (:class:`DrawnRule`). Records and settings written now name their
game in ``game`` and hold every rule in ``rules`` (a settings file holds its drawn rules
in ``drawn_rules``, as ``[low, high]``).

Every results file written so far is read in its own shape: a record that names no game is
Trap!'s (written before the suite had other games), with its rules in fields of their own,
``board_size`` and ``decay`` (the latter only when it is not the default); a record of
another game from before names it in ``game`` and holds its board size in ``board_size``
beside ``rules``. Settings of those runs hold Trap!'s rules the same way, a size drawn per
game in ``board_sizes``, and another game's given rules only in ``rules``.

Example:
    >>> rule_fields("othello", {"board_size": 6, "end_rule": "course"})
    {'game': 'othello', 'rules': {'board_size': 6, 'end_rule': 'course'}}
    >>> record_params({"board_size": 5})  # an old record of Trap!'s
    {'board_size': 5}
    >>> DrawnRule.parse("6-12")
    DrawnRule(low=6, high=12)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from trap_env.game import played_params
from trap_env.games import get_game

__all__ = [
    "OLD_TRAP_FIELDS",
    "UNNAMED_GAME",
    "DrawnRule",
    "fixed_rules",
    "record_game",
    "record_params",
    "recorded_settings",
    "rule_fields",
    "settings_rule_fields",
    "settings_rules",
]

UNNAMED_GAME = "trap"
"""The game of records and settings that name none: Trap!'s, whose files predate the
``game`` field."""

OLD_TRAP_FIELDS = ("board_size", "decay")
"""Trap!'s rules, in fields of their own in the records and settings that name no game."""


@dataclass(frozen=True)
class DrawnRule:
    """A rule drawn per game: an integer from ``low`` to ``high``, both included, drawn from
    the game's seed (:func:`agents.arena.match.draw_rules`), so that a game replays alone.

    Raises:
        ValueError: for bounds that are not integers with ``low <= high``.
    """

    low: int
    high: int

    def __post_init__(self) -> None:
        bounds = (self.low, self.high)
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in bounds) or (
            self.low > self.high
        ):
            raise ValueError(
                f"a rule drawn per game is LOW-HIGH, integers with LOW <= HIGH, got {bounds!r}"
            )

    @classmethod
    def parse(cls, text: str) -> DrawnRule | None:
        """``"LOW-HIGH"`` (as ``--rule board_size=6-12`` writes it); None for text of another
        form (a rule's value).

        Raises:
            ValueError: for ``LOW > HIGH``.
        """
        found = _RANGE.fullmatch(text.strip())
        return None if found is None else cls(int(found[1]), int(found[2]))

    @property
    def values(self) -> range:
        """Every value it may draw."""
        return range(self.low, self.high + 1)

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"


_RANGE = re.compile(r"([+-]?[0-9]{1,9})-([+-]?[0-9]{1,9})")
"""``LOW-HIGH``: two integers of a few digits (a rule drawn per game)."""


def fixed_rules(params: Mapping[str, Any]) -> dict[str, Any]:
    """The rules of ``params`` that are not drawn per game."""
    return {name: value for name, value in params.items() if not isinstance(value, DrawnRule)}


# --- Records ---------------------------------------------------------------------------


def rule_fields(game: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The fields a record of ``game`` played with the rules ``params`` holds them in (the
    inverse of :func:`record_params`): ``game`` and ``rules``."""
    return {"game": game, "rules": dict(params)}


def record_game(record: Mapping[str, Any]) -> str:
    """The game a (checked) record's game is of: Trap! when it names none."""
    return record.get("game", UNNAMED_GAME)  # type: ignore[no-any-return]


def record_params(record: Mapping[str, Any]) -> dict[str, Any]:
    """The rule parameters a (checked) record's game was played with, as ``make_config``
    takes them, whichever shape the record has (the game's defaults fill the rules an old
    record leaves out)."""
    if "game" not in record:  # Trap!'s, from before records named their game
        return {name: record[name] for name in OLD_TRAP_FIELDS if name in record}
    size = record.get("board_size")  # an old record of another game: its size beside rules
    return ({} if size is None else {"board_size": size}) | dict(record.get("rules", {}))


# --- Settings --------------------------------------------------------------------------


def settings_rule_fields(game: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The fields a run's settings hold its game and rules ``params`` in (read back by
    :func:`settings_rules`): ``game``; ``rules``, every rule not drawn (the game's defaults
    filling those not given); and ``drawn_rules``, each as ``[low, high]``, when any is."""
    drawn = {name: rule for name, rule in params.items() if isinstance(rule, DrawnRule)}
    highest = fixed_rules(params) | {name: rule.high for name, rule in drawn.items()}
    played = played_params(get_game(game), highest)
    fields = {"game": game, "rules": {name: played[name] for name in played if name not in drawn}}
    if drawn:
        fields["drawn_rules"] = {name: [rule.low, rule.high] for name, rule in drawn.items()}
    return fields


def recorded_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """A settings file's settings with its game named: settings that name none are Trap!'s."""
    return {"game": UNNAMED_GAME} | dict(settings)


def settings_rules(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The rules a run's settings give, whichever shape they have: the rules given by name,
    a rule drawn per game as a :class:`DrawnRule` (the game's defaults are not filled in).

    Settings that name no game are Trap!'s, with its rules in fields of their own (those
    from before the decay was a setting played the default, which the game fills); the
    board size beside ``board_sizes`` there is the default, not played. A value that is
    no rule dictionary or range is given as it is, for a comparison to name.
    """
    if "game" in settings:
        rules = settings.get("rules") or {}
        given = dict(rules) if isinstance(rules, dict) else {"rules": rules}
    else:
        given = {name: settings[name] for name in OLD_TRAP_FIELDS if name in settings}
    drawn = dict(settings.get("drawn_rules") or {})
    if settings.get("board_sizes") is not None:
        drawn["board_size"] = settings["board_sizes"]
    for name, bounds in drawn.items():
        given[name] = _drawn_rule(bounds)
    return given


def _drawn_rule(bounds: object) -> object:
    """``[low, high]`` as a :class:`DrawnRule`; anything else as it is."""
    if not (isinstance(bounds, list | tuple) and len(bounds) == 2):
        return bounds
    try:
        return DrawnRule(*bounds)
    except ValueError:
        return bounds

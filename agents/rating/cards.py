"""Cards side by side: read every ``card.json`` under a folder and rank them per shipped ladder.

The shipped ladders (:func:`~agents.rating.ladder.shipped_ladders`: every game's own, any
version and rules) are a set, each known by its identity
(:attr:`~agents.rating.ladder.Ladder.identity`). A card is ranked under the shipped ladder
whose identity it records (``ladder_sha256``); a card written before cards recorded it,
under the shipped ladder whose game, version, rules, and rungs with their ratings are the
card's own. Every other card (made on an edited ladder, another version, other rules) is
listed apart with a note that says why, never ranked beside them. A file that is not a
readable card, or a card whose fields contradict each other, is left out with a note.

Example:
    >>> board = leaderboard(Path("results"))  # doctest: +SKIP
    >>> [row.line for row in board.boards[load_ladder("othello").identity].rows]  # doctest: +SKIP
    ['othello ladder v1: 1432 [1380, 1484] (200 games)']
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agents.folder_walk import find_files, read_regular_file, shown_path
from agents.json_schema import parse_json
from agents.rating.card_format import check_card
from agents.rating.ladder import Ladder, game_params, ladder_name, names_rules, shipped_ladders
from agents.rating.run import BENCHMARK
from trap_env.games import game_names

__all__ = [
    "CARD_FILE",
    "MAX_CARDS",
    "Board",
    "Leaderboard",
    "Row",
    "card_ladder",
    "ladders_by_identity",
    "leaderboard",
    "read_card",
]

CARD_FILE = "card.json"
MAX_CARDS = 10_000
"""The most cards a leaderboard reads (a folder may hold any number of files)."""
MAX_CARD_BYTES = 1 << 20
LINE_ROUNDING = 0.55
"""How far a figure of a card's line may be from the card's own: the line rounds to whole
points what the card rounds to tenths."""
_COUNTS = ("wins", "draws", "losses", "faults")
_LINE = re.compile(
    r"(?:(?P<rating>-?\d+) \[(?P<low>-?\d+), (?P<high>-?\d+)\]|> (?P<above>-?\d+)"
    r"|< (?P<below>-?\d+)|no games) \((?P<games>\d+) games\)"
)


@dataclass(frozen=True)
class Row:
    """One rating on a leaderboard.

    Attributes:
        spec: the rated agent.
        rating: its rating (None: every game won or lost, see ``low``/``high``).
        low, high: the 95% interval (None: unbounded on that side).
        scale_low, scale_high: the 95% interval on the ladder's scale, the games' alone
            (None: unbounded on that side, or a card written before it).
        num_games: games behind it.
        line: the quotable line.
        path: the card's path, relative to the folder read (odd bytes escaped).
        date: the card's date.
        game: the game it was played in.
        note: why it is not ranked with a shipped ladder's cards ("" for a ranked one).
    """

    spec: str
    rating: float | None
    low: float | None
    high: float | None
    num_games: int
    line: str
    path: str
    date: str
    game: str
    scale_low: float | None = None
    scale_high: float | None = None
    note: str = ""

    @property
    def sort_key(self) -> float:
        """Where the row ranks: its rating, or the bound it has."""
        for value in (self.rating, self.low, self.high):
            if value is not None:
                return value
        return float("-inf")


@dataclass
class Board:
    """The cards of one shipped ladder, best first.

    Attributes:
        name: the ladder's name (``othello ladder v1``).
        game: its game.
        sha256: its identity.
        rows: the cards made on it, best first.
    """

    name: str
    game: str
    sha256: str
    rows: list[Row] = field(default_factory=list)


@dataclass
class Leaderboard:
    """The cards under a folder, per shipped ladder, those of other ladders, and notes.

    Attributes:
        boards: a shipped ladder's identity -> its board (every shipped ladder, in the
            order of :func:`~agents.rating.ladder.shipped_ladders`).
        apart: the cards of no shipped ladder, each with its note; by game, best first.
        notes: one line per file left out and per thing the walk passed over.
    """

    boards: dict[str, Board] = field(default_factory=dict)
    apart: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def ladders_by_identity() -> dict[str, Ladder]:
    """Every shipped ladder (:func:`~agents.rating.ladder.shipped_ladders`), by identity."""
    return {ladder.identity: ladder for ladder in shipped_ladders()}


def leaderboard(root: Path) -> Leaderboard:
    """Every card under ``root`` (at most :data:`MAX_CARDS`, links not followed), ranked
    under its shipped ladder or listed apart; never raises for what the folder holds."""
    shipped = ladders_by_identity()
    board = Leaderboard({key: Board(ladder.name, ladder.game, key)
                         for key, ladder in shipped.items()})  # fmt: skip
    found = find_files(root, CARD_FILE, MAX_CARDS)
    board.notes += found.notes
    for path in found.paths:
        relative = shown_path(path.relative_to(root))
        try:
            card = read_card(path)
            ladder = card_ladder(card, shipped)
        except ValueError as error:
            board.notes.append(f"{relative}: left out, {error}")
            continue
        row = _row(card, relative)
        if ladder is None:
            board.apart.append(replace(row, note=_apart_note(card, shipped)))
        else:
            board.boards[ladder.identity].rows.append(row)
    if found.num_left:
        board.notes.append(f"{found.num_left} cards past the first {MAX_CARDS} were not read")
    for ranked in board.boards.values():
        ranked.rows.sort(key=lambda row: (-row.sort_key, row.spec, row.path))
    board.apart.sort(key=lambda row: (row.game, -row.sort_key, row.spec, row.path))
    return board


def _row(card: dict[str, Any], path: str) -> Row:
    return Row(
        card["spec"], card["rating"], card["low"], card["high"], card["num_games"],
        card["line"], path, card["date"], card["game"], card.get("scale_low"),
        card.get("scale_high"),
    )


# --- One card --------------------------------------------------------------------------


def read_card(path: Path) -> dict[str, Any]:
    """A rating card file's fields, checked to be a card whose fields agree with each other.

    A card of format 2 (:mod:`agents.rating.card_format`) is checked against its schema
    first; one without ``format`` is a rating card of format 1, written before.

    Raises:
        ValueError: for a file that is not a regular file of at most
            :data:`MAX_CARD_BYTES` bytes, not JSON with finite numbers, not a card, a card
            of another kind than a rating or of an unknown format, or a card whose fields
            contradict each other, saying which.
    """
    try:
        card = parse_json(read_regular_file(path, MAX_CARD_BYTES))
    except ValueError as error:
        raise ValueError(f"not a card: {error}") from None
    if isinstance(card, dict) and "format" in card:
        check_card(card)
        if card["kind"] != "rating":
            raise ValueError(f"a card of kind {card['kind']!r}, not a rating")
    if not isinstance(card, dict) or card.get("benchmark") != BENCHMARK:
        raise ValueError(f"not a card of the {BENCHMARK}")
    _check_types(card)
    for check in (_check_counts, _check_interval, _check_scale, _check_line):
        contradiction = check(card)
        if contradiction:
            raise ValueError(f"its fields contradict each other: {contradiction}")
    return card


def card_ladder(card: dict[str, Any], shipped: Mapping[str, Ladder]) -> Ladder | None:
    """The shipped ladder a (read) card was made on; None for a card of none of them.

    A card that records an identity is of the ladder that has it; one that records none,
    of the shipped ladder whose game, version, rules, rungs and ratings are its own.

    Raises:
        ValueError: for a card that records a shipped ladder's identity but another game,
            version, rules or opponents.
    """
    recorded = card.get("ladder_sha256")
    if recorded is None:
        return next((ladder for ladder in shipped.values() if not _difference(card, ladder)),
                    None)  # fmt: skip
    ladder = shipped.get(recorded)
    if ladder is not None and (difference := _difference(card, ladder)):
        raise ValueError(
            f"its fields contradict each other: it records the identity of the {ladder.name}, "
            f"but {difference}"
        )
    return ladder


def _difference(card: dict[str, Any], ladder: Ladder) -> str:
    """The first of the card's game, version, rules, and opponents with their ratings that
    is not ``ladder``'s ("" if none is)."""
    if card["game"] != ladder.game:
        return f"its game is {card['game']!r:.40}, not {ladder.game!r}"
    if card["ladder"] != ladder.version:
        return f"its ladder is {card['ladder']!r:.40}, not {ladder.version!r}"
    if card["params"] != game_params(ladder.game, ladder.params):
        return f"it was played by other rules ({json.dumps(card['params']):.80})"
    opponents = [[opponent["spec"], opponent["rating"]] for opponent in card["opponents"]]
    if opponents != [[rung.spec, rung.rating] for rung in ladder.rungs]:
        return f"its opponents and their ratings are not the {ladder.name}'s rungs"
    return ""


def _apart_note(card: dict[str, Any], shipped: Mapping[str, Ladder]) -> str:
    """Why a card of no shipped ladder is not ranked."""
    recorded = card.get("ladder_sha256")
    if recorded is not None:
        return (
            f"made on a ladder that is not shipped (ladder_sha256 {recorded[:12]}...: an "
            "edited ladder, or another version); not ranked with the shipped ladders' cards"
        )
    same_game = [ladder for ladder in shipped.values() if ladder.game == card["game"]]
    why = f"; {_difference(card, same_game[0])}" if same_game else ""
    return (
        "records no ladder_sha256, and no shipped ladder has its game, version, rules, "
        f"and opponents with their ratings{why}; not ranked with the shipped ladders' cards"
    )


# --- The checks ----------------------------------------------------------------------------


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_types(card: dict[str, Any]) -> None:
    """Refuse a card whose fields are missing or of the wrong kind."""
    for key in ("ladder", "game", "spec", "line", "date"):
        if not isinstance(card.get(key), str):
            raise ValueError(f"its {key!r} is not a string")
    sha = card.get("ladder_sha256")
    if sha is not None and not (isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{64}", sha)):
        raise ValueError("its 'ladder_sha256' is not 64 hexadecimal digits")
    params = card.get("params")
    if not isinstance(params, dict) or any(
        isinstance(value, dict | list) for value in params.values()
    ):
        raise ValueError("its 'params' is not an object of rule values")
    if not _is_count(card.get("num_games")):
        raise ValueError("its 'num_games' is not an integer")
    for key in ("rating", "low", "high"):
        if key not in card or (card[key] is not None and not _is_number(card[key])):
            raise ValueError(f"its {key!r} is not a number or null")
    if ("scale_low" in card) != ("scale_high" in card):
        raise ValueError("it has one end of its interval on the ladder's scale: both, or neither")
    for key in ("scale_low", "scale_high"):
        if card.get(key) is not None and not _is_number(card[key]):
            raise ValueError(f"its {key!r} is not a number or null")
    opponents = card.get("opponents")
    if not isinstance(opponents, list) or not all(map(_is_opponent, opponents)):
        raise ValueError(
            "its 'opponents' is not a list of results per rung (spec, rating, wins, draws, "
            "losses, faults)"
        )


def _is_opponent(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("spec"), str)
        and _is_number(value.get("rating"))
        and all(_is_count(value.get(key)) for key in _COUNTS)
    )


def _check_counts(card: dict[str, Any]) -> str:
    """What is wrong with the card's counts of games ("" if nothing)."""
    for opponent in card["opponents"]:
        counts = [opponent[key] for key in _COUNTS]
        if min(counts) < 0:
            return f"a negative count of games against {opponent['spec']!r:.60}"
        if opponent["faults"] > opponent["losses"]:
            return f"more faults than losses against {opponent['spec']!r:.60}"
    played = sum(o["wins"] + o["draws"] + o["losses"] for o in card["opponents"])
    if card["num_games"] != played:
        return f"num_games is {card['num_games']}, but its opponents' results add up to {played}"
    return ""


def _check_interval(card: dict[str, Any]) -> str:
    """What is wrong with the card's rating and interval ("" if nothing)."""
    rating, low, high = card["rating"], card["low"], card["high"]
    if low is not None and high is not None and low > high:
        return f"its interval [{low}, {high}] has its low end above its high end"
    if rating is not None:
        if low is None or high is None:
            return "a rating without both ends of its interval"
        if not low <= rating <= high:
            return f"its rating {rating} is outside its interval [{low}, {high}]"
    elif low is not None and high is not None:
        return "an interval with both ends but no rating"
    if (rating, low, high) == (None, None, None) and card["num_games"]:
        return f"no rating and no bound from {card['num_games']} games"
    if card["num_games"] == 0 and (rating, low, high) != (None, None, None):
        return "a rating from no games"
    return ""


def _check_scale(card: dict[str, Any]) -> str:
    """What is wrong with the card's interval on the ladder's scale, if it has one ("" if
    nothing): bounded on the sides its interval is, and holding its rating (it is the games'
    part of that interval, so it lies within it, but for rounding)."""
    if "scale_low" not in card:  # a card written before it
        return ""
    rating, low, high = card["rating"], card["scale_low"], card["scale_high"]
    if (low is None, high is None) != (card["low"] is None, card["high"] is None):
        return (f"its interval on the ladder's scale [{low}, {high}] is not bounded on the "
                f"sides its interval [{card['low']}, {card['high']}] is")  # fmt: skip
    if low is not None and high is not None and not (rating is None or low <= rating <= high):
        return f"its rating {rating} is outside its interval on the ladder's scale [{low}, {high}]"
    return ""


def _check_line(card: dict[str, Any]) -> str:
    """What of the card's line is not its ladder, rating, interval or games ("" if
    nothing)."""
    try:
        prefix = _line_prefix(card)
    except ValueError as error:
        return f"its ladder {card['ladder']!r:.20} of {card['game']!r:.40} has no name ({error})"
    line = card["line"]
    match = _LINE.fullmatch(line[len(prefix) :]) if line.startswith(prefix) else None
    if match is None:
        return f"its line {line!r:.80} is not '{prefix}<rating> [<low>, <high>] (<n> games)'"
    said = match.groupdict()
    written = [said["rating"], said["low"] or said["above"], said["high"] or said["below"]]
    for name, text, value in zip(("rating", "low", "high"), written, _figures(card), strict=True):
        if (text is None) != (value is None) or (
            value is not None and abs(float(text) - value) > LINE_ROUNDING
        ):
            return f"its line {line!r:.80} does not say its {name} {value}"
    if said["games"] != str(card["num_games"]):
        return f"its line {line!r:.80} does not say its {card['num_games']} games"
    return ""


def _line_prefix(card: dict[str, Any]) -> str:
    """``"othello 6x6 ladder v2: "``: the start of the line of the card's ladder
    (:func:`~agents.rating.ladder.ladder_name`, which names the rules of a version after
    the first, against the game's defaults: only a registered game's, never a module a
    card names).

    Raises:
        ValueError: for a later version of a game that is not registered, or rules that
            are not the game's.
    """
    game, version = card["game"], card["ladder"]
    if names_rules(version) and game not in game_names():
        raise ValueError(f"no registered game is named {game!r:.40}")
    return f"{ladder_name(game, version, card['params'])}: "


def _figures(card: dict[str, Any]) -> list[float | None]:
    return [card["rating"], card["low"], card["high"]]

"""Cards side by side: read every ``card.json`` under a folder and rank them per game.

Only cards of the current ladder version (:data:`~agents.rating.ladder.LADDER_VERSION`) and
the same rules as the game's ladder are compared; the others are left out with a note that
says why, as are files that are not cards.

Example:
    >>> board = leaderboard(Path("results"))  # doctest: +SKIP
    >>> board.rows["othello"][0].line
    'othello ladder v1: 1432 [1380, 1484] (200 games)'
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.rating.ladder import LADDER_VERSION, game_params, load_ladder
from agents.rating.rate import BENCHMARK

__all__ = ["CARD_FILE", "MAX_CARDS", "Leaderboard", "Row", "leaderboard", "read_card"]

CARD_FILE = "card.json"
MAX_CARDS = 10_000
"""The most cards a leaderboard reads (a folder may hold any number of files)."""
MAX_CARD_BYTES = 1 << 20


@dataclass(frozen=True)
class Row:
    """One rating on a leaderboard.

    Attributes:
        spec: the rated agent.
        rating: its rating (None: every game won or lost, see ``low``/``high``).
        low, high: the 95% interval (None: unbounded on that side).
        num_games: games behind it.
        line: the quotable line.
        path: the card's path, relative to the folder read.
        date: the card's date.
    """

    spec: str
    rating: float | None
    low: float | None
    high: float | None
    num_games: int
    line: str
    path: str
    date: str

    @property
    def sort_key(self) -> float:
        """Where the row ranks: its rating, or the bound it has."""
        for value in (self.rating, self.low, self.high):
            if value is not None:
                return value
        return float("-inf")


@dataclass
class Leaderboard:
    """The cards under a folder, per game, best first, and the ones left out.

    Attributes:
        rows: game -> its rows, best first.
        notes: one line per file left out, saying why.
    """

    rows: dict[str, list[Row]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def read_card(path: Path) -> dict[str, Any]:
    """A card file's fields, checked to be a card of the current ladder of its game.

    Raises:
        ValueError: for a file that is not a card, or a card of another ladder version or
            other rules than its game's ladder.
    """
    try:
        if path.stat().st_size > MAX_CARD_BYTES:
            raise ValueError(f"larger than {MAX_CARD_BYTES} bytes")
        card = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"not a card: {error}") from None
    if not isinstance(card, dict) or card.get("benchmark") != BENCHMARK:
        raise ValueError(f"not a card of the {BENCHMARK}")
    if card.get("ladder") != LADDER_VERSION:
        raise ValueError(
            f"a card of ladder {card.get('ladder')!r}; only {LADDER_VERSION} cards are compared"
        )
    try:
        ladder = load_ladder(str(card.get("game")))
    except ValueError as error:
        raise ValueError(str(error)) from None
    if card.get("params") != game_params(ladder.game, ladder.params):
        raise ValueError(f"played by other rules than the {ladder.name}: {card.get('params')}")
    for key, kind in (("spec", str), ("line", str), ("num_games", int), ("date", str)):
        if not isinstance(card.get(key), kind):
            raise ValueError(f"its {key!r} is not a {kind.__name__}")
    for key in ("rating", "low", "high"):
        if card.get(key) is not None and not isinstance(card[key], int | float):
            raise ValueError(f"its {key!r} is not a number")
    return card


def leaderboard(root: Path) -> Leaderboard:
    """Every card under ``root`` (at most :data:`MAX_CARDS`, links not followed), per game."""
    board = Leaderboard()
    for path in _card_paths(root):
        relative = str(path.relative_to(root))
        try:
            card = read_card(path)
        except ValueError as error:
            board.notes.append(f"{relative}: left out, {error}")
            continue
        board.rows.setdefault(card["game"], []).append(Row(
            card["spec"], card["rating"], card["low"], card["high"], card["num_games"],
            card["line"], relative, card["date"],
        ))
    for rows in board.rows.values():
        rows.sort(key=lambda row: (-row.sort_key, row.spec))
    return board


def _card_paths(root: Path) -> list[Path]:
    paths = []
    for folder, _, files in os.walk(root):  # os.walk follows no link to a folder
        if CARD_FILE in files and not Path(folder, CARD_FILE).is_symlink():
            paths.append(Path(folder, CARD_FILE))
            if len(paths) >= MAX_CARDS:
                break
    return sorted(paths)

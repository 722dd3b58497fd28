"""What the page draws, as JSON: a position after each action, a recorded game, a tournament.

A *frame* is one position of a game with what the page needs to draw it: the game's own
:meth:`~trap_env.game.Game.describe` (whose ``grid``, :mod:`trap_env.grid`, the page's
generic board draws, ``static/boards.js``), its *board* (the game's name and the last
decision's action, which the board marks where its grid's click puts it), the legal
actions, the action that led to it, a chance node's outcome odds when its outcomes are
clicks on the grid and then where chance landed (Trap!: a throw's landing odds and the
landing cell), and the outcome once the game is over. Frames are built one per action, so
that the page steps through moves, throws and landings alike. Nothing here knows a game:
each is reached through :mod:`trap_env.games`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agents.arena.record_rules import record_params
from agents.arena.replays import MAX_REPLAY_BOARD_SIZE, replay_record
from agents.arena.results import ResultsError, check_record, read_results, record_game
from agents.arena.stats import elo_ratings, summarize_pairings, wilson_interval
from agents.folder_walk import find_files, shown_path
from trap_env.game import Game, Outcome, played_params
from trap_env.games import game_names, get_game
from trap_env.grid import click_targets

__all__ = [
    "MAX_BOARD_SIZE",
    "MAX_LISTED_FOLDERS",
    "MAX_RECORD_ACTIONS",
    "RESULTS_FILE",
    "Frame",
    "FrameBuilder",
    "chance_odds",
    "decision_odds",
    "outcome_view",
    "read_records",
    "record_frames",
    "record_outcome",
    "record_rules",
    "results_folders",
    "results_path",
    "standings",
]

Frame = dict[str, Any]
MAX_BOARD_SIZE = min(16, MAX_REPLAY_BOARD_SIZE)
"""The largest board the page plays or replays on (never one that a replay refuses)."""
_RULE_FIELDS = ("board_size", "decay")
"""A record's own fields that are also rule parameters (Trap!'s rules are these)."""
MAX_RECORD_ACTIONS = 20_000
"""The most actions of a record the page replays (a 16x16 game of Trap! has about 3,000)."""
RESULTS_FILE = "results.jsonl"
"""The results file a tournament's folder holds (``trap-tournament --output FOLDER``)."""
MAX_LISTED_FOLDERS = 200
"""The most results folders the page lists."""


class FrameBuilder:
    """Frames of one game, one per action, from its actions as they come.

    Args:
        game: the game's name.
        params: its rule parameters.
        max_turns: the turn limit (for the outcome of a cut game).
    """

    def __init__(self, game: str, params: dict[str, Any], max_turns: int | None = None) -> None:
        self.rules: Game[Any, Any] = get_game(game)
        self.max_turns = max_turns
        self.state = self.rules.initial_state(self.rules.make_config(**params))
        self.num_actions = 0
        self.decision = -1  # every chance node follows a decision
        self.last_chance: list[int] | None = None
        self.frames: list[Frame] = [self._frame(None, None, None)]

    @property
    def last_move(self) -> int | None:
        """The last decision's action; None before the first."""
        return None if self.decision < 0 else self.decision

    def follow(self, actions: Sequence[int]) -> list[Frame]:
        """Apply the actions past those already followed; the new frames."""
        new: list[Frame] = []
        for action in actions[self.num_actions :]:
            before = self.state
            actor: int | str
            self.state = self.rules.apply(before, action)
            self.num_actions += 1
            if self.rules.is_chance(before):
                # Where the page showed the odds on the grid, it shows the landing too.
                shown = (new or self.frames)[-1]["odds"] is not None
                self.last_chance = [self.decision, action] if shown else None
                actor = "chance"
            else:
                self.decision, actor = action, self.rules.current_player(before)
            text = self.rules.action_to_text(before, action)
            new.append(self._frame(text, actor, self.rules.decision_name(before)))
        self.frames += new
        return new

    def _frame(self, action: str | None, actor: int | str | None, did: str | None) -> Frame:
        rules, state = self.rules, self.state
        outcome = rules.outcome(state, self.max_turns)
        position = dict(rules.describe(state))
        return {
            "index": self.num_actions,
            "position": position,
            "board": {"game": rules.name, "last": self.last_move},
            "text": rules.render_text(state),
            "turn": rules.turn(state),
            "action": action,
            "actor": actor,
            "did": did,
            "to_act": None if outcome or rules.is_chance(state) else rules.current_player(state),
            "decision": rules.decision_name(state),
            "legal": [] if outcome else rules.legal_actions(state),
            "odds": _cell_odds(chance_odds(rules, state), position),
            "last_chance": self.last_chance,
            "outcome": None if outcome is None else outcome_view(outcome),
        }


def _cell_odds(
    odds: list[list[float]] | None, position: Mapping[str, Any]
) -> list[list[float]] | None:
    """A chance node's odds if its outcomes are clicks on the position's grid (Trap!'s
    landing cells, a column game's columns), for the page to show; None otherwise
    (Colosseum's start numbers, a game without a grid)."""
    if odds is None:
        return None
    return odds if _on_grid((int(outcome) for outcome, _ in odds), position) else None


def _on_grid(actions: Iterable[int], position: Mapping[str, Any]) -> bool:
    """Whether each of ``actions`` is a click on the position's grid."""
    grid = position.get("grid")
    if not isinstance(grid, Mapping):
        return False
    targets = click_targets(grid)
    return all(action in targets for action in actions)


def outcome_view(outcome: Outcome, detail: str = "") -> dict[str, Any]:
    """An outcome as the page shows it: the winner (None: a draw), the reason, the detail."""
    return {"winner": outcome.winner, "reason": outcome.reason, "detail": detail}


def record_outcome(record: dict[str, Any]) -> dict[str, Any]:
    """A record's outcome as the page shows it (a fault's, too: the rules do not know it)."""
    winner = None if record["winner"] < 0 else record["winner"]
    return {"winner": winner, "reason": record["reason"], "detail": record.get("detail", "")}


def chance_odds(rules: Game[Any, Any], state: Any) -> list[list[float]] | None:
    """A chance node's ``[outcome, probability]`` pairs; None at a decision."""
    if not rules.is_chance(state):
        return None
    return [[outcome, probability] for outcome, probability in rules.chance_outcomes(state)]


def decision_odds(rules: Game[Any, Any], state: Any) -> dict[int, list[list[float]]]:
    """For each legal decision that leads to a chance node, that node's odds (Trap!: each
    throw target's landing odds), for the page to show before the choice."""
    if not rules.has_chance or rules.outcome(state) is not None or rules.is_chance(state):
        return {}
    odds = {}
    for action in rules.legal_actions(state):
        after = chance_odds(rules, rules.apply(state, action))
        if after is not None:
            odds[action] = after
    return odds


def record_frames(record: Any, allow_paths: bool | Collection[str] = False) -> dict[str, Any]:
    """A recorded game as frames, after checking it as ``trap-play --replay`` does.

    A record naming its game by a path is read only when ``allow_paths`` allows that path
    (any: a page run with ``--allow-exec``; these: the page's ``--game``), which imports it.

    Raises:
        ValueError: naming what is wrong with the record (its shape, fields that
            contradict each other, a board the page does not show, or its actions and
            outcome under its rules).
    """
    readable = [*game_names(), *([] if isinstance(allow_paths, bool) else allow_paths)]
    if isinstance(record, dict) and allow_paths is not True and record_game(record) not in readable:
        # A game's path would import its module: only the paths allowed are read.
        raise ValueError(f"'game' must be one of {', '.join(readable)}")
    check_record(record, allow_paths=allow_paths)
    params = record_rules(record)
    if len(record["actions"]) > MAX_RECORD_ACTIONS:
        raise ValueError(f"the page replays games of up to {MAX_RECORD_ACTIONS} actions")
    replay_record(record, allow_paths=allow_paths)
    builder = FrameBuilder(record_game(record), params, record["max_turns"])
    builder.follow(record["actions"])
    _check_scores(record, builder.rules.scores(builder.state))
    builder.frames[-1]["outcome"] = record_outcome(record)
    return {
        "game": record_game(record),
        "seats": record.get("seats", ["seat 0", "seat 1"]),
        "frames": builder.frames,
    }


def record_rules(record: dict[str, Any]) -> dict[str, Any]:
    """The rule parameters a (shape-checked) record is replayed with, once its fields agree
    with each other and its game takes them on a board the page shows.

    Raises:
        ValueError: for a rule written twice with two values (``board_size`` and
            ``rules.board_size``), a board over :data:`MAX_BOARD_SIZE`, or rules that the
            record's game refuses (``make_config``).
    """
    written = [(name, record[name]) for name in _RULE_FIELDS if name in record]
    rules = record.get("rules", {})
    for name, value in written:
        if name in rules and rules[name] != value:
            raise _contradiction(name, value, rules[name])
    params = record_params(record)
    size = params.get("board_size")
    if size is not None and not (isinstance(size, int) and size <= MAX_BOARD_SIZE):
        raise ValueError(
            f"the page shows boards up to {MAX_BOARD_SIZE}x{MAX_BOARD_SIZE}, not {size!r:.20}"
        )
    game = get_game(record_game(record))
    try:
        played = played_params(game, params)
    except TypeError as error:
        raise ValueError(str(error)) from None
    for name, value in [*written, *rules.items()]:
        if name not in played:
            raise ValueError(f"the record gives {name}, a rule {record_game(record)} does not have")
        if played[name] != value:
            raise _contradiction(name, value, played[name])
    return params


def _contradiction(name: str, value: object, other: object) -> ValueError:
    return ValueError(
        f"the record's fields contradict each other: {name} is {value!r:.20} and "
        f"{other!r:.20} (its {name} and its rules' {name} must agree)"
    )


def _check_scores(record: dict[str, Any], scores: dict[str, Any]) -> None:
    """Refuse a record whose ``scores`` are not its final position's (as JSON has them)."""
    if "scores" in record and record["scores"] != json.loads(json.dumps(scores)):
        raise ValueError(
            f"the record's scores {record['scores']!r:.60} are not its actions' {scores!r:.60}"
        )


def results_folders(root: Path) -> dict[str, Any]:
    """The folders under ``root`` that hold a results file (at most
    :data:`MAX_LISTED_FOLDERS`), and a note for each thing passed over.

    The walk is :func:`agents.folder_walk.find_files`'s (iterative, bounded, no links, only
    regular files). A folder whose name is not UTF-8 is noted with its odd bytes escaped,
    not listed: the page could not name it back.
    """
    found = find_files(root, RESULTS_FILE, MAX_LISTED_FOLDERS)
    folders, notes = [], found.notes
    for path in found.paths:
        folder = str(path.parent.relative_to(root))
        if shown_path(folder) == folder:
            folders.append(folder)
        else:
            notes.append(f"{shown_path(folder)}: not listed, its name is not UTF-8 (rename it)")
    if found.num_left:
        notes.append(f"{found.num_left} results files past the first {MAX_LISTED_FOLDERS} "
                     "are not listed")  # fmt: skip
    return {"root": shown_path(root), "folders": sorted(folders), "notes": notes}


def results_path(root: Path, folder: str) -> Path:
    """The results file of ``folder``, a path under ``root`` (the folder, or its file).

    Raises:
        ValueError: for a path outside ``root`` or one that does not exist.
    """
    base = root.resolve()
    try:
        path = (base / folder).resolve()
        inside = path.is_relative_to(base)
        if inside and path.is_dir():
            path = path / RESULTS_FILE
        exists = inside and path.is_file()
    except OSError as error:  # a name longer than the system takes, say
        raise ValueError(
            f"{folder[:80]!r} is not a folder under the results root: {error.strerror}"
        ) from None
    if not inside:
        raise ValueError(f"{folder!r} is outside the results root; give a folder under it")
    if not exists:
        raise ValueError(f"no results file {str(path.relative_to(base))!r} under the results root")
    return path


def read_records(
    path: Path, allow_paths: bool | tuple[str, ...] = False
) -> list[dict[str, Any]]:
    """The complete records of a results file (a line being written is left out); read
    again only when the file has changed. A record naming its game by a path is read
    only when ``allow_paths`` allows it (as :func:`record_frames`), which imports that path.

    Raises:
        ValueError: for a file that cannot be read or a line that is not a record.
    """
    try:
        stat = path.stat()
        return _read_records(path, stat.st_mtime_ns, stat.st_size, allow_paths)
    except OSError as error:
        raise ValueError(f"cannot read {path.name}: {error.strerror or error}") from None
    except ResultsError as error:
        raise ValueError(str(error)) from None


@functools.lru_cache(maxsize=8)
def _read_records(
    path: Path, mtime_ns: int, size: int, allow_paths: bool | tuple[str, ...]
) -> list[dict[str, Any]]:
    """The records of ``path`` as it was at ``mtime_ns`` and ``size`` (the cache's key)."""
    return read_results(path, allow_paths=allow_paths).records


def standings(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Each game's standings apart (an agent of one game is not the same player in another),
    its rows marked with the game: per agent, games, wins, draws, losses, score rate with
    its 95% interval, Elo; per pairing the first agent's results; agents by Elo, best first."""
    by_game: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_game.setdefault(record_game(record), []).append(record)
    agents, pairings = [], []
    for game, played in by_game.items():
        table = _standings(played)
        agents += [{"game": game, **row} for row in table["agents"]]
        pairings += [{"game": game, **row} for row in table["pairings"]]
    return {"games": len(records), "game_names": list(by_game), "agents": agents,
            "pairings": pairings}  # fmt: skip


def _standings(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The standings of the games of one game."""
    ratings = elo_ratings(records)
    rows: dict[str, list[int]] = {spec: [0, 0, 0] for spec in ratings}
    pairings = []
    for summary in summarize_pairings(records):
        wins, draws, losses = summary.results
        rows[summary.first] = [
            a + b for a, b in zip(rows[summary.first], summary.results, strict=True)
        ]
        rows[summary.second] = [
            a + b for a, b in zip(rows[summary.second], [losses, draws, wins], strict=True)
        ]
        low, high = summary.interval
        pairings.append({"first": summary.first, "second": summary.second,
                         "results": summary.results, "rate": summary.win_rate,
                         "interval": [low, high]})  # fmt: skip
    agents = []
    for spec in sorted(ratings, key=ratings.__getitem__, reverse=True):
        wins, draws, losses = rows[spec]
        games = wins + draws + losses
        score = wins + draws / 2
        agents.append({"spec": spec, "games": games, "results": rows[spec],
                       "rate": score / games if games else 0.0,
                       "interval": list(wilson_interval(score, games)),
                       "elo": ratings[spec]})  # fmt: skip
    return {"agents": agents, "pairings": pairings}

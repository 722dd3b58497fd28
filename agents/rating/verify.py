"""Check a rating or comparison card (or a ladder) against its games: make it afresh from
``results.jsonl`` and compare.

A rating folder holds the card (``card.json``) and the games it was computed from
(``results.jsonl``). :func:`verify_card` reads both with the package's strict readers,
replays every game to its recorded outcome, makes the card afresh from the games with the
ladder the card names (by its identity), its interval by the card's own method (an older
card's likelihood ratio too), and returns every field that differs: none for a card that
its games give. A field the card does not have, one added to its format after it was
written (``scale_low`` and ``scale_high``), is not compared, nor is what describes the run
rather than its games (the package's version and commit, the date, the software and the
machine). A comparison's card
(:mod:`agents.rating.comparison`) is checked the same way: its games must be the pairs of
its specs on its ladder's openings, and its test is walked afresh over them.
:func:`verify_ladder` does the same for a calibrated ladder and its calibration's games
(the ratings, and the covariance a later version publishes).

Example:
    >>> verify_card(Path("results/rate/trap-greedy"))  # doctest: +SKIP
    []
"""

from __future__ import annotations

import json
import re
from dataclasses import fields
from pathlib import Path
from typing import Any

from agents.arena.plan import GameTask
from agents.arena.replays import replay_record
from agents.arena.results import Record, read_results
from agents.folder_walk import read_regular_file
from agents.json_schema import parse_json
from agents.rating.calibrate import calibration_records
from agents.rating.card_format import Provenance, check_card
from agents.rating.cards import MAX_CARD_BYTES, card_ladder, ladders_by_identity, read_card
from agents.rating.comparison import SprtTest, comparison_tasks, walk_of_records
from agents.rating.comparison import make_card as make_comparison_card
from agents.rating.estimate import LIKELIHOOD_RATIO, METHOD, METHODS
from agents.rating.fit import fit_calibration
from agents.rating.ladder import Ladder, load_ladder
from agents.rating.run import (
    DEFAULT_CPU_CAP,
    make_card,
    policy_score,
    round_tasks,
    schedule_round,
)
from agents.rating.run_folder import CARD_FILE, RESULTS_FILE
from agents.rating.schedule import calibration_games

__all__ = ["LADDER_FILE", "NOT_COMPARED", "verify_card", "verify_ladder"]

LADDER_FILE = "ladder.json"
"""The ladder a calibration writes into its folder (``trap-rate --calibrate``)."""

NOT_COMPARED = tuple(field.name for field in fields(Provenance))
"""The card's fields that describe the run, not its games: a card made again differs there."""


def verify_card(folder: Path, ladder_file: Path | None = None) -> list[str]:
    """What of ``folder``'s card its games do not give: one line per field that differs
    (and per game that does not replay); empty when they agree.

    Args:
        folder: a rating's or a comparison's folder (``card.json`` and ``results.jsonl``).
        ladder_file: the ladder's file, for a card of a ladder that is not shipped (its
            identity must be the card's).

    Raises:
        ValueError: for a card or results file that cannot be read or is not one, or a
            ladder that is not found or is not the card's.
    """
    if _is_comparison(folder / CARD_FILE):
        return _verify_comparison(folder, ladder_file)
    try:
        card = read_card(folder / CARD_FILE)
    except ValueError as error:  # the reader's message names no file: a leaderboard's does
        raise ValueError(f"{folder / CARD_FILE}: {error}") from None
    records = _games(folder)
    ladder = _ladder(card, ladder_file)
    foreign = [record["game_id"] for record in records if not _is_rating_game(
        record, card["spec"], ladder
    )]  # fmt: skip
    if foreign:
        return [f"game {foreign[0]!r} is not the card's spec against a rung of the {ladder.name}"]
    schedule = _schedule_problem(ladder, card["spec"], card.get("seed", 0), records)
    if schedule:
        return [schedule]
    problems = [problem for record in records if (problem := _replay_problem(record))]
    remade = json.loads(make_card(
        ladder, card["spec"], card.get("seed", 0), records,
        cpu_cap=card.get("cpu_cap", DEFAULT_CPU_CAP), files=card.get("files", {}),
        method=_method(card),
    ).to_json())  # fmt: skip
    return problems + [
        f"{key}: the card says {_shown(card[key])}, its games give {_shown(value)}"
        for key, value in remade.items()
        if key in card and key not in NOT_COMPARED and card[key] != value
    ]


def _is_comparison(path: Path) -> bool:
    """Whether ``path`` holds a card of kind ``"comparison"`` (a file that is no card is
    left to the rating card's reader to refuse)."""
    try:
        card = parse_json(read_regular_file(path, MAX_CARD_BYTES))
    except (OSError, ValueError):
        return False
    return isinstance(card, dict) and card.get("kind") == "comparison"


def _verify_comparison(folder: Path, ladder_file: Path | None) -> list[str]:
    """:func:`verify_card` for a comparison's card: its games must be its pairs on its
    ladder's openings, replay, and walk the test to the card's fields."""
    card = parse_json(read_regular_file(folder / CARD_FILE, MAX_CARD_BYTES))
    try:
        check_card(card)
    except ValueError as error:
        raise ValueError(f"{folder / CARD_FILE}: {error}") from None
    records = _games(folder)
    ladder = _ladder(card, ladder_file)
    pairs = len(records) // 2
    tasks = comparison_tasks(ladder, card["a"], card["b"], card["seed"], range(pairs))
    expected = {task.game_id: task for task in tasks}
    by_id = {record["game_id"]: record for record in records}
    for game_id, task in expected.items():
        record = by_id.get(game_id)
        if record is None or (record["seed"], record["seats"]) != (task.seed, list(task.seats)):
            return [f"game {game_id!r} of a comparison of {card['b']!r} with {card['a']!r} "
                    "is not among its games (or has another seed or seats)"]  # fmt: skip
    if len(by_id) != len(expected):
        return [f"its games hold {len(records) - len(expected)} that are not its pairs'"]
    problems = [problem for record in records if (problem := _replay_problem(record))]
    test = SprtTest(card["elo0"], card["elo1"], card["alpha"], card["beta"], card["max_games"])
    walk = walk_of_records(test, records)
    if walk.decision is None:
        return [*problems, f"its {len(records)} games end before the test decides"]
    remade = json.loads(make_comparison_card(ladder, card, walk, cpu_cap=card["cpu_cap"]).to_json())
    return problems + [
        f"{key}: the card says {_shown(card[key])}, its games give {_shown(value)}"
        for key, value in remade.items()
        if key not in NOT_COMPARED and card[key] != value
    ]


def verify_ladder(folder: Path, ladder_file: Path | None = None) -> list[str]:
    """What of a calibrated ladder its calibration's games (``folder/results.jsonl``, or
    packed: :func:`~agents.rating.calibrate.calibration_records`) do not give: one line per
    rung whose rating differs, for a covariance that differs (and per game that is missing,
    not the calibration's, or does not replay); empty when they agree.

    The schedule is played again over the games (:func:`~agents.rating.schedule.calibration_games`):
    each stage's games must be there, with their seeds, and no other.

    Args:
        folder: a calibration's folder.
        ladder_file: the ladder (default ``folder/ladder.json``).

    Raises:
        ValueError: for a ladder or results file that cannot be read or is not one.
    """
    path = ladder_file or folder / LADDER_FILE
    ladder = load_ladder(_game_named(path), path)
    by_id = {record["game_id"]: record for record in calibration_records(folder)}
    try:
        records = calibration_games(ladder, lambda tasks: [_recorded(by_id, task, ladder)
                                                           for task in tasks])  # fmt: skip
    except ValueError as error:
        return [str(error)]
    if len(by_id) != len(records):
        return [f"its games hold {len(by_id) - len(records)} that are not the calibration's"]
    problems = [problem for record in records if (problem := _replay_problem(record))]
    try:
        ratings, covariance = fit_calibration(ladder, records)
    except ValueError as error:
        return [*problems, f"its games give no ratings: {error}"]
    remade = ladder.with_ratings(ratings, ladder.calibration, covariance)
    problems += [
        f"rung {rung.spec!r}: the ladder says {rung.rating}, its games give {remade_rung.rating}"
        for rung, remade_rung in zip(ladder.rungs, remade.rungs, strict=True)
        if rung.rating != remade_rung.rating
    ]
    if ladder.covariance != remade.covariance:
        problems.append("covariance: the ladder's is not the one its games give")
    if ladder.calibration.num_games and ladder.calibration.num_games != len(records):
        problems.append(
            f"calibration.num_games: the ladder says {ladder.calibration.num_games}, its "
            f"games are {len(records)}"
        )
    return problems


def _recorded(by_id: dict[str, Record], task: GameTask, ladder: Ladder) -> Record:
    """The recorded game of ``task``.

    Raises:
        ValueError: for a game that is not there, or has another seed or pairing.
    """
    record = by_id.get(task.game_id)
    if record is None or (record["seed"], record["pairing"]) != (task.seed, list(task.pairing)):
        raise ValueError(f"game {task.game_id!r} of the {ladder.name}'s calibration is not "
                         "among its games (or has another seed or pairing)")  # fmt: skip
    return record


def _game_named(path: Path) -> str:
    """The game a ladder file names (the reader then checks the whole file against it)."""
    try:
        game = json.loads(path.read_bytes()).get("game")
    except (OSError, ValueError, AttributeError):
        game = None
    if not isinstance(game, str):  # the reader says what is wrong with the file
        game = "trap"
    return game


def _games(folder: Path) -> list[Record]:
    """The game records of ``folder/results.jsonl``, read strictly."""
    try:
        results = read_results(folder / RESULTS_FILE)
    except OSError as error:
        raise ValueError(f"{folder / RESULTS_FILE}: cannot be read: {error.strerror}") from None
    if results.torn_tail is not None:
        raise ValueError(f"{folder / RESULTS_FILE} ends in an unfinished line: not a finished run")
    return results.records


def _ladder(card: dict[str, Any], ladder_file: Path | None) -> Ladder:
    """The ladder the card was made on: the shipped one of its identity, or ``ladder_file``."""
    if ladder_file is not None:
        ladder = load_ladder(card["game"], ladder_file)
        if ladder.identity != card.get("ladder_sha256"):
            raise ValueError(f"{ladder_file} is not the ladder the card was made on (its "
                             "identity is not the card's ladder_sha256)")  # fmt: skip
        return ladder
    if card.get("kind") == "comparison":  # it names its ladder by identity only
        found = ladders_by_identity().get(card["ladder_sha256"])
    else:
        found = card_ladder(card, ladders_by_identity())
    if found is None:
        raise ValueError(
            "the card was made on a ladder that is not shipped; give its file with --ladder"
        )
    return found


def _method(card: dict[str, Any]) -> str:
    """The method of the card's interval: its own when this code makes it (an older card's
    too), :data:`~agents.rating.estimate.LIKELIHOOD_RATIO` for a card of format 1 (which
    names none), the current one otherwise (so that the difference is reported)."""
    interval = card.get("interval")
    if interval is None:
        return LIKELIHOOD_RATIO
    method = interval.get("method") if isinstance(interval, dict) else None
    return method if method in METHODS else METHOD


def _is_rating_game(record: Record, spec: str, ladder: Ladder) -> bool:
    """Whether ``record`` is a game of ``spec`` against a rung, numbered as a rating's are."""
    pairing = record.get("pairing")
    return (isinstance(pairing, list) and len(pairing) == 2 and pairing[0] == spec
            and pairing[1] in ladder.specs
            and re.fullmatch(rf"{re.escape(pairing[1])} #[0-9]+", record["game_id"]) is not None)


def _schedule_problem(ladder: Ladder, spec: str, seed: int, records: list[Record]) -> str:
    """How ``records`` are not the games a rating of ``spec`` with ``seed`` plays, round by
    round (:func:`~agents.rating.run.schedule_round`), with their seeds ("" if they are)."""
    by_id = {record["game_id"]: record for record in records}
    played: list[Record] = []
    pairs: dict[str, int] = {}
    while len(played) < len(records):
        scores = [(record["pairing"][1], policy_score(record)) for record in played]
        rungs = schedule_round(ladder, scores, len(records) - len(played))
        for task in round_tasks(ladder, spec, seed, rungs, pairs):
            record = by_id.get(task.game_id)
            if record is None or record["seed"] != task.seed:
                return (f"game {task.game_id!r} of a rating with seed {seed} on the "
                        f"{ladder.name} is not among its games (or has another seed)")  # fmt: skip
            played.append(record)
        for rung in rungs:
            pairs[rung] = pairs.get(rung, 0) + 1
    return ""


def _replay_problem(record: Record) -> str:
    """Why the game does not replay to its record ("" if it does)."""
    try:
        replay_record(record)
    except ValueError as error:
        return f"game {record['game_id']!r} does not replay to its record ({error})"
    return ""


def _shown(value: Any) -> str:
    shown = json.dumps(value)
    return shown if len(shown) <= 100 else shown[:97] + "..."

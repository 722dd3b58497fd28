"""Rate a policy against a game's ladder: the games, their schedule, the estimate and the card.

The games are fixed by the ladder, not by the policy: the ``k``-th pair of games against a
rung opens from the seed ``derive_seed(ladder.seed, seed, rung, k)``, once from each seat.
They are played in rounds (:func:`schedule_round`): the first plays one pair against every
rung; each later one plays a pair against each of the :data:`RUNGS_PER_ROUND` rungs rated
nearest the policy's estimate so far. A round depends only on the results of the rounds
before it, so the workers, the backend or a resumed run cannot change which games are
played: a deterministic policy gets the same games and the same rating anywhere.

The rating is the maximum-likelihood estimate against the rungs' fixed ratings
(:func:`agents.rating.estimate.estimate_rating`); the card (:class:`Card`) holds it with
the results per rung, and :func:`rate_spec` writes it as ``card.json`` beside the games'
``results.jsonl``.

A card rates one policy on one ladder: a run records the ladder's identity and the SHA-256
of every file the spec loads (:func:`agents.spec_files.spec_files`) in ``rating.json``,
checks the files before each round and before it records each game, and on ``resume``
refuses another ladder, a changed file, or a game of ``results.jsonl`` that does not
replay to its recorded outcome; the card is always computed afresh from the games.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeGuard

import trap_env
from agents.arena.match import FAULTS, NO_WINNER, derive_seed
from agents.arena.plan import MAX_SECONDS, GameTask, RunConfig
from agents.arena.replays import replay_record
from agents.arena.results import Record, read_results
from agents.arena.tournament import run_games
from agents.files import locked_folder, write_text_atomically
from agents.rating.card_format import (
    CARD_FORMAT,
    check_card,
    code_commit,
    environment,
    machine,
)
from agents.rating.estimate import LEVEL, METHOD, RatingEstimate, estimate_rating
from agents.rating.ladder import Ladder, game_params
from agents.spec_files import file_changes, file_digests, spec_files

__all__ = [
    "BENCHMARK",
    "DEFAULT_CPU_CAP",
    "DEFAULT_GAMES",
    "RUNGS_PER_ROUND",
    "Card",
    "RungResult",
    "card_line",
    "rate_spec",
    "schedule_round",
]

BENCHMARK = "trap_env ladder"
DEFAULT_GAMES = 200
DEFAULT_CPU_CAP = 10.0
"""CPU seconds a player may take per turn before it loses the game by time."""
RUNGS_PER_ROUND = 3
"""Rungs played per round after the first (a pair of games against each)."""

Say = Callable[[str], None]


@dataclass(frozen=True)
class RungResult:
    """The policy's games against one rung, from the policy's side.

    Attributes:
        spec: the rung's spec.
        rating: the rung's rating.
        wins, draws, losses: the games' results.
        faults: the losses that were the policy's faults (time, illegal action, error).
    """

    spec: str
    rating: float
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: int = 0


@dataclass(frozen=True)
class Card:
    """A rating with everything needed to quote, check and reproduce it.

    Its JSON is a card of format :data:`~agents.rating.card_format.CARD_FORMAT`
    (``card.schema.json``), checked against the schema when written.

    Attributes:
        format: the card's format (:data:`~agents.rating.card_format.CARD_FORMAT`).
        kind: ``"rating"``.
        benchmark: :data:`BENCHMARK`.
        ladder: the ladder's version.
        ladder_sha256: the ladder's identity (:attr:`~agents.rating.ladder.Ladder.identity`).
        game: the game.
        params: every rule parameter it was played with.
        spec: the rated policy's spec.
        files: the SHA-256 of each file the spec loads, by path (a model, a network, a
            program, a dotted path's module).
        seed: the openings' seed (0: the ladder's standard games).
        cpu_cap: the CPU seconds per turn past which a player lost the game by time.
        num_games: games played.
        rating: the estimate (None when every game was won or lost).
        low, high: the 95% interval's ends (None: unbounded on that side).
        line: the line to quote.
        opponents: the results per rung.
        version: the package's version.
        commit: the git commit of the code, when run from a checkout.
        date: the day the card was written (ISO).
        environment: the versions of Python, NumPy, Gymnasium and each library the policy
            loaded (:func:`~agents.rating.card_format.environment`).
        machine: the CPU model and a fixed speed figure
            (:func:`~agents.rating.card_format.machine`).
        policy_cpu: the policy's ``mean`` and ``max`` CPU seconds per turn
            (:func:`policy_cpu`).
        interval: the interval's ``level`` and ``method``.
    """

    format: int
    kind: str
    benchmark: str
    ladder: str
    ladder_sha256: str
    game: str
    params: dict[str, Any]
    spec: str
    files: dict[str, str]
    seed: int
    cpu_cap: float
    num_games: int
    rating: float | None
    low: float | None
    high: float | None
    line: str
    opponents: list[RungResult]
    version: str
    commit: str | None
    date: str
    environment: dict[str, str]
    machine: dict[str, Any]
    policy_cpu: dict[str, float]
    interval: dict[str, Any]

    def to_json(self) -> str:
        """The card as JSON."""
        return json.dumps(asdict(self), indent=2) + "\n"


def card_line(ladder: Ladder, estimate: RatingEstimate) -> str:
    """``othello ladder v1: 1432 [1380, 1484] (200 games)``."""
    return f"{ladder.name}: {estimate.describe()} ({estimate.num_games} games)"


def schedule_round(
    ladder: Ladder, scores: Sequence[tuple[str, float]], games_left: int
) -> list[str]:
    """The rungs of the next round: all of them first (weakest first, as many as the games
    left allow), then the ones rated nearest the estimate.

    Args:
        ladder: the ladder.
        scores: ``(rung's spec, the policy's score)`` of every game played so far.
        games_left: games still to play (two per rung in a round).
    """
    by_rating = sorted(ladder.rungs, key=lambda rung: rung.rating)
    if not scores:
        return [rung.spec for rung in by_rating[: max(games_left // 2, 0)]]
    ratings = {rung.spec: rung.rating for rung in ladder.rungs}
    estimate = estimate_rating([(ratings[spec], score) for spec, score in scores])
    target = _target(estimate, [rung.rating for rung in ladder.rungs])
    nearest = sorted(by_rating, key=lambda rung: abs(rung.rating - target))  # ties: weaker
    return [rung.spec for rung in nearest[: min(RUNGS_PER_ROUND, games_left // 2)]]


def _target(estimate: RatingEstimate, ratings: Sequence[float]) -> float:
    """The rating to play near: the estimate, or past the ladder's end for a one-sided one."""
    if estimate.rating is not None:
        return estimate.rating
    return max(ratings) + 1 if estimate.low is not None else min(ratings) - 1


def round_tasks(
    ladder: Ladder, spec: str, seed: int, rungs: Sequence[str], pairs_played: dict[str, int]
) -> list[GameTask]:
    """A pair of games against each rung: the next opening of that rung, from both seats."""
    tasks = []
    for rung in rungs:
        pair = pairs_played.get(rung, 0)
        game_seed = derive_seed(ladder.seed, seed, rung, pair)
        for seat in (0, 1):
            seats = (spec, rung) if seat == 0 else (rung, spec)
            tasks.append(GameTask(f"{rung} #{2 * pair + seat}", (spec, rung), seats, game_seed))
    return tasks


def policy_seat(record: Record) -> int:
    """The policy's seat in a game: it sits in seat 0 of even-numbered games."""
    return int(record["game_id"].rpartition("#")[2]) % 2


def policy_score(record: Record) -> float:
    """The policy's score in a game."""
    seat = policy_seat(record)
    if record["winner"] == NO_WINNER:
        return 0.5
    return 1.0 if record["winner"] == seat else 0.0


def _round_note(ladder: Ladder, records: Sequence[Record], rungs: Sequence[str]) -> str:
    estimate = estimate_of(ladder, records)
    return f"{len(records)} games, last against {', '.join(rungs)}: {estimate.describe()}"


def estimate_of(ladder: Ladder, records: Sequence[Record]) -> RatingEstimate:
    """The policy's rating from its games against the ladder."""
    ratings = {rung.spec: rung.rating for rung in ladder.rungs}
    return estimate_rating(
        [(ratings[record["pairing"][1]], policy_score(record)) for record in records]
    )


def make_card(
    ladder: Ladder,
    spec: str,
    seed: int,
    records: Sequence[Record],
    *,
    cpu_cap: float = DEFAULT_CPU_CAP,
    files: Mapping[str, str] | None = None,
) -> Card:
    """The card of a policy's games against the ladder (``files``: those the spec loads)."""
    estimate = estimate_of(ladder, records)
    return Card(
        format=CARD_FORMAT,
        kind="rating",
        benchmark=BENCHMARK,
        ladder=ladder.version,
        ladder_sha256=ladder.identity,
        game=ladder.game,
        params=game_params(ladder.game, ladder.params),
        spec=spec,
        files=dict(files or {}),
        seed=seed,
        cpu_cap=cpu_cap,
        num_games=len(records),
        rating=_rounded(estimate.rating),
        low=_rounded(estimate.low),
        high=_rounded(estimate.high),
        line=card_line(ladder, estimate),
        opponents=_per_rung(ladder, records),
        version=trap_env.__version__,
        commit=code_commit(),
        date=datetime.date.today().isoformat(),
        environment=environment(),
        machine=machine(),
        policy_cpu=policy_cpu(records),
        interval={"level": LEVEL, "method": METHOD},
    )


def policy_cpu(records: Sequence[Record]) -> dict[str, float]:
    """The policy's CPU seconds per turn in its games: ``mean`` and ``max``.

    A record holds each seat's CPU seconds over the game and its longest turn, and the
    game's turns, not each turn's time: the mean is the policy's CPU over half the games'
    turns (the seats take turns), the max its longest turn.
    """
    spent = sum(record["cpu_time"][policy_seat(record)] for record in records)
    turns = sum(record["turns"] for record in records) / 2
    longest = max((record["max_turn_time"][policy_seat(record)] for record in records),
                  default=0.0)  # fmt: skip
    return {"mean": round(spent / turns, 6) if turns else 0.0, "max": round(longest, 6)}


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _per_rung(ladder: Ladder, records: Sequence[Record]) -> list[RungResult]:
    results = []
    for rung in ladder.rungs:
        games = [record for record in records if record["pairing"][1] == rung.spec]
        scores = [policy_score(record) for record in games]
        faults = sum(
            1 for record, score in zip(games, scores, strict=True)
            if score == 0.0 and record["reason"] in FAULTS
        )
        results.append(RungResult(
            rung.spec, rung.rating, scores.count(1.0), scores.count(0.5), scores.count(0.0),
            faults,
        ))
    return results


RATING_FILE = "rating.json"
CARD_FILE = "card.json"
RESULTS_FILE = "results.jsonl"


def rate_spec(
    ladder: Ladder,
    spec: str,
    output: Path,
    *,
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    cpu_cap: float = DEFAULT_CPU_CAP,
    run_options: dict[str, Any] | None = None,
    resume: bool = False,
    overwrite: bool = False,
    check: bool = True,
    say: Say = print,
) -> Card:
    """Rate ``spec`` against ``ladder``: play ``games`` games round by round, estimate, and
    write ``output/card.json``.

    ``output/results.jsonl`` holds the games (``resume`` keeps those already there) and
    ``output/rating.json`` what the run is (ladder and its identity, spec, seed, games, and
    the SHA-256 of each file the spec loads). The run holds the folder from its first check
    to its card (a second run there is refused) and writes nothing before its checks pass.
    The files are checked before each round and before each game is recorded: a changed
    file stops the run, keeping the games recorded. ``resume`` checks ``rating.json``
    against this run and replays every recorded game against its outcome.

    Args:
        cpu_cap: CPU seconds per turn past which a player loses by time (finite).
        run_options: further :class:`~agents.arena.plan.RunConfig` settings (``workers``,
            ``backend``, ``address``).

    Raises:
        ValueError: for a bad number of games, seed or cap, a bad spec, a folder another
            run holds, a resumed run that is another rating's (or whose files, ladder or
            games changed), a file changed during the run, and what
            :func:`~agents.arena.tournament.run_games` raises (settings, files).
    """
    _check_arguments(games, seed, cpu_cap)
    options = dict(run_options or {})
    if "time_budget" in options:
        raise ValueError("give a rating's CPU cap as cpu_cap=, not as run_options' time_budget")
    config = ladder.run_config(**options, time_budget=cpu_cap)
    files = spec_files(spec, ladder.game)
    run = {"ladder": ladder.name, "ladder_sha256": ladder.identity, "spec": spec,
           "seed": seed, "games": games, "files": files}
    with locked_folder(output, "rating folder"):
        _check_folder(output, run, resume=resume, overwrite=overwrite)
        records = _play_rounds(
            ladder, run, output, config, resume=resume, overwrite=overwrite, check=check, say=say
        )
        card = make_card(ladder, spec, seed, records, cpu_cap=cpu_cap, files=files)
        check_card(json.loads(card.to_json()))  # a card that breaks its schema is a bug here
        write_text_atomically(output / CARD_FILE, card.to_json())
    return card


def _check_arguments(games: object, seed: object, cpu_cap: object) -> None:
    """Refuse a number of games that is not an even integer >= 2, a seed that is not an
    integer, or a CPU cap that is not a finite number of seconds (an infinite one would be
    no cap, and no wall-clock ceiling either)."""
    if not _is_int(games) or games < 2 or games % 2:
        raise ValueError(f"games must be an even integer >= 2 (pairs of seats), got {games!r}")
    if not _is_int(seed):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    is_number = _is_int(cpu_cap) or isinstance(cpu_cap, float)
    # nan and inf fail the comparison: no cap would also lift the wall-clock ceiling
    if not (is_number and 0 < cpu_cap <= MAX_SECONDS):  # type: ignore[operator]
        raise ValueError(
            f"cpu_cap must be CPU seconds per turn, a finite number > 0 and <= "
            f"{MAX_SECONDS:.0f}, got {cpu_cap!r}"
        )


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _play_rounds(
    ladder: Ladder,
    run: dict[str, Any],
    output: Path,
    config: RunConfig,
    *,
    resume: bool,
    overwrite: bool,
    check: bool,
    say: Say,
) -> list[Record]:
    """Play the run's rounds into ``output``; every game's record."""
    spec, seed, games, files = run["spec"], run["seed"], run["games"], run["files"]
    records: list[Record] = []
    pairs: dict[str, int] = {}
    while len(records) < games:
        scores = [(record["pairing"][1], policy_score(record)) for record in records]
        rungs = schedule_round(ladder, scores, games - len(records))
        tasks = round_tasks(ladder, spec, seed, rungs, pairs)
        if not tasks:  # no game would ever be played: the loop would not end
            raise ValueError(f"the {ladder.name} has no rung to play against; a ladder needs one")
        _check_files(files, output)
        first = not records
        played = run_games(
            tasks, output / RESULTS_FILE, config, resume=resume or not first,
            overwrite=overwrite and first, check=check and first, progress=False,
            on_start=(lambda: _claim(output, run)) if first else None,
            before_record=lambda record: _check_files(files, output),
        )
        if len(played) < len(tasks):
            raise ValueError(
                f"{len(tasks) - len(played)} games were left unplayed (the machine stalled "
                "them again and again); run again with --resume"
            )
        records.extend(played)
        for rung in rungs:
            pairs[rung] = pairs.get(rung, 0) + 1
        say(_round_note(ladder, records, rungs))
    return records


def _check_files(files: Mapping[str, str], output: Path) -> None:
    """Stop the run if a file the spec loads is not the one it recorded."""
    changes = file_changes(files, file_digests(files))
    if changes:
        raise ValueError(
            f"{'; '.join(changes)}: a file the rated spec loads changed during the run, which "
            f"stops; the games played before are kept in {output / RESULTS_FILE}: put the "
            "file back and run again with --resume, or rate it afresh with --overwrite"
        )


def _claim(output: Path, run: dict[str, Any]) -> None:
    """Write what the run is (its checks passed); a card of the games before goes."""
    write_text_atomically(output / RATING_FILE, json.dumps(run, indent=2) + "\n")
    (output / CARD_FILE).unlink(missing_ok=True)  # the new card comes with the last game


def _check_folder(output: Path, run: dict[str, Any], *, resume: bool, overwrite: bool) -> None:
    """Check that this run may use ``output``: a new folder, ``overwrite``, or on ``resume``
    the same rating (its description, its files, and games that replay)."""
    path = output / RATING_FILE
    if overwrite and not resume:
        return
    if not resume:
        if path.exists():
            raise ValueError(
                f"{output} holds a rating already; --resume it or --overwrite it, or write "
                "elsewhere"
            )
        return
    results = output / RESULTS_FILE
    games = read_results(results).records if results.exists() else []
    if path.exists():
        _check_same_run(path, run)
    elif games:
        raise ValueError(
            f"{output} holds games but no {RATING_FILE}: they are not a rating's (a "
            "tournament's?); rate elsewhere, or replace them with --overwrite"
        )
    _check_replays(results, games)


def _check_same_run(path: Path, run: dict[str, Any]) -> None:
    """Refuse to resume a rating that is not this run: another spec, seed, number of games,
    ladder (by its identity too), or files the spec loads that changed since."""
    try:
        before = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"{path} is not a rating's description: {error}") from None
    if not isinstance(before, dict):
        raise ValueError(
            f"{path} is not a rating's description (a JSON object), it holds a "
            f"{type(before).__name__}; remove it, or write elsewhere"
        )
    for key, value in run.items():
        if key != "files" and before.get(key) != value:
            raise ValueError(
                f"{path.parent} holds a rating with {key} {before.get(key)!r}, this one "
                f"has {value!r}; resume with the same arguments or write elsewhere"
            )
    recorded = before.get("files")
    changes = file_changes(recorded if isinstance(recorded, dict) else {}, run["files"])
    if changes:
        raise ValueError(
            f"cannot resume {path.parent}: the files the rated spec loads are not those its "
            f"games were played with ({'; '.join(changes)}); put them back, or rate afresh "
            "with --overwrite or elsewhere"
        )


def _check_replays(results: Path, games: Sequence[Record]) -> None:
    """Replay every recorded game: its actions (chance outcomes included) must lead to its
    winner, reason and turns, and a fault to a live position with the faulting seat to act.

    Raises:
        ValueError: naming the first game that does not replay.
    """
    for record in games:
        try:
            replay_record(record)
        except ValueError as error:
            raise ValueError(
                f"{results}: game {record['game_id']!r} does not replay to its record "
                f"({error}); the file was edited or damaged: restore it, or rate afresh with "
                "--overwrite"
            ) from None

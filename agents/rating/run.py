"""Rate a policy against a game's ladder: the games, their schedule, the estimate and the card.

The games are fixed by the ladder, not by the policy: the ``k``-th pair of games against a
rung opens from the seed ``derive_seed(ladder.seed, seed, rung, k)``, once from each seat.
They are played in rounds (:func:`schedule_round`), by one pool of workers and into one
results file for the whole rating: the first plays one pair against every
rung; each later one plays a pair against each of the :data:`RUNGS_PER_ROUND` rungs rated
nearest the policy's estimate so far. A round depends only on the results of the rounds
before it, so the workers, the backend or a resumed run cannot change which games are
played: a deterministic policy gets the same games and the same rating anywhere.

The rating is the maximum-likelihood estimate against the rungs' published ratings
(:func:`agents.rating.estimate.estimate_rating`), its interval counting the games by pair
and the rungs' own uncertainty (:func:`rung_covariance`), and a second interval, the games'
alone on the ladder's scale (its rungs' published ratings exact); the card (:class:`Card`)
holds them with the results per rung, and :func:`rate_spec` writes it as ``card.json``
beside the games' ``results.jsonl``.

A card rates one policy on one ladder: a run records the ladder's identity and the SHA-256
of every file the spec loads (:func:`agents.spec_files.spec_files`) in ``rating.json``,
checks the files before each round and before it records each game, and on ``resume``
refuses another ladder, a changed file, or a game of ``results.jsonl`` that does not
replay to its recorded outcome; the card is always computed afresh from the games.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from agents.arena.match import FAULTS, NO_WINNER, derive_seed
from agents.arena.pairs import pair_groups
from agents.arena.plan import GameTask, RunConfig
from agents.arena.results import Record
from agents.files import locked_folder
from agents.rating.card_format import BaseCard, Provenance, write_card
from agents.rating.estimate import (
    LEVEL,
    METHOD,
    RatingEstimate,
    best_rating,
    describe_interval,
    estimate_rating,
    round_robin_covariance,
)
from agents.rating.ladder import ANCHOR, Ladder, game_params
from agents.rating.run_folder import (
    CARD_FILE,
    check_arguments,
    check_folder,
    play_batches,
)
from agents.spec_files import spec_files

__all__ = [
    "BENCHMARK",
    "DEFAULT_CPU_CAP",
    "DEFAULT_GAMES",
    "RUNGS_PER_ROUND",
    "Card",
    "RungResult",
    "card_line",
    "estimate_of",
    "rate_spec",
    "rung_covariance",
    "scale_line",
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
class Card(BaseCard):
    """A rating with everything needed to quote, check and reproduce it.

    Its JSON is a card of format :data:`~agents.rating.card_format.CARD_FORMAT`
    (``card.schema.json``) and kind ``"rating"``, checked against the schema when written.

    Attributes:
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
        low, high: the 95% interval's ends (None: unbounded on that side): the rating's
            place on the ideal scale, the games' variance and the rungs' covariance added.
        scale_low, scale_high: the 95% interval on the ladder's scale, the games' alone
            with the rungs' published ratings exact, for comparing cards of one ladder
            (None: unbounded on that side; absent from cards written before it).
        line: the line to quote.
        opponents: the results per rung.
        provenance: the package's version and commit, the date, the software and the
            machine (:class:`~agents.rating.card_format.Provenance`).
        policy_cpu: the policy's ``mean`` and ``max`` CPU seconds per turn
            (:func:`policy_cpu`).
        interval: the interval's ``level`` and ``method``.
    """

    kind: ClassVar[str] = "rating"
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
    scale_low: float | None
    scale_high: float | None
    line: str
    opponents: list[RungResult]
    provenance: Provenance
    policy_cpu: dict[str, float]
    interval: dict[str, Any]


def card_line(ladder: Ladder, estimate: RatingEstimate) -> str:
    """``othello ladder v1: 1432 [1380, 1484] (200 games)``."""
    return f"{ladder.name}: {estimate.describe()} ({estimate.num_games} games)"


def scale_line(card: Card) -> str:
    """``on the ladder's scale (its rungs' ratings exact): [1399, 1493]``: the card's
    interval on its ladder's scale, in words (its rating is on the card's line)."""
    return (f"on the ladder's scale (its rungs' ratings exact): "
            f"{describe_interval(card.scale_low, card.scale_high)}")  # fmt: skip


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
    rating = best_rating([(ratings[spec], score) for spec, score in scores])
    # one past the ladder's end for a rating beyond it (or none: every game won or lost)
    target = min(max(rating, by_rating[0].rating - 1), by_rating[-1].rating + 1)
    nearest = sorted(by_rating, key=lambda rung: abs(rung.rating - target))  # ties: weaker
    return [rung.spec for rung in nearest[: min(RUNGS_PER_ROUND, games_left // 2)]]


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


def estimate_of(
    ladder: Ladder, records: Sequence[Record], method: str = METHOD, *, rungs_exact: bool = False
) -> RatingEstimate:
    """The policy's rating from its games against the ladder, its interval made by
    ``method``: by default counting its games by pair and the rungs' covariance
    (:func:`rung_covariance`); with ``rungs_exact``, the games alone, on the ladder's scale
    (the rungs' published ratings exact)."""
    rows = {rung.spec: row for row, rung in enumerate(ladder.rungs)}
    games, pairs, rungs = [], [], []
    for pair, group in enumerate(pair_groups(records)):
        for record in group:
            row = rows[record["pairing"][1]]
            games.append((ladder.rungs[row].rating, policy_score(record)))
            pairs.append(pair)
            rungs.append(row)
    covariance = None if rungs_exact else rung_covariance(ladder)
    return estimate_rating(games, pairs=pairs, rungs=rungs, covariance=covariance, method=method)


def rung_covariance(ladder: Ladder) -> tuple[tuple[float, ...], ...]:
    """The covariance of the rungs' ratings: the ladder's own, or for a ladder that
    publishes none (v1) the one its round robin implies
    (:func:`~agents.rating.estimate.round_robin_covariance` at its ratings, with its games
    per pairing and the fit's virtual draw), a loose anchor for each rung."""
    if ladder.covariance is not None:
        return ladder.covariance
    return round_robin_covariance(
        [rung.rating for rung in ladder.rungs], ladder.calibration.games_per_pairing,
        ladder.specs.index(ANCHOR),
    )  # fmt: skip


def make_card(
    ladder: Ladder,
    spec: str,
    seed: int,
    records: Sequence[Record],
    *,
    cpu_cap: float = DEFAULT_CPU_CAP,
    files: Mapping[str, str] | None = None,
    method: str = METHOD,
) -> Card:
    """The card of a policy's games against the ladder (``files``: those the spec loads;
    ``method``: the interval's, :data:`~agents.rating.estimate.LIKELIHOOD_RATIO` to make an
    old card again)."""
    estimate = estimate_of(ladder, records, method)
    scale = estimate_of(ladder, records, rungs_exact=True)
    return Card(
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
        scale_low=_rounded(scale.low),
        scale_high=_rounded(scale.high),
        line=card_line(ladder, estimate),
        opponents=_per_rung(ladder, records),
        provenance=Provenance.now([spec], ladder.game),
        policy_cpu=policy_cpu(records),
        interval={"level": LEVEL, "method": method},
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
    on_start: Callable[[], None] | None = None,
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
        on_start: called once every check has passed (the arguments, the folder, and each
            spec built once: :func:`~agents.arena.tournament.check_specs`), before the run
            writes anything: where a caller announces it, so that a refusal comes alone.

    Raises:
        ValueError: for a bad number of games, seed or cap, a bad spec, a folder another
            run holds, a resumed run that is another rating's (or whose files, ladder or
            games changed), a file changed during the run, and what
            :func:`~agents.arena.tournament.run_games` raises (settings, files).
    """
    check_arguments(games, seed, cpu_cap)
    options = dict(run_options or {})
    if "time_budget" in options:
        raise ValueError("give a rating's CPU cap as cpu_cap=, not as run_options' time_budget")
    config = ladder.run_config(**options, time_budget=cpu_cap)
    files = spec_files(spec, ladder.game)
    run = {"ladder": ladder.name, "ladder_sha256": ladder.identity, "spec": spec,
           "seed": seed, "games": games, "files": files}
    with locked_folder(output, "rating folder"):
        check_folder(output, run, resume=resume, overwrite=overwrite)
        records = _play_rounds(
            ladder, run, output, config, resume=resume, overwrite=overwrite, check=check,
            say=say, on_start=on_start,
        )
        card = make_card(ladder, spec, seed, records, cpu_cap=cpu_cap, files=files)
        write_card(card, output / CARD_FILE)
    return card


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
    on_start: Callable[[], None] | None,
) -> list[Record]:
    """Play the run's rounds into ``output``, one results file and one pool of workers for
    them all (:func:`~agents.arena.tournament.game_session`); every game's record."""
    records: list[Record] = []
    pairs: dict[str, int] = {}
    rungs, tasks = _next_round(ladder, run, records, pairs)

    def next_tasks(played: list[Record]) -> list[GameTask]:
        nonlocal rungs
        records.extend(played)
        for rung in rungs:
            pairs[rung] = pairs.get(rung, 0) + 1
        say(_round_note(ladder, records, rungs))
        if len(records) >= run["games"]:
            return []
        rungs, tasks = _next_round(ladder, run, records, pairs)
        return tasks

    play_batches(output, run, config, tasks, next_tasks, resume=resume, overwrite=overwrite,
                 check=check, on_start=on_start)  # fmt: skip
    return records


def _next_round(
    ladder: Ladder, run: dict[str, Any], records: Sequence[Record], pairs: dict[str, int]
) -> tuple[list[str], list[GameTask]]:
    """The rungs of the run's next round (:func:`schedule_round`) and its games.

    Raises:
        ValueError: for a round without a game (the loop would never end).
    """
    scores = [(record["pairing"][1], policy_score(record)) for record in records]
    rungs = schedule_round(ladder, scores, run["games"] - len(records))
    tasks = round_tasks(ladder, run["spec"], run["seed"], rungs, pairs)
    if not tasks:
        raise ValueError(f"the {ladder.name} has no rung to play against; a ladder needs one")
    return rungs, tasks



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
"""

from __future__ import annotations

import datetime
import json
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import trap_env
from agents.arena.match import FAULTS, NO_WINNER, derive_seed
from agents.arena.plan import GameTask
from agents.arena.results import Record
from agents.arena.tournament import run_games
from agents.files import write_text_atomically
from agents.rating.estimate import RatingEstimate, estimate_rating
from agents.rating.ladder import Ladder, game_params

__all__ = [
    "BENCHMARK",
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

    Attributes:
        benchmark: :data:`BENCHMARK`.
        ladder: the ladder's version.
        ladder_sha256: the ladder's identity (:attr:`~agents.rating.ladder.Ladder.identity`).
        game: the game.
        params: every rule parameter it was played with.
        spec: the rated policy's spec.
        seed: the openings' seed (0: the ladder's standard games).
        num_games: games played.
        rating: the estimate (None when every game was won or lost).
        low, high: the 95% interval's ends (None: unbounded on that side).
        line: the line to quote.
        opponents: the results per rung.
        version: the package's version.
        commit: the git commit of the code, when run from a checkout.
        date: the day the card was written (ISO).
    """

    benchmark: str
    ladder: str
    ladder_sha256: str
    game: str
    params: dict[str, Any]
    spec: str
    seed: int
    num_games: int
    rating: float | None
    low: float | None
    high: float | None
    line: str
    opponents: list[RungResult]
    version: str
    commit: str | None
    date: str

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


def policy_score(record: Record) -> float:
    """The policy's score in a game: it sits in seat 0 of even-numbered games."""
    seat = int(record["game_id"].rpartition("#")[2]) % 2
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


def make_card(ladder: Ladder, spec: str, seed: int, records: Sequence[Record]) -> Card:
    """The card of a policy's games against the ladder."""
    estimate = estimate_of(ladder, records)
    return Card(
        benchmark=BENCHMARK,
        ladder=ladder.version,
        ladder_sha256=ladder.identity,
        game=ladder.game,
        params=game_params(ladder.game, ladder.params),
        spec=spec,
        seed=seed,
        num_games=len(records),
        rating=_rounded(estimate.rating),
        low=_rounded(estimate.low),
        high=_rounded(estimate.high),
        line=card_line(ladder, estimate),
        opponents=_per_rung(ladder, records),
        version=trap_env.__version__,
        commit=_commit(),
        date=datetime.date.today().isoformat(),
    )


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


def _commit() -> str | None:
    """The git commit of the package's checkout, if it is one (None for an installed wheel)."""
    root = Path(trap_env.__file__).resolve().parent.parent
    if not (root / ".git").exists():  # an installed package (perhaps inside someone's repo)
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
            timeout=10, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and len(commit) == 40 else None


def rate_spec(
    ladder: Ladder,
    spec: str,
    output: Path,
    *,
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    run_options: dict[str, Any] | None = None,
    resume: bool = False,
    overwrite: bool = False,
    check: bool = True,
    say: Say = print,
) -> Card:
    """Rate ``spec`` against ``ladder``: play ``games`` games round by round, estimate, and
    write ``output/card.json``.

    ``output/results.jsonl`` holds the games (``resume`` keeps those already there) and
    ``output/rating.json`` what the run is (ladder, spec, seed, games), checked on
    ``resume`` so that no run's games are mixed with another's.

    Raises:
        ValueError: for an odd or non-positive number of games, a resumed run that is
            another rating's, and what :func:`~agents.arena.tournament.run_games` raises
            (bad specs, settings, files).
    """
    if games < 2 or games % 2:
        raise ValueError(f"games must be an even number >= 2 (pairs of seats), got {games}")
    config = ladder.run_config(**(run_options or {}))
    output.mkdir(parents=True, exist_ok=True)
    run = {"ladder": ladder.name, "spec": spec, "seed": seed, "games": games}
    _claim(output / "rating.json", run, resume=resume, overwrite=overwrite)
    records: list[Record] = []
    pairs: dict[str, int] = {}
    while len(records) < games:
        scores = [(record["pairing"][1], policy_score(record)) for record in records]
        rungs = schedule_round(ladder, scores, games - len(records))
        tasks = round_tasks(ladder, spec, seed, rungs, pairs)
        first = not records
        played = run_games(
            tasks, output / "results.jsonl", config, resume=resume or not first,
            overwrite=overwrite and first, check=check and first, progress=False,
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
    card = make_card(ladder, spec, seed, records)
    write_text_atomically(output / "card.json", card.to_json())
    return card


def _claim(
    path: Path, run: dict[str, Any], *, resume: bool, overwrite: bool
) -> None:
    """Write what the run is; on ``resume``, check it is the run there (else refuse)."""
    if path.exists() and not overwrite:
        if not resume:
            raise ValueError(
                f"{path.parent} holds a rating already; --resume it or --overwrite it, or "
                "write elsewhere"
            )
        try:
            before = json.loads(path.read_text())
        except (OSError, ValueError) as error:
            raise ValueError(f"{path} is not a rating's description: {error}") from None
        for key, value in run.items():
            if before.get(key) != value:
                raise ValueError(
                    f"{path.parent} holds a rating with {key} {before.get(key)!r}, this one "
                    f"has {value!r}; resume with the same arguments or write elsewhere"
                )
    write_text_atomically(path, json.dumps(run, indent=2) + "\n")

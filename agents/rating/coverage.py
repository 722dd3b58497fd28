"""How often a rating's interval holds the true rating: a seeded simulation of whole ratings
through the real schedule and the real estimate.

The ladder is synthetic: :data:`NUM_RUNGS` rungs :data:`GAP` apart from the anchor's 1000,
whose covariance is the one a round robin of :data:`GAMES_PER_PAIRING` games a pairing
implies (:func:`~agents.rating.estimate.round_robin_covariance`, as a v1 ladder's is). Each
simulated rating draws the rungs' true ratings around the published ones from that
covariance (the anchor's stays 1000), or with ``rungs_exact`` takes the published ones, and
a true rating for the policy, uniformly in a band; the policy then plays
:data:`~agents.rating.run.DEFAULT_GAMES` games round by round as
:func:`~agents.rating.run.schedule_round` asks, a pair of games (one opening, seats
swapped) against each rung it names, and the card's estimate is made from the games'
records (:func:`~agents.rating.run.estimate_of`) by the current method, by the old one, and
on the ladder's scale (the games alone, the rungs' published ratings exact: its true
rating is the policy's own only when the rungs' are the published ones, ``rungs_exact``).

A pair's two games are correlated as openings make them, while each game's expected score
stays the logistic one of the true ratings, ``p``: the pair draws an opening that suits the
policy (``+eta`` to both games' chances) and one that favours a seat (``+delta`` to the
policy's chance in seat 0, ``-delta`` in seat 1), each uniform and at most
:data:`SUITS` and :data:`SEAT` times ``min(p, 1 - p)``; a game is drawn with probability
:data:`DRAWS` times ``2 min(p', 1 - p')`` of its chance ``p'``, the rest split so that its
expected score is ``p'``.

Example:
    >>> print(table(simulate_bands(num_ratings=4, num_bands=1)))  # doctest: +SKIP

Run ``python -m agents.rating.coverage --ratings 2000`` (and ``--ratings 1000
--exact-rungs``) for the tables of docs/experiments.md (2026-11-28).
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agents.arena.match import NO_WINNER
from agents.rating.estimate import LIKELIHOOD_RATIO, METHOD, RatingEstimate, round_robin_covariance
from agents.rating.ladder import ANCHOR, ANCHOR_RATING, Calibration, Ladder, Rung
from agents.rating.run import DEFAULT_GAMES, estimate_of, round_tasks, schedule_round

__all__ = ["Coverage", "simulate", "simulate_bands", "synthetic_ladder", "table"]

NUM_RUNGS = 10
GAP = 150.0
"""Elo points between neighbouring rungs."""
GAMES_PER_PAIRING = 16
"""The synthetic ladder's round robin (v1's, for Trap! and Othello)."""
MARGIN = 100.0
"""The true ratings simulated are this far inside the ladder's ends."""
SUITS = 0.9
SEAT = 0.1
"""How far (as a share of ``min(p, 1 - p)``) a pair's opening may move both its games'
chances together, and its two seats' apart: ``SUITS + SEAT <= 1`` keeps chances in [0, 1]."""
DRAWS = 0.1
SPEC = "policy"
Record = dict[str, object]


@dataclass(frozen=True)
class Coverage:
    """How the intervals of ratings simulated in a band of true ratings did.

    Attributes:
        low, high: the band.
        num_ratings: ratings simulated.
        covered: those whose interval (:data:`~agents.rating.estimate.METHOD`) held the
            true rating.
        covered_old: those whose old interval
            (:data:`~agents.rating.estimate.LIKELIHOOD_RATIO`) held it.
        covered_scale: those whose interval on the ladder's scale (the games' alone, the
            rungs' published ratings exact) held it.
        width, width_old, width_scale: the median width of the two-sided intervals of each.
    """

    low: float
    high: float
    num_ratings: int
    covered: int
    covered_old: int
    covered_scale: int
    width: float
    width_old: float
    width_scale: float


def synthetic_ladder() -> Ladder:
    """The simulation's ladder, with the covariance its round robin implies."""
    ratings = [ANCHOR_RATING + GAP * i for i in range(NUM_RUNGS)]
    covariance = round_robin_covariance(ratings, GAMES_PER_PAIRING, anchor=0)
    specs = [ANCHOR] + [f"rung-{i}" for i in range(1, NUM_RUNGS)]
    return Ladder(
        game="trap", version="v1", params={}, opening_plies=0, seed=0,
        rungs=tuple(Rung(spec, rating) for spec, rating in zip(specs, ratings, strict=True)),
        calibration=Calibration(GAMES_PER_PAIRING, 1), covariance=covariance,
    )  # fmt: skip


def simulate(
    ladder: Ladder, low: float, high: float, num_ratings: int, seed: int,
    games: int = DEFAULT_GAMES, rungs_exact: bool = False,
) -> Coverage:  # fmt: skip
    """Simulate ``num_ratings`` ratings of true ratings uniform in ``[low, high]`` on
    ``ladder`` (the rungs' true ratings drawn from its covariance, or with ``rungs_exact``
    the published ones), seeded by ``seed``."""
    generator = np.random.default_rng(seed)
    published = np.array([rung.rating for rung in ladder.rungs])
    spread = np.linalg.cholesky(np.array(ladder.covariance or 0.0) + 1e-9 * np.eye(len(published)))
    if rungs_exact:  # the draws stay (the same stream: the same openings and true ratings)
        spread = np.zeros_like(spread)
    true_rungs = published + generator.standard_normal((num_ratings, len(published))) @ spread.T
    true_policy = generator.uniform(low, high, num_ratings)
    draws = generator.random((num_ratings, games // 2, 4))
    intervals: list[tuple[RatingEstimate, RatingEstimate, RatingEstimate]] = []
    truths = true_policy.tolist()
    for k, truth in enumerate(truths):
        rungs = dict(zip(ladder.specs, true_rungs[k].tolist(), strict=True))
        records = _play(ladder, truth, rungs, draws[k].tolist(), games)
        intervals.append((estimate_of(ladder, records, METHOD),
                          estimate_of(ladder, records, LIKELIHOOD_RATIO),
                          estimate_of(ladder, records, rungs_exact=True)))  # fmt: skip
    new, old, scale = zip(*intervals, strict=True)
    return Coverage(
        low, high, num_ratings, _num_held(new, truths), _num_held(old, truths),
        _num_held(scale, truths), _median_width(new), _median_width(old), _median_width(scale),
    )  # fmt: skip


def simulate_bands(
    num_ratings: int, num_bands: int = 5, seed: int = 2026, rungs_exact: bool = False
) -> list[Coverage]:
    """Simulate ``num_ratings`` ratings in each of ``num_bands`` bands of equal width that
    cover the true ratings from :data:`MARGIN` above the bottom rung to as far below the
    top one; band ``i`` is seeded by ``(seed, i)``; ``rungs_exact``: the rungs' true
    ratings are their published ones."""
    ladder = synthetic_ladder()
    bottom = min(ladder.rungs, key=lambda rung: rung.rating).rating + MARGIN
    width = (max(rung.rating for rung in ladder.rungs) - MARGIN - bottom) / num_bands
    return [simulate(ladder, bottom + i * width, bottom + (i + 1) * width, num_ratings,
                     seed * 1000 + i, rungs_exact=rungs_exact)
            for i in range(num_bands)]  # fmt: skip


def _play(
    ladder: Ladder, truth: float, rungs: dict[str, float], draws: list[list[float]], games: int
) -> list[Record]:
    """The records of one rating's games: rounds as the schedule asks, each game's outcome
    drawn from its pair's row of ``draws`` (four uniforms a pair)."""
    records: list[Record] = []
    scores: list[tuple[str, float]] = []
    pairs: dict[str, int] = {}
    while len(records) < games:
        playing = schedule_round(ladder, scores, games - len(records))
        for task in round_tasks(ladder, SPEC, 0, playing, pairs):
            rung = task.pairing[1]
            number = int(task.game_id.rpartition("#")[2])
            score = _score(truth - rungs[rung], number % 2, draws[len(records) // 2])
            winner = NO_WINNER if score == 0.5 else number % 2 if score == 1.0 else 1 - number % 2
            records.append({"game_id": task.game_id, "pairing": list(task.pairing),
                            "winner": winner})  # fmt: skip
            scores.append((rung, score))
        for rung in playing:
            pairs[rung] = pairs.get(rung, 0) + 1
    return records


def _score(difference: float, seat: int, draws: list[float]) -> float:
    """The policy's score in one game of a pair, ``difference`` above its opponent, from
    ``seat``; ``draws``: the pair's uniforms (its opening's two effects, the seats' games)."""
    chance = 1.0 / (1.0 + 10.0 ** (-difference / 400.0))
    room = min(chance, 1.0 - chance)
    suits, favours = (2 * draws[0] - 1) * SUITS * room, (2 * draws[1] - 1) * SEAT * room
    chance += suits + (favours if seat == 0 else -favours)
    drawn = DRAWS * 2 * min(chance, 1.0 - chance)
    won = chance - drawn / 2
    uniform = draws[2 + seat]
    return 1.0 if uniform < won else 0.5 if uniform < won + drawn else 0.0


def _num_held(estimates: Sequence[RatingEstimate], truths: Sequence[float]) -> int:
    """How many intervals hold their true rating (an end that is None is no bound)."""
    return sum(
        (estimate.low is None or estimate.low <= truth)
        and (estimate.high is None or truth <= estimate.high)
        for estimate, truth in zip(estimates, truths, strict=True)
    )


def _median_width(estimates: Sequence[RatingEstimate]) -> float:
    widths = [estimate.high - estimate.low for estimate in estimates
              if estimate.low is not None and estimate.high is not None]  # fmt: skip
    return statistics.median(widths) if widths else float("nan")


def table(coverages: Sequence[Coverage], level: float = 0.95) -> str:
    """The coverages as a Markdown table: per band, nominal and observed, of the interval
    (new), the old one and the one on the ladder's scale (scale)."""
    lines = [
        "| true rating | ratings | nominal | covered (new) | covered (old) | covered (scale) | "
        "median width (new) | median width (old) | median width (scale) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in coverages:
        shares = [row.covered, row.covered_old, row.covered_scale]
        lines.append(
            f"| {row.low:.0f}-{row.high:.0f} | {row.num_ratings} | {level:.0%} | "
            + " | ".join(f"{share / row.num_ratings:.1%}" for share in shares)
            + f" | {row.width:.0f} | {row.width_old:.0f} | {row.width_scale:.0f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the coverage table."""
    parser = argparse.ArgumentParser(
        prog="python -m agents.rating.coverage", description="The coverage of rating intervals."
    )
    parser.add_argument("--ratings", type=int, default=2000, help="ratings per band")
    parser.add_argument("--bands", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--exact-rungs", action="store_true",
        help="rungs whose true ratings are their published ones (the ladder still publishes "
        "its covariance): where the interval on the ladder's scale holds the true rating",
    )  # fmt: skip
    arguments = parser.parse_args(argv)
    if arguments.ratings < 1 or arguments.bands < 1:
        parser.error("--ratings and --bands must be at least 1")
    print(table(simulate_bands(arguments.ratings, arguments.bands, arguments.seed,
                               rungs_exact=arguments.exact_rungs)))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

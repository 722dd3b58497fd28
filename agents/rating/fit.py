"""A ladder's ratings fitted from its calibration's games, with their errors.

A first version's ratings are the Bradley-Terry fit of its round robin with a virtual draw
per pairing (:func:`fit_ratings`), which also orders a staged calibration's rungs between
its stages (:mod:`agents.rating.schedule`); a later version's are fitted by maximum
likelihood without a prior, with the ratings' covariance (:func:`fit_calibration`), from
which :func:`neighbour_errors` tells how well the games place each rung among its
neighbours. Every fit is on the logistic Elo scale, ``random`` at
:data:`~agents.rating.ladder.ANCHOR_RATING`.

Example:
    >>> from agents.rating.ladder import find_ladder
    >>> ladder = find_ladder("othello", {"board_size": 6}, version=2)
    >>> errors = neighbour_errors(ladder)
    >>> errors["random"], len(errors) == len(ladder.rungs)
    (NeighbourError(gap=0.0, gap_error=0.0, error=0.0), True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from agents.arena.results import Record
from agents.arena.stats import elo_ratings, summarize_pairings
from agents.rating.ladder import ANCHOR, ANCHOR_RATING, Ladder

__all__ = [
    "ELO_SLOPE",
    "NeighbourError",
    "fit_calibration",
    "fit_ratings",
    "neighbour_errors",
]


def fit_ratings(records: Sequence[dict[str, Any]]) -> dict[str, float]:
    """The rungs' ratings from the round robin's games, with ``random`` at the anchor.

    Bradley-Terry by maximum likelihood (:func:`agents.arena.stats.elo_ratings`, a virtual
    draw per pairing keeping a rung that won every game finite): a first version's
    ratings, and the order of a staged calibration's rungs between its stages.

    Raises:
        ValueError: if ``random`` played no game.
    """
    ratings = elo_ratings(records)
    if ANCHOR not in ratings:
        raise ValueError(f"the anchor {ANCHOR!r} played no game")
    shift = ANCHOR_RATING - ratings[ANCHOR]
    return {spec: rating + shift for spec, rating in ratings.items()}


ELO_SLOPE = math.log(10) / 400
"""d log-odds / d rating: a game's win probability is ``1 / (1 + 10 ** (-difference / 400))``."""


def fit_calibration(
    ladder: Ladder, records: Sequence[Record]
) -> tuple[dict[str, float], list[list[float]] | None]:
    """The rungs' ratings from the calibration's games, and their covariance (None for a
    calibration without ``pair_games``, fitted by :func:`fit_ratings`).

    A staged calibration is fitted by plain maximum likelihood: the Bradley-Terry model on
    the logistic Elo scale (draws as half wins), no prior and no virtual draw, with
    ``random`` fixed at :data:`ANCHOR_RATING` (Newton's method from :func:`fit_ratings`).
    The covariance is the inverse of the Fisher information of the other rungs' ratings
    at the estimate (Elo points squared; the anchor's row and column zero).

    Raises:
        ValueError: if the estimate is not finite: some rungs took no point from the others
            (or played none of them), naming them.
    """
    if not ladder.calibration.pair_games:
        return fit_ratings(records), None
    specs = ladder.specs
    index = {spec: i for i, spec in enumerate(specs)}
    games, scores = np.zeros((len(specs), len(specs))), np.zeros((len(specs), len(specs)))
    for summary in summarize_pairings(records):
        i, j = index[summary.first], index[summary.second]
        games[i, j] = games[j, i] = summary.num_games
        scores[i, j], scores[j, i] = summary.score, summary.num_games - summary.score
    _check_connected(specs, scores)
    start = fit_ratings(records)
    ratings = np.array([start[spec] for spec in specs])
    ratings[index[ANCHOR]] = ANCHOR_RATING  # exactly: the shift may leave a last bit
    free = np.arange(len(specs)) != index[ANCHOR]
    for _ in range(200):
        win = 1 / (1 + 10 ** ((ratings[None, :] - ratings[:, None]) / 400))
        gradient = ELO_SLOPE * (scores - games * win).sum(axis=1)
        information = _information(games, win)
        step = np.linalg.solve(information[np.ix_(free, free)], gradient[free])
        ratings[free] += np.clip(step, -400, 400)  # a damped step: far starts stay stable
        if np.abs(step).max() < 1e-9:
            break
    else:
        raise ValueError("the maximum-likelihood fit did not converge in 200 Newton steps")
    win = 1 / (1 + 10 ** ((ratings[None, :] - ratings[:, None]) / 400))
    covariance = np.zeros((len(specs), len(specs)))
    covariance[np.ix_(free, free)] = np.linalg.inv(_information(games, win)[np.ix_(free, free)])
    covariance = (covariance + covariance.T) / 2  # symmetric to the last bit
    rated = {spec: float(ratings[i]) for spec, i in index.items()}
    return rated, [[float(value) for value in row] for row in covariance]


def _information(games: Any, win: Any) -> Any:
    """The Fisher information of the ratings (per Elo point squared): a graph Laplacian,
    each pair's games weighted by ``p (1 - p)``."""
    weights = ELO_SLOPE**2 * games * win * (1 - win)
    return np.diag(weights.sum(axis=1)) - weights


def _check_connected(specs: Sequence[str], scores: Any) -> None:
    """Refuse games whose maximum-likelihood ratings are not finite: some rungs took no
    point (a win or a draw) from the others, or the others none from them (Zermelo: the
    estimate is finite iff every rung reaches every other by "took a point from")."""
    anchor = specs.index(ANCHOR)
    for took, outcome in ((scores, "won"), (scores.T, "lost")):
        reached, frontier = {anchor}, [anchor]
        while frontier:
            i = frontier.pop()
            for j in map(int, np.flatnonzero(took[i] > 0)):
                if j not in reached:
                    reached.add(j)
                    frontier.append(j)
        if len(reached) < len(specs):
            apart = ", ".join(repr(specs[i]) for i in range(len(specs)) if i not in reached)
            others = ", ".join(repr(specs[i]) for i in sorted(reached))
            raise ValueError(
                f"{apart} {outcome} every game they played against {others}, so the ratings "
                "have no finite maximum-likelihood estimate; play more games (--pair-games) "
                "or add a rung between"
            )


class NeighbourError(NamedTuple):
    """A rung's rating against its neighbours by rating (Elo points).

    Attributes:
        gap: its rating less that of the rung rated next below (0 for the weakest).
        gap_error: the standard error of that difference.
        error: the standard error of its rating given its neighbours' (the rungs rated next
            below and above it, the anchor's fixed): how well its games against them place
            it (0 for the anchor).
    """

    gap: float
    gap_error: float
    error: float


def neighbour_errors(ladder: Ladder) -> dict[str, NeighbourError]:
    """Each rung's :class:`NeighbourError`, by spec in rating order, from the ladder's
    covariance (taken as that of normal estimates: the conditional variance given the
    neighbours is ``S_ii - S_iN S_NN^-1 S_Ni``).

    Raises:
        ValueError: for a ladder without a covariance.
    """
    if ladder.covariance is None:
        raise ValueError(f"the {ladder.name} publishes no covariance")
    matrix = np.array(ladder.covariance)
    order = sorted(range(len(ladder.rungs)), key=lambda i: ladder.rungs[i].rating)
    errors = {}
    for place, i in enumerate(order):
        below = order[place - 1] if place else None
        gap = gap_error = 0.0
        if below is not None:
            gap = ladder.rungs[i].rating - ladder.rungs[below].rating
            gap_error = _root(matrix[i, i] + matrix[below, below] - 2 * matrix[i, below])
        known = [j for j in order[max(place - 1, 0) : place + 2]
                 if j != i and matrix[j, j] > 0]  # fmt: skip  # the anchor's is fixed already
        variance = matrix[i, i]
        if known:
            across = matrix[i, known]
            variance -= across @ np.linalg.solve(matrix[np.ix_(known, known)], across)
        errors[ladder.rungs[i].spec] = NeighbourError(gap, gap_error, _root(variance))
    return errors


def _root(variance: float) -> float:
    """A standard error from a variance (rounding may leave it a hair below 0)."""
    return math.sqrt(max(float(variance), 0.0))

"""A rating against opponents of known ratings: maximum likelihood with a likelihood-ratio interval.

The model is the Elo scale's logistic one: a player rated ``R`` scores against an opponent
rated ``r`` with expectation ``1 / (1 + 10 ** ((r - R) / 400))``; a draw counts half. The
opponents' ratings are fixed (a ladder is not re-rated), so the log-likelihood of ``R`` is
concave and its maximum is the one ``R`` whose expected score equals the score made.

The 95% interval is every ``R`` whose log-likelihood is within ``chi2(1, 0.95) / 2`` of the
maximum. A player who won (or lost) every game has no finite maximum: then the interval is
one-sided, every ``R`` above (below) the one whose likelihood is ``chi2(1, 0.90) / 2``
below the limit, a 95% one-sided bound.

Example:
    >>> estimate = estimate_rating([(1000.0, 1.0), (1000.0, 0.0), (1200.0, 0.5)])
    >>> round(estimate.rating), estimate.num_games
    (1065, 3)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["LEVEL", "METHOD", "RatingEstimate", "estimate_rating", "expected_score"]

LEVEL = 0.95
"""The interval's level."""
METHOD = "likelihood ratio"
"""How the interval is made: the ratings whose likelihood is near enough the maximum's."""

TWO_SIDED = 3.841458820694124 / 2
"""Half the 95% quantile of chi-square with one degree of freedom."""

ONE_SIDED = 2.705543454095404 / 2
"""Half its 90% quantile: a one-sided 95% bound."""

SEARCH_SPAN = 4000.0
"""How far beyond the opponents' ratings a rating or a bound is looked for (Elo points);
past it, a bound is reported as that far (a score of 1 in 10**10 games)."""


@dataclass(frozen=True)
class RatingEstimate:
    """A rating and its 95% interval, on the opponents' scale.

    Attributes:
        rating: the maximum-likelihood rating; None when every game was won or every game
            lost (no finite maximum).
        low: the interval's lower end; None when unbounded below (every game lost).
        high: its upper end; None when unbounded above (every game won).
        num_games: games behind the estimate.
        score: the points made (draws as halves).
    """

    rating: float | None
    low: float | None
    high: float | None
    num_games: int
    score: float

    def describe(self) -> str:
        """``1432 [1380, 1484]``, or ``> 2100`` / ``< 400`` for a one-sided bound."""
        if self.rating is not None and self.low is not None and self.high is not None:
            return f"{self.rating:.0f} [{self.low:.0f}, {self.high:.0f}]"
        if self.low is not None:
            return f"> {self.low:.0f}"
        if self.high is not None:
            return f"< {self.high:.0f}"
        return "no games"


def expected_score(rating: float, opponent: float) -> float:
    """The expected score of a player rated ``rating`` against one rated ``opponent``."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


def estimate_rating(games: Sequence[tuple[float, float]]) -> RatingEstimate:
    """The rating and 95% interval that the games give.

    Args:
        games: ``(opponent's rating, score)`` per game; a score is 1, 0.5 or 0.

    Raises:
        ValueError: for a score other than 0, 0.5 or 1, or a rating that is not finite.
    """
    for opponent, score in games:
        if score not in (0.0, 0.5, 1.0) or not math.isfinite(opponent):
            raise ValueError(
                f"a game is (opponent's finite rating, score 0, 0.5 or 1), got {(opponent, score)}"
            )
    score = sum(score for _, score in games)
    if not games:
        return RatingEstimate(None, None, None, 0, 0.0)
    low_end = min(opponent for opponent, _ in games) - SEARCH_SPAN
    high_end = max(opponent for opponent, _ in games) + SEARCH_SPAN
    if score == len(games):  # won every game: the likelihood rises to 0 as R grows
        bound = _crossing(games, -ONE_SIDED, low_end, high_end)
        return RatingEstimate(None, bound, None, len(games), score)
    if score == 0:
        bound = _crossing(games, -ONE_SIDED, high_end, low_end)
        return RatingEstimate(None, None, bound, len(games), score)
    rating = _bisect(lambda r: _expected_total(games, r) - score, low_end, high_end)
    top = _log_likelihood(games, rating)
    low = _crossing(games, top - TWO_SIDED, low_end, rating)
    high = _crossing(games, top - TWO_SIDED, high_end, rating)
    return RatingEstimate(rating, low, high, len(games), score)


def _expected_total(games: Sequence[tuple[float, float]], rating: float) -> float:
    return sum(expected_score(rating, opponent) for opponent, _ in games)


def _log_likelihood(games: Sequence[tuple[float, float]], rating: float) -> float:
    """Sum of ``s log p + (1 - s) log(1 - p)``, computed without overflow far out."""
    total = 0.0
    for opponent, score in games:
        x = (rating - opponent) * math.log(10) / 400  # p = sigmoid(x)
        log_p = -math.log1p(math.exp(-x)) if x > 0 else x - math.log1p(math.exp(x))
        log_q = log_p - x  # log(1 - p) = log p - x
        total += score * log_p + (1 - score) * log_q
    return total


def _crossing(
    games: Sequence[tuple[float, float]], level: float, outside: float, inside: float
) -> float:
    """Where the log-likelihood crosses ``level`` between ``outside`` (below the level, or
    reported as the bound when it is not) and ``inside`` (above it)."""
    if _log_likelihood(games, outside) >= level:
        return outside
    return _bisect(lambda r: _log_likelihood(games, r) - level, outside, inside)


def _bisect(function: Callable[[float], float], a: float, b: float) -> float:
    """A root of the monotone ``function`` between ``a`` and ``b`` (signs differ at the ends),
    to within a hundredth of a point."""
    fa = function(a)
    for _ in range(200):
        middle = (a + b) / 2
        fm = function(middle)
        if (fm > 0) == (fa > 0):
            a, fa = middle, fm
        else:
            b = middle
        if abs(b - a) < 0.01:
            break
    return (a + b) / 2

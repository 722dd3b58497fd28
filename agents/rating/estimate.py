"""A rating against opponents of published ratings: maximum likelihood, and an interval
that counts the pairs of games and the opponents' own uncertainty.

The model is the Elo scale's logistic one: a player rated ``R`` scores against an opponent
rated ``r`` with expectation ``p = 1 / (1 + 10 ** ((r - R) / 400))``; a draw counts half.
The rating is the one ``R`` whose expected score equals the score made (the maximum of the
games' likelihood against the published ratings); when every game was won (or lost) there
is none, and the interval is one-sided.

**The interval** (:data:`METHOD`) adds two variances. **The games'** is a score test: at a
rating ``R``, the score made ``S`` against the score expected ``E(R)``,

    D(R) = (S - E(R)) ** 2 / (phi * sum p q),

every term at ``R`` (so the interval bends with the logistic, as Wilson's does). ``sum p q``
is the score's variance were the games independent and ``phi`` the dispersion of their
pairs: a pair (one opening played from both seats) is the unit of independent sampling
(:mod:`agents.arena.pairs`), as an opening that suits one player moves its two results
together and one that favours a seat moves them apart. ``phi`` is the pairs' points'
squared deviation from their expectation at the estimate over the variance independent
games would give (the pentanomial variance of paired engine tests, a cluster-robust
sandwich); it also counts draws, which vary less than wins and losses. It is shrunk toward
1 by :data:`PRIOR_PAIRS` pairs, so that a run whose every pair split one-one (a dispersion
of 0) does not claim to know its rating exactly, and it divides by the pairs less one (the
rating is fitted to them).

**The ladder's** is the delta method: to first order the estimate moves by ``g_i = w_i /
sum w`` for each point that opponent ``i``'s rating moves, ``w_i`` being the ``p q`` of the
games against it, so the rungs' covariance ``Cov`` gives the rating the variance ``L = g'
Cov g`` (at the estimate). An error of the rungs' ratings shifts the whole scale under the
games, so ``L`` is added in Elo points, in quadrature with the games' test:

    (R - R_hat) ** 2 / ((R - R_hat) ** 2 / D(R) + L) <= z ** 2

with ``z = 1.96``; the left side grows with the distance, and with ``L = 0`` it is ``D(R)``,
with a ``D`` that is quadratic the usual ``(R - R_hat) ** 2 / (var_games + L)``. When every
game was won (lost) the bound is where ``D`` is ``1.645 ** 2`` (``phi`` 1: there is no
estimate to measure the pairs from), where about 2.7 losses were expected (the likelihood
ratio's is half that: a player above it would still win every game a quarter of the time),
moved out by ``1.645 * sqrt(L)`` at the bound.

**On the ladder's scale** (``covariance=None``) the interval is the games' alone: the
rungs' published ratings, taken as exact, define the scale that every card of one ladder
shares, so two such cards differ by their games only (a card's ``scale_low`` and
``scale_high``). ``L`` is never negative, so it lies within the full interval.

:data:`LIKELIHOOD_RATIO` is the interval of cards written before (every game alone, the
opponents' ratings exact): every ``R`` whose log-likelihood is within ``chi2(1, 0.95) / 2``
of the maximum; :func:`estimate_rating` still makes it for such a card's check.

Example:
    >>> estimate = estimate_rating([(1000.0, 1.0), (1000.0, 0.0), (1200.0, 0.5)])
    >>> round(estimate.rating), estimate.num_games
    (1065, 3)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "LEVEL",
    "LIKELIHOOD_RATIO",
    "METHOD",
    "METHODS",
    "RatingEstimate",
    "best_rating",
    "describe_interval",
    "estimate_rating",
    "expected_score",
    "round_robin_covariance",
]

LEVEL = 0.95
"""The interval's level."""
METHOD = "pair-clustered score test with the rungs' covariance"
"""How the interval is made now: the score test above, its variance the pairs' and the
rungs' ratings'."""
LIKELIHOOD_RATIO = "likelihood ratio"
"""The interval of cards written before :data:`METHOD`: the ratings whose likelihood is
near enough the maximum's, every game alone and the opponents' ratings exact."""
METHODS = (METHOD, LIKELIHOOD_RATIO)

TWO_SIDED = 3.841458820694124 / 2
"""Half the 95% quantile of chi-square with one degree of freedom."""

ONE_SIDED = 2.705543454095404 / 2
"""Half its 90% quantile: a one-sided 95% bound."""

SLOPE = math.log(10) / 400
"""``c``: the logistic's scale per Elo point (``p = 1 / (1 + exp(-c (R - r)))``)."""

PRIOR_PAIRS = 4.0
"""Pairs of dispersion 1 (independent games) that the pairs' dispersion is shrunk toward:
about 4% of a 200-game run's 100 pairs, enough that a few pairs cannot make it 0."""

SEARCH_SPAN = 4000.0
"""How far beyond the opponents' ratings a rating or a bound is looked for (Elo points);
past it, a bound is reported as that far (a score of 1 in 10**10 games)."""

Covariance = Sequence[Sequence[float]]
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
            return f"{self.rating:.0f} {describe_interval(self.low, self.high)}"
        return describe_interval(self.low, self.high)


def describe_interval(low: float | None, high: float | None) -> str:
    """An interval in whole points: ``[1380, 1484]``, ``> 2100`` or ``< 400`` (one end
    None: unbounded that side), ``no games`` (neither end)."""
    if low is not None and high is not None:
        return f"[{low:.0f}, {high:.0f}]"
    if low is not None:
        return f"> {low:.0f}"
    if high is not None:
        return f"< {high:.0f}"
    return "no games"


def expected_score(rating: float, opponent: float) -> float:
    """The expected score of a player rated ``rating`` against one rated ``opponent``."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


@dataclass(frozen=True)
class _Games:
    """The games as the estimate needs them: by opponent (its rating, its games, the points
    made against it, its row in the covariance), and by pair (its points and its games'
    opponents, as indices into the opponents); with the covariance among those opponents."""

    ratings: tuple[float, ...]
    counts: tuple[int, ...]
    scores: tuple[float, ...]
    pairs: tuple[tuple[float, tuple[int, ...]], ...]
    covariance: tuple[tuple[float, ...], ...] | None

    @property
    def score(self) -> float:
        return sum(self.scores)

    @property
    def num_games(self) -> int:
        return sum(self.counts)


def estimate_rating(
    games: Sequence[tuple[float, float]],
    *,
    pairs: Sequence[int] | None = None,
    rungs: Sequence[int] | None = None,
    covariance: Covariance | None = None,
    method: str = METHOD,
) -> RatingEstimate:
    """The rating and 95% interval that the games give.

    Args:
        games: ``(opponent's rating, score)`` per game; a score is 1, 0.5 or 0.
        pairs: the pair of each game (the two games of one opening share a number); None:
            every game is a pair of its own.
        rungs: the opponent of each game as its row in ``covariance`` (needed with it).
        covariance: the covariance of the opponents' ratings, Elo points squared; None:
            their ratings are exact.
        method: :data:`METHOD`, or :data:`LIKELIHOOD_RATIO` (an old card's: it counts
            neither the pairs nor the covariance).

    Raises:
        ValueError: for a score other than 0, 0.5 or 1, a rating that is not finite,
            ``pairs`` or ``rungs`` not one per game, a rung with two ratings or outside
            ``covariance``, a covariance that is not a square matrix of finite numbers, or
            another method.
    """
    grouped = _group(games, pairs, rungs, covariance)
    if method not in METHODS:
        raise ValueError(f"an interval's method is one of {METHODS}, got {method!r}")
    if not games:
        return RatingEstimate(None, None, None, 0, 0.0)
    score, num_games = grouped.score, grouped.num_games
    low_end, high_end = min(grouped.ratings) - SEARCH_SPAN, max(grouped.ratings) + SEARCH_SPAN
    if score in (0, num_games):  # no finite maximum: a one-sided bound
        return _one_sided(grouped, method, low_end, high_end)
    rating = _maximum_likelihood(grouped)
    if method == LIKELIHOOD_RATIO:
        top = _log_likelihood(grouped, rating)
        inside = lambda r: _log_likelihood(grouped, r) - top + TWO_SIDED  # noqa: E731
    else:
        dispersion, ladder = _dispersion(grouped, rating), _ladder_variance(grouped, rating)
        inside = lambda r: 2 * TWO_SIDED - _combined(  # noqa: E731
            _statistic(grouped, r, dispersion), r - rating, ladder
        )
    low, high = _edge(inside, rating, low_end), _edge(inside, rating, high_end)
    return RatingEstimate(rating, low, high, num_games, score)


def _one_sided(games: _Games, method: str, low_end: float, high_end: float) -> RatingEstimate:
    """The one-sided 95% bound of games all won (a lower bound) or all lost (an upper one):
    the games' bound, moved outward by 1.645 of the ladder's standard deviations there."""
    if method == LIKELIHOOD_RATIO:
        inside = lambda r: _log_likelihood(games, r) + ONE_SIDED  # noqa: E731
    else:
        inside = lambda r: 2 * ONE_SIDED - _statistic(games, r, 1.0)  # noqa: E731
    won = games.score == games.num_games  # the interval is above the bound, else below it
    bound = _edge(inside, high_end, low_end) if won else _edge(inside, low_end, high_end)
    if method == METHOD and bound not in (low_end, high_end):
        spread = math.sqrt(2 * ONE_SIDED * _ladder_variance(games, bound))
        bound = bound - spread if won else bound + spread
    if won:
        return RatingEstimate(None, bound, None, games.num_games, games.score)
    return RatingEstimate(None, None, bound, games.num_games, games.score)


def best_rating(games: Sequence[tuple[float, float]]) -> float:
    """The maximum-likelihood rating alone (what a schedule plays near): ``inf`` when every
    game was won, ``-inf`` when every game was lost, ``nan`` for no games.

    Raises:
        ValueError: as :func:`estimate_rating` does for a bad game.
    """
    grouped = _group(games, None, None, None, by_pair=False)
    if not games:
        return math.nan
    if grouped.score in (0, grouped.num_games):
        return math.inf if grouped.score else -math.inf
    return _maximum_likelihood(grouped)


def _maximum_likelihood(games: _Games) -> float:
    """The rating whose expected score is the score made (there is one: 0 < score < games).

    It lies where every opponent would give the mean score, between the weakest one's
    rating and the strongest one's, each plus that score's logit on the Elo scale."""
    score = games.score
    logit = math.log10(score / (games.num_games - score)) * 400
    return _root(lambda r: _expected_total(games, r) - score,
                 min(games.ratings) + logit, max(games.ratings) + logit)  # fmt: skip


def _group(
    games: Sequence[tuple[float, float]],
    pairs: Sequence[int] | None,
    rungs: Sequence[int] | None,
    covariance: Covariance | None,
    by_pair: bool = True,
) -> _Games:
    """The games by opponent (by rung when ``rungs`` are given) and, with ``by_pair``, by
    pair; checked."""
    for name, given in (("pairs", pairs), ("rungs", rungs)):
        if given is not None and len(given) != len(games):
            raise ValueError(f"{name} gives one value per game: {len(given)} for {len(games)}")
    if covariance is not None:
        _check_covariance(covariance, rungs)
    keys: Sequence[float] = rungs if rungs is not None else [rating for rating, _ in games]
    index: dict[float, int] = {}
    ratings: list[float] = []
    counts: list[int] = []
    scores: list[float] = []
    of_game = []
    for (rating, score), key in zip(games, keys, strict=True):
        if score not in (0.0, 0.5, 1.0) or not math.isfinite(rating):
            raise ValueError(
                f"a game is (opponent's finite rating, score 0, 0.5 or 1), got {(rating, score)}"
            )
        at = index.setdefault(key, len(ratings))
        if at == len(ratings):
            ratings.append(rating)
            counts.append(0)
            scores.append(0.0)
        elif ratings[at] != rating:
            raise ValueError(f"rung {key} is given two ratings, {ratings[at]} and {rating}")
        counts[at] += 1
        scores[at] += score
        of_game.append(at)
    among = None if covariance is None else tuple(
        tuple(float(covariance[int(a)][int(b)]) for b in index) for a in index
    )  # fmt: skip
    grouped = _pairs(games, pairs, of_game) if by_pair else ()
    return _Games(tuple(ratings), tuple(counts), tuple(scores), grouped, among)


def _pairs(
    games: Sequence[tuple[float, float]], pairs: Sequence[int] | None, of_game: list[int]
) -> tuple[tuple[float, tuple[int, ...]], ...]:
    """Each pair's points and its games' opponents (every game alone without ``pairs``)."""
    if pairs is None:
        return tuple((score, (at,)) for (_, score), at in zip(games, of_game, strict=True))
    members: dict[int, tuple[float, tuple[int, ...]]] = {}
    for pair, (_, score), at in zip(pairs, games, of_game, strict=True):
        points, played = members.get(pair, (0.0, ()))
        members[pair] = (points + score, (*played, at))
    return tuple(members.values())


def _check_covariance(covariance: Covariance, rungs: Sequence[int] | None) -> None:
    """Refuse a covariance that is not a square matrix of finite numbers, or rungs that are
    not its rows."""
    size = len(covariance)
    if any(len(row) != size or not all(math.isfinite(value) for value in row)
           for row in covariance):  # fmt: skip
        raise ValueError("a covariance is a square matrix of finite numbers (Elo points squared)")
    if rungs is None or any(not 0 <= rung < size for rung in rungs):
        raise ValueError(f"with a covariance, each game's rung is one of its rows, 0 to {size - 1}")


def _chances(games: _Games, rating: float) -> list[float]:
    """The expected score of one game against each opponent."""
    return [1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0)) for opponent in games.ratings]


def _dispersion(games: _Games, rating: float) -> float:
    """``phi``: the pairs' points' variance about their expectation at ``rating`` over the
    variance of independent games, with :data:`PRIOR_PAIRS` pairs of 1 and a pair's worth
    of degrees of freedom taken by the fitted rating."""
    chances = _chances(games, rating)
    squares = sum((points - sum(chances[at] for at in played)) ** 2
                  for points, played in games.pairs)  # fmt: skip
    # an average pair's variance, were its games independent
    mean = sum(_variances(games, rating)) / len(games.pairs)
    if mean <= 0:
        return 1.0
    return (squares + PRIOR_PAIRS * mean) / ((len(games.pairs) - 1 + PRIOR_PAIRS) * mean)


def _statistic(games: _Games, rating: float, dispersion: float) -> float:
    """The games' score test at ``rating``: the squared gap of score made and expected over
    its variance, ``dispersion`` times independent games'."""
    gap = games.score - _expected_total(games, rating)
    variance = dispersion * sum(_variances(games, rating))
    if variance <= 0:  # so far out that the games say nothing: 0/0 is inside, x/0 outside
        return 0.0 if gap == 0 else math.inf
    return gap * gap / variance


def _ladder_variance(games: _Games, rating: float) -> float:
    """``g' Cov g``: the variance the rungs' ratings give a rating at ``rating``, ``g`` the
    rating's derivative in each opponent's (each one's share of the games' ``p q``)."""
    if games.covariance is None:
        return 0.0
    weights = _variances(games, rating)
    total = sum(weights)
    if total <= 0:  # so far out that no game says anything of it
        return 0.0
    return sum(
        weight_a * sum(entry * weight_b for entry, weight_b in zip(row, weights, strict=True))
        for weight_a, row in zip(weights, games.covariance, strict=True)
    ) / (total * total)


def _combined(statistic: float, distance: float, ladder: float) -> float:
    """The test of a rating ``distance`` from the estimate, the games' ``statistic`` and the
    ``ladder``'s variance added in quadrature: ``d^2 / (d^2 / statistic + ladder)``, which
    grows with the distance when the statistic does."""
    if statistic == 0 or distance == 0:
        return 0.0
    if math.isinf(statistic):
        return math.inf if ladder == 0 else distance * distance / ladder
    return distance * distance / (distance * distance / statistic + ladder)


def round_robin_covariance(
    ratings: Sequence[float], games_per_pairing: float, anchor: int, prior_draws: float = 1.0
) -> tuple[tuple[float, ...], ...]:
    """The covariance of ratings fitted to a round robin, to first order: the inverse of the
    Bradley-Terry model's Fisher information at ``ratings`` (every pairing's games and its
    ``prior_draws`` virtual draws, as :func:`agents.rating.fit.fit_ratings` counts them),
    with the ``anchor``'s rating fixed (its row and column zero).

    Example:
        >>> second = round_robin_covariance([1000.0, 1200.0], 16, anchor=0)[1]
        >>> round(second[1] ** 0.5)
        99
    """
    size = len(ratings)
    information = [[0.0] * size for _ in range(size)]
    for i, j in itertools.permutations(range(size), 2):
        chance = expected_score(ratings[i], ratings[j])
        weight = SLOPE * SLOPE * (games_per_pairing + prior_draws) * chance * (1 - chance)
        information[i][i] += weight
        information[i][j] -= weight
    free = [i for i in range(size) if i != anchor]
    inverse = np.linalg.inv(np.array(information)[np.ix_(free, free)])
    covariance = [[0.0] * size for _ in range(size)]
    for a, i in enumerate(free):
        for b, j in enumerate(free):
            covariance[i][j] = float(inverse[a][b])
    return tuple(tuple(row) for row in covariance)


def _expected_total(games: _Games, rating: float) -> float:
    chances = _chances(games, rating)
    return sum(count * chance for count, chance in zip(games.counts, chances, strict=True))


def _variances(games: _Games, rating: float) -> list[float]:
    """The score's variance against each opponent, were the games independent: ``n p q``."""
    chances = _chances(games, rating)
    return [count * chance * (1 - chance)
            for count, chance in zip(games.counts, chances, strict=True)]  # fmt: skip


def _log_likelihood(games: _Games, rating: float) -> float:
    """Sum of ``s log p + (1 - s) log(1 - p)`` over the games, computed without overflow
    far out."""
    total = 0.0
    for opponent, count, score in zip(games.ratings, games.counts, games.scores, strict=True):
        x = (rating - opponent) * SLOPE  # p = sigmoid(x)
        log_p = -math.log1p(math.exp(-x)) if x > 0 else x - math.log1p(math.exp(x))
        log_q = log_p - x  # log(1 - p) = log p - x
        total += score * log_p + (count - score) * log_q
    return total


def _edge(inside: Callable[[float], float], start: float, end: float) -> float:
    """Where ``inside`` (>= 0 inside the interval, < 0 outside) turns negative going from
    ``start`` (inside) toward ``end``; ``end`` itself when it is still inside (reported as
    the bound). Steps double from 25 points until one lands outside, then the root."""
    direction = 1.0 if end > start else -1.0
    step = 25.0
    near = start
    while True:
        far = start + direction * step
        if direction * (far - end) >= 0:
            return end if inside(end) >= 0 else _root(inside, near, end)
        if inside(far) < 0:
            return _root(inside, near, far)
        near, step = far, step * 2


def _root(function: Callable[[float], float], a: float, b: float) -> float:
    """A root of the monotone ``function`` between ``a`` and ``b`` (signs differ at the ends),
    to within a hundredth of a point: regula falsi that halves an end's value when the same
    end stays twice (Illinois), bisecting where the value is not finite."""
    fa, fb = function(a), function(b)
    kept = 0  # which end stayed last time: -1 a, 1 b
    for _ in range(200):
        if abs(b - a) < 0.01:
            break
        middle = (a * fb - b * fa) / (fb - fa) if math.isfinite(fa - fb) and fa != fb else math.nan
        if not min(a, b) < middle < max(a, b):
            middle = (a + b) / 2
        fm = function(middle)
        if fm == 0:
            return middle
        if (fm > 0) == (fa > 0):
            a, fa = middle, fm
            fb = fb / 2 if kept == 1 else fb
            kept = 1
        else:
            b, fb = middle, fm
            fa = fa / 2 if kept == -1 else fa
            kept = -1
    return (a + b) / 2

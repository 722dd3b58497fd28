"""Is B stronger than A? A sequential test, head to head on a ladder's openings, in pairs.

The games: the ``k``-th pair opens from the seed ``derive_seed(ladder.seed, seed, k)``
with the ladder's rules and random opening plies, once with A in seat 0 (game ``2k``) and
once with B there (game ``2k + 1``). A pair scores 0, 0.5, 1, 1.5 or 2 points for B
(:data:`~agents.arena.pairs.PAIR_POINTS`), and the counts of those five classes, the
pentanomial, are what the test reads.

The test: fishtest's generalized SPRT (GSPRT) of H0 "B's Elo over A is ``elo0``"
against H1 "it is ``elo1``", in logistic Elo: an Elo difference ``e`` is a mean score per
game of ``s(e) = 1 / (1 + 10 ** (-e / 400))``. Under each hypothesis the pentanomial's
probabilities are the maximum-likelihood ones among those whose mean pair score per game
is ``s(elo)``; given the observed frequencies ``f_i`` of the per-game scores ``a_i``
(``0, 0.25, ..., 1``) that maximum is ``p_i = f_i / (1 + x (a_i - s))``, where ``x``
solves ``sum_i f_i (a_i - s) / (1 + x (a_i - s)) = 0`` (one root where every
``1 + x (a_i - s) > 0``). The log-likelihood ratio of ``N`` pairs is
``LLR = N sum_i f_i log(p1_i / p0_i)``; a class never seen counts :data:`EPSILON` of a
pair, so that the maximum exists. The test stops at the first pair whose LLR reaches
``log((1 - beta) / alpha)`` (B is ``stronger``) or ``log(beta / (1 - alpha))`` (``not
stronger``), and says ``inconclusive`` at ``max_games``. References: M. Van den Bergh,
"A generalized SPRT" / "Maximum likelihood estimation for a multinomial distribution with
given expectation value" (hardy.uhasselt.be/Fishtest, Proposition 1.1), as fishtest
computes it (``server/fishtest/stats/LLRcalc.py``, ``LLR_logistic``).

Games are played in batches of pairs (as many as the workers), but the decision walks the
pairs in their order (:class:`Walk`), so the workers, the backend or a resumed run cannot
move the stop: the games of a batch past it are recorded and not counted.

Example:
    >>> tuple(round(bound, 2) for bound in SprtTest().bounds)
    (-2.94, 2.94)
    >>> compare("mcts:simulations=100", "mcts:simulations=200", game="trap",
    ...         output=Path("results/compare/x")).decision  # doctest: +SKIP
    'stronger'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from agents.arena.match import NO_WINNER, derive_seed
from agents.arena.pairs import PAIR_POINTS, game_number, pair_groups
from agents.arena.plan import GameTask, RunConfig
from agents.arena.results import Record
from agents.files import locked_folder
from agents.rating.card_format import BaseCard, Provenance, write_card
from agents.rating.ladder import Ladder, find_ladder, game_params, setting_name
from agents.rating.run import DEFAULT_CPU_CAP, Say
from agents.rating.run_folder import (
    CARD_FILE,
    check_arguments,
    check_folder,
    play_batches,
)
from agents.spec_files import spec_files

__all__ = [
    "DECISIONS",
    "DEFAULT_MAX_GAMES",
    "EPSILON",
    "ComparisonCard",
    "SprtTest",
    "Walk",
    "b_points",
    "compare",
    "comparison_tasks",
    "expected_score",
    "llr",
    "walk_pairs",
]

DECISIONS = ("stronger", "not stronger", "inconclusive")
DEFAULT_MAX_GAMES = 2000
EPSILON = 1e-3
"""The count, in pairs, of a class of the pentanomial never seen (fishtest's ``regularize``)."""
MAX_ELO = 1000.0
"""The largest Elo difference a hypothesis may name (a mean score of 0.997)."""
KIND = "comparison"

_SCORES = np.array(PAIR_POINTS) / 2
"""Each class's score per game."""


def expected_score(elo: float) -> float:
    """The mean score per game of an Elo difference ``elo`` (logistic Elo)."""
    return 1 / (1 + 10 ** (-elo / 400))


def llr(counts: ArrayLike, elo0: float, elo1: float) -> NDArray[np.float64]:
    """The GSPRT's log-likelihood ratio of H1 (``elo1``) to H0 (``elo0``) given pentanomial
    ``counts`` (the last axis, five classes; any leading axes are separate tests).

    Example:
        >>> float(llr([0, 0, 5, 0, 0], 0, 50)) < 0
        True
    """
    n = np.maximum(np.asarray(counts, dtype=np.float64), EPSILON)
    ratio = _log_weights(n, expected_score(elo0)) - _log_weights(n, expected_score(elo1))
    total: NDArray[np.float64] = np.sum(n * ratio, axis=-1)
    return total


def _log_weights(n: NDArray[np.float64], s: float) -> NDArray[np.float64]:
    """``log(1 + x (a_i - s))`` of the maximum-likelihood pentanomial of mean ``s``
    (``p_i = f_i / (1 + x (a_i - s))``).

    ``x`` is the root of ``g(x) = sum_i n_i d_i / (1 + x d_i)`` (``d_i = a_i - s``) on the
    interval where every ``1 + x d_i`` is positive, over which ``g`` decreases from plus to
    minus infinity: Newton's steps from 0, kept inside a bracket of the root that every
    step narrows (a step that would leave it bisects instead).
    """
    d = _SCORES - s
    counts = n.reshape(-1, len(_SCORES))
    x = np.zeros(len(counts))
    low = np.full(len(counts), -1 / d.max())
    high = np.full(len(counts), -1 / d.min())
    todo = np.arange(len(counts))  # the roots not yet found: only those are stepped
    for _ in range(_MAX_STEPS):
        if not len(todo):
            break
        at = x[todo]
        terms = counts[todo] * d / (1 + at[:, None] * d)
        g = terms.sum(axis=-1)
        slope = -(terms * d / (1 + at[:, None] * d)).sum(axis=-1)
        low[todo] = np.where(g > 0, at, low[todo])
        high[todo] = np.where(g > 0, high[todo], at)
        # Newton's step on g times the factors of its poles, (1 + x d_0) (1 + x d_4): the
        # same root, but smooth at the poles, near which a root of a rare class lies
        poles = (1 + at * d[0]) * (1 + at * d[-1])
        poles_slope = d[0] * (1 + at * d[-1]) + d[-1] * (1 + at * d[0])
        newton = at - g * poles / (slope * poles + g * poles_slope)
        inside = (newton > low[todo]) & (newton < high[todo])
        after = np.where(inside, newton, (low[todo] + high[todo]) / 2)
        after = np.where(g == 0, at, after)  # a root hit exactly (a mean of s itself)
        moved = np.abs(after - at) > 1e-12 * (1 + np.abs(after))
        x[todo] = after
        todo = todo[moved]
    weights: NDArray[np.float64] = np.log1p(x[:, None] * d).reshape(n.shape)
    return weights


_MAX_STEPS = 200
"""Newton's steps at most (bisections included): a bisection alone gets to rounding in 64."""


@dataclass(frozen=True)
class SprtTest:
    """The test's settings: the hypotheses (B's Elo over A), the error rates, the cap.

    Attributes:
        elo0: H0's Elo difference (B is not stronger by ``elo1``).
        elo1: H1's Elo difference, above ``elo0``.
        alpha: the rate of ``stronger`` when H0 holds.
        beta: the rate of ``not stronger`` when H1 holds.
        max_games: games after which, with no bound reached, the test is ``inconclusive``.

    Raises:
        ValueError: for Elo differences that are not finite within :data:`MAX_ELO` or not
            ``elo0 < elo1``, error rates outside ``(0, 0.5]``, or ``max_games`` that is not
            an even integer from 2 to 1000000.
    """

    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = DEFAULT_MAX_GAMES

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise ValueError(f"{name} must be a number, got {value!r}")
        if not (-MAX_ELO <= self.elo0 < self.elo1 <= MAX_ELO):  # nan fails too
            raise ValueError(
                f"elo0 and elo1 must be Elo differences from {-MAX_ELO:g} to {MAX_ELO:g} with "
                f"elo0 < elo1, got elo0={self.elo0!r}, elo1={self.elo1!r}"
            )
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) <= 0.5:
                raise ValueError(f"{name} must be an error rate > 0 and <= 0.5, got "
                                 f"{getattr(self, name)!r}")  # fmt: skip
        games = self.max_games
        if not isinstance(games, int) or isinstance(games, bool) or not (
            2 <= games <= 1_000_000 and games % 2 == 0
        ):
            raise ValueError(f"max_games must be an even integer from 2 to 1000000 (pairs of "
                             f"seats), got {games!r}")  # fmt: skip

    @property
    def bounds(self) -> tuple[float, float]:
        """The LLR's lower and upper bounds: ``log(beta / (1 - alpha))`` and
        ``log((1 - beta) / alpha)``."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    @property
    def max_pairs(self) -> int:
        """The cap in pairs."""
        return self.max_games // 2

    def decision(self, value: float, num_pairs: int) -> str | None:
        """The decision at an LLR of ``value`` after ``num_pairs`` pairs (None: go on)."""
        lower, upper = self.bounds
        if value >= upper:
            return "stronger"
        if value <= lower:
            return "not stronger"
        return "inconclusive" if num_pairs >= self.max_pairs else None


@dataclass
class Walk:
    """The test walked pair by pair, in pair order, up to its decision.

    Attributes:
        test: the settings.
        counts: the pentanomial of the pairs walked (B's points: 0, 0.5, 1, 1.5, 2).
        llr: their log-likelihood ratio.
        decision: one of :data:`DECISIONS`, or None while the test goes on.
    """

    test: SprtTest
    counts: list[int] = field(default_factory=lambda: [0] * len(PAIR_POINTS))
    llr: float = 0.0
    decision: str | None = None

    @property
    def num_pairs(self) -> int:
        """The pairs walked."""
        return sum(self.counts)

    def add(self, points: float) -> None:
        """Walk one more pair, giving B ``points``.

        Raises:
            ValueError: once decided (no pair counts past the stop), or for points that
                are not one of :data:`~agents.arena.pairs.PAIR_POINTS`.
        """
        if self.decision is not None:
            raise ValueError(f"the test was decided ({self.decision}); no pair counts after")
        if points not in PAIR_POINTS:
            raise ValueError(f"a pair gives 0, 0.5, 1, 1.5 or 2 points, got {points!r}")
        self.counts[PAIR_POINTS.index(points)] += 1
        self.llr = float(llr(self.counts, self.test.elo0, self.test.elo1))
        self.decision = self.test.decision(self.llr, self.num_pairs)


def walk_pairs(test: SprtTest, points: Iterable[float]) -> Walk:
    """The test walked over ``points`` (B's, pair by pair in pair order) until it decides
    or they run out; the pairs after the decision are not counted."""
    walk = Walk(test)
    for value in points:
        walk.add(value)
        if walk.decision is not None:
            break
    return walk


def comparison_tasks(
    ladder: Ladder, a: str, b: str, seed: int, pairs: range
) -> list[GameTask]:
    """The games of ``pairs``: the ``k``-th opens from ``derive_seed(ladder.seed, seed, k)``,
    A in seat 0 of game ``2k`` and B in seat 0 of game ``2k + 1``."""
    tasks = []
    for pair in pairs:
        game_seed = derive_seed(ladder.seed, seed, pair)
        tasks.append(GameTask(f"pair #{2 * pair}", (a, b), (a, b), game_seed))
        tasks.append(GameTask(f"pair #{2 * pair + 1}", (a, b), (b, a), game_seed))
    return tasks


def b_points(pair: Sequence[Record]) -> float:
    """B's points in a pair of games (B sits in seat 1 of even-numbered games)."""
    points = 0.0
    for record in pair:
        b_seat = 1 - game_number(record) % 2
        points += 0.5 if record["winner"] == NO_WINNER else float(record["winner"] == b_seat)
    return points


@dataclass(frozen=True)
class ComparisonCard(BaseCard):
    """A comparison with everything needed to quote, check and reproduce it: a card of
    format :data:`~agents.rating.card_format.CARD_FORMAT` and kind ``"comparison"``.

    Attributes:
        ladder, ladder_sha256: the version and identity of the ladder whose rules and
            openings the games were played with.
        game, params: the game and every rule parameter.
        a, b: the specs compared (the test asks whether B is stronger than A).
        files: the SHA-256 of each file the specs load, by path.
        seed: the openings' seed (0: the ladder's).
        cpu_cap: the CPU seconds per turn past which a player lost by time.
        elo0, elo1, alpha, beta, max_games: the test (:class:`SprtTest`).
        pentanomial: the pairs counted, by B's points (0, 0.5, 1, 1.5, 2).
        llr: their log-likelihood ratio; lower, upper: the bounds.
        num_games: the games counted (up to the decision; a batch may have played more).
        decision: ``"stronger"``, ``"not stronger"`` or ``"inconclusive"``.
        line: the decision in words.
        provenance: the package's version and commit, the date, the software and the
            machine (:class:`~agents.rating.card_format.Provenance`).
    """

    kind: ClassVar[str] = KIND
    ladder: str
    ladder_sha256: str
    game: str
    params: dict[str, Any]
    a: str
    b: str
    files: dict[str, str]
    seed: int
    cpu_cap: float
    elo0: float
    elo1: float
    alpha: float
    beta: float
    max_games: int
    pentanomial: list[int]
    llr: float
    lower: float
    upper: float
    num_games: int
    decision: str
    line: str
    provenance: Provenance


def decision_line(a: str, b: str, walk: Walk) -> str:
    """The decision, last: ``'mcts:simulations=200' against 'mcts:simulations=100', 212
    games, LLR 2.97 (bounds -2.94, 2.94): stronger``."""
    lower, upper = walk.test.bounds
    return (f"{b!r} against {a!r}, {2 * walk.num_pairs} games, LLR {walk.llr:.2f} (bounds "
            f"{lower:.2f}, {upper:.2f}): {walk.decision or 'inconclusive'}")


def make_card(
    ladder: Ladder, run: Mapping[str, Any], walk: Walk, *, cpu_cap: float
) -> ComparisonCard:
    """The card of a decided comparison (``run``: its description, :func:`compare`'s)."""
    test = walk.test
    lower, upper = test.bounds
    return ComparisonCard(
        ladder=ladder.version, ladder_sha256=ladder.identity, game=ladder.game,
        params=game_params(ladder.game, ladder.params), a=run["a"], b=run["b"],
        files=dict(run["files"]), seed=run["seed"], cpu_cap=cpu_cap,
        elo0=test.elo0, elo1=test.elo1, alpha=test.alpha, beta=test.beta,
        max_games=test.max_games, pentanomial=list(walk.counts), llr=round(walk.llr, 4),
        lower=round(lower, 4), upper=round(upper, 4), num_games=2 * walk.num_pairs,
        decision=walk.decision or "inconclusive", line=decision_line(run["a"], run["b"], walk),
        provenance=Provenance.now([run["a"], run["b"]], ladder.game),
    )


def compare(
    a: str,
    b: str,
    *,
    game: str,
    output: Path,
    rules: Mapping[str, Any] | None = None,
    ladder: Ladder | None = None,
    test: SprtTest | None = None,
    seed: int = 0,
    cpu_cap: float = DEFAULT_CPU_CAP,
    run_options: dict[str, Any] | None = None,
    resume: bool = False,
    overwrite: bool = False,
    check: bool = True,
    say: Say = print,
    on_start: Callable[[], None] | None = None,
) -> ComparisonCard:
    """Test whether ``b`` is stronger than ``a`` at ``game``, playing pairs of games on the
    ladder's openings until the test decides, and write ``output/card.json``.

    ``output/results.jsonl`` holds the games (``resume`` keeps those already there) and
    ``output/comparison.json`` what the run is; the folder is held and checked as a
    rating's (:func:`~agents.rating.run.rate_spec`).

    Args:
        game: the game.
        rules: its rules (None: the defaults), which pick its ladder.
        ladder: the ladder whose rules and openings to play (default: the shipped one of
            the game and rules).
        test: the test (default :class:`SprtTest`'s: elo0 0, elo1 50, alpha = beta = 0.05,
            at most 2000 games).
        seed: the openings' seed (0: the ladder's).
        cpu_cap: CPU seconds per turn past which a player loses by time.
        run_options: further :class:`~agents.arena.plan.RunConfig` settings (``workers``,
            ``backend``, ``address``); ``workers`` pairs are played at a time.
        on_start: called once every check has passed (the arguments, the folder, and each
            spec built once: :func:`~agents.arena.tournament.check_specs`), before the run
            writes anything: where a caller announces it, so that a refusal comes alone.

    Raises:
        ValueError: for a bad test, seed or cap, a ladder of another game or rules, a bad
            spec, a folder another run holds or that holds another run, a file changed
            during the run, and what :func:`~agents.arena.tournament.run_games` raises.
    """
    test = test or SprtTest()
    check_arguments(test.max_games, seed, cpu_cap)
    ladder = _the_ladder(game, rules, ladder)
    options = dict(run_options or {})
    if "time_budget" in options:
        raise ValueError("give the CPU cap as cpu_cap=, not as run_options' time_budget")
    config = ladder.run_config(**options, time_budget=cpu_cap)
    files = spec_files(a, ladder.game) | spec_files(b, ladder.game)
    run = {"ladder": ladder.name, "ladder_sha256": ladder.identity, "a": a, "b": b,
           "seed": seed, **asdict(test), "files": files}  # fmt: skip
    with locked_folder(output, "comparison folder"):
        check_folder(output, run, resume=resume, overwrite=overwrite, kind=KIND)
        walk = _play_pairs(ladder, run, test, output, config, resume=resume,
                           overwrite=overwrite, check=check, say=say,
                           on_start=on_start)  # fmt: skip
        card = make_card(ladder, run, walk, cpu_cap=cpu_cap)
        write_card(card, output / CARD_FILE)
    return card


def _the_ladder(game: str, rules: Mapping[str, Any] | None, ladder: Ladder | None) -> Ladder:
    """The ladder given (which must be of ``game`` and ``rules``), or the shipped one."""
    if ladder is None:
        return find_ladder(game, rules)
    if ladder.game != game or (
        rules is not None and game_params(game, dict(rules)) != game_params(game, ladder.params)
    ):
        wanted = setting_name(game, dict(rules or ladder.params))
        raise ValueError(f"the ladder given is the {ladder.name} ({ladder.game} "
                         f"{ladder.setting}), not one of {game} {wanted}")  # fmt: skip
    return ladder


def _play_pairs(
    ladder: Ladder,
    run: dict[str, Any],
    test: SprtTest,
    output: Path,
    config: RunConfig,
    *,
    resume: bool,
    overwrite: bool,
    check: bool,
    say: Say,
    on_start: Callable[[], None] | None,
) -> Walk:
    """Play batches of pairs into ``output`` on one pool and one open results file
    (:func:`~agents.arena.tournament.game_session`), walking each batch's pairs in order,
    until the test decides; the walk."""
    walk = Walk(test)
    batch = _pairs_at_once(config)

    def next_batch() -> list[GameTask]:
        pairs = range(walk.num_pairs, min(walk.num_pairs + batch, test.max_pairs))
        return comparison_tasks(ladder, run["a"], run["b"], run["seed"], pairs)

    def next_tasks(played: list[Record]) -> list[GameTask]:
        for pair in pair_groups(played):
            walk.add(b_points(pair))
            if walk.decision is not None:
                break
        say(f"{2 * walk.num_pairs} games: pentanomial {walk.counts}, LLR {walk.llr:.2f}")
        return [] if walk.decision is not None else next_batch()

    play_batches(output, run, config, next_batch(), next_tasks, kind=KIND, resume=resume,
                 overwrite=overwrite, check=check, on_start=on_start)  # fmt: skip
    return walk


def _pairs_at_once(config: RunConfig) -> int:
    """The pairs a batch plays: one per worker (one in this process)."""
    return max(config.num_workers, 1)


def walk_of_records(test: SprtTest, records: Iterable[Record]) -> Walk:
    """The test walked over a comparison's games: their complete pairs in pair order."""
    pairs = sorted((pair for pair in pair_groups(records) if len(pair) == 2),
                   key=lambda pair: game_number(pair[0]) // 2)  # fmt: skip
    return walk_pairs(test, (b_points(pair) for pair in pairs))

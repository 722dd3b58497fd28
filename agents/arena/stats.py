"""Summaries of game records: results per pairing and seat, Wilson intervals, Elo ratings.

A record is a dict as :mod:`agents.arena.tournament` writes it, with at least ``pairing``,
``seats`` and ``winner_spec`` (None for a draw). A draw counts as half a win throughout.

Ratings are Bradley-Terry strengths fitted by maximum likelihood with Hunter's (2004) MM
iterations and shown on the Elo scale (400 * log10). An agent that won every game would
have an infinite rating, so each pairing that was played also counts ``prior_draws`` virtual
draws (as BayesElo does); this shrinks ratings a little towards each other and keeps them
finite. Their 95% intervals come from the likelihood's curvature: each rating plus or minus
1.96 standard errors, the covariance of the ratings (centred on mean 0) being the inverse
of the observed Fisher information (its pseudo-inverse, as the mean is fixed). Draws count
as half wins there too, which overstates the spread a little when games are drawn.

Example:
    >>> records = [{"pairing": ["a", "b"], "seats": ["a", "b"], "winner_spec": "a"}] * 3
    >>> round(elo_ratings(records)["a"])
    169
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.arena.match import FAULTS
from agents.arena.record_rules import record_game, record_params
from trap_env.game import played_params
from trap_env.games import get_game

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "ELO_PER_LOG_STRENGTH",
    "PairingSummary",
    "elo_intervals",
    "elo_ratings",
    "format_report",
    "plot_report",
    "records_title",
    "replay_note",
    "report_figure",
    "run_title",
    "score_matrix",
    "specs_of",
    "summarize_pairings",
    "wilson_interval",
]

Record = dict[str, Any]

ELO_PER_LOG_STRENGTH = 400 / math.log(10)
"""Elo points per unit of natural-log strength (the Elo scale is 400 * log10)."""


def wilson_interval(score: float, num_games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a win rate (95% with the default ``z``).

    Args:
        score: wins, with draws as halves.
        num_games: games played; 0 gives the uninformative interval (0, 1).
        z: the normal quantile of the confidence level.

    Raises:
        ValueError: if ``score`` is not within ``[0, num_games]``.
    """
    if not 0 <= score <= num_games:
        raise ValueError(f"score must be within [0, {num_games}], got {score}")
    if num_games == 0:
        return (0.0, 1.0)
    rate = score / num_games
    z2 = z * z
    centre = (rate + z2 / (2 * num_games)) / (1 + z2 / num_games)
    spread = z * math.sqrt(rate * (1 - rate) / num_games + z2 / (4 * num_games**2))
    spread /= 1 + z2 / num_games
    return (max(0.0, centre - spread), min(1.0, centre + spread))


@dataclass
class PairingSummary:
    """The games of one pairing, from the first agent's side.

    Attributes:
        first, second: the two agent specs.
        results: first's (wins, draws, losses) over all games.
        by_seat: first's (wins, draws, losses) when it sat in seat 0, and in seat 1.
        reasons: how many games ended by each reason.
    """

    first: str
    second: str
    results: list[int] = field(default_factory=lambda: [0, 0, 0])
    by_seat: list[list[int]] = field(default_factory=lambda: [[0, 0, 0], [0, 0, 0]])
    reasons: dict[str, int] = field(default_factory=dict)

    @property
    def num_games(self) -> int:
        """Games played."""
        return sum(self.results)

    @property
    def score(self) -> float:
        """First's wins plus half its draws."""
        return self.results[0] + self.results[1] / 2

    @property
    def win_rate(self) -> float:
        """First's score per game (0 without games)."""
        return self.score / self.num_games if self.num_games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The Wilson 95% interval of ``win_rate``."""
        return wilson_interval(self.score, self.num_games)

    def add(self, record: Record) -> None:
        """Count one game of this pairing."""
        outcome = _outcome(record, self.first)
        self.results[outcome] += 1
        self.by_seat[list(record["seats"]).index(self.first)][outcome] += 1
        reason = record.get("reason", "?")
        self.reasons[reason] = self.reasons.get(reason, 0) + 1


def _outcome(record: Record, spec: str) -> int:
    """0, 1 or 2: ``spec`` won, drew or lost the game."""
    winner = record["winner_spec"]
    return 1 if winner is None else (0 if winner == spec else 2)


def specs_of(records: Iterable[Record]) -> list[str]:
    """The agent specs in the records, in order of first appearance."""
    seen: dict[str, None] = {}
    for record in records:
        seen.update(dict.fromkeys(record["pairing"]))
    return list(seen)


def summarize_pairings(records: Iterable[Record]) -> list[PairingSummary]:
    """One summary per pairing (either order of its two specs), in order of first appearance."""
    summaries: dict[frozenset[str], PairingSummary] = {}
    for record in records:
        first, second = record["pairing"]
        key = frozenset((first, second))
        summaries.setdefault(key, PairingSummary(first, second)).add(record)
    return list(summaries.values())


def score_matrix(records: Iterable[Record], specs: Sequence[str]) -> list[list[float | None]]:
    """``matrix[i][j]``: the score rate of ``specs[i]`` against ``specs[j]`` (None unplayed)."""
    index = {spec: i for i, spec in enumerate(specs)}
    matrix: list[list[float | None]] = [[None] * len(specs) for _ in specs]
    for summary in summarize_pairings(records):
        i, j = index[summary.first], index[summary.second]
        if summary.num_games:
            matrix[i][j] = summary.win_rate
            matrix[j][i] = 1 - summary.win_rate
    return matrix


def elo_ratings(
    records: Iterable[Record], prior_draws: float = 1.0, iterations: int = 10_000
) -> dict[str, float]:
    """Elo-scale ratings by maximum likelihood (Bradley-Terry, draws as half wins).

    Args:
        records: the games.
        prior_draws: virtual draws added to every pairing played (keeps ratings finite).
        iterations: the most MM iterations; they stop earlier once ratings move < 1e-9.

    Returns:
        Rating per spec, centred on a mean of 0.
    """
    scores, games = _pairing_counts(list(records), prior_draws)
    return _centred_elo(_fit_strengths(scores, games, iterations))


def elo_intervals(
    records: Iterable[Record], prior_draws: float = 1.0, z: float = 1.96
) -> dict[str, tuple[float, float]]:
    """The intervals of :func:`elo_ratings` (95% with the default ``z``), from the
    likelihood's curvature: each rating plus or minus ``z`` standard errors.

    Args:
        records: the games.
        prior_draws: virtual draws added to every pairing played, as the ratings count them.
        z: the normal quantile of the confidence level.

    Returns:
        ``(low, high)`` per spec, on the Elo scale of :func:`elo_ratings`.
    """
    scores, games = _pairing_counts(list(records), prior_draws)
    strengths = _fit_strengths(scores, games, 10_000)
    ratings = _centred_elo(strengths)
    errors = _standard_errors(strengths, games)
    return {spec: (rating - z * errors[spec], rating + z * errors[spec])
            for spec, rating in ratings.items()}  # fmt: skip


def _pairing_counts(
    records: Sequence[Record], prior_draws: float
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Each spec's score and its games against each opponent, the virtual draws counted."""
    specs = specs_of(records)
    scores = dict.fromkeys(specs, 0.0)
    games: dict[str, dict[str, float]] = {spec: {} for spec in specs}
    for summary in summarize_pairings(records):
        count = summary.num_games + prior_draws
        scores[summary.first] += summary.score + prior_draws / 2
        scores[summary.second] += summary.num_games - summary.score + prior_draws / 2
        games[summary.first][summary.second] = games[summary.first].get(summary.second, 0) + count
        games[summary.second][summary.first] = games[summary.second].get(summary.first, 0) + count
    return scores, games


def _centred_elo(strengths: dict[str, float]) -> dict[str, float]:
    """Strengths on the Elo scale, centred on a mean of 0."""
    ratings = {spec: 400 * math.log10(strength) for spec, strength in strengths.items()}
    mean = sum(ratings.values()) / len(ratings) if ratings else 0.0
    return {spec: rating - mean for spec, rating in ratings.items()}


def _standard_errors(
    strengths: dict[str, float], games: dict[str, dict[str, float]]
) -> dict[str, float]:
    """Each rating's standard error (Elo points): the square root of the diagonal of the
    pseudo-inverse of the observed Fisher information of the log-strengths."""
    index = {spec: i for i, spec in enumerate(strengths)}
    information = np.zeros((len(index), len(index)))
    for spec, opponents in games.items():
        for other, count in opponents.items():
            rate = strengths[spec] / (strengths[spec] + strengths[other])
            weight = count * rate * (1 - rate)
            information[index[spec], index[spec]] += weight
            information[index[spec], index[other]] -= weight
    variances = np.diag(np.linalg.pinv(information)) if index else np.zeros(0)
    return {spec: ELO_PER_LOG_STRENGTH * math.sqrt(max(float(variances[i]), 0.0))
            for spec, i in index.items()}  # fmt: skip


def _fit_strengths(
    scores: dict[str, float], games: dict[str, dict[str, float]], iterations: int
) -> dict[str, float]:
    """Hunter's MM update: strength_i = score_i / sum_j n_ij / (strength_i + strength_j)."""
    strengths = dict.fromkeys(scores, 1.0)
    if not strengths:
        return strengths
    for _ in range(iterations):
        updated = {
            spec: max(scores[spec], 1e-12)
            / sum(n / (strengths[spec] + strengths[other]) for other, n in games[spec].items())
            if games[spec]
            else 1.0
            for spec in strengths
        }
        norm = math.exp(sum(map(math.log, updated.values())) / len(updated))
        updated = {spec: value / norm for spec, value in updated.items()}
        change = max(abs(math.log(updated[s] / strengths[s])) for s in strengths)
        strengths = updated
        if change < 1e-9:
            break
    return strengths


# --- Reports ---------------------------------------------------------------------------


def format_report(records: Sequence[Record]) -> str:
    """Text tables: per pairing (overall and per seat) and per agent (score and rating).

    A line after them counts the games replayed after a machine stall, if any.
    """
    lines = [_pairing_table(summarize_pairings(records)), "", _agent_table(records)]
    note = replay_note(records)
    return "\n".join([*lines, "", note] if note else lines)


def replay_note(records: Iterable[Record]) -> str:
    """How many games were replayed after the machine stalled them or a cluster lost them.

    Empty if none was.
    """
    counts = [record.get("replays", 0) for record in records]
    replayed = sum(1 for count in counts if count)
    if not replayed:
        return ""
    return (
        f"replayed: {replayed} games ({sum(counts)} replays), which the machine stalled or "
        "the cluster lost (neither decides a game)"
    )


def _wdl(counts: Sequence[int]) -> str:
    return "-".join(map(str, counts))


def _pairing_table(summaries: Sequence[PairingSummary]) -> str:
    header = ["agent", "opponent", "games", "W-D-L", "win rate [95% CI]", "as seat 0", "as seat 1"]
    rows = []
    for summary in summaries:
        low, high = summary.interval
        rows.append(
            [
                summary.first,
                summary.second,
                str(summary.num_games),
                _wdl(summary.results),
                f"{summary.win_rate:5.1%} [{low:.1%}, {high:.1%}]",
                _wdl(summary.by_seat[0]),
                _wdl(summary.by_seat[1]),
            ]
        )
    return _table(header, rows)


def _agent_table(records: Sequence[Record]) -> str:
    ratings, intervals = elo_ratings(records), elo_intervals(records)
    header = ["agent", "games", "W-D-L", "score [95% CI]", "Elo [95% CI]", "faults", "max turn"]
    order = sorted(ratings, key=ratings.__getitem__, reverse=True)
    rows = [_agent_row(spec, records, ratings[spec], intervals[spec]) for spec in order]
    return _table(header, rows)


def _agent_row(
    spec: str, records: Sequence[Record], rating: float, interval: tuple[float, float]
) -> list[str]:
    """An agent's games, W-D-L, score, rating, faults, and longest turn (CPU seconds)."""
    played = [record for record in records if spec in record["pairing"]]
    counts = [0, 0, 0]
    faults, longest = 0, 0.0
    for record in played:
        outcome = _outcome(record, spec)
        counts[outcome] += 1
        faults += outcome == 2 and record.get("reason") in FAULTS
        for seat, seconds in enumerate(record.get("max_turn_time", [])):
            if record["seats"][seat] == spec:
                longest = max(longest, seconds)
    score = counts[0] + counts[1] / 2
    low, high = wilson_interval(score, len(played))
    rate = score / len(played) if played else 0.0
    elo = f"{rating:+.0f} [{interval[0]:+.0f}, {interval[1]:+.0f}]"
    return [spec, str(len(played)), _wdl(counts), f"{rate:5.1%} [{low:.1%}, {high:.1%}]", elo,
            str(faults), f"{longest:.2f} s"]  # fmt: skip


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in [header, ["-" * width for width in widths], *rows]
    ]
    return "\n".join(line.rstrip() for line in lines)


def run_title(
    game: str, played: Iterable[Mapping[str, Any]], time_budget: float | None
) -> str:
    """What a run plays, as its reports name it: ``"Trap! 7x7, at most 5 s CPU a turn"``.

    The title names the game, then each rule the games were played by that is not the
    game's default, or that varies from game to game (as ``"NAME LOW to HIGH"``); the
    rule ``board_size``, where the game has it, as the board (``"6x6 to 12x12"``),
    always.

    Args:
        game: the game's name in :mod:`trap_env.games` (or its path).
        played: the rules of the games played (none: the rules are left unsaid).
        time_budget: CPU seconds per turn; None or ``math.inf`` for no limit.
    """
    found = get_game(game)
    values: dict[str, set[Any]] = {}
    for params in played:
        for name, value in params.items():
            values.setdefault(name, set()).add(value)
    board = _values_text(values.pop("board_size", set()), "{}x{}")
    defaults = played_params(found)
    rules = [
        f"{name} {_values_text(seen, '{}')}"
        for name, seen in values.items()
        if seen != {defaults.get(name, _NO_DEFAULT)}
    ]
    unlimited = time_budget is None or math.isinf(time_budget)
    time = "no time limit" if unlimited else f"at most {time_budget:g} s CPU a turn"
    return ", ".join([f"{found.title}{' ' + board if board else ''}", *rules, time])


_NO_DEFAULT = object()
"""The default of a rule that the game does not have."""


def _values_text(values: set[Any], form: str) -> str:
    """One value (``form`` with it, twice), or the lowest to the highest."""
    if not values:
        return ""
    ordered = sorted(values, key=lambda value: (str(type(value)), value))
    shown = [form.format(value, value) for value in ordered[:1] + ordered[1:][-1:]]
    return " to ".join(shown)


def records_title(records: Sequence[Record]) -> str:
    """:func:`run_title` of the records: their game and time budget (the first record's,
    as one run's records share them) and every rule they were played by.

    Raises:
        ValueError: without records.
    """
    if not records:
        raise ValueError("records_title needs at least one record")
    game = record_game(records[0])
    found = get_game(game)
    played = [played_params(found, record_params(record)) for record in records]
    return run_title(game, played, records[0].get("time_budget"))


def plot_report(records: Sequence[Record], path: str | os.PathLike[str]) -> None:
    """Save :func:`report_figure` as a PNG.

    Raises:
        ImportError: with an install hint, if matplotlib is missing.
        ValueError: without records.
    """
    import matplotlib.pyplot as plt

    figure = report_figure(records)
    figure.savefig(path, dpi=100)
    plt.close(figure)


def report_figure(records: Sequence[Record]) -> Figure:
    """The win-rate matrix beside the Elo ratings with their 95% intervals, both ordered
    from the highest rating down, under :func:`records_title` (matplotlib's Agg backend).

    Raises:
        ImportError: with an install hint, if matplotlib is missing.
        ValueError: without records.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError("plotting needs matplotlib: pip install 'trap_env[plot]'") from error
    title = records_title(records)
    ratings, intervals = elo_ratings(records), elo_intervals(records)
    order = sorted(specs_of(records), key=ratings.__getitem__, reverse=True)
    size = max(4.0, 1.0 + 0.9 * len(order))
    figure, (left, right) = plt.subplots(
        1, 2, figsize=(2 * size + 3, size + 1), gridspec_kw={"width_ratios": [3, 2]}
    )
    figure.suptitle(f"{title}: {len(records)} games")
    _draw_matrix(left, score_matrix(records, order), order)
    _draw_ratings(right, [(spec, ratings[spec], intervals[spec]) for spec in order])
    figure.tight_layout()
    return figure


def _draw_ratings(axes: Any, rows: Sequence[tuple[str, float, tuple[float, float]]]) -> None:
    """Horizontal bars, the first row on top, each with its interval as an error bar."""
    values = [rating for _, rating, _ in rows]
    errors = [[rating - low for _, rating, (low, _) in rows],
              [high - rating for _, rating, (_, high) in rows]]  # fmt: skip
    bars = axes.barh(range(len(rows)), values, xerr=errors, color="tab:blue", capsize=3)
    axes.bar_label(bars, labels=[f"{value:+.0f}" for value in values], padding=3)
    axes.margins(x=0.25)
    axes.set_yticks(range(len(rows)), labels=[spec for spec, _, _ in rows])
    axes.invert_yaxis()
    axes.axvline(0, color="black", linewidth=0.8)
    axes.set_xlabel("Elo (mean 0), 95% interval")
    axes.set_title("Ratings")


def _draw_matrix(axes: Any, matrix: list[list[float | None]], specs: Sequence[str]) -> None:
    values = [[math.nan if value is None else value for value in row] for row in matrix]
    axes.imshow(values, cmap="RdYlGn", vmin=0, vmax=1)
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            if value is not None:
                axes.text(j, i, f"{value:.0%}", ha="center", va="center", fontsize=9)
    axes.set_xticks(range(len(specs)), labels=specs, rotation=30, ha="right")
    axes.set_yticks(range(len(specs)), labels=specs)
    axes.set_title("Win rate of row against column (draws = 1/2)")

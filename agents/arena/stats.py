"""Summaries of game records: results per pairing and seat, Wilson intervals, Elo ratings.

A record is a dict as :mod:`agents.arena.tournament` writes it, with at least ``pairing``,
``seats`` and ``winner_spec`` (None for a draw). A draw counts as half a win throughout.

Ratings are Bradley-Terry strengths fitted by maximum likelihood with Hunter's (2004) MM
iterations and shown on the Elo scale (400 * log10). An agent that won every game would
have an infinite rating, so each pairing that was played also counts ``prior_draws`` virtual
draws (as BayesElo does); this shrinks ratings a little towards each other and keeps them
finite.

Example:
    >>> records = [{"pairing": ["a", "b"], "seats": ["a", "b"], "winner_spec": "a"}] * 3
    >>> round(elo_ratings(records)["a"])
    169
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.arena.match import FAULTS

__all__ = [
    "PairingSummary",
    "elo_ratings",
    "format_report",
    "plot_report",
    "replay_note",
    "score_matrix",
    "specs_of",
    "summarize_pairings",
    "wilson_interval",
]

Record = dict[str, Any]


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
    records = list(records)
    specs = specs_of(records)
    summaries = summarize_pairings(records)
    scores = dict.fromkeys(specs, 0.0)
    games: dict[str, dict[str, float]] = {spec: {} for spec in specs}
    for summary in summaries:
        count = summary.num_games + prior_draws
        scores[summary.first] += summary.score + prior_draws / 2
        scores[summary.second] += summary.num_games - summary.score + prior_draws / 2
        games[summary.first][summary.second] = games[summary.first].get(summary.second, 0) + count
        games[summary.second][summary.first] = games[summary.second].get(summary.first, 0) + count
    strengths = _fit_strengths(scores, games, iterations)
    ratings = {spec: 400 * math.log10(strength) for spec, strength in strengths.items()}
    mean = sum(ratings.values()) / len(ratings) if ratings else 0.0
    return {spec: rating - mean for spec, rating in ratings.items()}


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
    ratings = elo_ratings(records)
    header = ["agent", "games", "W-D-L", "score [95% CI]", "Elo", "faults", "max turn"]
    order = sorted(ratings, key=ratings.__getitem__, reverse=True)
    return _table(header, [_agent_row(spec, records, ratings[spec]) for spec in order])


def _agent_row(spec: str, records: Sequence[Record], rating: float) -> list[str]:
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
    interval = f"{rate:5.1%} [{low:.1%}, {high:.1%}]"
    return [spec, str(len(played)), _wdl(counts), interval, f"{rating:+.0f}", str(faults),
            f"{longest:.2f} s"]  # fmt: skip


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in [header, ["-" * width for width in widths], *rows]
    ]
    return "\n".join(line.rstrip() for line in lines)


def plot_report(records: Sequence[Record], path: str | os.PathLike[str]) -> None:
    """Save a PNG: the win-rate matrix beside the Elo ratings.

    Raises:
        ImportError: with an install hint, if matplotlib is missing.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError("plotting needs matplotlib: pip install 'trap_env[plot]'") from error
    specs = specs_of(records)
    ratings = elo_ratings(records)
    matrix = score_matrix(records, specs)
    size = max(4.0, 1.0 + 0.9 * len(specs))
    figure, (left, right) = plt.subplots(
        1, 2, figsize=(2 * size + 3, size + 1), gridspec_kw={"width_ratios": [3, 2]}
    )
    _draw_matrix(left, matrix, specs)
    order = sorted(specs, key=ratings.__getitem__)
    bars = right.barh(range(len(order)), [ratings[spec] for spec in order], color="tab:blue")
    right.bar_label(bars, labels=[f"{ratings[spec]:+.0f}" for spec in order], padding=3)
    right.margins(x=0.25)
    right.set_yticks(range(len(order)), labels=order)
    right.axvline(0, color="black", linewidth=0.8)
    right.set_xlabel("Elo (mean 0)")
    right.set_title(f"Ratings ({len(records)} games)")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


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

"""Tests for agents.rating.coverage: the interval holds the true rating 95% of the time,
through the real schedule and estimate (docs/experiments.md has the full table)."""

from __future__ import annotations

from agents.rating.coverage import simulate_bands, synthetic_ladder, table


def test_the_interval_holds_the_true_rating_at_least_94_percent_of_the_time():
    """400 seeded ratings, 80 in each of five bands from 100 above the bottom rung to 100
    below the top one (the full run, 2,000 a band, is the docs' command). The old interval,
    which took the rungs' ratings as exact and every game alone, held it about half the time."""
    coverages = simulate_bands(num_ratings=80, num_bands=5, seed=2026)
    total = sum(row.num_ratings for row in coverages)
    assert sum(row.covered for row in coverages) / total >= 0.94, table(coverages)
    assert all(row.covered / row.num_ratings >= 0.9 for row in coverages), table(coverages)
    assert sum(row.covered_old for row in coverages) / total < 0.7, table(coverages)
    assert (coverages[0].low, coverages[-1].high) == (1100.0, 2250.0)


def test_the_synthetic_ladder_s_rungs_are_uncertain_or_exact_as_asked():
    loose, exact = synthetic_ladder(), synthetic_ladder(exact_rungs=True)
    assert loose.rungs == exact.rungs and len(loose.rungs) == 10
    assert loose.covariance is not None and exact.covariance is not None
    assert loose.covariance[0][0] == 0.0 < loose.covariance[-1][-1]
    assert all(value == 0.0 for row in exact.covariance for value in row)

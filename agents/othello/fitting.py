"""Fitting the Othello evaluation's weights to game results: logistic regression of each
position's outcome on the evaluation's terms.

The positions and outcomes are a teacher's games, as ``trap-train alphazero`` records them
for its warm start (``imitation.npz``: the observation planes of each decision and its
value target, the game's result for the player to act when ``--imitation-value-mix 0``).
Drawn games are left out; the positions with ``min_discs`` to ``max_discs`` discs on the
board are kept (the middle game, where the search's evaluation decides: the last empties
are solved exactly). The fit finds ``w`` maximising the likelihood of
``P(win) = sigmoid(w . terms)`` with a little L2 (Newton's method, NumPy), then scales
the weights so that mobility keeps its default, 8 (the scale only matters against the
value of a won game, which stays far beyond).

Example:
    python -m agents.othello.fitting runs/az_othello/imitation.npz
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path

import numpy as np

from agents.othello.bitboards import geometry
from agents.othello.evaluation import DEFAULT_WEIGHTS, Weights, terms

__all__ = ["fit_weights", "planes_terms", "read_samples"]

NAMES = tuple(item.name for item in fields(Weights))
"""The terms, in the order of :class:`~agents.othello.evaluation.Weights`' fields."""


def read_samples(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """The observation planes ``(n, N, N, 4)`` and outcomes ``(n,)`` of an ``imitation.npz``.

    Raises:
        ValueError: if the file lacks them, or its values are not game results (-1, 0, +1:
            recorded with ``--imitation-value-mix 0``).
    """
    with np.load(path) as data:
        if "observations" not in data.files or "values" not in data.files:
            raise ValueError(f"{path} holds no observations and values (an imitation.npz)")
        planes, values = np.asarray(data["observations"]), np.asarray(data["values"])
    if planes.ndim != 4 or planes.shape[3] != 4 or planes.shape[1] != planes.shape[2]:
        raise ValueError(f"{path}: observations of shape {planes.shape}, not Othello's planes")
    if not np.isin(values, (-1.0, 0.0, 1.0)).all():
        raise ValueError(
            f"{path}: its values are not game results (-1, 0, +1); record the teacher's games "
            "with --imitation-value-mix 0"
        )
    return planes, values


def planes_terms(planes: np.ndarray) -> np.ndarray:
    """The evaluation's terms ``(n, 6)`` (:data:`NAMES`' order) of observation planes seen
    from the player to act (plane 0 its discs, plane 1 the opponent's)."""
    n = planes.shape[1]
    geo, weights = geometry(n), 1 << np.arange(n * n, dtype=object)
    rows = []
    for own_plane, other_plane in zip(planes[..., 0], planes[..., 1], strict=True):
        own = int(weights[own_plane.reshape(-1).astype(bool)].sum())
        other = int(weights[other_plane.reshape(-1).astype(bool)].sum())
        found = terms(geo, own, other)
        rows.append([found[name] for name in NAMES])
    return np.array(rows, dtype=np.float64).reshape(-1, len(NAMES))


def fit_weights(
    planes: np.ndarray,
    values: np.ndarray,
    min_discs: int = 20,
    max_discs: int = 51,
    l2: float = 1e-3,
) -> tuple[Weights, int]:
    """The weights of the logistic fit (scaled to mobility 8) and the positions fitted.

    Raises:
        ValueError: if fewer than 100 decided positions have ``min_discs`` to ``max_discs``
            discs, or the fit does not give mobility a positive weight.
    """
    discs = planes[..., :2].sum(axis=(1, 2, 3))
    keep = (values != 0) & (discs >= min_discs) & (discs <= max_discs)
    if keep.sum() < 100:
        raise ValueError(
            f"only {int(keep.sum())} decided positions with {min_discs} to {max_discs} discs; "
            "fit on more games"
        )
    x = planes_terms(planes[keep])
    y = (values[keep] > 0).astype(np.float64)
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-x @ w))
        gradient = x.T @ (p - y) / len(y) + l2 * w
        hessian = (x * (p * (1 - p))[:, None]).T @ x / len(y) + l2 * np.eye(len(w))
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    mobility = w[NAMES.index("mobility")]
    if not mobility > 0:
        raise ValueError(
            f"the fit gives mobility the weight {mobility:.4f}, not a positive one to scale "
            "by; fit on games of a stronger teacher, or more of them"
        )
    scale = DEFAULT_WEIGHTS.mobility / mobility
    fitted = {name: round(float(v * scale), 2) for name, v in zip(NAMES, w, strict=True)}
    return Weights(**fitted), int(keep.sum())


def main(argv: Sequence[str] | None = None) -> int:
    """Fit the weights to a teacher's games; print them as an agent spec's options."""
    parser = argparse.ArgumentParser(prog="python -m agents.othello.fitting", description=__doc__,
                                     formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("samples", type=Path, help="an imitation.npz of trap-train alphazero")
    parser.add_argument("--min-discs", type=int, default=20)
    parser.add_argument("--max-discs", type=int, default=51)
    args = parser.parse_args(argv)
    try:
        planes, values = read_samples(args.samples)
        weights, count = fit_weights(planes, values, args.min_discs, args.max_discs)
    except (OSError, ValueError) as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 1
    options = ",".join(f"{name}={getattr(weights, name):g}" for name in NAMES)
    print(f"{count} positions; expectiminimax:{options}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

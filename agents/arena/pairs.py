"""Pairs of games: one opening played twice, seats swapped, scored as one outcome.

A run pairs its games by number: games ``2k`` and ``2k + 1`` of a pairing (its
``game_id`` ends in ``#<number>``) share a seed, so they open alike with the seats swapped
(:func:`agents.arena.plan.round_robin` with ``paired_seeds``, a rating's rounds). Their
two results are correlated (the same opening favours one seat in both), so a pair is the
unit of independent sampling: its points (0, 0.5, 1, 1.5 or 2 for the first spec of the
pairing) fall in five classes, the pentanomial model of paired engine tests (fishtest).

Example:
    >>> pentanomial([0.0, 1.0, 1.0, 2.0, 1.5])
    (1, 0, 2, 1, 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["PAIR_POINTS", "game_number", "pair_groups", "pentanomial"]

Record = dict[str, Any]

PAIR_POINTS = (0.0, 0.5, 1.0, 1.5, 2.0)
"""The points a pair can give one side: its five classes, from two losses to two wins."""


def game_number(record: Record) -> int:
    """The number of a game within its pairing: what its ``game_id`` ends with (``#7``).

    Raises:
        ValueError: for a ``game_id`` that does not end in ``#<number>``.
    """
    head, _, number = str(record["game_id"]).rpartition("#")
    if not head or not number.isdigit():
        raise ValueError(f"game_id {record['game_id']!r} does not end in '#<number>'")
    return int(number)


def pair_groups(records: Iterable[Record]) -> list[list[Record]]:
    """The games grouped by pair: those of one pairing whose numbers are ``2k`` and
    ``2k + 1``, in the order each pair was first seen (a pair cut short holds one game)."""
    groups: dict[tuple[tuple[str, ...], int], list[Record]] = {}
    for record in records:
        key = (tuple(record["pairing"]), game_number(record) // 2)
        groups.setdefault(key, []).append(record)
    return list(groups.values())


def pentanomial(points: Sequence[float] | Iterable[float]) -> tuple[int, int, int, int, int]:
    """How many pairs gave each of :data:`PAIR_POINTS`.

    Raises:
        ValueError: for points that are not one of them.
    """
    counts = [0] * len(PAIR_POINTS)
    for value in points:
        if value not in PAIR_POINTS:
            raise ValueError(f"a pair gives 0, 0.5, 1, 1.5 or 2 points, got {value!r}")
        counts[PAIR_POINTS.index(value)] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]

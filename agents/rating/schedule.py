"""A ladder's calibration schedule: which games its calibration plays, stage by stage.

A first version's calibration is one round robin of the rungs (:func:`calibration_tasks`);
a later version's (one with ``pair_games``) is played in stages, the round robin then games
between neighbours by the ratings the games so far give (:func:`calibration_stage`). A stage
depends only on the games before it, so the games recorded are a calibration's state:
:mod:`agents.rating.calibrate` plays the schedule, resuming where it stopped, and
:mod:`agents.rating.verify` plays it again over a finished calibration's games
(:func:`calibration_games`). The games are fitted by :mod:`agents.rating.fit`.

Example:
    >>> from agents.rating.ladder import new_ladder
    >>> ladder = new_ladder("trap", {"board_size": 4}, ["random", "greedy"], version=2)
    >>> len(calibration_tasks(ladder)), calibration_stage(ladder, []) == calibration_tasks(ladder)
    (2, True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from agents.arena.plan import GameTask, pairing_tasks, round_robin
from agents.arena.results import Record
from agents.rating.fit import fit_ratings
from agents.rating.ladder import Ladder

__all__ = ["NEIGHBOUR_REACH", "calibration_games", "calibration_stage", "calibration_tasks"]

NEIGHBOUR_REACH = 2
"""How far apart in rating order two rungs of a staged calibration play beyond its opening
round robin: neighbours (1) and next neighbours (2)."""


def calibration_tasks(ladder: Ladder) -> list[GameTask]:
    """The round robin that opens a ladder's calibration (a first version's whole one):
    every pair, openings from both seats."""
    calibration = ladder.calibration
    return round_robin(ladder.specs, calibration.games_per_pairing, calibration.seed,
                       paired_seeds=True)


def calibration_stage(ladder: Ladder, records: Sequence[Record]) -> list[GameTask]:
    """The games of a calibration's next stage, after the games ``records`` of the stages
    before (in their order); none when it is done.

    The first stage is the round robin (:func:`calibration_tasks`), the whole calibration
    of a ladder without ``pair_games``. Each later stage orders the rungs by the ratings
    the games so far give (a virtual draw per pairing keeping them finite:
    :func:`fit_ratings`; ties by the rungs' order) and plays each pair of neighbours up to
    ``pair_games`` games (the top pair twice as many: the top rung has no neighbour above
    to place it, where the bottom one's is the anchor, whose rating is fixed), each pair of
    next neighbours up to a quarter of them, at most a quarter of ``pair_games`` more per
    pair a stage, so that an order that changes on more games spends the next games on the
    new neighbours. A pair's games extend its round
    robin's (numbers and seeds: :func:`~agents.arena.plan.pairing_tasks`). A stage depends
    only on the games before it: a resumed calibration plays the same games, and
    :func:`calibration_games` replays the schedule of a finished one.
    """
    calibration = ladder.calibration
    if not records:
        return calibration_tasks(ladder)
    if not calibration.pair_games:
        return []
    played: dict[frozenset[str], int] = {}
    for record in records:
        key = frozenset(record["pairing"])
        played[key] = played.get(key, 0) + 1
    ratings = fit_ratings(records)
    order = sorted(ladder.specs, key=lambda spec: (ratings[spec], ladder.specs.index(spec)))
    step = _even(calibration.pair_games // 4)
    tasks: list[GameTask] = []
    for first, second in _pairs_by_file_order(ladder, order):
        distance = abs(order.index(first) - order.index(second))
        target = calibration.pair_games if distance == 1 else _even(calibration.pair_games // 4)
        if distance == 1 and order[-1] in (first, second):
            target *= 2  # the top rung has one neighbour to place it: as many games as two
        have = played.get(frozenset((first, second)), 0)
        if have < target:
            tasks += pairing_tasks((first, second), range(have, min(target, have + step)),
                                   calibration.seed, paired_seeds=True)  # fmt: skip
    return tasks


def _even(games: int) -> int:
    """``games`` rounded down to an even number, at least 2 (whole pairs of seats)."""
    return max(games - games % 2, 2)


def _pairs_by_file_order(ladder: Ladder, order: Sequence[str]) -> list[tuple[str, str]]:
    """The pairs of rungs at most :data:`NEIGHBOUR_REACH` apart in ``order``, each as the
    round robin has it (its rungs in file order), in the order of the weaker rung."""
    pairs = []
    for i, weaker in enumerate(order):
        for stronger in order[i + 1 : i + 1 + NEIGHBOUR_REACH]:
            pair = sorted((weaker, stronger), key=ladder.specs.index)
            pairs.append((pair[0], pair[1]))
    return pairs


def calibration_games(
    ladder: Ladder, play: Callable[[list[GameTask]], list[Record]]
) -> list[Record]:
    """The games of the ladder's whole calibration, stage after stage
    (:func:`calibration_stage`), each stage's games from ``play`` (which plays them, or
    finds them among a finished calibration's), in the stages' order.

    Raises:
        ValueError: when ``play`` gives fewer games than asked (games left unplayed).
    """
    records: list[Record] = []
    while tasks := calibration_stage(ladder, records):
        played = play(tasks)
        if len(played) < len(tasks):
            raise ValueError(
                f"{len(tasks) - len(played)} games of the {ladder.name}'s calibration were "
                "left unplayed; run again with --resume"
            )
        records += played
    return records

"""Made-up games of a ladder's calibration, for the tests of its schedule and its fit: the
stronger rung of each game wins two in three, and nothing is played."""

from __future__ import annotations

from typing import Any

WEAK = ["random", "epsilon-greedy:epsilon=0.75", "epsilon-greedy:epsilon=0.5", "greedy"]
"""Four rungs of Trap! 4x4, in file order (their order of strength in the games below)."""


def games_by_strength(tasks: list[Any], strengths: dict[str, int]) -> list[dict[str, Any]]:
    """Records of ``tasks`` in which the stronger rung wins two games in three (the weaker
    the third), drawn from the game's number: nothing is played."""
    records = []
    for task in tasks:
        number = int(task.game_id.rpartition("#")[2])
        strong, weak = sorted(task.pairing, key=strengths.__getitem__, reverse=True)
        winner = weak if number % 3 == 2 else strong
        records.append({"game_id": task.game_id, "pairing": list(task.pairing),
                        "seats": list(task.seats), "seed": task.seed, "winner_spec": winner,
                        "winner": task.seats.index(winner), "reason": "score"})  # fmt: skip
    return records

"""Tests for agents.rating.schedule: a staged calibration spends its games on neighbours by
rating, and a stage depends only on the games before it (a resumed calibration plays the
same games; a finished one plays none)."""

from __future__ import annotations

import itertools

from agents.rating.ladder import new_ladder
from agents.rating.schedule import calibration_games, calibration_stage
from tests.support.calibration_games import WEAK, games_by_strength


def test_a_staged_calibration_spends_its_games_on_neighbours_and_resumes_alike():
    ladder = new_ladder("trap", {"board_size": 4}, WEAK, version=2, pair_games=12)
    assert (ladder.calibration.games_per_pairing, ladder.calibration.pair_games) == (2, 12)
    strengths = {spec: index for index, spec in enumerate(WEAK)}
    stages: list[int] = []

    def play(tasks: list) -> list[dict]:
        stages.append(len(tasks))
        return games_by_strength(tasks, strengths)

    records = calibration_games(ladder, play)
    counts = {pair: sum(1 for r in records if set(r["pairing"]) == set(pair))
              for pair in itertools.combinations(WEAK, 2)}  # fmt: skip
    assert [counts[(WEAK[i], WEAK[i + 1])] for i in range(3)] == [12, 12, 24]  # neighbours
    assert [counts[(WEAK[i], WEAK[i + 2])] for i in range(2)] == [2, 2]  # a quarter: 3 -> 2
    assert counts[(WEAK[0], WEAK[3])] == 2  # far: the round robin's alone
    assert stages == [12, *[6] * 5, *[2] * 6]  # the round robin, then 2 a neighbour a stage
    by_id = {r["game_id"]: r for r in records}
    assert calibration_games(ladder, lambda tasks: [by_id[t.game_id] for t in tasks]) == records
    assert calibration_stage(ladder, records) == []  # done: a resumed calibration plays none

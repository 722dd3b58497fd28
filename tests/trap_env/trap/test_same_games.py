"""Trap!'s play is unchanged, bit for bit: a fixed tournament writes the records in
``tests/data/same_games.json`` (seats, actions with landings, winners, reasons, turns).

The records were written by the code before the game protocol and the agent table moved
under the envs; any change to seeds, draws, tie-breaks or search order shows here.
"""

from __future__ import annotations

import json
from pathlib import Path

from trap_scripts import tournament

DATA = Path(__file__).parents[2] / "data" / "same_games.json"
SPECS = [
    "expectiminimax:depth=2,time_limit=inf",
    "mcts:simulations=24,time_limit=inf",
    "greedy",
    "random",
]
FIELDS = ("game_id", "pairing", "seats", "winner_spec", "seed", "max_turns", "winner",
          "reason", "detail", "turns", "actions")
"""The fields compared, beside the board size (which a record holds in its rules now)."""


def test_the_tournament_plays_the_recorded_games(tmp_path: Path) -> None:
    out = tmp_path / "run"
    argv = [*SPECS, "--games", "2", "--seed", "31337", "--time-budget", "none",
            "--workers", "1", "--out", str(out), "--no-plot", "--quiet"]
    assert tournament.main(argv) == 0
    lines = (out / "results.jsonl").read_text().splitlines()
    played = sorted(
        (
            {key: record[key] for key in FIELDS} | {"board_size": record["rules"]["board_size"]}
            for record in map(json.loads, lines)
        ),
        key=lambda record: record["game_id"],
    )
    assert played == json.loads(DATA.read_text())

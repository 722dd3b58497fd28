"""Fixtures of the rating tests: an agents folder of the test's own, for the ladder lookup."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from trap_scripts import rate as rate_cli

from agents import files
from agents.rating import ladder
from trap_env.games import game_names


@pytest.fixture
def ladders_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An agents folder whose ``<game>/ladders/`` are empty, which the lookup reads instead
    of the shipped ones (read afresh before and after the test); the rest of each game's
    folder (its bundled models) is the shipped one, linked."""
    root = tmp_path / "agents"
    for game in game_names():
        (root / game / "ladders").mkdir(parents=True)
        for shipped in sorted((files.AGENTS / game).glob("*")):
            if shipped.name != "ladders":
                (root / game / shipped.name).symlink_to(shipped)
    monkeypatch.setattr(files, "AGENTS", root)
    ladder._shipped.cache_clear()
    yield root
    ladder._shipped.cache_clear()


STAGED = ["--calibrate", "--rungs", "random", "epsilon-greedy:epsilon=0.75",
          "epsilon-greedy:epsilon=0.5", "--game", "trap", "--board-size", "4", "--ladder-version",
          "2", "--pair-games", "8", "--workers", "0"]  # fmt: skip
"""A v2 ladder of Trap! 4x4 of three weak rungs (each takes points from the others), in
stages: a round robin of 2 games a pair, then 8 games a pair of neighbours (16 the top pair:
30 games)."""


@pytest.fixture(scope="session")
def calibrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny staged calibration's folder (:data:`STAGED`), its games packed."""
    folder = tmp_path_factory.mktemp("calibrated")
    assert rate_cli.main([*STAGED, "--output", str(folder), "--ladder-out",
                          str(folder / "ladder.json")]) == 0  # fmt: skip
    return folder

"""Fixtures of the rating tests: an agents folder of the test's own, for the ladder lookup."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

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

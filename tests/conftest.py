"""Shared test settings: Hypothesis runs derandomized by default so that CI is repeatable,
50 examples a test unless the test asks for its own number (CI's 20 minutes hold the whole
suite); set HYPOTHESIS_PROFILE=explore for a longer, randomized search (1,000 examples).
"""

import gc
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# torch's tests use small matrices, on which a second thread only waits for the first: with
# one (torch reads this when it loads) tests/agents/rl/test_ppo.py and
# tests/agents/mcts/test_mcts.py took 16% less time (57 s against 68 s, 2 cores, 2026-11-27).
os.environ.setdefault("OMP_NUM_THREADS", "1")

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=50,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("explore", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@dataclass
class CollectionWatch:
    """The garbage collections (their generations) that started while ``active`` was True."""

    active: bool = False
    collections: list[int] = field(default_factory=list)


@pytest.fixture
def collection_watch() -> Iterator[CollectionWatch]:
    """The collector on, with every allocation due to start a collection; restored after."""
    watch = CollectionWatch()

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and watch.active:
            watch.collections.append(info["generation"])

    threshold, enabled = gc.get_threshold(), gc.isenabled()
    gc.callbacks.append(record)
    gc.set_threshold(1)
    gc.enable()
    try:
        yield watch
    finally:
        gc.callbacks.remove(record)
        gc.set_threshold(*threshold)
        (gc.enable if enabled else gc.disable)()


@pytest.fixture(scope="session", autouse=True)
def strangers() -> None:
    """The test-only games (:data:`tests.support.games.STRANGERS`) in the game table for the
    session, by name, as the shipped games are: game-parametrised tests run over them too."""
    from tests.support.games import register_strangers

    register_strangers()


ROOT = Path(__file__).resolve().parent.parent
"""The checkout: on ``PYTHONPATH``, subprocesses find the package ``tests``."""

PLANTED = "planted_game"
"""The module of :func:`planted_game`."""


@dataclass
class PlantedGame:
    """A game's path whose module leaves a marker file when it is imported.

    Attributes:
        path: the game's path, ``planted_game:GAME`` (the toy race of ``toy_game``).
        marker: the file its import creates.
        record: a genuine record of a game of it, naming its game by the path.
    """

    path: str
    marker: Path
    record: dict[str, Any]

    def was_imported(self) -> bool:
        """Whether anything imported the module."""
        return self.marker.exists() or PLANTED in sys.modules


@pytest.fixture
def planted_game(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[PlantedGame]:
    """A module on ``sys.path`` that no reading of a file may import (see :class:`PlantedGame`)."""
    from agents.arena.match import play_game
    from tests.support import toy_game

    folder = tmp_path_factory.mktemp("planted")
    marker = folder / "imported"
    (folder / f"{PLANTED}.py").write_text(
        f"open({str(marker)!r}, 'w').close()\nfrom tests.support.toy_game import GAME\n"
    )
    monkeypatch.syspath_prepend(str(folder))
    paths = [str(folder), str(ROOT), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))  # for the tests' subprocesses
    path = f"{PLANTED}:GAME"
    game = "tests.support.toy_game:GAME"
    result = play_game([toy_game.RandomRacer(), toy_game.Walker()], seed=1, game=game)
    seats = ["tests.support.toy_game.RandomRacer", "tests.support.toy_game.Walker"]
    record = {"game_id": "race #0", "pairing": seats, "seats": seats,
              "winner_spec": None if result.winner < 0 else seats[result.winner],
              **result.to_dict(), "game": path}  # fmt: skip
    yield PlantedGame(path, marker, record)
    sys.modules.pop(PLANTED, None)


@pytest.fixture(scope="session")
def trap_3x3_solved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder holding Trap! 3x3's solved table, solved once a session (seconds)."""
    from agents.solved import load_or_solve

    folder = tmp_path_factory.mktemp("xdg_cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(folder))
        load_or_solve("trap", {"board_size": 3, "decay": 50})
    return folder


@pytest.fixture
def solved_cache(trap_3x3_solved: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test reads solved tables from :func:`trap_3x3_solved`'s cache (``perfect`` plays)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(trap_3x3_solved))
    return trap_3x3_solved

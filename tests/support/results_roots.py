"""What a results root may hold, for the tests of the folder walks and the leaderboard: a
card as ``trap-rate`` writes it from made-up games (:func:`card_of`, no game is played), a
FIFO that a faulty reader would block on (:func:`fifo_released_after`) and a tree deeper
than Python's recursion limit (:func:`deep_tree`).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from agents.rating.ladder import Ladder
from agents.rating.run import make_card


def card_of(
    ladder: Ladder, spec: str, results: Mapping[str, tuple[int, int, int]]
) -> dict[str, Any]:
    """The card (as JSON reads it) of ``spec`` that won, drew and lost ``results[rung]``
    games against each rung named there; nothing is played, so it is instant."""
    records = []
    for rung, (wins, draws, losses) in results.items():
        winners = [0] * wins + [-1] * draws + [1] * losses  # the policy sits in seat 0
        records += [{"pairing": [spec, rung], "game_id": f"{rung} #{2 * index}",
                     "winner": winner, "reason": "score", "turns": 10,
                     "cpu_time": [0.01, 0.02], "max_turn_time": [0.002, 0.004]}
                    for index, winner in enumerate(winners)]  # fmt: skip
    card: dict[str, Any] = json.loads(make_card(ladder, spec, 0, records).to_json())
    return card


FORMAT_2_FIELDS = ("format", "kind", "environment", "machine", "policy_cpu", "interval",
                   "scale_low", "scale_high")
"""What a card of format 2 has that one of format 1 (written before formats) has not."""


def as_format_1(card: Mapping[str, Any], *without: str) -> dict[str, Any]:
    """``card`` as a card of format 1 was written (and without the fields ``without``)."""
    return {key: value for key, value in card.items()
            if key not in FORMAT_2_FIELDS and key not in without}  # fmt: skip


def write_card(folder: Path, card: Mapping[str, Any]) -> Path:
    """``folder/card.json`` holding ``card`` (NaN and Infinity written as Python writes them)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "card.json"
    path.write_text(json.dumps(card))
    return path


@contextlib.contextmanager
def deep_tree(root: Path, depth: int) -> Iterator[Path]:
    """Folders ``d/d/...`` ``depth`` deep under ``root``, the deepest given to the body,
    and removed after it (``shutil.rmtree``, pytest's cleanup of old temporary folders,
    recurses once per level and would fail on them).

    Both are done at the top, a level at a time (the tree is renamed under a new folder,
    or out of the one removed), so that no path the system resolves is long: fast.
    """
    top, aside = root / "d", root / ".deep-tree-aside"
    os.mkdir(top)
    for _ in range(depth - 1):
        os.rename(top, aside)
        os.mkdir(top)
        os.rename(aside, top / "d")
    try:
        yield root.joinpath(*["d"] * depth)
    finally:
        while top.is_dir():
            below = top / "d"
            if below.is_dir():
                os.rename(below, aside)
            for entry in os.scandir(top):
                os.unlink(entry.path)  # the deepest folder's files: every other is empty
            os.rmdir(top)
            if aside.is_dir():
                os.rename(aside, top)


@contextlib.contextmanager
def fifo_released_after(path: Path, seconds: float = 3.0) -> Iterator[None]:
    """A FIFO at ``path`` for the body to read around; should a reader still wait on it
    after ``seconds`` (the fault under test), a writer opens and closes it, so that the
    test fails instead of hanging."""
    os.mkfifo(path)
    done = threading.Event()

    def release() -> None:
        if done.wait(seconds):
            return
        while not done.wait(0.05):
            with contextlib.suppress(OSError):  # ENXIO: no reader waits yet
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))

    thread = threading.Thread(target=release, daemon=True)
    thread.start()
    started = time.monotonic()
    try:
        yield
        waited = time.monotonic() - started
    finally:
        done.set()
        thread.join()
    assert waited < seconds, f"a reader waited {waited:.1f} s on the FIFO {path.name}"

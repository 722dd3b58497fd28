"""Shared test settings: Hypothesis runs derandomized by default so that CI is repeatable.

Set HYPOTHESIS_PROFILE=explore for a longer, randomized search.
"""

import gc
import os
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
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

"""What the benchmark families share: a figure, a timed loop, the peer's name."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

PEER = "connect_four_v3 env()"


@dataclass
class Figure:
    """One measured figure."""

    name: str
    value: float
    unit: str
    note: str = ""


def timed_loop(body: Callable[[], int], seconds: float) -> float:
    """Call ``body`` (which returns a count of steps) until ``seconds`` pass; steps per second."""
    count, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        count += body()
    return count / elapsed

"""Slices of the shipped solved positions, which the accuracy tests score (the whole Trap!
3x3 set takes seconds)."""

from __future__ import annotations

import dataclasses

from agents.solved_positions import Positions, find_positions

SHIPPED = find_positions("trap", {"board_size": 3})
"""Trap! 3x3's shipped positions."""


def rows(positions: Positions, chosen: slice) -> Positions:
    """The positions of ``chosen`` rows, the rest of the set as it is."""
    arrays = ("states", "decisions", "observations", "legal", "values", "best")
    return dataclasses.replace(
        positions, **{name: getattr(positions, name)[chosen] for name in arrays}
    )


SAMPLE = rows(SHIPPED, slice(0, 800, 8))
"""100 positions of both decisions."""

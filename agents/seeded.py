"""``SeededAgent``: the base of agents that draw random numbers, from a generator the
caller seeds (``reset(seed)`` reseeds it for a new game), so that a seed replays a game.

The agent interface itself and its errors live on the ground floor (:mod:`trap_env.agent`);
the table of agents and :func:`~agents.registry.make_agent` in :mod:`agents.registry`.
"""

from __future__ import annotations

import random

__all__ = ["SeededAgent"]


class SeededAgent:
    """Base for agents that draw random numbers: holds a ``random.Random`` seeded by the caller."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; reseed when ``seed`` is given."""
        if seed is not None:
            self.rng.seed(seed)

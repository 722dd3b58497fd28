"""``SeededAgent``: the base of agents that draw random numbers, from a generator the
caller seeds (``reset(seed)`` reseeds it for a new game), so that a seed replays a game.

The agent interface itself and its errors live on the ground floor (:mod:`trap_env.agent`);
the table of agents and :func:`~agents.registry.make_agent` in :mod:`agents.registry`.
"""

from __future__ import annotations

import random
from typing import ClassVar

from trap_env.agent import UnsupportedGameError

__all__ = ["OneGameAgent", "SeededAgent"]


class SeededAgent:
    """Base for agents that draw random numbers: holds a ``random.Random`` seeded by the caller."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; reseed when ``seed`` is given."""
        if seed is not None:
            self.rng.seed(seed)


class OneGameAgent(SeededAgent):
    """Base of a seeded agent that plays one game's rules: ``check_game`` refuses a
    configuration of any other (``config_type`` and ``title`` name the game)."""

    config_type: ClassVar[type]
    title: ClassVar[str]

    def check_game(self, config: object) -> None:
        """Refuse any game but this one.

        Raises:
            UnsupportedGameError: for another game's configuration.
        """
        if not isinstance(config, self.config_type):
            kind = self.config_type.__name__
            article = "an" if kind[0] in "AEIOU" else "a"
            raise UnsupportedGameError(
                f"{type(self).__name__} plays {self.title} ({article} {kind}), got {config!r}"
            )

"""The one interface every policy satisfies, and the base of agents that draw random numbers.

An agent answers ``select_action(state)`` for a state where a decision is due with an
action (Trap!: a flat cell index, in phase ``MOVE`` or ``THROW``); ``reset(seed)`` starts
a new game (and reseeds its generator). All of an agent's randomness comes from the
generator it was given or seeded with. An agent may also say which games it can play with
``check_game(config)`` (see :func:`check_supports`).

The protocol and its errors live on the ground floor, :mod:`trap_env.agent`; the table of
agents and :func:`make_agent` in :mod:`agents.registry`. This module re-exports them under
their long-standing names.
"""

from __future__ import annotations

import random

from agents.options import parse_spec
from agents.registry import AGENT_TABLE, agent_names, make_agent, register
from agents.timing import pause_collector, resume_collector
from trap_env.agent import Agent, SpecError, UnsupportedGameError, check_supports

__all__ = [
    "AGENT_TABLE",
    "Agent",
    "SeededAgent",
    "SpecError",
    "UnsupportedGameError",
    "agent_names",
    "check_supports",
    "make_agent",
    "parse_spec",
    "pause_collector",
    "register",
    "resume_collector",
]


class SeededAgent:
    """Base for agents that draw random numbers: holds a ``random.Random`` seeded by the caller."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; reseed when ``seed`` is given."""
        if seed is not None:
            self.rng.seed(seed)

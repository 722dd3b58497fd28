"""Policies that play Trap!, behind one interface; build any of them from a spec string.

Subpackages: :mod:`agents.search` (expectiminimax and its evaluation), :mod:`agents.rl`
(the PPO agent and its training), :mod:`agents.arena` (one game, tournaments, statistics).
The built-in agents are listed in :data:`agents.base.BUILTIN_AGENTS` and imported only when
built.

Example:
    >>> from agents import make_agent
    >>> agent = make_agent("random", seed=0)
"""

from agents.base import (
    Agent,
    SpecError,
    UnsupportedGameError,
    agent_names,
    check_supports,
    make_agent,
    parse_spec,
    register,
)

__all__ = [
    "Agent",
    "SpecError",
    "UnsupportedGameError",
    "agent_names",
    "check_supports",
    "make_agent",
    "parse_spec",
    "register",
]

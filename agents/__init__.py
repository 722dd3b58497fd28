"""Policies that play Trap!, behind one interface; build any of them from a spec string.

Example:
    >>> from agents import make_agent
    >>> agent = make_agent("random", seed=0)
"""

from agents import expectiminimax as _expectiminimax  # noqa: F401  (registers the agents)
from agents import heuristics as _heuristics  # noqa: F401  (registers the agents)
from agents import ppo as _ppo  # noqa: F401  (registers "ppo"; torch loads only when built)
from agents import simple as _simple  # noqa: F401  (registers the agents)
from agents.base import Agent, SpecError, agent_names, make_agent, parse_spec, register

__all__ = ["Agent", "SpecError", "agent_names", "make_agent", "parse_spec", "register"]

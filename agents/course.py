"""The course adapter's old import path, kept for the line students paste into the course's
``Game.py``: ``from agents.course import PlayerAI`` (the adapter is :mod:`agents.trap.course`)."""

from agents.trap.course import PlayerAI, fallback_cell, state_from_grid

__all__ = ["PlayerAI", "fallback_cell", "state_from_grid"]

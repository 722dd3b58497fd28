"""The old name of :mod:`agents.batched_heuristics`, kept for code that imports it."""

from agents.batched_heuristics import *  # noqa: F403
from agents.batched_heuristics import __all__  # noqa: F401

"""Game-tree search written against a small game interface (:mod:`agents.search.game`).

The ``expectiminimax`` agent is :mod:`agents.trap.search`, its evaluation
:mod:`agents.trap.evaluation`. The names below load on first use, so importing the
evaluation (as the ``greedy:heuristic=eval`` agent does) does not load the search.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Game", "Search", "SearchResult", "SearchTimeout", "TrapGame", "timed_iterations"]

_LAZY = {
    "Game": "agents.search.game",
    "TrapGame": "agents.search.game",
    "Search": "agents.search.expectimax",
    "SearchResult": "agents.search.expectimax",
    "SearchTimeout": "agents.search.expectimax",
    "timed_iterations": "agents.search.expectimax",
}


def __getattr__(name: str) -> Any:
    """Load the search's names on first use (PEP 562)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'agents.search' has no attribute {name!r}")

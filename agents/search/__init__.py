"""Game-tree search of any game, written against the search's game interface
(:class:`agents.search.game.SearchGame`): expectiminimax with alpha-beta and chance pruning
(:mod:`agents.search.expectimax`), the alpha-beta driver of the chance-free games
(:mod:`agents.search.alphabeta`), and any rules-protocol game as a search game
(:mod:`agents.search.protocol_game`). Each game's reference agent lives in its own package
(Trap!'s :mod:`agents.trap.search`). The names below load on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

from trap_env.aliases import moved_attribute

__all__ = [
    "Search",
    "SearchGame",
    "SearchResult",
    "SearchStats",
    "SearchTimeout",
    "timed_iterations",
]

_LAZY = {
    "SearchGame": "agents.search.game",
    "Search": "agents.search.expectimax",
    "SearchResult": "agents.search.expectimax",
    "SearchStats": "agents.search.expectimax",
    "SearchTimeout": "agents.search.expectimax",
    "timed_iterations": "agents.search.expectimax",
}


_MOVED = {"Game": "agents.search.game:SearchGame", "TrapGame": "agents.trap.search_game:TrapGame"}
"""Names this package once held -> their new homes (deprecated)."""


def __getattr__(name: str) -> Any:
    """Load the search's names on first use, and the names that moved with a
    :class:`DeprecationWarning` (PEP 562)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in _MOVED:
        return moved_attribute(f"agents.search.{name}", _MOVED[name])
    raise AttributeError(f"module 'agents.search' has no attribute {name!r}")

"""Game-tree search written against a small game interface (:mod:`agents.search.game`)."""

from agents.search.expectimax import Search, SearchResult, SearchTimeout
from agents.search.game import Game, TrapGame

__all__ = ["Game", "Search", "SearchResult", "SearchTimeout", "TrapGame"]

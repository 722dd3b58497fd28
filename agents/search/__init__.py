"""Game-tree search written against a small game interface (:mod:`agents.search.game`)."""

from agents.search.expectimax import Search, SearchResult, SearchTimeout, timed_iterations
from agents.search.game import Game, TrapGame

__all__ = ["Game", "Search", "SearchResult", "SearchTimeout", "TrapGame", "timed_iterations"]

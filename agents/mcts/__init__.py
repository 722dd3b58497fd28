"""The ``mcts`` agent: AlphaZero-style PUCT search with chance nodes and a NumPy network."""

from agents.mcts.network import IncompatibleNetworkError, Network, load_network
from agents.mcts.search import Tree

__all__ = ["IncompatibleNetworkError", "Network", "Tree", "load_network"]

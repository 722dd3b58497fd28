"""Othello's agents: ``random`` (:mod:`agents.othello.simple`), ``greedy``, one ply on
discs, mobility and corners (:mod:`agents.othello.greedy`), and ``expectiminimax``
(aliases ``alphabeta``, ``minimax``), the generic alpha-beta search to a fixed depth
(:mod:`agents.othello.search`), all in :data:`agents.registry.AGENT_TABLE` under the game
``"othello"``.

Example:
    >>> from agents import make_agent
    >>> agent = make_agent("greedy", game="othello", seed=0)
"""

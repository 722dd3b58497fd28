"""Othello's agents: ``random`` (:mod:`agents.othello.simple`) and ``greedy``, one ply on
discs, mobility and corners (:mod:`agents.othello.greedy`), both in
:data:`agents.registry.AGENT_TABLE` under the game ``"othello"``.

Example:
    >>> from agents import make_agent
    >>> agent = make_agent("greedy", game="othello", seed=0)
"""

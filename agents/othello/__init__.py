"""Othello's agents: ``random`` (:mod:`agents.othello.random_agent`), ``greedy``, one ply on
discs, mobility and corners (:mod:`agents.othello.greedy`), ``expectiminimax`` (aliases
``alphabeta``, ``minimax``), the reference: iterative-deepening alpha-beta on bitboards
under a CPU-time budget with an exact endgame solver (:mod:`agents.othello.search`, over
:mod:`agents.othello.bitboards` and :mod:`agents.othello.evaluation`), all in
:data:`agents.registry.AGENT_TABLE` under the game ``"othello"``; the C++ game that
``openspiel-mcts`` (an agent of every game) searches on 8x8
(:mod:`agents.othello.openspiel_mcts`); and the CSC384 course adapter
(:mod:`agents.othello.course`).

Example:
    >>> from agents import make_agent
    >>> agent = make_agent("greedy", game="othello", seed=0)
"""

"""Colosseum Survival!'s agents: ``random`` (the course engine's random walk,
:mod:`agents.colosseum.random_agent`), ``greedy`` (one ply, :mod:`agents.colosseum.greedy`),
the reference ``expectiminimax`` (iterative-deepening alpha-beta,
:mod:`agents.colosseum.search`) and ``mcts`` (PUCT on heuristic priors and values,
:mod:`agents.colosseum.mcts`), over the evaluation of :mod:`agents.colosseum.evaluation`;
and the COMP 424 course adapter (:mod:`agents.colosseum.course`).
"""

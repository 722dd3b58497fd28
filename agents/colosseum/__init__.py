"""Colosseum Survival!'s agents: ``random`` (the course engine's random walk,
:mod:`agents.colosseum.random_agent`), ``greedy`` (one ply, :mod:`agents.colosseum.greedy`) and
the reference ``expectiminimax`` (iterative-deepening alpha-beta,
:mod:`agents.colosseum.search`), over the evaluation of :mod:`agents.colosseum.evaluation`.
"""

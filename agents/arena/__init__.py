"""Where agents meet: one game (:mod:`agents.arena.match`), parallel round robins
(:mod:`agents.arena.tournament`) with their results files (:mod:`agents.arena.results`) and
what the runner reads of its workers (:mod:`agents.arena.processes`), and the statistics of
the games (:mod:`agents.arena.stats`).
"""

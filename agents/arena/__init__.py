"""Where agents meet: one game (:mod:`agents.arena.match`), parallel round robins with
recorded results (:mod:`agents.arena.tournament`), and their statistics (:mod:`agents.arena.stats`).
"""

"""Where agents meet: one game of any game on the stack (:mod:`agents.arena.match`), the
plan of a run (:mod:`agents.arena.plan`), the guarded agent checks before it
(:mod:`agents.arena.probe`), a task in a worker (:mod:`agents.arena.worker`), the worker
pool (:mod:`agents.arena.pool`) or Ray (:mod:`agents.arena.ray_backend`), parallel round
robins (:mod:`agents.arena.tournament`) with their results files
(:mod:`agents.arena.results`), a recorded game checked against its rules
(:mod:`agents.arena.replays`), what the runner reads of its workers
(:mod:`agents.arena.processes`), and the statistics of the games (:mod:`agents.arena.stats`).
"""

"""Trap!'s agents: ``random`` (the course's random opponent, :mod:`agents.trap.random_agent`),
``greedy`` and its variants (one ply on a heuristic, :mod:`agents.trap.heuristics`, with
batched twins in :mod:`agents.trap.batched_heuristics`), the reference ``expectiminimax``
and its presets (:mod:`agents.trap.search` over the generic :mod:`agents.search`, with
:mod:`agents.trap.evaluation`; batched to a fixed depth in :mod:`agents.trap.batched_search`),
the course adapter (:mod:`agents.trap.course`) and the shipped networks (``models/``: the
``mcts`` network and the ``ppo`` policy), all in :data:`agents.registry.AGENT_TABLE` under the
game ``"trap"``; and ``trap-train``'s PPO training of that policy
(:mod:`agents.trap.ppo_training`, with its imitation warm start :mod:`agents.trap.pretrain`).

Example:
    >>> from agents import make_agent
    >>> agent = make_agent("greedy", game="trap", seed=0)
"""

"""Learned agents: the bundled MaskablePPO policy (:mod:`agents.rl.ppo`), its network
(:mod:`agents.rl.policy`) and its training (:mod:`agents.rl.training`, :mod:`agents.rl.pretrain`).
Training needs the ``rl`` extra; the agent loads torch only when built.
"""

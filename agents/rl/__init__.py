"""Learned agents and their training: the bundled MaskablePPO policy (:mod:`agents.rl.ppo`),
its network (:mod:`agents.rl.policy`), its training (:mod:`agents.rl.ppo_training`,
:mod:`agents.rl.pretrain`, :mod:`agents.rl.settings`) on the SB3 VecEnv over a batched
engine (:mod:`agents.rl.batched_vec_env`), and the AlphaZero training of the ``mcts`` agent's
network (:mod:`agents.rl.alphazero`). Training needs the ``rl`` extra; the ``ppo`` agent
loads torch only when built.
"""

"""Learned agents and their training: the bundled MaskablePPO policy (:mod:`agents.rl.ppo`),
its network (:mod:`agents.rl.policy`), the SB3 VecEnv over a batched engine
(:mod:`agents.rl.batched_vec_env`), the teacher games and run settings that training builds
on (:mod:`agents.rl.teacher`, :mod:`agents.rl.settings`), and the AlphaZero training of the
``mcts`` agent's network (:mod:`agents.rl.alphazero`), for any game with a batched engine.
Trap!'s own PPO training lives with its agents (:mod:`agents.trap.ppo_training`,
:mod:`agents.trap.pretrain`). Training needs the ``rl`` extra; the ``ppo`` agent
loads torch only when built.
"""

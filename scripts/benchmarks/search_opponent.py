"""Training against the reference search: the batched env with an ``expectiminimax:depth=2``
opponent, its batched twin for the whole batch against the scalar agent game by game."""

from __future__ import annotations

from typing import Any

import numpy as np
from trap_scripts.benchmarks._shared import Figure, timed_loop

OPPONENT = "expectiminimax:depth=2"
"""The opponent of both rows: one turn of the reference search (its default settings)."""
BATCHED_B = 1024
"""The batch of the batched row."""
SCALAR_B = 64
"""The batch of the game-by-game row (one scalar agent per game, as the env builds them)."""
GATE_RATIO = 10.0
"""The batched row must reach this multiple of the game-by-game row."""


def opponent_rate(num_envs: int, opponent: Any, seconds: float, board_size: int = 7) -> float:
    """Learner steps/s of the batched env against ``opponent``, the learner drawing a
    random legal action in every game (the opponent's decisions are in the time)."""
    from trap_env import batched_trap
    from trap_env.batched_env import TrapVectorEnv

    envs = TrapVectorEnv(num_envs, opponent=opponent, board_size=board_size)
    envs.reset(seed=0)
    keys = batched_trap.game_keys(1, np.arange(num_envs), 0)
    plies = iter(range(2**62))

    def step() -> int:
        envs.action_masks()
        legal = batched_trap.legal_bitboards(envs.tables, envs.batch)
        words = batched_trap.random_words(keys, next(plies), 0)
        envs.step(batched_trap.choose_bits(legal, words, envs.tables.num_cells))
        return num_envs

    try:
        return timed_loop(step, seconds)
    finally:
        envs.close()


def search_opponent_figures(seconds: float) -> list[Figure]:
    """The batched search at B = 1,024, the scalar agent game by game at B = 64, and the
    gate: their ratio, same run."""
    from trap_env.batched_opponents import AgentOpponent

    batched = opponent_rate(BATCHED_B, OPPONENT, seconds)
    scalar = opponent_rate(SCALAR_B, AgentOpponent(OPPONENT), seconds)
    ratio = batched / scalar
    verdict = "pass" if ratio >= GATE_RATIO else "FAIL"
    return [
        Figure(
            f"vs search: batched {OPPONENT} B={BATCHED_B}",
            batched,
            "learner-steps/s",
            "agents.search.batched",
        ),
        Figure(
            f"vs search: {OPPONENT} game by game B={SCALAR_B}",
            scalar,
            "learner-steps/s",
            "one scalar agent per game",
        ),
        Figure(
            "vs search: batched / game by game",
            ratio,
            "ratio",
            f"gate >= {GATE_RATIO:g}: {verdict}",
        ),
    ]

"""Training against the reference search: the batched env with an ``expectiminimax:depth=2``
opponent, its batched twin for the whole batch against the scalar agent game by game."""

from __future__ import annotations

from trap_scripts.benchmarks._shared import Figure
from trap_scripts.benchmarks.batched import batched_rate

OPPONENT = "expectiminimax:depth=2"
"""The opponent of both rows: one turn of the reference search (its default settings)."""
BATCHED_B = 1024
"""The batch of the batched row."""
SCALAR_B = 64
"""The batch of the game-by-game row (one scalar agent per game, as the env builds them)."""
GATE_RATIO = 10.0
"""The batched row must reach this multiple of the game-by-game row."""


def search_opponent_figures(seconds: float) -> list[Figure]:
    """The batched search at B = 1,024, the scalar agent game by game at B = 64, and the
    gate: their ratio, same run."""
    from trap_env.batched_opponents import AgentOpponent

    batched = batched_rate(BATCHED_B, seconds, opponent=OPPONENT)
    scalar = batched_rate(SCALAR_B, seconds, opponent=AgentOpponent(OPPONENT, game="trap"))
    ratio = batched / scalar
    verdict = "pass" if ratio >= GATE_RATIO else "FAIL"
    return [
        Figure(
            f"vs search: batched {OPPONENT} B={BATCHED_B}",
            batched,
            "learner-steps/s",
            "agents.trap.batched_search",
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

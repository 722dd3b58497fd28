"""The batched engine: TrapVectorEnv at several B, beside the single env and SyncVectorEnv."""

from __future__ import annotations

from typing import Any

import numpy as np
from trap_scripts.benchmarks._shared import Figure, timed_loop
from trap_scripts.benchmarks.envs import env_makers, episode_rate
from trap_scripts.benchmarks.pgx import pgx_figures

BATCH_SIZES = (1, 64, 1024, 8192)
"""The batch sizes of the batched env's rows."""

GATE_RATIO = 50.0
"""The batched env at B = 8192 must reach this multiple of the single Gym env."""

SYNC_ENVS = 16
"""Gymnasium's SyncVectorEnv row runs this many single envs."""


def batched_rate(
    num_envs: int, seconds: float, board_size: int = 7, opponent: Any = "random"
) -> float:
    """Learner steps/s of the batched env against ``opponent``, a random legal action each.

    Every step produces the masks and observations (as the env always does); the learner
    reads the masks and picks among the set bits of the legal bitboards. The opponent's
    decisions are in the time.
    """
    from trap_env.trap import batched as batched_trap
    from trap_env.trap.batched_env import TrapVectorEnv

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


def sync_vector_rate(seconds: float, num_envs: int = SYNC_ENVS) -> float:
    """Learner steps/s of Gymnasium's ``SyncVectorEnv`` over single envs, random actions."""
    import gymnasium

    import trap_env  # noqa: F401  (registers trap_env/Trap-v0)

    envs = gymnasium.make_vec(
        "trap_env/Trap-v0", num_envs=num_envs, vectorization_mode="sync", opponent="random"
    )
    rng = np.random.default_rng(0)
    _, info = envs.reset(seed=0)

    def step() -> int:
        nonlocal info
        actions = [_random_cell(mask, rng) for mask in info["action_mask"]]
        _, _, _, _, info = envs.step(np.array(actions))
        return num_envs

    try:
        return timed_loop(step, seconds)
    finally:
        envs.close()


def _random_cell(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    return int(rng.choice(legal)) if len(legal) else 0  # an ended env ignores its action


def batched_figures(seconds: float) -> list[Figure]:
    """The batched env at each of :data:`BATCH_SIZES`, the single Gym env, SyncVectorEnv,
    and the gate: the batched env at B = 8192 over the single env, same run."""
    single = episode_rate("Trap-v0 Gym env", env_makers()["Trap-v0 Gym env"], seconds)
    figures = [
        Figure("batch: single Gym env (Trap-v0)", single, "learner-steps/s"),
        Figure(
            f"batch: SyncVectorEnv, {SYNC_ENVS} Gym envs",
            sync_vector_rate(seconds),
            "learner-steps/s",
        ),
    ]
    rates = {size: batched_rate(size, seconds) for size in BATCH_SIZES}
    figures += [
        Figure(f"batch: TrapVectorEnv B={size}", rate, "learner-steps/s", "opponent random")
        for size, rate in rates.items()
    ]
    ratio = rates[BATCH_SIZES[-1]] / single
    verdict = "pass" if ratio >= GATE_RATIO else "FAIL"
    gate = f"gate >= {GATE_RATIO:g}: {verdict}"
    figures.append(Figure(f"batch: B={BATCH_SIZES[-1]} / single Gym env", ratio, "ratio", gate))
    return figures + pgx_figures(seconds, rates[BATCH_SIZES[-1]])

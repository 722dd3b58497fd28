"""The batched peer: pgx's connect_four (JAX, on the CPU), where pgx is installed."""

from __future__ import annotations

import importlib
from typing import Any

from trap_scripts.benchmarks._shared import Figure, timed_loop

PGX_BATCH_SIZES = (1024, 8192)
"""The batch sizes of the pgx rows; the last is compared with TrapVectorEnv's largest."""

PGX_INSTALL = "pip install pgx==2.6.0 jax==0.5.3"
"""The peer and the jax it was measured on; not an extra (why: docs/benchmarks.md)."""

PGX_ROW = "batch peer: pgx connect_four"


def pgx_rate(num_envs: int, seconds: float) -> float:
    """Learner steps/s of pgx's ``connect_four``, ``num_envs`` games batched on the CPU.

    One jitted call draws a random legal action for every game (pgx's ``act_randomly``, a
    categorical draw over the legal mask), steps them all and resets the finished ones
    (pgx's ``auto_reset``), so each call is ``num_envs`` learner steps with the next
    observations and masks ready. The compilation runs before the clock starts.
    """
    # Held as Any: the peer is optional, typed in one venv and missing or untyped in another.
    jax: Any = importlib.import_module("jax")
    pgx: Any = importlib.import_module("pgx")
    experimental: Any = importlib.import_module("pgx.experimental")

    env = pgx.make("connect_four")
    step = jax.vmap(experimental.auto_reset(env.step, env.init))

    def play_once(state: Any, key: Any) -> tuple[Any, Any]:
        key, action_key, step_key = jax.random.split(key, 3)
        action = experimental.act_randomly(action_key, state.legal_action_mask)
        return step(state, action, jax.random.split(step_key, num_envs)), key

    play = jax.jit(play_once)
    with jax.default_device(jax.devices("cpu")[0]):
        key = jax.random.PRNGKey(0)
        state = jax.jit(jax.vmap(env.init))(jax.random.split(key, num_envs))
        state, key = jax.block_until_ready(play(state, key))  # compiles

        def body() -> int:
            nonlocal state, key
            state, key = jax.block_until_ready(play(state, key))
            return num_envs

        return timed_loop(body, seconds)


def pgx_figures(seconds: float, trap_rate: float) -> list[Figure]:
    """pgx at each of :data:`PGX_BATCH_SIZES`, and ``trap_rate`` (TrapVectorEnv at the
    largest B, same run) over pgx's; without pgx, one row saying how to install it."""
    try:
        importlib.import_module("pgx")
    except ImportError:
        return [Figure(PGX_ROW, 0.0, "skipped", f"pgx not installed ({PGX_INSTALL})")]
    rates = {size: pgx_rate(size, seconds) for size in PGX_BATCH_SIZES}
    figures = [
        Figure(f"{PGX_ROW} B={size}", rate, "learner-steps/s", "CPU, random legal actions")
        for size, rate in rates.items()
    ]
    size = PGX_BATCH_SIZES[-1]
    ratio = trap_rate / rates[size]
    return [*figures, Figure(f"batch: TrapVectorEnv B={size} / pgx B={size}", ratio, "ratio")]

"""pgx's ``othello`` in :mod:`trap_scripts.benchmarks.othello`'s unit: plies per second on
the CPU with random
legal actions (``jax.random.categorical`` over masked logits), ``jax.vmap(env.step)``
jitted with pgx's own ``auto_reset``, observations and masks produced by every step.

Run it in a side venv with pgx and its jax (not a dependency of this project):

Example:
    python3 -m venv /tmp/pgxvenv && /tmp/pgxvenv/bin/pip install pgx jax
    JAX_PLATFORMS=cpu /tmp/pgxvenv/bin/python scripts/benchmarks/pgx_othello.py --batch 8192
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from typing import Any


def plies_per_second(batch_size: int, seconds: float, seed: int = 0) -> float:
    """Plies per second of ``batch_size`` games of pgx's ``othello`` (compilation excluded)."""
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make("othello")
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))

    @jax.jit
    def act_randomly(key: Any, mask: Any) -> Any:
        logits = jnp.where(mask, 0.0, -jnp.inf)
        return jax.random.categorical(key, logits=logits, axis=-1)

    key = jax.random.PRNGKey(seed)
    key, sub = jax.random.split(key)
    state = init(jax.random.split(sub, batch_size))

    @jax.jit  # the whole ply in one call: pgx at its best
    def one_ply(state: Any, key: Any) -> tuple[Any, Any]:
        key, act_key, step_key = jax.random.split(key, 3)
        action = act_randomly(act_key, state.legal_action_mask)
        return step(state, action, jax.random.split(step_key, batch_size)), key

    state, key = one_ply(state, key)  # compile
    jax.block_until_ready(state.observation)
    plies, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state, key = one_ply(state, key)
        plies += batch_size
    jax.block_until_ready((state.observation, state.legal_action_mask))
    return plies / (time.perf_counter() - start)


def main(argv: Sequence[str] | None = None) -> int:
    """Print one JSON line per repetition: plies per second, versions and the load."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=8192, help="B, games at once")
    parser.add_argument("--seconds", type=float, default=10.0, help="time per measurement")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    import jax
    import pgx

    for repeat in range(args.repeats):
        rate = plies_per_second(args.batch, args.seconds, seed=repeat)
        row = {"loop": "pgx", "batch": args.batch, "plies_per_second": round(rate),
               "load": os.getloadavg()[0], "pgx": pgx.__version__, "jax": jax.__version__,
               "devices": str(jax.devices())}  # fmt: skip
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

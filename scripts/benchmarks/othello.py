"""Plies per second of the batched Othello engine, in pgx's unit: random legal actions for
both sides, observations and masks produced every ply, finished games reset.

Two loops over B games: ``env``, the batched Gymnasium env in ``"self"`` mode (the caller
plays both seats; ended games restart on the next step, which plays no ply there), and
``engine``, the engine alone (apply, reset the ended games in the same step, observations
from the side to act, masks). A ply is one placement or pass of one game.

pgx's counterpart is
``scripts/benchmarks/pgx_othello.py``.

Example:
    python -m trap_scripts.benchmarks.othello --batch 8192 --seconds 10 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence

import numpy as np
from trap_scripts.benchmarks._shared import Figure

from trap_env.batched import scatter
from trap_env.batched_env import GameVectorEnv
from trap_env.othello import batched
from trap_env.othello.game import GAME

LOOPS = ("env", "engine")


def env_plies_per_second(
    batch_size: int, seconds: float, board_size: int = 8, seed: int = 0
) -> float:
    """Plies per second of :class:`trap_env.batched_env.GameVectorEnv` in ``"self"`` mode."""
    envs = GameVectorEnv("othello", num_envs=batch_size, opponent="self", board_size=board_size)
    envs.reset(seed=seed)
    tables = envs.engine.tables  # type: ignore[attr-defined]
    rng = np.random.default_rng(seed)
    done = np.zeros(batch_size, np.bool_)
    plies, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        words = rng.integers(0, 2**64, batch_size, np.uint64, endpoint=False)
        actions = batched.random_actions(tables, envs.batch, words)
        _, _, terminated, truncated, _ = envs.step(actions)
        plies += int((~done).sum())
        done = terminated | truncated
    return plies / elapsed


def engine_plies_per_second(
    batch_size: int, seconds: float, board_size: int = 8, seed: int = 0
) -> float:
    """Plies per second of the engine alone, with same-step reset (pgx's ``auto_reset``)."""
    engine = GAME.batched_engine(GAME.make_config(board_size=board_size))
    tables = engine.tables
    batch = engine.initial_batch(batch_size)
    rng = np.random.default_rng(seed)
    plies, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        words = rng.integers(0, 2**64, batch_size, np.uint64, endpoint=False)
        batch = engine.apply(batch, batched.random_actions(tables, batch, words), validate=False)
        plies += batch_size
        ended = np.flatnonzero(engine.is_over(batch))
        if len(ended):
            batch = scatter(batch, ended, engine.initial_batch(len(ended)))
        engine.observations(batch, batch.player)
        engine.legal_masks(batch)
    return plies / elapsed


OTHELLO_BATCH = 8192
"""B of the Othello rows of ``trap-benchmark``."""


def othello_figures(seconds: float) -> list[Figure]:
    """``trap-benchmark``'s Othello rows: the batched env in self-play and the engine alone at
    B = 8,192, in plies per second (pgx's unit; pgx's own figure is in docs/experiments.md)."""
    return [
        Figure(f"othello: batched env B={OTHELLO_BATCH}, self-play",
               env_plies_per_second(OTHELLO_BATCH, seconds), "plies/s"),
        Figure(f"othello: engine alone B={OTHELLO_BATCH}",
               engine_plies_per_second(OTHELLO_BATCH, seconds), "plies/s"),
    ]  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Print one JSON line per loop and repetition: plies per second and the load."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=8192, help="B, games at once")
    parser.add_argument("--seconds", type=float, default=10.0, help="time per measurement")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--board-size", type=int, default=8)
    parser.add_argument("--loops", nargs="+", choices=LOOPS, default=list(LOOPS))
    args = parser.parse_args(argv)
    measure = {"env": env_plies_per_second, "engine": engine_plies_per_second}
    for repeat in range(args.repeats):
        for loop in args.loops:
            rate = measure[loop](args.batch, args.seconds, args.board_size, seed=repeat)
            row = {"loop": loop, "batch": args.batch, "plies_per_second": round(rate),
                   "load": os.getloadavg()[0]}  # fmt: skip
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

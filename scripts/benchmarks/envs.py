"""The core and the single envs, beside PettingZoo's connect_four_v3 in the same run."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
from trap_scripts._cli import CliError
from trap_scripts.benchmarks._shared import PEER, Figure, timed_loop

from trap_env.trap.core import (
    GameConfig,
    Phase,
    apply,
    initial_state,
    legal_actions,
    outcome,
    resolve_turn_limit,
    sample_landing,
)


def core_playout(rng: random.Random, board_size: int = 7) -> int:
    """One random game through the core; returns the number of plies (``apply`` calls)."""
    state = initial_state(GameConfig(board_size))
    plies, limit = 0, resolve_turn_limit(None, board_size)
    while outcome(state, limit) is None:
        if state.phase is Phase.LANDING:
            action = sample_landing(state, rng)
        else:
            action = rng.choice(legal_actions(state))
        state = apply(state, action)
        plies += 1
    return plies


def aec_episode(env: Any, rng: np.random.Generator, seed: int) -> int:
    """One random game of a PettingZoo AEC env; returns the number of ``step`` calls."""
    env.reset(seed=seed)
    steps = 0
    for _agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        env.step(action)
        steps += 1
    return steps


def gym_episode(env: Any, rng: np.random.Generator, seed: int) -> int:
    """One random game of the Gymnasium env; returns the number of ``step`` calls."""
    _, info = env.reset(seed=seed)
    steps, done = 0, False
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        steps += 1
    return steps


def env_figures(seconds: float) -> list[Figure]:
    """Core plies/s, the three envs' agent steps/s, and ratios to connect_four."""
    rng = random.Random(0)
    core_rate = timed_loop(lambda: core_playout(rng), seconds)
    rates = {"core": core_rate}
    for name, make in env_makers().items():
        rates[name] = episode_rate(name, make, seconds)
    peer = rates.get(PEER)
    figures = [Figure("core random playout", core_rate, "plies/s", "move, throw, landing")]
    figures += [
        Figure(name, rate, "agent-steps/s") for name, rate in rates.items() if name != "core"
    ]
    if peer:
        figures += [
            Figure(f"{name} / connect_four", rate / peer, "ratio")
            for name, rate in rates.items()
            if name != PEER
        ]
    return figures


def env_makers() -> dict[str, Callable[[], Any]]:
    def connect_four() -> Any:
        import pettingzoo

        try:
            import pygame  # noqa: F401  (connect_four imports it for rendering)
        except ImportError as error:
            raise CliError(
                "the peer, PettingZoo's connect_four_v3, needs pygame: "
                'pip install "trap_env[render]"'
            ) from error

        if hasattr(pettingzoo, "make"):  # the registry; the module import is deprecated there
            return pettingzoo.make("aec", "classic/connect_four-v3")
        from pettingzoo.classic import connect_four_v3

        return connect_four_v3.env()

    def trap_aec() -> Any:
        import trap_env

        return trap_env.env()

    def gym(env_id: str) -> Callable[[], Any]:
        def make() -> Any:
            import gymnasium

            import trap_env  # noqa: F401  (registers the games' ids)

            return gymnasium.make(f"trap_env/{env_id}", opponent="random")

        return make

    return {
        PEER: connect_four,
        "trap_v0 AEC env()": trap_aec,
        **{f"{env_id} Gym env": gym(env_id) for env_id in GYM_IDS},
    }


GYM_IDS = ("Trap-v0", "Othello-v0", "Colosseum-v0")
"""The single Gym envs measured, each game's at its default rules against ``random``."""


def episode_rate(name: str, make: Callable[[], Any], seconds: float) -> float:
    env = make()
    rng = np.random.default_rng(0)
    seeds = iter(range(10**9))
    episode = gym_episode if "Gym" in name else aec_episode
    try:
        return timed_loop(lambda: episode(env, rng, next(seeds)), seconds)
    finally:
        env.close()

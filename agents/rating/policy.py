"""Rate a Python policy from a training loop: :func:`rate`, and :class:`PolicyAgent` under it.

A policy here is what a learner holds: ``policy(observation, action_mask) -> action``, with
the observation and the mask exactly as the game's Gymnasium env gives them to the player
to act (``trap_env/<Title>-v0``). Such a policy plays in this process.

Example:
    >>> from agents.rating import rate
    >>> card = rate(lambda observation, mask: int(mask.argmax()), game="trap", games=2)
    >>> card.line.startswith("trap ladder v1: ")
    True
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, SupportsInt

import numpy as np

from agents.rating.ladder import Ladder, load_ladder
from agents.rating.rate import DEFAULT_GAMES, Card, Say, rate_spec
from agents.registry import register
from trap_env.games import get_game

__all__ = ["DEFAULT_CPU_CAP", "Policy", "PolicyAgent", "rate"]

Policy = Callable[[Any, np.ndarray], SupportsInt]
"""``policy(observation, action_mask) -> action``, as a learner sees the game's Gym env."""

DEFAULT_CPU_CAP = 10.0
"""CPU seconds a player may take per turn before it loses the game by time."""


class PolicyAgent:
    """A ``policy(observation, action_mask)`` behind the agent interface.

    Args:
        policy: the policy; it is told the acting player's observation and legal mask
            (int8, 1 for a legal action), as the game's Gym env gives them.
        game: the game's name.
    """

    def __init__(self, policy: Policy, game: str) -> None:
        if not callable(policy):
            raise TypeError(
                f"a policy is a callable (observation, action_mask) -> action, got {policy!r}"
            )
        self.policy = policy
        self.rules = get_game(game)

    def reset(self, seed: int | None = None) -> None:
        """Nothing to forget: the policy keeps its own state, if any."""

    def select_action(self, state: Any) -> int:
        """The policy's action for the player to act in ``state``."""
        rules = self.rules
        observation = rules.observe(state, rules.current_player(state))
        mask = np.array(rules.legal_action_mask(state), dtype=np.int8)
        return int(self.policy(observation, mask))


def rate(
    policy: Policy | str,
    *,
    game: str,
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    name: str = "policy",
    output: str | Path | None = None,
    workers: int | None = None,
    cpu_cap: float = DEFAULT_CPU_CAP,
    ladder: Ladder | None = None,
    say: Say | None = None,
) -> Card:
    """Rate a policy against the game's ladder; its card (also written to ``output``).

    Args:
        policy: a callable ``(observation, action_mask) -> action``, played in this process
            (registered as the agent ``name`` of ``game``), or an agent spec string.
        game: the game, which has a ladder (:func:`~agents.rating.ladder.ladder_games`).
        games: games to play, an even number (each opening from both seats).
        seed: the openings' seed; 0, the ladder's standard games.
        name: the name the card gives a callable policy.
        output: the folder for ``results.jsonl`` and ``card.json``, which must not hold
            another rating (default: none kept, only the card returned).
        workers: worker processes for a spec (a callable plays in this process).
        cpu_cap: CPU seconds per turn before a player loses by time.
        ladder: the ladder to play (default: the game's shipped one).
        say: called with a line after each round (default: silent).

    Raises:
        ValueError: for a game without a ladder, a bad spec or number of games.
    """
    ladder = ladder or load_ladder(game)
    options: dict[str, Any] = {"time_budget": cpu_cap, "workers": workers}
    if not isinstance(policy, str):
        agent = PolicyAgent(policy, game)
        register(name, game=game)(lambda seed=None: agent)
        policy, options["workers"] = name, 0
    with tempfile.TemporaryDirectory(prefix="rating-") as scratch:
        return rate_spec(
            ladder, policy, Path(scratch if output is None else output), games=games,
            seed=seed, run_options=options, check=options["workers"] != 0,
            say=say or (lambda line: None),
        )

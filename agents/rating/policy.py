"""Rate a Python policy from a training loop: :func:`rate`, and :class:`PolicyAgent` under it.

A policy here is what a learner holds: ``policy(observation, action_mask) -> action``, with
the observation and the mask exactly as the game's Gymnasium env gives them to the player
to act (``trap_env/<Title>-v0``). Such a policy plays in this process.

Example:
    >>> from agents.rating import rate
    >>> card = rate(lambda observation, mask: int(mask.argmax()), game="trap", games=2)
    >>> card.line.startswith("trap 7x7 ladder v2: ")
    True
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.options import check_int
from agents.rating.ladder import Ladder, load_ladder
from agents.rating.run import DEFAULT_CPU_CAP, DEFAULT_GAMES, Card, Say, rate_spec
from agents.registry import local_agents
from trap_env.games import get_game

__all__ = ["DEFAULT_CPU_CAP", "Policy", "PolicyAgent", "rate"]

Policy = Callable[[Any, np.ndarray], Any]
"""``policy(observation, action_mask) -> action``, as a learner sees the game's Gym env: the
action an ``int``, a NumPy integer or a 0-d integer array."""


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
        """The policy's action for the player to act in ``state``.

        Raises:
            TypeError: for an answer that is no integer (``2.7``, ``'3'``, ``True``): a
                fault of the policy, which loses the game.
        """
        rules = self.rules
        observation = rules.observe(state, rules.current_player(state))
        mask = np.array(rules.legal_action_mask(state), dtype=np.int8)
        return action_of(self.policy(observation, mask))


def action_of(answer: object) -> int:
    """A policy's answer as an action: an ``int``, a NumPy integer, or a 0-d integer array
    (what ``model.predict`` gives), never a number of another kind read as one.

    Raises:
        TypeError: naming what the policy returned and what an action is.
    """
    value = answer[()] if isinstance(answer, np.ndarray) and answer.ndim == 0 else answer
    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        return int(value)
    raise TypeError(
        f"the policy returned {answer!r:.60} (a {type(answer).__name__}), not an action: an "
        "int, a NumPy integer or a 0-d integer array"
    )


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
            as the agent ``name`` (for this call only: no other call finds it), or an agent
            spec string.
        game: the game, which has a ladder (:func:`~agents.rating.ladder.ladder_games`).
        games: games to play, an even integer (each opening from both seats).
        seed: the openings' seed, an integer; 0, the ladder's standard games.
        name: the name the card gives a callable policy.
        output: the folder for ``results.jsonl`` and ``card.json``, which must not hold
            another rating (default: none kept, only the card returned).
        workers: worker processes for a spec (a callable plays in this process).
        cpu_cap: CPU seconds per turn before a player loses by time (finite).
        ladder: the ladder to play, of ``game`` (default: the game's shipped one).
        say: called with a line after each round (default: silent).

    Raises:
        ValueError: for a game without a ladder, a ladder of another game, a bad spec,
            name, number of games, seed or cap.
    """
    ladder = _ladder_of(game, ladder)
    check_int("workers", workers, 0, allow_none=True)
    quiet = say or (lambda line: None)
    with tempfile.TemporaryDirectory(prefix="rating-") as scratch:
        folder = Path(scratch if output is None else output)
        if isinstance(policy, str):
            return rate_spec(
                ladder, policy, folder, games=games, seed=seed, cpu_cap=cpu_cap,
                run_options={"workers": workers}, check=workers != 0, say=quiet,
            )
        agent = PolicyAgent(policy, ladder.game)
        with local_agents({name: lambda seed=None: agent}, game=ladder.game):
            return rate_spec(
                ladder, name, folder, games=games, seed=seed, cpu_cap=cpu_cap,
                run_options={"workers": 0}, check=False, say=quiet,
            )


def _ladder_of(game: str, ladder: Ladder | None) -> Ladder:
    """``ladder``, which must be one of ``game``; by default the game's shipped one.

    Raises:
        ValueError: for a ladder of another game (or no ladder), or a game without one.
    """
    if ladder is None:
        return load_ladder(game)
    if not isinstance(ladder, Ladder):
        raise ValueError(f"ladder must be a Ladder (agents.rating.load_ladder), got {ladder!r:.60}")
    if ladder.game != game:
        raise ValueError(
            f"the ladder given is the {ladder.name}, not one of {game!r}: rate a policy of "
            f"{game!r} on {game!r}'s ladder, or give game={ladder.game!r}"
        )
    return ladder

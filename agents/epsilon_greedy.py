"""``epsilon-greedy``: a game's ``greedy`` agent that, at each decision with probability
``epsilon``, plays a uniformly random legal action instead.

It plays between ``random`` (``epsilon=1``) and ``greedy`` (``epsilon=0``) in every game:
the weakest rung but one of each rating ladder (:mod:`agents.rating`). Its two generators
(the coin and the random action; ``greedy``'s ties) are seeded from the one seed it is given.

Example:
    >>> from agents import make_agent
    >>> from trap_env.games import get_game
    >>> agent = make_agent("epsilon-greedy:epsilon=0.5", game="othello", seed=0)
    >>> game = get_game("othello")
    >>> state = game.initial_state(game.make_config())
    >>> agent.select_action(state) in game.legal_actions(state)
    True
"""

from __future__ import annotations

import random

from agents.options import require_game
from agents.registry import agent_names, make_agent
from trap_env.agent import check_supports
from trap_env.games import get_game

__all__ = ["EpsilonGreedyAgent"]


class EpsilonGreedyAgent:
    """``greedy`` with probability ``1 - epsilon`` at each decision, else a random legal action.

    Args:
        epsilon: the chance of a random action at each decision, in [0, 1].
        seed: seeds the coin, the random actions and ``greedy``'s ties.
        game: the game it plays (the agent table tells it).

    Raises:
        ValueError: for an ``epsilon`` outside [0, 1], or a game without a ``greedy`` agent.
    """

    def __init__(
        self, epsilon: float = 0.5, *, seed: int | None = None, game: str | None = None
    ) -> None:
        game = require_game(game, "EpsilonGreedyAgent()")
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon is a probability in [0, 1], got {epsilon}")
        self.epsilon = epsilon
        self.game = get_game(game)
        if "greedy" not in agent_names(game):
            raise ValueError(
                f"epsilon-greedy adds noise to the game's greedy agent, and {self.game.title} "
                f"has none; its agents: {', '.join(agent_names(game))}"
            )
        self.greedy = make_agent("greedy", game=game)
        self.rng = random.Random()
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; with ``seed``, reseed the coin and ``greedy`` (apart)."""
        if seed is not None:
            self.rng.seed(f"epsilon-greedy {seed}")
        self.greedy.reset(seed)

    def check_game(self, config: object) -> None:
        """Refuse what ``greedy`` refuses.

        Raises:
            UnsupportedGameError: from ``greedy``'s ``check_game``.
        """
        check_supports(self.greedy, config)

    def select_action(self, state: object) -> int:
        """A random legal action with probability ``epsilon``, else ``greedy``'s."""
        if self.rng.random() < self.epsilon:
            return self.rng.choice(self.game.legal_actions(state))
        return self.greedy.select_action(state)

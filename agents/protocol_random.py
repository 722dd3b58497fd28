"""``random`` of a game without its own: a uniformly random legal action, read from the
game's protocol (``legal_actions``), so that every game, a game named by its path too, has
the agent that the environments' default opponent, the ladders' anchor and a first
tournament need. A shipped game's own ``random`` (its table's) wins over this one.

Example:
    >>> from trap_env.games import get_game
    >>> agent = RandomAgent(seed=0, game="othello")  # any game's; make_agent gives Othello's own
    >>> game = get_game("othello")
    >>> agent.select_action(game.initial_state(game.make_config())) in (19, 26, 37, 44)
    True
"""

from __future__ import annotations

from typing import Any

from agents.options import require_game
from agents.seeded import SeededAgent
from trap_env.games import get_game

__all__ = ["RandomAgent"]


class RandomAgent(SeededAgent):
    """A uniformly random legal action of any game, from the agent's seeded generator.

    Args:
        seed: seeds the generator (``reset(seed)`` reseeds it for a new game).
        game: the game it plays (the agent table tells it): a name or a game's path.
    """

    def __init__(self, seed: int | None = None, *, game: str | None = None) -> None:
        super().__init__(seed)
        self.game = get_game(require_game(game, "RandomAgent()"))

    def select_action(self, state: Any) -> int:
        """One of the legal actions of the player to act.

        Raises:
            ValueError: at a chance node or once the game is over (no decision to make).
        """
        game = self.game
        actions = game.legal_actions(state)  # none once the game is over
        if not actions or game.is_chance(state):
            raise ValueError(f"random acts at a decision, got {game.to_text(state)!r:.80}")
        return self.rng.choice(actions)

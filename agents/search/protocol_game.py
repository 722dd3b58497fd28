"""Any game of the protocol (:class:`trap_env.game.Game`) as the search's game.

The search (:mod:`agents.search.expectimax`) needs a little more than the rules: an
evaluation, a transposition key and move-ordering hints. This adapter takes them from
the rules alone (the state is its own key, actions keep their order), with the evaluation
given by the caller, so a new game is searched before it has tuned code of its own
(Trap!'s is :class:`agents.trap.search_game.TrapGame`).

Example:
    >>> from agents.search.expectimax import Search
    >>> from trap_env.trap.game import GAME
    >>> search = Search(ProtocolSearchGame(GAME))
    >>> state = GAME.initial_state(GAME.make_config(board_size=3))
    >>> search.value(state, 2)
    0.0
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any

from trap_env.game import Game

__all__ = ["ProtocolSearchGame", "no_evaluation"]


def no_evaluation(state: Any, player: int) -> float:
    """The evaluation that knows nothing: every unfinished position is worth 0."""
    return 0.0


class ProtocolSearchGame:
    """The search's view of a protocol game.

    Args:
        game: the rules.
        evaluate: ``evaluate(state, player)``, strictly inside ``(-1, 1)``.
        max_turns: the turn limit at which a game ends drawn (None: the rules alone).
    """

    value_bound = 1.0

    def __init__(
        self,
        game: Game[Any, Any],
        evaluate: Callable[[Any, int], float] = no_evaluation,
        max_turns: int | None = None,
    ) -> None:
        self.rules = game
        self.evaluate = evaluate
        self.max_turns = max_turns

    def legal_actions(self, state: Any) -> Sequence[int]:
        """The game's legal actions."""
        return self.rules.legal_actions(state)

    def apply(self, state: Any, action: int) -> Any:
        """The game's checked ``apply``."""
        return self.rules.apply(state, action)

    def is_chance(self, state: Any) -> bool:
        """Whether chance acts next."""
        return self.rules.is_chance(state)

    def chance_outcomes(self, state: Any) -> Sequence[tuple[int, float]]:
        """The exact outcomes of a chance node."""
        return self.rules.chance_outcomes(state)

    def is_terminal(self, state: Any) -> bool:
        """Whether the game is over (by its rules or the turn limit)."""
        return self.rules.outcome(state, self.max_turns) is not None

    def terminal_value(self, state: Any, player: int) -> float:
        """``player``'s payoff in the finished game."""
        ended = self.rules.outcome(state, self.max_turns)
        assert ended is not None, "terminal_value of a game in progress"
        return ended.returns()[player]

    def current_player(self, state: Any) -> int:
        """The player to act (at a chance node, the one whose decision it follows)."""
        return self.rules.current_player(state)

    def leaf_values(self, state: Any, player: int) -> Iterator[tuple[float, float]]:
        """Each chance outcome's probability and its value at depth 0 for ``player``."""
        for outcome, probability in self.chance_outcomes(state):
            child = self.apply(state, outcome)
            if self.is_terminal(child):
                yield probability, self.terminal_value(child, player)
            else:
                yield probability, self.evaluate(child, player)

    def key(self, state: Any) -> Hashable:
        """The state itself (states are hashable values)."""
        return state  # type: ignore[no-any-return]

    def order_hint(self, state: Any, actions: Sequence[int]) -> list[int]:
        """The actions as the rules list them."""
        return list(actions)

    def history_key(self, state: Any, action: int) -> Hashable:
        """Each player's actions are credited apart."""
        return (self.current_player(state), action)

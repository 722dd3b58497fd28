"""The small game interface the search is written against (:class:`SearchGame`).

A game for :mod:`agents.search.expectimax` is two-player, zero-sum, with explicit chance
nodes (as in OpenSpiel). Values are payoffs from one player's point of view and lie in
``[-value_bound, value_bound]``; a game's evaluation stays strictly inside that range so
that a proven result is never confused with an estimate.

Chance nodes are valued from the point of view of ``current_player(state)``: for Trap!,
the thrower whose trap is in the air. Trap!'s implementation is
:class:`agents.trap.search_game.TrapGame`; any game of the rules protocol is searched through
:class:`agents.search.protocol_game.ProtocolSearchGame`.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from typing import Protocol, TypeVar

__all__ = ["SearchGame"]

S = TypeVar("S")


class SearchGame(Protocol[S]):
    """What the search needs to know about a game."""

    value_bound: float
    """Every terminal value and evaluation lies in ``[-value_bound, value_bound]``."""

    def legal_actions(self, state: S) -> Sequence[int]:
        """The actions to search at a decision node (may be a filtered subset)."""
        ...

    def apply(self, state: S, action: int) -> S:
        """The state after ``action`` (a decision or a chance outcome)."""
        ...

    def is_chance(self, state: S) -> bool:
        """Whether chance acts in ``state``."""
        ...

    def chance_outcomes(self, state: S) -> Sequence[tuple[int, float]]:
        """The ``(outcome, probability)`` pairs of a chance node; probabilities sum to 1."""
        ...

    def is_terminal(self, state: S) -> bool:
        """Whether the game is over."""
        ...

    def terminal_value(self, state: S, player: int) -> float:
        """The payoff of a finished game for ``player``."""
        ...

    def current_player(self, state: S) -> int:
        """The player to act (at a chance node: the player whose view values it)."""
        ...

    def evaluate(self, state: S, player: int) -> float:
        """A heuristic value for ``player``, strictly inside ``±value_bound``."""
        ...

    def leaf_values(self, state: S, player: int) -> Iterator[tuple[float, float]]:
        """``(probability, value for player)`` of each outcome of a chance node, in order.

        An outcome's value is what the search takes at depth 0: its terminal value if the
        game is over there, else its evaluation. (A separate method so that a game can
        value the outcomes without building their states: this is most of the search's
        work.)
        """
        ...

    def key(self, state: S) -> Hashable:
        """The transposition-table key: equal for states with equal subtrees."""
        ...

    def order_hint(self, state: S, actions: Sequence[int]) -> list[int]:
        """``actions`` sorted best-first by a cheap static guess."""
        ...

    def history_key(self, state: S, action: int) -> Hashable:
        """The key under which the history heuristic credits ``action`` in ``state``."""
        ...

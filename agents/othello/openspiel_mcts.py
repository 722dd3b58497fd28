"""Othello's hook of the ``openspiel-mcts`` agent (:mod:`agents.openspiel_mcts`): OpenSpiel's
C++ ``othello``, searched on 8x8 under the standard rule.

Its actions, first player (dark, ``x``, player 0), pass (64) and returns are ours
(``tests/trap_env/othello/test_game.py`` checks them state by state), so an action is the
same number in both. OpenSpiel cannot set up a position, so the agent replays one from the
start: :func:`opening_history` finds the actions that lead to it, placing discs only on
the cells the position has filled (every disc stays where it is placed), within a bounded
search: it finds every position of a random opening at once, and gives up (None) on
positions deep in a game whose history the search would take long to find.

Example:
    >>> from trap_env.othello import rules
    >>> state = rules.apply(rules.apply(rules.initial_state(), 19), 18)
    >>> opening_history(state)
    [19, 18]
"""

from __future__ import annotations

from agents.openspiel_mcts import NativeGame
from trap_env.othello import rules
from trap_env.othello.rules import OthelloConfig, OthelloState

__all__ = ["NATIVE", "SEARCH_BUDGET", "opening_history"]

SEARCH_BUDGET = 5_000
"""The most actions :func:`opening_history` tries before it gives up: a quarter second,
enough for any position of the first dozen plies."""


def plays(config: OthelloConfig) -> bool:
    """Whether OpenSpiel's ``othello`` plays these rules: 8x8 under the standard rule."""
    return (config.board_size, config.end_rule) == (8, rules.STANDARD)


def opening_history(target: OthelloState, budget: int = SEARCH_BUDGET) -> list[int] | None:
    """Actions from the start of the target's rules that lead to it; None if the first
    ``budget`` actions tried find none.

    A placement goes only to a cell the target has filled, and a pass is an action only
    where it is the one legal action (our rules), so the search follows the target's discs.
    """
    filled = target.dark | target.light
    tried = 0

    def search(state: OthelloState, path: list[int]) -> bool:
        nonlocal tried
        if state.turn == target.turn:
            return state == target
        for action in rules.legal_actions(state):
            if action < target.board_size**2 and not filled >> action & 1:
                continue
            tried += 1
            if tried > budget:
                return False
            path.append(action)
            if search(rules.apply(state, action), path):
                return True
            path.pop()
        return False

    path: list[int] = []
    return path if search(rules.initial_state(target.config), path) else None


NATIVE = NativeGame(name="othello", plays=plays, history=opening_history)
"""OpenSpiel's C++ ``othello``, as :func:`agents.openspiel_mcts.native_game` finds it."""

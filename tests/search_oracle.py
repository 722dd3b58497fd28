"""The plain expectimax that the pruned search must agree with, value for value.

Deliberately naive: no pruning, no table, no ordering, every legal throw target, the
landing distribution exactly as :func:`trap_env.core.chance_outcomes` lists it. Depth
counts decisions (a move and a throw are a ply each); chance nodes take no depth.
"""

from __future__ import annotations

from agents.search.evaluation import DEFAULT_WEIGHTS, Weights, evaluate
from trap_env import core
from trap_env.core import Phase, State


def expectimax(
    state: State,
    depth: int,
    weights: Weights = DEFAULT_WEIGHTS,
    deterministic: bool = False,
    reduction: int = 0,
) -> float:
    """The depth-limited expectimax value of ``state`` for ``state.player``.

    Finished games are worth +1 to the winner and -1 to the loser; positions at depth 0
    are worth :func:`agents.search.evaluation.evaluate`. With ``deterministic``, every throw lands
    on its target. Landings that give the same position (those on traps already there) are
    one outcome; outcomes less likely than one half are searched ``reduction`` plies
    shallower (never below 0).
    """
    if core.is_terminal(state):
        return 1.0 if state.winner == state.player else -1.0
    if state.phase is Phase.LANDING:
        outcomes = [(state.target, 1.0)] if deterministic else core.chance_outcomes(state)
        merged: dict[State, float] = {}  # landings that give one position are one outcome
        for cell, p in outcomes:
            child = core.apply(state, cell)
            merged[child] = merged.get(child, 0.0) + p
        return sum(
            p
            * _seen_by(
                state.player,
                child,
                depth if p >= 0.5 else max(0, depth - reduction),
                weights,
                deterministic,
                reduction,
            )
            for child, p in merged.items()
        )
    if depth == 0:
        return evaluate(state, state.player, weights)
    return max(
        _seen_by(
            state.player, core.apply(state, action), depth - 1, weights, deterministic, reduction
        )
        for action in core.legal_actions(state)
    )


def _seen_by(
    player: int, child: State, depth: int, weights: Weights, deterministic: bool, reduction: int
) -> float:
    value = expectimax(child, depth, weights, deterministic, reduction)
    return value if child.player == player else -value

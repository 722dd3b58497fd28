"""The plain expectimax that the pruned search must agree with, value for value.

Deliberately naive: no pruning, no table, no ordering, every legal throw target, the
landing distribution exactly as :func:`trap_env.trap.core.chance_outcomes` lists it. Depth
counts decisions (a move and a throw are a ply each); chance nodes take no depth.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from agents.trap.evaluation import DEFAULT_WEIGHTS, Weights, evaluate
from trap_env.trap import core, kernel
from trap_env.trap.core import Phase, State


def expectimax(
    state: State,
    depth: int,
    weights: Weights = DEFAULT_WEIGHTS,
    deterministic: bool = False,
    reduction: int = 0,
    actions: Callable[[State], Sequence[int]] = core.legal_actions,
) -> float:
    """The depth-limited expectimax value of ``state`` for ``state.player``.

    Finished games are worth +1 to the winner and -1 to the loser; positions at depth 0
    are worth :func:`agents.trap.evaluation.evaluate`. With ``deterministic``, every throw lands
    on its target. Landings that give the same position (those on traps already there) are
    one outcome; outcomes less likely than one half are searched ``reduction`` plies
    shallower (never below 0). ``actions`` lists the decisions searched (default: every
    legal one; ``TrapGame(throw_filter=True).legal_actions`` for the throw filter).
    """
    if core.is_terminal(state):
        return 1.0 if state.winner == state.player else -1.0
    if state.phase is Phase.LANDING:
        outcomes = [(state.target, 1.0)] if deterministic else core.chance_outcomes(state)
        merged: dict[State, float] = {}  # landings that give one position are one outcome
        for cell, p in outcomes:
            # kernel.apply: a pretended landing on target may be one the rules never draw.
            child = kernel.apply(state, cell)
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
                actions,
            )
            for child, p in merged.items()
        )
    if depth == 0:
        return evaluate(state, state.player, weights)
    return max(
        action_values(state, depth, weights, deterministic, reduction, actions).values()
    )


def action_values(
    state: State,
    depth: int,
    weights: Weights = DEFAULT_WEIGHTS,
    deterministic: bool = False,
    reduction: int = 0,
    actions: Callable[[State], Sequence[int]] = core.legal_actions,
) -> dict[int, float]:
    """The value of each decision searched at ``state`` (at least one ply, ``depth >= 1``),
    for ``state.player``: what :func:`expectimax` takes the best of."""
    return {
        action: _seen_by(
            state.player,
            core.apply(state, action),
            depth - 1,
            weights,
            deterministic,
            reduction,
            actions,
        )
        for action in actions(state)
    }


def _seen_by(
    player: int,
    child: State,
    depth: int,
    weights: Weights,
    deterministic: bool,
    reduction: int,
    actions: Callable[[State], Sequence[int]],
) -> float:
    value = expectimax(child, depth, weights, deterministic, reduction, actions)
    return value if child.player == player else -value

"""Throws at least two steps away: where the throw's decay decides whether they land on target."""

from __future__ import annotations

from trap_env.trap.core import Phase, State, legal_actions


def far_target(state: State) -> int | None:
    """In the throw phase, the lowest legal target at Manhattan distance >= 2; else None."""
    if state.phase is not Phase.THROW:
        return None
    n, (row, col) = state.board_size, divmod(state.cells[state.player], state.board_size)
    return next(
        (cell for cell in legal_actions(state) if abs(cell // n - row) + abs(cell % n - col) >= 2),
        None,
    )

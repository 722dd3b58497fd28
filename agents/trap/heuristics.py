"""One-ply agents: the course handout's heuristics IS, AIS and OCLS, and ``greedy``.

Each heuristic scores a position for a player; the agent moves to the cell whose
position scores best, and throws at the target, among the empty cells within two king
steps of the opponent, whose landing distribution gives the best expected score (a win
is worth more than any score). Ties are broken by the agent's seeded generator.

* ``is`` (improved score): my moves minus the opponent's.
* ``ais`` (aggressive improved score): my moves minus twice the opponent's.
* ``ocls`` (one-cell lookahead score): the sum, over my moves, of the moves I would have
  from there, minus the same sum for the opponent.
* ``eval``: :func:`agents.trap.evaluation.evaluate`, the search agents' evaluation.

``greedy`` uses ``ais`` unless told otherwise (``"greedy:heuristic=ocls"``).
"""

from __future__ import annotations

from collections.abc import Callable

from agents.seeded import SeededAgent
from agents.trap.batched_heuristics import BATCHED_HEURISTICS, WIN_SCORE, BatchedGreedy
from agents.trap.evaluation import evaluate
from trap_env.bits import cells_of
from trap_env.trap import core
from trap_env.trap.core import Cell, Phase, State
from trap_env.trap.kernel import geometry, square_mask

__all__ = [
    "HEURISTICS",
    "GreedyAgent",
    "ais",
    "greedy",
    "greedy_ais",
    "greedy_is",
    "greedy_ocls",
    "is_score",
    "ocls",
]

Heuristic = Callable[[State, int], float]


def is_score(state: State, player: int) -> float:
    """IS: the player's number of moves minus the opponent's."""
    return core.mobility(state, player) - core.mobility(state, 1 - player)


def ais(state: State, player: int) -> float:
    """AIS: the player's number of moves minus twice the opponent's."""
    return core.mobility(state, player) - 2 * core.mobility(state, 1 - player)


def _lookahead_sum(state: State, player: int) -> int:
    blocked = state.traps | 1 << state.cells[1 - player] | 1 << state.cells[player]
    neighbours = geometry(state.board_size).neighbours
    return sum(
        (neighbours[cell] & ~blocked).bit_count()
        for cell in cells_of(core.move_mask(state, player))
    )


def ocls(state: State, player: int) -> float:
    """OCLS: the sum over my moves of the moves from there, minus the opponent's sum."""
    return _lookahead_sum(state, player) - _lookahead_sum(state, 1 - player)


HEURISTICS: dict[str, Heuristic] = {"is": is_score, "ais": ais, "ocls": ocls, "eval": evaluate}


def _score(state: State, player: int, heuristic: Heuristic) -> float:
    if core.is_terminal(state):
        return WIN_SCORE if state.winner == player else -WIN_SCORE
    return heuristic(state, player)


class GreedyAgent(SeededAgent):
    """Plays the one-ply best move and throw under a heuristic.

    Args:
        heuristic: one of ``is``, ``ais``, ``ocls``, ``eval``.
        seed: seeds the tie-breaking generator.
    """

    def __init__(self, heuristic: str = "ais", seed: int | None = None) -> None:
        super().__init__(seed)
        if heuristic not in HEURISTICS:
            raise ValueError(
                f"unknown heuristic {heuristic!r}; known: {', '.join(sorted(HEURISTICS))}"
            )
        self.heuristic_name = heuristic
        self.heuristic = HEURISTICS[heuristic]

    def select_action(self, state: State) -> Cell:
        """The best move (phase MOVE) or throw target (phase THROW) one ply ahead."""
        if state.phase is Phase.MOVE:
            scored = [
                (_score(core.apply(state, cell), state.player, self.heuristic), cell)
                for cell in core.legal_actions(state)
            ]
        elif state.phase is Phase.THROW:
            scored = [(self._throw_value(state, cell), cell) for cell in _throw_targets(state)]
        else:
            raise ValueError(f"agents act in phases MOVE and THROW, got {state.phase.name}")
        if not scored:
            raise ValueError(f"no legal action in {core.to_text(state)}")
        best = max(value for value, _ in scored)
        return self.rng.choice([cell for value, cell in scored if value == best])

    def batched(self) -> BatchedGreedy | None:
        """The same sets of best actions for every game of the batched env at once (for
        the heuristics it computes in arrays; None for ``eval`` and for a subclass that
        decides otherwise)."""
        if type(self).select_action is not GreedyAgent.select_action:
            return None
        name = self.heuristic_name
        return BatchedGreedy(name) if name in BATCHED_HEURISTICS else None

    def _throw_value(self, state: State, target: Cell) -> float:
        landing = core.apply(state, target)
        return sum(
            p * _score(core.apply(landing, cell), state.player, self.heuristic)
            for cell, p in core.chance_outcomes(landing)
        )


def _throw_targets(state: State) -> list[Cell]:
    """Empty cells within two king steps of the opponent (any empty cell if none)."""
    n = state.board_size
    cell0, cell1 = state.cells
    empty = geometry(n).full & ~(state.traps | 1 << cell0 | 1 << cell1)
    near = empty & square_mask(n, state.cells[1 - state.player], 2)
    return cells_of(near or empty) or core.legal_actions(state)


def greedy(heuristic: str = "ais", seed: int | None = None) -> GreedyAgent:
    """One-ply agent; ``heuristic`` is ``is``, ``ais`` (default), ``ocls`` or ``eval``."""
    return GreedyAgent(heuristic, seed)


def greedy_is(seed: int | None = None) -> GreedyAgent:
    """The one-ply agent with the IS heuristic."""
    return GreedyAgent("is", seed)


def greedy_ais(seed: int | None = None) -> GreedyAgent:
    """The one-ply agent with the AIS heuristic."""
    return GreedyAgent("ais", seed)


def greedy_ocls(seed: int | None = None) -> GreedyAgent:
    """The one-ply agent with the OCLS heuristic."""
    return GreedyAgent("ocls", seed)

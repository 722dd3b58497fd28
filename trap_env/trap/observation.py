"""What an agent of Trap! sees: board planes and the legal-action mask, the same in every env.

The observation is a stack of four ``N x N`` planes, channel last like PettingZoo's
classic games, from the point of view of the player who observes (the acting player in
every env), so that one policy can play either seat:

========  =========================================================
plane     meaning
========  =========================================================
0         the observer's own cell
1         the opponent's cell
2         the traps
3         all ones in phase ``THROW``, all zeros in phase ``MOVE``
========  =========================================================

Example:
    >>> from trap_env.trap.core import initial_state
    >>> planes = observe(initial_state(), player=0)
    >>> planes.shape, planes.dtype, int(planes[0, 3, 0]), int(action_mask(initial_state()).sum())
    ((7, 7, 4), dtype('int8'), 1, 5)
"""

from __future__ import annotations

import numpy as np

from trap_env.trap.core import Bitboard, Phase, State, legal_actions

__all__ = ["NUM_PLANES", "action_mask", "bitboard_to_array", "observe"]

NUM_PLANES = 4
"""The number of planes in an observation: own cell, opponent's cell, traps, phase."""


def bitboard_to_array(bitboard: Bitboard, num_cells: int) -> np.ndarray:
    """The bitboard as an ``int8`` array of ``num_cells`` zeros and ones, cell 0 first."""
    raw = np.frombuffer(bitboard.to_bytes((num_cells + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, count=num_cells, bitorder="little").view(np.int8)


def observe(state: State, player: int) -> np.ndarray:
    """The ``(N, N, 4)`` ``int8`` planes of ``state`` seen by ``player`` (a fresh array).

    Raises:
        ValueError: if ``player`` is not 0 or 1, or the state waits for chance
            (phase ``LANDING``), which no agent observes.
    """
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player!r}")
    _require_decision_phase(state, "observe")
    n = state.board_size
    num_cells = n * n
    planes = np.zeros((num_cells, NUM_PLANES), dtype=np.int8)
    planes[state.cells[player], 0] = 1
    planes[state.cells[1 - player], 1] = 1
    planes[:, 2] = bitboard_to_array(state.traps, num_cells)
    if state.phase is Phase.THROW:
        planes[:, 3] = 1
    return planes.reshape(n, n, NUM_PLANES)


def action_mask(state: State) -> np.ndarray:
    """The legal actions of the player to act as ``int8`` zeros and ones over the N*N cells.

    All zeros once the game is over.

    Raises:
        ValueError: if the state waits for chance (phase ``LANDING``).
    """
    _require_decision_phase(state, "action_mask")
    mask = np.zeros(state.board_size * state.board_size, dtype=np.int8)
    mask[legal_actions(state)] = 1
    return mask


def _require_decision_phase(state: State, caller: str) -> None:
    if state.phase is Phase.LANDING and state.winner < 0:
        raise ValueError(
            f"{caller} needs a state in phase MOVE or THROW; this one waits for the landing "
            "of a throw (phase LANDING): apply a cell from chance_outcomes(state) first"
        )

"""Trap!'s PettingZoo module, ``trap_env/trap_v0`` (``from trap_env import trap_v0``):
:class:`raw_env`, the generic :class:`trap_env.aec_env.GameAECEnv` with Trap!'s arguments,
its throw ``infos`` and PettingZoo's documented sections, and :func:`env`, that in
PettingZoo's usual wrappers.

Example:
    >>> from trap_env import trap_v0
    >>> aec = trap_v0.env(board_size=5)
    >>> aec.reset(seed=0)
    >>> aec.agent_selection
    'player_0'
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pettingzoo import AECEnv

from trap_env.aec_env import GameAECEnv, wrap
from trap_env.entry_points import check_own_game
from trap_env.rendering import available_render_modes
from trap_env.trap.core import DEFAULT_DECAY, State

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """Trap!'s :class:`raw_env` in PettingZoo's usual wrappers (:func:`trap_env.aec_env.wrap`:
    an illegal action ends the game with -1 for its author).

    Args:
        **kwargs: passed to :class:`raw_env` (``board_size``, ``max_turns``, ``decay``,
            ``render_mode``).
    """
    return wrap(raw_env(**kwargs))


class raw_env(GameAECEnv):
    """Trap! for two agents, ``player_0`` and ``player_1``, in PettingZoo's AEC API.

    ## Description
    Two players stand on an ``N x N`` board. A turn is a move (a king step onto a free
    cell) and then a throw: the player names a target cell and a trap lands on it, or, with
    a probability growing with the Manhattan distance, on one of its free neighbours. A
    player who leaves the opponent no legal move wins. The rules are in ``docs/RULES.md``
    and ``trap_env.trap.core``; this class only translates them. The same agent is selected twice in
    a row, first to move, then to throw; the landing is drawn inside ``step`` from the
    env's generator, seeded by ``reset(seed=...)``.

    ## Action Space
    ``Discrete(N * N)`` for each agent: a flat cell index ``row * N + col``, the destination
    of a move or the target of a throw. ``observation["action_mask"]`` marks the legal ones.

    ## Observation Space
    ``Dict(observation=Box(0, 1, (N, N, 4), int8), action_mask=Box(0, 1, (N * N,), int8))``.
    The planes are from the observing agent's point of view: own cell, opponent's cell,
    traps, and a plane of ones in the throw phase (zeros in the move phase); see
    :mod:`trap_env.trap.observation`. The mask is all zeros for the agent not selected, and
    all ones for both once the game is over (so that a masked sampler always has an
    action; ``trap_env.trap.core.legal_action_mask`` stays exact).

    ## Starting State
    Player 0 on ``(0, N // 2)``, player 1 on ``(N - 1, N // 2)``, no traps; ``player_0``
    is selected first, to move.

    ## Rewards
    +1 for the winner and -1 for the loser when a player is left with no legal move; 0 and
    0 on every other step and on truncation. With :func:`env`, an illegal action scores -1
    for its author and ends the game.

    ## Episode End
    Termination when a player has no legal move. Truncation of both agents when
    ``max_turns`` turns (one player's move and throw each) are complete: a game is at most
    ``2 * max_turns`` steps. ``infos`` of both agents hold the latest throw from ``reset``
    on, as ``np.int64``: ``{"thrower", "target", "landing"}`` (the thrower's player number,
    the intended target and the cell the trap landed on; -1 before the first throw).

    ## Arguments
    - ``board_size``: N from 3 to 1000, default 7.
    - ``max_turns``: the truncation limit in turns; None means ``4 * N * N``.
    - ``decay``: the throw's accuracy loss per step of distance beyond the first, an
      integer per mille in 0..1000 (see :class:`trap_env.trap.core.GameConfig`); 50, the game
      as specified, by default; 0 lands every throw on its target.
    - ``render_mode``: None, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (pygame).
    - ``game``: only ``"trap"`` (another game is refused: it has its own module).

    ## Version History
    - v0: first version.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": available_render_modes(),
        "name": "trap_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }
    _game_state: State

    def __init__(
        self,
        board_size: int = 7,
        max_turns: int | None = None,
        decay: int = DEFAULT_DECAY,
        render_mode: str | None = None,
        game: object = "trap",
    ) -> None:
        check_own_game("trap", game, "trap_v0")
        super().__init__("trap", max_turns, render_mode, board_size=board_size, decay=decay)

    @property
    def game_state(self) -> State:
        """The current game state (a value of :mod:`trap_env.trap.core`)."""
        return self._game_state

    _NO_CHANCE: ClassVar[dict[str, np.int64]] = {
        "thrower": np.int64(-1),
        "target": np.int64(-1),
        "landing": np.int64(-1),
    }

    def _chance_info(self, player: int, before: State, outcome: int) -> dict[str, np.int64]:
        """``{"thrower", "target", "landing"}``: the throw's author, its target, its landing."""
        return {
            "thrower": np.int64(player),
            "target": np.int64(before.target),
            "landing": np.int64(outcome),
        }

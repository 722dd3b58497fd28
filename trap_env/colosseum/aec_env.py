"""Colosseum Survival!'s PettingZoo module, ``trap_env/colosseum_v0``
(``from trap_env import colosseum_v0``): :class:`raw_env`, the generic
:class:`trap_env.aec_env.GameAECEnv` of Colosseum Survival!, and :func:`env`, that in
PettingZoo's usual wrappers.

Example:
    >>> from trap_env import colosseum_v0
    >>> aec = colosseum_v0.env(board_size=5)
    >>> aec.reset(seed=0)
    >>> aec.agent_selection, aec.observe("player_0")["observation"].shape
    ('player_0', (5, 5, 7))
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from trap_env.aec_env import GameAECEnv, wrap
from trap_env.entry_points import check_own_game

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """Colosseum Survival!'s :class:`raw_env` in PettingZoo's usual wrappers
    (:func:`trap_env.aec_env.wrap`: an illegal action ends the game with -1 for its author).

    Args:
        **kwargs: passed to :class:`raw_env` (``board_size``, ``start``, ``max_turns``,
            ``render_mode``).
    """
    return wrap(raw_env(**kwargs))


class raw_env(GameAECEnv):
    """Colosseum Survival! for two agents, ``player_0`` (A, first to move) and ``player_1``
    (B), in PettingZoo's AEC API.

    ## Description
    The rules are in ``docs/colosseum.md`` and :mod:`trap_env.colosseum.rules`; this class
    only translates them. The start (the barriers and the two cells) is drawn by chance at
    ``reset`` from the env's generator, seeded by ``reset(seed=...)``, unless ``start``
    fixes it.

    ## Action Space
    ``Discrete(M * M * 4)`` for each agent: a destination cell and the side of its new
    barrier, ``(row * M + col) * 4 + side`` (up 0, right 1, down 2, left 3).
    ``observation["action_mask"]`` marks the legal ones.

    ## Observation Space
    ``Dict(observation=Box(0, 1, (M, M, 7), int8), action_mask=Box(0, 1, (M * M * 4,), int8))``
    from the observing agent's side (:meth:`trap_env.colosseum.game.Colosseum.observe`). The
    mask is all zeros for the agent not selected, and all ones for both once the game is
    over (the env contract of ``docs/environments.md``).

    ## Rewards
    +1 for the player with the larger zone when the barriers part the players, -1 for the
    other, 0 for both on a tie, on every other step and on truncation.

    ## Episode End
    Termination when the players are parted. ``infos`` of both agents hold the start drawn
    (``"player"`` -1 and ``"chance"`` the start number) and ``"zones"``, the two players'
    zone sizes once the start is drawn (an ``int64`` array).

    ## Arguments
    - ``board_size``: M from 3 to 32, default 8.
    - ``start``: a start number, or -1 (default) to draw it at each reset.
    - ``max_turns``: the truncation limit in turns; None means the game's default, which
      never cuts a game.
    - ``render_mode``: None, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (pygame).
    - ``game``: only ``"colosseum"`` (another game is refused: it has its own module).

    ## Version History
    - v0: first version.
    """

    def __init__(
        self, max_turns: int | None = None, render_mode: str | None = None, **params: Any
    ) -> None:
        check_own_game("colosseum", params.pop("game", "colosseum"), "colosseum_v0")
        super().__init__("colosseum", max_turns, render_mode, **params)

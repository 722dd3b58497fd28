"""Othello's PettingZoo module, ``trap_env/othello_v0`` (``from trap_env import othello_v0``):
:class:`raw_env`, the generic :class:`trap_env.aec_env.GameAECEnv` of Othello, and
:func:`env`, that in PettingZoo's usual wrappers.

Example:
    >>> from trap_env import othello_v0
    >>> aec = othello_v0.env(board_size=6)
    >>> aec.reset(seed=0)
    >>> aec.agent_selection, aec.observe("player_0")["observation"].shape
    ('player_0', (6, 6, 4))
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from trap_env.aec_env import GameAECEnv, wrap
from trap_env.entry_points import check_own_game

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """Othello's :class:`raw_env` in PettingZoo's usual wrappers (:func:`trap_env.aec_env.wrap`:
    an illegal action ends the game with -1 for its author).

    Args:
        **kwargs: passed to :class:`raw_env` (``board_size``, ``end_rule``, ``max_turns``,
            ``render_mode``).
    """
    return wrap(raw_env(**kwargs))


class raw_env(GameAECEnv):
    """Othello for two agents, ``player_0`` (dark, first to play) and ``player_1`` (light),
    in PettingZoo's AEC API.

    ## Description
    The rules are in ``docs/othello.md`` and :mod:`trap_env.othello.rules`; this class only
    translates them. A player with no placement passes (the pass is an action).

    ## Action Space
    ``Discrete(N * N + 1)`` for each agent: a flat cell ``row * N + col``, and N*N the pass.
    ``observation["action_mask"]`` marks the legal ones.

    ## Observation Space
    ``Dict(observation=Box(0, 1, (N, N, 4), int8), action_mask=Box(0, 1, (N * N + 1,), int8))``
    from the observing agent's side (:meth:`trap_env.othello.game.Othello.observe`). The
    mask is all zeros for the agent not selected, and all ones for both once the game is
    over (the env contract of ``docs/environments.md``).

    ## Rewards
    +1 for the player with more discs at the end, -1 for the other, 0 for both on a draw,
    on every other step and on truncation.

    ## Episode End
    Termination when the rules end the game (``end_rule``). ``infos`` of both agents hold
    ``"discs"``, the two players' disc counts (an ``int64`` array).

    ## Arguments
    - ``board_size``: an even N from 4 to 26, default 8.
    - ``end_rule``: ``"standard"`` (default) or ``"course"`` (see ``docs/othello.md``).
    - ``max_turns``: the truncation limit in turns; None means the game's default, which
      never cuts a game.
    - ``render_mode``: None, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (pygame).
    - ``game``: only ``"othello"`` (another game is refused: it has its own module).

    ## Version History
    - v0: first version.
    """

    def __init__(
        self, max_turns: int | None = None, render_mode: str | None = None, **params: Any
    ) -> None:
        check_own_game("othello", params.pop("game", "othello"), "othello_v0")
        super().__init__("othello", max_turns, render_mode, **params)

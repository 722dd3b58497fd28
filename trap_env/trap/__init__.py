"""Trap! on the stack: the rules (:mod:`trap_env.trap.core`, pure, on Python-int bitboards,
with the search's inner loops in :mod:`trap_env.trap.kernel`), the game protocol over them
(:mod:`trap_env.trap.game`, registered as ``"trap"``), the observation planes
(:mod:`trap_env.trap.observation`), the batched engine (:mod:`trap_env.trap.batched`, boards
up to 8x8, with its random opponent in :mod:`trap_env.trap.batched_opponents`), the pictures
(:mod:`trap_env.trap.rendering`) and the entry points: the Gymnasium env ``trap_env/Trap-v0``
(:mod:`trap_env.trap.gym_env`, batched: :mod:`trap_env.trap.batched_env`), the PettingZoo
module ``trap_env/trap_v0`` (:mod:`trap_env.trap.aec_env`) and the OpenSpiel game
``python_trap`` (:mod:`trap_env.trap.openspiel`).

A turn is a move (one king step) and a throw (a trap at a target), whose landing is a chance
node with exact odds. See ``docs/RULES.md`` for the rules.

Example:
    >>> from trap_env.games import get_game
    >>> game = get_game("trap")
    >>> state = game.initial_state(game.make_config(board_size=5))
    >>> game.to_text(state)
    '..0../...../...../...../..1.. 0 move - 0'
"""

from typing import Any

from trap_env.aliases import moved_attribute


def __getattr__(name: str) -> Any:
    """``GAME`` and ``Trap``, deprecated: this package was once the module of Trap!'s game
    object, now :mod:`trap_env.trap.game` (PEP 562)."""
    if name in ("GAME", "Trap"):
        return moved_attribute(f"trap_env.trap.{name}", f"trap_env.trap.game:{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

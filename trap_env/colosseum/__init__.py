"""Colosseum Survival! on the stack: the rules (:mod:`trap_env.colosseum.rules`, pure, on
Python-int bitboards for any M >= 3) and the game protocol over them
(:mod:`trap_env.colosseum.game`, registered as ``"colosseum"``) and its PettingZoo module
(:mod:`trap_env.colosseum.aec_env`). Its ids: Gymnasium ``trap_env/Colosseum-v0``,
PettingZoo ``trap_env/colosseum_v0``, OpenSpiel ``python_colosseum``.

Player A (player 0) moves first; actions are a destination cell and a side,
``(row * M + col) * 4 + side`` with the course engine's sides (up 0, right 1, down 2,
left 3). The start is one chance node, or the rule parameter ``start``. See
``docs/colosseum.md`` for the rules.

Example:
    >>> from trap_env.games import get_game
    >>> game = get_game("colosseum")
    >>> state = game.initial_state(game.make_config(board_size=4, start=0))
    >>> game.to_text(state)
    '9393/802a/a802/c6c6 2,3 1,0 A 0'
"""

from trap_env.colosseum.rules import ColosseumConfig, ColosseumState

__all__ = ["ColosseumConfig", "ColosseumState"]

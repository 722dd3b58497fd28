"""Othello on the stack: the rules (:mod:`trap_env.othello.rules`, pure, on Python-int
bitboards for any even N >= 4), the game protocol over them (:mod:`trap_env.othello.game`,
registered as ``"othello"``), its batched engine (:mod:`trap_env.othello.batched`) and its
PettingZoo module (:mod:`trap_env.othello.aec_env`). Its ids: Gymnasium
``trap_env/Othello-v0``, PettingZoo ``trap_env/othello_v0``, OpenSpiel ``python_othello``.

Dark (player 0, the CSC384 course's colour 1) moves first; actions are the N*N cells,
``row * N + col``, and the pass, N*N. See ``docs/othello.md`` for the rules.

Example:
    >>> from trap_env.games import get_game
    >>> game = get_game("othello")
    >>> state = game.initial_state(game.make_config(board_size=6, end_rule="course"))
    >>> game.to_text(state)
    '....../....../..ox../..xo../....../...... x 0 course'
"""

from trap_env.othello.rules import OthelloConfig, OthelloState

__all__ = ["OthelloConfig", "OthelloState"]

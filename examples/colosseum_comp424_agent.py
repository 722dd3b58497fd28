"""An agent for the McGill COMP 424 (Winter 2022) *Colosseum Survival!* engine that plays
this project's reference search (``expectiminimax`` of :mod:`agents.colosseum.search`).

Put this file in the engine's ``agents/`` directory and import it in
``agents/__init__.py`` (``from .colosseum_comp424_agent import *``), as the engine's own
agents are; then ``python simulator.py --player_1 trap_env_agent --player_2 random_agent
--autoplay``. The engine asks ``step(chess_board, my_pos, adv_pos, max_step)`` with the
barriers as an ``(M, M, 4)`` bool array (sides up, right, down, left: the engine's
``constants.py``), the positions as ``(row, col)`` tuples of numpy integers and K; the
agent answers ``((row, col), side)``.

It needs the ``trap_env`` package installed for the python that runs the engine (``pip
install trap_env``; numpy is the engine's own). It reads and writes no file. The engine
has its own ``agents`` package, which hides this project's: the reference is imported
once, at the first ``step`` (the course allowed 30 s for the first move), with the
engine's modules set aside meanwhile and put back after (:func:`import_reference`).

The search runs :data:`TIME_LIMIT` seconds of wall-clock time per move (the course's
tournament allowed 2 s; the environment variable ``COLOSSEUM_AGENT_TIME_LIMIT``
overrides it). If anything fails, it answers the first legal move of the rules rather
than leave the engine to walk at random; given a board it cannot read (or a position no
game reaches), it says so on standard error and stays where it is, with a barrier on a
free side of its cell (:func:`fallback_move`).
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import Any

try:  # inside the engine: its base class and its registry
    from agents.agent import Agent  # type: ignore[import-not-found]
    from store import register_agent  # type: ignore[import-not-found]
except ImportError:  # elsewhere (this project's tests load the file to check its parts)

    class Agent:  # type: ignore[no-redef]
        """The engine's base class, for use outside the engine."""

        def __init__(self) -> None:
            self.name = "DummyAgent"

    def register_agent(name: str) -> Any:  # type: ignore[no-redef]
        """The engine's decorator, for use outside the engine: registers nothing."""
        return lambda cls: cls


NAME = "trap_env_agent"
"""The name the agent is registered under (``--player_1 trap_env_agent``)."""
TIME_LIMIT = 1.5
"""Seconds of wall-clock time per move: the course's 2 s less a margin."""


def _is_agents_module(name: str) -> bool:
    return name == "agents" or name.startswith("agents.")


def import_reference() -> tuple[Any, Any, Any]:
    """This project's search classes and the rules module.

    The engine's ``agents`` package has the name of this project's: its modules are set
    aside from ``sys.modules`` while ours are imported from beside the installed
    ``trap_env``, then put back, so the engine sees only its own afterwards.

    Raises:
        ImportError: if ``trap_env`` is not installed.
    """
    import trap_env
    from trap_env.colosseum import rules

    root = str(Path(trap_env.__file__).resolve().parent.parent)
    engines = {name: module for name, module in sys.modules.items() if _is_agents_module(name)}
    for name in engines:
        del sys.modules[name]
    sys.path.insert(0, root)
    try:
        search = importlib.import_module("agents.colosseum.search")
    finally:
        sys.path.remove(root)
        for name in [name for name in sys.modules if _is_agents_module(name)]:
            del sys.modules[name]
        sys.modules.update(engines)
    return search.SearchAgent, search.SearchSettings, rules


def to_state(rules: Any, chess_board: Any, my_pos: Any, adv_pos: Any, turn: int) -> Any:
    """The engine's arguments as a state of :mod:`trap_env.colosseum.rules`, this agent
    (whichever player it is) to act as player 0.

    Raises:
        ValueError: for a position no game reaches (``rules.check_state``), or arguments
            of another shape.
    """
    n = int(chess_board.shape[0])
    if tuple(chess_board.shape) != (n, n, 4):
        raise ValueError(f"the board must be (M, M, 4), got shape {tuple(chess_board.shape)}")
    sides = []
    for side in range(4):
        flags = chess_board[:, :, side].reshape(-1).tolist()
        sides.append(sum(1 << cell for cell, flag in enumerate(flags) if flag))
    me = int(my_pos[0]) * n + int(my_pos[1])
    other = int(adv_pos[0]) * n + int(adv_pos[1])
    if not all(0 <= int(value) < n for value in (*my_pos, *adv_pos)):
        raise ValueError(f"the positions {my_pos} and {adv_pos} must be on the {n}x{n} board")
    state = rules.ColosseumState(n, tuple(sides), (me, other), 0, turn)
    rules.check_state(state)
    return state


def fallback_move(chess_board: Any, my_pos: Any) -> Any:
    """Stay, with a barrier on the first side of the cell that has none: legal whenever
    the cell has a free side; ``((0, 0), 0)`` if not even the position can be read."""
    try:
        row, col = int(my_pos[0]), int(my_pos[1])
        free = [side for side in range(4) if not chess_board[row, col, side]]
    except Exception:  # an answer in any case, never a traceback
        return (0, 0), 0
    return (row, col), (free[0] if free else 0)


@register_agent(NAME)
class TrapEnvAgent(Agent):  # type: ignore[misc]
    """The reference search as an engine agent (autoplay on)."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "TrapEnvAgent"
        self.autoplay = True
        self.turns = 0
        self._search: Any = None

    def step(self, chess_board: Any, my_pos: Any, adv_pos: Any, max_step: int) -> Any:
        """The reference's move as ``((row, col), side)``; if the search (or importing
        it) fails, the first legal move of the rules; for a position it cannot read (or
        one no game reaches), a line on standard error and :func:`fallback_move`."""
        from trap_env.colosseum import rules

        self.turns += 1
        try:
            state = to_state(rules, chess_board, my_pos, adv_pos, self.turns - 1)
        except Exception as error:  # an answer in any case, never a traceback
            message = str(error)[:200]
            print(f"{NAME}: cannot read the engine's position ({message}); staying put",
                  file=sys.stderr, flush=True)  # fmt: skip
            return fallback_move(chess_board, my_pos)
        try:
            action = self._searcher().select_action(state)
        except Exception:  # never leave the move to the engine's random walk
            legal = rules.legal_actions(state)
            if not legal:  # the game is over: the engine asks no more
                return fallback_move(chess_board, my_pos)
            action = legal[0]
        cell, side = rules.decode_action(action)
        return divmod(cell, state.board_size), side

    def _searcher(self) -> Any:
        """The reference search agent, imported and built at the first move."""
        if self._search is None:
            search_agent, settings, _ = import_reference()
            limit = float(os.environ.get("COLOSSEUM_AGENT_TIME_LIMIT", TIME_LIMIT))
            self._search = search_agent(settings(time_limit=limit, clock="wall"))
        return self._search

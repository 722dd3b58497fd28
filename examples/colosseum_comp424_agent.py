"""An agent for the McGill COMP 424 (Winter 2022) *Colosseum Survival!* engine that plays
this project's reference search: the engine-facing class, delegating each move to
:class:`agents.colosseum.course.CoursePlayer` (the conversions, the time limit, the answers
when something fails: see there).

Put this file in the engine's ``agents/`` directory and import it in
``agents/__init__.py`` (``from .colosseum_comp424_agent import *``), as the engine's own
agents are; then ``python simulator.py --player_1 trap_env_agent --player_2 random_agent
--autoplay``.

It needs the ``trap_env`` package installed for the python that runs the engine (``pip
install trap_env``; numpy is the engine's own). The engine has its own ``agents``
package, which hides this project's: the adapter is imported once per player, at its
first ``step`` (the course allowed 30 s for the first move), with the engine's modules
set aside meanwhile and put back after (:func:`import_course`).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

try:  # inside the engine: its base class and its registry
    from agents.agent import Agent  # type: ignore[import-not-found]
    from store import register_agent  # type: ignore[import-not-found]
except ImportError:  # elsewhere (this project's tests load the file to check it)

    class Agent:  # type: ignore[no-redef]
        """The engine's base class, for use outside the engine."""

        def __init__(self) -> None:
            self.name = "DummyAgent"

    def register_agent(name: str) -> Any:  # type: ignore[no-redef]
        """The engine's decorator, for use outside the engine: registers nothing."""
        return lambda cls: cls


NAME = "trap_env_agent"
"""The name the agent is registered under (``--player_1 trap_env_agent``)."""


def _is_agents_module(name: str) -> bool:
    return name == "agents" or name.startswith("agents.")


def import_course() -> ModuleType:
    """This project's :mod:`agents.colosseum.course`.

    The engine's ``agents`` package has the name of this project's: its modules are set
    aside from ``sys.modules`` while ours are imported from beside the installed
    ``trap_env``, then put back, so the engine sees only its own afterwards.

    Raises:
        ImportError: if ``trap_env`` is not installed.
    """
    import trap_env

    root = str(Path(trap_env.__file__).resolve().parent.parent)
    engines = {name: module for name, module in sys.modules.items() if _is_agents_module(name)}
    for name in engines:
        del sys.modules[name]
    sys.path.insert(0, root)
    try:
        return importlib.import_module("agents.colosseum.course")
    finally:
        sys.path.remove(root)
        for name in [name for name in sys.modules if _is_agents_module(name)]:
            del sys.modules[name]
        sys.modules.update(engines)


@register_agent(NAME)
class TrapEnvAgent(Agent):  # type: ignore[misc]
    """The reference search as an engine agent (autoplay on)."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "TrapEnvAgent"
        self.autoplay = True
        self._player: Any = None

    def step(self, chess_board: Any, my_pos: Any, adv_pos: Any, max_step: int) -> Any:
        """The reference's move as ``((row, col), side)`` (``CoursePlayer.step``)."""
        if self._player is None:
            self._player = import_course().CoursePlayer()
        return self._player.step(chess_board, my_pos, adv_pos, max_step)

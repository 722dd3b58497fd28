"""A benchmark suite of three two-player course games, Trap!, Othello and Colosseum Survival!,
each a peer: the same Gymnasium, PettingZoo and OpenSpiel entry points for every game.

Each game lives in its own package: its pure rules, its protocol object
(:class:`trap_env.game.Game`), its batched engine where it has one, its drawing and its
entry points (:mod:`trap_env.trap`, :mod:`trap_env.othello`, :mod:`trap_env.colosseum`).
The table of games (:data:`trap_env.games.GAME_TABLE`) declares every game's ids, and
importing the package registers each of them, without importing a game:

- Trap!: Gymnasium ``trap_env/Trap-v0``, PettingZoo ``trap_env/trap_v0``, OpenSpiel
  ``python_trap``;
- Othello: ``trap_env/Othello-v0``, ``trap_env/othello_v0``, ``python_othello``;
- Colosseum Survival!: ``trap_env/Colosseum-v0``, ``trap_env/colosseum_v0``,
  ``python_colosseum``.

``gymnasium.make(id, opponent="random")`` plays one learner against an opponent
(:class:`trap_env.gym_env.GameEnv`), and ``gymnasium.make_vec`` runs B games at once, in the
game's batched engine where it has one (:class:`trap_env.batched_env.GameVectorEnv`).
``pettingzoo.make("aec", id)`` (where the installed PettingZoo has a registry) or
``from trap_env import othello_v0; othello_v0.env()`` gives the two-agent AEC env
(:class:`trap_env.aec_env.GameAECEnv`). ``import trap_env.openspiel`` registers the OpenSpiel
names. A game from outside joins with :func:`trap_env.games.register_game`.

The package's top holds, generic, the ids as constants (:data:`GYM_ID`,
:data:`OTHELLO_GYM_ID`, :data:`COLOSSEUM_GYM_ID`, :data:`AEC_ID`), each game's PettingZoo
module (``othello_v0``: made by :func:`trap_env.aec_env.game_module` for a game without a
module of its own) and :class:`~trap_env.game.IllegalActionError`; and Trap!'s shortcuts, as
they always were: ``TrapEnv`` (:class:`trap_env.trap.gym_env.TrapEnv`), ``env()`` and
``raw_env`` (Trap!'s PettingZoo env, :mod:`trap_env.trap.aec_env`), each loaded on first use.

Moved names keep working for a deprecation period, each with a :class:`DeprecationWarning`
naming its new home (:mod:`trap_env.aliases`): Trap!'s rules once at the top (``apply``,
``initial_state``, ``State``, ...: :mod:`trap_env.trap.core`), the modules that moved into
Trap!'s package (``trap_env.core``, ``trap_env.kernel``, ``trap_env.observation``,
``trap_env.batched_trap``), the games' old PettingZoo modules
(``trap_env.othello.aec_env``: ``trap_env.othello_v0``) and :func:`register_gym_env`
(:func:`trap_env.games.register_game`).

Example:
    >>> import gymnasium, trap_env
    >>> env = gymnasium.make("trap_env/Othello-v0", opponent="random", board_size=6)
    >>> observation, info = env.reset(seed=0)
    >>> observation.shape
    (6, 6, 4)
    >>> from trap_env import othello_v0
    >>> aec = othello_v0.env(board_size=6)
    >>> aec.reset(seed=0)
    >>> aec.agent_selection
    'player_0'
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

from trap_env.aliases import move_module, moved_attribute, serve_module
from trap_env.game import IllegalActionError
from trap_env.games import GAME_TABLE, entry_for, get_game, register_entry_points

__version__ = "0.1.0"
"""The package's version (``setup.cfg`` reads it from here)."""

__all__ = [
    "AEC_ID",
    "COLOSSEUM_GYM_ID",
    "GYM_ID",
    "OTHELLO_GYM_ID",
    "IllegalActionError",
    "TrapEnv",
    "colosseum_v0",
    "env",
    "othello_v0",
    "raw_env",
    "trap_v0",
]

GYM_ID = "trap_env/Trap-v0"
"""Trap!'s Gymnasium id: ``gymnasium.make(GYM_ID, opponent="random")``."""
OTHELLO_GYM_ID = "trap_env/Othello-v0"
"""Othello's Gymnasium id: ``gymnasium.make(OTHELLO_GYM_ID, opponent="random")``."""
COLOSSEUM_GYM_ID = "trap_env/Colosseum-v0"
"""Colosseum Survival!'s Gymnasium id: ``gymnasium.make(COLOSSEUM_GYM_ID, opponent="random")``."""
AEC_ID = "trap_env/trap_v0"
"""Trap!'s PettingZoo AEC id: ``pettingzoo.make("aec", AEC_ID)`` where PettingZoo has ``make``."""

_TRAP_SHORTCUTS = {
    "TrapEnv": "trap_env.trap.gym_env",
    "env": "trap_env.trap.aec_env",
    "raw_env": "trap_env.trap.aec_env",
}
"""Trap!'s envs at the top -> the module each is loaded from on first use."""

_MOVED_TRAP_RULES = (
    "GameConfig",
    "Phase",
    "State",
    "apply",
    "chance_outcomes",
    "initial_state",
    "is_terminal",
    "legal_action_mask",
    "legal_actions",
    "returns",
    "sample_landing",
)
"""Trap!'s rule names the top once held, deprecated: :mod:`trap_env.trap.core`'s."""

MOVED_MODULES = {
    "trap_env.core": "trap_env.trap.core",
    "trap_env.kernel": "trap_env.trap.kernel",
    "trap_env.observation": "trap_env.trap.observation",
    "trap_env.batched_trap": "trap_env.trap.batched",
    "trap_env.othello.aec_env": "trap_env.othello_v0",
    "trap_env.colosseum.aec_env": "trap_env.colosseum_v0",
}
"""Each module that moved -> its new home; the old name imports it, with a warning."""


def __getattr__(name: str) -> Any:
    """Load Trap!'s envs and the games' PettingZoo modules on first use, and Trap!'s rules
    the top once held, with a :class:`DeprecationWarning` (PEP 562)."""
    if name in _TRAP_SHORTCUTS:
        return getattr(importlib.import_module(_TRAP_SHORTCUTS[name]), name)
    if f"{__name__}.{name}" in _PETTINGZOO_MODULES:
        module: ModuleType = importlib.import_module(f"{__name__}.{name}")
        return module
    if name in _MOVED_TRAP_RULES:
        return moved_attribute(f"trap_env.{name}", f"trap_env.trap.core:{name}")
    raise AttributeError(f"module 'trap_env' has no attribute {name!r}")


def register_gym_env(game: str) -> str:
    """Deprecated: register a game and its ids with :func:`trap_env.games.register_game`
    (``register_game(game, gym_id="mypackage/MyGame-v0")``); the suite's games register
    theirs on import.

    Registers the Gymnasium id ``trap_env/<Title>-v0`` of a registered game (or a game's
    path), with a :class:`DeprecationWarning`, and returns it; registering twice is fine.

    Raises:
        UnknownGameError: (a ``ValueError``) if no game is registered under ``game``.
    """
    warnings.warn(
        "register_gym_env is deprecated: register a game and its ids with "
        "trap_env.games.register_game(game, gym_id=...)",
        DeprecationWarning,
        stacklevel=2,
    )
    found = get_game(game)
    title = "".join(char for char in found.title if char.isalnum())
    gym_id = f"trap_env/{title}-v0"
    register_entry_points(dataclasses.replace(entry_for(game), gym_id=gym_id, aec_id=None))
    return gym_id


def _made_pettingzoo_module(game: str) -> ModuleType:
    """The PettingZoo module made for ``game`` (numpy and PettingZoo imported only now)."""
    from trap_env.aec_env import game_module

    return game_module(game)


def _pettingzoo_modules() -> dict[str, Callable[[], ModuleType]]:
    """Each game's PettingZoo module, ``trap_env.<game>_v0`` (its AEC id's last part) -> what
    gives it: the game's own module, or the one :func:`trap_env.aec_env.game_module` makes
    where the game's entry names ``trap_env.<game>_v0`` itself."""
    served: dict[str, Callable[[], ModuleType]] = {}
    for entry in GAME_TABLE:
        if entry.aec_id is None or entry.aec_module is None:
            continue
        name = f"trap_env.{entry.aec_id.rpartition('/')[2]}"
        if entry.aec_module == name:
            served[name] = functools.partial(_made_pettingzoo_module, entry.name)
        else:
            served[name] = functools.partial(importlib.import_module, entry.aec_module)
    return served


_PETTINGZOO_MODULES = _pettingzoo_modules()

for _name, _make in _PETTINGZOO_MODULES.items():
    serve_module(_name, _make)
for _old, _new in MOVED_MODULES.items():
    move_module(_old, _new)
for _entry in GAME_TABLE:
    register_entry_points(_entry)

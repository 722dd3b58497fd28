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

The package's top also holds the ids as constants (:data:`GYM_ID`, :data:`OTHELLO_GYM_ID`,
:data:`COLOSSEUM_GYM_ID`, :data:`AEC_ID`) and Trap!'s shortcuts: ``TrapEnv``, ``env()`` and
``raw_env`` (of :mod:`trap_env.trap`) and its rule functions (:mod:`trap_env.trap.core`),
each loaded on first use.

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
import importlib
from types import ModuleType
from typing import Any

from trap_env.games import GAME_TABLE, entry_for, get_game, register_entry_points

__version__ = "0.1.0"
"""The package's version (``setup.cfg`` reads it from here)."""

__all__ = [
    "AEC_ID",
    "COLOSSEUM_GYM_ID",
    "GYM_ID",
    "OTHELLO_GYM_ID",
    "GameConfig",
    "IllegalActionError",
    "Phase",
    "State",
    "TrapEnv",
    "apply",
    "chance_outcomes",
    "colosseum_v0",
    "env",
    "initial_state",
    "is_terminal",
    "legal_action_mask",
    "legal_actions",
    "othello_v0",
    "raw_env",
    "register_gym_env",
    "returns",
    "sample_landing",
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

_TRAP_RULES = (
    "GameConfig",
    "IllegalActionError",
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
"""Trap!'s rule names the package re-exports (from :mod:`trap_env.trap.core`)."""

_LAZY = {
    "TrapEnv": "trap_env.trap.gym_env",
    "env": "trap_env.trap.aec_env",
    "raw_env": "trap_env.trap.aec_env",
    **dict.fromkeys(_TRAP_RULES, "trap_env.trap.core"),
}
"""Name -> the module it is loaded from on first use."""

_AEC_MODULES = {
    entry.aec_id.partition("/")[2]: entry.aec_module
    for entry in GAME_TABLE
    if entry.aec_id is not None and entry.aec_module is not None
}
"""``<game>_v0`` -> the game's PettingZoo module (``from trap_env import othello_v0``)."""


def __getattr__(name: str) -> Any:
    """Load the environments, the PettingZoo modules and Trap!'s rules on first use (PEP 562)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in _AEC_MODULES:
        module: ModuleType = importlib.import_module(_AEC_MODULES[name])
        return module
    raise AttributeError(f"module 'trap_env' has no attribute {name!r}")


def register_gym_env(game: str) -> str:
    """Register the Gymnasium id of a registered game (or a game's path),
    ``trap_env/<Title>-v0``, and return it.

    The id makes a :class:`trap_env.gym_env.GameEnv` of that game, and with ``make_vec`` a
    :class:`trap_env.batched_env.GameVectorEnv` when the game has a batched engine
    (Gymnasium's ``SyncVectorEnv`` otherwise, :func:`trap_env.gym_env.make_sync_vector_env`,
    which checks ``num_envs`` as the batched env does), bound to the game as every id is
    (:mod:`trap_env.entry_points`). The suite's games register their own
    ids on import (:data:`trap_env.games.GAME_TABLE`); a game from outside can give its id to
    :func:`trap_env.games.register_game` instead. Registering twice is fine.

    Raises:
        UnknownGameError: (a ``ValueError``) if no game is registered under ``game``.
    """
    found = get_game(game)
    title = "".join(char for char in found.title if char.isalnum())
    gym_id = f"trap_env/{title}-v0"
    register_entry_points(dataclasses.replace(entry_for(game), gym_id=gym_id, aec_id=None))
    return gym_id


for _entry in GAME_TABLE:
    register_entry_points(_entry)

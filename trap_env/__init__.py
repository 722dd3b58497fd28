"""Trap! and other course games (Othello, Colosseum Survival!) as Gymnasium, PettingZoo and
OpenSpiel benchmarks.

Importing the package registers the Gymnasium ids ``trap_env/Trap-v0``,
``trap_env/Othello-v0`` (Othello: :mod:`trap_env.othello`), ``trap_env/Colosseum-v0``
(Colosseum Survival!: :mod:`trap_env.colosseum`) and, where the installed
PettingZoo has a registry, the AEC id ``trap_env/trap_v0``. The environment classes and
the games' rules load on first use, so ``import trap_env.trap.core`` stays light.

The environments are thin adapters over the game protocol (:class:`trap_env.game.Game`):
:class:`trap_env.gym_env.GameEnv` (Gymnasium, one learner against an opponent),
:class:`trap_env.aec_env.GameAECEnv` (PettingZoo AEC) and
:func:`trap_env.openspiel.register_spiel_game` (OpenSpiel) play any registered game
(:mod:`trap_env.games`); ``TrapEnv``, ``raw_env`` and ``python_trap`` are their Trap!
instances. A game with a batched engine (:mod:`trap_env.batched`; Trap!'s is
:mod:`trap_env.trap.batched`) also runs B games at once in
:class:`trap_env.batched_env.GameVectorEnv` (``gymnasium.make_vec``).
:func:`register_gym_env` registers ``trap_env/<Title>-v0`` for another game.

Example:
    >>> import gymnasium, trap_env
    >>> env = gymnasium.make("trap_env/Trap-v0", opponent="random", board_size=5)
    >>> observation, info = env.reset(seed=0)
    >>> observation.shape
    (5, 5, 4)
    >>> aec = trap_env.env(board_size=5)
    >>> aec.reset(seed=0)
    >>> aec.agent_selection
    'player_0'
"""

from __future__ import annotations

import importlib
from typing import Any

import gymnasium

from trap_env.trap.core import (
    GameConfig,
    IllegalActionError,
    Phase,
    State,
    apply,
    chance_outcomes,
    initial_state,
    is_terminal,
    legal_action_mask,
    legal_actions,
    returns,
    sample_landing,
)

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
    "env",
    "initial_state",
    "is_terminal",
    "legal_action_mask",
    "legal_actions",
    "raw_env",
    "register_gym_env",
    "returns",
    "sample_landing",
]

GYM_ID = "trap_env/Trap-v0"
"""The Gymnasium id: ``gymnasium.make(GYM_ID, opponent="random")``."""
OTHELLO_GYM_ID = "trap_env/Othello-v0"
"""Othello's Gymnasium id: ``gymnasium.make(OTHELLO_GYM_ID, opponent="random")``."""
COLOSSEUM_GYM_ID = "trap_env/Colosseum-v0"
"""Colosseum Survival!'s Gymnasium id: ``gymnasium.make(COLOSSEUM_GYM_ID, opponent="random")``."""
AEC_ID = "trap_env/trap_v0"
"""The PettingZoo AEC id: ``pettingzoo.make("aec", AEC_ID)`` where PettingZoo has ``make``."""

_LAZY = {"TrapEnv": "trap_env.gym_env", "env": "trap_env.aec_env", "raw_env": "trap_env.aec_env"}


def __getattr__(name: str) -> Any:
    """Load the environment classes on first use (PEP 562)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'trap_env' has no attribute {name!r}")


def register_gym_env(game: str) -> str:
    """Register the Gymnasium id of a registered game, ``trap_env/<Title>-v0``, and return it.

    The id makes a :class:`trap_env.gym_env.GameEnv` of that game, and with ``make_vec`` a
    :class:`trap_env.batched_env.GameVectorEnv` when the game has a batched engine
    (Gymnasium's ``SyncVectorEnv`` otherwise, :func:`trap_env.gym_env.make_sync_vector_env`,
    which checks ``num_envs`` as the batched env does); Trap!'s
    is :data:`GYM_ID`, registered on import with its batched twin. Registering twice is fine.

    Raises:
        UnknownGameError: (a ``ValueError``) if no game is registered under ``game``.
    """
    from trap_env.games import get_game

    found = get_game(game)
    title = "".join(char for char in found.title if char.isalnum())
    gym_id = f"trap_env/{title}-v0"
    if gym_id not in gymnasium.registry:
        batched = hasattr(found, "batched_engine")
        gymnasium.register(
            id=gym_id,
            entry_point="trap_env.gym_env:GameEnv",
            vector_entry_point=(
                "trap_env.batched_env:GameVectorEnv"
                if batched
                else "trap_env.gym_env:make_sync_vector_env"
            ),
            kwargs={"game": game},
        )
    return gym_id


def _register() -> None:
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(
            id=GYM_ID,
            entry_point="trap_env.gym_env:TrapEnv",
            vector_entry_point="trap_env.batched_env:TrapVectorEnv",
        )
    if OTHELLO_GYM_ID not in gymnasium.registry:
        # What register_gym_env("othello") registers, without importing Othello's rules now.
        gymnasium.register(
            id=OTHELLO_GYM_ID,
            entry_point="trap_env.gym_env:GameEnv",
            vector_entry_point="trap_env.batched_env:GameVectorEnv",
            kwargs={"game": "othello"},
        )
    if COLOSSEUM_GYM_ID not in gymnasium.registry:
        # What register_gym_env("colosseum") registers (no batched engine: make_vec syncs).
        gymnasium.register(
            id=COLOSSEUM_GYM_ID,
            entry_point="trap_env.gym_env:GameEnv",
            vector_entry_point="trap_env.gym_env:make_sync_vector_env",
            kwargs={"game": "colosseum"},
        )
    try:
        import pettingzoo
    except ImportError:
        return
    register = getattr(pettingzoo, "register", None)
    registry = getattr(pettingzoo, "aec_registry", {})
    if register is not None and AEC_ID not in registry:
        register("aec", AEC_ID, entry_point="trap_env.aec_env:env")


_register()

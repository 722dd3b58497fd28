"""The agent protocol, its errors, and the one seam through which an env gets its opponent.

An agent answers ``select_action(state)`` with an action for the player to act and starts
a new game with ``reset(seed)``; all its randomness comes from the generator it was given
or seeded with. Optional methods: ``check_game(config)`` refuses games it cannot play
(:func:`check_supports`), ``batched()`` returns its twin for the game's batched engine
(:func:`batched_twin`), ``mix()`` says that it is a mix of others (``{spec: probability}``,
which the batched env draws from per episode and game), ``close()`` frees what it holds
(:func:`close_agent`). An optional attribute ``time_limit`` says that it decides on a clock,
the seconds of a turn (None or absent: it plays without one, alike on any machine;
:func:`time_limit_of`).

Spec strings (``"random"``, ``"expectiminimax:depth=2"``) name agents in a table that the
``agents`` package provides (``agents.make_agent``); this module does not import it. The
envs reach that table through :func:`resolve_opponent`, which finds it through the entry
point group ``trap_env.agents`` (declared by the installed package), or through
:func:`use_agent_table` (importing ``agents`` calls it, so a checkout on ``PYTHONPATH``
works too).

This module imports nothing outside the standard library.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata
from typing import Any, Protocol, SupportsInt, runtime_checkable

from trap_env.games import get_game

__all__ = [
    "ENTRY_POINT_GROUP",
    "Agent",
    "AgentTable",
    "OpponentError",
    "SpecError",
    "UnsupportedGameError",
    "batched_twin",
    "check_supports",
    "close_agent",
    "resolve_opponent",
    "time_limit_of",
    "use_agent_table",
]

ENTRY_POINT_GROUP = "trap_env.agents"
"""The entry point group whose ``make_agent`` entry builds agents from spec strings."""


@runtime_checkable
class Agent(Protocol):
    """A policy: picks the action of the player to act in a state of its game."""

    def select_action(self, state: Any) -> int:
        """The action to play (Trap!: the flat cell to move to or to throw at)."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Forget the last game; with ``seed``, reseed the agent's generator."""
        ...


class SpecError(ValueError):
    """An agent spec that names no agent, or options that agent does not take."""


class UnsupportedGameError(ValueError):
    """An agent asked to play a game it cannot play (a board size, a rule variant)."""


class OpponentError(RuntimeError):
    """The opponent inside an env raised or answered with an illegal action."""


Opponent = str | Agent | Callable[[Any], SupportsInt]
"""An env's opponent: an agent spec string, an agent object, or a callable ``state -> action``."""


class AgentTable(Protocol):
    """What builds agents from spec strings: ``agents.make_agent``'s signature."""

    def __call__(self, spec: str, *, game: str, seed: int | None = None, **overrides: Any) -> Agent:
        ...


_table: AgentTable | None = None


def use_agent_table(table: AgentTable) -> None:
    """Build agents from spec strings with ``table`` (the ``agents`` package calls this)."""
    global _table
    _table = table


def _agent_table() -> AgentTable:
    if _table is not None:
        return _table
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP, name="make_agent"):
        use_agent_table(entry.load())
        assert _table is not None
        return _table
    raise SpecError(
        "no agent table: spec strings are built by the 'agents' package, which is neither "
        "installed nor imported; install the project (pip install -e .) or import agents"
    )


def _agent_from_spec(spec: str, *, game: str, seed: int | None = None) -> Agent:
    """Build the agent ``spec`` names for ``game`` with the agent table (``agents.make_agent``):
    the envs' seam to the table, private to ``trap_env``.

    Raises:
        SpecError: for a spec that names no agent of that game, or options it refuses.
    """
    return _agent_table()(spec, game=game, seed=seed)


def check_supports(agent: object, config: object) -> None:
    """Ask ``agent`` whether it can play games of ``config``, before the first game.

    An agent declares its limits with an optional method ``check_game(config)`` that raises
    :class:`UnsupportedGameError` saying what it cannot play and what it can; an agent
    without the method is taken to play any game. The match runner, the tournament and
    the environments call this before the first game, so a 7x7 network in a 5x5 tournament
    is refused at once instead of losing every game.

    Raises:
        UnsupportedGameError: from the agent's ``check_game``.
    """
    check_game = getattr(agent, "check_game", None)
    if check_game is not None:
        check_game(config)


def close_agent(agent: object) -> None:
    """Call ``agent.close()`` if it has one (program agents end their process)."""
    close = getattr(agent, "close", None)
    if callable(close):
        close()


def time_limit_of(agent: object) -> float | None:
    """The seconds of a turn that ``agent`` decides by (its ``time_limit``), or None for an
    agent that plays without a clock: one whose moves do not depend on the machine's speed.

    Raises:
        TypeError: for a ``time_limit`` that is neither a number nor None.
    """
    limit = getattr(agent, "time_limit", None)
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int | float)):
        raise TypeError(
            f"{type(agent).__name__}.time_limit must be seconds or None, got {limit!r}"
        )
    return None if limit is None else float(limit)


def batched_twin(agent: object) -> Any | None:
    """The agent's twin for its game's batched engine (``agent.batched()``), or None if it
    has none: then the batched env asks it game by game."""
    batched = getattr(agent, "batched", None)
    return batched() if callable(batched) else None


def resolve_opponent(
    opponent: object, *, game: str, config: object = None, seed: int | None = None
) -> tuple[Any, bool]:
    """The opponent an env plays against, and whether the env built it (and so closes it).

    A spec string is built by the agent table (``agents.make_agent``) for ``game``; an agent
    object or a callable ``state -> action`` is used as given. Either is asked
    :func:`check_supports` for ``config`` (the game's default configuration when None).

    Raises:
        SpecError: for a spec that names no agent of ``game``.
        TypeError: if ``opponent`` is neither a spec, an agent nor a callable.
        UnsupportedGameError: if the opponent declares it cannot play ``config``.
    """
    if isinstance(opponent, str) and opponent == "self":
        raise SpecError(
            "opponent='self' (the caller plays both seats) is the batched env's mode "
            "(gymnasium.make_vec, trap_env.batched_env); a single env plays an agent, and "
            "PettingZoo's env() has both seats to play"
        )
    built = isinstance(opponent, str)
    if built:
        opponent = _agent_from_spec(opponent, game=game, seed=seed)  # type: ignore[arg-type]
    elif not (callable(getattr(opponent, "select_action", None)) or callable(opponent)):
        raise TypeError(
            "opponent must be an agent spec string such as 'random', an object with "
            f"select_action(state), or a callable state -> action; got {type(opponent).__name__}"
        )
    try:
        check_supports(opponent, get_game(game).make_config() if config is None else config)
    except BaseException:
        if built:
            close_agent(opponent)
        raise
    return opponent, built

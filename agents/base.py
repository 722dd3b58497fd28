"""The one interface every Trap! policy satisfies, and the spec strings that build them.

An agent answers ``select_action(state)`` for a state in phase ``MOVE`` or ``THROW`` with
a flat cell index; ``reset(seed)`` starts a new game (and reseeds its generator). All of
an agent's randomness comes from the generator it was given or seeded with.

A spec string names an agent and its options: ``"name"`` or ``"name:key=value,key=value"``
(``"expectiminimax:depth=4,time_limit=1.0"``). The name is a registered one (see
:func:`agent_names`) or the dotted path of any importable class
(``"mypackage.module.MyAgent:key=value"``).
"""

from __future__ import annotations

import gc
import importlib
import inspect
import random
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from trap_env.core import Cell, State

__all__ = [
    "BUILTIN_AGENTS",
    "Agent",
    "SpecError",
    "agent_names",
    "make_agent",
    "parse_spec",
    "pause_collector",
    "register",
    "resume_collector",
]


@runtime_checkable
class Agent(Protocol):
    """A policy for Trap!: picks the move or the throw target in a state."""

    def select_action(self, state: State) -> Cell:
        """The flat cell to move to (phase ``MOVE``) or to throw at (phase ``THROW``)."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Forget the last game; with ``seed``, reseed the agent's generator."""
        ...


class SpecError(ValueError):
    """An agent spec that names no agent, or options that agent does not take."""


BUILTIN_AGENTS: dict[str, str] = {
    "random": "agents.simple:RandomAgent",
    "greedy": "agents.heuristics:greedy",
    "is": "agents.heuristics:is_agent",
    "ais": "agents.heuristics:ais_agent",
    "ocls": "agents.heuristics:ocls_agent",
    "expectiminimax": "agents.search.agent:ExpectiminimaxAgent",
    "alphabeta": "agents.search.agent:alphabeta",
    "minimax": "agents.search.agent:alphabeta",
    "easy": "agents.search.agent:easy",
    "medium": "agents.search.agent:medium",
    "hard": "agents.search.agent:hard",
    "expert": "agents.search.agent:expert",
    "ppo": "agents.rl.ppo:PPOAgent",
}
"""The built-in agents: name -> ``"module:factory"``, imported only when one is built, so
that ``make_agent("random")`` loads neither the search nor torch."""

_REGISTRY: dict[str, Callable[..., Agent]] = {}
"""Agents registered at run time by :func:`register` (users' agents)."""


def register(name: str) -> Callable[[Callable[..., Agent]], Callable[..., Agent]]:
    """Class decorator: make a user's agent buildable as ``make_agent(name)``.

    Raises:
        SpecError: if ``name`` is a built-in agent's name or not a plain identifier.
    """
    if name in BUILTIN_AGENTS or not name.replace("-", "_").isidentifier():
        raise SpecError(
            f"cannot register {name!r}: names are identifiers, and the built-in names "
            f"{sorted(BUILTIN_AGENTS)} are taken"
        )

    def decorate(factory: Callable[..., Agent]) -> Callable[..., Agent]:
        _REGISTRY[name] = factory
        return factory

    return decorate


def agent_names() -> list[str]:
    """The names :func:`make_agent` knows (built-in and registered), sorted."""
    return sorted({*BUILTIN_AGENTS, *_REGISTRY})


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"name:key=value,..."`` into the name and its options, values parsed.

    Values become ``int``, ``float``, ``bool`` (``true``/``false``), ``None`` (``none``)
    where they read as such, and stay strings otherwise.
    """
    name, _, options_text = spec.strip().partition(":")
    if not name:
        raise SpecError(f"empty agent name in spec {spec!r}; known agents: {agent_names()}")
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in options_text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SpecError(f"option {item!r} in spec {spec!r} is not key=value")
        options[key.strip()] = _parse_value(value.strip())
    return name, options


def _parse_value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def make_agent(spec: str, *, seed: int | None = None, **overrides: Any) -> Agent:
    """Build an agent from a spec string; ``overrides`` win over the spec's options.

    Args:
        spec: ``"name"``, ``"name:key=value,..."``, or a dotted class path with options.
        seed: seeds the agent's generator (passed as ``seed=`` to agents that take it).
        **overrides: further options, as keyword arguments.

    Raises:
        SpecError: for an unknown name, an unimportable path, or an unknown option;
            the message lists what exists.
    """
    name, options = parse_spec(spec)
    options.update(overrides)
    factory = _resolve(name)
    parameters = _parameters(factory)
    if "seed" in parameters:
        options.setdefault("seed", seed)
    unknown = sorted(set(options) - set(parameters))
    if unknown and not _takes_kwargs(factory):
        raise SpecError(
            f"agent {name!r} takes no option {', '.join(map(repr, unknown))}; "
            f"its options: {sorted(p for p in parameters if p != 'self') or 'none'}"
        )
    try:
        return factory(**options)
    except (TypeError, ValueError) as error:
        raise SpecError(f"agent spec {spec!r}: {error}") from error


def _resolve(name: str) -> Callable[..., Agent]:
    if name in _REGISTRY:
        return _REGISTRY[name]
    if name in BUILTIN_AGENTS:
        module_name, _, attribute = BUILTIN_AGENTS[name].partition(":")
        return getattr(importlib.import_module(module_name), attribute)  # type: ignore[no-any-return]
    module_name, _, attribute = name.rpartition(".")
    if not module_name:
        raise SpecError(
            f"unknown agent {name!r}; known agents: {', '.join(agent_names())}, "
            "or a dotted path such as 'mypackage.module.MyAgent'"
        )
    try:
        factory = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise SpecError(f"cannot import agent {name!r}: {error}") from error
    if not callable(factory):
        raise SpecError(f"{name!r} is not a class or factory of agents")
    return factory  # type: ignore[no-any-return]


def _parameters(factory: Callable[..., Agent]) -> set[str]:
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return set()
    return {
        name
        for name, parameter in signature.parameters.items()
        if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)
    }


def _takes_kwargs(factory: Callable[..., Agent]) -> bool:
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(parameter.kind is parameter.VAR_KEYWORD for parameter in parameters)


class SeededAgent:
    """Base for agents that draw random numbers: holds a ``random.Random`` seeded by the caller."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; reseed when ``seed`` is given."""
        if seed is not None:
            self.rng.seed(seed)


def pause_collector() -> bool:
    """Switch the cyclic garbage collector off; return whether it was on (for resuming).

    For timed decisions: a full collection scans every object of the process, which in one
    holding torch takes 0.1-0.2 s, at a moment no clock check can see coming. Use as
    ``collecting = pause_collector()``, then ``try: ... finally: resume_collector(collecting)``:
    a pair of plain calls allocates nothing (a ``with`` block allocates a bound ``__exit__``
    on the way in, which can itself start a collection), and pauses nest. A collection that
    falls due meanwhile runs after the outermost pause.
    """
    collecting = gc.isenabled()
    gc.disable()
    return collecting


def resume_collector(collecting: bool) -> None:
    """Switch the collector back on if :func:`pause_collector` found it on."""
    if collecting:
        gc.enable()

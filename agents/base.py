"""The one interface every Trap! policy satisfies, and the spec strings that build them.

An agent answers ``select_action(state)`` for a state in phase ``MOVE`` or ``THROW`` with
a flat cell index; ``reset(seed)`` starts a new game (and reseeds its generator). All of
an agent's randomness comes from the generator it was given or seeded with. An agent may
also say which games it can play with ``check_game(config)`` (see :func:`check_supports`).

A spec string names an agent and its options: ``"name"`` or ``"name:key=value,key=value"``
(``"expectiminimax:depth=4,time_limit=1.0"``); ``"exec:COMMAND"`` runs a program in any
language as an agent (:mod:`agents.program`). The name is a built-in or registered one
(see :func:`agent_names`, :func:`register`), or the dotted path of an agent class, or of a
function annotated to return one (``"mypackage.module.MyAgent:key=value"``). Options are
read strictly as the types the agent's factory declares (see :func:`make_agent`), so
``throw_filter=no`` is an error, not a true value.
"""

from __future__ import annotations

import dataclasses
import gc
import importlib
import inspect
import math
import random
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, Protocol, runtime_checkable

from trap_env.core import Cell, GameConfig, State

__all__ = [
    "BUILTIN_AGENTS",
    "Agent",
    "SpecError",
    "UnsupportedGameError",
    "agent_names",
    "check_supports",
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


class UnsupportedGameError(ValueError):
    """An agent asked to play a game it cannot play (a board size, a rule variant)."""


def check_supports(agent: object, config: GameConfig) -> None:
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
    "mcts": "agents.mcts.agent:MCTSAgent",
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


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"name:key=value,..."`` into the name and its options' texts, as written.

    The texts become values in :func:`make_agent`, against the types the agent declares.

    Raises:
        SpecError: for an empty name, an option that is not ``key=value``, or a key
            given twice.
    """
    name, _, options_text = spec.strip().partition(":")
    name = name.strip()
    if name == "exec":  # "exec:COMMAND": the rest is a command line (agents.program), not options
        return name, {"command": options_text.strip()}
    if not name:
        raise SpecError(f"empty agent name in spec {spec!r}; known agents: {agent_names()}")
    options: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in options_text.split(","))):
        key, sep, value = (piece.strip() for piece in item.partition("="))
        if not sep or not key:
            raise SpecError(f"option {item!r} in spec {spec!r} is not key=value")
        if key in options:
            raise SpecError(f"option {key!r} is given twice in spec {spec!r}")
        options[key] = value
    return name, options


def make_agent(spec: str, *, seed: int | None = None, **overrides: Any) -> Agent:
    """Build an agent from a spec string; ``overrides`` win over the spec's options.

    Each option's text is read strictly as the type the agent's factory declares for it
    (its signature's annotations; for a parameter annotated with a dataclass, a settings
    record, each field is an option of its own and the record is built from the
    parameter's default with those fields replaced):

    * ``bool``: ``true`` or ``false``; ``int``: an integer (not ``1.5``); ``float``: a
      number; ``str``: the text; a ``Literal``: one of its values; a path: the text;
    * ``none`` only where the type allows None; where a float may be None, ``inf`` (or a
      number too large for a float) means None too (no limit);
    * a type with a ``parse(text, base)`` classmethod (such as
      :class:`~agents.search.evaluation.Weights`): that, with the option's default as base.

    An option without an annotation is read as before types: ``true``/``false``, ``none``,
    an int, a float, or else the text.

    Args:
        spec: ``"name"``, ``"name:key=value,..."``, or a dotted path with options.
        seed: seeds the agent's generator (passed as ``seed=`` to agents that take it).
        **overrides: further options, as Python values (not parsed).

    Raises:
        SpecError: for an unknown name, a path that names no agent class or factory, an
            unknown option, a value its option does not allow, or an agent that refuses its
            options; the message says what is allowed.
    """
    name, texts = parse_spec(spec)
    if name == "exec":
        return _make_program(texts["command"], seed, overrides)
    factory = _resolve(name)
    options = _options_of(factory)
    unknown = sorted(set(texts).union(overrides) - set(options.types))
    if unknown and not options.takes_kwargs:
        raise SpecError(
            f"agent {name!r} takes no option {', '.join(map(repr, unknown))}; "
            f"its options: {', '.join(sorted(options.types)) or 'none'}"
        )
    values = {key: _option_value(name, key, text, options) for key, text in texts.items()}
    values.update(overrides)
    if "seed" in options.types:
        values.setdefault("seed", seed)
    try:
        agent = factory(**_arguments(values, options))
    except (TypeError, ValueError, OSError) as error:  # OSError: a model file not there
        raise SpecError(f"agent spec {spec!r}: {error}") from error
    if not isinstance(agent, Agent):
        raise SpecError(
            f"{name!r} built a {type(agent).__name__}, not an agent (an object with "
            "select_action(state) and reset(seed))"
        )
    return agent


def _make_program(command: str, seed: int | None, overrides: dict[str, Any]) -> Agent:
    """``exec:COMMAND``: a program in any language as an agent (see :mod:`agents.program`)."""
    from agents.program import ProgramAgent  # imported only when a program is asked for

    try:
        return ProgramAgent(command, seed=seed, **overrides)
    except (TypeError, ValueError) as error:
        raise SpecError(f"agent spec 'exec:{command}': {error}") from error


def _resolve(name: str) -> Callable[..., Agent]:
    """The factory a spec's name stands for: registered, built-in, or a dotted path."""
    if name in _REGISTRY:
        return _REGISTRY[name]
    if name in BUILTIN_AGENTS:
        module_name, _, attribute = BUILTIN_AGENTS[name].partition(":")
        return getattr(importlib.import_module(module_name), attribute)  # type: ignore[no-any-return]
    module_name, _, attribute = name.rpartition(".")
    if not module_name or not all(part.isidentifier() for part in name.split(".")):
        raise SpecError(
            f"unknown agent {name!r}; known agents: {', '.join(agent_names())}, "
            "or a dotted path such as 'mypackage.module.MyAgent'"
        )
    try:
        factory = getattr(importlib.import_module(module_name), attribute)
    except Exception as error:  # an import runs the module's code: anything can go wrong
        raise SpecError(f"cannot import agent {name!r}: {error}") from error
    if not _makes_agents(factory):
        raise SpecError(
            f"{name!r} is not an agent: a dotted path names a class with "
            "select_action(state) and reset(seed) methods, or a function annotated to "
            "return such a class"
        )
    return factory  # type: ignore[no-any-return]


def _makes_agents(factory: object) -> bool:
    """Whether ``factory`` is an agent class, or a function annotated to return one.

    Decided without calling it: a dotted path may name any function (``os.abort``).
    """
    if not inspect.isclass(factory):
        if not inspect.isfunction(factory):
            return False
        factory = _type_hints(factory).get("return")
        if not inspect.isclass(factory):
            return False
    return all(callable(getattr(factory, method, None)) for method in ("select_action", "reset"))


_UNTYPED: Any = inspect.Parameter.empty
"""The type of an option that its factory does not annotate."""


@dataclass
class _Options:
    """The options a factory takes.

    Attributes:
        types: option name -> its annotation (:data:`_UNTYPED` if none).
        defaults: option name -> its default (absent if it has none).
        records: parameter name -> its settings record's class, for parameters annotated
            with a dataclass; its fields are options of their own.
        owners: a record field's option name -> the parameter that holds the record.
        takes_kwargs: whether the factory takes ``**options`` beyond those named.
    """

    types: dict[str, Any] = field(default_factory=dict)
    defaults: dict[str, Any] = field(default_factory=dict)
    records: dict[str, type] = field(default_factory=dict)
    owners: dict[str, str] = field(default_factory=dict)
    takes_kwargs: bool = False


def _options_of(factory: Callable[..., Agent]) -> _Options:
    try:
        parameters = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        return _Options(takes_kwargs=True)
    hints = _type_hints(factory.__init__ if inspect.isclass(factory) else factory)
    options = _Options()
    for parameter in parameters:
        if parameter.kind is parameter.VAR_KEYWORD:
            options.takes_kwargs = True
        if parameter.kind not in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
            continue
        name, annotation = parameter.name, hints.get(parameter.name, _UNTYPED)
        options.types[name] = annotation
        if parameter.default is not parameter.empty:
            options.defaults[name] = parameter.default
        if _is_record(annotation):
            options.records[name] = annotation
            _add_fields(options, name, annotation, options.defaults.get(name))
    return options


def _is_record(annotation: Any) -> bool:
    """A settings record: a dataclass that is not itself an option value (no ``parse``)."""
    return (
        inspect.isclass(annotation)
        and dataclasses.is_dataclass(annotation)
        and not hasattr(annotation, "parse")
    )


def _add_fields(options: _Options, parameter: str, record: type, default: Any) -> None:
    """Make the fields of ``parameter``'s settings record options (the parameter's own win)."""
    hints = _type_hints(record)
    for item in dataclasses.fields(record):
        if item.name in options.types or not item.init:
            continue
        options.types[item.name] = hints.get(item.name, _UNTYPED)
        options.owners[item.name] = parameter
        if isinstance(default, record):
            options.defaults[item.name] = getattr(default, item.name)
        elif item.default is not dataclasses.MISSING:
            options.defaults[item.name] = item.default


def _type_hints(target: object) -> dict[str, Any]:
    """``target``'s resolved annotations; none if they cannot be resolved."""
    try:
        return typing.get_type_hints(target)
    except Exception:  # unresolvable names, or not annotatable: read options untyped
        return {}


def _arguments(values: dict[str, Any], options: _Options) -> dict[str, Any]:
    """The factory's keyword arguments: record fields gathered into their records."""
    arguments: dict[str, Any] = {}
    changes: dict[str, dict[str, Any]] = {}
    for key, value in values.items():
        owner = options.owners.get(key)
        if owner is None:
            arguments[key] = value
        else:
            changes.setdefault(owner, {})[key] = value
    for parameter, fields in changes.items():
        base = arguments.get(parameter, options.defaults.get(parameter))
        record = options.records[parameter]
        if isinstance(base, record):
            arguments[parameter] = dataclasses.replace(base, **fields)  # type: ignore[type-var]
        else:
            arguments[parameter] = record(**fields)
    return arguments


def _option_value(agent: str, key: str, text: str, options: _Options) -> Any:
    """An option's text read as its type; SpecError naming the option, value and what is allowed."""
    try:
        return _read_value(text, options.types.get(key, _UNTYPED), options.defaults.get(key))
    except ValueError as error:
        raise SpecError(f"option {key!r} of agent {agent!r} takes {error}, got {text!r}") from None


def _read_value(text: str, annotation: Any, default: Any = None) -> Any:
    """``text`` read as a value of the type ``annotation``, as in spec strings.

    Args:
        text: the option's text.
        annotation: the type (:data:`inspect.Parameter.empty`: untyped, read loosely).
        default: the option's default; the base for types read with ``parse(text, base)``.

    Raises:
        ValueError: saying what the type allows (``"true or false"``).
    """
    if annotation is _UNTYPED or annotation is Any:
        return _loose_value(text)
    kinds = list(typing.get_args(annotation)) if _is_union(annotation) else [annotation]
    allows_none = type(None) in kinds
    kinds = [kind for kind in kinds if kind is not type(None)]
    if allows_none and text.lower() == "none":
        return None
    failures = []
    for kind in kinds:
        try:
            value = _read_one(text, kind, default)
        except ValueError as error:
            failures.append(str(error))
            continue
        if allows_none and isinstance(value, float) and value == math.inf:
            return None  # "inf", or a number too large for a float: no limit
        return value
    if allows_none:
        failures.append("none" + (" (or inf)" if float in kinds else ""))
    raise ValueError(" or ".join(failures) or "nothing a spec can give")


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def _read_one(text: str, kind: Any, default: Any) -> Any:
    """``text`` as one (non-union) type; ValueError describing what the type allows."""
    if kind is bool:
        if text.lower() not in ("true", "false"):
            raise ValueError("true or false")
        return text.lower() == "true"
    if kind is int:
        if not _INTEGER.fullmatch(text):
            raise ValueError("an integer")
        return int(text)
    if kind is float:
        try:
            number = float(text)
        except ValueError:
            number = math.nan
        if math.isnan(number):
            raise ValueError("a number")
        return number
    if kind is str:
        return text
    if typing.get_origin(kind) is typing.Literal:
        return _read_literal(text, typing.get_args(kind))
    if inspect.isclass(kind) and issubclass(kind, PurePath):
        return kind(text)
    parse = getattr(kind, "parse", None)
    if callable(parse):
        try:
            return parse(text, default) if isinstance(default, kind) else parse(text)
        except (TypeError, ValueError) as error:
            raise ValueError(f"a {getattr(kind, '__name__', kind)} text ({error})") from None
    raise ValueError(f"a {getattr(kind, '__name__', kind)} (which a spec cannot give)")


_INTEGER = re.compile(r"[+-]?[0-9]+")


def _read_literal(text: str, allowed: tuple[Any, ...]) -> Any:
    for value in allowed:
        if str(value).lower() == text.lower():
            return value
    raise ValueError("one of " + ", ".join(repr(value) for value in allowed))


def _loose_value(text: str) -> Any:
    """An untyped option's value: a bool, None, an int, a float, or else the text."""
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

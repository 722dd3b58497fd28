"""The table of agents by game and name, and :func:`make_agent`, which builds one from a spec.

A spec string names an agent and its options: ``"name"`` or ``"name:key=value,key=value"``
(``"expectiminimax:depth=4,time_limit=1.0"``); ``"exec:COMMAND"`` runs a program in any
language as an agent (:mod:`agents.program`). The name is a built-in or registered one of
the game (see :func:`agent_names`, :func:`register`), or the dotted path of an agent class,
or of a function annotated to return one (``"mypackage.module.MyAgent:key=value"``).
Options are read strictly as the types the agent's factory declares
(:mod:`agents.options`), so ``throw_filter=no`` is an error, not a true value.

The table holds ``"module:factory"`` texts, imported only when an agent is built, so that
``make_agent("random", game="trap")`` loads neither the search nor torch. A name given by
:func:`local_agents` is found only inside its ``with`` block, in its own thread (a rating
of a Python callable); :func:`spec_arguments` reads a spec without building its agent.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from types import MappingProxyType
from typing import Any

from agents.options import (
    EXEC,
    Options,
    factory_arguments,
    option_value,
    options_of,
    parse_spec,
    require_game,
    type_hints,
)
from trap_env.agent import Agent, SpecError
from trap_env.games import get_game

__all__ = [
    "AGENT_TABLE",
    "EVERY_GAME",
    "agent_names",
    "built_agent",
    "game_declaration",
    "local_agents",
    "make_agent",
    "register",
    "spec_arguments",
]

AGENT_TABLE: dict[str, dict[str, str]] = {
    "trap": {
        "random": "agents.trap.random_agent:RandomAgent",
        "greedy": "agents.trap.heuristics:greedy",
        "is": "agents.trap.heuristics:greedy_is",
        "ais": "agents.trap.heuristics:greedy_ais",
        "ocls": "agents.trap.heuristics:greedy_ocls",
        "reference": "agents.trap.search:ExpectiminimaxAgent",
        "expectiminimax": "agents.trap.search:ExpectiminimaxAgent",
        "alphabeta": "agents.trap.search:alphabeta",
        "minimax": "agents.trap.search:alphabeta",
        "easy": "agents.trap.search:easy",
        "medium": "agents.trap.search:medium",
        "hard": "agents.trap.search:hard",
        "expert": "agents.trap.search:expert",
        "ppo": "agents.rl.ppo:PPOAgent",
        "mcts": "agents.mcts.agent:MCTSAgent",
        "perfect": "agents.trap.solve:PerfectAgent",
    },
    "othello": {
        "random": "agents.othello.random_agent:RandomAgent",
        "greedy": "agents.othello.greedy:GreedyAgent",
        "reference": "agents.othello.search:SearchAgent",
        "expectiminimax": "agents.othello.search:SearchAgent",  # aliases of the reference
        "alphabeta": "agents.othello.search:SearchAgent",
        "minimax": "agents.othello.search:SearchAgent",
        "mcts": "agents.mcts.agent:MCTSAgent",
        "ppo": "agents.rl.ppo:PPOAgent",
        "perfect": "agents.othello.solve:PerfectAgent",
    },
    "colosseum": {
        "random": "agents.colosseum.random_agent:RandomAgent",
        "greedy": "agents.colosseum.greedy:GreedyAgent",
        "reference": "agents.colosseum.search:SearchAgent",
        "expectiminimax": "agents.colosseum.search:SearchAgent",  # aliases of the reference
        "alphabeta": "agents.colosseum.search:SearchAgent",
        "minimax": "agents.colosseum.search:SearchAgent",
        "mcts": "agents.colosseum.mcts:MCTSAgent",
        "perfect": "agents.colosseum.solve:PerfectAgent",
        "ppo": "agents.rl.ppo:PPOAgent",
    },
}
"""The built-in agents: game -> name -> ``"module:factory"``.

Every game's strongest search answers to the role name ``reference`` (Trap!'s is
expectiminimax; Othello's and Colosseum's, which have no chance after the start, alpha-beta),
and to the names it had before, kept as aliases: ``expectiminimax``, and in the chance-free
games ``alphabeta`` and ``minimax``."""

EVERY_GAME: dict[str, str] = {
    EXEC: "agents.program:ProgramAgent",
    "epsilon-greedy": "agents.epsilon_greedy:EpsilonGreedyAgent",
    "openspiel-mcts": "agents.openspiel_mcts:OpenSpielMCTSAgent",
    "random": "agents.protocol_random:RandomAgent",
    "mcts": "agents.mcts.agent:MCTSAgent",
    "ppo": "agents.rl.ppo:PPOAgent",
}
"""The built-in agents of every game, a game named by its path too: name ->
``"module:factory"`` (told their game). A game's own row of :data:`AGENT_TABLE` wins
(Colosseum's ``random`` and ``mcts``); ``random``, ``mcts`` and ``ppo`` read nothing but the
protocol, so that any game has an opponent for its environments, an anchor for its ladder,
and its trained networks and policies."""

_REGISTERED: dict[tuple[str, str], Callable[..., Agent]] = {}
"""Agents registered at run time by :func:`register` (users' agents), by (game, name)."""

_LOCAL: ContextVar[Mapping[tuple[str, str], Callable[..., Agent]]] = ContextVar(
    "local_agents", default=MappingProxyType({})
)
"""Agents of :func:`local_agents`, by (game, name): seen only in the context that made them."""


def register(
    name: str, *, game: str | None = None
) -> Callable[[Callable[..., Agent]], Callable[..., Agent]]:
    """Class decorator: make a user's agent buildable as ``make_agent(name, game=game)``.

    Raises:
        SpecError: if ``name`` is a built-in agent's name or not a plain identifier.
        TypeError: without ``game``.
    """
    game = require_game(game, "register()")
    _check_name(name, game, "register")

    def decorate(factory: Callable[..., Agent]) -> Callable[..., Agent]:
        _REGISTERED[game, name] = factory
        return factory

    return decorate


@contextlib.contextmanager
def local_agents(factories: Mapping[str, Callable[..., Agent]], *, game: str) -> Iterator[None]:
    """Make each factory buildable by its name, for ``game``, while the block runs and only
    in this thread (this context): a name here wins over :func:`register`'s, and no other
    caller, before, after or beside, finds it.

    Raises:
        SpecError: if a name is a built-in agent's name or not a plain identifier.
    """
    for name in factories:
        _check_name(name, game, "use")
    token = _LOCAL.set({**_LOCAL.get(), **{(game, name): f for name, f in factories.items()}})
    try:
        yield
    finally:
        _LOCAL.reset(token)


def _check_name(name: str, game: str, verb: str) -> None:
    """Refuse a name for a user's agent that is not an identifier or is a built-in's."""
    builtin = {**EVERY_GAME, **AGENT_TABLE.get(game, {})}
    if not isinstance(name, str) or name in builtin or not name.replace("-", "_").isidentifier():
        raise SpecError(
            f"cannot {verb} {name!r} as an agent's name: names are identifiers, and the "
            f"built-in names {sorted(builtin)} are taken"
        )


def game_declaration(game: str, module: str, name: str) -> object | None:
    """What the agents package of ``game`` declares as ``agents.<game>.<module>:<name>``, or
    None where it declares nothing so (no such module or name; a game from outside this
    package has no agents package here).

    A generic module finds a game's own facts so (Othello's C++ game for ``openspiel-mcts``,
    a game's solved-positions rungs and endgame solver), naming no game itself: a new game
    declares its own beside its agents, not in the generic module.

    Raises:
        UnknownGameError: for a game that is not registered.
    """
    module_name = f"agents.{get_game(game).name}.{module}"
    try:
        found = importlib.util.find_spec(module_name)
    except ModuleNotFoundError:  # the game has no agents package here (a game from outside)
        return None
    return None if found is None else getattr(importlib.import_module(module_name), name, None)


def agent_names(game: str | None = None) -> list[str]:
    """The names :func:`make_agent` knows for ``game`` (built-in and registered), sorted.

    Raises:
        TypeError: without ``game``.
    """
    game = require_game(game, "agent_names()")
    registered = {name for known, name in [*_REGISTERED, *_LOCAL.get()] if known == game}
    return sorted({*EVERY_GAME, *AGENT_TABLE.get(game, {}), *registered})


def make_agent(
    spec: str, *, game: str | None = None, seed: int | None = None, **overrides: Any
) -> Agent:
    """Build an agent of ``game`` from a spec string; ``overrides`` win over the spec's options.

    Each option's text is read strictly as the type the agent's factory declares for it
    (its signature's annotations; for a parameter annotated with a dataclass, a settings
    record, each field is an option of its own and the record is built from the
    parameter's default with those fields replaced):

    * ``bool``: ``true`` or ``false``; ``int``: an integer (not ``1.5``); ``float``: a
      number; ``str``: the text; a ``Literal``: one of its values; a path: the text;
    * ``none`` only where the type allows None; where a float may be None, ``inf`` (or a
      number too large for a float) means None too (no limit);
    * a type with a ``parse(text, base)`` classmethod (such as
      :class:`~agents.trap.evaluation.Weights`): that, with the option's default as base.

    An option without an annotation is read as before types: ``true``/``false``, ``none``,
    an int, a float, or else the text.

    Args:
        spec: ``"name"``, ``"name:key=value,..."``, or a dotted path with options.
        game: the game the agent plays (:func:`trap_env.games.game_names`, or a game's
            path); required: ``make_agent("reference", game="trap")``.
        seed: seeds the agent's generator (passed as ``seed=`` to agents that take it).
        **overrides: further options, as Python values (not parsed).

    Raises:
        SpecError: for an unknown game or name, a path that names no agent class or
            factory, an unknown option, a value its option does not allow, or an agent
            that refuses its options; the message says what is allowed.
        TypeError: without ``game``.
    """
    game = require_game(game, "make_agent()")
    factory, options, values = _factory_values(spec, game, overrides)
    if "seed" in options.types:
        values.setdefault("seed", seed)
    if "game" in options.types:  # an agent of every game (exec:) is told which it plays
        values["game"] = game
    try:
        agent = factory(**factory_arguments(values, options))
    except (TypeError, ValueError, OSError) as error:  # OSError: a model file not there
        raise SpecError(f"agent spec {spec.strip()!r}: {error}") from error
    if not isinstance(agent, Agent):
        raise SpecError(
            f"{parse_spec(spec)[0]!r} built a {type(agent).__name__}, not an agent (an object with "
            "select_action(state) and reset(seed))"
        )
    return agent


def built_agent(spec: str, *, game: str, seed: int | None = None, **overrides: Any) -> Agent:
    """:func:`make_agent` where a refusal must be one line: a constructor that raises
    anything (or exits) is a :class:`SpecError` naming the spec, not the policy's traceback.

    Raises:
        SpecError: as :func:`make_agent`, and for a constructor's own failure.
    """
    try:
        return make_agent(spec, game=game, seed=seed, **overrides)
    except SpecError:
        raise
    except (Exception, SystemExit) as error:  # a constructor is the policy's code: any can fail
        raise SpecError(f"building agent {spec!r} raised {type(error).__name__}: {error}") from None


def spec_arguments(spec: str, *, game: str) -> tuple[Callable[..., Agent], dict[str, Any]]:
    """The factory that ``spec`` names for ``game`` and the values of the options it gives
    (read as :func:`make_agent` reads them; the defaults are not filled in).

    Raises:
        SpecError: as :func:`make_agent`, for a spec that names no agent or an option that
            its agent does not take.
    """
    factory, _, values = _factory_values(spec, game, {})
    return factory, values


def _factory_values(
    spec: str, game: str, overrides: dict[str, Any]
) -> tuple[Callable[..., Agent], Options, dict[str, Any]]:
    """The factory ``spec`` names, its options, and their values (``overrides`` winning)."""
    if not isinstance(spec, str):
        raise SpecError(f"an agent spec is a string such as 'random', got {spec!r}")
    name, texts = parse_spec(spec)
    factory = _resolve(name, game)
    options = options_of(factory)
    unknown = sorted(set(texts).union(overrides) - set(options.types))
    if unknown and not options.takes_kwargs:
        raise SpecError(
            f"agent {name!r} takes no option {', '.join(map(repr, unknown))}; "
            f"its options: {', '.join(sorted(options.types)) or 'none'}"
        )
    values = {key: option_value(name, key, text, options) for key, text in texts.items()}
    return factory, options, values | overrides


_MODEL_FILES = (".zip", ".npz")
"""The endings of the learned agents' model files (``ppo``'s zips, ``mcts``'s networks)."""


def _resolve(name: str, game: str) -> Callable[..., Agent]:
    """The factory a spec's name stands for: registered, built-in, or a dotted path."""
    try:
        get_game(game)
    except ValueError as error:
        raise SpecError(str(error)) from None
    for table in (_LOCAL.get(), _REGISTERED):
        if (game, name) in table:
            return table[game, name]
    builtin = {**EVERY_GAME, **AGENT_TABLE.get(game, {})}
    if name in builtin:
        module_name, _, attribute = builtin[name].partition(":")
        return getattr(importlib.import_module(module_name), attribute)  # type: ignore[no-any-return]
    if name.lower().endswith(_MODEL_FILES):  # a model file given where its agent's spec goes
        raise SpecError(
            f"unknown agent {name!r}: a model file is played by its agent, "
            f"'ppo:path={name}' (a MaskablePPO zip) or 'mcts:path={name}' (a network .npz)"
        )
    module_name, _, attribute = name.rpartition(".")
    if not module_name or not all(part.isidentifier() for part in name.split(".")):
        raise SpecError(
            f"unknown agent {name!r}; known agents: {', '.join(agent_names(game))} (of the game "
            f"{game!r}), or a dotted path such as 'mypackage.module.MyAgent'"
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
        factory = type_hints(factory).get("return")
        if not inspect.isclass(factory):
            return False
    return all(callable(getattr(factory, method, None)) for method in ("select_action", "reset"))

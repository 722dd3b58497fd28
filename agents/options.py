"""Spec strings and their options: ``"name:key=value,..."`` read strictly as the types an
agent's factory declares; and a game's rule parameters given as ``--rule KEY=VALUE``.

:func:`parse_spec` splits a spec into its name and the options' texts; :func:`options_of`
reads a factory's signature; :func:`option_values` turns the texts into values and
:func:`factory_arguments` gathers them into the factory's keyword arguments.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import math
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from trap_env.agent import SpecError
from trap_env.games import game_names

__all__ = [
    "EXEC",
    "OWN_RULE_FLAGS",
    "Options",
    "check_int",
    "factory_arguments",
    "given_rules",
    "option_value",
    "options_of",
    "parse_spec",
    "require_game",
    "rule_flag",
    "rule_pair",
    "rules_text",
    "type_hints",
    "with_value",
]

EXEC = "exec"
"""The agent name whose spec's rest is a command line, not options: ``"exec:COMMAND"``."""


def check_int(name: str, value: object, least: int, allow_none: bool = False) -> None:
    """Refuse an integer option below ``least`` (or not an integer; None if allowed).

    Raises:
        ValueError: naming the option, its value and what is allowed.
    """
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        allowed = f"an integer >= {least}" + (" or None" if allow_none else "")
        raise ValueError(f"{name} must be {allowed}, got {value!r}")


def require_game(game: str | None, caller: str, keyword: str = "game") -> str:
    """``game``, which the caller must give: the floors of the suite default to no game.

    Raises:
        TypeError: for no game, naming the games there are.
    """
    if game is None:
        raise TypeError(
            f"{caller} needs {keyword}=: one of {', '.join(map(repr, game_names()))}, or a "
            "game's path 'package.module:GAME'"
        )
    return game


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"name:key=value,..."`` into the name and its options' texts, as written.

    The texts become values in :func:`make_agent`, against the types the agent declares.

    Raises:
        SpecError: for an empty name, an option that is not ``key=value``, or a key
            given twice.
    """
    name, _, options_text = spec.strip().partition(":")
    name = name.strip()
    if name == EXEC:  # "exec:COMMAND": the rest is a command line (agents.program), not options
        return name, {"command": options_text.strip()}
    if not name:
        raise SpecError(f"empty agent name in spec {spec!r}")
    options: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in options_text.split(","))):
        key, sep, value = (piece.strip() for piece in item.partition("="))
        if not sep or not key:
            raise SpecError(f"option {item!r} in spec {spec!r} is not key=value")
        if key in options:
            raise SpecError(f"option {key!r} is given twice in spec {spec!r}")
        options[key] = value
    return name, options


_UNTYPED: Any = inspect.Parameter.empty
"""The type of an option that its factory does not annotate."""


@dataclass
class Options:
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


def options_of(factory: Callable[..., Any]) -> Options:
    try:
        parameters = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        return Options(takes_kwargs=True)
    hints = type_hints(factory.__init__ if inspect.isclass(factory) else factory)
    options = Options()
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


def _add_fields(options: Options, parameter: str, record: type, default: Any) -> None:
    """Make the fields of ``parameter``'s settings record options (the parameter's own win)."""
    hints = type_hints(record)
    for item in dataclasses.fields(record):
        if item.name in options.types or not item.init:
            continue
        options.types[item.name] = hints.get(item.name, _UNTYPED)
        options.owners[item.name] = parameter
        if isinstance(default, record):
            options.defaults[item.name] = getattr(default, item.name)
        elif item.default is not dataclasses.MISSING:
            options.defaults[item.name] = item.default


def type_hints(target: object) -> dict[str, Any]:
    """``target``'s resolved annotations; none if they cannot be resolved."""
    try:
        return typing.get_type_hints(target)
    except Exception:  # unresolvable names, or not annotatable: read options untyped
        return {}


def factory_arguments(values: dict[str, Any], options: Options) -> dict[str, Any]:
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


def option_value(agent: str, key: str, text: str, options: Options) -> Any:
    """An option's text read as its type; SpecError naming the option, value and what is allowed."""
    try:
        return _read_value(text, options.types.get(key, _UNTYPED), options.defaults.get(key))
    except ValueError as error:
        raise SpecError(
            f"option {key!r} of agent {agent!r} takes {error}, got {_shown(text)}"
        ) from None


def _shown(text: str) -> str:
    """``text`` quoted, its middle left out past 40 characters (a 5,000-digit number)."""
    if len(text) <= 40:
        return repr(text)
    return f"{text[:20]!r}...{text[-8:]!r} ({len(text)} characters)"


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
        return _integer(text)
    if kind is float:
        try:
            number = float(text) if text.isascii() else math.nan
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
MAX_DIGITS = 100
"""The most digits an integer of a spec or a rule may have."""


def _integer(text: str) -> int:
    """``text`` as an integer: ASCII digits, an optional sign, at most :data:`MAX_DIGITS`.

    Raises:
        ValueError: saying what an integer may be.
    """
    if not _INTEGER.fullmatch(text):
        raise ValueError("an integer")
    if len(text.lstrip("+-")) > MAX_DIGITS:
        raise ValueError(f"an integer of at most {MAX_DIGITS} digits")
    return int(text)


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
    if _INTEGER.fullmatch(text):
        return _integer(text)
    try:
        return float(text) if text.isascii() else text
    except ValueError:
        return text


def rule_pair(text: str) -> tuple[str, Any]:
    """``--rule KEY=VALUE``: a rule parameter; an integer value stays an integer, anything
    else is text.

    Raises:
        argparse.ArgumentTypeError: for text that is not ``KEY=VALUE``.
    """
    key, sep, value = text.partition("=")
    if not sep or not key.isidentifier() or not value:
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not KEY=VALUE, e.g. end_rule=course")
    if not _INTEGER.fullmatch(value):
        return key, value
    try:
        return key, _integer(value)
    except ValueError as error:
        message = f"the rule {key!r} takes {error}, got {_shown(value)}"
        raise argparse.ArgumentTypeError(message) from None


OWN_RULE_FLAGS = ("board_size", "decay")
"""The rules that ``trap-train alphazero`` gives with flags of their own (``--board-size``
of every game, ``--decay`` of Trap!); any other is ``--rule KEY=VALUE``."""


def rule_flag(name: str) -> str:
    """The ``trap-train alphazero`` flag that gives the rule ``name``, up to its value:
    ``--board-size`` for those of :data:`OWN_RULE_FLAGS`, else ``--rule name=``.

    Example:
        >>> with_value(rule_flag("board_size"), 5), with_value(rule_flag("end_rule"), "course")
        ('--board-size 5', '--rule end_rule=course')
    """
    return f"--{name.replace('_', '-')}" if name in OWN_RULE_FLAGS else f"--rule {name}="


def with_value(flag: str, value: object) -> str:
    """``flag`` followed by ``value`` as a command line gives it (``--rule key=`` takes its
    value without a space)."""
    return f"{flag}{value}" if flag.endswith("=") else f"{flag} {value}"


def given_rules(board_size: int | None, pairs: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    """The rule parameters that ``--board-size`` (None: not given) and the ``--rule`` pairs
    give.

    Raises:
        ValueError: for a key given twice.
    """
    params = {} if board_size is None else {"board_size": board_size}
    for key, value in pairs:
        if key in params:
            raise ValueError(f"the rule {key!r} is given twice")
        params[key] = value
    return params


def rules_text(params: Mapping[str, Any]) -> str:
    """Rule parameters in words, as messages name them: ``"board_size=8, end_rule=standard"``."""
    return ", ".join(f"{name}={value}" for name, value in params.items())

"""A small, strict reading of JSON Schema (draft 2020-12) for the package's own file formats.

The package ships JSON Schemas for the files it reads and writes (a ladder, a card), reads
such a file with :func:`parse_json` (JSON with nothing Python's ``json`` would take silently)
and checks it against its schema with :func:`check_json`, which needs no third-party
library and says in one line what is wrong. It knows the keywords those schemas use
(:data:`KEYWORDS`), read as JSON Schema reads them, except that an integer is a JSON
integer (never ``16.0``); the tests hold that ``jsonschema``, so configured, agrees.

Example:
    >>> check_json({"n": 3}, {"type": "object", "properties": {"n": {"type": "integer"}}}, "x")
    >>> check_json({"n": "3"}, {"type": "object", "properties": {"n": {"type": "integer"}}}, "x")
    Traceback (most recent call last):
    ...
    ValueError: n must be an integer, got "3"
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

__all__ = ["KEYWORDS", "MAX_DIGITS", "check_json", "parse_json"]

MAX_DIGITS = 30
"""The most digits an integer of the package's files has (Python would read 4,300)."""

KEYWORDS = frozenset({
    "$schema", "title", "description", "type", "required", "properties",
    "additionalProperties", "maxProperties", "items", "minItems", "maxItems", "minLength",
    "maxLength", "pattern", "minimum", "maximum", "multipleOf", "enum", "if", "then", "allOf",
})  # fmt: skip
"""The keywords :func:`check_json` knows; a schema that used another would be read wrong."""

_TYPES: dict[str, tuple[str, Any]] = {
    "object": ("an object", dict),
    "array": ("a list", list),
    "string": ("a string", str),
    "integer": ("an integer", int),
    "number": ("a number", (int, float)),
    "boolean": ("a boolean", bool),
    "null": ("null", type(None)),
}
"""A schema type: how a message names it, and the Python type json gives it."""


def check_json(value: Any, schema: dict[str, Any], name: str) -> None:
    """Refuse ``value`` if it breaks ``schema``.

    Args:
        value: JSON data (as :func:`json.loads` gives it).
        schema: a schema using only :data:`KEYWORDS`.
        name: what ``value`` is, for a message about the whole (``"the ladder"``).

    Raises:
        ValueError: naming the field, what it must be and what it is.
    """
    _check_value(value, schema, "", name)


def _is_type(value: object, kind: str) -> bool:
    """Whether ``value`` is of the schema type ``kind`` (a bool is no number)."""
    return isinstance(value, _TYPES[kind][1]) and (kind == "boolean" or not isinstance(value, bool))


def _check_value(value: Any, schema: dict[str, Any], where: str, name: str) -> None:
    """Refuse ``value`` if it breaks ``schema`` at the field ``where`` ("" for the whole)."""
    kinds = schema.get("type", [])
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if kinds and not any(_is_type(value, kind) for kind in kinds):
        _refuse(value, schema, where, name)
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        _refuse(value, schema, where, name)
    if isinstance(value, dict):
        _check_object(value, schema, where, name)
    elif isinstance(value, list):
        if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", math.inf):
            raise ValueError(f"{where or name} must be {_allowed(schema)}, got {_shown(value)}")
        for index, item in enumerate(value):
            _check_value(item, schema.get("items", {}), f"{where}[{index}]", name)
    elif isinstance(value, str):
        pattern = schema.get("pattern")
        if not schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", math.inf) or (
            pattern is not None and not _matches(pattern, value)
        ):
            _refuse(value, schema, where, name)
    elif _is_type(value, "number") and not (
        schema.get("minimum", -math.inf) <= value <= schema.get("maximum", math.inf)
        and ("multipleOf" not in schema or value % schema["multipleOf"] == 0)
    ):
        _refuse(value, schema, where, name)
    if "if" in schema and "then" in schema and _holds(value, schema["if"]):
        _check_value(value, schema["then"], where, name)
    for part in schema.get("allOf", []):  # each a schema of its own (an if/then per kind)
        _check_value(value, part, where, name)


def _same(value: Any, option: Any) -> bool:
    """Whether ``value`` is the enum's ``option`` as JSON Schema compares (``1 == 1.0``, but
    ``true`` is no ``1``)."""
    if isinstance(value, bool) or isinstance(option, bool):
        return value is option
    return bool(value == option)


def _holds(value: Any, schema: dict[str, Any]) -> bool:
    """Whether ``value`` meets ``schema`` (an ``if``'s condition)."""
    try:
        _check_value(value, schema, "", "")
    except ValueError:
        return False
    return True


def _check_object(value: dict[str, Any], schema: dict[str, Any], where: str, name: str) -> None:
    """Refuse an object without a required key, with a key the schema does not allow, or
    with a field that breaks its schema."""
    shown = where or name
    properties: dict[str, Any] = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    missing = [key for key in schema.get("required", []) if key not in value]
    if missing:
        raise ValueError(f"{shown} has no {missing[0]!r}; it needs {', '.join(schema['required'])}")
    if len(value) > schema.get("maxProperties", math.inf):
        raise ValueError(f"{shown} has {len(value)} keys, at most {schema['maxProperties']}")
    for key, item in value.items():
        field_name = f"{where}.{key}" if where else key
        if key in properties:
            _check_value(item, properties[key], field_name, name)
        elif extra is False:
            raise ValueError(
                f"{shown} has an unknown key {key[:80]!r}; its keys: {', '.join(properties)}"
            )
        elif isinstance(extra, dict):
            _check_value(item, extra, field_name, name)


def _matches(pattern: str, text: str) -> bool:
    """Whether ``text`` matches a pattern anchored at both ends (``^...$``), as JSON Schema
    does (Python's ``$`` alone would also match before a final newline)."""
    return re.fullmatch(pattern.removeprefix("^").removesuffix("$"), text) is not None


def _refuse(value: Any, schema: dict[str, Any], where: str, name: str) -> None:
    """Raise the ValueError that ``value`` at ``where`` is not what ``schema`` allows."""
    raise ValueError(f"{where or name} must be {_allowed(schema)}, got {_shown(value)}")


def _shown(value: Any) -> str:
    """``value`` in a message: as JSON, cut to 80 characters; a list or an object by its
    size (what it holds may be nested too deep to write)."""
    if isinstance(value, list | dict) and value:
        return f"{_TYPES['array' if isinstance(value, list) else 'object'][0]} of {len(value)}"
    shown = json.dumps(value)
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _allowed(schema: dict[str, Any]) -> str:
    """What ``schema`` allows, in words: ``"an integer from 2 to 1000, a multiple of 2"``."""
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(option) for option in schema["enum"])
    kinds = schema.get("type", [])
    words = [_kind_allowed(kind, schema) for kind in ([kinds] if isinstance(kinds, str) else kinds)]
    return " or ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)


def _kind_allowed(kind: str, schema: dict[str, Any]) -> str:
    """What ``schema`` allows of the type ``kind``, in words."""
    text = _TYPES[kind][0]
    bounds = {
        "array": ("minItems", "maxItems", " items"),
        "string": ("minLength", "maxLength", " characters"),
        "integer": ("minimum", "maximum", ""),
        "number": ("minimum", "maximum", ""),
    }.get(kind)
    if bounds is None:
        return text
    low, high = schema.get(bounds[0]), schema.get(bounds[1])
    if low is not None and high is not None:
        text += f" of {low} to {high}{bounds[2]}" if bounds[2] else f" from {low} to {high}"
    elif low is not None:
        text += f" of at least {low}{bounds[2]}" if bounds[2] else f" >= {low}"
    elif high is not None:
        text += f" of at most {high}{bounds[2]}" if bounds[2] else f" <= {high}"
    if kind == "string" and "pattern" in schema:
        text += f" matching {schema['pattern']}"
    if "multipleOf" in schema and kind in ("integer", "number"):
        text += f", a multiple of {schema['multipleOf']}"
    return text


def parse_json(data: bytes) -> Any:
    """The JSON value of ``data``, read strictly: UTF-8 text, no key given twice in an object
    (JSON would keep the last silently), only finite numbers (Python's ``json`` takes ``NaN``
    and ``Infinity``), integers of at most :data:`MAX_DIGITS` digits, no lone surrogate.

    Raises:
        ValueError: saying what is wrong, in one line.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"not UTF-8 text: {error}") from None
    try:  # a value the hooks refuse raises a ValueError that says so itself
        value = json.loads(
            text, object_pairs_hook=_object, parse_constant=_no_constant,
            parse_float=_finite, parse_int=_short_int,
        )
        json.dumps(value, ensure_ascii=False).encode("utf-8")  # a lone surrogate ("\ud800")
    except RecursionError:
        raise ValueError("its JSON is nested too deeply") from None
    except UnicodeError:
        raise ValueError("its text is not UTF-8 (a lone surrogate)") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON: {error}") from None
    return value


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"the key {key[:80]!r} is given twice in an object")
        seen.add(key)
    return dict(pairs)


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number; every number is finite")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text:.20} is too large for a number; every number is finite")
    return value


def _short_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"an integer of more than {MAX_DIGITS} digits ({text:.20}...)")
    return int(text)

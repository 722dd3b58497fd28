"""jsonschema as the package's own schema checker (agents.json_schema) reads a schema."""

from __future__ import annotations

from typing import Any

import jsonschema

from agents.json_schema import KEYWORDS

STRICT = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda checker, value: isinstance(value, int) and not isinstance(value, bool)
    ),
)
"""jsonschema, with an integer a JSON integer (not 16.0), as the package reads a schema."""


def subschemas(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """``schema`` and every schema inside it."""
    inner = [*schema.get("properties", {}).values(), schema.get("items")]
    inner += [schema.get("additionalProperties"), schema.get("if"), schema.get("then")]
    inner += schema.get("allOf", [])
    return [schema, *(s for part in inner if isinstance(part, dict) for s in subschemas(part))]


def assert_known_schema(schema: dict[str, Any]) -> None:
    """Assert that ``schema`` is valid and uses only what the package's checker knows."""
    jsonschema.Draft202012Validator.check_schema(schema)
    for part in subschemas(schema):
        assert set(part) <= KEYWORDS, set(part) - KEYWORDS
        pattern = part.get("pattern", "^$")  # read whole: anchored at both ends
        assert pattern.startswith("^") and pattern.endswith("$"), pattern


def places(value: object, where: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Where a field of JSON data can be changed: ``value`` itself and everything inside it,
    as paths of keys and indices."""
    if isinstance(value, dict):
        inner = [places(item, (*where, key)) for key, item in value.items()]
    elif isinstance(value, list):
        inner = [places(item, (*where, index)) for index, item in enumerate(value)]
    else:
        inner = []
    return [where, *(place for found in inner for place in found)]

"""The settings records of training runs: each field checked by a rule, read back from JSON.

Both :class:`agents.trap.ppo_training.TrainConfig` (PPO) and
:class:`agents.rl.alphazero.AlphaZeroConfig` declare a table of :data:`Rule` per field and
check it in ``__post_init__`` with :func:`check_fields`, so that a bad value (from the
command line, a resumed run's ``config.json`` or code) fails before a run starts, naming
the field and what it must be; :func:`load_record` reads a record saved as JSON. Both
trainers' command lines are built from their record's fields by :func:`add_record_options`
and read back by :func:`record_overrides`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from agents.options import with_value

__all__ = [
    "Rule",
    "add_record_options",
    "add_run_folder_options",
    "check_fields",
    "check_resume_overrides",
    "is_number",
    "is_text",
    "load_record",
    "record_overrides",
]

Rule = tuple[type, Callable[[Any], bool], str]
"""A field's type (``bool``, ``int``, ``float`` or ``str``), its range, and the words that
say what is allowed. A ``float`` field takes any finite number (an int too); a ``str``
field any text that is not blank."""

Record = TypeVar("Record")


def is_number(value: object) -> bool:
    """Whether ``value`` is a finite int or float (not a bool)."""
    return (
        isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    )


def is_text(value: object) -> bool:
    """Whether ``value`` is a string that is not blank."""
    return isinstance(value, str) and bool(value.strip())


def check_fields(
    record: object, rules: Mapping[str, Rule], optional: Collection[str] = ()
) -> None:
    """Check each field of ``record`` named in ``rules`` (None passes for ``optional`` ones).

    Raises:
        ValueError: naming the first field that is wrong and what it must be.
    """
    for name, (kind, is_in_range, allowed) in rules.items():
        value = getattr(record, name)
        if value is None and name in optional:
            continue
        if kind is bool:
            is_valid = isinstance(value, bool)
        elif kind is str:
            is_valid = is_text(value)
        elif kind is int:
            is_valid = isinstance(value, int) and not isinstance(value, bool) and is_in_range(value)
        else:
            is_valid = is_number(value) and is_in_range(value)
        if not is_valid:
            raise ValueError(f"{name} must be {allowed}, got {value!r:.60}")


def load_record(
    cls: type[Record],
    path: Path,
    current: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> Record:
    """The dataclass ``cls`` read from the JSON object in ``path`` (saved with its fields).

    ``current`` turns the fields of a file written by an earlier version into today's.

    Raises:
        FileNotFoundError: if there is no such file.
        ValueError: if the file is not a JSON object of ``cls``'s fields (naming the unknown
            or missing keys and the allowed ones), or holds a bad value.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} is not a JSON config: {error}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} must hold a JSON object, got {type(data).__name__}")
    try:
        data = data if current is None else current(data)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    names = [item.name for item in dataclasses.fields(cls)]  # type: ignore[arg-type]
    unknown = sorted(set(data) - set(names))
    if unknown or "run_dir" not in data:
        problem = f"unknown keys {unknown}" if unknown else "no key 'run_dir'"
        raise ValueError(f"{path}: {problem}; the keys of a config are {', '.join(names)}")
    try:
        return cls(**data)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{path}: {error}") from None


def check_resume_overrides(
    saved: object, overrides: Mapping[str, Any], fixed: Sequence[str], flags: Mapping[str, str]
) -> None:
    """Refuse the overrides of a resumed run that change a setting it cannot change.

    Called before anything is written, so that a refused flag leaves the run folder as it
    was. Giving a fixed setting its stored value is fine.

    Args:
        saved: the run's stored config.
        overrides: the fields the command line sets.
        fixed: the fields the run cannot change (its network, buffer, generators...).
        flags: the command-line flag of each field (default ``--field-name``), up to its
            value (:func:`agents.options.with_value`).

    Raises:
        ValueError: naming every refused flag, the run's value and what to do instead.
    """
    refused = [
        f"{with_value(flags.get(name, '--' + name.replace('_', '-')), value)} (the run has "
        f"{getattr(saved, name)})"
        for name, value in overrides.items()
        if name in fixed and value != getattr(saved, name)
    ]
    if refused:
        raise ValueError(
            f"a resumed run keeps what its network and files were built with, so it cannot "
            f"take {', '.join(refused)}; resume without them, or start a new run in another "
            "--run-dir"
        )


_SCALARS: dict[str, type] = {
    "int": int, "int | None": int, "float": float, "float | None": float, "str": str,
    "str | None": str,
}  # fmt: skip
_LISTS: dict[str, type] = {"list[str]": str, "list[float]": float, "list[int]": int}


def add_run_folder_options(parser: argparse.ArgumentParser) -> None:
    """``--run-dir DIR`` (required) and ``--resume``, the same for both trainers."""
    parser.add_argument("--run-dir", required=True, help="the run folder")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in --run-dir; this builds the agent specs its config.json "
        "names (exec: commands and dotted paths run code): resume only folders you trust",
    )


def add_record_options(
    parser: argparse.ArgumentParser,
    record: type,
    *,
    skip: Collection[str] = (),
    flags: Mapping[str, str] | None = None,
    helps: Mapping[str, str] | None = None,
) -> None:
    """An option per field of the dataclass ``record`` (but those in ``skip``), whose value
    lands under the field's name; unset options stay None (:func:`record_overrides`).

    ``--field-name`` by default (``flags`` renames: ``{"total_timesteps": "timesteps"}``);
    a bool field that defaults to True is ``--no-field-name`` (it sets False); a list
    field takes one or more values.

    Raises:
        TypeError: for a field of a type that has no option form (skip it and add its own).
    """
    flags, helps = flags or {}, helps or {}
    for item in dataclasses.fields(record):
        if item.name in skip:
            continue
        name = flags.get(item.name, item.name)
        flag, metavar = "--" + name.replace("_", "-"), name.upper()
        kind, words = str(item.type), helps.get(item.name)
        if kind == "bool" and item.default is True:
            flag = "--no-" + flag[2:]
            parser.add_argument(flag, dest=item.name, action="store_false", default=None,
                                help=words)  # fmt: skip
        elif kind in _SCALARS:
            kind_of = _SCALARS[kind]
            parser.add_argument(flag, dest=item.name, type=kind_of, metavar=metavar, help=words)
        elif kind in _LISTS:
            parser.add_argument(flag, dest=item.name, type=_LISTS[kind], nargs="+",
                                metavar=metavar, help=words)  # fmt: skip
        else:
            raise TypeError(f"the field {item.name} ({kind}) has no option form; skip it")


def record_overrides(
    args: argparse.Namespace, record: type, skip: Collection[str] = ()
) -> dict[str, Any]:
    """The fields of ``record`` that the options of :func:`add_record_options` set."""
    return {
        item.name: getattr(args, item.name)
        for item in dataclasses.fields(record)
        if item.name not in skip and getattr(args, item.name, None) is not None
    }

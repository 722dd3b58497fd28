"""Reading zip files that someone else wrote (``ppo`` model zips, ``mcts`` ``.npz`` weights):
bounded, and every fault of the file one :class:`UnreadableZipError`.

:mod:`zipfile` read whole trusts the file: a member that declares 1.5 GB is decompressed
until memory runs out, a damaged deflate stream ends in ``zlib.error``, a truncated one in
``EOFError``, headers that do not unpack in ``struct.error``, an unknown compression or an
encrypted member in ``NotImplementedError`` or ``RuntimeError``. :func:`read_members` reads
the members asked for, refusing one whose declared size is past what is left of the limit
before it reads it, and never reading more than the limit even where a declared size lies;
:func:`read_npz` reads an ``.npz``'s arrays that way (numbers only, nothing unpickled) and
:func:`parse_json` a member's JSON. The caller puts the file's name and what it should
have been in front of the reason (``"x.zip is not a model zip saved by MaskablePPO.save
(...)"``).

Example:
    >>> import pathlib, tempfile, zipfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.zip"
    >>> with zipfile.ZipFile(path, "w") as archive:
    ...     archive.writestr("data", '{"a": [1, 2]}')
    >>> parse_json(read_members(path, lambda name: name == "data")["data"])
    {'a': [1, 2]}
"""

from __future__ import annotations

import io
import json
import math
import struct
import zipfile
import zlib
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "MAX_JSON_DEPTH",
    "MAX_READ_BYTES",
    "UnreadableZipError",
    "parse_json",
    "read_members",
    "read_npz",
]

MAX_READ_BYTES = 512 * 2**20
"""The most bytes read from one zip, all members together: 512 MiB. A network of 40
million float32 parameters with its optimizer's two moments (three copies) fits; the bundled
Trap! model is 1 MB, and trap-train's largest settings save tens of MB."""

MAX_JSON_DEPTH = 32
"""The deepest nesting of lists and objects that :func:`parse_json` accepts: the metadata
of a model nests four deep."""

_ZIP_FAULTS: tuple[type[Exception], ...] = (
    zipfile.BadZipFile, zlib.error, EOFError, OSError, struct.error, NotImplementedError,
    RuntimeError, ValueError, OverflowError,
)  # fmt: skip
"""What :mod:`zipfile` raises on a damaged or unusual file (RuntimeError: an encrypted
member; NotImplementedError: an unknown compression)."""


class UnreadableZipError(ValueError):
    """A zip, or a member of one, that cannot be read: the message is the reason, one line."""


def read_members(
    path: str | Path, wanted: Callable[[str], bool], limit: int = MAX_READ_BYTES
) -> dict[str, bytes]:
    """The bytes of the members of the zip ``path`` whose names ``wanted`` accepts.

    Args:
        path: the zip file.
        wanted: says, from a member's name, whether to read it.
        limit: the most bytes read in all; a member whose declared size is past what is
            left is refused before it is read.

    Raises:
        UnreadableZipError: for a file that is no zip, a damaged one, or members past
            ``limit``, with the reason.
    """
    try:
        archive = zipfile.ZipFile(path)
    except _ZIP_FAULTS as error:
        raise UnreadableZipError(f"not a zip archive: {_reason(error)}") from None
    with archive:
        return _read_wanted(archive, wanted, limit)


def _read_wanted(
    archive: zipfile.ZipFile, wanted: Callable[[str], bool], limit: int
) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    left = limit
    for info in archive.infolist():
        if not wanted(info.filename):
            continue
        if info.file_size > left:
            raise UnreadableZipError(_too_large(info.filename, info.file_size, limit))
        try:
            with archive.open(info) as member:
                data = member.read(left + 1)  # a declared size can lie: never read past it
        except _ZIP_FAULTS as error:
            raise UnreadableZipError(
                f"its member {info.filename!r:.60} is damaged: {_reason(error)}"
            ) from None
        if len(data) > left:
            raise UnreadableZipError(_too_large(info.filename, len(data), limit))
        found[info.filename] = data
        left -= len(data)
    return found


def _too_large(name: str, size: int, limit: int) -> str:
    return (
        f"its member {name!r:.60} holds {size:,} bytes, past the {limit:,} read from one "
        "file at most"
    )


def _reason(error: BaseException) -> str:
    """An exception's qualified type and its first line, short: the words of zlib or
    struct, behind ours."""
    kind = type(error)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    lines = str(error).splitlines()
    return f"{name}: {lines[0][:160]}" if lines else name


def parse_json(data: bytes) -> Any:
    """The JSON value of a member's bytes (UTF-8), nested at most :data:`MAX_JSON_DEPTH`.

    Raises:
        UnreadableZipError: for bytes that are not UTF-8 JSON, or nest deeper.
    """
    too_deep = f"JSON nested deeper than {MAX_JSON_DEPTH} levels"
    try:
        value = json.loads(data.decode("utf-8"))
    except RecursionError:
        raise UnreadableZipError(too_deep) from None
    except (UnicodeDecodeError, ValueError) as error:
        raise UnreadableZipError(f"not JSON: {_reason(error)}") from None
    if _depth(value) > MAX_JSON_DEPTH:
        raise UnreadableZipError(too_deep)
    return value


def _depth(value: Any) -> int:
    """How many lists and objects nest in a JSON value (``[[1]]``: 2, ``1``: 0), counted
    without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def read_npz(
    path: str | Path, limit: int = MAX_READ_BYTES, names: Collection[str] | None = None
) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` file by name (those of ``names`` it holds, or all), as
    :func:`numpy.load` gives them, read within ``limit`` bytes and never unpickled.

    Raises:
        UnreadableZipError: for a file that is no zip, a member that is no ``.npy`` array
            of plain values, or members past ``limit``, with the reason.
    """
    members = read_members(
        path, lambda name: names is None or name.removesuffix(".npy") in names, limit
    )
    arrays = {}
    for name, data in members.items():
        if not name.endswith(".npy"):
            raise UnreadableZipError(f"its member {name!r:.60} is not an array (.npy)")
        key = name.removesuffix(".npy")
        arrays[key] = _npy_array(key, data)
    return arrays


def _npy_array(name: str, data: bytes) -> np.ndarray:
    """The array an ``.npy`` member holds, its header checked against its length first
    (a header can declare any shape)."""
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f"format version {version}, not 1.0 or 2.0")
        if dtype.hasobject or any(size < 0 for size in shape):
            raise ValueError(f"{dtype} of shape {shape} is not an array of plain values")
        expected = math.prod(shape) * dtype.itemsize
        if expected != len(data) - stream.tell():
            raise ValueError(
                f"its header says {shape} of {dtype} ({expected:,} bytes), it holds "
                f"{len(data) - stream.tell():,}"
            )
        stream.seek(0)
        return np.asarray(np.lib.format.read_array(stream, allow_pickle=False))
    except (ValueError, EOFError, TypeError, RecursionError) as error:
        raise UnreadableZipError(f"its array {name!r:.60} is damaged: {_reason(error)}") from None

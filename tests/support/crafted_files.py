"""Files crafted by someone else, for the tests that loading them never runs code and
never ends in another exception than the reader's own.

:class:`Payload` unpickled would create its marker file; a test puts it in a checkpoint or
a model zip, loads that, and checks that the marker does not exist. :func:`assert_one_line`
checks a CLI's error: one line, with its prefix and the given words, no traceback.
:func:`mutated_zips` draws damaged copies of a zip (garbage or truncated members, JSON
nested deep, a member that declares gigabytes, bytes flipped in a deflate stream or
anywhere).
"""

from __future__ import annotations

import base64
import io
import pickle
import struct
import zipfile
from pathlib import Path

from hypothesis import strategies as st


class Payload:
    """Unpickled, it opens (creates) the marker file: what a crafted file could do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return open, (str(self.marker), "w")


def serialized_payload(marker: Path) -> dict[str, str]:
    """A stable-baselines3 ``data`` entry whose pickle is a :class:`Payload`."""
    encoded = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    return {":type:": "<class 'object'>", ":serialized:": encoded}


def assert_one_line(err: str, prefix: str, *words: str) -> None:
    """``err`` is one line starting with ``prefix``, holding ``words``, and no traceback."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(prefix), err
    assert "Traceback" not in err and all(word in err for word in words), err


def deflated(content: dict[str, bytes]) -> bytes:
    """A zip of ``content`` (member name: bytes), every member deflated (so that there is
    a deflate stream to damage)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in content.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def members_of(zip_bytes: bytes) -> dict[str, bytes]:
    """The members of a zip, by name."""
    with zipfile.ZipFile(io.BytesIO(zip_bytes)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def declare_size(zip_bytes: bytes, name: str, size: int) -> bytes:
    """The zip with ``name``'s uncompressed size in the central directory (what
    :mod:`zipfile` believes) set to ``size`` (under 4 GiB), its data unchanged."""
    data = bytearray(zip_bytes)
    start = data.find(b"PK\x01\x02")
    while start >= 0:
        name_length, extra_length, comment_length = struct.unpack_from("<HHH", data, start + 28)
        if data[start + 46:start + 46 + name_length] == name.encode():
            struct.pack_into("<I", data, start + 24, size)
        start = data.find(b"PK\x01\x02", start + 46 + name_length + extra_length + comment_length)
    return bytes(data)


def data_span(zip_bytes: bytes, name: str) -> tuple[int, int]:
    """Where ``name``'s compressed data lies in the zip: ``(start, end)``."""
    with zipfile.ZipFile(io.BytesIO(zip_bytes)) as archive:
        info = archive.getinfo(name)
    name_length, extra_length = struct.unpack_from("<HH", zip_bytes, info.header_offset + 26)
    start = info.header_offset + 30 + name_length + extra_length
    return start, start + info.compress_size


@st.composite
def mutated_zips(draw: st.DrawFn, zip_bytes: bytes) -> bytes:
    """A damaged copy of the (deflated) zip ``zip_bytes``: one member replaced by garbage,
    cut short or JSON nested deep, declaring up to 4 GiB, or bytes flipped in its deflate
    stream; or bytes flipped anywhere in the file."""
    content = members_of(zip_bytes)
    name = draw(st.sampled_from(sorted(content)))
    kind = draw(st.sampled_from(["garbage", "cut", "nested", "declared", "flip-data", "flip"]))
    if kind == "garbage":
        return deflated({**content, name: draw(st.binary(max_size=64))})
    if kind == "cut":
        cut = draw(st.integers(0, max(len(content[name]) - 1, 0)))
        return deflated({**content, name: content[name][:cut]})
    if kind == "nested":
        depth = draw(st.sampled_from([33, 1000, 100_000]))
        return deflated({**content, name: b"[" * depth + b"]" * depth})
    if kind == "declared":
        size = draw(st.integers(len(content[name]) + 1, 2**32 - 2))
        return declare_size(zip_bytes, name, size)
    start, end = data_span(zip_bytes, name) if kind == "flip-data" else (0, len(zip_bytes))
    data = bytearray(zip_bytes)
    for _ in range(draw(st.integers(1, 4))):
        if end > start:
            data[draw(st.integers(start, end - 1))] ^= draw(st.integers(1, 255))
    return bytes(data)

"""Reading zips someone else wrote (:mod:`agents.zips`): bounded, and every fault one
:class:`UnreadableZipError` with its reason."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from agents.zips import (
    MAX_JSON_DEPTH,
    MAX_READ_BYTES,
    UnreadableZipError,
    parse_json,
    read_members,
    read_npz,
)
from tests.support import crafted_files


def write(path: Path, content: bytes) -> Path:
    path.write_bytes(content)
    return path


def test_members_are_read_by_name_within_the_limit(tmp_path: Path) -> None:
    path = write(tmp_path / "a.zip", crafted_files.deflated({"a": b"x" * 6, "b": b"y" * 6}))
    assert read_members(path, lambda name: name == "a") == {"a": b"x" * 6}
    assert read_members(path, lambda name: True, limit=12) == {"a": b"x" * 6, "b": b"y" * 6}
    # The limit bounds the members together, each refused before it is read.
    with pytest.raises(UnreadableZipError, match=r"its member 'b' holds 6 bytes, past the 11 "):
        read_members(path, lambda name: True, limit=11)


def test_a_member_declaring_gigabytes_is_refused_before_it_is_read(tmp_path: Path) -> None:
    content = crafted_files.deflated({"policy.pth": b"\0" * 100})
    declared = crafted_files.declare_size(content, "policy.pth", 1_500_000_000)
    path = write(tmp_path / "a.zip", declared)
    words = f"'policy.pth' holds 1,500,000,000 bytes, past the {MAX_READ_BYTES:,} read from one "
    with pytest.raises(UnreadableZipError, match=re.escape(words)):
        read_members(path, lambda name: True)


def test_a_damaged_deflate_stream_is_a_damaged_member(tmp_path: Path) -> None:
    content = crafted_files.deflated({"data": bytes(range(256)) * 40})
    start, _ = crafted_files.data_span(content, "data")
    damaged = bytearray(content)
    damaged[start:start + 8] = b"\xff" * 8  # an invalid block type
    path = write(tmp_path / "a.zip", bytes(damaged))
    with pytest.raises(UnreadableZipError, match=r"its member 'data' is damaged: zlib.error: "):
        read_members(path, lambda name: True)
    with pytest.raises(UnreadableZipError, match=r"not a zip archive: zipfile\.BadZipFile"):
        read_members(write(tmp_path / "b.zip", content[:20]), lambda name: True)


def test_json_must_be_utf8_and_shallow() -> None:
    nested = b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH
    assert parse_json(nested) is not None
    for text in [b"[" + nested + b"]", b"[" * 100_000, b'{"a": ' * 50 + b"1" + b"}" * 50]:
        with pytest.raises(UnreadableZipError, match=f"JSON nested deeper than {MAX_JSON_DEPTH}"):
            parse_json(text)
    with pytest.raises(UnreadableZipError, match="not JSON: UnicodeDecodeError"):
        parse_json(b"\xff")
    with pytest.raises(UnreadableZipError, match=r"not JSON: json\.decoder\.JSONDecodeError"):
        parse_json(b"{")


def npz(**arrays: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def test_npz_arrays_are_read_as_numpy_reads_them_and_never_unpickled(tmp_path: Path) -> None:
    arrays = {"w": np.arange(12, dtype=np.float32).reshape(3, 4), "m": np.array([2, 1])}
    path = write(tmp_path / "a.npz", npz(**arrays))
    read = read_npz(path)
    assert read.keys() == arrays.keys()
    assert all(np.array_equal(read[name], array) for name, array in arrays.items())
    with pytest.raises(UnreadableZipError, match="its array 'o' is damaged: ValueError"):
        read_npz(write(tmp_path / "o.npz", npz(o=np.array([{}], dtype=object))))


def test_an_npy_header_declaring_more_than_it_holds_is_refused(tmp_path: Path) -> None:
    content = crafted_files.members_of(npz(w=np.zeros(4, np.float32)))["w.npy"]
    header = content.replace(b"(4,)", b"(99999999999,)")
    header = header.replace(b" " * 10 + b"\n", b"\n", 1)  # keep the header's length
    path = write(tmp_path / "a.npz", crafted_files.deflated({"w.npy": header}))
    with pytest.raises(UnreadableZipError, match=r"its header says \(99999999999,\) of float32"):
        read_npz(path)
    with pytest.raises(UnreadableZipError, match=r"its member 'notes.txt' is not an array"):
        read_npz(write(tmp_path / "b.npz", crafted_files.deflated({"notes.txt": b"hi"})))


BASE = crafted_files.deflated({"w.npy": crafted_files.members_of(npz(w=np.ones((3, 3))))["w.npy"],
                               "meta.json": b'{"game": "trap", "rules": {"board_size": 5}}'})


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(crafted_files.mutated_zips(BASE))
def test_a_damaged_zip_is_read_or_refused_with_its_reason(tmp_path_factory: pytest.TempPathFactory,
                                                          content: bytes) -> None:
    path = write(tmp_path_factory.mktemp("zips") / "a.zip", content)
    try:
        members = read_members(path, lambda name: True)
        parse_json(members.get("meta.json", b"{}"))
    except UnreadableZipError as error:
        assert len(str(error).splitlines()) == 1
    try:
        read_npz(path)
    except UnreadableZipError as error:
        assert len(str(error).splitlines()) == 1

"""Files of one name under a folder someone else filled: found and read without harm.

A results root may hold anything: a tree thousands of folders deep, folder names that are
not UTF-8, a FIFO or a device where a file is expected, links anywhere. So
:func:`find_files` walks with a stack, not recursion, at most :data:`MAX_WALK_DEPTH`
folders deep and :data:`MAX_WALK_FOLDERS` folders in all, following no link, and finds
regular files only (anything else of that name gets a note); :func:`read_regular_file`
opens without waiting (a FIFO with no writer would block ``open``) and reads only a
regular file of bounded size; :func:`shown_path` writes a path that is not UTF-8 with its
odd bytes escaped (``caf\\xff``), so that it can be shown and sent as JSON.

Example:
    >>> import pathlib, tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "a").mkdir()
    >>> _ = (root / "a" / "card.json").write_text("{}")
    >>> found = find_files(root, "card.json", limit=10)
    >>> [str(path.relative_to(root)) for path in found.paths], found.num_left, found.notes
    (['a/card.json'], 0, [])
    >>> read_regular_file(found.paths[0], max_bytes=100)
    b'{}'
"""

from __future__ import annotations

import errno
import itertools
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "MAX_FOLDER_ENTRIES",
    "MAX_WALK_DEPTH",
    "MAX_WALK_FOLDERS",
    "FoundFiles",
    "find_files",
    "read_regular_file",
    "shown_path",
]

MAX_WALK_DEPTH = 32
"""How many folders below the root a walk goes (results trees are a few levels deep)."""
MAX_WALK_FOLDERS = 100_000
"""The most folders a walk lists (a root holding more is read in part, with a note)."""
MAX_FOLDER_ENTRIES = 100_000
"""The most entries of one folder a walk looks at (a folder holding more is read in part)."""

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO opens at once, and is then refused
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


@dataclass
class FoundFiles:
    """What a walk found.

    Attributes:
        paths: the regular files of the name, in the walk's order (each folder's entries
            by name, a folder's files before its subfolders'), at most the limit.
        num_left: how many more there were past the limit (counted, not kept).
        notes: one line per thing passed over: an entry of the name that is not a regular
            file, a folder that could not be listed, folders too deep or past the cap.
    """

    paths: list[Path] = field(default_factory=list)
    num_left: int = 0
    notes: list[str] = field(default_factory=list)


def shown_path(path: str | Path) -> str:
    """``path`` as text that is always valid UTF-8: bytes that are not are escaped."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def find_files(root: Path, name: str, limit: int) -> FoundFiles:
    """The regular files named ``name`` under ``root`` (``root`` itself included), at most
    ``limit`` of them, following no link.

    The walk is iterative, lists at most :data:`MAX_WALK_FOLDERS` folders (and
    :data:`MAX_FOLDER_ENTRIES` entries of each) and goes at most :data:`MAX_WALK_DEPTH`
    below ``root``; what it passes over is noted, with paths relative to ``root`` as
    :func:`shown_path` writes them.
    """
    found = FoundFiles()
    stack = [(root, 0)]
    num_listed = num_too_deep = 0
    while stack and num_listed < MAX_WALK_FOLDERS:
        folder, depth = stack.pop()
        num_listed += 1
        subfolders = _list_folder(root, folder, name, limit, found)
        if depth < MAX_WALK_DEPTH:
            stack.extend((path, depth + 1) for path in reversed(subfolders))
        else:
            num_too_deep += len(subfolders)
    if num_too_deep:
        found.notes.append(
            f"not read: {num_too_deep} folders more than {MAX_WALK_DEPTH} levels below the root"
        )
    if stack:
        found.notes.append(
            f"not read: {len(stack)} folders (and what they hold) past the first "
            f"{MAX_WALK_FOLDERS} folders listed"
        )
    return found


def _list_folder(
    root: Path, folder: Path, name: str, limit: int, found: FoundFiles
) -> list[Path]:
    """Add ``folder``'s files named ``name`` to ``found``; its subfolders, by name (links to
    folders are not followed)."""
    try:
        with os.scandir(folder) as listing:
            entries = list(itertools.islice(listing, MAX_FOLDER_ENTRIES + 1))
    except OSError as error:
        found.notes.append(f"{_relative(root, folder)}: not read, {error.strerror or error}")
        return []
    if len(entries) > MAX_FOLDER_ENTRIES:
        entries.pop()
        found.notes.append(
            f"{_relative(root, folder)}: read in part, only {MAX_FOLDER_ENTRIES} of its entries"
        )
    entries.sort(key=lambda entry: entry.name)
    subfolders = []
    for entry in entries:
        path = Path(entry.path)
        # The types come from the listing (an lstat where it gives none): a link is a link.
        if _is_folder(entry):
            subfolders.append(path)
        elif entry.name != name:
            continue
        elif not _is_regular_file(entry):
            found.notes.append(f"{_relative(root, path)}: left out, not a regular file")
        elif len(found.paths) < limit:
            found.paths.append(path)
        else:
            found.num_left += 1
    return subfolders


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:  # gone or unreadable since it was listed: nothing to walk into
        return False


def _is_regular_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return False


def _relative(root: Path, path: Path) -> str:
    return shown_path(path.relative_to(root))


def read_regular_file(path: Path, max_bytes: int) -> bytes:
    """The content of ``path``, a regular file of at most ``max_bytes`` bytes.

    It is opened without waiting (a FIFO is refused, not read) and without following a
    link.

    Raises:
        ValueError: for a link, anything but a regular file, a larger file, or one that
            cannot be read, saying which.
    """
    try:
        handle = os.open(path, _OPEN_FLAGS)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise ValueError("a link, which is not followed") from None
        raise ValueError(f"cannot be read: {error.strerror or error}") from None
    with os.fdopen(handle, "rb") as file:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file")
        try:
            data = file.read(max_bytes + 1)
        except OSError as error:
            raise ValueError(f"cannot be read: {error.strerror or error}") from None
    if len(data) > max_bytes:
        raise ValueError(f"larger than {max_bytes} bytes")
    return data

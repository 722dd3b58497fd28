"""Files that survive an interrupt: every file a run writes is replaced whole or not at all.

A run killed while it writes (Ctrl-C, a full disk, a power cut) must leave each file as it
was before or as it is after, never half written, so that ``--resume`` finds something it
can read. :func:`replace_atomically` writes into a temporary file in the same folder,
flushes it to disk and renames it over the target (``os.replace``, atomic on POSIX and
Windows within one file system); :func:`write_text_atomically` is its text form.
:func:`check_writable_folder` and :func:`check_writable_file` are the checks that a folder
or a file given by a user can be written, made before any work starts.

Example:
    >>> import numpy as np, tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> replace_atomically(folder / "a.npz", lambda file: np.savez(file, x=np.zeros(2)))
    >>> write_text_atomically(folder / "config.json", "{}\\n")
    >>> sorted(path.name for path in folder.iterdir())
    ['a.npz', 'config.json']
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "DamagedRunFileError",
    "check_writable_file",
    "check_writable_folder",
    "replace_atomically",
    "run_folder",
    "save_npz_atomically",
    "write_text_atomically",
]


class DamagedRunFileError(ValueError):
    """A file of a run folder that cannot be read back; the message names it and says what
    to do (delete it, restore a copy, start a new run)."""


def replace_atomically(path: str | Path, write: Callable[[Path], object]) -> None:
    """Write ``path`` by calling ``write`` on a temporary path beside it, then renaming.

    The temporary file is hidden (a leading dot), keeps ``path``'s suffix (numpy and
    stable-baselines3 add theirs to a path without it) and is synced to disk before the
    rename; on any error it is removed and ``path`` is left as it was.

    Args:
        path: the file to create or replace.
        write: writes the whole new content to the path it is given.

    Raises:
        OSError: if the folder cannot be written; whatever ``write`` raises.
    """
    target = Path(path)
    handle, name = tempfile.mkstemp(
        prefix=f".{target.stem}.", suffix=f".tmp{target.suffix}", dir=target.parent
    )
    os.close(handle)
    temporary = Path(name)
    try:
        write(temporary)
        _sync(temporary)
        os.replace(temporary, target)
    except BaseException:  # KeyboardInterrupt too: never leave the temporary behind
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    _sync_folder(target.parent)


def write_text_atomically(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` so that a reader sees the old file or the new one."""
    replace_atomically(
        path, lambda temporary: temporary.write_text(text, encoding="utf-8", newline="")
    )


def save_npz_atomically(path: str | Path, arrays: Mapping[str, Any]) -> None:
    """Write ``arrays`` to ``path`` as a compressed ``.npz``, atomically (the name as given)."""
    import numpy as np

    def write(temporary: Path) -> None:
        with open(temporary, "wb") as file:  # a file, so that numpy adds no suffix
            np.savez_compressed(file, **arrays)

    replace_atomically(path, write)


def bundled_file(files: Mapping[str, Path], game: str, what: str, how: str) -> Path:
    """The file that ``files`` bundles for ``game`` (a network, a model).

    Raises:
        ValueError: for a game without one: ``no bundled {what} for {game}; {how}``.
    """
    if game not in files:
        raise ValueError(f"no bundled {what} for {game}; {how}")
    return files[game]


def run_folder(text: str, what: str = "run folder (--run-dir)") -> Path:
    """The folder path ``text``, refused when empty or naming a file (nothing is created).

    Raises:
        ValueError: naming ``what`` and what it must be.
    """
    if not text.strip():
        raise ValueError(f"the {what} must be a folder path, got an empty one")
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise ValueError(f"the {what} {text!r} is a file; give a folder (new or existing)")
    return path


def check_writable_folder(folder: str | Path, what: str = "folder") -> Path:
    """Create ``folder`` if needed and check that a file can be written in it.

    Args:
        folder: the folder a run will write to.
        what: how to name it in the error (e.g. ``"run folder (--run-dir)"``).

    Returns:
        The folder as a ``Path``.

    Raises:
        ValueError: for an empty path, a path that is a file, or a folder that cannot be
            created or written, naming the path and what is wrong.
    """
    text = str(folder)
    path = run_folder(text, what)
    try:
        path.mkdir(parents=True, exist_ok=True)
        write_text_atomically(path / ".write-test", "")
        (path / ".write-test").unlink()
    except (OSError, ValueError) as error:  # ValueError: a path with a NUL character
        raise ValueError(f"cannot write to the {what} {text!r}: {error}") from None
    return path


def check_writable_file(path: str | Path, what: str = "file") -> Path:
    """Check that ``path`` can be written (its folder exists and is writable), creating
    nothing.

    Raises:
        ValueError: for an empty path, a folder, or a path whose folder is missing or not
            writable, naming ``what`` and the path.
    """
    text = str(path)
    if not text.strip():
        raise ValueError(f"the {what} must be a file path, got an empty one")
    target = Path(text)
    if target.is_dir():
        raise ValueError(f"cannot write the {what} {text!r}: it is a folder; give a file path")
    folder = target.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        raise ValueError(f"cannot write the {what} {text!r}: no writable folder for it")
    return target


def _sync(path: Path) -> None:
    with open(path, "rb+") as file:
        os.fsync(file.fileno())


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (where a folder can be opened, as on POSIX)."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)

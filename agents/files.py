"""Files that survive an interrupt: every file a run writes is replaced whole or not at all.

A run killed while it writes (Ctrl-C, a full disk, a power cut) must leave each file as it
was before or as it is after, never half written, so that ``--resume`` finds something it
can read. :func:`replace_atomically` writes into a temporary file in the same folder,
flushes it to disk and renames it over the target (``os.replace``, atomic on POSIX and
Windows within one file system); :func:`write_text_atomically` is its text form. A file
written so gets the mode any new file gets (``0o666`` less the umask: 0644 under umask
022), as a file opened for writing does. :func:`check_writable_folder` and
:func:`check_writable_file` are the checks that a folder or a file given by a user can be
written, made before any work starts; :func:`locked_folder` holds a folder for one run at a
time. :func:`bundled_file` finds a file a game's agents ship (``agents/<game>/models/``) by
what it records.

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
import secrets
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

try:
    import fcntl
except ImportError:  # not POSIX: folders are not locked against other runs
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "AGENTS",
    "Bundled",
    "DamagedRunFileError",
    "FolderInUseError",
    "bundled_file",
    "check_writable_file",
    "check_writable_folder",
    "deprecated_bundled_table",
    "game_files",
    "game_folder",
    "locked_folder",
    "replace_atomically",
    "run_folder",
    "save_npz_atomically",
    "write_text_atomically",
]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
"""Open a file only if it is not a symbolic link (where the system can say so)."""

AGENTS = Path(__file__).resolve().parent
"""The ``agents`` package's folder: a game's agents, and the files they ship, are in
``AGENTS / <game>``."""


class DamagedRunFileError(ValueError):
    """A file of a run folder that cannot be read back; the message names it and says what
    to do (delete it, restore a copy, start a new run)."""


class FolderInUseError(ValueError):
    """A folder that another run holds (:func:`locked_folder`)."""


def replace_atomically(path: str | Path, write: Callable[[Path], object]) -> None:
    """Write ``path`` by calling ``write`` on a temporary path beside it, then renaming.

    The temporary file is hidden (a leading dot), keeps ``path``'s suffix (numpy and
    stable-baselines3 add theirs to a path without it), is created with the umask's mode
    (not :func:`tempfile.mkstemp`'s 0600, which would leave a file others cannot read where
    any other file of the run can be) and is synced to disk before the rename; on any error
    it is removed and ``path`` is left as it was.

    Args:
        path: the file to create or replace.
        write: writes the whole new content to the path it is given.

    Raises:
        OSError: if the folder cannot be written; whatever ``write`` raises.
    """
    target = Path(path)
    temporary = target.with_name(f".{target.stem}.{secrets.token_hex(8)}.tmp{target.suffix}")
    # O_EXCL: a new file of its own; 0o666: the kernel takes the umask off, as for any file.
    os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666))
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


class Bundled(NamedTuple):
    """A file of a game's bundled models as a lookup of one kind reads it.

    Attributes:
        fits: whether it is the file asked for (of the game and the rules asked).
        plays: the rules it plays, in words (``"board_size=7, decay=50"``), for the
            refusal that names the rules a game has files for.
    """

    fits: bool
    plays: str


def bundled_file(
    game: str, what: str, rules: str, read: Callable[[Path], Bundled | None], how: str
) -> Path:
    """The one file of ``game``'s bundled models (:func:`game_files`) that ``read`` says fits.

    Each lookup (``agents.mcts.network.bundled_network``, ``agents.rl.ppo.bundled_model``)
    reads what a file records, so a file's name is for people only.

    Args:
        game: the game's registered name.
        what: the kind of file, for the messages (``"mcts network"``).
        rules: the rules asked, in words, for the messages.
        read: a file -> None if it is no ``what`` of ``game``, else whether it fits.
        how: what to do instead, the end of the refusal.

    Raises:
        ValueError: ``no bundled {what} for {game}; {how}`` for a game without one; for
            other rules, that message naming the rules asked and those there are; for two
            files that fit, naming both.
    """
    files = ((path, read(path)) for path in game_files(game, "models"))
    of_kind = {path: found for path, found in files if found is not None}
    fitting = [path for path, found in of_kind.items() if found.fits]
    if len(fitting) > 1:
        raise ValueError(
            f"the bundled {what}s {' and '.join(map(str, fitting))} both play {game} under "
            f"{rules}; keep one"
        )
    if fitting:
        return fitting[0]
    if not of_kind:
        raise ValueError(f"no bundled {what} for {game}; {how}")
    there = "; ".join(sorted({found.plays for found in of_kind.values()}))
    raise ValueError(
        f"no bundled {what} for {game} under {rules} (the bundled ones play {there}); {how}"
    )


def deprecated_bundled_table(
    name: str, lookup: Callable[[str], Path], games: Iterable[str]
) -> dict[str, Path]:
    """The table a module once kept as ``name`` (game -> its bundled file), computed by
    ``lookup`` for each of ``games`` that has one, with a :class:`DeprecationWarning`."""
    warnings.warn(
        f"{name} is deprecated: a game's bundled files are found by what they record; call "
        f"{lookup.__module__}.{lookup.__name__}(game) instead",
        DeprecationWarning,
        stacklevel=3,  # the import or attribute of the caller of the module's __getattr__
    )
    table = {}
    for game in games:
        with contextlib.suppress(ValueError):
            table[game] = lookup(game)
    return table


def game_folder(game: str, kind: str) -> Path:
    """The folder ``agents/<game>/<kind>/`` where a game's agents ship files of ``kind``
    (``models``, ``ladders``), whether or not it exists.

    Raises:
        ValueError: for a game name that is no package name (a game's path), which has no
            folder here.
    """
    if not game.isidentifier():
        raise ValueError(f"the game {game!r} has no folder in agents/: it is not a package name")
    return AGENTS / game / kind


def game_files(game: str, kind: str) -> list[Path]:
    """The files a game's agents ship in ``agents/<game>/<kind>/`` (``models``, ``ladders``),
    by name.

    The game's agents package is the folder of the game's name beside this module; a game
    without one (a game from outside, a name that is no package) has none, and so do
    hidden files.
    """
    if not game.isidentifier() or not (folder := game_folder(game, kind)).is_dir():
        return []
    return sorted(
        path for path in folder.iterdir() if path.is_file() and not path.name.startswith(".")
    )


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


def check_writable_file(path: str | Path, what: str = "file", *, makes_folders: bool = False
                        ) -> Path:
    """Check that ``path`` can be written (its folder exists and is writable), creating
    nothing.

    Args:
        path: the file a run will write.
        what: how to name it in the error (e.g. ``"ladder file"``).
        makes_folders: the writer creates the missing folders of the path: the nearest of
            them that exists must be a writable folder (not a file).

    Raises:
        ValueError: for an empty path, a folder, or a path whose folder is missing (unless
            ``makes_folders``) or not writable, naming ``what`` and the path.
    """
    text = str(path)
    if not text.strip():
        raise ValueError(f"the {what} must be a file path, got an empty one")
    target = Path(text)
    if target.is_dir():
        raise ValueError(f"cannot write the {what} {text!r}: it is a folder; give a file path")
    folder = target.parent
    if makes_folders:  # "." and "/" exist: the search ends
        folder = next(part for part in target.parents if os.path.lexists(part))
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        raise ValueError(f"cannot write the {what} {text!r}: no writable folder for it")
    return target


@contextlib.contextmanager
def locked_folder(folder: str | Path, what: str = "folder") -> Iterator[Path]:
    """Hold ``folder`` (created if need be) for this run alone while the block runs.

    The lock is the system's (``flock`` on the folder itself, released when the process
    ends however it ends); where there is none (not POSIX), the folder is not locked. The
    folders this created are removed again if the block leaves them empty (a run refused
    before it wrote anything leaves nothing behind).

    Args:
        folder: the folder a run writes to.
        what: how to name it in the error (e.g. ``"rating folder"``).

    Raises:
        FolderInUseError: if another run holds it.
        OSError: if it cannot be created or opened.
    """
    path = Path(folder)
    created = [part for part in (path, *path.parents) if not part.exists()]  # deepest first
    path.mkdir(parents=True, exist_ok=True)
    try:
        handle = os.open(path, os.O_RDONLY)
        try:
            _lock(handle, path, what)
            yield path
        finally:
            os.close(handle)  # closing it releases the lock
    finally:
        for part in created:
            try:
                part.rmdir()  # only an empty folder is removed
            except OSError:
                break


def _lock(handle: int, path: Path, what: str) -> None:
    """Lock the open folder ``handle`` for this process, or refuse: another run holds it."""
    if fcntl is None:
        return
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise FolderInUseError(
            f"another run is using the {what} {path}; wait for it to end, or choose another "
            "folder"
        ) from None


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

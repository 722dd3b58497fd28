"""The files an agent spec loads, each with its SHA-256: what a run records, so that a model,
a network or a program replaced under the same name never passes for the one it played.

:func:`spec_files` finds them, for any spec :func:`~agents.registry.make_agent` builds:

- every option whose value names an existing file (``ppo:path=models/x.zip``, a user's
  agent's ``weights=w.npz``);
- the files its agent says it loads: a factory may declare
  ``loaded_files(game=GAME, **options) -> list[Path]``, called with the spec's options
  (the ``ppo`` model and the ``mcts`` network, the bundled one when the spec names none;
  for ``exec:COMMAND``, each argument of the command that names an existing file);
- for a dotted path (``mypackage.module.MyAgent``), the module's file, and the file of the
  module that defines the class when that is another.

The package's own code is not among them: a card records the package's version and commit.
:func:`file_changes` says which files differ from the digests a run recorded.

Example:
    >>> files = spec_files("ppo", "trap")  # the bundled model
    >>> [Path(path).name for path in files], len(next(iter(files.values())))
    (['ppo_7x7.zip'], 64)
"""

from __future__ import annotations

import hashlib
import inspect
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePath
from typing import Any

from agents.options import parse_spec
from agents.registry import spec_arguments
from trap_env.agent import SpecError

__all__ = ["file_changes", "file_digests", "file_sha256", "spec_files"]

_CHUNK = 1 << 20


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of the file ``path``'s bytes, in hex.

    Raises:
        OSError: if it cannot be read.
    """
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        while chunk := file.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def spec_files(spec: str, game: str) -> dict[str, str]:
    """The files the agent of ``spec`` (playing ``game``) loads: path -> SHA-256.

    Paths are as the spec gives them (relative to the working folder, where the agent opens
    them) or as the agent finds them (a bundled file's full path).

    Raises:
        SpecError: for a spec that names no agent (as :func:`~agents.registry.make_agent`),
            or a file it loads that cannot be read.
    """
    factory, values = spec_arguments(spec, game=game)
    paths = [Path(value) for value in values.values() if _names_a_file(value)]
    declared = getattr(factory, "loaded_files", None)
    name = parse_spec(spec)[0]
    try:
        if callable(declared):
            paths += declared(**values | {"game": game})
        if "." in name:  # a dotted path: the code is the user's, not the package's
            paths += _module_files(name, factory)
        return {path: file_sha256(path) for path in sorted(set(map(str, paths)))}
    except (TypeError, ValueError, OSError) as error:
        raise SpecError(f"agent spec {spec.strip()!r}: {error}") from None


def _names_a_file(value: Any) -> bool:
    return isinstance(value, str | PurePath) and Path(value).is_file()


def _module_files(name: str, factory: Any) -> list[Path]:
    """The file of the module a dotted path names, and of the module defining its factory."""
    modules = [sys.modules.get(name.rpartition(".")[0]), inspect.getmodule(factory)]
    files = {getattr(module, "__file__", None) for module in modules}
    return [Path(file) for file in sorted(filter(None, files))]


def file_digests(paths: Iterable[str]) -> dict[str, str]:
    """The SHA-256 of each of ``paths`` as the file is now; a path that is no readable file
    is left out."""
    digests = {}
    for path in paths:
        try:
            digests[path] = file_sha256(path)
        except OSError:
            continue
    return digests


def file_changes(recorded: Mapping[str, str], now: Mapping[str, str]) -> list[str]:
    """What differs between the files a run ``recorded`` and those there ``now``, one phrase
    per file (``"models/x.zip: SHA-256 3f2a... recorded, 9c1d... now"``); none if nothing."""
    changes = []
    for path in sorted({*recorded, *now}):
        before, after = recorded.get(path), now.get(path)
        if before == after:
            continue
        if after is None:
            changes.append(f"{path}: recorded by the run, not there now")
        elif before is None:
            changes.append(f"{path}: loaded now, not recorded by the run")
        else:
            changes.append(f"{path}: SHA-256 {before[:12]}... recorded, {after[:12]}... now")
    return changes

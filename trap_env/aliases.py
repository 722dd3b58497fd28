"""Names that hold no file of their own: each game's PettingZoo module, ``trap_env.<game>_v0``,
made when first imported, and the old home of every module or name that moved, which gives
the new one with a :class:`DeprecationWarning` naming it.

A module finder, first on ``sys.meta_path`` once ``trap_env`` is imported, answers the names
given to :func:`serve_module` and :func:`move_module` (and the modules under a package that
moved) and nothing else; a name that moved out of a module is its ``__getattr__``'s, through
:func:`moved_attribute`.

Example:
    >>> import warnings, trap_env
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     apply = trap_env.apply
    >>> apply.__module__, str(caught[0].message)
    ('trap_env.trap.core', 'trap_env.apply is deprecated: it moved to trap_env.trap.core.apply')
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable, Sequence
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

__all__ = ["move_module", "moved_attribute", "serve_module"]

_SERVED: dict[str, Callable[[], ModuleType]] = {}
"""A module name -> what makes (or imports) the module it names."""
_MOVED: dict[str, str] = {}
"""The old name of a module that moved -> its new name."""


def serve_module(name: str, make: Callable[[], ModuleType]) -> None:
    """Make ``import name`` give ``make()`` (called once, at the first import)."""
    _SERVED[name] = make
    _install()


def move_module(old: str, new: str) -> None:
    """Make ``import old`` (and of any module under it) give the module ``new`` (and the one
    under it), with a :class:`DeprecationWarning` naming the new home."""
    _MOVED[old] = new
    _install()


def moved_attribute(old: str, new: str) -> Any:
    """The object at ``new``, ``"module:attribute"``, for the name ``old`` that moved there,
    with a :class:`DeprecationWarning` naming the new home: what a module's ``__getattr__``
    returns for a name it no longer holds.

    Raises:
        ImportError, AttributeError: if ``new`` names nothing.
    """
    module, _, attribute = new.partition(":")
    _warn(old, f"{module}.{attribute}", stacklevel=4)  # the caller of the module's __getattr__
    return getattr(importlib.import_module(module), attribute)


def _warn(old: str, new: str, stacklevel: int) -> None:
    warnings.warn(f"{old} is deprecated: it moved to {new}", DeprecationWarning, stacklevel)


def _new_home(name: str) -> str | None:
    """The new name of a module that moved, or of one under a package that moved."""
    for old, new in _MOVED.items():
        if name == old or name.startswith(f"{old}."):
            return new + name[len(old) :]
    return None


class _Finder(MetaPathFinder):
    """Finds the served and the moved modules, and only them."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        """A spec for a served or moved module; None for any other name."""
        if fullname in _SERVED or _new_home(fullname) is not None:
            return ModuleSpec(fullname, _LOADER)
        return None


class _Loader(Loader):
    """Puts the served or moved module in ``sys.modules`` under the name imported, in place
    of the empty module the import made (the import then returns what ``sys.modules``
    holds)."""

    def exec_module(self, module: ModuleType) -> None:
        """Make or import the module the name stands for."""
        name = module.__name__
        new = _new_home(name)
        if new is None:
            made = sys.modules[name] = _SERVED[name]()
            if made.__spec__ is None:  # a module made here is found by this spec, as imported
                made.__spec__, made.__loader__ = module.__spec__, self
            return
        _warn(name, new, stacklevel=3)  # the importer (the import machinery's frames are skipped)
        sys.modules[name] = importlib.import_module(new)


_LOADER = _Loader()
_FINDER = _Finder()


def _install() -> None:
    """Put the finder first on ``sys.meta_path`` (once): a moved package's submodules must
    not be found again, under the old name, in the new package's folder."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)

"""The one bounded cache of the project: a dict that stops growing at a fixed size.

Used by the rules core (landing distributions, board geometries) and by the search (its
transposition table, its landing memo and its evaluation cache).

Why not an LRU cache: an eviction policy costs time on every hit, and hits are what a
search does most. Why not clear when full: emptying a dict of a few hundred thousand
entries takes tens of milliseconds, a pause that a search's clock checks cannot see
coming. So a full cache simply stores nothing new, and its owner calls
:meth:`BoundedCache.make_room` at a moment when a pause costs nothing (between two
searches), or :meth:`BoundedCache.clear` if it has no clock to keep.

A cache whose keys and values are plain ints and floats is never scanned by the garbage
collector however large it grows (CPython stops tracking a dict that holds no tracked
object); the search relies on that, so it keys its caches by ints.

This module imports nothing outside the standard library.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["BoundedCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """A mapping that stores at most ``max_entries`` keys and never evicts on its own.

    Args:
        max_entries: the size past which :meth:`put` stores no new key.

    Attributes:
        get: ``get(key)``: the value stored under ``key``, or None. The underlying dict's
            own method, so a lookup costs what a dict lookup costs.

    Raises:
        ValueError: if ``max_entries`` is not a positive integer.
    """

    __slots__ = ("_entries", "get", "max_entries")

    def __init__(self, max_entries: int) -> None:
        if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1:
            raise ValueError(f"max_entries must be a positive integer, got {max_entries!r}")
        self.max_entries = max_entries
        self._entries: dict[K, V] = {}
        self.get: Callable[[K], V | None] = self._entries.get

    def put(self, key: K, value: V) -> bool:
        """Store ``value`` under ``key`` unless the cache is full; whether it was stored.

        A key already present is always updated, full or not.
        """
        entries = self._entries
        if len(entries) >= self.max_entries and key not in entries:
            return False
        entries[key] = value
        return True

    def make_room(self) -> bool:
        """Empty the cache if it is more than three quarters full; whether it was emptied.

        Call it where a pause is harmless: emptying a large cache takes milliseconds.
        """
        if len(self._entries) > 3 * self.max_entries // 4:
            self._entries.clear()
            return True
        return False

    def clear(self) -> None:
        """Forget every entry."""
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

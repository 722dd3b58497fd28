"""The project's bounded caches: a dict that stops growing at a fixed size, and the LRU
cache of tables built per board size.

:class:`BoundedCache` is used by the rules core (landing distributions, board geometries)
and by the search (its transposition table, its landing memo and its evaluation cache).
:func:`per_board_size` caches what a function builds for a board size (Othello's rays,
Colosseum's border, the batched engines' tables), for the :data:`MAX_BOARD_SIZES` sizes
used last: a table can grow as fast as N^5, and a server replays whatever size it is sent.

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

import functools
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

__all__ = ["MAX_BOARD_SIZES", "SIZE_CACHES", "BoundedCache", "per_board_size"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

MAX_BOARD_SIZES = 8
"""How many board sizes a :func:`per_board_size` cache keeps tables of (those used last)."""
SIZE_CACHES: list[functools._lru_cache_wrapper[Any]] = []
"""Every :func:`per_board_size` cache, for tests to see that each stays bounded."""


def per_board_size(
    entries_per_size: int = 1,
) -> Callable[[Callable[..., V]], functools._lru_cache_wrapper[V]]:
    """A decorator: an LRU cache of what a function builds for a board size, holding
    ``entries_per_size`` entries for each of :data:`MAX_BOARD_SIZES` sizes.

    A hit costs what ``functools.cache``'s does (both are the C ``lru_cache``).

    Example:
        >>> @per_board_size()
        ... def full_board(board_size: int) -> int:
        ...     return (1 << board_size * board_size) - 1
        >>> full_board.cache_info().maxsize
        8
    """

    def decorate(function: Callable[..., V]) -> functools._lru_cache_wrapper[V]:
        cached = functools.lru_cache(maxsize=MAX_BOARD_SIZES * entries_per_size)(function)
        SIZE_CACHES.append(cached)
        return cached

    return decorate


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

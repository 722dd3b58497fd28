"""Tests for trap_env.cache: the one bounded cache (the core's and the search's)."""

from __future__ import annotations

import gc

import pytest

from trap_env.cache import BoundedCache


def test_stores_and_returns_values() -> None:
    cache: BoundedCache[int, float] = BoundedCache(4)
    assert cache.get(1) is None
    assert cache.put(1, 0.5)
    assert cache.get(1) == 0.5 and 1 in cache and len(cache) == 1


def test_a_full_cache_stores_nothing_new_but_updates_what_it_holds() -> None:
    cache: BoundedCache[int, int] = BoundedCache(2)
    assert cache.put(1, 10) and cache.put(2, 20)
    assert not cache.put(3, 30)
    assert cache.get(3) is None and len(cache) == 2
    assert cache.put(1, 11)
    assert cache.get(1) == 11


def test_make_room_empties_only_a_cache_more_than_three_quarters_full() -> None:
    cache: BoundedCache[int, int] = BoundedCache(8)
    for key in range(6):
        cache.put(key, key)
    assert not cache.make_room() and len(cache) == 6
    cache.put(6, 6)
    assert cache.make_room() and len(cache) == 0
    assert cache.put(7, 7) and cache.get(7) == 7  # the lookup still reads the same dict


def test_clear_forgets_everything() -> None:
    cache: BoundedCache[int, int] = BoundedCache(3)
    cache.put(1, 1)
    cache.clear()
    assert len(cache) == 0 and cache.get(1) is None


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "8", None])
def test_bad_sizes_are_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="max_entries must be a positive integer"):
        BoundedCache(bad)  # type: ignore[arg-type]


def test_a_cache_of_ints_and_floats_is_never_scanned_by_the_collector() -> None:
    """The search's caches grow to hundreds of thousands of entries: a tracked dict that size
    would make every full collection scan them."""
    cache: BoundedCache[int, float] = BoundedCache(1000)
    for key in range(1000):
        cache.put(key << 70, key / 7)  # large ints too
    gc.collect()
    assert not gc.is_tracked(cache._entries)

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


# --- Tables per board size (issue 36: a server replays whatever size it is sent) -------------


def build_every_size_cache(sizes: range) -> None:
    """Build what each per-size cache holds, for every board size of ``sizes``."""
    from agents.mcts import network
    from agents.othello import bitboards, greedy
    from agents.trap import batched_evaluation
    from agents.trap import batched_search as batched
    from trap_env.colosseum import rules as colosseum
    from trap_env.othello import batched as othello_batched
    from trap_env.othello import rules as othello
    from trap_env.trap import batched as batched_trap

    for n in sizes:
        if n % 2 == 0:
            othello.legal_actions(othello.initial_state(othello.OthelloConfig(n)))
            bitboards.geometry(n)
            greedy.corners(n)
        colosseum.border_walls(n)
        network._window_indices(n, n)
    for decay in range(0, 100, 10):
        for n in range(3, 9):
            batched_evaluation.king_dilate(n, batched_evaluation.np.uint64(1))
            batched.BatchedSearch(batched_trap.tables(n, decay), depth=1)
    for n in range(4, 9, 2):
        for end_rule in ("standard",):
            othello_batched.tables(othello.OthelloConfig(n, end_rule))


def test_every_per_size_cache_stays_bounded_over_many_sizes() -> None:
    from trap_env.cache import MAX_BOARD_SIZES, SIZE_CACHES

    build_every_size_cache(range(3, 27))  # Othello takes sizes up to 26, more than 8 of them
    assert len(SIZE_CACHES) >= 9
    for cache in SIZE_CACHES:
        info = cache.cache_info()
        assert info.maxsize is not None and info.maxsize % MAX_BOARD_SIZES == 0
        assert info.currsize <= info.maxsize, cache


def test_no_cache_keyed_by_board_size_is_unbounded() -> None:
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    unbounded = re.compile(r"@functools\.cache\b|lru_cache\((maxsize=)?None\)")
    found = [
        f"{path.relative_to(root)}:{number}: {lines[number]}"
        for folder in ("trap_env", "agents")
        for path in sorted((root / folder).rglob("*.py"))
        for lines in [path.read_text().splitlines()]
        for number, line in enumerate(lines[:-1])
        if unbounded.search(line) and "def _controller()" not in lines[number + 1]
    ]
    assert not found, "use trap_env.cache.per_board_size: " + "; ".join(found)

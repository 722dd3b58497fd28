"""Tests for agents.folder_walk: bounded walks that follow no link, and reads of regular
files only (the leaderboard's and the web page's results-root cases are in their tests)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agents import folder_walk
from agents.folder_walk import find_files, read_regular_file, shown_path
from tests.support.results_roots import deep_tree, fifo_released_after


def test_a_walk_follows_no_link_and_finds_regular_files_only(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "inside").mkdir(parents=True)
    (elsewhere / "inside" / "x.json").write_text("{}")
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    (root / "a" / "x.json").write_text("{}")
    (root / "linked").symlink_to(elsewhere)
    (root / "x.json").symlink_to(elsewhere / "inside" / "x.json")
    found = find_files(root, "x.json", limit=10)
    assert found.paths == [root / "a" / "x.json"]
    assert found.notes == ["x.json: left out, not a regular file"]


def test_a_walk_stops_at_its_depth_and_folder_caps_with_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with deep_tree(tmp_path, folder_walk.MAX_WALK_DEPTH + 2) as deepest:
        (deepest / "x.json").write_text("{}")
        found = find_files(tmp_path, "x.json", limit=10)
        assert not found.paths
        assert found.notes == ["not read: 1 folders more than 32 levels below the root"]
        monkeypatch.setattr(folder_walk, "MAX_WALK_FOLDERS", 3)
        found = find_files(tmp_path, "x.json", limit=10)
    assert found.notes == ["not read: 1 folders (and what they hold) past the first 3 folders "
                           "listed"]  # fmt: skip


def test_a_walk_looks_at_a_bounded_number_of_entries_of_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(folder_walk, "MAX_FOLDER_ENTRIES", 3)
    for name in "abcd":
        (tmp_path / name).mkdir()
        (tmp_path / name / "x.json").write_text("{}")
    found = find_files(tmp_path, "x.json", limit=10)
    assert len(found.paths) == 3 and found.notes == [".: read in part, only 3 of its entries"]


def test_only_a_regular_file_is_read_and_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    (tmp_path / "big").write_bytes(b"x" * 11)
    (tmp_path / "link").symlink_to(tmp_path / "big")
    with fifo_released_after(tmp_path / "fifo"), pytest.raises(ValueError, match=r"^not a regul"):
        read_regular_file(tmp_path / "fifo", max_bytes=10)
    with pytest.raises(ValueError, match=r"^larger than 10 bytes$"):
        read_regular_file(tmp_path / "big", max_bytes=10)
    with pytest.raises(ValueError, match=r"^a link, which is not followed$"):
        read_regular_file(tmp_path / "link", max_bytes=100)
    assert read_regular_file(tmp_path / "big", max_bytes=11) == b"x" * 11


def test_a_name_that_is_not_utf8_is_shown_escaped() -> None:
    assert shown_path(os.fsdecode(b"runs/caf\xff")) == "runs/caf\\xff"
    assert shown_path("runs/café") == "runs/café"

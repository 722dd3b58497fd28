"""agents.files: a file is replaced whole or not at all; run folders are checked first; a
game's bundled file is found by what it records."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import files
from agents.files import (
    Bundled,
    FolderInUseError,
    bundled_file,
    check_writable_file,
    check_writable_folder,
    locked_folder,
    replace_atomically,
    run_folder,
    save_npz_atomically,
    write_text_atomically,
)


def test_an_interrupted_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "replay.npz"
    save_npz_atomically(path, {"values": np.arange(3)})
    before = path.read_bytes()

    def interrupted(temporary: Path) -> None:
        temporary.write_bytes(b"half a file")
        raise KeyboardInterrupt  # Ctrl-C in the middle of the write

    with pytest.raises(KeyboardInterrupt):
        replace_atomically(path, interrupted)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["replay.npz"]


def test_a_write_replaces_the_file_whole_keeping_its_name(tmp_path: Path) -> None:
    write_text_atomically(tmp_path / "config.json", "old")
    write_text_atomically(tmp_path / "config.json", "new")
    save_npz_atomically(tmp_path / "weights", {"a": np.ones(2)})  # numpy adds no suffix
    assert (tmp_path / "config.json").read_text() == "new"
    with np.load(tmp_path / "weights") as data:
        assert data["a"].tolist() == [1.0, 1.0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json", "weights"]


def test_the_temporary_keeps_the_suffix_that_libraries_look_for(tmp_path: Path) -> None:
    seen: list[str] = []
    replace_atomically(tmp_path / "model.zip", lambda t: (seen.append(t.name), t.write_text("")))
    assert seen[0].startswith(".model.") and seen[0].endswith(".zip")


def test_run_folders_are_refused_when_empty_or_a_file(tmp_path: Path) -> None:
    afile = tmp_path / "notes.txt"
    afile.write_text("mine")
    for text, message in [("", "empty"), ("  ", "empty"), (str(afile), "is a file")]:
        with pytest.raises(ValueError, match=message):
            run_folder(text)
        with pytest.raises(ValueError, match=message):
            check_writable_folder(text, "run folder")
    with pytest.raises(ValueError, match="cannot write to the run folder"):
        check_writable_folder(str(afile / "below"), "run folder")
    assert check_writable_folder(tmp_path / "new" / "run") == tmp_path / "new" / "run"
    assert list((tmp_path / "new" / "run").iterdir()) == []  # the probe is gone
    assert afile.read_text() == "mine"


def test_a_file_path_is_checked_without_creating_anything(tmp_path: Path) -> None:
    for path, message in [("", "empty"), (str(tmp_path), "is a folder"),
                          (str(tmp_path / "no" / "a.gif"), "no writable folder")]:
        with pytest.raises(ValueError, match=message):
            check_writable_file(path, "GIF")
    assert check_writable_file(tmp_path / "a.gif") == tmp_path / "a.gif"
    assert list(tmp_path.iterdir()) == []


def test_a_file_whose_folders_the_writer_makes_needs_a_folder_as_its_nearest(tmp_path: Path):
    (tmp_path / "afile").write_text("x")
    new = tmp_path / "no" / "such" / "ladder.json"
    assert check_writable_file(new, makes_folders=True) == new
    for path in (tmp_path / "afile" / "ladder.json", tmp_path / "afile" / "x" / "ladder.json"):
        with pytest.raises(ValueError, match=f"'{path}': no writable folder for it"):
            check_writable_file(path, "ladder file", makes_folders=True)
    with pytest.raises(ValueError, match="is a folder"):
        check_writable_file(tmp_path, makes_folders=True)
    assert [path.name for path in tmp_path.iterdir()] == ["afile"]


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_file_written_whole_has_the_umask_s_mode(tmp_path: Path, umask: int, mode: int) -> None:
    old = os.umask(umask)
    try:
        write_text_atomically(tmp_path / "card.json", "{}")
        save_npz_atomically(tmp_path / "a.npz", {"x": np.zeros(1)})
        with open(tmp_path / "plain.txt", "w"):  # what any new file gets
            pass
    finally:
        os.umask(old)
    modes = {path.name: stat.S_IMODE(path.stat().st_mode) for path in tmp_path.iterdir()}
    assert modes == {"card.json": mode, "a.npz": mode, "plain.txt": mode}


def test_a_locked_folder_is_one_run_s_and_left_as_it_was_if_it_stays_empty(tmp_path: Path) -> None:
    folder = tmp_path / "new" / "run"
    refusal = f"another run is using the rating folder {folder}"
    with locked_folder(folder, "rating folder") as held:
        assert held == folder and folder.is_dir()
        with pytest.raises(FolderInUseError, match=refusal), locked_folder(folder, "rating folder"):
            pass
    assert list(tmp_path.iterdir()) == []  # it created both, and both were left empty
    with locked_folder(folder) as held:
        (held / "results.jsonl").write_text("")
    with locked_folder(folder):  # released: the next run takes it
        pass
    assert [path.name for path in folder.iterdir()] == ["results.jsonl"]


def read_rules(wanted: str) -> Callable[[Path], Bundled | None]:
    """A lookup's reader of test files: ``rules=...`` is a file of its kind."""

    def read(path: Path) -> Bundled | None:
        text = path.read_text()
        return Bundled(text == f"rules={wanted}", text[6:]) if text.startswith("rules=") else None

    return read


def find(game: str, wanted: str) -> Path:
    return bundled_file(game, "thing", f"rules={wanted}", read_rules(wanted), "do this")


NAMES = st.text(st.characters(codec="ascii", categories=["L", "N"]), min_size=1, max_size=12)


@settings(max_examples=25, deadline=None)
@given(names=st.lists(NAMES, min_size=2, max_size=5, unique_by=str.lower), which=st.integers(0))
def test_a_bundled_file_is_found_by_what_it_records_whatever_its_name(
    names: list[str], which: int
) -> None:
    with tempfile.TemporaryDirectory() as root, pytest.MonkeyPatch.context() as patch:
        patch.setattr(files, "AGENTS", Path(root))
        models = Path(root) / "chess" / "models"
        models.mkdir(parents=True)
        for index, name in enumerate(names):
            (models / name).write_text(f"rules={index}")
        (models / ".hidden").write_text(f"rules={len(names)}")
        chosen = which % len(names)
        assert find("chess", str(chosen)) == models / names[chosen]
        there = "; ".join(sorted(str(index) for index in range(len(names))))
        message = f"^no bundled thing for chess under rules={len(names)} \\(the bundled ones play "
        with pytest.raises(ValueError, match=message + f"{there}\\); do this$"):
            find("chess", str(len(names)))  # the hidden file is none of them


def test_a_game_without_bundled_files_is_refused_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "AGENTS", tmp_path)
    (tmp_path / "go" / "models").mkdir(parents=True)
    (tmp_path / "go" / "models" / "notes.txt").write_text("not a thing")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "x").write_text("rules=1")
    for game in ("go", "chess", "", "../go", "."):  # no folder, or a name that is no package
        with pytest.raises(ValueError, match=f"^no bundled thing for {game}; do this$"):
            find(game, "1")


def test_two_bundled_files_of_the_rules_asked_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "AGENTS", tmp_path)
    (tmp_path / "go" / "models").mkdir(parents=True)
    for name in ("a", "b"):
        (tmp_path / "go" / "models" / name).write_text("rules=1")
    with pytest.raises(ValueError, match=r"things .*/a and .*/b both play go under rules=1; keep"):
        find("go", "1")

"""agents.files: a file is replaced whole or not at all; run folders are checked first."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest

from agents.files import (
    FolderInUseError,
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

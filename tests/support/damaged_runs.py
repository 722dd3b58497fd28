"""Damaging a training run's folder before ``--resume``, for the tests of both trainers.

:data:`DAMAGES` are the fixed damages a test applies to each file of a run; :func:`damages`
draws them at random for Hypothesis (a file removed, cut anywhere, replaced by random bytes
or by another file of the run), and :func:`apply_damage` applies one to a copy of the run
(:func:`copy_run`, :func:`damaged_copy`). :func:`files_of` reads a whole folder, to check
that a refused resume changed nothing. :func:`check_bad_run_dirs_refused` is both trainers'
test of a ``--run-dir`` that cannot be a run's folder.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from hypothesis import strategies as st

DAMAGES: dict[str, Callable[[Path], object]] = {
    "removed": lambda path: path.unlink(),
    "truncated": lambda path: path.write_bytes(path.read_bytes()[: path.stat().st_size // 3]),
    "garbage": lambda path: path.write_bytes(b"PK\x03\x04garbage" * 7),
}
"""Damages by name: each takes the path of the file it damages."""

Damage = tuple[str, object]
"""``("removed", None)``, ``("truncated", fraction kept)``, ``("replaced", bytes)`` or
``("swapped", name of another file of the run whose bytes it takes)``."""


def files_of(run: Path) -> dict[str, bytes]:
    """Every file under ``run``, by its path relative to ``run``, with its bytes."""
    return {str(p.relative_to(run)): p.read_bytes() for p in run.rglob("*") if p.is_file()}


def damages(run_files: Sequence[str]) -> st.SearchStrategy[tuple[str, Damage]]:
    """A file of the run and what happens to it."""
    how = st.one_of(
        st.just(("removed", None)),
        st.tuples(st.just("truncated"), st.floats(0.0, 0.99)),
        st.tuples(st.just("replaced"), st.binary(max_size=64)),
        st.tuples(st.just("swapped"), st.sampled_from(run_files)),
    )
    return st.tuples(st.sampled_from(run_files), how)


def apply_damage(run: Path, name: str, damage: Damage) -> None:
    """Damage the file ``name`` of ``run`` as ``damage`` says."""
    path = run / name
    kind, detail = damage
    if kind == "removed":
        path.unlink()
    elif kind == "truncated":
        assert isinstance(detail, float)
        path.write_bytes(path.read_bytes()[: int(path.stat().st_size * detail)])
    elif kind == "replaced":
        assert isinstance(detail, bytes)
        path.write_bytes(detail)
    else:
        path.write_bytes((run / str(detail)).read_bytes())


def copy_run(run: Path, destination: Path) -> Path:
    """A copy of the run folder ``run`` at ``destination``, to damage instead of ``run``."""
    return Path(shutil.copytree(run, destination))


def damaged_copy(run: Path, destination: Path, name: str, damage: Damage) -> Path:
    """A copy of the run folder ``run`` at ``destination``, its file ``name`` damaged."""
    copy = copy_run(run, destination)
    apply_damage(copy, name, damage)
    return copy


def check_bad_run_dirs_refused(
    folder: Path,
    train: Callable[..., tuple[int, str]],
    assert_one_line: Callable[..., None],
) -> None:
    """An empty ``--run-dir`` and one that is a file (made in ``folder``) are refused, with
    and without ``--resume``, in one line that says so, and the file is left as it was.

    Args:
        folder: where to make the file.
        train: runs the trainer with these flags added to a quick run's: its exit status
            and its standard error.
        assert_one_line: asserts that an error output is the trainer's one line and holds
            the words given.
    """
    afile = folder / "notes.txt"
    afile.write_text("mine")
    for run_dir, message in [("", "empty"), (" ", "empty"), (str(afile), "is a file")]:
        for resuming in ([], ["--resume"]):
            status, err = train("--run-dir", run_dir, *resuming)
            assert status == 1
            assert_one_line(err, message)
    assert afile.read_text() == "mine"

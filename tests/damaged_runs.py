"""Damaging a training run's folder before ``--resume``, for the tests of both trainers.

:data:`DAMAGES` are the fixed damages a test applies to each file of a run; :func:`damages`
draws them at random for Hypothesis (a file removed, cut anywhere, replaced by random bytes
or by another file of the run), and :func:`apply_damage` applies one. :func:`files_of`
reads a whole folder, to check that a refused resume changed nothing.
"""

from __future__ import annotations

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

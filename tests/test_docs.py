"""The documentation site builds with ``mkdocs build --strict``: no broken link or reference."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").glob("*.md"))
BLOCKS = [
    (page.name, block)
    for page in PAGES
    for block in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)
]



@pytest.mark.parametrize("page, block", BLOCKS, ids=[f"{p}-{i}" for i, (p, _) in enumerate(BLOCKS)])
def test_python_examples_in_the_docs_run(page: str, block: str) -> None:
    exec(compile(block, page, "exec"), {"__name__": "docs_example"})


def test_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="the docs extra is not installed")
    pytest.importorskip("mkdocstrings", reason="the docs extra is not installed")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    api_page = (tmp_path / "api" / "trap_env" / "index.html").read_text(encoding="utf-8")
    assert "chance_outcomes" in api_page  # the reference is generated from the docstrings

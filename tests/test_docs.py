"""The documentation site builds with ``mkdocs build --strict``: no broken link or reference;
its examples run, and it says what an example cannot show (each env's default opponent)."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from gymnasium.envs.registration import load_env_creator

from trap_env.games import GAME_TABLE, GameEntry

ROOT = Path(__file__).resolve().parent.parent
PYTHON = r"```python\n(.*?)```"
"""A Python example: a ```python block."""
PAGES = sorted((ROOT / "docs").glob("*.md"))
BLOCKS = [
    (page.name, block)
    for page in PAGES
    for block in re.findall(PYTHON, page.read_text(encoding="utf-8"), re.DOTALL)
]
GYM_ENTRIES = [entry for entry in GAME_TABLE if entry.gym_id is not None]


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


def _default_opponent(entry_point: str) -> object:
    """The ``opponent`` default of an entry point, or None where it passes its arguments on
    to the single env (a sync vector env of single envs)."""
    parameter = inspect.signature(load_env_creator(entry_point)).parameters.get("opponent")
    return None if parameter is None else parameter.default


@pytest.mark.parametrize("entry", GYM_ENTRIES, ids=[entry.gym_id for entry in GYM_ENTRIES])
def test_each_gym_id_s_default_opponent_is_documented(entry: GameEntry) -> None:
    single = _default_opponent(entry.env_entry_point)
    vector = _default_opponent(entry.vector_entry_point)
    assert vector in (None, single), f"{entry.gym_id}: make_vec's default opponent is not make's"
    text = (ROOT / "docs" / "environments.md").read_text(encoding="utf-8")
    said = re.search(r"\*\*Default opponent\*\*(.*?)\n\n", text, re.DOTALL)
    assert said, "docs/environments.md has no **Default opponent** paragraph"
    assert f"`{entry.gym_id}`" in said.group(1) and f'`"{single}"`' in said.group(1), (
        f"docs/environments.md's **Default opponent** paragraph does not say {entry.gym_id}'s, "
        f"{single!r}"
    )


def test_every_sb3_recipe_wraps_its_vec_env_in_a_vec_monitor() -> None:
    # SB3 monitors a single env itself but no VecEnv: without VecMonitor no episode's reward
    # reaches the logger.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [*BLOCKS, *(("README.md", block) for block in re.findall(PYTHON, readme, re.DOTALL))]
    unmonitored = [
        page for page, block in blocks if block.count("to_sb3(") > block.count("VecMonitor(to_sb3(")
    ]
    assert unmonitored == [], f"SB3 recipes without VecMonitor(to_sb3(...)) in {unmonitored}"

"""README.md stays true: its Python examples run, and its two commands are where CI reads them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from trap_scripts import evaluate

README = Path(__file__).resolve().parent.parent / "README.md"
TEXT = README.read_text(encoding="utf-8")
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", TEXT, flags=re.DOTALL)


def _command(marker: str) -> str:
    match = re.search(
        rf"<!-- {marker} -->\s*```\n(.*?)\n```\s*<!-- /{marker} -->", TEXT, flags=re.DOTALL
    )
    assert match, f"README.md has no ```-fenced command between <!-- {marker} --> markers"
    return match.group(1).strip()


def test_readme_has_the_main_and_test_commands() -> None:
    main, tests = _command("main-command"), _command("test-command")
    assert "\n" not in main and "\n" not in tests, "each command is one line"
    assert "pip install" in main and main.endswith("trap-evaluate")
    # the whole suite on every core (pytest-xdist), then RLlib's file in its own venv
    assert "pip install" in tests and "&& python -m pytest -n auto &&" in tests


def test_readme_test_command_runs_rllib_s_test_in_a_venv_of_its_own() -> None:
    # RLlib pins its own Gymnasium; TRAP_ENV_RLLIB=1 turns a missing RLlib into a failure.
    rllib_run = _command("test-command").split("&& python -m pytest -n auto &&", 1)[1]
    assert "python -m venv .venv-rllib" in rllib_run
    assert '.venv-rllib/bin/python -m pip install -e ".[rllib,test]"' in rllib_run
    assert rllib_run.endswith(
        "TRAP_ENV_RLLIB=1 .venv-rllib/bin/python -m pytest tests/trap_env/test_rllib.py"
    )


def test_readme_stays_within_200_lines() -> None:
    lines = len(TEXT.splitlines())
    assert lines <= 200, f"README.md is {lines} lines, over 200: the detail belongs in docs/"


def test_readme_says_what_the_main_command_plays() -> None:
    intro = TEXT.split("<!-- main-command -->")[0].strip().rsplit("\n\n", 1)[-1]
    intro = " ".join(intro.split())
    assert all(f"`{spec}`" in intro for spec in evaluate.DEFAULT_AGENTS), intro
    assert f"{evaluate.DEFAULT_GAMES} games per pairing" in intro, intro


@pytest.mark.parametrize(
    "block", PYTHON_BLOCKS, ids=[f"block{i}" for i in range(len(PYTHON_BLOCKS))]
)
def test_readme_python_examples_run(block: str) -> None:
    exec(compile(block, str(README), "exec"), {"__name__": "readme_example"})

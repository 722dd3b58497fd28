"""The rules core, the observation planes and the agents pass ``mypy --strict``.

The strict modules are listed in pyproject.toml; this runs mypy on exactly those.
"""

from __future__ import annotations

from pathlib import Path

from mypy import api as mypy_api

ROOT = Path(__file__).resolve().parent.parent


def test_strict_modules_type_check() -> None:
    stdout, stderr, status = mypy_api.run(
        [
            *("--config-file", str(ROOT / "pyproject.toml"), "--no-incremental"),
            *("-m", "trap_env.core", "-m", "trap_env.observation", "-p", "agents"),
        ]
    )
    assert status == 0, stdout + stderr

"""The whole library, ``trap_env`` and ``agents``, passes ``mypy --strict``.

pyproject.toml makes both packages strict; this runs mypy on them.
"""

from __future__ import annotations

from pathlib import Path

from mypy import api as mypy_api

ROOT = Path(__file__).resolve().parent.parent


def test_strict_modules_type_check() -> None:
    stdout, stderr, status = mypy_api.run(
        [
            *("--config-file", str(ROOT / "pyproject.toml"), "--no-incremental"),
            *("-p", "trap_env", "-p", "agents"),
        ]
    )
    assert status == 0, stdout + stderr

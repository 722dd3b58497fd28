"""Run a test module's ``play_digest()`` in a fresh interpreter, to check that a seed replays
the same game in any process (another hash seed included)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def digest_in_another_process(test_module: str, hash_seed: str) -> str:
    """``<test_module>.play_digest()`` computed by a new Python process."""
    script = f"from {test_module} import play_digest; print(play_digest())"
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        # the checkout on the path too, as pytest puts it there for the package ``tests``
        env={**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(REPO_ROOT)},
        cwd=str(REPO_ROOT),
    )
    return result.stdout.strip()

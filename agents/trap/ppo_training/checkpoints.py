"""The model files of a run folder: its checkpoints and the self-play pool's snapshots.

Part of :mod:`agents.trap.ppo_training`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from agents.rl.ppo import IncompatibleModelError, read_model_spec, read_parameters


def latest_checkpoint(run_dir: str | Path) -> Path | None:
    """The checkpoint with the most steps in ``run_dir/checkpoints``, if any."""
    checkpoints = checkpoints_newest_first(run_dir)
    return checkpoints[0] if checkpoints else None


def checkpoints_newest_first(run_dir: str | Path) -> list[Path]:
    """The checkpoints in ``run_dir/checkpoints``, the one with the most steps first."""
    checkpoints = (Path(run_dir) / "checkpoints").glob("ppo_*_steps.zip")
    return sorted(checkpoints, key=_step_of, reverse=True)


def _readable_snapshots(pool_dir: Path, count: int) -> list[str]:
    """The paths of the latest ``count`` snapshots in ``pool_dir`` that read whole, oldest
    first (read as the ``ppo`` agent reads them: metadata and weights, nothing unpickled)."""
    readable: list[str] = []
    for path in sorted(pool_dir.glob("snapshot_*.zip"), key=_step_of, reverse=True):
        if len(readable) == count:
            break
        try:
            read_model_spec(path)
            read_parameters(path)
        except IncompatibleModelError as error:
            print(f"trap-train: leaving out of the self-play pool a snapshot that cannot be "
                  f"read: {error}", file=sys.stderr, flush=True)
            continue
        readable.append(str(path))
    return readable[::-1]


def _step_of(path: str | Path) -> int:
    match = re.search(r"_(\d+)(?:_steps)?\.zip$", str(path))
    return int(match.group(1)) if match else -1

"""Files crafted by someone else, for the tests that loading them never runs code.

:class:`Payload` unpickled would create its marker file; a test puts it in a checkpoint or
a model zip, loads that, and checks that the marker does not exist. :func:`assert_one_line`
checks a CLI's error: one line, with its prefix and the given words, no traceback.
"""

from __future__ import annotations

import base64
import pickle
from pathlib import Path


class Payload:
    """Unpickled, it opens (creates) the marker file: what a crafted file could do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return open, (str(self.marker), "w")


def serialized_payload(marker: Path) -> dict[str, str]:
    """A stable-baselines3 ``data`` entry whose pickle is a :class:`Payload`."""
    encoded = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    return {":type:": "<class 'object'>", ":serialized:": encoded}


def assert_one_line(err: str, prefix: str, *words: str) -> None:
    """``err`` is one line starting with ``prefix``, holding ``words``, and no traceback."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(prefix), err
    assert "Traceback" not in err and all(word in err for word in words), err

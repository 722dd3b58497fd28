"""Program agents for the tests of agents.program: the examples, the opening, a Python
program written from a body (after a prelude that imports the Python example's ``decide``),
and whether a process is gone.
"""

from __future__ import annotations

import shlex
import sys
import textwrap
import time
from pathlib import Path

from trap_env.trap.core import GameConfig, initial_state

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
PYTHON_EXAMPLE = shlex.join([sys.executable, str(EXAMPLES / "python_agent.py")])
OPENING = initial_state(GameConfig(board_size=5))
PRELUDE = f"""\
import os, random, subprocess, sys, time
sys.path.insert(0, {str(EXAMPLES)!r})
from python_agent import decide
rng = random.Random(0)
"""

RECORDER = """
log = open("lines.txt", "w")
first = sys.stdin.readline()
log.write(first)
print({hello!r} if {hello!r} else decide(first, rng), flush=True)
while line := sys.stdin.readline():
    log.write(line); log.flush()
    if line.split()[0] not in ("trap-protocol", "game", "time"):
        print(decide(line, rng), flush=True)
"""
"""A program body that writes every line it receives to ``lines.txt``, answering ``{hello}``
first when it is not empty."""


def program(folder: Path, body: str, name: str = "program.py") -> str:
    """Write a Python program and return the command line that runs it.

    ``body`` follows a prelude that imports the Python example's ``decide(line, rng)``.
    """
    path = folder / name
    path.write_text(PRELUDE + textwrap.dedent(body), encoding="utf-8")
    return shlex.join([sys.executable, str(path)])


def is_gone(pid: int, within: float = 3.0) -> bool:
    """Whether process ``pid`` is gone (or a zombie) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                if stat.read().rpartition(")")[2].split()[0] == "Z":
                    return True
        except OSError:
            return True
        time.sleep(0.02)
    return False

"""Tests of agents.timing: the clock, the budgets, the collector and the thread limits."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from threadpoolctl import threadpool_info

from agents.timing import ClockedAgent


def blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


class ThreadReporter(ClockedAgent):
    """Answers, as its decision, the BLAS thread counts it saw while deciding."""

    def __init__(self) -> None:
        super().__init__("cpu")

    def _decide(self, state: Any) -> Any:
        return blas_threads()


def test_a_decision_runs_blas_on_one_thread_and_leaves_it_as_it_was():
    before = blas_threads()
    assert before, "NumPy's BLAS is loaded"
    assert ThreadReporter().select_action(None) == [1] * len(before)
    assert blas_threads() == before


def test_limit_threads_holds_the_loaded_libraries_and_the_later_ones_to_one_thread():
    script = (
        "import os, numpy\n"
        "from threadpoolctl import threadpool_info\n"
        "from agents.timing import THREAD_VARIABLES, limit_threads\n"
        "limit_threads()\n"
        "print(sorted({pool['num_threads'] for pool in threadpool_info()}),\n"
        "      sorted({os.environ[name] for name in THREAD_VARIABLES}))\n"
    )
    env = {"OPENBLAS_NUM_THREADS": "2", "PATH": ""}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.split() == ["[1]", "['1']"]

"""Agents that break the rules of a match, for the match-runner tests (built by dotted path).

Each one plays like the random agent until turn ``after`` (0: at once), then commits its
fault on its next decision. The tests put this folder on ``sys.path`` (pytest does so
for the test process; the subprocess tests set ``PYTHONPATH``) and name them as
``faulty_agents.SleepyAgent`` and so on.
"""

from __future__ import annotations

import os
import time

from agents.simple import RandomAgent
from trap_env.core import Cell, State


class _FaultyAgent(RandomAgent):
    def __init__(self, after: int = 0, seed: int | None = None) -> None:
        super().__init__(seed)
        self.after = after

    def select_action(self, state: State) -> Cell:
        if state.turn >= self.after:
            return self.fault(state)
        return super().select_action(state)

    def fault(self, state: State) -> Cell:
        raise NotImplementedError


class SleepyAgent(_FaultyAgent):
    """Blocks in a sleep (no CPU time) far past any budget."""

    def fault(self, state: State) -> Cell:
        time.sleep(60)
        return super().select_action(state)


class SpinningAgent(_FaultyAgent):
    """Burns CPU for ``seconds`` and then answers legally."""

    def __init__(self, seconds: float = 0.3, after: int = 0, seed: int | None = None) -> None:
        super().__init__(after, seed)
        self.seconds = seconds

    def fault(self, state: State) -> Cell:
        start = time.process_time()
        while time.process_time() - start < self.seconds:
            pass
        return RandomAgent.select_action(self, state)


class RaisingAgent(_FaultyAgent):
    """Raises an exception."""

    def fault(self, state: State) -> Cell:
        raise RuntimeError("this agent always fails")


class IllegalAgent(_FaultyAgent):
    """Answers with its own cell (never a legal move or throw)."""

    def fault(self, state: State) -> Cell:
        return state.cells[state.player]


class NoneAgent(_FaultyAgent):
    """Answers None."""

    def fault(self, state: State) -> Cell:
        return None  # type: ignore[return-value]


class CrashingAgent(_FaultyAgent):
    """Kills its own process."""

    def fault(self, state: State) -> Cell:
        os._exit(3)


class SlowRandomAgent(RandomAgent):
    """The random agent, sleeping ``delay`` seconds per decision (slow games, little CPU)."""

    def __init__(self, delay: float = 0.01, seed: int | None = None) -> None:
        super().__init__(seed)
        self.delay = delay

    def select_action(self, state: State) -> Cell:
        time.sleep(self.delay)
        return super().select_action(state)

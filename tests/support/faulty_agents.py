"""Agents that break the rules of a match, for the match-runner tests (built by dotted path).

Each ``_FaultyAgent`` plays like the random agent until turn ``after`` (0: at once), then
commits its fault on its next decision; the others fail in building or reset. The tests
put the checkout on ``sys.path`` (pytest does so for the test process; the subprocess tests
set ``PYTHONPATH``) and name them as ``tests.support.faulty_agents.SleepyAgent`` and so on.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from typing import ClassVar

from threadpoolctl import threadpool_info

from agents.trap.random_agent import RandomAgent
from trap_env.agent import UnsupportedGameError
from trap_env.trap.core import Cell, GameConfig, State


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


class MarkedSleepyAgent(SleepyAgent):
    """A :class:`SleepyAgent` that creates the file ``mark`` as it starts its sleep."""

    def __init__(self, mark: str = "", after: int = 0, seed: int | None = None) -> None:
        super().__init__(after, seed)
        self.mark = mark

    def fault(self, state: State) -> Cell:
        with open(self.mark, "w"):
            pass
        return super().fault(state)


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


class ExitingAgent(_FaultyAgent):
    """Calls ``sys.exit`` in a decision."""

    def fault(self, state: State) -> Cell:
        sys.exit(4)


class ExitingResetAgent(RandomAgent):
    """Calls ``sys.exit`` in ``reset``."""

    def reset(self, seed: int | None = None) -> None:
        sys.exit(5)


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


class KilledAgent(_FaultyAgent):
    """Dies by SIGKILL, as under the kernel's out-of-memory killer."""

    def fault(self, state: State) -> Cell:
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")


class RaisingResetAgent(RandomAgent):
    """Plays like random, but its reset raises."""

    def reset(self, seed: int | None = None) -> None:
        raise RuntimeError("this reset always fails")


class HangingResetAgent(RandomAgent):
    """Plays like random, but its reset blocks far past any limit."""

    def reset(self, seed: int | None = None) -> None:
        time.sleep(60)


class NoResetAgent:
    """Has select_action but no reset: not an agent."""

    def __init__(self, seed: int | None = None) -> None:
        self.inner = RandomAgent(seed)

    def select_action(self, state: State) -> Cell:
        return self.inner.select_action(state)


class RaisingConstructorAgent(RandomAgent):
    """Its constructor raises."""

    def __init__(self, seed: int | None = None) -> None:
        raise RuntimeError("cannot build this agent")


class ExitingConstructorAgent(RandomAgent):
    """Its constructor ends the process."""

    def __init__(self, seed: int | None = None) -> None:
        os._exit(7)


class SleepingConstructorAgent(RandomAgent):
    """Its constructor blocks far past any limit."""

    def __init__(self, seed: int | None = None) -> None:
        time.sleep(60)


class FiveOnlyAgent(RandomAgent):
    """Plays only 5x5 boards, and says so."""

    def check_game(self, config: GameConfig) -> None:
        if config.board_size != 5:
            raise UnsupportedGameError(
                f"plays 5x5 boards only, not {config.board_size}x{config.board_size}"
            )


class NotFourAgent(RandomAgent):
    """Plays every board but 4x4, and says so."""

    def check_game(self, config: GameConfig) -> None:
        if config.board_size == 4:
            raise UnsupportedGameError("plays any board but 4x4")


class ClosingAgent(RandomAgent):
    """A random agent that records its ``close()`` (as a program agent ends its process)."""

    closed: ClassVar[list[ClosingAgent]] = []

    def select_action(self, state: State) -> int:
        """The random agent's choice (restated, so that the batched env asks it game by
        game rather than taking the random agent's batched twin)."""
        return super().select_action(state)

    def close(self) -> None:
        ClosingAgent.closed.append(self)


class ThreadCountingAgent(RandomAgent):
    """Plays like the random agent, but raises when its process's BLAS may run more than
    one thread (a worker's CPU budget counts every thread)."""

    def select_action(self, state: State) -> Cell:
        threads = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
        if any(count != 1 for count in threads):
            raise RuntimeError(f"BLAS runs {threads} threads in this worker")
        return super().select_action(state)


class ModelFileAgent(RandomAgent):
    """Plays like random with the "model" file ``path`` (a file the spec names, as
    ``ppo:path=ZIP`` does); with ``edit_after``, it rewrites that file as it is reset for
    its game number ``edit_after + 1`` (counted in ``path + ".games"``), replacing its own
    model in the middle of a run."""

    def __init__(self, path: str, edit_after: int = -1, seed: int | None = None) -> None:
        super().__init__(seed)
        self.path = path
        self.edit_after = edit_after
        with open(path, "rb"):  # a model that is not there cannot be loaded
            pass

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        with open(self.path + ".games", "a+") as games:
            games.write("game\n")
            games.seek(0)
            if len(games.readlines()) == self.edit_after + 1:
                with open(self.path, "a") as model:
                    model.write("another model\n")

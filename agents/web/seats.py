"""The seats of a game on the page: an agent in a worker process, or a person at the page.

Both are agents (``select_action(state)``, ``reset(seed)``), so that a game on the page is
:func:`agents.arena.match.play_game`, as every other game. :class:`WorkerSeat` keeps its
agent in a process of its own, under the run's rules on time as the match runner applies
them: the CPU seconds of a turn are measured in the worker against the budget, and a
decision that takes longer than the wall-clock ceiling gets the worker killed (unless the
machine, not the agent, stalled it: then it waits longer). Its faults are raised with a
``reason`` of :data:`~agents.arena.match.FAULTS`, which ``play_game`` records as that
seat's loss. Closing the seat ends the worker through its agent's ``close``, so that a
program agent's whole process group ends with it. :class:`PersonSeat` waits for the
person's choice.
"""

from __future__ import annotations

import math
import multiprocessing
import queue
import signal
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from types import FrameType
from typing import Any

from agents.arena.match import FAULTS, interface_problem
from agents.arena.plan import RunConfig, program_limits
from agents.arena.processes import describe_exit, is_machine_stall, read_schedstat
from agents.registry import make_agent
from agents.timing import limit_threads
from trap_env.agent import SpecError, UnsupportedGameError, check_supports, close_agent
from trap_env.games import get_game

__all__ = ["CLOSE_SECONDS", "MAX_STALL_WAITS", "PersonSeat", "Resigned", "SeatFault", "WorkerSeat"]

MAX_STALL_WAITS = 3
"""How many more ceilings a decision may wait while the machine, not the agent, stalls it
(where the match runner replays such a game, a live game waits)."""
CLOSE_SECONDS = 5.0
"""How long a worker told to stop may take to close its agent before it is killed."""


class SeatFault(Exception):
    """A seat's fault: ``reason`` is one of :data:`~agents.arena.match.FAULTS`."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason if reason in FAULTS else "exception"


class Resigned(Exception):
    """The person left the game (closed it, or started another)."""


class WorkerSeat:
    """An agent of ``spec`` playing from a worker process.

    Args:
        spec: the agent's spec.
        seed: the agent's seed (as the runner derives it for the seat).
        config: the game, its rules and the limits on time.

    Raises:
        SpecError: from the constructor, when the worker cannot build the agent (an unknown
            spec, options it refuses, a game it does not play), with the builder's message.
    """

    def __init__(self, spec: str, seed: int, config: RunConfig) -> None:
        self.spec, self.config = spec, config
        self.game = get_game(config.game_name)
        context = multiprocessing.get_context(config.start_method)
        self.conn, child_end = context.Pipe()
        self.process = context.Process(  # type: ignore[attr-defined]
            target=_worker_main, args=(child_end, spec, seed, config), daemon=True
        )
        self.process.start()
        child_end.close()
        self._closing, self._closed = threading.Lock(), False
        self._turn, self._spent = -1, 0.0
        kind, payload = self._ask(None, config.setup_seconds, f"building agent {spec!r}")
        if kind == "refused":
            self.close()
            raise SpecError(payload)

    def reset(self, seed: int | None = None) -> None:
        """Reset the agent in its worker."""
        self._turn, self._spent = -1, 0.0
        self._ask(("reset", seed), self.config.setup_seconds, f"reset of {self.spec!r}")

    def select_action(self, state: Any) -> int:
        """The agent's decision, timed in its worker.

        Raises:
            SeatFault: for a turn over its CPU budget or its wall-clock ceiling, a worker
                that died, or an exception of the agent.
        """
        turn = self.game.turn(state)
        if turn != self._turn:  # the decisions of one turn share its budget
            self._turn, self._spent = turn, 0.0
        _, (action, seconds) = self._ask(("decide", state), self.config.ceiling, f"turn {turn}")
        self._spent += seconds
        budget = self.config.time_budget
        if budget is not None and self._spent > budget:
            raise SeatFault(
                "timeout", f"turn {turn} took {self._spent:.3f} s of CPU, budget {budget} s"
            )
        return action  # type: ignore[no-any-return]

    def close(self) -> None:
        """End the worker: ``SIGTERM``, on which it closes its agent (a program agent kills
        its process group) and exits, even in the middle of a decision; killed if it has
        not after :data:`CLOSE_SECONDS`. Once only, whichever thread calls it first."""
        with self._closing:
            if self._closed:
                return
            self._closed = True
            if self.process.is_alive():
                self.process.terminate()
                self.process.join(CLOSE_SECONDS)
            if self.process.is_alive():  # stuck where no signal handler runs
                self.process.kill()
            self.process.join()
            self.conn.close()

    def _ask(self, message: Any, limit: float | None, what: str) -> tuple[str, Any]:
        """Send ``message`` (None: only wait) and wait at most ``limit`` seconds for the answer."""
        try:
            if message is not None:
                self.conn.send(message)
            self._wait(limit, what)
            kind, payload = self.conn.recv()
        except (EOFError, OSError):
            self.process.join(timeout=5)  # the pipe can close a moment before the exit
            how = describe_exit(self.process.exitcode)
            raise SeatFault("crash", f"the worker process died ({what}): {how}") from None
        if kind == "raised":
            reason, detail = payload
            raise SeatFault(reason, detail)
        return kind, payload

    def _wait(self, limit: float | None, what: str) -> None:
        """Wait for the worker's answer; past ``limit`` seconds, kill it and raise a timeout,
        unless the machine stalled it (:func:`~agents.arena.processes.is_machine_stall`),
        which earns it another ``limit``, :data:`MAX_STALL_WAITS` times at most."""
        started = time.monotonic()
        budget = self.config.time_budget
        allowance = math.inf if budget is None else budget
        for _ in range(MAX_STALL_WAITS + 1):
            before = read_schedstat(self.process.pid)
            if self.conn.poll(limit):
                return
            assert limit is not None  # poll(None) waits until there is an answer
            if not is_machine_stall(limit, allowance, before, read_schedstat(self.process.pid)):
                break
        self.close()
        took = time.monotonic() - started
        raise SeatFault("timeout", f"{what}: no answer after {took:.1f} s wall-clock")


def _worker_main(conn: Connection, spec: str, seed: int, config: RunConfig) -> None:
    """A seat's worker: build the agent, then answer resets and decisions until None or
    ``SIGTERM``, and close the agent."""
    signal.signal(signal.SIGTERM, _exit_on_signal)
    limit_threads()
    try:
        agent = make_agent(spec, game=config.game_name, seed=seed, **program_limits(spec, config))
        problem = interface_problem(agent)
        if problem is not None:
            raise SpecError(problem)
        check_supports(agent, config.game)
    except (SpecError, UnsupportedGameError) as error:
        conn.send(("refused", f"{spec}: {error}"))
        return
    except Exception as error:  # building runs the agent's code: anything can go wrong
        conn.send(("refused", f"building agent {spec!r} raised {type(error).__name__}: {error}"))
        return
    conn.send(("ready", None))
    try:
        while (message := conn.recv()) is not None:
            conn.send(_answer(agent, *message))
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        pass  # the server is gone: nothing left to answer
    finally:
        close_agent(agent)


def _exit_on_signal(number: int, frame: FrameType | None) -> None:
    """Unwind the worker, its ``finally`` (the agent's close) run, whatever it was doing."""
    raise SystemExit(128 + number)


def _answer(agent: Any, kind: str, payload: Any) -> tuple[str, Any]:
    """The answer to a reset or a decision, with the decision's CPU seconds."""
    try:
        if kind == "reset":
            agent.reset(seed=payload)
            return ("done", None)
        start = time.process_time()
        action = agent.select_action(payload)
        return ("done", (action, time.process_time() - start))
    except Exception as error:
        reason = getattr(error, "reason", "exception")
        return ("raised", (reason, f"{type(error).__name__}: {error}"))


class PersonSeat:
    """A person at the page: :meth:`select_action` waits for :meth:`choose`.

    The page's request is checked before it gets here (:meth:`choose` is given a legal
    action), so a person never loses by a misclick.

    Args:
        on_ask: called with the state before waiting (the page shows what is asked).
    """

    def __init__(self, on_ask: Callable[[Any], None] | None = None) -> None:
        self.on_ask = on_ask
        self.choices: queue.Queue[int | None] = queue.Queue()

    def reset(self, seed: int | None = None) -> None:
        """Nothing to forget."""

    def select_action(self, state: Any) -> int:
        """The person's next choice.

        Raises:
            Resigned: when the game is closed while it waits.
        """
        if self.on_ask is not None:
            self.on_ask(state)
        action = self.choices.get()
        if action is None:
            raise Resigned("the person left the game")
        return action

    def choose(self, action: int | None) -> None:
        """Hand over the person's choice; None resigns."""
        self.choices.put(action)

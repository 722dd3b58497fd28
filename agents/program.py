"""Agents in any language: a program that reads states and answers actions on its standard streams.

The spec ``"exec:COMMAND"`` runs ``COMMAND`` (split as a POSIX shell splits it, with
:func:`shlex.split`) as an agent of any game on the stack. For each decision the program
reads one line, the state in its game's one-line notation (``game.to_text``; Trap!'s is
:func:`trap_env.trap.core.to_text`), and answers one line, the action as an integer (in Trap!,
a cell). That is the whole protocol for a minimal program; a program that answers its
first line with the hello ``trap-protocol 1`` (Trap! only) or ``trap-protocol 2`` (any
game, named in each new game's line; answers may also be the game's action text) receives
a greeting, a line per new game (seed and rules) and the CPU time left before each state.
``docs/PROTOCOL.md`` is the full description.

Limits, each enforced on the program and its process group:

- **CPU time.** The CPU time the program spends from its previous answer to the end of a
  turn (the move and the throw together) must stay within ``time_limit`` seconds. It is
  the program's own CPU time as the operating system counts it (``/proc/PID/stat``: user
  and system time of all its threads, and of children it has waited for), polled while
  the agent waits. Work done while the opponent plays counts towards the next turn, and a
  fresh program's startup towards its first answer (a hello restarts the turn's clocks).
- **Silence.** A turn that takes more than ``wall_limit`` seconds of wall-clock time
  (``2 * time_limit + 0.5`` by default) is a timeout too: a program blocked on a read or
  a sleep uses no CPU.
- **Memory.** The program's address space is capped at ``memory_limit`` bytes
  (``RLIMIT_AS``, 1 GiB by default); an allocation past it fails inside the program.
- **Lifetime.** The program runs in a new session (its own process group). The group is
  killed (``SIGKILL``) when the agent is closed, garbage collected, faults, or when this
  Python process exits; if this process is killed outright, the kernel kills the program
  itself (``PR_SET_PDEATHSIG``), and its own children get end-of-file on their pipes.
  (The kernel ties that signal to the thread that started the program: make decisions
  from a thread that lives as long as the agent, such as the main thread.)

One process serves many games: ``reset`` starts a new game without restarting it. A
program that crashes, answers something that is not an integer, stays silent or goes over
a limit makes ``select_action`` raise a :class:`ProgramError` whose message says what
happened (with the end of the program's standard error); the match runner records it as
that seat's fault, and the next decision starts a fresh process.

Copies: :func:`copy.deepcopy` and :mod:`pickle` copy the command and the limits, never the
running process. A copy starts its own fresh process at its first decision, so an env
with a program opponent can be copied or sent to a worker (the copy's program sees a new
game and the full state; it has none of the original's memory).

Linux only: the CPU time is read from ``/proc``.
"""

from __future__ import annotations

import contextlib
import random
import re
import shlex
import shutil
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.options import require_game
from agents.program_process import (
    MAX_MEMORY_LIMIT,
    Budget,
    ChildProcess,
    ProgramCrashed,
    ProgramError,
    ProgramTimeout,
    ProtocolError,
)
from trap_env.agent import UnsupportedGameError
from trap_env.checks import is_integral
from trap_env.game import Game
from trap_env.games import get_game

__all__ = [
    "DEFAULT_MEMORY_LIMIT",
    "DEFAULT_TIME_LIMIT",
    "MAX_MEMORY_LIMIT",
    "PROTOCOL",
    "PROTOCOL_1_GAME",
    "PROTOCOL_VERSIONS",
    "ProgramAgent",
    "ProgramCrashed",
    "ProgramError",
    "ProgramTimeout",
    "ProtocolError",
]

PROTOCOL = "trap-protocol"
"""The protocol's name: a program's hello is ``trap-protocol VERSION``, and so is the greeting."""
PROTOCOL_VERSIONS = (1, 2)
"""The versions this runner speaks: 1 plays Trap! only; 2 names the game and takes action text."""
DEFAULT_TIME_LIMIT = 5.0
"""CPU seconds per turn, as the match runner's default budget."""
DEFAULT_MEMORY_LIMIT = 1 << 30
"""Bytes of address space (1 GiB)."""
PROTOCOL_1_GAME = "trap"
"""The one game that version 1 of the protocol plays (Trap!, the suite's first)."""

_ACTION = re.compile(r"-?[0-9]+")
_WORDS = {"board_size": "size"}
"""Rule parameters under a shorter name in the ``game`` line."""
_SIZES = re.compile(r"[0-9]+(,[0-9]+)*")
_GAMES = re.compile(r"[a-z][a-z0-9_]*(,[a-z][a-z0-9_]*)*")
_VERSIONS = [f"{PROTOCOL} {version}" for version in PROTOCOL_VERSIONS]
_HELLOS = " or ".join(repr(version) for version in _VERSIONS)
_MEMORY_WORDS = ("MemoryError", "bad_alloc", "Cannot allocate memory", "out of memory")


# --- The agent --------------------------------------------------------------------------


_NO_PROCESS: dict[str, Any] = {
    "_process": None,
    "_version": None,
    "_new_game": True,
    "_turn": None,
    "_last_answer_cpu": 0.0,
}
"""A program agent's fields as they are before its program starts (after a close, in a copy)."""


class ProgramAgent:
    """An agent played by a program in any language, speaking ``trap-protocol``.

    Args:
        command: the command line, as one string (split with :func:`shlex.split`) or as
            an argument list.
        time_limit: CPU seconds per turn (every decision of the turn together), counted
            from the program's previous answer; None for no limit.
        memory_limit: bytes of address space for the program; None for no limit.
        wall_limit: wall-clock seconds per turn; None for ``2 * time_limit + 0.5``
            (and no limit when there is no time limit).
        seed: seeds the games' seeds told to programs that take the extras, when
            ``reset`` is given none.
        game: the game the program plays (:func:`trap_env.games.get_game`'s names);
            ``make_agent(spec, game=...)`` passes its own.

    Raises:
        ValueError: for an empty command, a program that cannot be found, a limit that
            is not positive (or a memory limit past :data:`MAX_MEMORY_LIMIT`), or an
            unknown game.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        time_limit: float | None = DEFAULT_TIME_LIMIT,
        memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
        wall_limit: float | None = None,
        seed: int | None = None,
        game: str | None = None,
    ) -> None:
        game = require_game(game, "ProgramAgent()")
        self.argv = _split_command(command)
        self.command = shlex.join(self.argv)
        for name, value in (
            ("time_limit", time_limit),
            ("memory_limit", memory_limit),
            ("wall_limit", wall_limit),
        ):
            _check_positive(name, value)
        if memory_limit is not None and not (
            is_integral(memory_limit) and memory_limit <= MAX_MEMORY_LIMIT
        ):
            raise ValueError(
                f"memory_limit must be a whole number of bytes up to {MAX_MEMORY_LIMIT} "
                f"(what RLIMIT_AS holds) or None, got {memory_limit!r}"
            )
        self.time_limit = time_limit
        self.memory_limit = None if memory_limit is None else int(memory_limit)
        self.wall_limit = wall_limit
        self.game: Game[Any, Any] = get_game(game)
        self.rng = random.Random(seed)
        self.sizes: tuple[int, ...] | None = None
        """The board sizes the program's hello declared; None: any (or not known yet)."""
        self.games: tuple[str, ...] | None = None
        """The games the program's hello declared; None: any (or not known yet)."""
        self._game_seed: int | None = None
        self._process: ChildProcess | None = None
        self._version: int | None = None
        """The protocol version the program speaks (0: minimal); None until its first answer."""
        self._new_game = True
        self._turn: tuple[int, int] | None = None
        """The (turn, player) whose clocks run."""
        self._turn_cpu_start = self._turn_wall_start = self._last_answer_cpu = 0.0

    def __repr__(self) -> str:
        return f"ProgramAgent({self.command!r})"

    @staticmethod
    def loaded_files(command: str | Sequence[str], **_: Any) -> list[Path]:
        """The files the command loads, as far as it says: each of its arguments that names
        an existing file (the program, its script, its data; see :mod:`agents.spec_files`).

        Raises:
            ValueError: for a command that cannot be split or run.
        """
        return [Path(argument) for argument in _split_command(command) if Path(argument).is_file()]

    # -- The Agent interface

    def reset(self, seed: int | None = None) -> None:
        """Start a new game (the running program is kept); ``seed`` is told to extended programs."""
        self._game_seed = seed if seed is not None else self.rng.randrange(2**63)
        self._new_game = True
        self._turn = None

    def select_action(self, state: Any) -> int:
        """Send the state to the program and return the action it answers.

        Raises:
            ValueError: for a state that waits for no decision (chance, or a finished game).
            ProgramError: if the program crashes, answers garbage or goes over a limit; the
                program is then killed, and the next decision starts a fresh one.
        """
        game = self.game
        if game.is_chance(state) or game.outcome(state) is not None:
            raise ValueError(
                f"a program decides only in a game in play, not at "
                f"{game.decision_name(state)!r} of a game with outcome {game.outcome(state)}"
            )
        when = f"turn {game.turn(state)}, {game.decision_name(state)}"
        with self._faults_kill(when):
            budget = self._turn_budget(state)
            if self._version is None:
                answer = self._first_answer(game.to_text(state), budget)
                if not answer.startswith(PROTOCOL):
                    self._version = 0
                    return self._parse_action(state, answer, first=True)
                self._accept_hello(answer)
                self._check_declared(game.config_of(state))
                budget = self._turn_budget(state, fresh=True)
            process = self._running()
            process.send(self._lines_for(state, budget), budget)
            answer = process.read_line(budget)
            self._last_answer_cpu = process.last_cpu
            return self._parse_action(state, answer)

    def check_game(self, config: Any) -> None:
        """Refuse a game or board size the program's hello did not list (any, if it listed none).

        Starts the program and shows it the opening state of ``config``: a program that
        takes the extras answers with its hello (its version, games and sizes); the action
        a minimal program answers is discarded. A program that fails this check (crashes,
        answers garbage, runs over) is killed and taken to play any game: its fault recurs,
        and is recorded, in its first game.

        Raises:
            UnsupportedGameError: for a game or board size the program did not declare.
        """
        if self._version is None:
            with contextlib.suppress(ProgramError), self._faults_kill("checking the game"):
                budget = Budget(0.0, self.time_limit, time.monotonic(), self._wall_limit())
                opening = self.game.to_text(_first_decision(self.game, config))
                answer = self._first_answer(opening, budget)
                if answer.startswith(PROTOCOL):
                    self._accept_hello(answer)
                else:
                    self._version = 0
        self._check_declared(config)

    def close(self) -> None:
        """Kill the program's process group (a later decision starts a fresh program)."""
        if self._process is not None:
            self._process.kill()
        self.__dict__.update(_NO_PROCESS)

    def __enter__(self) -> ProgramAgent:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- Copies carry the command and the limits, never the process

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, **_NO_PROCESS}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    # -- Helpers

    def _running(self) -> ChildProcess:
        if self._process is None:
            try:
                self._process = ChildProcess(self.argv, self.memory_limit)
            except (OSError, subprocess.SubprocessError) as error:
                raise ProgramCrashed(f"cannot start: {error}") from None
        return self._process

    @contextlib.contextmanager
    def _faults_kill(self, when: str) -> Any:
        """Kill the program on any fault, and name the program and the moment in the message."""
        try:
            yield
        except ProgramError as error:
            memory = self._memory_note(error, at_start=self._version is None)
            self.close()
            raise type(error)(f"program {self.command!r} {error}{memory} ({when})") from None

    def _memory_note(self, error: ProgramError, at_start: bool) -> str:
        """Why the memory limit may be the cause of ``error``, or nothing."""
        if self.memory_limit is None:
            return ""
        limit = _format_bytes(self.memory_limit)
        if any(word in str(error) for word in _MEMORY_WORDS):
            return f"; it ran out of memory (limit {limit})"
        if at_start and isinstance(error, ProgramCrashed):
            return (
                f"; it ended before its first answer, and its memory limit ({limit}) may be "
                "why: a runtime that reserves much address space at start needs a larger "
                "limit (--memory-limit)"
            )
        return ""

    def _turn_budget(self, state: Any, fresh: bool = False) -> Budget:
        """The budget of the turn that ``state`` belongs to; a new turn starts its clocks."""
        key = (self.game.turn(state), self.game.current_player(state))
        if fresh or key != self._turn:
            self._turn = key
            self._turn_cpu_start = self._last_answer_cpu
            self._turn_wall_start = time.monotonic()
        return Budget(
            self._turn_cpu_start, self.time_limit, self._turn_wall_start, self._wall_limit()
        )

    def _wall_limit(self) -> float | None:
        if self.wall_limit is None and self.time_limit is not None:
            return 2 * self.time_limit + 0.5
        return self.wall_limit

    def _first_answer(self, state_text: str, budget: Budget) -> str:
        """Start a fresh program, send it one state and read its first line.

        The program's startup counts towards ``budget``, the first turn's (or the check's).
        """
        process = self._running()
        process.send([state_text], budget)
        answer = process.read_line(budget)
        self._last_answer_cpu = process.last_cpu
        return answer

    def _accept_hello(self, hello: str) -> None:
        """Read the program's hello (version, games, sizes) and greet it back."""
        self._version, self.games, self.sizes = _parse_hello(hello)
        budget = Budget(0.0, None, time.monotonic(), self._wall_limit())
        self._running().send([f"{PROTOCOL} {self._version}"], budget)

    def _check_declared(self, config: Any) -> None:
        """Refuse a game or a board size outside what the program's hello declared."""
        name = self.game.name
        if self._version == 1 and name != PROTOCOL_1_GAME:
            raise UnsupportedGameError(
                f"program {self.command!r} speaks {PROTOCOL} 1, which plays Trap! only; a "
                f"program that plays {name!r} says '{PROTOCOL} 2 games={name}'"
            )
        if self.games is not None and name not in self.games:
            raise UnsupportedGameError(
                f"program {self.command!r} plays the games {list(self.games)} "
                f"(its hello said so), not {name!r}"
            )
        size = self.game.config_params(config).get("board_size")
        if self.sizes is not None and size not in self.sizes:
            raise UnsupportedGameError(
                f"program {self.command!r} plays board sizes {list(self.sizes)} "
                f"(its hello said so), not {size}"
            )

    def _lines_for(self, state: Any, budget: Budget) -> list[str]:
        """The state line, preceded for an extended program by the game and time lines."""
        lines = []
        if self._version:
            if self._new_game:
                lines.append(self._game_line(state))
            left = budget.cpu_left(self._running().cpu_seconds())
            lines.append("time none" if left is None else f"time {left:.3f}")
        self._new_game = False
        lines.append(self.game.to_text(state))
        return lines

    def _game_line(self, state: Any) -> str:
        """``game [name=NAME] seed=S key=value...``, the rule parameters in the game's order
        (``board_size`` written ``size``); version 1 (Trap! only) names no game."""
        params = dict(self.game.config_params(self.game.config_of(state)))
        seed = "none" if self._game_seed is None else str(self._game_seed)
        words = [] if self._version == 1 else [f"name={self.game.name}"]
        words.append(f"seed={seed}")
        words += [f"{_WORDS.get(key, key)}={value}" for key, value in params.items()]
        return " ".join(["game", *words])

    def _parse_action(self, state: Any, answer: str, first: bool = False) -> int:
        """An integer action; in version 2 also the game's action text (``"pass"``).

        ``first``: the program's first answer, which may also have been a hello.
        """
        if _ACTION.fullmatch(answer):
            return int(answer)
        if self._version == 2:
            try:
                return self.game.action_from_text(state, answer.strip())
            except ValueError as error:
                raise ProtocolError(f"answered {answer[:80]!r}: {error}") from None
        hello = f", or as its first line a hello ({_HELLOS})" if first else ""
        raise ProtocolError(
            f"answered {answer[:80]!r} where the protocol wants an action: one integer "
            f"(in Trap!, the cell row * N + col) on its own line{hello}"
        )


def _parse_hello(hello: str) -> tuple[int, tuple[str, ...] | None, tuple[int, ...] | None]:
    """A hello's version, games (version 2) and board sizes; None where it declares none.

    Raises:
        ProtocolError: naming what the hello may say.
    """
    words = hello.split()
    if " ".join(words[:2]) not in _VERSIONS:
        raise ProtocolError(
            f"said the malformed hello {hello[:80]!r}: a hello is {_HELLOS} (the versions "
            "this runner speaks), optionally followed by 'sizes=N,N,...' (and in version 2 "
            "'games=NAME,...')"
        )
    version = int(words[1])
    keys = {"sizes": _SIZES, "games": _GAMES} if version == 2 else {"sizes": _SIZES}
    declared: dict[str, str] = {}
    for word in words[2:]:
        key, _, value = word.partition("=")
        if key not in keys or key in declared or not keys[key].fullmatch(value):
            allowed = " and ".join(f"'{key}=...'" for key in keys)
            raise ProtocolError(
                f"said {word!r} in its hello, which is malformed; allowed after "
                f"'{PROTOCOL} {version}': {allowed} "
                "('sizes=N,N,...', the board sizes it plays"
                + ("; 'games=NAME,...', the games it plays)" if version == 2 else ")")
            )
        declared[key] = value
    games = tuple(declared["games"].split(",")) if "games" in declared else None
    sizes = (
        tuple(int(size) for size in declared["sizes"].split(",")) if "sizes" in declared else None
    )
    return version, games, sizes


def _split_command(command: str | Sequence[str]) -> list[str]:
    try:
        argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    except ValueError as error:
        raise ValueError(f"cannot split the command line {command!r}: {error}") from None
    if not argv:
        raise ValueError("a program agent needs a command, e.g. 'exec:./my_agent --fast'")
    if shutil.which(argv[0]) is None:
        raise ValueError(
            f"cannot run {argv[0]!r}: no such executable file (give a path such as "
            f"'./my_agent', or a program on PATH)"
        )
    return argv


def _check_positive(name: str, value: float | None) -> None:
    if value is not None and (isinstance(value, bool) or not value > 0):
        raise ValueError(f"{name} must be a positive number or None, got {value!r}")


def _format_bytes(size: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:g} {unit}"
    return f"{size} bytes"


def _first_decision(game: Game[Any, Any], config: Any) -> Any:
    """The opening state shown to a program: the initial state, past any chance node
    (Colosseum's start) by its first outcome."""
    state = game.initial_state(config)
    while game.is_chance(state):
        state = game.apply(state, game.chance_outcomes(state)[0][0])
    return state

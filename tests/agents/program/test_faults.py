"""A program agent's faults (agents.program): each one a clear error and a killed program,
recorded as its seat's loss; line lengths, standard error, any answer fuzzed, a fresh program
after a fault.
"""

from __future__ import annotations

import hashlib
import re
import shlex
import sys
import time
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agents import make_agent
from agents.arena.match import play_game
from agents.program import ProgramAgent, ProgramCrashed, ProgramError, ProgramTimeout, ProtocolError
from tests.support.programs import OPENING, is_gone, program
from trap_env.agent import UnsupportedGameError, check_supports
from trap_env.trap.core import GameConfig, apply, initial_state, legal_actions

# --- Faults -----------------------------------------------------------------------------

FAULTS = {
    "crash": (
        "sys.stdin.readline(); print('boom', file=sys.stderr); sys.exit(3)",
        ProgramCrashed,
        ["exited with code 3", "boom"],
    ),
    "killed_by_signal": (
        "sys.stdin.readline(); os.kill(os.getpid(), 11)",
        ProgramCrashed,
        ["killed by signal SIGSEGV"],
    ),
    "exits_at_once": ("", ProgramCrashed, ["closed its"]),
    "garbage": ("sys.stdin.readline(); print('e2e4')", ProtocolError, ["'e2e4'", "one integer"]),
    "endless_line": (
        "sys.stdin.readline(); sys.stdout.write('7' * 10000); sys.stdout.flush(); time.sleep(60)",
        ProtocolError,
        ["without a newline"],
    ),
    "long_line": (
        "sys.stdin.readline(); print(' ' * 9999, flush=True); time.sleep(60)",
        ProtocolError,
        ["a line may take at most 4096 bytes with its newline"],
    ),
    "huge_number": (
        "sys.stdin.readline(); print('7' * 5000, flush=True); time.sleep(60)",
        ProtocolError,
        ["a line may take at most 4096 bytes with its newline"],
    ),
    "silent": ("sys.stdin.readline(); time.sleep(60)", ProgramTimeout, ["wall-clock"]),
    "busy": ("sys.stdin.readline()\nwhile True: pass", ProgramTimeout, ["of CPU time, limit 0.3"]),
    "over_memory": (
        "sys.stdin.readline(); hog = bytearray(512 << 20); print(0)",
        ProgramCrashed,
        ["MemoryError", "ran out of memory (limit 128 MiB)"],
    ),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_fault_raises_a_clear_error_and_kills_the_program(tmp_path, fault):
    body, error_class, words = FAULTS[fault]
    wall_limit = 1.0 if fault == "silent" else 30.0  # on a loaded machine CPU time lags
    agent = ProgramAgent(
        program(tmp_path, body),
        time_limit=0.3,
        memory_limit=128 << 20,
        wall_limit=wall_limit,
        game="trap",
    )
    started = time.monotonic()
    with pytest.raises(error_class) as raised:
        agent.select_action(OPENING)
    assert time.monotonic() - started < 20
    message = str(raised.value)
    assert "program.py" in message and "turn 0, move" in message
    for word in words:
        assert word in message
    assert agent._process is None


@pytest.mark.parametrize("fault", ["crash", "garbage", "busy", "huge_number"])
def test_a_fault_is_recorded_as_that_seats_loss_with_the_reason(tmp_path, fault):
    body, error_class, words = FAULTS[fault]
    # A wall limit far past the CPU limit: a busy program meets its CPU limit first even on
    # a machine so loaded that it gets a fraction of a core.
    with ProgramAgent(
        program(tmp_path, body), time_limit=0.3, wall_limit=10.0, game="trap"
    ) as agent:
        players = [make_agent("random", game="trap"), agent]
        result = play_game(players, seed=0, game="trap", board_size=5)
    assert result.winner == 0 and result.reason == error_class.reason
    assert error_class.__name__ in result.detail
    assert all(word in result.detail for word in words)


@pytest.mark.parametrize(("padding", "fits"), [(4093, True), (4094, False)])
def test_a_line_may_take_4096_bytes_with_its_newline(tmp_path, padding, fits):
    answer = " " * padding + "10"
    command = program(tmp_path, f"sys.stdin.readline(); print({answer!r}, flush=True)")
    with ProgramAgent(command, game="trap") as agent:
        if fits:
            assert agent.select_action(OPENING) == 10
        else:
            with pytest.raises(ProtocolError, match="at most 4096 bytes with its newline"):
                agent.select_action(OPENING)


def test_only_the_end_of_a_programs_standard_error_is_kept(tmp_path):
    command = program(
        tmp_path,
        """
        sys.stdin.readline()
        for _ in range(200):
            sys.stderr.write("x" * 100_000)
        sys.stderr.write(" the end"); sys.stderr.flush()
        print(7, flush=True)
        sys.stdin.readline()
        sys.exit(3)
        """,
    )
    with ProgramAgent(command, time_limit=30.0, game="trap") as agent:
        assert agent.select_action(OPENING) == 7
        assert len(agent._process.stderr_tail) <= 600
        with pytest.raises(ProgramCrashed, match="xxx the end'"):
            agent.select_action(apply(OPENING, 7))


ECHO = """
hello, answer = sys.argv[1].encode(), open(sys.argv[2], "rb").read()
sys.stdin.readline()
if hello:
    sys.stdout.buffer.write(hello + b"\\n"); sys.stdout.flush()
    while not sys.stdin.readline().startswith(("...", ".", "x", "0", "1")):
        pass
sys.stdout.buffer.write(answer + b"\\n"); sys.stdout.flush()
time.sleep(60)
"""
"""Says the hello it is given (if any), then answers the state with the bytes of a file."""

ANSWERS = st.one_of(
    st.binary(max_size=60),
    st.text(max_size=30).map(str.encode),
    st.from_regex(r"\A *-?[0-9]{1,6}( *, *[0-9]{1,6})? *\Z").map(str.encode),
    st.integers(0, 6000).map(lambda digits: b"7" * digits),
)


HELLOS = st.one_of(
    st.sampled_from(["", "trap-protocol 1", "trap-protocol 2"]),
    st.from_regex(r"\Atrap-protocol [0-3]( (sizes|games)=[a-z0-9,]{0,6}){0,3}\Z"),
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=20).map(
        "trap-protocol {}".format
    ),
)
"""Hellos: none, the right ones, and ones that start right and go wrong."""


@pytest.fixture(scope="module")
def echo_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("echo")
    return Path(shlex.split(program(folder, ECHO))[1])


@settings(max_examples=30, deadline=None)
@given(answer=ANSWERS, hello=HELLOS)
@example(answer=b"7" * 5000, hello="")  # int() raised ValueError: an 'exception'
def test_any_answer_is_an_action_or_a_fault_with_the_runners_reason(echo_program, answer, hello):
    answer_file = echo_program.parent / hashlib.sha256(answer).hexdigest()
    answer_file.write_bytes(answer)
    command = [sys.executable, str(echo_program), hello, str(answer_file)]
    with ProgramAgent(command, time_limit=5.0, game="trap") as agent:
        try:
            action = agent.select_action(OPENING)
        except ProgramError as error:
            assert error.reason in ("crash", "illegal", "timeout"), error
            assert len(str(error)) < 2000
        except UnsupportedGameError as error:  # a hello that declared other sizes or games
            assert "(its hello said so)" in str(error) or "Trap! only" in str(error), error
        else:
            assert isinstance(action, int)


def test_output_when_no_answer_is_due_is_refused(tmp_path):
    command = program(
        tmp_path,
        """
        while line := sys.stdin.readline():
            print(decide(line, rng), flush=True)
            print("thinking...", flush=True)
        """,
    )
    with ProgramAgent(command, game="trap") as agent:
        move = agent.select_action(OPENING)
        time.sleep(0.2)
        with pytest.raises(
            ProtocolError, match=re.escape("wrote 'thinking...\\n' when no answer was due")
        ):
            agent.select_action(apply(OPENING, move))


def test_after_a_fault_the_next_decision_starts_a_fresh_program(tmp_path):
    command = program(
        tmp_path,
        """
        while line := sys.stdin.readline():
            print(decide(line, rng) if line.split()[4] == "0" else "resign", flush=True)
        """,
    )
    second_turn = initial_state(GameConfig(5))._replace(turn=1)
    with ProgramAgent(command, game="trap") as agent:
        assert agent.select_action(OPENING) in legal_actions(OPENING)
        first_pid = agent._process.pid
        with pytest.raises(ProtocolError, match="'resign'"):
            agent.select_action(second_turn)
        assert is_gone(first_pid)
        assert agent.select_action(OPENING) in legal_actions(OPENING)
        assert agent._process.pid != first_pid


def test_a_program_that_fails_the_check_is_left_to_fail_its_first_game(tmp_path):
    body, error_class, words = FAULTS["crash"]
    with ProgramAgent(program(tmp_path, body), game="trap") as agent:
        check_supports(agent, GameConfig(5))
        assert agent._process is None
        with pytest.raises(error_class, match=re.escape(words[0])):
            agent.select_action(OPENING)

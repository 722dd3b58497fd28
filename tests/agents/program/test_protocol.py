"""The program protocol's extras (agents.program): the hello line, the states and seeds a
program receives, declared board sizes, the probe, bad hellos.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agents.program import PROTOCOL, ProgramAgent, ProtocolError
from tests.support.programs import OPENING, PYTHON_EXAMPLE, RECORDER, program
from trap_env.agent import UnsupportedGameError, check_supports
from trap_env.trap.core import GameConfig, Phase, apply, initial_state, legal_actions, to_text

# --- The protocol's extras --------------------------------------------------------------

V1 = f"{PROTOCOL} 1"


def recorded_lines(tmp_path: Path, hello: str, states: list, seeds: list[int]) -> list[str]:
    command = program(tmp_path, RECORDER.format(hello=hello))
    with ProgramAgent(command, time_limit=2.0, game="trap") as agent:
        for seed, state in zip(seeds, states, strict=True):
            if seed is not None:
                agent.reset(seed=seed)
            assert agent.select_action(state) in legal_actions(state)
    return (tmp_path / "lines.txt").read_text().splitlines()


def opening_move_and_throw() -> list:
    move = legal_actions(OPENING)[0]
    return [OPENING, apply(OPENING, move), OPENING]


def test_a_minimal_program_receives_only_state_lines(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    states = opening_move_and_throw()
    lines = recorded_lines(tmp_path, "", states, [42, None, 7])
    assert lines == [to_text(state) for state in states]


def test_a_program_that_says_hello_receives_the_extras(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    states = opening_move_and_throw()
    lines = recorded_lines(tmp_path, V1, states, [42, None, 7])
    assert lines[:3] == [to_text(OPENING), V1, "game seed=42 size=5 decay=50"]
    times = [float(line.split()[1]) for line in lines if line.startswith("time ")]
    assert len(times) == 3 and all(0 < seconds <= 2.0 for seconds in times)
    assert [line for line in lines[3:] if not line.startswith("time ")] == [
        to_text(OPENING),
        to_text(states[1]),
        "game seed=7 size=5 decay=50",
        to_text(OPENING),
    ]


def test_declared_board_sizes_are_checked_before_the_first_game(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    command = program(tmp_path, RECORDER.format(hello=f"{V1} sizes=5,7"))
    with ProgramAgent(command, game="trap") as agent:
        check_supports(agent, GameConfig(5))
        with pytest.raises(UnsupportedGameError, match=r"plays board sizes \[5, 7\].*not 9"):
            check_supports(agent, GameConfig(9))
        assert agent.select_action(OPENING) in legal_actions(OPENING)
    lines = (tmp_path / "lines.txt").read_text().splitlines()
    assert lines[:2] == [to_text(OPENING), V1]


def test_a_minimal_program_plays_any_size_and_its_probe_answer_is_dropped(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    probe = initial_state(GameConfig(11))
    with ProgramAgent(program(tmp_path, RECORDER.format(hello="")), game="trap") as agent:
        check_supports(agent, GameConfig(11))
        assert agent.sizes is None
        assert agent.select_action(OPENING) in legal_actions(OPENING)
    lines = (tmp_path / "lines.txt").read_text().splitlines()
    assert lines == [to_text(probe), to_text(OPENING)]


@pytest.mark.parametrize(
    ("hello", "words"),
    [
        ("trap-protocol 3", "the malformed hello 'trap-protocol 3': a hello is"),
        ("trap-protocol", "'trap-protocol 1' or 'trap-protocol 2' (the versions this runner"),
        ("trap-protocol1 sizes=5", "the malformed hello 'trap-protocol1 sizes=5'"),
        ("trap_protocol 1", "or as its first line a hello ('trap-protocol 1' or"),
        (f"{V1} colour=blue", "allowed after 'trap-protocol 1': 'sizes=...'"),
        (f"{V1} sizes=5,,7", "sizes=N,N"),
        (f"{V1} games=trap", "allowed after 'trap-protocol 1': 'sizes=...' ("),
        (f"{V1} sizes=5 sizes=7", "said 'sizes=7'"),
        ("trap-protocol 2 games=Trap!", "'games=NAME,...'"),
    ],
)
def test_a_bad_hello_is_a_protocol_error(tmp_path, monkeypatch, hello, words):
    monkeypatch.chdir(tmp_path)
    command = program(tmp_path, RECORDER.format(hello=hello))
    with (
        ProgramAgent(command, game="trap") as agent,
        pytest.raises(ProtocolError, match=re.escape(words)),
    ):
        agent.select_action(OPENING)


def test_only_moves_and_throws_are_asked():
    landing = apply(apply(OPENING, legal_actions(OPENING)[0]), 12)
    assert landing.phase is Phase.LANDING
    with (
        ProgramAgent(PYTHON_EXAMPLE, game="trap") as agent,
        pytest.raises(ValueError, match="'landing'"),
    ):
        agent.select_action(landing)

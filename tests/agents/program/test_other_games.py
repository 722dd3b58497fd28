"""Version 2 of the program protocol (agents.program): any game named in the game line,
answers as the game's action text, and a program in another game through the runner.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agents import make_agent
from agents.arena.match import play_game
from agents.program import PROTOCOL, ProgramAgent, ProtocolError
from tests.support import toy_game
from tests.support.programs import OPENING, RECORDER, program
from trap_env.agent import UnsupportedGameError, check_supports
from trap_env.trap.core import legal_actions

RACE = toy_game.GAME
RACE_PATH = "tests.support.toy_game:GAME"


# --- Version 2: any game, named in the game line, answers as action text ---------------

RACER = """
log = open("lines.txt", "w")
log.write(sys.stdin.readline()); log.flush()
print({hello!r} or {answer!r}, flush=True)
for line in sys.stdin:
    log.write(line); log.flush()
    if line.split()[0] not in ("trap-protocol", "game", "time"):
        print({answer!r}, flush=True)
"""


def race_agent(tmp_path: Path, hello: str, answer: str = "walk") -> ProgramAgent:
    command = program(tmp_path, RACER.format(hello=hello, answer=answer))
    return make_agent(f"exec:{command}", game=RACE_PATH, time_limit=2.0)


def test_version_2_names_the_game_and_takes_its_action_text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    start = RACE.initial_state(RACE.make_config(goal=3))
    with race_agent(tmp_path, "trap-protocol 2 games=race") as agent:
        check_supports(agent, RACE.config_of(start))
        agent.reset(seed=9)
        assert agent.select_action(start) == toy_game.WALK
    lines = (tmp_path / "lines.txt").read_text().splitlines()
    assert lines[:3] == [RACE.to_text(start), "trap-protocol 2", "game name=race seed=9 goal=3"]
    assert lines[3].startswith("time ") and lines[4] == RACE.to_text(start)


def test_version_2_in_trap_adds_the_name_to_the_game_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    command = program(tmp_path, RECORDER.format(hello="trap-protocol 2 games=trap"))
    with ProgramAgent(command, time_limit=2.0, game="trap") as agent:
        agent.reset(seed=5)
        assert agent.select_action(OPENING) in legal_actions(OPENING)
    lines = (tmp_path / "lines.txt").read_text().splitlines()
    assert lines[1:3] == ["trap-protocol 2", "game name=trap seed=5 size=5 decay=50"]


@pytest.mark.parametrize(
    ("hello", "words"),
    [
        (f"{PROTOCOL} 1", "speaks trap-protocol 1, which plays Trap! only"),
        ("trap-protocol 2 games=trap", "plays the games ['trap'] (its hello said so), not 'race'"),
    ],
)
def test_a_game_the_hello_did_not_declare_is_refused(tmp_path, monkeypatch, hello, words):
    monkeypatch.chdir(tmp_path)
    with race_agent(tmp_path, hello) as agent, pytest.raises(UnsupportedGameError) as raised:
        check_supports(agent, RACE.make_config())
    assert words in str(raised.value)


def test_a_minimal_program_plays_any_game_with_integer_actions(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    start = RACE.initial_state(RACE.make_config())
    with race_agent(tmp_path, "", answer="1") as agent:
        assert agent.select_action(start) == toy_game.GAMBLE
        with pytest.raises(ValueError, match="'chance'"):
            agent.select_action(RACE.apply(start, toy_game.GAMBLE))
    assert (tmp_path / "lines.txt").read_text().splitlines() == [RACE.to_text(start)]


def test_action_text_outside_version_2_or_the_games_form_is_a_protocol_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    start = RACE.initial_state(RACE.make_config())
    with (
        race_agent(tmp_path, "", answer="walk") as agent,
        pytest.raises(ProtocolError, match="one integer"),
    ):
        agent.select_action(start)
    with (
        race_agent(tmp_path, "trap-protocol 2", answer="run") as agent,
        pytest.raises(ProtocolError, match="answered 'run'"),
    ):
        agent.select_action(start)


def test_a_program_plays_another_game_through_the_runner(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    seats = [race_agent(tmp_path, "trap-protocol 2 games=race"), toy_game.RandomRacer(seed=1)]
    result = play_game(seats, seed=3, game=RACE_PATH)
    assert result.reason in ("finished", "truncated")
    assert result.scores["positions"][0] >= 1

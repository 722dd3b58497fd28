"""The ``exec:`` spec of agents.program: the command line split as a shell would, bad specs
refused before any game.
"""

from __future__ import annotations

import re
import sys

import pytest

from agents import SpecError, make_agent, parse_spec
from agents.program import ProgramAgent

# --- Specs ------------------------------------------------------------------------------


def test_exec_spec_keeps_the_whole_command_line_split_as_a_shell_would():
    spec = f"""exec:{sys.executable} -c 'print(1, 2)' --name=a:b,c "two words" """
    assert parse_spec(spec) == ("exec", {"command": spec[len("exec:") :].strip()})
    agent = make_agent(spec, seed=1, time_limit=0.5, memory_limit=1 << 28, game="trap")
    assert isinstance(agent, ProgramAgent)
    assert agent.argv == [sys.executable, "-c", "print(1, 2)", "--name=a:b,c", "two words"]
    assert (agent.time_limit, agent.memory_limit) == (0.5, 1 << 28)


@pytest.mark.parametrize(
    ("spec", "options", "words"),
    [
        ("exec:", {}, "needs a command"),
        ("exec:   ", {}, "needs a command"),
        ("exec:./no/such/program --fast", {}, "cannot run './no/such/program'"),
        ("exec:python3 -c 'unclosed", {}, "cannot split"),
        (f"exec:{sys.executable}", {"depth": 3}, "depth"),
        (f"exec:{sys.executable}", {"time_limit": 0}, "time_limit must be a positive number"),
        (f"exec:{sys.executable}", {"memory_limit": -1}, "memory_limit must be a positive"),
        (f"exec:{sys.executable}", {"memory_limit": 1 << 63}, "up to 9223372036854775807"),
        (f"exec:{sys.executable}", {"memory_limit": 1.5e9}, "whole number of bytes"),
    ],
)
def test_bad_exec_specs_are_refused_before_any_game(spec, options, words):
    with pytest.raises(SpecError, match=re.escape(words)):
        make_agent(spec, **options, game="trap")

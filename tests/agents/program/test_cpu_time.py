"""A program agent's clock (agents.program): the budget is the program's own CPU time, spent
after answering too; sleeping within the wall limit is allowed.
"""

from __future__ import annotations

import re
import time

import pytest

from agents.program import ProgramAgent, ProgramTimeout
from tests.support.programs import OPENING, program
from trap_env.trap.core import apply, legal_actions

# --- CPU time --------------------------------------------------------------------------

SPIN_THEN_ANSWER = """
def spin(seconds):
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass

while line := sys.stdin.readline():
    spin({before})
    print(decide(line, rng), flush=True)
    spin({after})
"""


@pytest.mark.parametrize(("limit", "fails"), [(0.15, True), (2.0, False)])
def test_the_budget_is_the_programs_own_cpu_time(tmp_path, limit, fails):
    command = program(tmp_path, SPIN_THEN_ANSWER.format(before=0.4, after=0))
    with ProgramAgent(command, time_limit=limit, wall_limit=30.0, game="trap") as agent:
        if fails:
            with pytest.raises(ProgramTimeout, match=re.escape("of CPU time, limit 0.15 s")):
                agent.select_action(OPENING)
        else:
            assert agent.select_action(OPENING) in legal_actions(OPENING)


def test_cpu_spent_after_answering_counts_towards_the_next_turn(tmp_path):
    command = program(tmp_path, SPIN_THEN_ANSWER.format(before=0, after=0.5))
    with ProgramAgent(command, time_limit=0.3, wall_limit=30.0, game="trap") as agent:
        move = agent.select_action(OPENING)  # answers at once, then works on
        time.sleep(0.6)
        with pytest.raises(ProgramTimeout, match="CPU time"):
            agent.select_action(apply(OPENING, move))


def test_sleeping_within_the_wall_limit_is_allowed(tmp_path):
    command = program(
        tmp_path,
        """
        while line := sys.stdin.readline():
            time.sleep(0.3)
            print(decide(line, rng), flush=True)
        """,
    )
    with ProgramAgent(command, time_limit=0.2, game="trap") as agent:  # wall limit 2 * 0.2 + 0.5
        assert agent.select_action(OPENING) in legal_actions(OPENING)

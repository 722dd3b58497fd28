"""Copies of a program agent (agents.program): a copy carries the command and limits and starts
its own program; an env with a program opponent deep-copies.
"""

from __future__ import annotations

import copy
import pickle

import pytest

from agents.program import ProgramAgent
from tests.support.programs import OPENING, PYTHON_EXAMPLE
from trap_env.trap.core import legal_actions

# --- Copies -----------------------------------------------------------------------------


@pytest.mark.parametrize("duplicate", [copy.deepcopy, lambda a: pickle.loads(pickle.dumps(a))])
def test_a_copy_carries_the_command_and_limits_and_starts_its_own_program(duplicate):
    with ProgramAgent(PYTHON_EXAMPLE, time_limit=0.7, memory_limit=1 << 29, game="trap") as agent:
        agent.select_action(OPENING)
        twin = duplicate(agent)
        with twin:
            assert twin._process is None
            assert (twin.argv, twin.time_limit, twin.memory_limit) == (agent.argv, 0.7, 1 << 29)
            assert twin.select_action(OPENING) in legal_actions(OPENING)
            assert twin._process.pid != agent._process.pid
        assert agent.select_action(OPENING) in legal_actions(OPENING)


def test_an_env_with_a_program_opponent_can_be_deep_copied():
    from trap_env.trap.gym_env import TrapEnv

    env = TrapEnv(opponent=f"exec:{PYTHON_EXAMPLE}", seat=1, board_size=5)
    env.reset(seed=3)  # the opponent (seat 0) has played its first turn
    twin = copy.deepcopy(env)
    for each in (env, twin):
        for _ in ("move", "throw"):  # after the throw, the opponent plays
            _, _, terminated, _, info = each.step(legal_actions(each.game_state)[0])
            assert not terminated and not info["opponent_fault"]
    assert twin._opponent._process.pid != env._opponent._process.pid
    for each in (env, twin):
        each._opponent.close()

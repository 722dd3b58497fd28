"""Policies that play the games on the stack, behind one interface; build any from a spec string.

Subpackages: :mod:`agents.search` (expectiminimax and its evaluation), :mod:`agents.mcts`
(the learned search agent), :mod:`agents.rl` (the PPO agent and the trainers),
:mod:`agents.arena` (one game, tournaments, results, statistics), :mod:`agents.othello`
(Othello's agents), :mod:`agents.colosseum` (Colosseum Survival!'s), :mod:`agents.web`
(the page of ``trap-serve``). Modules: the table (:mod:`agents.registry`,
:mod:`agents.options`), the seeded base (:mod:`agents.seeded`), programs in any language
(:mod:`agents.program`), the decision clock (:mod:`agents.timing`), atomic files
(:mod:`agents.files`), Trap!'s random, heuristic and batched heuristic agents and the
course adapter. The built-in agents are listed by game in
:data:`agents.registry.AGENT_TABLE` and imported only when built.
Importing this package also hands its table to the envs (:func:`trap_env.agent.use_agent_table`),
which find it through the ``trap_env.agents`` entry point when the package is installed.

Example:
    >>> from agents import make_agent
    >>> agent = make_agent("random", game="trap", seed=0)
"""

from agents.options import parse_spec
from agents.registry import agent_names, make_agent, register
from trap_env.agent import Agent, SpecError, UnsupportedGameError, check_supports, use_agent_table
from trap_env.aliases import move_module

use_agent_table(make_agent)

MOVED_MODULES = {
    "agents.heuristics": "agents.trap.heuristics",
    "agents.batched_heuristics": "agents.trap.batched_heuristics",
    "agents.random_agent": "agents.trap.random_agent",
    "agents.search.agent": "agents.trap.search",
    "agents.search.batched": "agents.trap.batched_search",
    "agents.search.evaluation": "agents.trap.evaluation",
    "agents.search.batched_evaluation": "agents.trap.batched_evaluation",
    "agents.rl.pretrain": "agents.trap.pretrain",
    "agents.rl.ppo_training": "agents.trap.ppo_training",
}
"""Each module that moved into Trap!'s agents -> its new home; the old name imports it, with
a :class:`DeprecationWarning` (:func:`trap_env.aliases.move_module`)."""

for _old, _new in MOVED_MODULES.items():
    move_module(_old, _new)

__all__ = [
    "Agent",
    "SpecError",
    "UnsupportedGameError",
    "agent_names",
    "check_supports",
    "make_agent",
    "parse_spec",
    "register",
]

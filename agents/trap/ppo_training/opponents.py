"""What the learner plays against: :class:`OpponentMix`, one agent a game from a mix.

The mix is of agent specs and, with self-play, frozen snapshots of the learner.

Part of :mod:`agents.trap.ppo_training`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.registry import make_agent
from agents.seeded import SeededAgent
from trap_env.agent import Agent
from trap_env.trap.core import Cell, State


class OpponentMix(SeededAgent):
    """An opponent that is, for each game, one agent drawn from a mix of specs.

    A new game is one started by :meth:`reset`, or noticed when the turn counter goes
    back. With ``pool`` (paths of frozen learner snapshots), a game is played against a
    uniformly drawn snapshot with probability ``pool_fraction``, sampling its moves.
    Agents are built lazily, once per spec, in the process that plays them.

    Args:
        specs: agent specs, drawn uniformly.
        pool: paths of model zips of earlier learners.
        pool_fraction: the probability of a game against the pool (when non-empty).
        seed: seeds the draws and every agent built.
    """

    def __init__(
        self,
        specs: Sequence[str],
        pool: Sequence[str] = (),
        pool_fraction: float = 0.0,
        seed: int | None = None,
    ) -> None:
        super().__init__(seed)
        if not specs:
            raise ValueError("an opponent mix needs at least one agent spec")
        self.specs = list(specs)
        self.pool = list(pool)
        self.pool_fraction = pool_fraction
        self._agents: dict[str, Agent] = {}
        self._current: Agent | None = None
        self._last_turn = -1

    def __getstate__(self) -> dict[str, Any]:
        # Sent to env processes before any agent is built: ship the specs, not the agents.
        state = self.__dict__.copy()
        state["_agents"], state["_current"] = {}, None
        return state

    def mix(self) -> dict[str, float]:
        """The mix as ``{spec: probability}``: the specs in equal shares, and each pool
        snapshot (``ppo:path=...,deterministic=false``) a share of ``pool_fraction``.

        The batched env draws from it per episode and game (``set_opponent(mix)``); the
        single env plays this agent, which draws per game from its own generator.
        """
        share = 1.0 - self.pool_fraction if self.pool else 1.0
        weights: dict[str, float] = {}
        for spec in self.specs:
            weights[spec] = weights.get(spec, 0.0) + share / len(self.specs)
        for path in self.pool:
            spec = _pool_spec(path)
            weights[spec] = weights.get(spec, 0.0) + self.pool_fraction / len(self.pool)
        return weights

    def reset(self, seed: int | None = None) -> None:
        """Start a new game: reseed when asked, then draw the next opponent."""
        super().reset(seed)
        self._current = None

    def select_action(self, state: State) -> Cell:
        """The action of this game's opponent."""
        if self._current is None or state.turn < self._last_turn:
            self._current = self._draw()
        self._last_turn = state.turn
        return self._current.select_action(state)

    def _draw(self) -> Agent:
        if self.pool and self.rng.random() < self.pool_fraction:
            spec = _pool_spec(self.rng.choice(self.pool))
        else:
            spec = self.rng.choice(self.specs)
        if spec not in self._agents:
            self._agents[spec] = make_agent(spec, game="trap", seed=self.rng.randrange(2**31))
        agent = self._agents[spec]
        agent.reset(seed=self.rng.randrange(2**31))
        return agent


def _pool_spec(path: str) -> str:
    """The agent spec of a pool snapshot: its policy, sampling its moves."""
    return f"ppo:path={path},deterministic=false"

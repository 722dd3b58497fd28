"""Opponents that act in many games of the batched engine (:mod:`trap_env.vector`) at once.

An opponent of :class:`trap_env.vector_env.TrapVectorEnv` is a :class:`BatchOpponent`: it
reads the engine's tables (:class:`trap_env.vector.Tables`) and the batch, and answers one
action per game. :class:`BatchedRandom` is ``RandomAgent``'s batched twin; a frozen policy
on observations and any agent asked game by game are the other kinds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from trap_env import vector
from trap_env.agent import Agent, check_supports, close_agent, make_agent
from trap_env.core import GameConfig, State
from trap_env.vector import I64, U64, Batch, Bool, Tables

__all__ = [
    "AgentOpponent",
    "BatchOpponent",
    "BatchPolicy",
    "BatchedRandom",
    "PolicyOpponent",
    "VectorOpponent",
]

BatchPolicy = Callable[[NDArray[np.int8], NDArray[np.bool_]], Any]
"""A frozen policy on batches: ``(observations (k, N, N, 4) int8, masks (k, N*N) bool)``
-> ``k`` actions."""


VectorOpponent = str | Agent | BatchPolicy | Callable[[State], Any]
"""One opponent: ``"random"`` and the one-ply heuristics (batched), ``"self"``, any other
agent spec string (played
game by game), an object with ``select_action(state)``, a batched policy
``(observations, masks) -> actions`` or a callable ``state -> action`` (told apart by
their number of parameters)."""


class BatchOpponent(Protocol):
    """An opponent that acts in many games at once."""

    checked: bool
    """Whether the env must check its actions (False for legal-by-construction ones)."""

    def start(self, tables: Tables, games: I64, words: U64) -> None:
        """New episodes begin in ``games`` (env slots); ``words`` seed them."""

    def act(self, tables: Tables, batch: Batch, where: Bool, words: U64) -> I64:
        """Actions ``(B,)`` for the games in ``where`` (other entries are ignored)."""


class BatchedRandom:
    """The course's random opponent, for the whole batch: uniform moves, throws at empty cells."""

    checked = False  # its actions are legal by construction

    def start(self, tables: Tables, games: I64, words: U64) -> None:
        """Nothing to prepare."""

    def act(self, tables: Tables, batch: Batch, where: Bool, words: U64) -> I64:
        """A uniform legal move, or a uniform empty target (any legal target if none)."""
        t = tables
        actions = np.zeros(batch.size, np.int64)
        moving = np.flatnonzero(where & (batch.phase == vector.MOVE))
        if len(moving):
            movers = vector.gather(batch, moving)
            own, _ = vector.player_cells(movers, movers.player)
            moves = vector.move_bitboards(t, movers, movers.player)
            # The guess among the mover's up-to-8 neighbours mostly hits a legal move.
            candidates = t.neighbour_cells[own]
            actions[moving] = vector.choose_bits(moves, words[moving], candidates=candidates)
        throwing = np.flatnonzero(where & (batch.phase == vector.THROW))
        if len(throwing):
            cells = batch.cells[throwing]
            legal = t.all_cells & ~(t.bits[cells[:, 0]] | t.bits[cells[:, 1]])
            empty = legal & ~batch.traps[throwing]
            targets = np.where(empty != 0, empty, legal)
            actions[throwing] = vector.choose_bits(targets, words[throwing], t.num_cells)
        return actions


class PolicyOpponent:
    """A frozen policy called once per step on the sub-batch of games it plays."""

    checked = True

    def __init__(self, policy: BatchPolicy) -> None:
        self.policy = policy

    def start(self, tables: Tables, games: I64, words: U64) -> None:
        """Nothing to prepare."""

    def act(self, tables: Tables, batch: Batch, where: Bool, words: U64) -> I64:
        """The policy's actions for the games in ``where``, seen from the side to act."""
        rows = np.flatnonzero(where)
        part = vector.gather(batch, rows)
        seen = vector.observations(tables, part, part.player)
        masks = vector.legal_masks(tables, part)
        chosen = np.asarray(self.policy(seen, masks), np.int64).reshape(-1)
        if chosen.shape != rows.shape:
            raise ValueError(
                f"the opponent policy {self.policy!r} returned {chosen.shape[0]} actions "
                f"for {len(rows)} observations"
            )
        actions = np.zeros(batch.size, np.int64)
        actions[rows] = chosen
        return actions


class AgentOpponent:
    """Any agent, asked game by game (slower: one Python call per game and decision).

    A spec string gets one agent per env slot (built on first use, reseeded at each
    episode from the slot's random stream), so that a game's course does not depend on
    B; a given object is shared by every slot, and reseeded at each of its games' start.
    """

    checked = True

    def __init__(
        self, opponent: str | Agent | Callable[[State], Any], spare: Any = None
    ) -> None:
        self.opponent = opponent
        self._spare = spare
        """An agent already built from the spec (to check it), used for the first slot."""
        self._agents: dict[int, Any] = {}
        self.errors: dict[int, str] = {}
        """The errors raised by the last ``act``, by game (those games get action -1)."""

    def _agent(self, tables: Tables, slot: int) -> Any:
        if not isinstance(self.opponent, str):
            return self.opponent
        if slot not in self._agents:
            agent, self._spare = self._spare or make_agent(self.opponent, seed=slot), None
            check_supports(agent, GameConfig(tables.board_size, tables.decay))
            self._agents[slot] = agent
        return self._agents[slot]

    def close(self) -> None:
        """End the agents this opponent built (a program agent's process, say)."""
        for agent in [*self._agents.values(), *filter(None, [self._spare])]:
            close_agent(agent)
        self._agents.clear()

    def start(self, tables: Tables, games: I64, words: U64) -> None:
        """Reseed the agents of ``games`` (those with a ``reset``)."""
        for slot, word in zip(games.tolist(), words.tolist(), strict=True):
            reset = getattr(self._agent(tables, slot), "reset", None)
            if callable(reset):
                reset(seed=word >> 1)

    def act(self, tables: Tables, batch: Batch, where: Bool, words: U64) -> I64:
        """Each game's agent's action on the game's core state."""
        rows = np.flatnonzero(where)
        actions = np.zeros(batch.size, np.int64)
        states = vector.to_states(tables, vector.gather(batch, rows))
        self.errors = {}
        for row, state in zip(rows.tolist(), states, strict=True):
            agent = self._agent(tables, row)
            select = getattr(agent, "select_action", None)
            try:
                actions[row] = int(select(state) if select is not None else agent(state))
            except Exception as error:  # one game's fault, reported by the env
                actions[row] = -1
                self.errors[row] = f"the opponent {self.opponent!r} raised {error!r}"
        return actions

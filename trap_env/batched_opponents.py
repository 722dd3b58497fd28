"""Opponents that act in many games of a batched engine (:mod:`trap_env.batched`) at once.

An opponent of :class:`trap_env.batched_env.GameVectorEnv` is a :class:`BatchOpponent`: it
reads the env's batched engine and the batch, and answers one action per game.
An agent's batched twin (``agent.batched()``, such as Trap!'s
:class:`trap_env.trap.batched_opponents.BatchedRandom`) is one; a frozen policy on
observations and any agent asked game by game serve every game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from trap_env.agent import Agent, _agent_from_spec, check_supports, close_agent
from trap_env.batched import I64, U64, BatchedEngine, Bool, gather
from trap_env.games import game_names

__all__ = [
    "AgentOpponent",
    "BatchOpponent",
    "BatchPolicy",
    "PolicyOpponent",
    "VectorOpponent",
]

BatchPolicy = Callable[[NDArray[np.int8], NDArray[np.bool_]], Any]
"""A frozen policy on batches: ``(observations (k, *shape) int8, masks (k, actions) bool)``
-> ``k`` actions (Trap!: ``(k, N, N, 4)`` and ``(k, N*N)``)."""


VectorOpponent = str | Agent | BatchPolicy | Callable[[Any], Any]
"""One opponent: an agent spec string (batched when its agent has a batched twin:
``"random"``, the one-ply heuristics, ``"expectiminimax:depth=D"``; otherwise played game
by game), ``"self"``, an object with ``select_action(state)``, a :class:`BatchOpponent`
(``AgentOpponent("expectiminimax:depth=2", game="trap")`` plays a spec game by game even
where it has a twin), a batched policy ``(observations, masks) -> actions`` or a callable
``state -> action`` (told apart by their number of parameters)."""


class BatchOpponent(Protocol):
    """An opponent that acts in many games at once."""

    checked: bool
    """Whether the env must check its actions (False for legal-by-construction ones)."""

    def start(self, engine: Any, games: I64, words: U64) -> None:
        """New episodes begin in ``games`` (env slots) of the env's ``engine``
        (a :class:`trap_env.batched.BatchedEngine`); ``words`` seed them."""

    def act(self, engine: Any, batch: Any, where: Bool, words: U64) -> I64:
        """Actions ``(B,)`` for the games in ``where`` (other entries are ignored)."""


class PolicyOpponent:
    """A frozen policy called once per step on the sub-batch of games it plays."""

    checked = True

    def __init__(self, policy: BatchPolicy) -> None:
        self.policy = policy

    def start(self, engine: BatchedEngine[Any], games: I64, words: U64) -> None:
        """Nothing to prepare."""

    def act(self, engine: BatchedEngine[Any], batch: Any, where: Bool, words: U64) -> I64:
        """The policy's actions for the games in ``where``, seen from the side to act."""
        rows = np.flatnonzero(where)
        part = gather(batch, rows)
        seen = engine.observations(part, engine.players(part))
        masks = engine.legal_masks(part)
        chosen = np.asarray(self.policy(seen, masks), np.int64).reshape(-1)
        if chosen.shape != rows.shape:
            raise ValueError(
                f"the opponent policy {self.policy!r} returned {chosen.shape[0]} actions "
                f"for {len(rows)} observations"
            )
        actions = np.zeros(len(where), np.int64)
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
        self,
        opponent: str | Agent | Callable[[Any], Any],
        spare: Any = None,
        game: str | None = None,
    ) -> None:
        self.opponent = opponent
        self.game = game
        """The game a spec string's agents are built for (a name or a game's path); None
        until the batched env it plays in gives its own."""
        self._spare = spare
        """An agent already built from the spec (to check it), used for the first slot."""
        self._agents: dict[int, Any] = {}
        self.errors: dict[int, str] = {}
        """The errors raised by the last ``act``, by game (those games get action -1)."""

    def _agent(self, engine: BatchedEngine[Any], slot: int) -> Any:
        if not isinstance(self.opponent, str):
            return self.opponent
        if slot not in self._agents:
            if self.game is None:
                raise ValueError(
                    f"the opponent {self.opponent!r} names an agent of no game; give "
                    f"AgentOpponent(spec, game=NAME) (one of {', '.join(game_names())}) or "
                    "play it in a batched env, which gives its own"
                )
            built = self._spare or _agent_from_spec(self.opponent, game=self.game, seed=slot)
            agent, self._spare = built, None
            check_supports(agent, engine.config)
            self._agents[slot] = agent
        return self._agents[slot]

    def close(self) -> None:
        """End the agents this opponent built (a program agent's process, say)."""
        for agent in [*self._agents.values(), *filter(None, [self._spare])]:
            close_agent(agent)
        self._agents.clear()

    def start(self, engine: BatchedEngine[Any], games: I64, words: U64) -> None:
        """Reseed the agents of ``games`` (those with a ``reset``)."""
        for slot, word in zip(games.tolist(), words.tolist(), strict=True):
            reset = getattr(self._agent(engine, slot), "reset", None)
            if callable(reset):
                reset(seed=word >> 1)

    def act(self, engine: BatchedEngine[Any], batch: Any, where: Bool, words: U64) -> I64:
        """Each game's agent's action on the game's scalar state."""
        rows = np.flatnonzero(where)
        actions = np.zeros(len(where), np.int64)
        states = engine.to_states(gather(batch, rows))
        self.errors = {}
        for row, state in zip(rows.tolist(), states, strict=True):
            agent = self._agent(engine, row)
            select = getattr(agent, "select_action", None)
            try:
                answer = select(state) if select is not None else agent(state)
                if isinstance(answer, bool) or not isinstance(answer, int | np.integer):
                    raise TypeError(f"it answered {answer!r}, not an integer action")
                actions[row] = int(answer)
            except Exception as error:  # one game's fault, reported by the env
                actions[row] = -1
                self.errors[row] = f"the opponent {self.opponent!r} raised {error!r}"
        return actions

"""Race, a tiny test-only game of the protocol, with a chance node: it proves the generic
parts generic (the search, ``mcts``, the runner, tournaments, the adapters).

Two players race along a track to ``goal``. On its turn a player either walks one step
(action 0) or gambles (action 1): chance then moves it 2 steps with probability 3/5 or
none with 2/5 (outcomes 2 and 0). Whoever reaches the goal first wins ("finished").
Actions are ``0..2`` (2 is never a decision, only a chance outcome).

Name it to the runners by its path: ``--game toy_game:GAME``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from agents.seeded import SeededAgent
from trap_env.batched import num_games
from trap_env.checks import is_int, parse_natural
from trap_env.game import TRUNCATED, IllegalActionError, Outcome, RandomSource
from trap_env.game_base import GameBase

WALK, GAMBLE = 0, 1
GAMBLE_OUTCOMES = ((0, 0.4), (2, 0.6))
NAMES = ("walk", "gamble")


@dataclass(frozen=True)
class RaceConfig:
    """The track's length."""

    goal: int = 4

    def __post_init__(self) -> None:
        if isinstance(self.goal, bool) or not isinstance(self.goal, int) or self.goal < 2:
            raise ValueError(f"goal must be an integer >= 2, got {self.goal!r}")


class RaceState(NamedTuple):
    """Positions of players 0 and 1, the player to act, a pending gamble, turns done."""

    goal: int
    positions: tuple[int, int]
    player: int
    gambling: bool
    turn: int


class Race(GameBase[RaceState, RaceConfig]):
    """The game protocol for Race, on the defaults of :class:`trap_env.game_base.GameBase`."""

    name = "race"
    title = "Race"
    end_reasons = ("finished",)
    config_type = RaceConfig
    has_chance = True
    decision_names = ("step", "chance")

    def config_of(self, state: RaceState) -> RaceConfig:
        return RaceConfig(state.goal)

    def num_actions(self, config: RaceConfig) -> int:
        return 3

    def observation_shape(self, config: RaceConfig) -> tuple[int, ...]:
        return (1, config.goal + 1, 2)

    def default_turn_limit(self, config: RaceConfig) -> int:
        return 4 * config.goal

    def initial_state(self, config: RaceConfig) -> RaceState:
        return RaceState(config.goal, (0, 0), 0, False, 0)

    def current_player(self, state: RaceState) -> int:
        return state.player

    def is_chance(self, state: RaceState) -> bool:
        return state.gambling

    def legal_actions(self, state: RaceState) -> list[int]:
        if self.outcome(state) is not None:
            return []
        if state.gambling:
            return [outcome for outcome, _ in GAMBLE_OUTCOMES]
        return [WALK, GAMBLE]

    def apply(self, state: RaceState, action: int) -> RaceState:
        if action not in self.legal_actions(state):
            raise IllegalActionError(
                f"illegal action {action!r}; legal: {self.legal_actions(state)}"
            )
        if not state.gambling and action == GAMBLE:
            return state._replace(gambling=True)
        steps = 1 if not state.gambling else action
        positions = list(state.positions)
        positions[state.player] = min(state.goal, positions[state.player] + steps)
        return RaceState(state.goal, (positions[0], positions[1]), 1 - state.player, False,
                         state.turn + 1)

    def chance_outcomes(self, state: RaceState) -> Sequence[tuple[int, float]]:
        if not state.gambling:
            raise ValueError("chance_outcomes needs a pending gamble")
        return GAMBLE_OUTCOMES

    def sample_chance(self, state: RaceState, rng: RandomSource) -> int:
        return 0 if rng.random() < GAMBLE_OUTCOMES[0][1] else 2

    def turn(self, state: RaceState) -> int:
        return state.turn

    def outcome(self, state: RaceState, max_turns: int | None = None) -> Outcome | None:
        for player, position in enumerate(state.positions):
            if position >= state.goal:
                return Outcome(player, "finished")
        if max_turns is not None and not state.gambling and state.turn >= max_turns:
            return Outcome(None, TRUNCATED)
        return None

    def scores(self, state: RaceState) -> dict[str, Any]:
        return {"positions": list(state.positions)}

    def observe(self, state: RaceState, player: int) -> Any:
        planes = np.zeros(self.observation_shape(self.config_of(state)), np.int8)
        planes[0, state.positions[player], 0] = 1
        planes[0, state.positions[1 - player], 1] = 1
        return planes

    def to_text(self, state: RaceState) -> str:
        a, b = state.positions
        return f"{a} {b} {state.player} {int(state.gambling)} {state.turn} goal={state.goal}"

    def from_text(self, text: str) -> RaceState:
        fields = text.split()
        if len(fields) != 6 or not fields[5].startswith("goal="):
            raise ValueError(f"race text is 'a b player gambling turn goal=G', got {text[:80]!r}")
        problem = "race text has numbers in ASCII digits"
        a, b, player, gambling, turn = (parse_natural(field, problem) for field in fields[:5])
        state = RaceState(parse_natural(fields[5][5:], problem), (a, b), player, gambling == 1,
                          turn)  # fmt: skip
        self.check_state(state)
        return state

    def check_state(self, state: RaceState) -> None:
        if not isinstance(state, RaceState):
            raise TypeError(f"state must be a RaceState, got {type(state).__name__}")
        goal = self.config_of(state).goal
        if not all(is_int(p) and 0 <= p <= goal for p in state.positions):
            raise ValueError(f"positions must be in 0..{goal}, got {state.positions}")
        if state.positions[0] == state.positions[1] == goal:
            raise ValueError("only one player reaches the goal")
        if state.player not in (0, 1) or not is_int(state.turn) or state.turn < 0:
            raise ValueError(f"player 0 or 1 and turn >= 0, got {state.player}, {state.turn}")

    def action_to_text(self, state: RaceState, action: int) -> str:
        return str(action) if state.gambling else NAMES[action]

    def action_from_text(self, state: RaceState, text: str) -> int:
        return NAMES.index(text) if text in NAMES else super().action_from_text(state, text)

    def render_rgb(self, state: RaceState, last_chance: tuple[int, int] | None = None) -> Any:
        image = np.zeros((20, 10 * (state.goal + 1), 3), np.uint8)
        for player, position in enumerate(state.positions):
            image[10 * player : 10 * player + 10, 10 * position : 10 * position + 10] = 255
        return image

    def describe(self, state: RaceState) -> Mapping[str, Any]:
        return {"game": self.name, "positions": list(state.positions), "player": state.player}

    def batched_engine(self, config: RaceConfig) -> RaceEngine:
        return RaceEngine(config)


class RaceBatch(NamedTuple):
    """B races: positions ``(B, 2)``, player, a pending gamble, turns done."""

    positions: np.ndarray
    player: np.ndarray
    gambling: np.ndarray
    turn: np.ndarray


@dataclass(frozen=True)
class RaceEngine:
    """Race's batched engine (:class:`trap_env.batched.BatchedEngine`), for B races at once."""

    config: RaceConfig
    num_actions = 3
    chance_slots = 2

    def initial_batch(self, num_games: int) -> RaceBatch:
        return RaceBatch(np.zeros((num_games, 2), np.int64), np.zeros(num_games, np.int8),
                         np.zeros(num_games, np.bool_), np.zeros(num_games, np.int64))  # fmt: skip

    def from_states(self, states: Sequence[RaceState]) -> RaceBatch:
        for state in states:
            Race().check_state(state)
        return RaceBatch(np.array([s.positions for s in states], np.int64).reshape(-1, 2),
                         np.array([s.player for s in states], np.int8),
                         np.array([s.gambling for s in states], np.bool_),
                         np.array([s.turn for s in states], np.int64))  # fmt: skip

    def to_states(self, batch: RaceBatch) -> list[RaceState]:
        return [RaceState(self.config.goal, (int(a), int(b)), int(p), bool(g), int(t))
                for (a, b), p, g, t in zip(*batch, strict=True)]  # fmt: skip

    def turns(self, batch: RaceBatch) -> np.ndarray:
        return batch.turn

    def ply_index(self, batch: RaceBatch) -> np.ndarray:
        return 2 * batch.turn + batch.gambling

    def players(self, batch: RaceBatch) -> np.ndarray:
        return batch.player

    def is_chance(self, batch: RaceBatch) -> np.ndarray:
        return batch.gambling & ~self.is_over(batch)

    def is_over(self, batch: RaceBatch) -> np.ndarray:
        return batch.positions.max(axis=1) >= self.config.goal

    def is_truncated(self, batch: RaceBatch, max_turns: int) -> np.ndarray:
        return ~self.is_over(batch) & ~batch.gambling & (batch.turn >= max_turns)

    def winners(self, batch: RaceBatch) -> np.ndarray:
        done = batch.positions >= self.config.goal
        return np.where(done[:, 0], 0, np.where(done[:, 1], 1, -1)).astype(np.int8)

    def legal_masks(self, batch: RaceBatch) -> np.ndarray:
        masks = np.where(batch.gambling[:, None], [True, False, True], [True, True, False])
        masks[self.is_over(batch)] = False
        return masks

    def apply(self, batch: RaceBatch, actions: Any, *, where: Any = None,
              validate: bool = True) -> RaceBatch:  # fmt: skip
        actions = np.asarray(actions, np.int64)
        alive = ~self.is_over(batch) if where is None else ~self.is_over(batch) & where
        masks = self.legal_masks(batch)
        legal = (actions >= 0) & (actions < 3) & masks[np.arange(len(actions)), actions.clip(0, 2)]
        if validate and (alive & ~legal).any():
            raise IllegalActionError(f"illegal actions in games {np.flatnonzero(alive & ~legal)}")
        starts = alive & ~batch.gambling & (actions == GAMBLE)
        steps = np.where(batch.gambling, actions, 1)
        moving = alive & ~starts
        rows = np.flatnonzero(moving)
        positions = batch.positions.copy()
        mover = batch.player[rows].astype(np.int64)
        positions[rows, mover] = np.minimum(self.config.goal, positions[rows, mover] + steps[rows])
        player = np.where(moving, 1 - batch.player, batch.player).astype(np.int8)
        gambling = starts | (batch.gambling & ~moving)
        return RaceBatch(positions, player, gambling, batch.turn + moving)

    def chance_outcomes(self, batch: RaceBatch) -> tuple[np.ndarray, np.ndarray]:
        chance = self.is_chance(batch)[:, None]
        outcomes = np.tile([o for o, _ in GAMBLE_OUTCOMES], (len(chance), 1))
        return outcomes, np.where(chance, [p for _, p in GAMBLE_OUTCOMES], 0.0)

    def sample_chance(self, batch: RaceBatch, words: np.ndarray) -> np.ndarray:
        uniform = (words >> np.uint64(11)).astype(np.float64) / 2.0**53
        return np.where(uniform < GAMBLE_OUTCOMES[0][1], 0, 2)

    def observations(self, batch: RaceBatch, players: Any) -> np.ndarray:
        b = num_games(batch)
        planes = np.zeros((b, 1, self.config.goal + 1, 2), np.int8)
        players = np.asarray(players, np.int64)
        rows = np.arange(b)
        planes[rows, 0, batch.positions[rows, players], 0] = 1
        planes[rows, 0, batch.positions[rows, 1 - players], 1] = 1
        return planes


GAME = Race()


class ChanceShown(Race):
    """Race whose text drawing is only the last chance node it is given: what an env's
    ``render`` passes on."""

    name = "race_chance_shown"

    def render_text(self, state: RaceState, last_chance: tuple[int, int] | None = None) -> str:
        return repr(last_chance)


class RandomRacer(SeededAgent):
    """A uniformly random legal decision."""

    def select_action(self, state: RaceState) -> int:
        return self.rng.choice(GAME.legal_actions(state))


class Walker:
    """Always walks."""

    def reset(self, seed: int | None = None) -> None:
        """Nothing to forget."""

    def select_action(self, state: RaceState) -> int:
        return WALK


def expectimax(state: RaceState, depth: int, max_turns: int | None = None) -> float:
    """Plain expectimax for the player to act: terminal +-1 (0 at the turn limit), 0 at
    depth 0."""
    ended = GAME.outcome(state, max_turns)
    if ended is not None:
        return ended.returns()[state.player]
    if GAME.is_chance(state):
        return sum(
            p * _seen_by(state.player, GAME.apply(state, o), depth, max_turns)
            for o, p in GAME.chance_outcomes(state)
        )
    if depth == 0:
        return 0.0
    return max(
        _seen_by(state.player, GAME.apply(state, a), depth - 1, max_turns)
        for a in GAME.legal_actions(state)
    )


def _seen_by(player: int, child: RaceState, depth: int, max_turns: int | None) -> float:
    value = expectimax(child, depth, max_turns)
    return value if child.player == player else -value

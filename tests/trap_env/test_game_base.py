"""The base class's defaults (trap_env.game_base.GameBase): a game written on them passes the
conformance checks, and a game class that leaves a member of the protocol out is refused
when it is defined."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pytest

from trap_env.game import TRUNCATED, IllegalActionError, Outcome
from trap_env.game_base import GameBase
from trap_env.games import get_game
from trap_env.testing import check_game


@dataclass(frozen=True)
class TakeConfig:
    """The heap at the start (trusted: a test's game)."""

    heap: int = 5


class TakeState(NamedTuple):
    """The heap left, its size at the start, the player to take, turns done."""

    heap: int
    start: int
    player: int
    turn: int


class Take(GameBase[TakeState, TakeConfig]):
    """Players take 1 or 2 from a heap (actions 0 and 1); who takes the last one wins. All
    the rest is the base's."""

    name, title, end_reasons, config_type = "take", "Take", ("emptied",), TakeConfig

    def config_of(self, state: TakeState) -> TakeConfig:
        return TakeConfig(state.start)

    def num_actions(self, config: TakeConfig) -> int:
        return 2

    def observation_shape(self, config: TakeConfig) -> tuple[int, ...]:
        return (1, config.heap + 1, 1)

    def default_turn_limit(self, config: TakeConfig) -> int:
        return config.heap

    def initial_state(self, config: TakeConfig) -> TakeState:
        return TakeState(config.heap, config.heap, 0, 0)

    def current_player(self, state: TakeState) -> int:
        return state.player

    def legal_actions(self, state: TakeState) -> list[int]:
        return list(range(min(2, state.heap)))

    def apply(self, state: TakeState, action: int) -> TakeState:
        if action not in self.legal_actions(state):
            raise IllegalActionError(f"illegal action {action!r}")
        return TakeState(state.heap - action - 1, state.start, 1 - state.player, state.turn + 1)

    def turn(self, state: TakeState) -> int:
        return state.turn

    def outcome(self, state: TakeState, max_turns: int | None = None) -> Outcome | None:
        if state.heap == 0:
            return Outcome(1 - state.player, "emptied")
        is_cut = max_turns is not None and state.turn >= max_turns
        return Outcome(None, TRUNCATED) if is_cut else None

    def observe(self, state: TakeState, player: int) -> Any:
        planes = np.zeros(self.observation_shape(self.config_of(state)), np.int8)
        planes[0, state.heap, 0] = 1
        return planes

    def to_text(self, state: TakeState) -> str:
        return " ".join(map(str, state))

    def from_text(self, text: str) -> TakeState:
        fields = text.split()
        if len(fields) != 4 or not all(field.isascii() and field.isdigit() for field in fields):
            raise ValueError(f"take's text is 'heap start player turn', got {text[:40]!r}")
        state = TakeState(*map(int, fields))
        self.check_state(state)
        return state

    def check_state(self, state: TakeState) -> None:
        if not isinstance(state, TakeState):
            raise TypeError(f"state must be a TakeState, got {type(state).__name__}")
        if not (0 <= state.heap <= state.start and state.player in (0, 1) and state.turn >= 0):
            raise ValueError(f"no game of Take reaches {state}")
        if state.heap == state.start and state.turn > 0:
            raise ValueError("every turn takes one or two")

    def render_rgb(self, state: TakeState, last_chance: tuple[int, int] | None = None) -> Any:
        return np.full((8, 8 * (state.start + 1), 3), 255, np.uint8)

    def describe(self, state: TakeState) -> Mapping[str, Any]:
        return {"game": self.name, "heap": state.heap, "player": state.player}


TAKE = Take()


def test_a_game_on_the_base_defaults_passes_the_conformance_checks() -> None:
    check_game(TAKE, games=2, opponent=lambda state: 0, heap=4)


def test_the_defaults_say_what_a_game_without_chance_and_with_dataclass_rules_is() -> None:
    state = TAKE.initial_state(TAKE.make_config(heap=1))
    assert TAKE.config_params(TAKE.make_config()) == {"heap": 5}
    assert (TAKE.legal_action_mask(state), TAKE.decision_name(state)) == ([1, 0], "move")
    assert (TAKE.has_chance, TAKE.is_chance(state), TAKE.decisions_per_turn) == (False, False, 1)
    assert (TAKE.scores(state), TAKE.render_text(state)) == ({}, "1 1 0 0")
    assert (TAKE.action_to_text(state, 1), TAKE.action_from_text(state, " 1 ")) == ("1", 1)
    for draw in (TAKE.chance_outcomes, lambda state: TAKE.sample_chance(state, np.random)):
        with pytest.raises(ValueError, match=r"^Take has no chance nodes$"):
            draw(state)
    with pytest.raises(ValueError, match=r"^Take has no rule parameter \['size'\]; allowed"):
        TAKE.make_config(size=3)
    for text in ("2", "x", "٣"):
        with pytest.raises(ValueError, match=r"^an action is a number 0\.\.1, got"):
            TAKE.action_from_text(state, text)


def test_a_chance_node_takes_the_last_decision_name() -> None:
    colosseum = get_game("colosseum")
    start = colosseum.initial_state(colosseum.make_config(board_size=4))
    assert colosseum.decision_name(start) == "start"
    assert colosseum.decision_name(colosseum.apply(start, 0)) == "move"


def test_a_game_class_missing_a_member_is_refused_when_defined() -> None:
    left_out = ("observe", "apply")
    members = {name: value for name, value in vars(Take).items() if name not in left_out}
    with pytest.raises(TypeError, match=r"^Half lacks .*: apply, observe$"):
        type("Half", (GameBase,), members)

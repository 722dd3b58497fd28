"""Tests of trap_env.testing: every game passes its conformance checks, and the checks
catch a game that breaks the protocol, naming the game, the state and what differed."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support import toy_game
from tests.support.games import every_game, small_rules
from trap_env import testing
from trap_env.games import get_game
from trap_env.testing import ConformanceError, check_batched_engine, check_game

SMALL = {"trap": 4, "othello": 4, "colosseum": 5}
"""Each shipped game's board for a fast check."""


@every_game()
def test_every_game_keeps_the_protocol_and_its_adapters_pass_their_checkers(game: str) -> None:
    check_game(game, games=2, **small_rules(game, board_size=SMALL.get(game)))


@every_game("batched engine")
def test_every_batched_engine_answers_as_its_scalar_rules(game: str) -> None:
    check_batched_engine(game, games=6, **small_rules(game, board_size=SMALL.get(game)))


class Broken:
    """A game that answers as ``game`` but for the methods given."""

    def __init__(self, game: Any, **methods: Any) -> None:
        self._game, self._methods = game, methods

    def __getattr__(self, name: str) -> Any:
        return self._methods.get(name) or getattr(self._game, name)


OTHELLO = get_game("othello")


@pytest.mark.parametrize(
    ("methods", "what"),
    [
        ({"to_text": lambda state: re.sub(" [0-9]+ ", " 0 ", OTHELLO.to_text(state))},
         "from_text refuses to_text's text"),
        ({"legal_action_mask": lambda state: [0] * 17}, "the mask"),
        ({"apply": lambda state, action: state}, "apply accepted the illegal action -1"),
        ({"outcome": lambda state, max_turns=None: OTHELLO.outcome(state, max_turns and 3)},
         "at turn 3 of a limit of 32"),
        ({"observe": lambda state, player: OTHELLO.observe(state, player) * 2}, "space"),
        ({"describe": lambda state: {"legal": {OTHELLO.to_text(state)}}}, "is not a JSON object"),
        ({"describe": lambda state: {"grid": {**OTHELLO.describe(state)["grid"], "cols": 0}}},
         "a grid's cols is an integer >= 1"),
        ({"describe": lambda state: {"grid": {**OTHELLO.describe(state)["grid"], "cells": {
            "0": {"piece": "dark", "mark": "dark"}, "1": {}}}}}, "describe's grid reads back"),
    ],
)
def test_a_broken_game_fails_naming_the_game_the_state_and_the_difference(
    methods: dict[str, Any], what: str
) -> None:
    with pytest.raises(ConformanceError, match=r"^othello: .*" + re.escape(what)) as raised:
        check_game(Broken(OTHELLO, **methods), games=1, adapters=False, board_size=4)
    assert "(state '" in str(raised.value)
    assert isinstance(raised.value, AssertionError)


def test_chance_probabilities_that_do_not_sum_to_one_fail() -> None:
    trap = get_game("trap")

    def lopsided(state: Any) -> list[tuple[int, float]]:
        return [(cell, 0.5) for cell, _ in trap.chance_outcomes(state)]

    broken = Broken(trap, chance_outcomes=lopsided)
    with pytest.raises(ConformanceError, match=r"^trap: chance sums to"):
        check_game(broken, games=3, adapters=False, board_size=4)


def test_a_batched_engine_that_differs_from_the_rules_fails() -> None:
    othello = get_game("othello")

    def engine(config: Any) -> Any:
        real = othello.batched_engine(config)
        return Broken(real, turns=lambda batch: real.turns(batch) + 1)

    with pytest.raises(ConformanceError, match=r"^othello: turns gives 1, the rules 0"):
        check_batched_engine(Broken(othello, batched_engine=engine), games=2, board_size=4)


def test_the_openspiel_check_is_skipped_with_a_note_without_pyspiel(monkeypatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel now raises
    with pytest.warns(UserWarning, match="random_sim_test of 'othello' skipped: pyspiel"):
        check_game("othello", games=1, board_size=4)


RACE = toy_game.GAME


def _stalled_apply(state: Any, action: int) -> Any:
    """Race's apply that checks the action, then leaves the state as it was."""
    RACE.apply(state, action)
    return state


@pytest.mark.timeout(30)  # the old check played such a game forever
def test_a_game_that_does_not_advance_fails_promptly_naming_it() -> None:
    stalled = Broken(RACE, apply=_stalled_apply)
    message = r"^race: the game does not advance: turn 0 after 3 applies in a row, .* \(state '0 0"
    with pytest.raises(ConformanceError, match=message):
        check_game(stalled, games=1, adapters=False, goal=4)


def test_a_batched_check_reports_a_game_that_does_not_end_instead_of_passing() -> None:
    # The limit is ignored, so the games go on past it (the old check stopped after a
    # fixed number of steps and passed).
    endless = Broken(RACE, default_turn_limit=lambda config: 1,
                     outcome=lambda state, max_turns=None: RACE.outcome(state))
    with pytest.raises(ConformanceError, match=r"^race: the game does not end: 7 applies, turn "
                                               r"\d+ of a limit of 1 \(state '"):
        check_batched_engine(endless, games=2, goal=20)


def test_a_game_that_does_not_end_within_the_cap_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(testing, "_MAX_STEPS", 3)  # a cap below Race's shortest game
    with pytest.raises(ConformanceError, match=r"^race: the game does not end: 4 applies"):
        check_game(RACE, games=1, adapters=False, goal=4)
    with pytest.raises(ConformanceError, match=r"^race: the game does not end: 4 applies"):
        check_batched_engine(RACE, games=2, goal=4)


def _raises(error: Exception) -> Any:
    def method(*args: Any, **kwargs: Any) -> Any:
        raise error

    return method


@pytest.mark.parametrize(
    ("methods", "step"),
    [
        ({"initial_state": _raises(KeyError("start"))}, "initial_state(OthelloConfig("),
        ({"to_text": _raises(IndexError("cell"))}, "to_text(OthelloState("),
        ({"observe": _raises(RuntimeError("planes"))}, "observe(OthelloState("),
        ({"legal_actions": _raises(TypeError("moves"))}, "legal_actions(OthelloState("),
        ({"outcome": _raises(ZeroDivisionError("end"))}, "outcome(OthelloState("),
        ({"default_turn_limit": _raises(AttributeError("limit"))}, "default_turn_limit("),
        ({"scores": _raises(RuntimeError("counts"))}, "Gymnasium's check_env"),
    ],
)
def test_a_game_s_own_exception_is_a_conformance_error_naming_the_step(
    methods: dict[str, Any], step: str
) -> None:
    broken = Broken(OTHELLO, **methods)
    with pytest.raises(ConformanceError, match=r"^othello: " + re.escape(step)) as raised:
        check_game(broken, games=1, board_size=4)
    cause = raised.value.__cause__
    assert cause is not None and f"raised {type(cause).__name__}: " in str(raised.value)
    assert "\n" not in str(raised.value)


def test_apply_that_raises_another_error_for_an_illegal_action_is_named() -> None:
    def apply(state: Any, action: int) -> Any:
        if action == -1:
            raise IndexError("list index out of range")
        return OTHELLO.apply(state, action)

    with pytest.raises(ConformanceError, match=r"^othello: apply\(state, -1\) raised IndexError"):
        check_game(Broken(OTHELLO, apply=apply), games=1, adapters=False, board_size=4)


@pytest.mark.parametrize("games", [0, -1, 1.5, True, "2", None])
def test_a_number_of_games_that_plays_nothing_is_refused(games: Any) -> None:
    with pytest.raises(ValueError, match=r"^games must be a positive integer, got "):
        check_game("othello", games=games, adapters=False, board_size=4)
    with pytest.raises(ValueError, match=r"^games must be a positive integer, got "):
        check_batched_engine("othello", games=games, board_size=4)

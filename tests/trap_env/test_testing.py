"""Tests of trap_env.testing: every game passes its conformance checks, and the checks
catch a game that breaks the protocol, naming the game, the state and what differed."""

from __future__ import annotations

import re
from typing import Any

import pytest

from trap_env.games import game_names, get_game
from trap_env.testing import ConformanceError, check_batched_engine, check_game

SMALL = {"trap": {"board_size": 4}, "othello": {"board_size": 4}, "colosseum": {"board_size": 5}}
"""Each game's rules for a fast check (small boards)."""


@pytest.mark.parametrize("name", game_names())
def test_every_game_keeps_the_protocol_and_its_adapters_pass_their_checkers(name: str) -> None:
    check_game(name, games=2, **SMALL.get(name, {}))


@pytest.mark.parametrize(
    "name", [name for name in game_names() if hasattr(get_game(name), "batched_engine")]
)
def test_every_batched_engine_answers_as_its_scalar_rules(name: str) -> None:
    check_batched_engine(name, games=6, **SMALL.get(name, {}))


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

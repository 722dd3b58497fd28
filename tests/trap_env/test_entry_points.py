"""Tests of trap_env.entry_points: every id and PettingZoo module of a game plays that game;
a ``game=`` naming another game is refused in one line, wherever the game is named (the ids
of Gymnasium's ``make`` and ``make_vec``, PettingZoo's ``make``, the games' modules, the ids
of games from outside)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import pettingzoo
import pytest

import trap_env
from trap_env.games import entries, get_game

OTHER = {"trap": "othello", "othello": "colosseum", "colosseum": "trap"}
"""Each game of the suite, and another game's name to give its ids."""
SMALL = {"trap": {"board_size": 5}, "othello": {"board_size": 4}, "colosseum": {"board_size": 5}}
ENTRIES = {entry.name: entry for entry in entries() if entry.name in OTHER}


def _makers(name: str) -> dict[str, tuple[str, Callable[..., Any]]]:
    """Every way to make an env of the game ``name``, and what its refusal names."""
    entry = ENTRIES[name]
    module = getattr(trap_env, f"{name}_v0")
    gym_id, aec_id = str(entry.gym_id), str(entry.aec_id)
    return {
        "make": (gym_id, lambda **kw: gymnasium.make(gym_id, **kw)),
        "make_vec": (gym_id, lambda **kw: gymnasium.make_vec(gym_id, num_envs=2, **kw)),
        "make_vec sync": (gym_id, lambda **kw: gymnasium.make_vec(
            gym_id, num_envs=2, vectorization_mode="sync", **kw)),
        "pettingzoo.make": (aec_id, lambda **kw: pettingzoo.make("aec", aec_id, **kw)),
        "module env": (f"{name}_v0", module.env),
        "module raw_env": (f"{name}_v0", module.raw_env),
    }


WAYS = sorted(_makers("trap"))


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("name", sorted(OTHER))
def test_an_id_or_module_refuses_a_game_naming_another_game(name: str, way: str) -> None:
    where, make = _makers(name)[way]
    message = (rf"^{where} plays the game '{name}', so game= names only it; got str "
               rf"'{OTHER[name]}' \(each game has ids and a module of its own")
    with pytest.raises(ValueError, match=message):
        make(game=OTHER[name], **SMALL[name])


@pytest.mark.parametrize("way", ["make", "pettingzoo.make", "module env"])
@pytest.mark.parametrize("name", sorted(OTHER))
def test_an_id_or_module_takes_its_own_game_by_name_or_object(name: str, way: str) -> None:
    _, make = _makers(name)[way]
    for game in (name, get_game(name)):
        env = make(game=game, **SMALL[name])
        assert env.unwrapped.game is get_game(name)
        env.close()


def test_trap_env_env_refuses_another_game() -> None:
    with pytest.raises(ValueError, match=r"^trap_v0 plays the game 'trap', so game= names only"):
        trap_env.env(game="othello")


def test_the_id_of_a_game_given_by_its_path_refuses_another_game() -> None:
    gym_id = trap_env.register_gym_env("tests.support.toy_game:GAME")
    with pytest.raises(ValueError, match=r"^this id plays the game 'tests.support.toy_game:GAME'"):
        gymnasium.make(gym_id, game="othello")
    env = gymnasium.make(gym_id, opponent="tests.support.toy_game.RandomRacer", goal=3)
    assert env.unwrapped.game.name == "race"


def test_an_unknown_attribute_of_the_module_is_an_attribute_error() -> None:
    from trap_env import entry_points

    for attribute in ("env", "board@trap", "__wrapped__"):
        with pytest.raises(AttributeError, match=f"has no attribute '{attribute}'"):
            getattr(entry_points, attribute)

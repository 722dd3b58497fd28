"""Tests of trap_env.games' table of games and of the ids ``import trap_env`` registers."""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys

import gymnasium
import pettingzoo
import pytest
from gymnasium.envs.registration import load_env_creator

import trap_env
from tests.support.toy_game import Race, RandomRacer
from trap_env.aec_env import BoundAECEnv
from trap_env.entry_points import BoundEntryPoint
from trap_env.games import (
    GAME_TABLE,
    GameEntry,
    UnknownGameError,
    bound_entry_point,
    entry_of,
    game_names,
    get_game,
    path_of,
    recorded_game,
    register_game,
)

SUITE = {
    "trap": ("trap_env/Trap-v0", "trap_env/trap_v0", "python_trap"),
    "othello": ("trap_env/Othello-v0", "trap_env/othello_v0", "python_othello"),
    "colosseum": ("trap_env/Colosseum-v0", "trap_env/colosseum_v0", "python_colosseum"),
}


def test_the_table_declares_each_games_own_ids() -> None:
    declared = {entry.name: (entry.gym_id, entry.aec_id, entry.spiel_name) for entry in GAME_TABLE}
    assert declared == SUITE
    assert SUITE["trap"][0] == trap_env.GYM_ID and SUITE["trap"][1] == trap_env.AEC_ID
    assert SUITE["othello"][0] == trap_env.OTHELLO_GYM_ID
    assert SUITE["colosseum"][0] == trap_env.COLOSSEUM_GYM_ID


@pytest.mark.parametrize("entry", GAME_TABLE, ids=lambda entry: entry.name)
def test_every_path_of_the_table_imports(entry: GameEntry) -> None:
    assert get_game(entry.name).name == entry.name
    paths = [entry.env_entry_point, entry.vector_entry_point, entry.aec_entry_point]
    for path in paths:
        module, _, attribute = path.partition(":")
        assert callable(getattr(importlib.import_module(module), attribute))
    batched = hasattr(get_game(entry.name), "batched_engine")
    assert entry.vector_entry_point.endswith("VectorEnv") == batched


@pytest.mark.parametrize("entry", GAME_TABLE, ids=lambda entry: entry.name)
def test_import_registers_every_entrys_ids(entry: GameEntry) -> None:
    assert entry.gym_id is not None and entry.aec_id is not None
    spec = gymnasium.spec(entry.gym_id)
    registered = {
        "env": spec.entry_point,
        "vector_env": spec.vector_entry_point,
        "aec_env": pettingzoo.spec("aec", entry.aec_id).entry_point,
    }
    targets = {
        "env": entry.env_entry_point,
        "vector_env": entry.vector_entry_point,
        "aec_env": entry.aec_entry_point,
    }
    for kind, path in registered.items():
        assert path == bound_entry_point(kind, entry.name)
        assert BoundEntryPoint(kind, entry.name).target is load_env_creator(targets[kind])
    aec = pettingzoo.make("aec", entry.aec_id)
    aec.reset(seed=0)
    assert aec.unwrapped.game.name == entry.name
    assert aec.metadata["name"] == entry.aec_id.partition("/")[2]


def test_import_trap_env_imports_no_game() -> None:
    code = (
        "import sys, trap_env\n"
        "print(sorted(m for m in sys.modules if m.startswith('trap_env')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    loaded = ["trap_env", "trap_env.aliases", "trap_env.checks", "trap_env.game", "trap_env.games"]
    assert done.stdout.strip() == str(loaded)


@pytest.mark.parametrize("name", sorted(SUITE))
def test_each_game_has_a_pettingzoo_module(name: str) -> None:
    module = getattr(trap_env, f"{name}_v0")
    assert callable(module.env) and isinstance(module.raw_env, type)
    assert module is importlib.import_module(f"trap_env.{name}_v0")
    exec(f"from trap_env import {name}_v0", {})  # the documented import
    aec = pettingzoo.make("aec", f"trap_env/{name}_v0")
    assert type(aec.unwrapped) is module.raw_env


@pytest.mark.parametrize("name", ["othello", "colosseum"])
def test_a_game_without_a_module_of_its_own_is_served_one_from_the_table(name: str) -> None:
    module = importlib.import_module(f"trap_env.{name}_v0")
    raw = module.raw_env(board_size=4)
    assert isinstance(raw, BoundAECEnv) and raw.game is get_game(name)
    assert raw.metadata["name"] == f"{name}_v0" and module.raw_env.__module__ == module.__name__
    assert type(pickle.loads(pickle.dumps(raw))) is module.raw_env  # found by its name
    with pytest.raises(ValueError, match=f"^{name}_v0 plays the game '{name}', so game= names"):
        module.env(game="trap")


def test_an_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'chess_v0'"):
        trap_env.chess_v0  # noqa: B018


class _IdsRace(Race):
    name = "race_ids"


class _BadIdRace(Race):
    name = "race_bad_id"


@pytest.fixture
def own_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table of games as it is now, restored after the test (registering is global)."""
    from trap_env import games

    monkeypatch.setattr(games, "_GAMES", dict(games._GAMES))
    monkeypatch.setattr(games, "_ENTRIES", dict(games._ENTRIES))


@pytest.mark.usefixtures("own_table")
def test_register_game_registers_the_ids_it_is_given() -> None:
    game = _IdsRace()
    entry = register_game(game, gym_id="outside/RaceIds-v0", aec_id="outside/race_ids_v0")
    assert entry_of("race_ids") == entry and entry.game is game
    env = gymnasium.make("outside/RaceIds-v0", opponent=RandomRacer())
    env.reset(seed=0)
    assert env.unwrapped.game is game
    aec = pettingzoo.make("aec", "outside/race_ids_v0")
    aec.reset(seed=0)
    assert aec.unwrapped.game is game


@pytest.mark.usefixtures("own_table")
def test_register_game_refuses_an_id_that_is_no_string() -> None:
    with pytest.raises(ValueError, match="gym_id must be a string"):
        register_game(_BadIdRace(), gym_id=3)  # type: ignore[arg-type]
    assert entry_of("race_bad_id") is None


def test_the_ids_of_a_registered_game_make_its_envs_in_a_spawned_process() -> None:
    """A fresh process knows only the suite's table: a registered game's ids are bound to
    where an import finds it (the tests' Race, registered for the session), not its name."""
    from tests.support import toy_game

    assert path_of(toy_game.GAME) == "tests.support.toy_game:GAME"
    assert path_of(_IdsRace()) is None  # made at run time: bound to its name
    spec = gymnasium.spec("tests/Race-v0")
    assert spec.entry_point == "trap_env.entry_points:env@tests.support.toy_game/GAME"
    envs = gymnasium.make_vec("tests/Race-v0", 1, vectorization_mode="async",
                              vector_kwargs={"context": "spawn"})  # fmt: skip
    try:
        observations, _ = envs.reset(seed=0)
    finally:
        envs.close()
    assert observations.shape == (1, 1, 5, 2)
    assert gymnasium.make("tests/Race-v0", game="race").unwrapped.game is toy_game.GAME


class _ElsewhereRace(Race):
    name = "race_elsewhere"


def test_a_recorded_name_is_a_registered_game_or_the_game_played() -> None:
    """What a file records (a network's, a zip's game): never a module to import."""
    elsewhere = _ElsewhereRace()  # registered nowhere: a game named by its path
    assert recorded_game("race_elsewhere", elsewhere) is elsewhere
    assert recorded_game("trap", elsewhere) is get_game("trap")
    names = f"which is not one of {', '.join(game_names())}"  # the tests' strangers among them
    with pytest.raises(UnknownGameError, match=rf"^the game 'race_elsewhere', {names}$"):
        recorded_game("race_elsewhere")
    with pytest.raises(UnknownGameError, match=rf"^the game 'os:system', {names}, nor 'race_"):
        recorded_game("os:system", elsewhere)


@pytest.mark.parametrize(
    "module",
    [
        "trap_env",
        "trap_env.games",
        "trap_env.entry_points",
        "trap_env.rendering",
        "trap_env.batched_env",
        "trap_env.trap.gym_env",
        "trap_env.trap.batched_env",
        "trap_env.trap.aec_env",
        "trap_env.trap.rendering",
        "trap_env.aliases",
        "trap_env.game_base",
    ],
)
def test_the_examples_of_the_entry_points_run(module: str) -> None:
    import doctest

    assert doctest.testmod(importlib.import_module(module)).failed == 0

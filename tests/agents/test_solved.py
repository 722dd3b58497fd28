"""The solved tables' generic floor: the cache, the file format, the choice among ties."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np
import pytest

import agents.othello.solve
from agents import solved
from agents.solved import (
    SolvedTable,
    best_action,
    cache_folder,
    load_or_solve,
    load_part,
    save_part,
    solvable_games,
    solver,
    table_path,
    work_folder,
)
from trap_env.games import game_names


def test_ties_go_to_the_lowest_action() -> None:
    assert best_action({5: 0.5, 2: 0.5 - 1e-12, 7: 0.1}) == 2
    assert best_action({5: 0.5, 2: 0.4}) == 5


def test_the_cache_follows_xdg_cache_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_folder() == tmp_path / "trap_env" / "solved"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_folder() == Path.home() / ".cache" / "trap_env" / "solved"


def test_a_table_reads_back_as_saved(tmp_path: Path) -> None:
    table = SolvedTable(
        "trap", {"board_size": 3, "decay": 0}, {"move": np.arange(3.0)}, {"value": 1.0}
    )
    table.save(tmp_path / "t.npz")
    found = SolvedTable.load(tmp_path / "t.npz")
    assert found is not None
    assert (found.game, found.rules, found.report) == (table.game, table.rules, table.report)
    np.testing.assert_array_equal(found.arrays["move"], table.arrays["move"])


def test_a_damaged_or_missing_table_is_solved_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    rules = {"board_size": 3, "decay": 0}  # every throw lands: 36 sweeps
    path = table_path("trap", rules)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a table")
    assert SolvedTable.load(path) is None
    table, cached = load_or_solve("trap", rules)
    assert not cached and table.rules == rules
    assert load_or_solve("trap", rules)[1]


def test_a_table_of_an_earlier_format_is_solved_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Format 1's Trap! tables report plain sweeps' limit as the value without a turn limit.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    rules = {"board_size": 3, "decay": 0}
    path = table_path("trap", rules)
    meta = {"format": 1, "game": "trap", "rules": rules, "report": {"value": 1.0}}
    path.parent.mkdir(parents=True)
    np.savez(path, move=np.zeros(3), meta=np.array(json.dumps(meta)))
    assert SolvedTable.load(path) is None
    table, cached = load_or_solve("trap", rules)
    assert not cached and "move_low" in table.arrays


def test_a_game_with_no_solver_is_refused_naming_those_with_one() -> None:
    message = "^no solver for the game 'nim'; solvable games: colosseum, othello, trap$"
    with pytest.raises(ValueError, match=message):
        load_or_solve("nim", {"board_size": 4})
    with pytest.raises(ValueError, match=r"^no solver for the game 'trap_env\.trap\.game:GAME'"):
        load_or_solve("trap_env.trap.game:GAME", {"board_size": 3})  # a path: no agents here


def test_each_games_solver_is_the_one_its_agents_package_declares(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for game in ("trap", "colosseum", "othello"):
        assert solver(game) is importlib.import_module(f"agents.{game}.solve").solve
    # The solvable games are asked of each registered game, not listed here.
    monkeypatch.delattr(agents.othello.solve, "solve")
    assert solver("othello") is None and solvable_games() == ["colosseum", "trap"]
    message = "^no solver for the game 'othello'; solvable games: colosseum, trap$"
    with pytest.raises(ValueError, match=message):
        load_or_solve("othello", {"board_size": 4})


def test_the_generic_module_holds_no_table_by_game() -> None:
    # A game's solver is declared in its own agents package, so a new game adds its own
    # there, not here.
    for name, value in vars(solved).items():
        assert not (isinstance(value, dict) and set(value) & set(game_names())), name


def test_a_part_reads_back_and_a_damaged_one_is_none(tmp_path: Path) -> None:
    save_part(tmp_path, "sweeps", {"move": np.arange(4.0), "sweeps": np.array(10)})
    found = load_part(tmp_path, "sweeps")
    assert found is not None and int(found["sweeps"]) == 10
    np.testing.assert_array_equal(found["move"], np.arange(4.0))
    (tmp_path / "sweeps.npz").write_bytes(b"cut short")
    assert load_part(tmp_path, "sweeps") is None
    assert load_part(tmp_path, "missing") is None


def test_a_long_solves_parts_go_once_its_table_is_saved(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr("agents.trap.solve.CHECKPOINT_PLACEMENTS", 0)  # 3x3 saves as 4x4 does
    rules = {"board_size": 3, "decay": 0}  # 36 sweeps: saved at 10, 20 and 30
    saved: list[Path] = []

    def spy(folder: Path, name: str, arrays: dict[str, object]) -> None:
        saved.append(folder)
        save_part(folder, name, arrays)

    monkeypatch.setattr("agents.trap.solve.save_part", spy)
    load_or_solve("trap", rules)
    assert set(saved) == {work_folder("trap", rules)}
    assert not work_folder("trap", rules).exists() and table_path("trap", rules).exists()

"""Moved names keep working for a deprecation period (trap_env.aliases): every module and name
that moved imports from its old home with a DeprecationWarning naming the new one; names that
never were stay errors."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import agents
import trap_env
from trap_env import aliases

ROOT = Path(__file__).resolve().parents[2]
MOVED_MODULES = {**trap_env.MOVED_MODULES, **agents.MOVED_MODULES}
MOVED_NAMES = {
    **{f"trap_env.{name}": f"trap_env.trap.core.{name}" for name in trap_env._MOVED_TRAP_RULES},
    "trap_env.trap.GAME": "trap_env.trap.game.GAME",
    "trap_env.trap.Trap": "trap_env.trap.game.Trap",
    "agents.search.Game": "agents.search.game.SearchGame",
    "agents.search.TrapGame": "agents.trap.search_game.TrapGame",
    "trap_env.othello.batched.RandomOpponent": "trap_env.othello.batched.BatchedRandom",
}
"""Each name that moved out of a module that stays -> its new home."""


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Forget the old names imported so far, so that importing one imports it again."""
    for old in MOVED_MODULES:
        parent, _, child = old.rpartition(".")
        monkeypatch.delitem(sys.modules, old, raising=False)
        if parent in sys.modules:
            monkeypatch.delattr(sys.modules[parent], child, raising=False)
    yield


@pytest.mark.parametrize(("old", "new"), sorted(MOVED_MODULES.items()))
def test_each_moved_module_is_served_from_its_old_name_and_holds_no_file_there(
    old: str, new: str
) -> None:
    assert importlib.util.find_spec(new) is not None, f"{new} is no module"
    assert aliases._FINDER.find_spec(old, None) is not None
    path = ROOT.joinpath(*old.split("."))
    assert not path.with_suffix(".py").exists() and not path.is_dir()


@pytest.mark.usefixtures("fresh")
def test_from_trap_env_import_core_warns_and_gives_trap_s_rules() -> None:
    namespace: dict[str, object] = {}
    with pytest.warns(DeprecationWarning, match=r"^trap_env\.core is deprecated: it moved to "
                      r"trap_env\.trap\.core$") as caught:  # fmt: skip
        exec("from trap_env import core", namespace)
    assert namespace["core"] is importlib.import_module("trap_env.trap.core")
    assert caught[0].filename == "<string>"  # the importer's line, not the import machinery's


@pytest.mark.usefixtures("fresh")
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("trap_env.kernel", "trap_env.trap.kernel"),
        ("trap_env.othello.aec_env", "trap_env.othello_v0"),
        ("agents.search.agent", "agents.trap.search"),
    ],
)
def test_a_moved_module_imports_its_new_home_with_a_warning(old: str, new: str) -> None:
    with pytest.warns(DeprecationWarning, match=f"^{old} is deprecated: it moved to {new}$"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)


@pytest.mark.parametrize(("old", "new"), sorted(MOVED_NAMES.items()))
def test_a_moved_name_gives_its_new_home_with_a_warning(old: str, new: str) -> None:
    (module, name), (new_module, attribute) = old.rsplit(".", 1), new.rsplit(".", 1)
    with pytest.warns(DeprecationWarning, match=f"^{old} is deprecated: it moved to {new}$"):
        found = getattr(importlib.import_module(module), name)
    assert found is getattr(importlib.import_module(new_module), attribute)


def test_register_gym_env_is_a_deprecated_alias_of_register_game() -> None:
    with pytest.warns(DeprecationWarning, match=r"register_game\(game, gym_id=\.\.\.\)"):
        assert trap_env.register_gym_env("othello") == trap_env.OTHELLO_GYM_ID


def test_a_name_that_never_was_is_still_an_error() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("trap_env.no_such_module")
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        trap_env.trap.no_such_name  # type: ignore[attr-defined]  # noqa: B018

"""The import contract: the generic floors import no game, no game imports another, and
``trap_env`` imports no agent.

The generic floors are the modules of ``trap_env`` outside the game folders, every module of
``agents.search``, ``agents.mcts``, ``agents.rl``, ``agents.arena``, ``agents.rating`` and
``agents.web``, and the modules at the root of ``agents`` but the course's shim
(``agents/course.py``, which students import by that name). They reach a game only through the
table of games (its ``module:attr`` strings). A game's own packages (``trap_env/<game>/``,
``agents/<game>/``) import the generic floors and themselves, never another game's: a
maintainer who copies a game inherits no other. Imports are read from the source, so an
import inside a function counts as much as one at the top.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

from trap_env.games import GAME_TABLE

ROOT = Path(__file__).resolve().parent.parent
GAME_PACKAGES = tuple(
    f"{floor}.{entry.name}" for floor in ("trap_env", "agents") for entry in GAME_TABLE
)
"""Each game's own packages: its rules and adapters (``trap_env``), its agents (``agents``)."""
GENERIC_AGENT_FLOORS = ("search", "mcts", "rl", "arena", "rating", "web")
AGENT_FLOORS = [ROOT / "agents" / floor for floor in GENERIC_AGENT_FLOORS]
SHIM = ROOT / "agents" / "course.py"

GENERIC_FLOORS = sorted(
    [
        *(ROOT / "trap_env").glob("*.py"),
        *(path for path in (ROOT / "agents").glob("*.py") if path != SHIM),
        *(path for folder in AGENT_FLOORS for path in folder.rglob("*.py")),
    ]
)
TRAP_ENV_MODULES = sorted((ROOT / "trap_env").rglob("*.py"))
GAME_MODULES = sorted(
    path
    for package in GAME_PACKAGES
    for path in (ROOT / package.replace(".", "/")).rglob("*.py")
)


def module_name(path: Path) -> str:
    """The dotted name of the module at ``path`` (a package by its ``__init__.py``)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> set[str]:
    """Every module that the source at ``path`` imports, anywhere in it, by its absolute name.

    ``from a.b import c`` counts as ``a.b`` and ``a.b.c`` (``c`` may be a module); a relative
    import is resolved against the module's own package.
    """
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *filter(None, [node.module])])
            found |= {module} | {f"{module}.{alias.name}" for alias in node.names}
    return found


def inside(module: str, packages: tuple[str, ...]) -> bool:
    """Whether ``module`` is one of ``packages`` or a module under one."""
    return any(module == package or module.startswith(f"{package}.") for package in packages)


def outermost(modules: Iterable[str]) -> list[str]:
    """The modules, sorted, but those under another of them (``a.b.c`` beside ``a.b``)."""
    found = set(modules)
    return sorted(module for module in found if not inside(module.rpartition(".")[0], tuple(found)))


def label(path: Path) -> str:
    """A test id: the path from the checkout's root."""
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("path", GENERIC_FLOORS, ids=label)
def test_a_generic_floor_imports_no_game(path: Path) -> None:
    games = outermost(module for module in imported_modules(path) if inside(module, GAME_PACKAGES))
    assert games == [], f"{label(path)} imports a game's package: {', '.join(games)}"


@pytest.mark.parametrize("path", GAME_MODULES, ids=label)
def test_a_game_imports_no_other_game(path: Path) -> None:
    game = module_name(path).split(".")[1]
    others = tuple(package for package in GAME_PACKAGES if package.split(".")[1] != game)
    found = outermost(module for module in imported_modules(path) if inside(module, others))
    assert found == [], f"{label(path)} imports another game's package: {', '.join(found)}"


@pytest.mark.parametrize("path", TRAP_ENV_MODULES, ids=label)
def test_trap_env_imports_no_agent(path: Path) -> None:
    found = outermost(module for module in imported_modules(path) if inside(module, ("agents",)))
    assert found == [], f"{label(path)} imports from agents: {', '.join(found)}"


def test_the_games_modules_are_every_module_of_each_games_packages() -> None:
    names = {module_name(path) for path in GAME_MODULES}
    assert {"trap_env.othello.batched", "agents.colosseum.search", "agents.trap.search"} <= names
    assert all(inside(name, GAME_PACKAGES) for name in names)


def test_the_floors_cover_every_generic_package_and_no_game() -> None:
    names = {module_name(path) for path in GENERIC_FLOORS}
    assert {"trap_env.games", "agents.registry", "agents.rl.alphazero.run"} <= names
    assert {f"agents.{floor}" for floor in GENERIC_AGENT_FLOORS} <= names
    assert not any(inside(name, GAME_PACKAGES) for name in names)
    assert "agents.course" not in names


@pytest.mark.parametrize(
    ("relative", "source", "found"),
    [
        ("agents/rl/new.py", "import trap_env.othello.rules", "trap_env.othello.rules"),
        ("agents/rl/new.py", "def f():\n    from agents.trap import search\n", "agents.trap"),
        ("agents/rl/new.py", "from ..colosseum import greedy", "agents.colosseum.greedy"),
        ("agents/rl/__init__.py", "from ..othello.search import x", "agents.othello.search"),
        ("trap_env/new.py", "from .trap import core", "trap_env.trap.core"),
        ("trap_env/trap/new.py", "from . import core", "trap_env.trap.core"),
        ("trap_env/new.py", "def f():\n    from agents import make_agent\n", "agents"),
    ],
)
def test_the_check_sees_absolute_relative_and_nested_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, relative: str, source: str, found: str
) -> None:
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    path = tmp_path / relative
    path.parent.mkdir(parents=True)
    path.write_text(source)
    assert found in imported_modules(path)

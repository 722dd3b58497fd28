"""The API reference covers what the guides use: every module of ``trap_env`` and ``agents`` is
on an API page (a mkdocstrings ``::: module`` line in docs/api/), and so is every name the
Python examples of docs/*.md and README.md import, with a docstring to show."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OUR_PACKAGES = ("trap_env", "agents")
GUIDES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
API_MODULES = {
    module
    for page in (ROOT / "docs" / "api").glob("*.md")
    for module in re.findall(r"^::: ([\w.]+)\s*$", page.read_text(encoding="utf-8"), re.M)
}


def is_ours(dotted: str) -> bool:
    return dotted.split(".")[0] in OUR_PACKAGES


def imported_names(source: str) -> set[tuple[str, str | None]]:
    """``(module, name)`` for each name an example takes from our packages: ``from M import
    name``, ``M.name`` after ``import M``, and ``(M, None)`` for ``import M`` itself."""
    tree = ast.parse(source)
    found: set[tuple[str, str | None]] = set()
    modules: dict[str, str] = {}  # a name the example binds -> the module it is
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in (alias for alias in node.names if is_ours(alias.name)):
                found.add((alias.name, None))
                bound = alias.asname or alias.name.split(".")[0]
                modules[bound] = alias.name if alias.asname else bound
        elif isinstance(node, ast.ImportFrom) and node.module and is_ours(node.module):
            for alias in node.names:
                found.add((node.module, alias.name))
                modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            module = modules.get(node.value.id)
            if module is not None and _is_module(module):
                found.add((module, node.attr))
    return found


def _is_module(dotted: str) -> bool:
    try:
        importlib.import_module(dotted)
    except ImportError:
        return False
    return True


MADE_MODULES_PAGE = "trap_env.aec_env"
"""Where the modules the package makes are shown: a game's PettingZoo module without a file
(``trap_env.othello_v0``) is made by ``trap_env.aec_env.game_module``."""


def page_of(module: str) -> str:
    """The module whose API page shows ``module``'s names: itself, or for a module made at
    import (no file of its own) :data:`MADE_MODULES_PAGE`."""
    return module if hasattr(importlib.import_module(module), "__file__") else MADE_MODULES_PAGE


def undocumented(module: str, name: str | None) -> str | None:
    """Why ``name`` of ``module`` (the module itself for None) is on no API page, or None."""
    target = importlib.import_module(module)
    if name is not None:
        target = getattr(target, name)
    if inspect.ismodule(target):
        if page_of(target.__name__) not in API_MODULES:
            return f"the module {target.__name__} has no '::: {target.__name__}' in docs/api/"
        return None
    # A class or function is shown where it is defined; other values where they are imported.
    home = page_of(getattr(target, "__module__", module) if callable(target) else module)
    if home not in API_MODULES:
        return f"{module}.{name} is defined in {home}, which has no '::: {home}' in docs/api/"
    if callable(target) and (target.__name__.startswith("_") or not target.__doc__):
        return f"{home}.{target.__name__} is private or has no docstring: the page leaves it out"
    return None


def guide_imports() -> list[tuple[str, str, str | None]]:
    """``(guide, module, name)`` for every import of our packages in the guides' examples."""
    found = set()
    for guide in GUIDES:
        text = guide.read_text(encoding="utf-8")
        for block in re.findall(r"```python\n(.*?)```", text, re.DOTALL):
            found |= {(guide.name, module, name) for module, name in imported_names(block)}
    return sorted(found, key=str)


IMPORTS = guide_imports()


@pytest.mark.parametrize(
    "guide, module, name", IMPORTS, ids=[f"{g}:{m}" + (f".{n}" if n else "") for g, m, n in IMPORTS]
)
def test_every_name_the_guides_import_is_on_an_api_page(guide, module, name):
    reason = undocumented(module, name)
    assert reason is None, f"{guide} imports it, but {reason}"


def test_the_guides_import_the_names_the_api_pages_must_show():
    # The parser's own check: the guides' imports of agents.rating and agents.rl.sb3 are seen.
    names = {(module, name) for _, module, name in IMPORTS}
    assert {("agents.rating", "rate"), ("agents.rl.sb3", "to_sb3"), ("trap_env", None)} <= names
    assert ("trap_env", "get_game") in names  # ``trap_env.get_game(...)`` after ``import``


def test_imports_and_attributes_are_read_from_an_example():
    source = (
        "import trap_env\nimport agents.rl.ppo as ppo\nfrom trap_env.trap import core\n"
        "from agents import make_agent as build\n"
        "trap_env.get_game('trap'); core.apply; ppo.stamp_model; build.x\n"
    )
    assert imported_names(source) == {
        ("trap_env", None), ("agents.rl.ppo", None), ("trap_env.trap", "core"),
        ("agents", "make_agent"), ("trap_env", "get_game"), ("trap_env.trap.core", "apply"),
        ("agents.rl.ppo", "stamp_model"),
    }


def test_a_module_off_the_pages_is_named():
    assert undocumented("agents.rl.sb3", "to_sb3") is None
    assert "json" not in API_MODULES and "no '::: json'" in str(undocumented("json", None))


def public_modules() -> list[str]:
    """Every module of our packages whose dotted name has no part beginning with ``_``."""
    names = []
    for package in OUR_PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                continue  # a package's page is its modules' (``::: trap_env`` is one exception)
            if not any(part.startswith("_") for part in parts):
                names.append(".".join(parts))
    return sorted(names)


def test_every_module_is_on_an_api_page():
    missing = [module for module in public_modules() if module not in API_MODULES]
    assert not missing, (
        f"modules on no API page: {', '.join(missing)}; add '::: <module>' to a page of "
        "docs/api/ (mkdocs build --strict renders it)"
    )


def test_every_api_page_is_in_the_nav():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(f"api/{page.name}" for page in (ROOT / "docs" / "api").glob("*.md"))
    assert [page for page in pages if page not in nav] == []

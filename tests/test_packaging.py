"""setup.cfg ships every package and a console command for every script."""

from __future__ import annotations

import configparser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = configparser.ConfigParser()
CONFIG.read(ROOT / "setup.cfg", encoding="utf-8")


def _listed(section: str, key: str) -> set[str]:
    return {line.strip() for line in CONFIG[section][key].splitlines() if line.strip()}


def test_every_package_directory_is_listed() -> None:
    # scripts/ is installed as trap_scripts (see package_dir).
    names = {"scripts": "trap_scripts"}
    found = set()
    for top in ("trap_env", "agents", "scripts"):
        for init in (ROOT / top).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT).parts
            found.add(".".join((names.get(parts[0], parts[0]), *parts[1:])))
    assert found == _listed("options", "packages")


def test_every_script_is_a_console_command() -> None:
    commands = " ".join(_listed("options.entry_points", "console_scripts"))
    for script in (ROOT / "scripts").glob("*.py"):
        if not script.name.startswith("_"):
            assert f"trap_scripts.{script.stem}:main" in commands, script.name


def test_the_test_command_installs_every_extra() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = readme.split("<!-- test-command -->")[1].split("<!-- /test-command -->")[0]
    installed = set(command.split('pip install -e ".[')[1].split("]")[0].split(","))
    assert installed == set(CONFIG["options.extras_require"]), "CI must test every extra"

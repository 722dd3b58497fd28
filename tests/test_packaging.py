"""The wheel ships every file of trap_env/, agents/ and scripts/ (as trap_scripts), packages
found and not listed, and builds without a warning; every script is a console command."""

from __future__ import annotations

import configparser
import importlib.util
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import trap_env

ROOT = Path(__file__).resolve().parent.parent
CONFIG = configparser.ConfigParser()
CONFIG.read(ROOT / "setup.cfg", encoding="utf-8")


SHIPPED = {"trap_env": "trap_env", "agents": "agents", "scripts": "trap_scripts"}
"""The source trees the wheel ships, by the package each installs as (setup.cfg's
``package_dir``)."""


def _listed(section: str, key: str) -> set[str]:
    return {line.strip() for line in CONFIG[section][key].splitlines() if line.strip()}


def test_every_script_is_a_console_command() -> None:
    commands = " ".join(_listed("options.entry_points", "console_scripts"))
    for script in (ROOT / "scripts").glob("*.py"):
        if not script.name.startswith("_"):
            assert f"trap_scripts.{script.stem}:main" in commands, script.name


def test_the_test_command_installs_every_extra() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = readme.split("<!-- test-command -->")[1].split("<!-- /test-command -->")[0]
    # The main venv's install and RLlib's venv of its own (RLlib pins its own Gymnasium).
    installs = command.split('pip install -e ".[')[1:]
    installed = {extra for install in installs for extra in install.split("]")[0].split(",")}
    assert installed == set(CONFIG["options.extras_require"]), "CI must test every extra"


def test_the_wheel_builds_without_a_warning_and_ships_every_file_of_its_trees(
    tmp_path: Path,
) -> None:
    """Every module, package, model, ladder and static file, wherever it is added: nothing is
    listed, so nothing can be left off a list."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()  # fmt: skip
    source = tmp_path / "source"
    for name in tracked:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    isolation = [] if importlib.util.find_spec("setuptools") is None else ["--no-build-isolation"]
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", *isolation, "-w",
         str(tmp_path / "wheel"), str(source)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    warnings = [line for line in (built.stdout + built.stderr).splitlines() if "Warning:" in line]
    assert not warnings, warnings  # setuptools' own (pip's are "WARNING:")
    [wheel] = (tmp_path / "wheel").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    dist_info = f"trap_env-{trap_env.__version__}.dist-info"
    shipped = {
        f"{SHIPPED[top]}/{rest}"
        for top, _, rest in (name.partition("/") for name in tracked)
        if top in SHIPPED
    }
    assert {name for name in names if not name.startswith(dist_info)} == shipped
    assert {"agents/py.typed", "agents/trap/models/mcts_7x7.npz", "trap_scripts/train.py"} < shipped
    assert f"{dist_info}/METADATA" in names
    assert any(name.startswith(dist_info) and name.endswith("LICENSE") for name in names)

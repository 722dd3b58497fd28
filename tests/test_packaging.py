"""setup.cfg ships every package, its data and a console command for every script; the
wheel builds without a warning."""

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
    data_only = {name for name in CONFIG["options.package_data"] if name not in found}
    assert all((ROOT / name.replace(".", "/")).is_dir() for name in data_only)
    assert found | data_only == _listed("options", "packages")


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


def test_the_wheel_builds_without_a_warning_and_ships_every_data_file(tmp_path: Path) -> None:
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
    data = [name for name in tracked if "/models/" in name or "/static/" in name
            or "/ladders/" in name or name == "agents/rating/ladder.schema.json"]
    assert data and all(name in names for name in data)
    dist_info = f"trap_env-{trap_env.__version__}.dist-info"
    assert f"{dist_info}/METADATA" in names
    assert any(name.startswith(dist_info) and name.endswith("LICENSE") for name in names)

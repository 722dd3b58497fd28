"""The one computed setting of the build: its packages, found rather than listed (setup.cfg
holds the rest).

Every folder of trap_env/ and agents/ is a package, the data folders too (a game's
``models/`` and ``ladders/``, the web page's ``static/``), as Python imports them; scripts/
ships as the package trap_scripts (setup.cfg's ``package_dir``), so that its CLIs are
console commands without a top-level package named "scripts" in site-packages.
"""

from setuptools import find_namespace_packages, find_packages, setup

setup(
    packages=[
        *find_namespace_packages(
            include=["trap_env", "trap_env.*", "agents", "agents.*"], exclude=["*.__pycache__"]
        ),
        "trap_scripts",
        *(f"trap_scripts.{name}" for name in find_packages("scripts")),
    ]
)

"""The old name of :mod:`trap_env.batched_env`, kept for code that imports it."""

from trap_env.batched_env import *  # noqa: F403
from trap_env.batched_env import __all__  # noqa: F401

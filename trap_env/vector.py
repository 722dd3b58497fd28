"""The old name of :mod:`trap_env.batched_trap`, kept for code that imports it."""

from trap_env.batched_trap import *  # noqa: F403
from trap_env.batched_trap import __all__  # noqa: F401

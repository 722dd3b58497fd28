"""The old name of :mod:`agents.rl.batched_vec_env`, kept for code that imports it."""

from agents.rl.batched_vec_env import *  # noqa: F403
from agents.rl.batched_vec_env import __all__  # noqa: F401

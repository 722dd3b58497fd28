"""How a training run uses torch on the CPU: its threads, and subnormal numbers flushed.

Training leaves some weights subnormal (under 1.2e-38 in float32), and x86 processors
multiply subnormal numbers up to a hundred times slower: a batch of 256 positions through
the shipped Othello network took 877 ms of CPU with them and 64 ms with them flushed to
zero (one thread). Flushing changes no result beyond float32's rounding.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

import torch

__all__ = ["is_flushing_subnormals", "torch_on_cpu"]


def is_flushing_subnormals() -> bool:
    """Whether this thread's floating point flushes subnormal numbers to zero."""
    return sys.float_info.min / 2 == 0.0


@contextlib.contextmanager
def torch_on_cpu(threads: int) -> Iterator[None]:
    """Within the block, torch's CPU work runs on ``threads`` threads, with subnormal
    numbers flushed to zero; the flush is undone on the way out, since it is the thread's
    floating-point state, which other code shares (Python's own float arithmetic too)."""
    torch.set_num_threads(threads)
    flushing = is_flushing_subnormals()
    torch.set_flush_denormal(True)
    try:
        yield
    finally:
        torch.set_flush_denormal(flushing)

"""Timing of decisions: the garbage collector paused while an agent decides.

The timed agents and the match runner share these, so a decision is measured and bounded
the same way wherever it is made.
"""

from __future__ import annotations

import gc

__all__ = ["pause_collector", "resume_collector"]


def pause_collector() -> bool:
    """Switch the cyclic garbage collector off; return whether it was on (for resuming).

    For timed decisions: a full collection scans every object of the process, which in one
    holding torch takes 0.1-0.2 s, at a moment no clock check can see coming. Use as
    ``collecting = pause_collector()``, then ``try: ... finally: resume_collector(collecting)``:
    a pair of plain calls allocates nothing (a ``with`` block allocates a bound ``__exit__``
    on the way in, which can itself start a collection), and pauses nest. A collection that
    falls due meanwhile runs after the outermost pause.
    """
    collecting = gc.isenabled()
    gc.disable()
    return collecting


def resume_collector(collecting: bool) -> None:
    """Switch the collector back on if :func:`pause_collector` found it on."""
    if collecting:
        gc.enable()

"""Trap!'s batched opponents: :class:`BatchedRandom`, the random agent's twin on Trap!'s
batched engine (:class:`trap_env.trap.batched.Engine`), for the batched env
(:class:`trap_env.batched_opponents.BatchOpponent`).
"""

from __future__ import annotations

import numpy as np

from trap_env.batched import I64, U64, Bool, num_games
from trap_env.trap import batched as batched_trap

__all__ = ["BatchedRandom"]


class BatchedRandom:
    """The course's random opponent, for the whole batch: uniform moves, throws at empty cells."""

    checked = False  # its actions are legal by construction

    def start(self, engine: batched_trap.Engine, games: I64, words: U64) -> None:
        """Nothing to prepare."""

    def act(
        self, engine: batched_trap.Engine, batch: batched_trap.Batch, where: Bool, words: U64
    ) -> I64:
        """A uniform legal move, or a uniform empty target (any legal target if none)."""
        t = engine.tables
        actions = np.zeros(num_games(batch), np.int64)
        moving = np.flatnonzero(where & (batch.phase == batched_trap.MOVE))
        if len(moving):
            movers = batched_trap.gather(batch, moving)
            own, _ = batched_trap.player_cells(movers, movers.player)
            moves = batched_trap.move_bitboards(t, movers, movers.player)
            # The guess among the mover's up-to-8 neighbours mostly hits a legal move.
            candidates = t.neighbour_cells[own]
            actions[moving] = batched_trap.choose_bits(moves, words[moving], candidates=candidates)
        throwing = np.flatnonzero(where & (batch.phase == batched_trap.THROW))
        if len(throwing):
            cells = batch.cells[throwing]
            legal = t.all_cells & ~(t.bits[cells[:, 0]] | t.bits[cells[:, 1]])
            empty = legal & ~batch.traps[throwing]
            targets = np.where(empty != 0, empty, legal)
            actions[throwing] = batched_trap.choose_bits(targets, words[throwing], t.num_cells)
        return actions

"""The optional batched-engine interface: B games of one configuration as NumPy arrays.

A game that offers it (:meth:`batched_engine` below; Trap!: :class:`trap_env.vector.Engine`)
runs every transition for a whole batch without a Python loop over games. Code written
against :class:`BatchedEngine` (the batched PUCT search :class:`agents.mcts.batched.BatchedTree`,
and the batched environments as each game gains one) works for every game that has one.

A batch is a tuple of NumPy arrays (a ``NamedTuple``) whose first axis is the game, so
that :func:`gather` and :func:`scatter` serve every engine. Actions and chance outcomes are
the game's own integers (:class:`trap_env.game.Game`); an engine is checked against its
game's scalar rules state by state.

Example:
    >>> from trap_env.trap import GAME
    >>> engine = batched_engine(GAME, GAME.make_config(board_size=5))
    >>> batch = engine.initial_batch(2)
    >>> engine.legal_masks(batch).sum(axis=1).tolist()
    [5, 5]
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from trap_env.game import Game

__all__ = ["NO_WINNER", "BatchedEngine", "batched_engine", "gather", "scatter"]

Bool = NDArray[np.bool_]
I8 = NDArray[np.int8]
I64 = NDArray[np.int64]
F64 = NDArray[np.float64]

B = TypeVar("B", bound=tuple[Any, ...])

NO_WINNER = -1
""":meth:`BatchedEngine.winners` of a game still on, drawn, or cut at its turn limit."""


class BatchedEngine(Protocol[B]):
    """B games of one configuration of a game, every method for the whole batch."""

    @property
    def num_actions(self) -> int:
        """The game's action count (``game.num_actions(config)``)."""
        ...

    @property
    def chance_slots(self) -> int:
        """The most outcomes a chance node has (0 for a game without chance): the width
        of :meth:`chance_outcomes`."""
        ...

    def initial_batch(self, num_games: int) -> B:
        """``num_games`` games at their start."""
        ...

    def players(self, batch: B) -> I8:
        """The player to act in each game (at a chance node, the one whose decision it
        follows), as ``game.current_player``."""
        ...

    def is_chance(self, batch: B) -> Bool:
        """Which games wait for a chance outcome."""
        ...

    def is_over(self, batch: B) -> Bool:
        """Which games the rules have ended (``game.outcome`` without a turn limit)."""
        ...

    def is_truncated(self, batch: B, max_turns: int) -> Bool:
        """Which games the rules have not ended but the turn limit cuts (a draw)."""
        ...

    def winners(self, batch: B) -> I8:
        """Each game's winner, or :data:`NO_WINNER` (still on, or a draw)."""
        ...

    def legal_masks(self, batch: B) -> Bool:
        """``(B, num_actions)``: the legal actions (a chance node's: its outcomes)."""
        ...

    def apply(self, batch: B, actions: NDArray[Any], *, validate: bool = True) -> B:
        """Each game after its action or chance outcome; finished games stay as they are.

        Raises:
            IllegalActionError: with ``validate``, naming the first illegal actions.
        """
        ...

    def chance_outcomes(self, batch: B) -> tuple[I64, F64]:
        """``(B, chance_slots)`` outcomes and their exact probabilities at chance nodes
        (``game.chance_outcomes`` padded with probability 0; rows of other games: 0)."""
        ...

    def observations(self, batch: B, players: NDArray[Any]) -> I8:
        """``(B, *observation_shape)``: each game's planes from ``players``' side."""
        ...


def batched_engine(game: Game[Any, Any], config: Any) -> BatchedEngine[Any]:
    """The batched engine of ``game`` under ``config``.

    Raises:
        ValueError: if the game has none (or not for this configuration), saying so.
    """
    make = getattr(game, "batched_engine", None)
    if make is None:
        raise ValueError(f"the game {game.name!r} has no batched engine")
    return make(config)  # type: ignore[no-any-return]


def gather(batch: B, index: NDArray[Any]) -> B:
    """The sub-batch of the games at ``index`` (integer indices or a bool mask)."""
    return type(batch)(*(field[index] for field in batch))


def scatter(batch: B, index: NDArray[Any], games: B) -> B:
    """A copy of ``batch`` with the games at ``index`` replaced by ``games``, in order."""
    fields: list[NDArray[Any]] = []
    for old, new in zip(batch, games, strict=True):
        field: NDArray[Any] = np.array(old, copy=True)
        field[index] = new
        fields.append(field)
    return type(batch)(*fields)

"""Solved games: the table format, its cache folder, and the ``perfect`` agent's choice.

A game's solver (:func:`solver`) is the function ``solve`` that its agents package declares
in ``agents.<game>.solve`` (:data:`HOOK_MODULE`, imported only when asked), so that this
module names no game and a new game adds its own there. It computes the value of every
decision position of a small board, for the player to act (win 1, loss -1, draw 0; a game
that never ends is a draw), and returns a :class:`SolvedTable`: named NumPy arrays that the
game's own code indexes, and a report (the start's values, the positions counted, the
solve's time and memory). Tables are saved as ``.npz`` files under :func:`cache_folder` and
read back by :func:`load_or_solve` instead of solving again.

:func:`state_value` and :func:`best_action` turn a table's lookup of decision positions
into values of any state (chance averaged, finished games scored) and the optimal action,
ties broken by the lowest action: what a game's ``perfect`` agent plays.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from agents.registry import game_declaration
from trap_env.game import Game
from trap_env.games import game_names

__all__ = [
    "FORMAT",
    "HOOK_MODULE",
    "TIE_TOLERANCE",
    "SolvedTable",
    "action_values",
    "best_action",
    "cache_folder",
    "load_or_solve",
    "load_part",
    "measured_solve",
    "save_part",
    "solvable_games",
    "solver",
    "state_value",
    "table_path",
    "work_folder",
]

FORMAT = 3
"""The version of the ``.npz`` layout; a cached table of another version is solved again
(3: Trap!'s 3x3 tables hold the value certified by a strategy and that strategy; 2 bounded
the value without a turn limit; 1 reported plain sweeps' limit)."""
TIE_TOLERANCE = 1e-9
"""Action values this close to the best are ties (value iteration stops at 1e-12)."""
HOOK_MODULE = "solve"
"""The module of a game's agents package (``agents.<game>.solve``) that declares its solved
facts: its solver, the function ``solve``, taking the rules as keyword arguments and
returning a :class:`SolvedTable` (or raising ``ValueError`` naming the boards it solves);
and its solved positions' ``POSITION_RUNGS`` and ``ENDGAME`` (:mod:`agents.solved_positions`),
where the game has them."""

Arrays = dict[str, npt.NDArray[np.float64]]


@dataclass
class SolvedTable:
    """A solved board: the values of its decision positions and the report of the solve.

    Attributes:
        game: the game's name (:mod:`trap_env.games`).
        rules: the rules solved, every one given (``{"board_size": 3, "decay": 50}``).
        arrays: the game's value arrays, by name (the game's solver says how they are indexed).
        report: ``value`` (the start's value for the first player, no turn limit) or,
            where the solver bounds it without pinning it, ``value_low`` and ``value_high``;
            ``value_turn_limited`` (under the runners' turn limit), ``positions`` (decision
            positions counted), ``iterations``, ``seconds`` and ``peak_memory_mb``.
    """

    game: str
    rules: dict[str, Any]
    arrays: Arrays
    report: dict[str, Any] = field(default_factory=dict)

    def save(self, path: Path) -> None:
        """Write the table to ``path`` (an ``.npz``), atomically: a reader sees all or none."""
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {"format": FORMAT, "game": self.game, "rules": self.rules, "report": self.report}
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial.npz")
        arrays: dict[str, Any] = {**self.arrays, "meta": np.array(json.dumps(meta))}
        np.savez_compressed(partial, **arrays)
        partial.replace(path)

    @classmethod
    def load(cls, path: Path) -> SolvedTable | None:
        """The table saved at ``path``; None if there is none or it is of another format."""
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                arrays = {name: data[name] for name in data.files if name != "meta"}
        except (OSError, ValueError, KeyError):  # missing, truncated or foreign: solve again
            return None
        if meta.get("format") != FORMAT:
            return None
        return cls(meta["game"], meta["rules"], arrays, meta["report"])


def cache_folder() -> Path:
    """Where solved tables are kept: ``$XDG_CACHE_HOME/trap_env/solved``, by default
    ``~/.cache/trap_env/solved``."""
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "trap_env" / "solved"


def table_path(game: str, rules: Mapping[str, Any]) -> Path:
    """The cache file of ``game``'s table under ``rules`` (``trap-board_size=3-decay=50.npz``)."""
    listed = "-".join(f"{name}={rules[name]}" for name in sorted(rules))
    return cache_folder() / f"{game}-{listed}.npz"


def work_folder(game: str, rules: Mapping[str, Any]) -> Path:
    """Where a long solve of ``game`` under ``rules`` keeps its finished parts, to resume
    from them: the table's path with ``.parts`` for ``.npz`` (removed once the table is saved)."""
    return table_path(game, rules).with_suffix(".parts")


def save_part(folder: Path, name: str, arrays: Mapping[str, Any]) -> None:
    """Write a finished part of a solve, ``folder/name.npz``, atomically (a stopped solve
    leaves whole parts only)."""
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f"{name}.{os.getpid()}.partial.npz"
    np.savez(partial, **arrays)
    partial.replace(folder / f"{name}.npz")


def load_part(folder: Path, name: str) -> dict[str, Any] | None:
    """The part :func:`save_part` wrote as ``name``; None if there is none (or it is damaged)."""
    try:
        with np.load(folder / f"{name}.npz", allow_pickle=False) as data:
            return {key: data[key] for key in data.files}
    except (OSError, ValueError, KeyError):  # missing or truncated: computed again
        return None


def measured_solve(
    solve: Callable[[], tuple[Arrays, dict[str, Any]]],
) -> tuple[Arrays, dict[str, Any]]:
    """Run ``solve`` and add its ``seconds`` and ``peak_memory_mb`` to the report it returns.

    The memory is the process's peak resident size (``getrusage``), not traced allocations:
    tracing every NumPy allocation slowed the sweeps' small arrays tenfold.
    """
    started = time.perf_counter()
    arrays, report = solve()
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    peak_bytes = peak if sys.platform == "darwin" else peak * 1024  # macOS counts bytes
    return arrays, {
        **report,
        "seconds": round(seconds, 3),
        "peak_memory_mb": round(peak_bytes / 2**20, 1),
    }


def solver(game: str) -> Callable[..., SolvedTable] | None:
    """The solver that the agents package of ``game`` declares (``solve`` in
    :data:`HOOK_MODULE`), or None: for a game with none, and for a game's path, whose
    agents are not in this package."""
    if game not in game_names():
        return None
    found = game_declaration(game, HOOK_MODULE, "solve")
    return cast(Callable[..., SolvedTable], found) if callable(found) else None


def solvable_games() -> list[str]:
    """The registered games with a :func:`solver`, sorted (asked of each: imports their
    solvers' modules)."""
    return [game for game in game_names() if solver(game) is not None]


def load_or_solve(game: str, rules: Mapping[str, Any]) -> tuple[SolvedTable, bool]:
    """``game``'s table under ``rules``, read from the cache or solved and cached there;
    and whether it was read from the cache.

    Raises:
        ValueError: for a game with no solver, or rules its solver does not solve.
    """
    solve = solver(game)
    if solve is None:
        raise ValueError(
            f"no solver for the game {game!r}; solvable games: {', '.join(solvable_games())}"
        )
    path = table_path(game, rules)
    found = SolvedTable.load(path)
    if found is not None and found.game == game and found.rules == dict(rules):
        return found, True
    table = solve(**rules)
    table.save(path)
    parts = work_folder(game, rules)
    if parts.is_dir():  # the table holds everything now
        shutil.rmtree(parts)
    return table, False


def state_value(
    game: Game[Any, Any],
    decision_value: Callable[[Any], float],
    state: Any,
    player: int,
) -> float:
    """The value of ``state`` for ``player`` under perfect play without a turn limit.

    Finished games score +1, -1 or 0; a chance node averages its outcomes; a decision
    position is ``decision_value(state)``, its value for the player to act.
    """
    outcome = game.outcome(state)
    if outcome is not None:
        return 0.0 if outcome.winner is None else (1.0 if outcome.winner == player else -1.0)
    if game.is_chance(state):
        return sum(
            p * state_value(game, decision_value, game.apply(state, cell), player)
            for cell, p in game.chance_outcomes(state)
        )
    value = decision_value(state)
    return value if game.current_player(state) == player else -value


def action_values(
    game: Game[Any, Any], decision_value: Callable[[Any], float], state: Any
) -> dict[int, float]:
    """The value of each legal action at the decision position ``state``, for the player to act."""
    player = game.current_player(state)
    return {
        action: state_value(game, decision_value, game.apply(state, action), player)
        for action in game.legal_actions(state)
    }


def best_action(values: Mapping[int, float]) -> int:
    """The lowest action whose value is within :data:`TIE_TOLERANCE` of the best."""
    best = max(values.values())
    return min(action for action, value in values.items() if value >= best - TIE_TOLERANCE)

"""The plan of a run: which games to play (:class:`GameTask`, :func:`round_robin`) and how
(:class:`RunConfig`).

Each game's seed is derived from the base seed, the pairing and the game's number, so any
game replays alone; so are the rules a run draws per game (:class:`DrawnRule`).

Example:
    >>> tasks = round_robin(["random", "greedy"], games_per_pairing=4, seed=0)
    >>> RunConfig(game_name="trap", params={"board_size": 5}, workers=2).turn_limit
    100
    >>> sizes = RunConfig(game_name="colosseum", params={"board_size": DrawnRule(6, 12)})
    >>> tuple(sizes.rule_params_for(task.seed)["board_size"] for task in tasks)
    (8, 12, 9, 8)
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import os
from collections.abc import Callable, Sequence
from dataclasses import InitVar, dataclass
from typing import Any

from agents.arena.match import (
    DEFAULT_TIME_BUDGET,
    deprecated_board_size,
    derive_seed,
    draw_rules,
)
from agents.arena.record_rules import DrawnRule, fixed_rules, settings_rule_fields
from agents.options import parse_spec, require_game
from agents.program import DEFAULT_MEMORY_LIMIT
from trap_env.game import turn_limit
from trap_env.games import get_game

__all__ = [
    "BACKENDS",
    "MAX_DRAWN_GAMES",
    "MAX_OPENING_PLIES",
    "MAX_REPLAYS",
    "MAX_SECONDS",
    "DrawnRule",
    "GameTask",
    "Report",
    "RunConfig",
    "pairing_tasks",
    "program_limits",
    "round_robin",
]

MAX_SECONDS = 1e6
"""The longest time limit accepted (about 11 days); the clocks' waits hold no more."""

MAX_OPENING_PLIES = 1000
"""The most random opening actions a run may ask for (a game ends long before on any board
played in practice)."""

MAX_DRAWN_GAMES = 10_000
"""The most rule combinations that a run's rules drawn per game may give (each is checked,
and every agent asked whether it plays it, before the first game)."""

MAX_REPLAYS = 3
"""How often a game stalled by the machine is replayed before it is left unplayed."""

BACKENDS = {
    "process": "agents.arena.pool:WorkerPool",
    "ray": "agents.arena.ray_backend:RayPool",
}
"""Where games run, by name: ``"module:class"`` of the pool that plays them (worker
processes on this machine, or Ray tasks on a cluster), imported only when a run uses it."""

Report = Callable[[str], None]


@dataclass(frozen=True)
class GameTask:
    """One game to play.

    Attributes:
        game_id: unique within a run; the key that ``resume`` skips on.
        pairing: the two specs of the pairing, in a fixed order.
        seats: the specs in seat 0 and seat 1.
        seed: the game's seed.
    """

    game_id: str
    pairing: tuple[str, str]
    seats: tuple[str, str]
    seed: int

    def __post_init__(self) -> None:
        if sorted(self.seats) != sorted(self.pairing):
            raise ValueError(f"the seats {self.seats} must be the pairing {self.pairing}")


@dataclass(frozen=True)
class RunConfig:
    """How games are played and run.

    Attributes:
        game_name: the game played, by its name in :mod:`trap_env.games` (or its path);
            required.
        params: the game's rule parameters (``make_config(**params)``), such as Trap!'s
            ``{"decay": 30}``; None for the game's defaults. A rule given as a
            :class:`DrawnRule` is drawn per game from the game's seed
            (:func:`~agents.arena.match.draw_rules`), so that a game replays alone and the
            two games of a paired seed share their rules: ``{"board_size": DrawnRule(6,
            12)}`` plays each game on a board from 6 to 12 (as the COMP 424 handout plays
            Colosseum Survival!).
        board_size: deprecated: ``params={"board_size": N}``.
        max_turns: a draw after this many turns; None for the game's default turn limit.
        time_budget: CPU seconds per turn (move and throw); None (or ``math.inf``) for no
            limit.
        wall_ceiling: wall-clock seconds a turn may take before its worker is killed;
            None for ``2 * time_budget + 1`` (no ceiling when there is no budget);
            ``math.inf`` for no ceiling.
        setup_seconds: wall-clock seconds to build an agent, or to reset it, in a worker.
        workers: worker processes; None for all cores; 0 plays in this process (no
            wall-clock ceiling, for debugging).
        start_method: multiprocessing start method of the workers.
        memory_limit: bytes of address space for program agents (``exec:`` specs, which
            also get ``time_budget`` as their CPU limit); None for no limit.
        backend: where games run: ``"process"``, worker processes on this machine, or
            ``"ray"``, each game a Ray task (:mod:`agents.arena.ray_backend`), where
            ``workers`` is the local cluster's CPUs, or at most that many games at once
            on the cluster at ``address``.
        address: the Ray cluster to use (``HOST:PORT``); None starts a local one that
            listens on the loopback address only. Only with ``backend="ray"``.
        opening_plies: each game opens with this many uniformly random legal actions drawn
            from its seed (0: none), so that deterministic agents play many games; with
            :func:`round_robin`'s ``paired_seeds`` each opening is played from both seats.
        duplicate_chance: the games of one seed share their luck: each chance node the game
            keys is drawn from a uniform of its key and the seed
            (:func:`~agents.arena.match.chance_draw`), so that with ``paired_seeds`` the
            same throw lands the same way in both games of a pair. Recorded in the settings
            (when on), so that a resume draws as the run did.

    Raises:
        TypeError: without ``game_name``.
        ValueError: for a value out of range; seconds are at most :data:`MAX_SECONDS`.
    """

    game_name: str = ""  # required: "" is no game, refused naming the games
    params: dict[str, Any] | None = None
    board_size: InitVar[int | None] = None
    max_turns: int | None = None
    time_budget: float | None = DEFAULT_TIME_BUDGET
    wall_ceiling: float | None = None
    setup_seconds: float = 120.0
    workers: int | None = None
    start_method: str = "spawn"
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT
    backend: str = "process"
    address: str | None = None
    opening_plies: int = 0
    duplicate_chance: bool = False

    def __post_init__(self, board_size: int | None) -> None:
        require_game(self.game_name or None, "RunConfig()", "game_name")
        if self.params is not None and not isinstance(self.params, dict):
            raise ValueError(f"params must be a dict of rule parameters or None, got "
                             f"{type(self.params).__name__}")  # fmt: skip
        object.__setattr__(
            self, "params", deprecated_board_size(self.params, board_size, "RunConfig()")
        )
        self._check_rules()
        if (
            isinstance(self.opening_plies, bool)
            or not isinstance(self.opening_plies, int)
            or not 0 <= self.opening_plies <= MAX_OPENING_PLIES
        ):
            raise ValueError(
                f"opening_plies must be an integer from 0 to {MAX_OPENING_PLIES}, got "
                f"{self.opening_plies!r}"
            )
        if not isinstance(self.duplicate_chance, bool):
            raise ValueError(
                f"duplicate_chance must be True or False, got {self.duplicate_chance!r:.40}"
            )
        if self.time_budget == math.inf:  # no limit, said the other way
            object.__setattr__(self, "time_budget", None)
        _check_seconds("time_budget", self.time_budget, "or None for no limit")
        if self.wall_ceiling != math.inf:
            _check_seconds("wall_ceiling", self.wall_ceiling, "or None, or math.inf for none")
        _check_seconds("setup_seconds", self.setup_seconds, "")
        for name, value, low in (("max_turns", self.max_turns, 1), ("workers", self.workers, 0)):
            if value is not None and not value >= low:
                raise ValueError(f"{name} must be an integer >= {low} or None, got {value!r}")
        if self.start_method not in multiprocessing.get_all_start_methods():
            raise ValueError(
                f"start_method {self.start_method!r} is not one of "
                f"{multiprocessing.get_all_start_methods()}"
            )
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if self.backend == "ray" and self.workers == 0:
            raise ValueError("workers=0 plays in this process; backend 'ray' needs workers >= 1")
        if self.address is not None and self.backend != "ray":
            raise ValueError(f"address {self.address!r} is a Ray cluster's: it needs backend 'ray'")

    def _check_rules(self) -> None:
        """Refuse rules drawn per game that give more than :data:`MAX_DRAWN_GAMES` rule
        combinations, and rules that the game's ``make_config`` refuses (naming what is
        allowed), drawn or not."""
        drawn = self._drawn_values()
        combinations = math.prod(map(len, drawn.values()))
        if combinations > MAX_DRAWN_GAMES:
            ranges = ", ".join(f"{name}={self.rule_params[name]}" for name in drawn)
            raise ValueError(
                f"the rules drawn per game ({ranges}) give {combinations} rule combinations; "
                f"a run draws from at most {MAX_DRAWN_GAMES}"
            )
        _ = self.games

    def _drawn_values(self) -> dict[str, range]:
        return {
            name: rule.values
            for name, rule in self.rule_params.items()
            if isinstance(rule, DrawnRule)
        }

    @property
    def game(self) -> Any:
        """The rules the games are played by (what agents are asked whether they play);
        with rules drawn per game, each at its highest (the largest game)."""
        return get_game(self.game_name).make_config(**self.rule_params_for(None))

    @property
    def games(self) -> list[Any]:
        """The rules of every game the run may play: one, or each combination of the
        values of its rules drawn per game."""
        game, drawn = get_game(self.game_name), self._drawn_values()
        fixed = fixed_rules(self.rule_params)
        return [
            game.make_config(**fixed, **dict(zip(drawn, values, strict=True)))
            for values in itertools.product(*drawn.values())
        ]

    @property
    def rule_params(self) -> dict[str, Any]:
        """The rule parameters given (``params``), those drawn per game as
        :class:`DrawnRule`."""
        return dict(self.params or {})

    def rule_params_for(self, seed: int | None) -> dict[str, Any]:
        """The rule parameters of the game with ``seed``: :attr:`rule_params`, each rule
        drawn per game drawn from the seed (None: at its highest, the largest game)."""
        return draw_rules(self.rule_params, seed)

    @property
    def turn_limit(self) -> int:
        """The turn limit that applies (with rules drawn per game: the largest game's)."""
        return turn_limit(self.max_turns, get_game(self.game_name).default_turn_limit(self.game))

    def turn_limit_for(self, seed: int) -> int:
        """The turn limit of the game with ``seed`` (its drawn rules', unless ``max_turns``)."""
        game = get_game(self.game_name)
        config = game.make_config(**self.rule_params_for(seed))
        return turn_limit(self.max_turns, game.default_turn_limit(config))

    @property
    def ceiling(self) -> float | None:
        """The wall-clock seconds per turn after which a worker is killed; None for none."""
        if self.wall_ceiling is not None:
            return None if self.wall_ceiling == math.inf else self.wall_ceiling
        return None if self.time_budget is None else 2 * self.time_budget + 1

    @property
    def num_workers(self) -> int:
        """The number of worker processes."""
        if self.workers is None:
            return os.cpu_count() or 1
        return self.workers

    def settings(self) -> dict[str, Any]:
        """The settings that decide games, which every game of a results file shares."""
        return {
            "max_turns": self.turn_limit,
            "time_budget": self.time_budget,
            "wall_ceiling": self.ceiling,
            "memory_limit": self.memory_limit,
        } | (
            settings_rule_fields(self.game_name, self.rule_params)
            | ({"opening_plies": self.opening_plies} if self.opening_plies else {})
            | ({"duplicate_chance": True} if self.duplicate_chance else {})
        )


def _check_seconds(name: str, value: float | None, alternatives: str) -> None:
    """Refuse seconds outside (0, MAX_SECONDS]; None passes when there are ``alternatives``."""
    if value is None and alternatives:
        return
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    if not (is_number and 0 < value <= MAX_SECONDS):  # type: ignore[operator]
        raise ValueError(
            f"{name} must be seconds > 0 and <= {MAX_SECONDS:.0f} {alternatives}, got {value!r}"
        )


def round_robin(
    specs: Sequence[str], games_per_pairing: int, seed: int, *, paired_seeds: bool = False
) -> list[GameTask]:
    """Every pair of distinct specs plays ``games_per_pairing`` games, seats alternating.

    With ``paired_seeds``, games ``2k`` and ``2k + 1`` of a pairing share a seed, so a game
    whose chance is all at its start (Colosseum Survival!: ``game.paired_starts``) plays
    each start twice, seats swapped; otherwise every game has a seed of its own.

    Raises:
        ValueError: for fewer than two specs, a repeated spec, or a count below 1.
    """
    if len(specs) < 2 or len(set(specs)) != len(specs):
        raise ValueError(
            f"a round robin needs at least two distinct agent specs, got {list(specs)}"
        )
    if games_per_pairing < 1:
        raise ValueError(f"games per pairing must be at least 1, got {games_per_pairing}")
    tasks = []
    for i, first in enumerate(specs):
        for second in specs[i + 1 :]:
            tasks.extend(pairing_tasks(
                (first, second), range(games_per_pairing), seed, paired_seeds=paired_seeds
            ))  # fmt: skip
    return tasks


def pairing_tasks(
    pairing: tuple[str, str], numbers: range, seed: int, *, paired_seeds: bool = False
) -> list[GameTask]:
    """The games ``numbers`` of a pairing, as :func:`round_robin` numbers and seeds them (so
    a pairing's later games extend its round robin's)."""
    first, second = pairing
    return [
        GameTask(
            game_id=f"{first} vs {second} #{number}",
            pairing=pairing,
            seats=(first, second) if number % 2 == 0 else (second, first),
            seed=derive_seed(seed, first, second, number // 2 if paired_seeds else number),
        )
        for number in numbers
    ]


def program_limits(spec: str, config: RunConfig) -> dict[str, Any]:
    """The run's limits for a program agent, which enforces them on its own process."""
    if parse_spec(spec)[0] != "exec":
        return {}
    return {"time_limit": config.time_budget, "memory_limit": config.memory_limit}

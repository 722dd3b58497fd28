"""Search agents: ``expectiminimax`` (the reference policy), ``alphabeta``/``minimax``, presets.

``expectiminimax`` searches the real game tree (move, throw, landing as a chance node)
with :class:`agents.search.Search` under a time budget per turn, shared between the move
and the throw: at the move it plans the whole turn with ``move_share`` of the budget, and
at the throw it searches again with what is left (answering the planned throw at once if
nothing is). Its clock is the process's CPU time by default, as the course and our match
runner measure a turn (``clock="wall"`` for wall-clock time). It checks the clock every 64
nodes with a safety margin and answers with the best action of the deepest iteration that
finished, or of the one the clock cut short if that one searched the previous best action
and found a better one; a static best guess is ready before the first iteration starts.

Its settings are one frozen :class:`SearchSettings` record, whose fields are also the
options of its spec strings (``"expectiminimax:time_limit=1.0,throw_radius=1"``). By
default it searches throws within two king steps of the opponent (``throw_radius=2``)
and the misses of a throw two plies shallower than its likely landing
(``chance_reduction=2``), with Star1 and Star2 pruning and a transposition table kept
through a game; docs/search.md and docs/experiments.md give the measurements behind these
defaults.

``alphabeta`` (alias ``minimax``) is the course's baseline: the same search over a game in
which every throw lands on its target, to a fixed depth (default 4 plies, two turns).

Presets (all ``expectiminimax``, :data:`PRESETS`; any option can still be overridden, e.g.
``"hard:time_limit=2"``):

========  ===========================================
name      settings
========  ===========================================
easy      ``depth=2`` (one turn ahead), ``time_limit=0.5``
medium    ``depth=4`` (two turns ahead), ``time_limit=1.0``
hard      ``time_limit=1.0`` (the course's grading budget)
expert    ``time_limit=5.0`` (the course's budget)
========  ===========================================

After every decision, ``agent.last_search`` holds a :class:`SearchStats`.

The agent plays boards up to :data:`MAX_BOARD_SIZE` (``check_game`` refuses larger ones
before the first game).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from agents.options import check_int
from agents.search.expectimax import Search, SearchStats
from agents.seeded import SeededAgent
from agents.timing import Clock, TimedAgent, check_clock, check_time_limit, decision_deadline
from agents.trap.batched_search import BatchedExpectiminimax
from agents.trap.evaluation import CLASSIC_WEIGHTS, DEFAULT_WEIGHTS, Weights
from agents.trap.search_game import TrapGame
from trap_env.agent import UnsupportedGameError
from trap_env.trap import core
from trap_env.trap.core import Cell, GameConfig, Phase, State
from trap_env.trap.game import GAME

__all__ = [
    "ALPHABETA",
    "PRESETS",
    "ExpectiminimaxAgent",
    "SearchSettings",
    "SearchStats",
    "check_decision_state",
]

MAX_DEPTH = 64
MAX_BOARD_SIZE = 100
"""The largest board the agent plays: on larger ones the work between two clock checks (an
evaluation grows with the board) can overrun a turn's budget."""


@dataclass(frozen=True)
class SearchSettings:
    """How ``expectiminimax`` plays; each field is also an option of its spec strings.

    Attributes:
        time_limit: seconds per turn (move and throw together), at most a day; None for
            no limit (then ``depth`` must be given). In a spec, ``none`` or ``inf``.
        depth: the deepest iteration, in plies (a turn is two); None for no limit.
        throw_filter: search only throws near the opponent (see :class:`TrapGame`).
        throw_radius: the throw filter's radius in king steps from the opponent.
        chance_reduction: plies by which unlikely landings (the misses) are searched
            shallower than the likely one (see :mod:`agents.search.expectimax`).
        move_share: the part of the turn's budget given to planning the move.
        deterministic_throws: pretend throws always land on target (``alphabeta``).
        weights: the evaluation weights (see :mod:`agents.trap.evaluation`); in a spec,
            a text for :meth:`Weights.parse` that changes the agent's default weights
            (``"expectiminimax:weights=voronoi=0;room=1"``).
        clock: ``"cpu"`` (this process's CPU time, as the course measured a turn) or
            ``"wall"`` (wall-clock time).

    Raises:
        ValueError: for a value outside what its attribute allows, naming it.
    """

    time_limit: float | None = 5.0
    depth: int | None = None
    throw_filter: bool = True
    throw_radius: int = 2
    chance_reduction: int = 2
    move_share: float = 0.6
    deterministic_throws: bool = False
    weights: Weights = DEFAULT_WEIGHTS
    clock: Clock = "cpu"

    def __post_init__(self) -> None:
        check_time_limit(self.time_limit, self.depth)
        check_int("depth", self.depth, 1, allow_none=True)
        check_int("throw_radius", self.throw_radius, 1)
        check_int("chance_reduction", self.chance_reduction, 0)
        if not (isinstance(self.move_share, int | float) and 0.0 < self.move_share < 1.0):
            raise ValueError(
                f"move_share must be between 0 and 1 (exclusive), got {self.move_share!r}"
            )
        for name in ("throw_filter", "deterministic_throws"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if not isinstance(self.weights, Weights):
            raise ValueError(f"weights must be a Weights, got {self.weights!r}")
        check_clock(self.clock)


DEFAULT_SETTINGS = SearchSettings()


def check_decision_state(state: State) -> None:
    """Refuse a state that asks for no decision: a finished game, or a throw in the air.

    Raises:
        ValueError: if ``state`` is not a MOVE or THROW of a game in progress.
    """
    if core.is_terminal(state) or state.phase is Phase.LANDING:
        raise ValueError(
            "select_action needs a MOVE or THROW state of a game in progress, got "
            f"{core.to_text(state)}"
        )


class ExpectiminimaxAgent(TimedAgent, SeededAgent):
    """Iterative-deepening expectiminimax with alpha-beta, Star1/Star2 and a table.

    Args:
        settings: how to search (see :class:`SearchSettings`).
        seed: accepted for the common interface; the search draws no random numbers.
    """

    def __init__(
        self, settings: SearchSettings = DEFAULT_SETTINGS, seed: int | None = None
    ) -> None:
        if not isinstance(settings, SearchSettings):
            raise TypeError(f"settings must be a SearchSettings, got {settings!r}")
        SeededAgent.__init__(self, seed)
        TimedAgent.__init__(self, settings.clock, GAME)
        self.settings = settings
        self.game = TrapGame(
            settings.throw_filter,
            settings.deterministic_throws,
            settings.weights,
            settings.throw_radius,
        )
        self.search = Search(self.game, chance_reduction=settings.chance_reduction)
        self.last_search: SearchStats | None = None

    @property
    def time_limit(self) -> float | None:
        """The seconds of a turn it searches for (``settings.time_limit``); None: no clock,
        it stops at its depth (:func:`trap_env.agent.time_limit_of`)."""
        return self.settings.time_limit

    def check_game(self, config: GameConfig) -> None:
        """Refuse boards larger than :data:`MAX_BOARD_SIZE`; any rule variant is played.

        Raises:
            UnsupportedGameError: for a larger board.
        """
        if config.board_size > MAX_BOARD_SIZE:
            raise UnsupportedGameError(
                f"expectiminimax plays boards up to {MAX_BOARD_SIZE}x{MAX_BOARD_SIZE}, not "
                f"{config.board_size}x{config.board_size}"
            )

    def reset(self, seed: int | None = None) -> None:
        """Start a new game: forget the table and the history."""
        super().reset(seed)
        self.search.reset()
        self.last_search = None
        self._forget_turn()

    def _decide(self, state: State) -> Cell:
        """The best move or throw found within the time budget (see :class:`TimedAgent`)."""
        started = self.clock()
        check_decision_state(state)
        settings = self.settings
        budget = self._turn_budget(state, settings.time_limit, settings.move_share)
        action, depth, value = self._choose(state, started, budget)
        seconds = self.clock() - started
        self._end_decision(state, action, seconds)
        self.last_search = SearchStats(self.search.nodes, depth, seconds, value, budget or 0.0)
        return action

    def _is_same_position(self, first: State, second: State) -> bool:
        """Positions are the same for the clock if the search's table keys are."""
        return self.game.key(first) == self.game.key(second)

    def _choose(
        self, state: State, started: float, budget: float | None
    ) -> tuple[Cell, int, float]:
        """Iterate deeper until the budget or the depth runs out: (action, depth, value)."""
        self.game.make_room()
        planned = self.search.start_decision(state)
        action = planned if planned is not None else self._static_guess(state)
        depth, value = 0, 0.0
        deadline = math.inf
        if budget is not None:
            deadline = decision_deadline(started, budget)
            if self.clock() >= deadline:
                return action, depth, value
        clock = self.clock

        def stop() -> bool:
            return clock() >= deadline

        max_depth = self.settings.depth or MAX_DEPTH
        for result in self.search.iterate(state, max_depth, stop, planned):
            action, depth, value = result.action, result.depth, result.value
            if budget is None or state.phase is not Phase.MOVE:
                continue
            # The next iteration costs several times this one: rather than start it with
            # little hope at the move, leave the time to the throw. (At the throw, time
            # left over is lost, and an unfinished iteration may still improve the answer.)
            if self.clock() - started > 0.5 * (deadline - started):
                break
        return action, depth, value

    def batched(self) -> BatchedExpectiminimax | None:
        """The same search for every game of the batched env at once, when it has a fixed
        depth (``depth=D``; a time limit beside it is ignored there, as the fixed-depth
        search ends long before): every game gets one of the depth-``D`` best actions.
        None without a depth (only a time limit) or for a subclass that decides otherwise:
        those play game by game."""
        depth = self.settings.depth
        if depth is None or type(self)._decide is not ExpectiminimaxAgent._decide:
            return None
        settings = self.settings
        return BatchedExpectiminimax(
            depth,
            throw_filter=settings.throw_filter,
            throw_radius=settings.throw_radius,
            chance_reduction=settings.chance_reduction,
            deterministic_throws=settings.deterministic_throws,
            weights=settings.weights,
        )

    def _static_guess(self, state: State) -> Cell:
        actions = self.game.legal_actions(state)
        return self.game.order_hint(state, actions)[0]


ALPHABETA = SearchSettings(depth=4, deterministic_throws=True, weights=CLASSIC_WEIGHTS)
"""``alphabeta``: two turns deep, throws landing on target, the classic evaluation weights
(a fixed baseline: a weights text in its spec changes these, not the defaults)."""

PRESETS: dict[str, SearchSettings] = {
    "easy": SearchSettings(depth=2, time_limit=0.5),
    "medium": SearchSettings(depth=4, time_limit=1.0),
    "hard": SearchSettings(time_limit=1.0),
    "expert": SearchSettings(time_limit=5.0),
}
"""The difficulty presets of ``expectiminimax``."""


def alphabeta(settings: SearchSettings = ALPHABETA, seed: int | None = None) -> ExpectiminimaxAgent:
    """Depth-limited alpha-beta that treats every throw as landing on its target.

    Its settings default to :data:`ALPHABETA`; spec options replace some of them.
    """
    return ExpectiminimaxAgent(settings, seed)


def _preset(name: str) -> Callable[..., ExpectiminimaxAgent]:
    def build(
        settings: SearchSettings = PRESETS[name], seed: int | None = None
    ) -> ExpectiminimaxAgent:
        return ExpectiminimaxAgent(settings, seed)

    build.__name__ = build.__qualname__ = name
    build.__doc__ = f"The {name!r} preset: expectiminimax with {PRESETS[name]}."
    return build


easy = _preset("easy")
medium = _preset("medium")
hard = _preset("hard")
expert = _preset("expert")

"""One game between two agents, with the course's rules on time and faults, for any game of
:mod:`trap_env.games` (Trap! by default).

:func:`play_game` is the whole match: the players act in turn, chance nodes drawn from a
generator seeded by the game's seed (one draw each; Trap!: a move, a throw, then the
landing), until :meth:`~trap_env.game.Game.outcome` says the game is over (one of the
game's end reasons, or a draw by truncation at the turn limit). The decisions one player
makes in a row within a turn share a CPU-time budget measured with :func:`time.process_time`;
an agent that goes over it, raises, or answers with ``None`` or an illegal action loses the
game, and the record says why. The garbage collector is paused during each decision, so
that no agent is charged for a collection of the runner's process.

A game's seed alone fixes the chance draws, the agents' generators and the rules drawn
per game (:func:`draw_rules`), so a game replays from its seed; the recorded action
sequence replays it exactly whatever the agents' timing. With ``duplicate_chance`` the two
games of one seed (a pair, seats swapped) share their luck: a chance node that the game
keys (:meth:`~trap_env.game.Game.chance_key`; Trap!: the turn, the thrower's cell and the
target) is drawn from its own uniform (:func:`keyed_uniform`) by the inverse of its exact
odds, so the same throw lands the same way in both games; unkeyed nodes are drawn in turn
from the seed's generator, as without.

Example:
    >>> from agents import make_agent
    >>> players = [make_agent("random", game="trap"), make_agent("random", game="trap")]
    >>> result = play_game(players, seed=3, game="trap", params={"board_size": 5})
    >>> result.reason in REASONS
    True
"""

from __future__ import annotations

import hashlib
import random
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from agents.arena.record_rules import DrawnRule, rule_fields
from agents.options import require_game
from agents.timing import pause_collector, resume_collector
from trap_env.agent import Agent
from trap_env.game import TRUNCATED, Game, IllegalActionError, turn_limit
from trap_env.games import get_game

__all__ = [
    "DEFAULT_TIME_BUDGET",
    "FAULTS",
    "NO_WINNER",
    "REASONS",
    "ChanceDraw",
    "GameResult",
    "LastChance",
    "chance_draw",
    "derive_seed",
    "draw_rules",
    "interface_problem",
    "keyed_uniform",
    "play_game",
    "replay",
]

DEFAULT_TIME_BUDGET = 5.0
"""CPU seconds per turn (move and throw together), as in the course."""

FAULTS = ("timeout", "exception", "illegal", "no_action", "crash")
"""Reasons for which a seat loses without being trapped."""
REASONS = ("trapped", "truncated", *FAULTS)
"""Every way a game of Trap! can end: a player trapped, the turn limit, or a fault (any
game: :func:`agents.arena.results.end_reasons`)."""

NO_WINNER = -1
"""A result's ``winner`` when no seat won (a draw, or a game cut by the turn limit)."""

LastChance = tuple[int, int] | None
"""The last chance node's ``(decision before it, outcome)`` (Trap!: a throw's target and
landing cells), or None before the first."""

ChanceDraw = Callable[[Any], int]
"""How a match draws the outcome of a chance node (the state)."""
TurnHook = Callable[[int, Any, list[int]], None]
ResetHook = Callable[[int], None]


@dataclass
class GameResult:
    """How a game went; every field is JSON-friendly.

    Attributes:
        seed: the game's seed (landing draws and the agents' generators derive from it).
        max_turns: the turn limit that applied.
        winner: the winning seat, or -1 for a draw.
        reason: one of :data:`REASONS`; for a fault, the loser is the seat at fault.
        detail: what went wrong, for a fault; empty otherwise.
        turns: turns completed.
        cpu_time: CPU seconds each seat spent deciding.
        max_turn_time: each seat's longest turn, in CPU seconds.
        actions: every ``apply``-ed action in order (moves, throws, landings): the replay.
        game: the game's name in :mod:`trap_env.games` (or its path).
        params: the game's rule parameters as played, all of them (``config_params``).
        scores: what the game counts beyond win and loss at the end (``game.scores``:
            disc counts, zone sizes; none for Trap!).
    """

    seed: int
    max_turns: int
    game: str
    params: dict[str, Any]
    winner: int = NO_WINNER
    reason: str = "truncated"
    detail: str = ""
    turns: int = 0
    cpu_time: list[float] = field(default_factory=lambda: [0.0, 0.0])
    max_turn_time: list[float] = field(default_factory=lambda: [0.0, 0.0])
    actions: list[int] = field(default_factory=list)
    scores: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The record: the fields as a dict (for JSON), the game and its rules in the fields
        records hold them in (:func:`~agents.arena.record_rules.rule_fields`)."""
        fields = asdict(self) | rule_fields(self.game, self.params)
        del fields["params"]
        if not self.scores:
            del fields["scores"]
        return {name: fields[name] for name in sorted(fields, key=_RECORD_ORDER.index)}

    def lose(self, seat: int, reason: str, detail: str) -> GameResult:
        """Record that ``seat`` lost by ``reason`` (a fault); returns self."""
        self.winner, self.reason, self.detail = 1 - seat, reason, detail
        return self


_RECORD_ORDER = [
    "seed", "max_turns", "winner", "reason", "detail", "turns", "cpu_time", "max_turn_time",
    "actions", "game", "rules", "scores",
]  # fmt: skip
"""The order of a record's fields."""


def derive_seed(*parts: object) -> int:
    """A 63-bit seed that depends only on ``parts`` (stable across runs and processes)."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def keyed_uniform(seed: int, key: tuple[int, ...]) -> float:
    """The uniform in ``[0, 1)`` of the chance node keyed ``key`` in the games of ``seed``
    (duplicate chance): a hash of both, the same in every game of the seed and process.

    Example:
        >>> keyed_uniform(3, (0, 8, 24)) == keyed_uniform(3, (0, 8, 24))
        True
    """
    return derive_seed(seed, "chance", *key) / 2**63


class _Uniform:
    """A :class:`~trap_env.game.RandomSource` whose one draw is a given uniform
    (``sample_chance`` draws once: the inverse of the exact odds at ``value``)."""

    def __init__(self, value: float) -> None:
        self.value = value

    def random(self) -> float:
        return self.value


def chance_draw(game: Game[Any, Any], seed: int, duplicate: bool = False) -> ChanceDraw:
    """How the games of ``seed`` draw chance: each outcome by ``game.sample_chance`` from
    the seed's generator, in turn; with ``duplicate``, a node the game keys
    (:meth:`~trap_env.game.Game.chance_key`) from its own :func:`keyed_uniform` instead.
    """
    rng = random.Random(derive_seed(seed, "landing"))

    def draw(state: Any) -> int:
        key = game.chance_key(state) if duplicate else None
        source = rng if key is None else _Uniform(keyed_uniform(seed, key))
        return int(game.sample_chance(state, source))

    return draw


def draw_rules(params: Mapping[str, Any] | None, seed: int | None) -> dict[str, Any]:
    """The rules of the game with ``seed``: ``params`` with each rule drawn per game
    (:class:`~agents.arena.record_rules.DrawnRule`) drawn from the seed and the rule's
    name, so that a game replays alone and the games of one seed share their rules (None:
    each drawn rule at its highest, the largest game).

    Example:
        >>> draw_rules({"board_size": DrawnRule(6, 12), "decay": 0}, seed=3)
        {'board_size': 10, 'decay': 0}
    """
    return {
        name: _drawn(rule, name, seed) if isinstance(rule, DrawnRule) else rule
        for name, rule in (params or {}).items()
    }


def _drawn(rule: DrawnRule, name: str, seed: int | None) -> int:
    if seed is None:
        return rule.high
    return rule.low + derive_seed(seed, name) % len(rule.values)


def deprecated_board_size(
    params: Mapping[str, Any] | None, board_size: int | None, caller: str
) -> dict[str, Any] | None:
    """``params`` with ``board_size``, the keyword ``caller`` took before the board size
    was a rule like any other (it warns: :class:`DeprecationWarning`).

    Raises:
        ValueError: for a board size given twice, in both.
    """
    if board_size is None:
        return None if params is None else dict(params)
    warnings.warn(
        f"{caller}'s board_size={board_size!r} is deprecated: give the rule in "
        f"params={{'board_size': {board_size!r}}}",
        DeprecationWarning,
        stacklevel=3,
    )
    if "board_size" in (params or {}):
        raise ValueError("give the board size once: board_size or params['board_size']")
    return dict(params or {}) | {"board_size": board_size}


class _Fault(Exception):
    """A seat broke a rule of the match; carries the reason and a message."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


def play_game(
    agents: Sequence[Agent],
    *,
    seed: int,
    game: str | None = None,
    params: Mapping[str, Any] | None = None,
    board_size: int | None = None,
    max_turns: int | None = None,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
    on_turn: TurnHook | None = None,
    on_reset: ResetHook | None = None,
    opening_plies: int = 0,
    duplicate_chance: bool = False,
) -> GameResult:
    """Play one game; ``agents[0]`` takes seat 0 (player 0, who starts).

    Args:
        agents: the two agents, by seat; each is reset with a seed derived from ``seed``.
        seed: the game's seed.
        game: the game's name in :mod:`trap_env.games` (or its path); required.
        params: the game's rule parameters (``make_config(**params)``; None or those left
            out: the game's defaults), such as Trap!'s ``{"decay": 30}``; a rule drawn per
            game (:class:`~agents.arena.record_rules.DrawnRule`) is drawn from ``seed``
            (:func:`draw_rules`).
        board_size: deprecated: ``params={"board_size": N}``.
        max_turns: a draw by truncation after this many turns (None: the game's
            ``default_turn_limit``).
        time_budget: CPU seconds per turn, shared by the decisions one player makes in a
            row (Trap!: the move and the throw); None for no limit.
        on_turn: called as ``on_turn(seat, state, actions)`` before each turn (and once
            more with the final state and seat -1 unless a fault ended the game), e.g. to
            show the game or to send a heartbeat.
        on_reset: called as ``on_reset(seat)`` before that seat's agent is reset (a
            heartbeat, so that a reset that hangs is charged to its own seat).
        opening_plies: the game opens with this many uniformly random legal actions drawn
            from ``seed`` (recorded like the agents'), so that deterministic agents play
            many different games; two games of one seed open alike.
        duplicate_chance: draw each chance node the game keys from the uniform of its key
            and the seed (:func:`chance_draw`), so that the two games of a seed share
            their luck.

    Returns:
        The result; an agent's fault (in its reset or a decision, or a missing method) ends
        the game as its loss, it never raises for one.

    Raises:
        TypeError: without ``game``.
        ValueError: for a game name or rule parameters that the game refuses.
    """
    game = require_game(game, "play_game()")
    found = get_game(game)  # ``game`` is its name
    given = deprecated_board_size(params, board_size, "play_game()")
    config = found.make_config(**draw_rules(given, seed))
    limit = turn_limit(max_turns, found.default_turn_limit(config))
    result = GameResult(seed=seed, max_turns=limit, game=game, params=found.config_params(config))
    for seat, agent in enumerate(agents):
        if on_reset is not None:
            on_reset(seat)
        try:
            _reset(agent, derive_seed(seed, "seat", seat))
        except _Fault as fault:
            return result.lose(seat, fault.reason, str(fault))
    draw = chance_draw(found, seed, duplicate_chance)
    state = _opening(found, found.initial_state(config), opening_plies, seed, limit, result)
    while (outcome := found.outcome(state, limit)) is None:
        seat = found.current_player(state)
        if on_turn is not None:
            on_turn(seat, state, result.actions)
        try:
            state = _play_turn(found, agents[seat], state, seat, result, time_budget)
        except _Fault as fault:
            result.turns = found.turn(state)
            return result.lose(seat, fault.reason, str(fault))
        while found.is_chance(state):
            state = _record(found, state, draw(state), result)
    if on_turn is not None:
        on_turn(-1, state, result.actions)
    result.turns, result.scores = found.turn(state), found.scores(state)
    if outcome.reason != TRUNCATED:
        result.winner, result.reason = _seat(outcome.winner), outcome.reason
    return result


def _opening(
    game: Game[Any, Any], state: Any, plies: int, seed: int, limit: int, result: GameResult
) -> Any:
    """``state`` after up to ``plies`` uniformly random legal actions (and the chance outcomes
    that follow them) drawn from ``seed``'s own generator, recorded; it stops early at a
    finished game."""
    if not plies:
        return state
    rng = random.Random(derive_seed(seed, "opening"))
    for _ in range(plies):
        state = _draw_chance(game, state, rng, result)  # a game may start by chance
        if game.outcome(state, limit) is not None:
            break
        state = _record(game, state, rng.choice(game.legal_actions(state)), result)
    return _draw_chance(game, state, rng, result)


def _draw_chance(
    game: Game[Any, Any], state: Any, rng: random.Random, result: GameResult
) -> Any:
    """``state`` after the chance outcomes it waits for, drawn from ``rng`` and recorded."""
    while game.is_chance(state):
        state = _record(game, state, game.sample_chance(state, rng), result)
    return state


def _seat(winner: int | None) -> int:
    return NO_WINNER if winner is None else winner


def interface_problem(agent: object) -> str | None:
    """What ``agent`` lacks of the :class:`~trap_env.agent.Agent` interface; None if nothing."""
    missing = [
        name for name in ("select_action", "reset") if not callable(getattr(agent, name, None))
    ]
    if not missing:
        return None
    return (
        f"{type(agent).__name__} object has no method {' or '.join(missing)}; an agent needs "
        "select_action(state) and reset(seed=None)"
    )


def _reset(agent: Agent, seed: int) -> None:
    """Reset ``agent`` for a new game; a missing or failing reset is the agent's fault."""
    problem = interface_problem(agent)
    if problem is not None:
        raise _Fault("exception", problem)
    try:
        agent.reset(seed=seed)
    except (Exception, SystemExit) as error:  # SystemExit too: the runner may be this process
        raise _Fault("exception", f"reset raised {type(error).__name__}: {error}") from error


def _play_turn(
    game: Game[Any, Any],
    agent: Agent,
    state: Any,
    seat: int,
    result: GameResult,
    budget: float | None,
) -> Any:
    """The seat's decisions of one turn (Trap!: the move, and the throw if the move did not
    win), up to the next chance node, the next turn, or the end."""
    spent = 0.0
    turn = game.turn(state)
    while _is_seat_to_decide(game, state, seat, turn):
        action, seconds = _timed_decision(game, agent, state)
        spent += seconds
        result.cpu_time[seat] += seconds
        result.max_turn_time[seat] = max(result.max_turn_time[seat], spent)
        if budget is not None and spent > budget:
            detail = f"turn {turn} took {spent:.3f} s of CPU, budget {budget} s"
            raise _Fault("timeout", detail)
        state = _checked_apply(game, state, action, result)
    return state


def _is_seat_to_decide(game: Game[Any, Any], state: Any, seat: int, turn: int) -> bool:
    """Whether ``seat`` still decides within ``turn``: no end, no chance, no other player."""
    return (
        game.outcome(state) is None
        and not game.is_chance(state)
        and game.current_player(state) == seat
        and game.turn(state) == turn
    )


def _timed_decision(game: Game[Any, Any], agent: Agent, state: Any) -> tuple[Any, float]:
    collecting = pause_collector()  # no agent is charged for the runner's collections
    try:
        start = time.process_time()
        action = agent.select_action(state)
        seconds = time.process_time() - start
    except (Exception, SystemExit) as error:  # SystemExit too: the runner may be this process
        # An agent's error may name its kind of fault (a program agent's crash, timeout or
        # garbage answer); anything else is an exception.
        reason = getattr(error, "reason", "exception")
        raise _Fault(
            reason if reason in FAULTS else "exception",
            f"select_action raised {type(error).__name__}: {error} "
            f"(turn {game.turn(state)}, phase {_phase(game, state)})",
        ) from error
    finally:
        resume_collector(collecting)
    return action, seconds


def _phase(game: Game[Any, Any], state: Any) -> str:
    """The decision to make, as records name it (Trap!: ``MOVE``, ``THROW``)."""
    return game.decision_name(state).upper()


def _checked_apply(game: Game[Any, Any], state: Any, action: Any, result: GameResult) -> Any:
    if action is None:
        raise _Fault("no_action", f"select_action returned None in phase {_phase(game, state)}")
    try:
        return _record(game, state, action, result)
    except IllegalActionError as error:
        raise _Fault("illegal", str(error)) from None


def _record(game: Game[Any, Any], state: Any, action: int, result: GameResult) -> Any:
    next_state = game.apply(state, action)
    result.actions.append(int(action))
    return next_state


def replay(
    actions: Sequence[int], *, game: str, params: Mapping[str, Any] | None = None
) -> Iterator[tuple[Any, LastChance]]:
    """The states of a recorded game at the start of each turn, and the final one.

    Yields ``(state, last_chance)`` pairs: the initial state with None, then the state
    after each turn (or after a winning decision) with the last chance node's
    ``(decision before it, outcome)`` (Trap!: the throw's target and landing).

    Raises:
        IllegalActionError: if the sequence is not a legal game of ``game`` under the rule
            parameters ``params`` (a ``ValueError``, as are parameters the game refuses).
    """
    found = get_game(game)  # ``game`` is its name
    config = found.make_config(**(params or {}))
    state = found.initial_state(config)
    last_chance: LastChance = None
    decision = -1  # every chance node follows a decision
    yield state, last_chance
    for action in actions:
        before = state
        state = found.apply(state, action)
        if found.is_chance(before):
            last_chance = (decision, action)
        else:
            decision = action
        if found.turn(state) != found.turn(before) or found.outcome(state) is not None:
            yield state, last_chance

"""The game protocol: what every game on the stack offers, in OpenSpiel's terms.

A game is two-player and zero-sum, with perfect information and, where it has any, chance
as explicit nodes whose :meth:`Game.chance_outcomes` lists exact ``(outcome, probability)``
pairs. States are immutable values; :meth:`Game.apply` returns a new one. Actions are
integers in ``range(num_actions(config))``; a chance outcome is an integer too. Every
game's ``apply`` refuses any other action with :class:`IllegalActionError`
(:func:`action_index` is the one test of an action's type), and every entrance of a
state from outside checks it with :meth:`Game.check_state`.

The generic parts (the search, ``mcts``, the match runner, tournaments, results records,
the ``exec:`` protocol, the Gymnasium, PettingZoo and OpenSpiel adapters) are written
against :class:`Game`; each game implements it once (Trap!: :mod:`trap_env.trap.game`) and is
registered by name in :mod:`trap_env.games`.

A game may also offer a batched engine, B games as NumPy arrays
(``game.batched_engine(config)``, :class:`trap_env.batched.BatchedEngine`): optional, so
not a member of :class:`Game`.

When a game is over is said by one function, :meth:`Game.outcome`, which returns an
:class:`Outcome` (the model is python-chess's ``Outcome``/``Termination``): the winner and
the reason, one of the game's own :attr:`Game.end_reasons` or :data:`TRUNCATED` when the
turn limit cut it. :func:`turn_limit` resolves that limit, the same way everywhere.
:func:`config_from_params` is a game's ``make_config`` when its configuration is a
dataclass of its rule parameters.

This module imports nothing outside the standard library.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from trap_env.checks import describe

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "TRUNCATED",
    "Game",
    "IllegalActionError",
    "Outcome",
    "RandomSource",
    "action_index",
    "config_from_params",
    "played_params",
    "turn_limit",
]

TRUNCATED = "truncated"
"""The reason of a game cut at its turn limit (a draw), in every game."""

S = TypeVar("S", bound=Hashable)
C = TypeVar("C")
D = TypeVar("D", bound="DataclassInstance")


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended.

    Attributes:
        winner: the winning player, 0 or 1; None for a draw.
        reason: why it ended: one of its game's ``end_reasons`` or :data:`TRUNCATED`
            (the match runner adds the faults of ``agents.arena.match.FAULTS``).
    """

    winner: int | None
    reason: str

    def returns(self) -> tuple[float, float]:
        """The players' payoffs: +1 for the winner, -1 for the loser, 0 and 0 for a draw."""
        if self.winner is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if self.winner == 0 else (-1.0, 1.0)


def turn_limit(max_turns: object, default: int) -> int:
    """The turn limit of a game: ``max_turns``, or ``default`` when it is None.

    Every environment, runner, search and training loop resolves its limit here, so that
    "no limit given" means one thing everywhere (each game's ``default_turn_limit``).

    Raises:
        ValueError: if ``max_turns`` is neither None nor a positive integer.
    """
    if max_turns is None:
        return default
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise ValueError(f"max_turns must be a positive integer or None, got {max_turns!r}")
    return max_turns


def config_from_params(title: str, config_type: type[D], params: Mapping[str, Any]) -> D:
    """``config_type(**params)``, refusing a parameter that is not one of its fields.

    A game whose configuration is a dataclass of its rule parameters makes it here
    (:meth:`Game.make_config`); ``title`` is the game's, for the message.

    Raises:
        ValueError: ``"TITLE has no rule parameter [...]; allowed: [...]"``, or what
            ``config_type`` raises for a value out of range.
    """
    allowed = {item.name for item in dataclasses.fields(config_type)}
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise ValueError(f"{title} has no rule parameter {unknown}; allowed: {sorted(allowed)}")
    return config_type(**params)


class RandomSource(Protocol):
    """Anything with ``random() -> float`` in ``[0, 1)``: ``random.Random``, numpy's Generator."""

    def random(self) -> float: ...


class IllegalActionError(ValueError):
    """An action that the rules do not allow in this state, or any action in a finished game."""


def action_index(action: object, allowed: str) -> int:
    """An action that is not a plain int, as one: NumPy integers pass, bools and the rest raise.

    Every game's ``apply`` calls it after its own fast test ``type(action) is int``.

    Raises:
        IllegalActionError: ``"an action is ALLOWED, got TYPE VALUE"``.
    """
    if not isinstance(action, bool):
        try:
            return operator.index(action)  # type: ignore[arg-type]
        except TypeError:
            pass
    raise IllegalActionError(f"an action is {allowed}, got {describe(action)}")


class Game(Protocol[S, C]):
    """A two-player zero-sum game with perfect information and explicit chance nodes.

    ``S`` is the state type (immutable, hashable), ``C`` the rules' configuration (a frozen
    record of the rule parameters: Trap!'s board size and decay). Methods that take a
    state never change it.
    """

    name: str
    """The registry name: ``make_agent(spec, game=name)``, ``--game name``, records."""
    title: str
    """The name people read: ``"Trap!"``."""
    end_reasons: tuple[str, ...]
    """The reasons of :meth:`outcome` that the rules give (Trap!: ``("trapped",)``)."""
    has_chance: bool
    """Whether the game has chance nodes at all (Trap!: True; Othello: False)."""
    decision_names: tuple[str, ...]
    """Every name :meth:`decision_name` gives, in a fixed order, a turn's first decision
    first; the envs' ``info["phase"]`` is the index in it (Trap!: ``("move", "throw",
    "landing")``)."""
    decisions_per_turn: int
    """The decisions one player makes in a row in a turn (Trap!: 2, a move and a throw;
    Othello: 1); a timed agent shares a turn's budget among them."""

    # --- Configuration ----------------------------------------------------------------

    def make_config(self, **params: Any) -> C:
        """The rules' configuration from keyword parameters (missing ones: defaults).

        Raises:
            ValueError: naming a parameter that is unknown or out of range.
        """
        ...

    def config_params(self, config: C) -> dict[str, Any]:
        """Every rule parameter of ``config`` by name (what records and settings store)."""
        ...

    def config_of(self, state: S) -> C:
        """The configuration a state is played under."""
        ...

    def num_actions(self, config: C) -> int:
        """The size of the action space; actions are ``range(num_actions)``.

        Any numbering serves: a network that plays the game (``mcts``'s) gives one logit
        per action, reading a cell's own features for actions numbered cell by cell first
        (``cell * k + j`` for the ``k`` actions of each cell, the cells numbered row by row:
        Trap!'s, Othello's, Colosseum's) and the whole board's for the rest (Othello's pass,
        a column to drop in).
        """
        ...

    def observation_shape(self, config: C) -> tuple[int, ...]:
        """The shape of :meth:`observe`'s planes: ``(rows, cols, planes)``, a grid of
        cells (Trap!'s ``(N, N, 4)``), which the networks convolve over."""
        ...

    def default_turn_limit(self, config: C) -> int:
        """The turn after which runners and environments cut a game as a draw."""
        ...

    # --- Play ---------------------------------------------------------------------------

    def initial_state(self, config: C) -> S:
        """The start of a game."""
        ...

    def current_player(self, state: S) -> int:
        """The player to act; at a chance node, the player whose decision it follows."""
        ...

    def is_chance(self, state: S) -> bool:
        """Whether chance acts next (never once the game is over)."""
        ...

    def legal_actions(self, state: S) -> list[int]:
        """The legal actions (or chance outcomes), ascending; empty once the game is over."""
        ...

    def legal_action_mask(self, state: S) -> list[int]:
        """:meth:`legal_actions` as ``num_actions`` zeros and ones."""
        ...

    def apply(self, state: S, action: int) -> S:
        """The state after ``action`` (a decision or a chance outcome).

        Raises:
            IllegalActionError: naming the action and the legal choices.
        """
        ...

    def chance_outcomes(self, state: S) -> Sequence[tuple[int, float]]:
        """The exact ``(outcome, probability)`` pairs of a chance node.

        Raises:
            ValueError: if ``state`` is not a chance node.
        """
        ...

    def sample_chance(self, state: S, rng: RandomSource) -> int:
        """One chance outcome, drawn with exactly one ``rng.random()``."""
        ...

    def chance_key(self, state: S) -> tuple[int, ...] | None:
        """What names a chance node across the games of a pair, for duplicate draws (a
        runner's ``duplicate_chance``): two chance nodes with one key, in the two games of
        one seed, are drawn from one uniform, so that the same situation gets the same luck
        (Trap!: the turn, the thrower's cell and the target). Nodes of one game must have
        distinct keys, so that its draws stay independent. None: not keyed (drawn as
        without duplicates).
        """
        ...

    def turn(self, state: S) -> int:
        """The number of turns completed. A turn is the run of decisions one player makes
        in a row (Trap!: a move and a throw); the match runner's time budget is per turn."""
        ...

    def outcome(self, state: S, max_turns: int | None = None) -> Outcome | None:
        """Whether and why the game is over: None while it goes on.

        Args:
            state: the position.
            max_turns: the turn limit (resolved by :func:`turn_limit`); None for the
                rules alone, without a limit.
        """
        ...

    def scores(self, state: S) -> dict[str, Any]:
        """What the game counts beyond win and loss (disc counts, zone sizes), for ``info``
        and records; empty where there is nothing."""
        ...

    def decision_name(self, state: S) -> str:
        """What the player to act decides now (Trap!: ``"move"`` or ``"throw"``), one of
        :attr:`decision_names`."""
        ...

    # --- Views --------------------------------------------------------------------------

    def observe(self, state: S, player: int) -> Any:
        """The observation planes from ``player``'s side, an ``int8`` array of
        :meth:`observation_shape`."""
        ...

    def to_text(self, state: S) -> str:
        """A one-line notation, read back exactly by :meth:`from_text`."""
        ...

    def from_text(self, text: str) -> S:
        """Parse :meth:`to_text`'s notation; the state read passes :meth:`check_state`.

        Raises:
            ValueError: naming the first problem in the text.
        """
        ...

    def check_state(self, state: S) -> None:
        """Refuse a state that no game of these rules reaches.

        Every entrance of a state from outside (text, the environments'
        ``set_game_state``, the OpenSpiel adapter, a batched engine's ``from_states``, the
        course adapters) checks here, so that no search ever runs on an impossible one.

        Raises:
            TypeError: if ``state`` is not of the game's state type.
            ValueError: naming what is wrong and what is allowed.
        """
        ...

    def action_to_text(self, state: S, action: int) -> str:
        """An action as people and programs write it (Trap!: ``"row col"``)."""
        ...

    def action_from_text(self, state: S, text: str) -> int:
        """Parse :meth:`action_to_text`'s form (the action need not be legal).

        Raises:
            ValueError: saying what form is allowed.
        """
        ...

    def render_text(self, state: S, last_chance: tuple[int, int] | None = None) -> str:
        """A board drawing for the terminal (``last_chance`` as in :meth:`render_rgb`)."""
        ...

    def render_rgb(self, state: S, last_chance: tuple[int, int] | None = None) -> Any:
        """The board as an ``(H, W, 3)`` ``uint8`` image; ``last_chance`` is the last
        chance node's ``(decision before it, outcome)`` (Trap!: a throw's target and
        landing), drawn where the game shows it."""
        ...

    def describe(self, state: S) -> Mapping[str, Any]:
        """A JSON-ready description of the position that a web page can draw."""
        ...


def played_params(game: Game[Any, Any], params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Every rule parameter of ``game`` as played with ``params`` (its defaults fill the rest).

    Example:
        >>> from trap_env.games import get_game
        >>> played_params(get_game("othello"), {"board_size": 6})
        {'board_size': 6, 'end_rule': 'standard'}

    Raises:
        ValueError: from the game's ``make_config``, for a parameter it does not have or a
            value it does not allow.
    """
    return game.config_params(game.make_config(**dict(params or {})))

"""The defaults a game need not write: :class:`GameBase`, a base class beside the protocol.

The protocol (:class:`trap_env.game.Game`) stays the contract, and a game may implement it
without this class. A game that subclasses :class:`GameBase` writes only what is its own:
its configuration is a dataclass of its rule parameters (:attr:`GameBase.config_type`),
and the base gives ``make_config`` and ``config_params`` from it; a game without chance
writes nothing of chance; the legal mask comes from the legal actions, the decision names
from the chance nodes, the text drawing from the text notation, actions as text from their
numbers, and scores are empty. A method that only forwards to the game's rules module is
one line, the function itself: ``apply = staticmethod(rules.apply)``.

A subclass that leaves a member of the protocol undefined is refused when it is defined
(a ``TypeError`` naming the members), never a method that returns None at play.

Example:
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class NimConfig:
    ...     heap: int = 5
    >>> class Nim(GameBase[tuple[int, int], NimConfig]):  # doctest: +ELLIPSIS
    ...     name, title, end_reasons, config_type = "nim", "Nim", ("taken",), NimConfig
    Traceback (most recent call last):
    ...
    TypeError: Nim lacks what the game protocol ... has no default for: config_of, ..., describe
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from trap_env.checks import parse_natural
from trap_env.game import Game, RandomSource, config_from_params

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["GameBase"]

S = TypeVar("S", bound=Hashable)
C = TypeVar("C", bound="DataclassInstance")


class GameBase(Game[S, C]):
    """A game's defaults: subclass it, set the class attributes, write the rest.

    A subclass sets :attr:`name`, :attr:`title`, :attr:`end_reasons` and
    :attr:`config_type`, and writes every member of the protocol the base has no default
    for (``config_of``, ``num_actions``, ``observation_shape``, ``default_turn_limit``,
    ``initial_state``, ``current_player``, ``legal_actions``, ``apply``, ``turn``,
    ``outcome``, ``observe``, ``to_text``, ``from_text``, ``check_state``, ``render_rgb``,
    ``describe``). A game with chance sets ``has_chance`` and writes ``is_chance``,
    ``chance_outcomes`` and ``sample_chance`` (and ``chance_key``, for duplicate draws); any
    default may be overridden.
    """

    config_type: type[C]
    """The dataclass of the rule parameters: ``make_config(**params)`` is
    ``config_type(**params)``, refusing a parameter that is not one of its fields."""
    has_chance: bool = False
    decision_names: tuple[str, ...] = ("move",)
    """One name by default; a game with chance names its chance node last."""
    decisions_per_turn: int = 1

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Refuse a game class that leaves a member of the protocol undefined.

        Raises:
            TypeError: naming the members the class lacks.
        """
        super().__init_subclass__(**kwargs)
        missing = [name for name in _MEMBERS if getattr(cls, name, None) is _UNDEFINED.get(name)]
        if missing:
            raise TypeError(
                f"{cls.__name__} lacks what the game protocol (trap_env.game.Game) asks for "
                f"and GameBase has no default for: {', '.join(missing)}"
            )

    # --- Configuration ----------------------------------------------------------------

    def make_config(self, **params: Any) -> C:
        """``config_type(**params)`` (:func:`trap_env.game.config_from_params`).

        Raises:
            ValueError: for an unknown parameter or a value out of range.
        """
        return config_from_params(self.title, self.config_type, params)

    def config_params(self, config: C) -> dict[str, Any]:
        """Every field of the configuration by name."""
        return dataclasses.asdict(config)

    # --- Play ---------------------------------------------------------------------------

    def is_chance(self, state: S) -> bool:
        """Never: a game without chance."""
        return False

    def chance_outcomes(self, state: S) -> Sequence[tuple[int, float]]:
        """A game without chance has no chance node.

        Raises:
            ValueError: always.
        """
        raise ValueError(f"{self.title} has no chance nodes")

    def sample_chance(self, state: S, rng: RandomSource) -> int:
        """A game without chance has no chance node.

        Raises:
            ValueError: always.
        """
        raise ValueError(f"{self.title} has no chance nodes")

    def chance_key(self, state: S) -> tuple[int, ...] | None:
        """None: the game's chance nodes are not keyed (drawn as without duplicates)."""
        return None

    def legal_action_mask(self, state: S) -> list[int]:
        """:meth:`legal_actions` as ``num_actions`` zeros and ones."""
        mask = [0] * self.num_actions(self.config_of(state))
        for action in self.legal_actions(state):
            mask[action] = 1
        return mask

    def decision_name(self, state: S) -> str:
        """The last of :attr:`decision_names` at a chance node, the first otherwise."""
        return self.decision_names[-1 if self.is_chance(state) else 0]

    def scores(self, state: S) -> dict[str, Any]:
        """Nothing beyond win and loss."""
        return {}

    # --- Views --------------------------------------------------------------------------

    def action_to_text(self, state: S, action: int) -> str:
        """The action's number."""
        return str(action)

    def action_from_text(self, state: S, text: str) -> int:
        """An action's number, ``0 .. num_actions - 1`` in ASCII digits.

        Raises:
            ValueError: for any other text.
        """
        limit = self.num_actions(self.config_of(state))
        problem = f"an action is a number 0..{limit - 1}"
        action = parse_natural(text.strip(), problem)
        if action >= limit:
            raise ValueError(f"{problem}, got {text[:40]!r}")
        return action

    def render_text(self, state: S, last_chance: tuple[int, int] | None = None) -> str:
        """The text notation (:meth:`to_text`)."""
        return self.to_text(state)


_UNDEFINED: dict[str, object] = {
    **dict.fromkeys(Game.__annotations__),
    **{name: value for name, value in vars(Game).items() if callable(value)},
}
"""Each member of the protocol -> what a class that leaves it undefined has under its name
(the protocol's own stub, or nothing)."""
_MEMBERS = [name for name in _UNDEFINED if not name.startswith("_")]

"""``openspiel-mcts``: OpenSpiel's own ``MCTSBot`` (UCT with random rollouts) as an agent of
every game, the yardstick of issue #27 (``openspiel-mcts:simulations=1000``), with the same
options in each.

It needs the ``openspiel`` extra (``pip install 'trap_env[openspiel]'``); pyspiel is
imported when the agent is built, and a missing one is a clear :class:`SpecError`.

The bot searches the game through its OpenSpiel adapter (``python_<game>``,
:mod:`trap_env.openspiel`): our rules, with chance as explicit nodes that the bot samples
with its own generator (Trap!'s landings). A game whose agents package declares a
:class:`NativeGame` (``NATIVE`` in ``agents.<game>.openspiel_mcts``: Othello's is OpenSpiel's
C++ ``othello`` on 8x8 under the standard rule) is searched there instead where that game
plays the same rules: faster, and what a paper reproduces without this package. The agent
reaches the C++ state from any position: it keeps the state after its own action and
applies the opponent's one action that leads to the position it is asked about; a position
it cannot reach so (its first decision, after an opening it did not see) is replayed from
the start along the actions the game's hook finds for it. A position the hook finds none
for is searched in the Python game, and so is the rest of that game (the same rules and
legal-action order: slower, the same moves).

The bot's generators (tie-breaking, expansion order, chance, rollouts) are numpy
``RandomState`` s drawn from the agent's seed at each ``reset``: deterministic given the seed.

Example:
    >>> from agents import make_agent
    >>> from trap_env.games import get_game
    >>> agent = make_agent("openspiel-mcts:simulations=20", game="trap", seed=0)
    >>> game = get_game("trap")
    >>> state = game.initial_state(game.make_config(board_size=5))
    >>> agent.select_action(state) in game.legal_actions(state)
    True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agents.options import require_game
from agents.registry import game_declaration
from agents.seeded import SeededAgent
from trap_env.agent import SpecError
from trap_env.games import get_game

__all__ = ["HOOK_MODULE", "NativeGame", "OpenSpielMCTSAgent", "native_game"]

HOOK_MODULE = "openspiel_mcts"
"""The module of a game's agents package (``agents.<game>.openspiel_mcts``) whose ``NATIVE``
is the game's :class:`NativeGame`."""


@dataclass(frozen=True)
class NativeGame:
    """A game's own game in OpenSpiel's C++, whose actions are the game's.

    Attributes:
        name: its pyspiel name (``pyspiel.load_game(name)``).
        plays: whether it plays the rules of a configuration of the game.
        history: actions from the start of a configuration it plays that lead to a state
            (the C++ game's actions are ours), or None when it finds none.
    """

    name: str
    plays: Callable[[Any], bool]
    history: Callable[[Any], Sequence[int] | None]


def native_game(game: str) -> NativeGame | None:
    """The :class:`NativeGame` the agents package of ``game`` declares, or None.

    Found by name, ``agents.<game>.openspiel_mcts:NATIVE``
    (:func:`~agents.registry.game_declaration`), so that this module names no game.
    """
    native = game_declaration(game, HOOK_MODULE, "NATIVE")
    return native if isinstance(native, NativeGame) else None


def _import_openspiel() -> tuple[Any, Any]:
    """pyspiel and OpenSpiel's ``mcts`` module.

    Raises:
        SpecError: if OpenSpiel is not installed, saying how to install it.
    """
    try:
        import pyspiel
        from open_spiel.python.algorithms import mcts
    except ImportError as error:
        raise SpecError(
            f"openspiel-mcts needs OpenSpiel (pyspiel): pip install 'trap_env[openspiel]' ({error})"
        ) from None
    return pyspiel, mcts


class OpenSpielMCTSAgent(SeededAgent):
    """OpenSpiel's ``MCTSBot`` with ``RandomRolloutEvaluator`` on a simulation budget.

    Args:
        simulations: MCTS simulations per decision (``max_simulations``), at least 1.
        uct_c: the UCT exploration constant (OpenSpiel's examples use 2).
        rollouts: random rollouts per evaluated leaf, at least 1.
        solve: back up proven wins and losses (MCTS-Solver), as OpenSpiel's default.
        seed: seeds the bot's generators (new ones at every ``reset``).
        game: the game it plays (the agent table tells it).

    Raises:
        SpecError: if OpenSpiel is not installed.
        ValueError: for a budget, constant or rollout count out of range.
    """

    def __init__(
        self,
        simulations: int = 1000,
        uct_c: float = 2.0,
        rollouts: int = 1,
        solve: bool = True,
        seed: int | None = None,
        *,
        game: str | None = None,
    ) -> None:
        game = require_game(game, "OpenSpielMCTSAgent()")
        for name, value in (("simulations", simulations), ("rollouts", rollouts)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        if isinstance(uct_c, bool) or not isinstance(uct_c, int | float) or not uct_c >= 0:
            raise ValueError(f"uct_c must be a number >= 0, got {uct_c!r}")
        self._pyspiel, self._mcts = _import_openspiel()
        self.game = get_game(game)
        from trap_env.openspiel import spiel_name_of  # imports pyspiel: here, not at import

        self.spiel_name = spiel_name_of(self.game)  # every game's, a game's path's too
        self.native = native_game(game)
        super().__init__(seed)
        self.simulations, self.uct_c, self.rollouts, self.solve = (
            simulations,
            uct_c,
            rollouts,
            solve,
        )
        self._bots: dict[tuple[tuple[tuple[str, Any], ...], bool], Any] = {}
        self._bot_seed = self.rng.getrandbits(32)
        self._mirror: tuple[Any, Any] | None = None
        self._unreachable = False

    def reset(self, seed: int | None = None) -> None:
        """Start a new game: reseed, and forget the bots and the C++ state (if any)."""
        super().reset(seed)
        self._bots.clear()
        self._bot_seed = self.rng.getrandbits(32)
        self._mirror, self._unreachable = None, False

    def select_action(self, state: Any) -> int:
        """The bot's choice after ``simulations`` simulations from ``state``.

        Raises:
            ValueError: for a finished game.
        """
        if not self.game.legal_actions(state):
            raise ValueError(
                f"select_action needs a game in progress, got {self.game.to_text(state)}"
            )
        config = self.game.config_of(state)
        native_state = self._native_state(state, config)
        if native_state is None:
            spiel_state = self._game(config, native=False).new_initial_state()
            spiel_state.game_state = state
            return int(self._bot(config, native=False).step(spiel_state))
        action = int(self._bot(config, native=True).step(native_state))
        native_state.apply_action(action)
        self._mirror = (self.game.apply(state, action), native_state)
        return action

    @property
    def native_states(self) -> bool:
        """Whether the last decision searched the C++ game (it keeps its state then)."""
        return self._mirror is not None

    # --- OpenSpiel's side ---------------------------------------------------------------

    def _bot(self, config: Any, native: bool) -> Any:
        """The bot for the rules of ``config`` on C++ or Python states, built on first use."""
        key = (tuple(sorted(self.game.config_params(config).items())), native)
        bot = self._bots.get(key)
        if bot is None:
            import numpy as np

            evaluator = self._mcts.RandomRolloutEvaluator(
                n_rollouts=self.rollouts, random_state=np.random.RandomState(self._bot_seed)
            )
            bot = self._bots[key] = self._mcts.MCTSBot(
                self._game(config, native),
                self.uct_c,
                self.simulations,
                evaluator,
                solve=self.solve,
                random_state=np.random.RandomState(self._bot_seed + 1),
            )
        return bot

    def _game(self, config: Any, native: bool) -> Any:
        """The C++ game, or the Python game of the rules of ``config``."""
        if native:
            assert self.native is not None  # only asked for where the hook plays the rules
            return self._pyspiel.load_game(self.native.name)
        return self._pyspiel.load_game(self.spiel_name, self.game.config_params(config))

    def _native_state(self, state: Any, config: Any) -> Any | None:
        """The C++ state of ``state``, or None where the C++ game cannot serve.

        The kept state (after the agent's own action) plus the opponent's one action that
        leads to ``state``; else the start plus the hook's history of ``state``.
        """
        if self.native is None or not self.native.plays(config):
            self._mirror = None
            return None
        if self._mirror is not None:
            before, spiel_state = self._mirror
            if before == state:
                return spiel_state
            for action in self.game.legal_actions(before):
                if self.game.apply(before, action) == state:
                    spiel_state.apply_action(action)
                    return spiel_state
        self._mirror = None
        history = None if self._unreachable else self.native.history(state)
        if history is None:  # the search of this game's Python states goes on to its end
            self._unreachable = True
            return None
        spiel_state = self._game(config, native=True).new_initial_state()
        for action in history:
            spiel_state.apply_action(action)
        return spiel_state

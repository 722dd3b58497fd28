"""``openspiel-mcts``: OpenSpiel's own ``MCTSBot`` (UCT with random rollouts) as an Othello
agent, the yardstick of issue #27 (``openspiel-mcts:simulations=1000``).

It needs the ``openspiel`` extra (``pip install 'trap_env[openspiel]'``); pyspiel is
imported when the agent is built, and a missing one is a clear :class:`SpecError`.

On 8x8 under the standard rule the bot searches OpenSpiel's C++ ``othello``, whose
actions, first player (dark, ``x``, player 0), pass (64) and returns are ours
(``tests/trap_env/othello/test_game.py`` checks them state by state). OpenSpiel cannot set up a
position, so the agent keeps an OpenSpiel state in step with the game: it remembers the
position after its own action (at a new game, the start) and finds the opponent's one
action that leads to the position it is asked about. A position it cannot reach so (the
first decision of a game joined late) and every other board size or end rule are searched
in our rules behind OpenSpiel's Python API (``python_othello``, :mod:`trap_env.openspiel`):
slower, but the same game with the same legal-action order, so the bot plays the same
moves.

The bot's generator (tie-breaking, expansion order, rollouts) is a numpy ``RandomState``
drawn from the agent's seed at each ``reset``: deterministic given the seed.

Example:
    >>> from trap_env.othello.rules import initial_state
    >>> agent = OpenSpielMCTSAgent(simulations=20, seed=0)
    >>> agent.select_action(initial_state()) in (19, 26, 37, 44)
    True
"""

from __future__ import annotations

from typing import Any

from agents.othello.random_agent import OthelloAgent
from trap_env.agent import SpecError
from trap_env.othello import rules
from trap_env.othello.rules import OthelloState

__all__ = ["PYTHON_GAME", "OpenSpielMCTSAgent"]

PYTHON_GAME = "python_othello"
"""The name our rules are registered under in OpenSpiel when the C++ game cannot serve."""
_NATIVE = (8, rules.STANDARD)
"""The board side and end rule of OpenSpiel's own ``othello``."""


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


class OpenSpielMCTSAgent(OthelloAgent):
    """OpenSpiel's ``MCTSBot`` with ``RandomRolloutEvaluator`` on a simulation budget.

    Args:
        simulations: MCTS simulations per decision (``max_simulations``), at least 1.
        uct_c: the UCT exploration constant (OpenSpiel's examples use 2).
        rollouts: random rollouts per evaluated leaf, at least 1.
        solve: back up proven wins and losses (MCTS-Solver), as OpenSpiel's default.
        seed: seeds the bot's generator (a new one at every ``reset``).

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
    ) -> None:
        for name, value in (("simulations", simulations), ("rollouts", rollouts)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        if isinstance(uct_c, bool) or not isinstance(uct_c, int | float) or not uct_c >= 0:
            raise ValueError(f"uct_c must be a number >= 0, got {uct_c!r}")
        self._pyspiel, self._mcts = _import_openspiel()
        super().__init__(seed)
        self.simulations, self.uct_c, self.rollouts, self.solve = (
            simulations,
            uct_c,
            rollouts,
            solve,
        )
        self._bots: dict[tuple[int, str, bool], Any] = {}
        self._bot_seed = self.rng.getrandbits(32)
        self._mirror: tuple[OthelloState, Any] | None = None

    def reset(self, seed: int | None = None) -> None:
        """Start a new game: reseed, and forget the bots and the mirrored state."""
        super().reset(seed)
        self._bots.clear()
        self._bot_seed = self.rng.getrandbits(32)
        self._mirror = None

    def select_action(self, state: OthelloState) -> int:
        """The bot's choice after ``simulations`` simulations from ``state``.

        Raises:
            ValueError: for a finished game.
        """
        if not rules.legal_actions(state):
            raise ValueError(f"select_action needs a game in progress, got {rules.to_text(state)}")
        spiel_state, native = self._spiel_state(state)
        action = int(self._bot(state, native).step(spiel_state))
        if native:
            spiel_state.apply_action(action)
            self._mirror = (rules.apply(state, action), spiel_state)
        return action

    # --- OpenSpiel's side ---------------------------------------------------------------

    def _bot(self, state: OthelloState, native: bool) -> Any:
        """The bot for the state's rules on C++ or Python states, built on first use."""
        key = (state.board_size, state.end_rule, native)
        bot = self._bots.get(key)
        if bot is None:
            import numpy as np

            evaluator = self._mcts.RandomRolloutEvaluator(
                n_rollouts=self.rollouts, random_state=np.random.RandomState(self._bot_seed)
            )
            bot = self._bots[key] = self._mcts.MCTSBot(
                self._game(state, native),
                self.uct_c,
                self.simulations,
                evaluator,
                solve=self.solve,
                random_state=np.random.RandomState(self._bot_seed + 1),
            )
        return bot

    def _game(self, state: OthelloState, native: bool) -> Any:
        pyspiel = self._pyspiel
        if native:
            return pyspiel.load_game("othello")
        if PYTHON_GAME not in pyspiel.registered_names():
            from trap_env.openspiel import register_spiel_game
            from trap_env.othello.game import GAME

            register_spiel_game(GAME, PYTHON_GAME)
        return pyspiel.load_game(
            PYTHON_GAME, {"board_size": state.board_size, "end_rule": state.end_rule}
        )

    def _spiel_state(self, state: OthelloState) -> tuple[Any, bool]:
        """An OpenSpiel state of ``state``, and whether it is the C++ game's."""
        if (state.board_size, state.end_rule) == _NATIVE:
            native = self._native_state(state)
            if native is not None:
                return native, True
        self._mirror = None
        spiel_state = self._game(state, native=False).new_initial_state()
        spiel_state.game_state = state
        return spiel_state, False

    def _native_state(self, state: OthelloState) -> Any | None:
        """The C++ state of ``state``: the remembered position (at a new game, the start)
        plus the opponent's one action; None if that does not lead there."""
        if self._mirror is None:
            start = rules.initial_state(state.config)
            self._mirror = (start, self._game(state, native=True).new_initial_state())
        before, spiel_state = self._mirror
        if before == state:
            return spiel_state
        if before.turn + 1 != state.turn:
            return None
        for action in rules.legal_actions(before):
            if rules.apply(before, action) == state:
                spiel_state.apply_action(action)
                return spiel_state
        return None

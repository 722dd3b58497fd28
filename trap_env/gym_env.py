"""The Gymnasium single-agent environment: the learner against an opponent inside the env.

:class:`GameEnv` plays any game of the protocol (:class:`trap_env.game.Game`);
:class:`TrapEnv` (``trap_env/Trap-v0``) is Trap! in it.
"""

from __future__ import annotations

import warnings
from typing import Any, SupportsInt

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded

from trap_env.agent import Opponent, OpponentError, close_agent, resolve_opponent
from trap_env.core import DEFAULT_DECAY, IllegalActionError, Phase, State, validate_state
from trap_env.game import TRUNCATED, Game, turn_limit
from trap_env.games import get_game
from trap_env.observation import NUM_PLANES
from trap_env.rendering import RENDER_MODES, EnvRenderer
from trap_env.trap import GAME as TRAP

__all__ = [
    "ILLEGAL_ACTION_POLICIES",
    "GameEnv",
    "Opponent",
    "OpponentError",
    "TrapEnv",
    "check_learner_options",
    "close_agent",
    "planes_space",
]

ILLEGAL_ACTION_POLICIES = ("lose", "raise")
"""What an illegal learner action does: end the episode with reward -1, or raise."""


class GameEnv(gym.Env[np.ndarray, np.int64]):
    """Any game of the protocol for one learner against an opponent inside the environment.

    A thin adapter: observations are ``game.observe`` from the learner's side, masks
    ``game.legal_action_mask``, chance is drawn by ``game.sample_chance`` from
    ``np_random``, and the game ends when ``game.outcome`` says so (the turn limit
    resolved by :func:`trap_env.game.turn_limit`). :class:`TrapEnv` documents the
    behaviour in full; every game's env behaves the same way.

    Args:
        game: the game, or its registered name.
        opponent, seat, max_turns, render_mode, illegal_action: as :class:`TrapEnv`.
        **rules: the game's rule parameters (``game.make_config(**rules)``).
    """

    chance_keys = ("chance_action", "chance_outcome")
    """The ``info`` keys of the learner's decision that chance followed, and its outcome."""
    opponent_chance_keys = ("opponent_chance_action", "opponent_chance_outcome")
    """The same for the opponent's decision."""

    metadata = {  # noqa: RUF012  (Gymnasium declares it a plain attribute)
        "render_modes": list(RENDER_MODES),
        "render_fps": 4,
    }

    def __init__(
        self,
        game: Game[Any, Any] | str,
        opponent: Opponent = "random",
        seat: int | None = None,
        max_turns: int | None = None,
        render_mode: str | None = None,
        illegal_action: str = "lose",
        **rules: Any,
    ) -> None:
        self.game = rules_of = get_game(game) if isinstance(game, str) else game
        self._config = config = rules_of.make_config(**rules)
        self.max_turns = turn_limit(max_turns, rules_of.default_turn_limit(config))
        check_learner_options(seat, illegal_action)
        self.fixed_seat = seat
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        shape = rules_of.observation_shape(config)
        self.observation_space = spaces.Box(0, 1, shape, dtype=np.int8)
        self.action_space = spaces.Discrete(rules_of.num_actions(config))
        self._opponent, self._owns_opponent = resolve_opponent(
            opponent, game=rules_of.name, config=config
        )
        self._state = rules_of.initial_state(config)
        self._seat = 0 if seat is None else seat
        self._last_throw: tuple[int, int] | None = None
        self._truncated = False
        self._illegal = False
        self._fault: str | None = None
        self._has_started = False
        self._renderer = EnvRenderer(render_mode, self.metadata["render_fps"], rules_of)

    # --- Public state access ----------------------------------------------------------

    @property
    def state(self) -> Any:
        """The current game state (a value: changing the env never changes it)."""
        return self._state

    @property
    def seat(self) -> int:
        """The learner's player number (0 or 1) in the current episode."""
        return self._seat

    def set_state(self, state: Any) -> tuple[np.ndarray, dict[str, Any]]:
        """Continue the episode from ``state``, for search and debugging.

        The state must be of this env's rules and a decision, not a chance node. If the
        opponent is to act, it plays (and chance acts) until the learner must decide, as in
        ``reset``.

        Returns:
            The observation and info, as ``reset`` returns them.

        Raises:
            ValueError: if the state is of other rules or a chance node.
            OpponentError: if the opponent raises or plays an illegal action.
        """
        self._check_state(state)
        self._start(state)
        info = self._play_others_or_raise()
        return self._observation(), self._info(info)

    def set_opponent(self, opponent: Opponent) -> None:
        """Play the rest of this episode and later ones against ``opponent``.

        Raises:
            UnsupportedGameError: if the opponent cannot play this env's board.
        """
        new, owned = resolve_opponent(opponent, game=self.game.name, config=self._config)
        self._close_own_opponent()
        self._opponent, self._owns_opponent = new, owned

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now, as a bool array over the actions."""
        return np.array(self.game.legal_action_mask(self._state), np.bool_)

    # --- Gymnasium API ---------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a game: draw the seat (unless fixed), reseed the opponent, play to the learner.

        Raises:
            OpponentError: if the opponent raises or plays an illegal action before the
                learner's first decision.
        """
        super().reset(seed=seed)
        rng = self.np_random
        self._seat = int(rng.integers(2)) if self.fixed_seat is None else self.fixed_seat
        opponent_reset = getattr(self._opponent, "reset", None)
        if callable(opponent_reset):
            opponent_reset(seed=int(rng.integers(2**63)))
        self._start(self.game.initial_state(self._config))
        info = self._play_others_or_raise()
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info(info)

    def step(self, action: SupportsInt) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's move or throw; after a throw, the landing and the opponent's turn.

        Raises:
            ResetNeeded: before the first ``reset`` (a ``gymnasium.error.ResetNeeded``).
            RuntimeError: if the episode is over (call ``reset``).
            IllegalActionError: for an illegal action with ``illegal_action="raise"``.
        """
        if not self._has_started:
            raise ResetNeeded("call reset() before step(): the env has no game yet")
        if self._fault is not None:
            raise RuntimeError(f"the opponent failed, which ended the episode: {self._fault}")
        if self._is_over():
            raise RuntimeError("the episode is over; call reset() before step()")
        info: dict[str, Any] = {}
        try:
            self._state = self.game.apply(self._state, action)  # type: ignore[arg-type]
        except IllegalActionError as error:
            return self._on_illegal_action(error)
        if self.game.is_chance(self._state):
            info |= self._land(int(action), self.chance_keys)
        try:
            info |= self._play_others()
        except OpponentError as error:
            return self._on_opponent_fault(error, info)
        if self.render_mode == "human":
            self.render()
        ending = self._ending()
        terminated = ending is not None and ending != TRUNCATED
        reward = self._outcome().returns()[self._seat] if terminated else 0.0
        return self._observation(), reward, terminated, self._truncated, self._info(info)

    def render(self) -> str | np.ndarray | None:
        """Draw the board as ``render_mode`` says: text, an RGB array, or a pygame window."""
        return self._renderer.render(self._state, self._last_throw)

    def close(self) -> None:
        """Close the window if one is open, and an opponent built from a spec if it holds
        resources (a program agent's process); closing twice is fine."""
        self._renderer.close()
        self._close_own_opponent()

    # --- Internals -------------------------------------------------------------------

    def _close_own_opponent(self) -> None:
        """End an opponent the env built from a spec (one given as an object is the caller's)."""
        if self._owns_opponent:
            close_agent(self._opponent)

    def _on_illegal_action(
        self, error: IllegalActionError
    ) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The one place that decides what an illegal learner action does."""
        if self.illegal_action == "raise":
            raise error
        self._illegal = True
        info = self._info({"illegal_action": True})
        return self._observation(), -1.0, True, False, info

    def _on_opponent_fault(
        self, error: OpponentError, info: dict[str, Any]
    ) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The one place that decides what an opponent's failure during ``step`` does."""
        self._fault = str(error)
        warnings.warn(f"{error}; the episode is truncated", RuntimeWarning, stacklevel=3)
        info = self._info(info | {"opponent_fault": self._fault})
        return self._observation(), 0.0, False, True, info

    def _start(self, state: State) -> None:
        self._state = state
        self._last_throw = None
        self._illegal = False
        self._fault = None
        self._has_started = True

    def _play_others_or_raise(self) -> dict[str, Any]:
        """``_play_others`` for a start: an opponent's failure leaves no episode to play."""
        try:
            return self._play_others()
        except OpponentError as error:
            self._fault = str(error)
            raise

    def _play_others(self) -> dict[str, Any]:
        """Let the opponent play (and chance land its throws) until the learner must act."""
        info: dict[str, Any] = {}
        state = self._state
        game = self.game
        seat, limit = self._seat, self.max_turns
        while game.outcome(state, limit) is None and game.current_player(state) != seat:
            action, state = self._apply_opponent_action(state)
            self._state = state
            if game.is_chance(state):
                info |= self._land(action, self.opponent_chance_keys)
                state = self._state
        self._truncated = self._ending() == TRUNCATED
        return info

    def _land(self, action: int, keys: tuple[str, str]) -> dict[str, int]:
        """Draw chance's outcome after ``action`` from ``np_random``, and apply it."""
        outcome = self.game.sample_chance(self._state, self.np_random)
        self._state = self.game.apply(self._state, outcome)
        self._last_throw = (action, outcome)
        return {keys[0]: action, keys[1]: outcome}

    def _apply_opponent_action(self, state: Any) -> tuple[int, Any]:
        """The opponent's action and the state after it; any failure of the opponent is an
        OpponentError."""
        opponent = self._opponent
        select = getattr(opponent, "select_action", None)
        try:
            action = select(state) if select is not None else opponent(state)
            return action, self.game.apply(state, action)
        except IllegalActionError as error:
            raise OpponentError(f"the opponent {opponent!r} erred: {error}") from error
        except Exception as error:
            raise OpponentError(
                f"the opponent {opponent!r} raised {type(error).__name__}: {error} (turn "
                f"{self.game.turn(state)}, phase {self.game.decision_name(state).upper()})"
            ) from error

    def _check_state(self, state: Any) -> None:
        """Refuse a state of other rules, or a chance node (what ``set_state`` takes)."""
        config = self.game.config_of(state)
        if config != self._config:
            raise ValueError(f"the state is played under {config}, this env plays {self._config}")
        if self.game.is_chance(state):
            raise ValueError("set_state needs a decision, not a chance node: apply an outcome")

    def _outcome(self) -> Any:
        return self.game.outcome(self._state, self.max_turns)

    def _ending(self) -> str | None:
        """Why the game is over (the game's ``outcome`` reason), or None."""
        ended = self._outcome()
        return None if ended is None else ended.reason

    def _is_over(self) -> bool:
        aborted = self._illegal or self._fault is not None
        return aborted or self._ending() is not None

    def _observation(self) -> np.ndarray:
        return self.game.observe(self._state, self._seat)  # type: ignore[no-any-return]

    def _info(self, extra: dict[str, Any]) -> dict[str, Any]:
        state, game = self._state, self.game
        mask = np.array(game.legal_action_mask(state), np.int8)
        if self._illegal or self._fault is not None:
            mask[:] = 0
        return {
            "action_mask": mask,
            "phase": game.decision_name(state),
            "seat": self._seat,
            "turn": game.turn(state),
            **extra,
        }


class TrapEnv(GameEnv):
    """Trap! for one learner against an opponent that plays inside the environment.

    ## Description
    Two players stand on an ``N x N`` board. A turn is a move (a king step onto a free
    cell) and then a throw: the player names a target cell and a trap lands on it, or, with
    a probability growing with the Manhattan distance, on one of its free neighbours. A
    player who leaves the opponent no legal move wins. The rules are in ``docs/RULES.md``
    and ``trap_env.core``; this class only translates them. The opponent's decisions and the
    landings happen inside ``reset`` and ``step``.

    ## Action Space
    ``Discrete(N * N)``: a flat cell index ``row * N + col``. In the move phase it is the
    destination (one of the up to 8 neighbouring free cells); in the throw phase it is the
    target (any cell but the two players'). ``action_masks()`` gives the legal actions as a
    bool array (what sb3-contrib's MaskablePPO calls); ``info["action_mask"]`` as ``int8``.

    ## Observation Space
    ``Box(0, 1, (N, N, 4), int8)`` from the learner's point of view: plane 0 the learner's
    cell, plane 1 the opponent's cell, plane 2 the traps, plane 3 all ones in the throw
    phase and all zeros in the move phase (see :mod:`trap_env.observation`).

    ## Starting State
    Player 0 on ``(0, N // 2)``, player 1 on ``(N - 1, N // 2)``, no traps; player 0 moves
    first. The learner's seat is drawn from ``np_random`` unless ``seat`` fixes it; when the
    learner is player 1, the opponent's first turn is already played in ``reset``.

    ## Rewards
    +1 when the learner wins, -1 when it loses or plays an illegal action (with
    ``illegal_action="lose"``), 0 on every other step, on truncation and when the
    opponent fails.

    ## Episode End
    Termination: a player has no legal move (a win for the other), or the learner played an
    illegal action (``info["illegal_action"] = True``). Truncation: ``max_turns`` turns
    (one player's move and throw each) are complete, or the opponent failed during
    ``step``: it raised or answered with an illegal action. The game did not end, the
    learner did nothing wrong, and the episode is cut short as by a time limit: reward 0,
    ``truncated=True``, ``info["opponent_fault"]`` the error message, and a
    ``RuntimeWarning`` saying so. If the opponent fails during ``reset`` or
    ``set_state``, there is no step to end, so :class:`OpponentError` is raised. Either
    way the env refuses ``step`` until the next ``reset``; it never plays on from a
    half-played opponent turn.

    ## Arguments
    - ``opponent``: an agent spec string (``"random"``, ``"greedy"``,
      ``"expectiminimax:depth=2"``), an object with ``select_action(state)`` (and
      optionally ``reset(seed)``), or a callable ``state -> action``. Default ``"random"``.
      The opponent is reseeded from ``np_random`` at every reset, so one env seed replays
      one game. ``set_opponent`` swaps it (also through ``VecEnv.env_method``). Both ask
      the opponent whether it plays this board (:func:`trap_env.agent.check_supports`) and
      raise :class:`trap_env.agent.UnsupportedGameError` (a ``ValueError``) if not.
    - ``seat``: 0 or 1 to fix the learner's seat; None (default) draws it at each reset.
    - ``board_size``: N >= 3, default 7.
    - ``max_turns``: the truncation limit in turns; None means ``4 * N * N``.
    - ``decay``: the throw's accuracy loss per step of distance beyond the first, an
      integer per mille in 0..1000 (see :class:`trap_env.core.GameConfig`); 50, the game
      as specified, by default; 0 lands every throw on its target.
    - ``render_mode``: None, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (pygame).
    - ``illegal_action``: ``"lose"`` (default: reward -1, episode over) or ``"raise"``
      (raise :class:`trap_env.core.IllegalActionError`).

    ``info`` holds ``"action_mask"`` (``int8``, all zeros once the episode is over),
    ``"phase"`` (``"move"``/``"throw"``), ``"seat"``, ``"turn"``; after a learner throw
    ``"target"`` and ``"landing"``; after an opponent throw ``"opponent_target"`` and
    ``"opponent_landing"``; ``"illegal_action"`` and ``"opponent_fault"`` as above.

    Like every Gymnasium env, it must be ``reset`` before the first ``step`` (or started
    with ``set_state``); ``step`` raises ``gymnasium.error.ResetNeeded`` otherwise, also
    without the ``gymnasium.make`` wrappers.

    ## Version History
    - v0: first version.
    """

    chance_keys = ("target", "landing")
    opponent_chance_keys = ("opponent_target", "opponent_landing")

    def __init__(
        self,
        opponent: Opponent = "random",
        seat: int | None = None,
        board_size: int = 7,
        max_turns: int | None = None,
        decay: int = DEFAULT_DECAY,
        render_mode: str | None = None,
        illegal_action: str = "lose",
    ) -> None:
        super().__init__(
            TRAP, opponent, seat, max_turns, render_mode, illegal_action,
            board_size=board_size, decay=decay,
        )  # fmt: skip

    @property
    def state(self) -> State:
        """The current game state (a value: changing the env never changes it)."""
        return self._state  # type: ignore[no-any-return]

    def set_state(self, state: State) -> tuple[np.ndarray, dict[str, Any]]:
        """Continue the episode from ``state``, for search and debugging.

        The state must be valid (:func:`trap_env.core.validate_state`), of this env's board
        size and decay, and in phase ``MOVE`` or ``THROW``. If the opponent is to act, it
        plays (and chance lands its throw) until the learner must decide, as in ``reset``.

        Returns:
            The observation and info, as ``reset`` returns them.

        Raises:
            ValueError: if the state is invalid, of another board size or decay, or in
                ``LANDING``.
            OpponentError: if the opponent raises or plays an illegal action.
        """
        return super().set_state(state)

    def _check_state(self, state: State) -> None:
        validate_state(state)
        config = self._config
        if (state.board_size, state.decay) != (config.board_size, config.decay):
            raise ValueError(
                f"state has board_size {state.board_size} and decay {state.decay}, this env "
                f"plays board_size {config.board_size} and decay {config.decay}"
            )
        if state.phase is Phase.LANDING:
            raise ValueError(
                "set_state needs a state in phase MOVE or THROW, got LANDING; apply a "
                "landing cell from chance_outcomes(state) first"
            )


def check_learner_options(seat: int | None, illegal_action: str) -> None:
    """Check the learner's ``seat`` and ``illegal_action`` arguments of an environment.

    Raises:
        ValueError: if ``seat`` is not 0, 1 or None, or ``illegal_action`` is not one of
            :data:`ILLEGAL_ACTION_POLICIES`.
    """
    if seat not in (None, 0, 1):
        raise ValueError(f"seat must be 0, 1 or None (random each reset), got {seat!r}")
    if illegal_action not in ILLEGAL_ACTION_POLICIES:
        raise ValueError(
            f"illegal_action must be one of {ILLEGAL_ACTION_POLICIES}, got {illegal_action!r}"
        )


def planes_space(board_size: int) -> spaces.Box:
    """The space of the observation planes (:func:`trap_env.observation.observe`)."""
    return spaces.Box(0, 1, (board_size, board_size, NUM_PLANES), dtype=np.int8)

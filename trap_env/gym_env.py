"""The Gymnasium single-agent environments: the learner against an opponent inside the env.

:class:`GameEnv` plays any :class:`trap_env.game.Game`; it translates the game's protocol
and restates no rule. Each game's Gymnasium id makes one (Trap!'s through its own class,
:class:`trap_env.trap.gym_env.TrapEnv`, which documents the env in Gymnasium's sections).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Mapping
from typing import Any, ClassVar, SupportsInt

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from gymnasium.vector import AutoresetMode

from trap_env.agent import Opponent, OpponentError, close_agent, resolve_opponent
from trap_env.checks import describe, is_integral
from trap_env.game import TRUNCATED, Game, IllegalActionError, Outcome, played_params, turn_limit
from trap_env.games import game_of
from trap_env.rendering import GameRenderer, available_render_modes

__all__ = [
    "ILLEGAL_ACTION_POLICIES",
    "GameEnv",
    "GameSyncVectorEnv",
    "Opponent",
    "OpponentError",
    "StateFacts",
    "autoreset_mode_of",
    "check_learner_options",
    "check_num_envs",
    "check_reset_arguments",
    "check_turn_limit",
    "close_agent",
    "count_info",
    "make_sync_vector_env",
    "observation_space",
]

MAX_RESTARTS = 1000
"""Games ``reset`` plays before giving up when each ends before the learner's first decision."""
MAX_NUM_ENVS = 1 << 24
"""The most games one vector env holds (16,777,216; a few GB of arrays for batched Trap!)."""
ILLEGAL_ACTION_POLICIES = ("lose", "raise")
"""What an illegal learner action does: end the episode with reward -1, or raise."""

Step = tuple[np.ndarray, float, bool, bool, dict[str, Any]]
"""What ``step`` returns: observation, reward, terminated, truncated, info."""


class GameEnv(gym.Env[np.ndarray, np.int64]):
    """Any registered game for one learner against an opponent that plays inside the env.

    The env translates the game's protocol (:class:`trap_env.game.Game`): observations
    from ``game.observe``, masks from ``game.legal_action_mask``, chance drawn by
    ``game.sample_chance`` from ``np_random``, the end from ``game.outcome`` and rewards
    from :meth:`trap_env.game.Outcome.returns`. Episodes, seats, opponents, illegal actions and
    opponent faults behave as :class:`trap_env.trap.gym_env.TrapEnv` documents. A game that
    counts more than win and loss (``game.scores``: disc counts, zone sizes) reports the counts
    in ``info`` at every step, each count under its own name (``info["discs"]``,
    ``info["zones"]``); the rewards stay +1, 0 and -1.

    ``info`` holds the same keys after every ``reset`` and ``step`` (the env contract of
    ``docs/environments.md``), NumPy values only (``np.int64``, arrays, the flags 0-d ``bool``
    arrays: what vectorizing clients such as TorchRL's ``GymEnv`` and Gymnasium's own vector
    envs stack into typed arrays), each with a neutral value where
    it does not apply: ``"action_mask"`` (``int8``), ``"phase"`` (the index of the decision
    in ``game.decision_names``), ``"seat"``, ``"turn"``, ``"illegal_action"`` and
    ``"opponent_fault"`` (the fault's message is in the ``RuntimeWarning``); in a game with
    chance (``game.has_chance``) ``"chance"`` and ``"opponent_chance"`` (the outcome after
    the learner's and after the opponent's decision, -1 when there was none; Trap! says
    ``target``/``landing`` instead); and the counts of games that count.

    At every episode end (terminated, truncated, an illegal action, an opponent's fault)
    ``info["action_mask"]`` and :meth:`action_masks` are all ones (pgx's convention: a
    masked sampler never gets a mask with no legal action); the rules' own
    ``game.legal_action_mask(env.game_state)`` stays exact. The longest episode is
    ``d * ceil(max_turns / 2)`` learner steps, ``d`` the decisions in one of the game's
    turns (Trap!: 2; Othello, Colosseum: 1); the registered ids set no
    ``max_episode_steps``, so no Gymnasium ``TimeLimit`` cuts a game the rules go on with.

    Args:
        game: a :class:`trap_env.game.Game` or its registered name.
        opponent: an agent spec of that game, an agent object or a callable.
        seat: 0 or 1 to fix the learner's seat; None draws it at each reset.
        max_turns: the truncation limit in turns; None means the game's default; 1 only
            with the first player's seat (:func:`check_turn_limit`).
        render_mode: None, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (pygame).
        illegal_action: ``"lose"`` or ``"raise"``.
        mask_in_observation: observations are dicts, ``{"observation": planes,
            "action_mask": mask}`` (the mask ``int8``, as ``info["action_mask"]``), from
            which clients such as TorchRL read the mask's spec (its ``ActionMask()``).
        **params: the game's rule parameters (``game.make_config``).

    Raises:
        ValueError: for a turn limit that leaves the learner no decision, and for every
            argument out of range.
    """

    metadata = {  # noqa: RUF012  (Gymnasium declares it a plain attribute)
        "render_modes": available_render_modes(),
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
        mask_in_observation: bool = False,
        **params: Any,
    ) -> None:
        name = game if isinstance(game, str) else None
        self.game = game = game_of(game)
        self._game_path = name or game.name
        """The game's name for agent specs (a registered name, or the game's path)."""
        _check_rule_names(game, params, type(self).__name__)
        self._config = config = game.make_config(**params)
        self.max_turns = turn_limit(max_turns, game.default_turn_limit(config))
        check_learner_options(seat, illegal_action)
        check_turn_limit(game, config, self.max_turns, seat)
        self.fixed_seat = seat
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self._num_actions = game.num_actions(config)
        self.mask_in_observation = mask_in_observation
        self.observation_space = observation_space(  # type: ignore[assignment]  # a Dict too
            game.observation_shape(config), self._num_actions, mask_in_observation
        )
        self._no_chance = self._NO_CHANCE if game.has_chance else {}
        self._state_rules = game.config_of(game.initial_state(config))
        """The rules as a state of this env says them (``game.config_of``): a rule parameter
        that only draws the start (Colosseum's ``start``) is no part of them."""
        self.action_space = spaces.Discrete(self._num_actions)
        self._opponent, self._owns_opponent = self._resolve(opponent)
        self._game_state = game.initial_state(config)
        self._seat = 0 if seat is None else seat
        self._last_chance: tuple[int, int] | None = None
        """The last chance node's ``(decision before it, outcome)``, drawn by ``render``."""
        self._truncated = False
        self._illegal = False
        self._fault: str | None = None
        self._has_started = False
        self._facts = StateFacts(game, self.max_turns)
        self._renderer = GameRenderer(game, render_mode, self.metadata["render_fps"])

    def _resolve(self, opponent: Opponent) -> tuple[Any, bool]:
        return resolve_opponent(opponent, game=self._game_path, config=self._config)

    # --- Public state access ----------------------------------------------------------

    @property
    def game_state(self) -> Any:
        """The current game state (a value: changing the env never changes it)."""
        return self._game_state

    @property
    def seat(self) -> int:
        """The learner's player number (0 or 1) in the current episode."""
        return self._seat

    def set_game_state(self, state: Any) -> tuple[np.ndarray, dict[str, Any]]:
        """Continue the episode from ``state``, for search and debugging.

        The state must be possible (``game.check_state``), of this env's rules and not a
        chance node. If the opponent is to act, it plays (and chance lands its throw)
        until the learner must decide, as in ``reset``.

        Returns:
            The observation and info, as ``reset`` returns them.

        Raises:
            ValueError: if the state is invalid, of other rules, or a chance node.
            OpponentError: if the opponent raises or plays an illegal action.
        """
        self._check_state(state)
        self._start(state)
        info = self._play_others_or_raise()
        return self._observation(), self._info(info)

    def _check_state(self, state: Any) -> None:
        """Refuse an impossible state (``game.check_state``), one of other rules, or a
        chance node."""
        self.game.check_state(state)
        config = self.game.config_of(state)
        if config != self._state_rules:
            raise ValueError(f"state has rules {config}, this env plays {self._config}")
        if self.game.is_chance(state):
            raise ValueError(
                "set_game_state needs a state where a player decides, got a chance node; apply "
                "an outcome from chance_outcomes(state) first"
            )

    def set_opponent(self, opponent: Opponent) -> None:
        """Play the rest of this episode and later ones against ``opponent``.

        Raises:
            UnsupportedGameError: if the opponent cannot play this env's rules.
        """
        new, owned = self._resolve(opponent)
        self._close_own_opponent()
        self._opponent, self._owns_opponent = new, owned

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now, as a bool array over the actions; all True once
        the episode is over (the env contract: a masked sampler always has an action)."""
        if self._has_started and self._is_over():
            return np.ones(self._num_actions, dtype=bool)
        return np.array(self._legal_mask(), dtype=bool)

    # --- Gymnasium API ---------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a game: draw the seat (unless fixed), reseed the opponent, play to the learner.

        Raises:
            TypeError: for a seed that is not an integer, or options that are not a dict.
            OpponentError: if the opponent raises or plays an illegal action before the
                learner's first decision.
        """
        check_reset_arguments(seed, options)
        super().reset(seed=None if seed is None else int(seed))
        rng = self.np_random
        self._seat = int(rng.integers(2)) if self.fixed_seat is None else self.fixed_seat
        opponent_reset = getattr(self._opponent, "reset", None)
        if callable(opponent_reset):
            opponent_reset(seed=int(rng.integers(2**63)))
        for _ in range(MAX_RESTARTS):
            self._start(self.game.initial_state(self._config))
            info: dict[str, Any] = {}
            while self.game.is_chance(self._game_state):  # a start drawn by chance (Colosseum's)
                info |= self._land(own=True)
            info |= self._play_others_or_raise()
            if not self._ended_before_the_learner():
                break
        else:
            raise RuntimeError(
                f"the opponent's opening ended {MAX_RESTARTS} games in a row before the "
                "learner's first decision: this opponent leaves the learner nothing to play"
            )
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info(info)

    def step(self, action: SupportsInt) -> Step:
        """Play the learner's decision; then chance and the opponent until the learner's next.

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
            self._game_state = self.game.apply(self._game_state, action)  # type: ignore[arg-type]
        except IllegalActionError as error:
            return self._on_illegal_action(error)
        if self.game.is_chance(self._game_state):
            info |= self._land(own=True, decision=int(action))
        try:
            info |= self._play_others()
        except OpponentError as error:
            return self._on_opponent_fault(error, info)
        if self.render_mode == "human":
            self.render()
        ended = self._outcome()
        terminated = ended is not None and ended.reason != TRUNCATED
        reward = ended.returns()[self._seat] if terminated else 0.0  # type: ignore[union-attr]
        info = self._info(info, over=ended is not None)
        return self._observation(), reward, terminated, self._truncated, info

    def render(self) -> str | np.ndarray | None:
        """Draw the board as ``render_mode`` says: text, an RGB array, or a pygame window."""
        return self._renderer.render(self._game_state, self._last_chance)

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

    def _on_illegal_action(self, error: IllegalActionError) -> Step:
        """The one place that decides what an illegal learner action does."""
        if self.illegal_action == "raise":
            raise error
        self._illegal = True
        info = self._info({"illegal_action": _flag(True)}, over=True)
        return self._observation(), -1.0, True, False, info

    def _on_opponent_fault(self, error: OpponentError, info: dict[str, Any]) -> Step:
        """The one place that decides what an opponent's failure during ``step`` does."""
        self._fault = str(error)
        warnings.warn(f"{error}; the episode is truncated", RuntimeWarning, stacklevel=3)
        info = self._info(info | {"opponent_fault": _flag(True)}, over=True)
        return self._observation(), 0.0, False, True, info

    def _start(self, state: Any) -> None:
        self._game_state = state
        self._last_chance = None
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
        """Let the opponent play (and chance draw its outcomes) until the learner must act."""
        info: dict[str, Any] = {}
        state = self._game_state
        game, seat = self.game, self._seat
        while self._outcome() is None and game.current_player(state) != seat:
            self._game_state, action = self._apply_opponent_action(state)
            if game.is_chance(self._game_state):
                info |= self._land(own=False, decision=action)
            state = self._game_state
        self._truncated = self._ending() == TRUNCATED
        return info

    def _land(self, *, own: bool, decision: int | None = None) -> dict[str, np.int64]:
        """Draw the pending chance outcome from ``np_random`` (one ``random()``), apply it,
        and keep it with the ``decision`` it followed (None: a start) for ``render``."""
        before = self._game_state
        landing = self.game.sample_chance(before, self.np_random)
        self._game_state = self.game.apply(before, landing)
        self._last_chance = None if decision is None else (decision, landing)
        return self._chance_info(before, landing, own=own)

    def _chance_info(self, before: Any, outcome: int, *, own: bool) -> dict[str, np.int64]:
        """The ``info`` keys of a chance outcome after the learner's (``own``) or the
        opponent's decision; a game's env may say more (then it overrides
        :attr:`_NO_CHANCE` too)."""
        return {"chance" if own else "opponent_chance": np.int64(outcome)}

    _NO_CHANCE: ClassVar[dict[str, np.int64]] = {
        "chance": np.int64(-1),
        "opponent_chance": np.int64(-1),
    }
    """The chance keys of ``info`` when no outcome was drawn (a game with chance only)."""

    def _apply_opponent_action(self, state: Any) -> tuple[Any, int]:
        """The state after the opponent's action, and the action; any failure of the
        opponent is an OpponentError."""
        opponent = self._opponent
        select = getattr(opponent, "select_action", None)
        try:
            action = select(state) if select is not None else opponent(state)
            return self.game.apply(state, action), int(action)
        except IllegalActionError as error:
            raise OpponentError(f"the opponent {opponent!r} erred: {error}") from error
        except Exception as error:
            raise OpponentError(
                f"the opponent {opponent!r} raised {type(error).__name__}: {error} "
                f"(turn {self.game.turn(state)}, decision {self.game.decision_name(state)})"
            ) from error

    def _ended_before_the_learner(self) -> bool:
        """Whether the rules ended the game before the learner's first decision (the
        opponent's opening cut itself off, say): then ``reset`` plays another game, since
        an episode must begin at a decision of the learner."""
        ending = self._ending()
        return ending is not None and ending != TRUNCATED

    def _ending(self) -> str | None:
        """Why the game is over (``game.outcome``'s reason), or None."""
        ended = self._outcome()
        return None if ended is None else ended.reason

    def _outcome(self) -> Outcome | None:
        return self._facts.outcome(self._game_state)

    def _legal_mask(self) -> list[int]:
        return self._facts.legal_mask(self._game_state)

    def _is_over(self) -> bool:
        aborted = self._illegal or self._fault is not None
        return aborted or self._ending() is not None

    def _observation(self) -> Any:
        planes = self.game.observe(self._game_state, self._seat)
        if not self.mask_in_observation:
            return planes
        return {"observation": planes, "action_mask": self.action_masks().astype(np.int8)}

    def _info(self, extra: dict[str, Any], over: bool | None = None) -> dict[str, Any]:
        """The contract's ``info``; ``over`` says whether the episode is over (None: ask)."""
        state, game = self._game_state, self.game
        if self._is_over() if over is None else over:
            mask = np.ones(self._num_actions, np.int8)
        else:
            mask = np.array(self._legal_mask(), dtype=np.int8)
        return {
            "action_mask": mask,
            "phase": np.int64(game.decision_names.index(game.decision_name(state))),
            "seat": np.int64(self._seat),
            "turn": np.int64(game.turn(state)),
            **count_info(game.scores(state)),
            **self._no_chance,
            "illegal_action": _flag(False),
            "opponent_fault": _flag(False),
            **extra,
        }


class StateFacts:
    """What a game says of the latest state an env asked about, each fact asked once.

    A step asks for the outcome and the legal mask at several places (the opponent's
    loop, the rewards, ``info``, ``action_masks``); a state is a value, so the answers
    are kept until the env asks about another state.

    Args:
        game: the env's game.
        max_turns: the env's turn limit, for :meth:`outcome`.
    """

    def __init__(self, game: Game[Any, Any], max_turns: int) -> None:
        self._game = game
        self._max_turns = max_turns
        self._state: Any = None
        self._known: dict[str, Any] = {}

    def outcome(self, state: Any) -> Outcome | None:
        """``game.outcome(state, max_turns)``."""
        known = self._of(state)
        if "outcome" not in known:
            known["outcome"] = self._game.outcome(state, self._max_turns)
        return known["outcome"]  # type: ignore[no-any-return]

    def legal_mask(self, state: Any) -> list[int]:
        """``game.legal_action_mask(state)``."""
        known = self._of(state)
        if "mask" not in known:
            known["mask"] = self._game.legal_action_mask(state)
        return known["mask"]  # type: ignore[no-any-return]

    def _of(self, state: Any) -> dict[str, Any]:
        """The facts known of ``state``: none when it is not the state asked about last."""
        if state is not self._state:
            self._state, self._known = state, {}
        return self._known


def observation_space(
    shape: tuple[int, ...], num_actions: int, mask_in_observation: bool
) -> spaces.Box | spaces.Dict:
    """The planes' space, or with ``mask_in_observation`` the dict of the planes and the
    action mask (``int8``, as ``info["action_mask"]``).

    Raises:
        TypeError: for a ``mask_in_observation`` that is not a bool.
    """
    if not isinstance(mask_in_observation, bool | np.bool_):
        raise TypeError(f"mask_in_observation must be True or False, got "
                        f"{describe(mask_in_observation)}")
    planes = spaces.Box(0, 1, shape, dtype=np.int8)
    if not mask_in_observation:
        return planes
    return spaces.Dict({"observation": planes, "action_mask": spaces.MultiBinary(num_actions)})


def _flag(value: bool) -> np.ndarray:
    """An ``info`` flag as a 0-d bool array, which every vectorizing client stacks into a
    bool array (Gymnasium's vector envs make an object array of ``np.bool_`` values)."""
    return np.array(value, np.bool_)


def count_info(scores: dict[str, Any]) -> dict[str, np.ndarray]:
    """The ``info`` keys of a game's counts (``game.scores``): each an ``int64`` array, so
    that vectorized envs stack them (the single and the PettingZoo envs' alike)."""
    return {name: np.asarray(counts, np.int64) for name, counts in scores.items()}


def _check_rule_names(game: Game[Any, Any], params: dict[str, Any], env_name: str) -> None:
    """Refuse a keyword that is no rule parameter of ``game`` as Python refuses an unknown
    keyword argument (a ``TypeError``), on which clients such as TorchRL rely to leave out
    options an env does not take."""
    known = played_params(game)
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise TypeError(
            f"{env_name}() got an unexpected keyword argument {unknown[0]!r}; the rule "
            f"parameters of {game.title} are {sorted(known)}"
        )


def check_learner_options(seat: int | None, illegal_action: str) -> None:
    """Check the learner's ``seat`` and ``illegal_action`` arguments of an environment.

    Raises:
        TypeError: if ``seat`` is neither None nor an integer (NumPy's too).
        ValueError: if ``seat`` is not 0, 1 or None, or ``illegal_action`` is not one of
            :data:`ILLEGAL_ACTION_POLICIES`.
    """
    if seat is not None and not is_integral(seat):
        raise TypeError(f"seat must be 0, 1 or None (random each reset), got {describe(seat)}")
    if seat not in (None, 0, 1):
        raise ValueError(f"seat must be 0, 1 or None (random each reset), got {seat!r}")
    if illegal_action not in ILLEGAL_ACTION_POLICIES:
        raise ValueError(
            f"illegal_action must be one of {ILLEGAL_ACTION_POLICIES}, got {illegal_action!r}"
        )


def check_turn_limit(game: Game[Any, Any], config: Any, max_turns: int, seat: int | None) -> None:
    """Refuse a turn limit that can end a game before the learner's first decision.

    The first player's first turn is turn 1, so a learner that may sit in the other seat
    (``seat`` None or that seat) needs ``max_turns >= 2``; every other limit leaves each
    episode at least one decision of the learner.

    Raises:
        ValueError: for ``max_turns=1`` with a seat that is not the first player's.
    """
    first = game.current_player(game.initial_state(config))
    if max_turns < 2 and seat != first:
        other = 1 - first
        raise ValueError(
            f"max_turns={max_turns} ends the game after player {first}'s first turn, before "
            f"the learner in seat {other} decides; use max_turns >= 2 or seat={first}"
        )


def check_num_envs(num_envs: object) -> None:
    """Check a vector env's number of games, as every vector env of the stack does.

    Raises:
        ValueError: unless ``num_envs`` is an integer in ``1..MAX_NUM_ENVS``.
    """
    if (
        isinstance(num_envs, bool)
        or not isinstance(num_envs, int | np.integer)
        or not 1 <= num_envs <= MAX_NUM_ENVS
    ):
        raise ValueError(f"num_envs must be an integer 1..{MAX_NUM_ENVS:,}, got {num_envs!r}")


_AUTORESET_MODES: dict[object, AutoresetMode] = {
    **{mode: mode for mode in AutoresetMode},
    "next_step": AutoresetMode.NEXT_STEP,
    "same_step": AutoresetMode.SAME_STEP,
    "disabled": AutoresetMode.DISABLED,
}
"""What the vector envs' ``autoreset_mode`` accepts: Gymnasium's modes, or their names."""


def autoreset_mode_of(autoreset_mode: object) -> AutoresetMode:
    """Gymnasium's ``AutoresetMode`` named by ``autoreset_mode``, as every vector env of the
    stack reads it.

    Raises:
        ValueError: for anything but ``"next_step"``, ``"same_step"``, ``"disabled"`` or an
            ``AutoresetMode``.
    """
    known = isinstance(autoreset_mode, str | AutoresetMode)
    mode = _AUTORESET_MODES.get(autoreset_mode) if known else None
    if mode is None:
        raise ValueError(
            "autoreset_mode must be 'next_step', 'same_step' or 'disabled' (or the "
            f"AutoresetMode), got {describe(autoreset_mode)}"
        )
    return mode


class GameSyncVectorEnv(gym.vector.SyncVectorEnv):
    """Gymnasium's ``SyncVectorEnv`` over :class:`GameEnv`, with the batched env's
    ``action_masks`` and ``set_opponent``: what ``make_vec`` gives for a game without a
    batched engine, so that every id's vector env answers the same calls."""

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game, ``(B, actions)`` bool; all True in a game whose
        episode is over (each env's :meth:`GameEnv.action_masks`)."""
        return np.stack(self.call("action_masks"))

    def set_opponent(self, opponent: Opponent) -> None:
        """Play every game against ``opponent`` from now on (each env's ``set_opponent``)."""
        self.call("set_opponent", opponent)


def make_sync_vector_env(
    game: Game[Any, Any] | str,
    num_envs: int = 1,
    autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
    **kwargs: Any,
) -> GameSyncVectorEnv:
    """A :class:`GameSyncVectorEnv` over ``num_envs`` :class:`GameEnv` of ``game``: the
    ``vector_entry_point`` of a game without a batched engine, so that ``make_vec`` checks
    ``num_envs`` and reads ``autoreset_mode`` as the batched env does.

    Raises:
        ValueError: for a ``num_envs`` or an ``autoreset_mode`` out of range, and what
            :class:`GameEnv` refuses.
    """
    check_num_envs(num_envs)
    mode = autoreset_mode_of(autoreset_mode)
    makers = [functools.partial(GameEnv, game, **kwargs)] * num_envs
    return GameSyncVectorEnv(makers, autoreset_mode=mode)


def check_reset_arguments(seed: object, options: object) -> None:
    """Check ``reset``'s ``seed`` and ``options`` as every env of the stack does.

    Raises:
        TypeError: for a seed that is neither None nor an integer (NumPy's too), or
            options that are neither None nor a dict.
    """
    if seed is not None and not is_integral(seed):
        raise TypeError(f"seed must be an integer or None, got {describe(seed)}")
    if options is not None and not isinstance(options, Mapping):
        raise TypeError(f"options must be a dict or None, got {describe(options)}")

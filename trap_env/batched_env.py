"""The Gymnasium vector envs: B games stepped at once by a game's batched engine.

:class:`GameVectorEnv` plays any game that has a batched engine
(:class:`trap_env.batched.BatchedEngine`); it translates the engine and restates no rule.
:class:`trap_env.trap.batched_env.TrapVectorEnv` is its Trap! instance.
``gymnasium.make_vec(id, num_envs=4096, opponent="random")`` builds one for a game with a
batched engine (it is the id's ``vector_entry_point``); ``vectorization_mode="sync"`` gives
Gymnasium's ``SyncVectorEnv`` over single envs instead, for what this class does not support.

Example:
    >>> import gymnasium, trap_env
    >>> envs = gymnasium.make_vec("trap_env/Othello-v0", num_envs=8, board_size=6)
    >>> observations, infos = envs.reset(seed=0)
    >>> observations.shape, envs.action_masks().shape
    ((8, 6, 6, 4), (8, 37))
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.error import ClosedEnvironmentError, ResetNeeded
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space
from numpy.typing import NDArray

from trap_env.agent import OpponentError, _agent_from_spec, batched_twin, close_agent
from trap_env.batched import (
    I64,
    NO_WINNER,
    STREAM_AGENT_SEED,
    STREAM_CHANCE,
    STREAM_MIX,
    STREAM_OPPONENT,
    STREAM_SEAT,
    U64,
    BatchedEngine,
    Bool,
    batched_engine,
    game_keys,
    random_words,
    scatter,
)
from trap_env.batched_opponents import (
    AgentOpponent,
    BatchOpponent,
    BatchPolicy,
    PolicyOpponent,
    VectorOpponent,
)
from trap_env.game import Game, IllegalActionError, turn_limit
from trap_env.games import game_of
from trap_env.gym_env import (
    MAX_RESTARTS,
    autoreset_mode_of,
    check_learner_options,
    check_num_envs,
    check_reset_arguments,
    check_turn_limit,
    observation_space,
)

__all__ = [
    "BatchOpponent",
    "BatchPolicy",
    "GameVectorEnv",
    "Observations",
    "VectorOpponent",
    "observation_of",
]

Observations = NDArray[np.int8] | dict[str, NDArray[np.int8]]
"""What the vector env observes: the planes ``(B, ...)``, or with ``mask_in_observation``
``{"observation": planes, "action_mask": masks}``."""


class GameVectorEnv(gym.vector.VectorEnv[Observations, NDArray[np.int64], NDArray[Any]]):
    """Any game with a batched engine, for a learner in B games at once, against opponents
    inside the batch.

    The env translates the engine (:class:`trap_env.batched.BatchedEngine`): observations,
    masks, the end, chance drawn from counter-based streams, and the opponents' decisions
    (a :class:`~trap_env.batched_opponents.BatchOpponent`: a batched twin, a policy on
    observations, or any agent asked game by game). Episodes, seats, opponents, mixes,
    illegal actions, opponent faults, autoreset and randomness behave as
    :class:`trap_env.trap.batched_env.TrapVectorEnv` documents.

    Args:
        game: a :class:`trap_env.game.Game` with a batched engine, or its registered name.
        num_envs: B.
        opponent: as :class:`~trap_env.trap.batched_env.TrapVectorEnv`'s (spec strings
            name agents of this game).
        seat: 0 or 1 to fix the learner's seat; None draws it per episode.
        max_turns: the truncation limit in turns; None means the game's default.
        render_mode: only None.
        illegal_action: ``"lose"`` or ``"raise"``.
        autoreset_mode: ``"next_step"`` (default), ``"same_step"`` or ``"disabled"``.
        mask_in_observation: observations are dicts of the planes and the masks, as the
            single env's (:class:`trap_env.gym_env.GameEnv`), each row one game's.
        **params: the game's rule parameters (``game.make_config``).

    Raises:
        ValueError: for a game without a batched engine (or not for these rules), and for
            every argument the single env refuses.
    """

    def __init__(
        self,
        game: Game[Any, Any] | str,
        num_envs: int = 1,
        opponent: VectorOpponent | Mapping[Any, float] | Sequence[tuple[Any, float]] = "random",
        seat: int | None = None,
        max_turns: int | None = None,
        render_mode: str | None = None,
        illegal_action: str = "lose",
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        mask_in_observation: bool = False,
        **params: Any,
    ) -> None:
        _check_supported(num_envs, render_mode)
        name = game if isinstance(game, str) else None
        self.game = game = game_of(game)
        self._path = name or game.name
        """The game's name for agent specs (a registered name, or the game's path)."""
        config = game.make_config(**params)
        # The single env's order of checks, so that both name the same fault first.
        self.max_turns = turn_limit(max_turns, game.default_turn_limit(config))
        check_learner_options(seat, illegal_action)
        if not (isinstance(opponent, str) and opponent == "self"):  # "self" plays both seats
            check_turn_limit(game, config, self.max_turns, seat)
        self.engine: BatchedEngine[Any] = batched_engine(game, config)
        self.metadata = {"autoreset_mode": autoreset_mode_of(autoreset_mode), "render_modes": []}
        self.num_envs = num_envs
        self.fixed_seat = seat
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.mask_in_observation = mask_in_observation
        self.single_observation_space = observation_space(
            game.observation_shape(config), self.engine.num_actions, mask_in_observation
        )
        self.single_action_space = spaces.Discrete(self.engine.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.self_play, self._opponents, self._weights = _resolve_opponents(opponent, self._path)
        if self.self_play and seat is not None:
            raise ValueError(
                f"seat={seat} with opponent='self': the caller plays both seats, so there is "
                "no learner's seat to fix; leave seat=None"
            )
        self._seed: int | None = None
        self._batch = self.engine.initial_batch(num_envs)
        self._slots = np.arange(num_envs, dtype=np.int64)
        self._episodes = np.zeros(num_envs, np.int64)
        self._keys = np.zeros(num_envs, np.uint64)
        self._seat = np.zeros(num_envs, np.int8)
        self._kind = np.zeros(num_envs, np.int64)
        self._done = np.zeros(num_envs, np.bool_)
        self._faulted = np.zeros(num_envs, np.bool_)
        self._fault_messages: list[str] = []
        self._masks = np.zeros((num_envs, self.engine.num_actions), np.bool_)

    # --- Public state access ----------------------------------------------------------

    @property
    def batch(self) -> Any:
        """The games now (the engine's arrays; the env never changes them in place).

        The batched counterpart of the scalar envs' ``game_state``: a batch of the
        engine's games (:class:`trap_env.batched.BatchedEngine`).
        """
        return self._batch

    @property
    def seats(self) -> NDArray[np.int8]:
        """The learner's player number in each game (in ``"self"`` mode, the side to act)."""
        seats: NDArray[np.int8] = self._seat.copy()
        return seats

    @property
    def autoreset_mode(self) -> AutoresetMode:
        """How ended games restart (``metadata["autoreset_mode"]``), under the name of
        Gymnasium's ``SyncVectorEnv``, where clients such as TorchRL's ``GymWrapper`` read it."""
        mode: AutoresetMode = self.metadata["autoreset_mode"]
        return mode

    def action_masks(self) -> NDArray[np.bool_]:
        """The legal actions now, ``(B, actions)`` bool; all True in a game whose episode
        is over (the env contract: a masked sampler always has an action), until it
        restarts. ``engine.legal_masks(env.batch)`` stays the rules' exact masks."""
        masks: NDArray[np.bool_] = self._masks.copy()
        return masks

    def set_opponent(
        self, opponent: VectorOpponent | Mapping[Any, float] | Sequence[tuple[Any, float]]
    ) -> None:
        """Play episodes that start from now on against ``opponent`` (games under way keep
        their opponent's kind index, so switch between mixes of equal length or reset)."""
        self_play, opponents, weights = _resolve_opponents(opponent, self._path)
        if self_play != self.self_play:
            raise ValueError("set_opponent cannot switch to or from 'self'; build a new env")
        self._opponents, self._weights = opponents, weights
        self._kind = np.minimum(self._kind, len(opponents) - 1)

    # --- Gymnasium API ----------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observations, dict[str, Any]]:
        """Start new episodes: all games, or those of ``options["reset_mask"]``.

        With ``seed`` every slot's episode count restarts, so one seed replays one run.

        Raises:
            TypeError: for a seed that is not an integer, or options that are not a dict.
            ValueError: for a reset mask that is not a bool array of shape ``(B,)``.
            OpponentError: if an opponent raises or plays an illegal action before a
                learner's first decision (as the single env).
            ClosedEnvironmentError: after ``close()``.
        """
        self._check_open()
        check_reset_arguments(seed, options)
        if seed is not None:
            self._seed = int(seed)
            self._episodes[:] = -1
        elif self._seed is None:
            self._seed = int(np.random.SeedSequence().entropy) % 2**64  # type: ignore[arg-type]
            self._episodes[:] = -1
        mask = np.ones(self.num_envs, np.bool_)
        if options and "reset_mask" in options:
            mask = np.asarray(options["reset_mask"])
            if mask.dtype != np.bool_ or mask.shape != (self.num_envs,):
                raise ValueError(
                    f"options['reset_mask'] must be a bool array of shape ({self.num_envs},) "
                    f"(True where a game restarts), got {mask.dtype} of shape {mask.shape}"
                )
        self._clear_faults()
        self._batch = self._restart_ended(self._start_episodes(self._batch, mask), mask)
        if self._faulted.any():
            self._done |= self._faulted
            raise OpponentError("; ".join(self._fault_messages))
        return self._observe(), self._info()

    def step(
        self, actions: Any
    ) -> tuple[Observations, NDArray[np.float64], Bool, Bool, dict[str, Any]]:
        """Play each game's learner action, its landing and the opponent's turn.

        An opponent that raises or answers an illegal action ends its game as the single
        env does: truncated, reward 0, ``info["opponent_fault"]`` set for the game, and a
        ``RuntimeWarning`` with the first error.

        Raises:
            ResetNeeded: before the first ``reset`` (``gymnasium.error.ResetNeeded``).
            ClosedEnvironmentError: after ``close()``.
            ValueError: if ``actions`` is not ``B`` integers.
            IllegalActionError: for an illegal action with ``illegal_action="raise"``.
        """
        self._check_open()
        if self._seed is None:
            raise ResetNeeded("call reset() before step(): the env has no games yet")
        actions = _as_actions(actions, self.num_envs)
        self._clear_faults()
        batch = self._batch
        next_step = self.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
        ending, acting = self._done & next_step, ~self._done
        legal = self._legal(self._masks, actions)
        illegal = acting & ~legal
        if illegal.any() and self.illegal_action == "raise":
            game = int(np.flatnonzero(illegal)[0])
            raise IllegalActionError(
                f"game {game}: illegal action {actions[game]}; legal: "
                f"{np.flatnonzero(self._masks[game]).tolist()}"
            )
        playing = acting & legal
        engine = self.engine
        acted_for = engine.players(batch).copy() if self.self_play else self._seat.copy()
        batch = self._learner_plays(batch, actions, playing)
        # Ended games restart before the opponents' pass, so that an opponent who is player
        # 0 plays its first turn in the same pass as the opponents of the games under way.
        batch = self._start_episodes(batch, ending, opponents_play=False)
        batch, truncated = self._opponents_play(batch, playing | ending)
        batch = self._restart_ended(batch, ending)
        truncated = (truncated & playing) | self._faulted
        ended = playing & engine.is_over(batch)  # by the rules: a win, or a draw
        winners = engine.winners(batch)
        result = np.where(winners == acted_for, 1.0, np.where(winners == NO_WINNER, 0.0, -1.0))
        rewards = np.where(ended, result, 0.0)
        rewards[illegal] = -1.0
        terminated = ended | illegal
        info_extra = self._step_info(illegal, acted_for, batch)
        if self._faulted.any():
            faulted = self._faulted.copy()
            info_extra |= {"opponent_fault": faulted}
            warnings.warn(
                f"{'; '.join(self._fault_messages)}; {int(faulted.sum())} game(s) truncated",
                RuntimeWarning,
                stacklevel=2,
            )
        self._batch = batch
        # Without autoreset, ended games wait (ignoring actions) for reset(reset_mask).
        self._done = terminated | truncated | (self._done & (not next_step))
        observations, info = self._observe(), self._info() | info_extra
        if self.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP:
            observations, info = self._restart_now(observations, info, terminated | truncated)
        return observations, rewards, terminated, truncated, info

    def _restart_now(
        self, observations: Observations, info: dict[str, Any], ended: Bool
    ) -> tuple[Observations, dict[str, Any]]:
        """Gymnasium's same-step autoreset: the ended games start their next episode now;
        their last observation and ``info`` go to ``info["final_obs"]`` and
        ``info["final_info"]`` (each with its ``"_"`` mask: the ended games), laid out as
        Gymnasium's ``SyncVectorEnv`` lays them out.

        Raises:
            OpponentError: if an opponent fails before a learner's first decision (as
                ``reset``).
        """
        if not ended.any():
            return observations, info
        final_obs = np.full(self.num_envs, None, dtype=object)
        for game in np.flatnonzero(ended).tolist():
            final_obs[game] = observation_of(observations, game)
        final_info = info | {key: ended.copy() for key in info if key.startswith("_")}
        self._clear_faults()
        self._batch = self._restart_ended(self._start_episodes(self._batch, ended), ended)
        if self._faulted.any():
            self._done |= self._faulted
            raise OpponentError("; ".join(self._fault_messages))
        observations, started = self._observe(), self._info()
        restarted = {key: np.where(_rows(ended, value), started[key], value)
                     for key, value in info.items() if key in started}  # fmt: skip
        return observations, info | restarted | {
            "final_obs": final_obs,
            "_final_obs": ended.copy(),
            "final_info": final_info,
            "_final_info": ended.copy(),
        }

    def render(self) -> None:
        """Rendering is not supported here (use ``vectorization_mode="sync"``)."""
        return None

    def _check_open(self) -> None:
        if self.closed:
            raise ClosedEnvironmentError("the env is closed; make a new one")

    def close_extras(self, **kwargs: Any) -> None:
        """End the opponents' resources (the processes of program agents)."""
        for opponent in self._opponents:
            close_agent(opponent)

    # --- Internals --------------------------------------------------------------------

    def _start_episodes(self, batch: Any, mask: Bool, opponents_play: bool = True) -> Any:
        """Reset the games in ``mask``: next episode, keys, seat, opponent, and (unless the
        caller does it) the opponent's first turn when it is player 0."""
        games = np.flatnonzero(mask)
        if not len(games):
            return batch
        assert self._seed is not None
        self._episodes[games] += 1
        keys = game_keys(self._seed, games, self._episodes[games])
        self._keys[games] = keys
        batch = scatter(batch, games, self.engine.initial_batch(len(games)))
        if self.self_play:
            self._seat[games] = 0
        elif self.fixed_seat is not None:
            self._seat[games] = self.fixed_seat
        else:
            coin = random_words(keys, 0, STREAM_SEAT) & np.uint64(1)
            self._seat[games] = coin.astype(np.int8)
        self._draw_opponents(games, keys)
        self._done[games] = False
        if opponents_play:
            batch, _ = self._opponents_play(batch, mask)
        return batch

    def _restart_ended(self, batch: Any, started: Bool) -> Any:
        """Start again the games of ``started`` that the opponent's opening ended by the
        rules before the learner's first decision, as the single env's ``reset`` does (an
        episode begins at a decision of the learner)."""
        if not started.any():  # most steps start no game: no end test to pay for
            return batch
        for _ in range(MAX_RESTARTS):
            over = started & ~self._faulted & self.engine.is_over(batch)
            if not over.any():
                return batch
            batch = self._start_episodes(batch, over)
        raise RuntimeError(
            f"the opponent's opening ended {MAX_RESTARTS} games in a row before the "
            "learner's first decision: this opponent leaves the learner nothing to play"
        )

    def _draw_opponents(self, games: I64, keys: U64) -> None:
        if len(self._opponents) > 1:
            words = random_words(keys, 0, STREAM_MIX)
            share = (words >> np.uint64(11)).astype(np.float64) / 2.0**53
            kinds = np.searchsorted(self._weights, share, side="right")
            self._kind[games] = np.minimum(kinds, len(self._opponents) - 1)
        seeds = random_words(keys, 0, STREAM_AGENT_SEED)
        for kind, opponent in enumerate(self._opponents):
            mine = self._kind[games] == kind
            if isinstance(opponent, AgentOpponent) and mine.any():
                opponent.start(self.engine, games[mine], seeds[mine])

    def _learner_plays(self, batch: Any, actions: I64, playing: Bool) -> Any:
        batch = self.engine.apply(batch, actions, where=playing, validate=False)
        return self._draw_chance(batch, playing)

    def _draw_chance(self, batch: Any, where: Bool) -> Any:
        """Draw the chance outcomes of the games of ``where`` until each is at a decision."""
        engine = self.engine
        chance = where & engine.is_chance(batch)
        while chance.any():
            words = random_words(self._keys, engine.ply_index(batch), STREAM_CHANCE)
            outcomes = engine.sample_chance(batch, words)
            batch = engine.apply(batch, outcomes, where=chance, validate=False)
            chance = where & engine.is_chance(batch)
        return batch

    def _opponents_play(self, batch: Any, games: Bool) -> tuple[Any, Bool]:
        """The opponent's decisions (and the chance after them) in ``games`` until the
        learner is to act or the game is over (Trap!: move, throw, landing).

        Returns the games after it and which of ``games`` are truncated.
        """
        engine = self.engine
        truncated = games & engine.is_truncated(batch, self.max_turns)
        if self.self_play:
            self._seat = engine.players(batch).copy()
            return batch, truncated
        turn = games & ~truncated
        while True:
            playing = turn & ~self._faulted & ~engine.is_over(batch)
            deciding = playing & (engine.players(batch) != self._seat)
            if not deciding.any():
                break
            batch = self._apply_opponent(batch, deciding)
            batch = self._draw_chance(batch, deciding & ~self._faulted)
        return batch, games & (engine.is_truncated(batch, self.max_turns) | self._faulted)

    def _apply_opponent(self, batch: Any, where: Bool) -> Any:
        engine = self.engine
        words = random_words(self._keys, engine.ply_index(batch), STREAM_OPPONENT)
        if len(self._opponents) == 1:
            actions = self._opponent_actions(0, batch, where, words)
        else:
            actions = np.zeros(self.num_envs, np.int64)
            for kind in range(len(self._opponents)):
                mine = where & (self._kind == kind)
                if mine.any():
                    chosen = self._opponent_actions(kind, batch, mine, words)
                    actions = np.where(mine, chosen, actions)
        return engine.apply(batch, actions, where=where & ~self._faulted, validate=False)

    def _opponent_actions(self, kind: int, batch: Any, where: Bool, words: U64) -> I64:
        """The opponent's actions; the games where it raises or answers an illegal action
        join ``self._faulted`` (and are not played), as the single env's opponent faults."""
        opponent = self._opponents[kind]
        name = getattr(opponent, "opponent", None) or opponent
        try:
            actions: I64 = opponent.act(self.engine, batch, where, words)
        except Exception as error:  # an opponent that raises ends its games, not the run
            text = f"the opponent {name!r} raised {error!r}"
            self._record_faults(where, lambda game: text)
            return np.zeros(self.num_envs, np.int64)
        if opponent.checked:
            wrong = where & ~self._legal(self.engine.legal_masks(batch), actions)
            errors: dict[int, str] = getattr(opponent, "errors", {})
            self._record_faults(
                wrong,
                lambda game: (
                    errors.get(game)
                    or f"the opponent {name!r} erred: action {actions[game]} is not legal"
                ),
            )
        return actions

    def _record_faults(self, games: Bool, message: Callable[[int], str]) -> None:
        if games.any():
            self._faulted |= games
            first = int(np.flatnonzero(games)[0])
            self._fault_messages.append(f"game {first}: {message(first)}")

    def _clear_faults(self) -> None:
        self._faulted = np.zeros(self.num_envs, np.bool_)
        self._fault_messages = []

    def _legal(self, masks: Bool, actions: I64) -> Bool:
        """Which ``actions`` are legal under ``masks`` (any integer; out of range: not)."""
        inside = (actions >= 0) & (actions < masks.shape[1])
        legal: Bool = inside & masks[self._slots, np.where(inside, actions, 0)]
        return legal

    def _observe(self) -> Observations:
        batch = self._batch
        masks = self.engine.legal_masks(batch)
        masks[self._done] = True  # an ended episode's mask: all ones (the env contract)
        self._masks = masks
        seen: NDArray[np.int8] = self.engine.observations(batch, self._seat)
        if not self.mask_in_observation:
            return seen
        return {"observation": seen, "action_mask": masks.astype(np.int8)}

    def _info(self) -> dict[str, Any]:
        """The keys of every ``info``, each set for every game (the values of a reset)."""
        b = self.num_envs
        info: dict[str, Any] = {
            "action_mask": self._masks.view(np.int8),
            "seat": self._seat.copy(),
            "turn": self.engine.turns(self._batch).copy(),
            "illegal_action": np.zeros(b, np.bool_),
            "opponent_fault": np.zeros(b, np.bool_),
        }
        if self.self_play:
            info |= {
                "player": np.full(b, -1, np.int8),
                "winner": np.full(b, NO_WINNER, np.int8),
                "returns": np.zeros((b, 2)),
            }
        return _everywhere(info)

    def _step_info(self, illegal: Bool, acted_for: NDArray[np.int8], batch: Any) -> dict[str, Any]:
        info: dict[str, Any] = {"illegal_action": illegal}
        if self.self_play:
            # The game's result for player 0 and player 1; an illegal action loses.
            winners = self.engine.winners(batch)
            winner = np.where(illegal, 1 - acted_for, winners)
            player0 = np.where(winner == 0, 1.0, np.where(winner == 1, -1.0, 0.0))
            info |= {
                "player": acted_for,
                "winner": winners.copy(),
                "returns": np.stack([player0, -player0], axis=1),
            }
        return info


def _as_actions(actions: Any, num_envs: int) -> I64:
    array = np.asarray(actions)
    if array.shape != (num_envs,) or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(
            f"actions must be {num_envs} integers (one flat cell per game), got "
            f"shape {array.shape} of {array.dtype}"
        )
    cells: I64 = array.astype(np.int64, copy=False)
    return cells


def _check_supported(num_envs: int, render_mode: str | None) -> None:
    check_num_envs(num_envs)
    if render_mode is not None:
        raise ValueError(
            f"the batched env does not render (got render_mode={render_mode!r}); use "
            'gymnasium.make_vec(..., vectorization_mode="sync") to render'
        )


def _resolve_opponents(
    opponent: VectorOpponent | Mapping[Any, float] | Sequence[tuple[Any, float]], game: str
) -> tuple[bool, list[BatchOpponent], NDArray[np.float64]]:
    """Whether the caller plays both seats, the opponents of ``game`` (a name or a game's
    path), and their cumulative weights. An agent that is a mix of others says so with a
    ``mix()`` method (``{opponent: probability}``), drawn from per episode and game."""
    mix = getattr(opponent, "mix", None)
    if callable(mix):
        opponent = mix()
    if isinstance(opponent, str) and opponent == "self":
        return True, [], np.ones(1)  # no opponent: the caller plays both seats
    if isinstance(opponent, Mapping):
        pairs = list(opponent.items())
    elif isinstance(opponent, list | tuple) and all(
        isinstance(pair, tuple) and len(pair) == 2 for pair in opponent
    ):
        pairs = list(opponent)
    else:
        return False, [_one_opponent(opponent, game)], np.ones(1)
    probabilities = np.array([_probability(p) for _, p in pairs], np.float64)
    if not pairs or abs(probabilities.sum() - 1.0) > 1e-9:
        raise ValueError(
            f"an opponent mix needs probabilities that sum to 1, got {probabilities.tolist()}"
        )
    return False, [_one_opponent(o, game) for o, _ in pairs], np.cumsum(probabilities)


def _probability(value: SupportsFloat) -> float:
    probability = float(value)
    if not 0.0 < probability <= 1.0:
        raise ValueError(f"a mix probability must be in (0, 1], got {value!r}")
    return probability


def _one_opponent(opponent: Any, game: str) -> BatchOpponent:
    if isinstance(opponent, str):
        if opponent == "self":
            raise ValueError("'self' cannot be part of a mix of opponents")
        agent = _agent_from_spec(opponent, game=game)  # checks the spec now, not at the first game
        twin = batched_twin(agent)
        if twin is None:
            return AgentOpponent(opponent, spare=agent, game=game)
        close_agent(agent)
        return twin  # type: ignore[no-any-return]
    if all(callable(getattr(opponent, name, None)) for name in ("start", "act")):
        if isinstance(opponent, AgentOpponent) and opponent.game is None:
            opponent.game = game  # its spec names an agent of the env's game
        return opponent  # type: ignore[no-any-return]  # already a BatchOpponent
    if callable(getattr(opponent, "select_action", None)):
        return AgentOpponent(opponent)
    if callable(opponent):
        if _num_parameters(opponent) == 2:
            return PolicyOpponent(opponent)
        return AgentOpponent(opponent)
    raise TypeError(
        "opponent must be 'random', 'self', an agent spec string, an object with "
        "select_action(state), a BatchOpponent (start and act for the whole batch), a "
        "batched policy (observations, masks) -> actions, a "
        f"callable state -> action, or a mix of these with probabilities; got {opponent!r}"
    )


def _num_parameters(function: Callable[..., Any]) -> int:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return 1
    return sum(
        1
        for p in parameters
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    )


def observation_of(observations: Observations, game: int) -> Any:
    """One game's observation in a vector env's, as the single env gives it (of a dict, the
    dict of that game's rows)."""
    if isinstance(observations, dict):
        return {key: value[game] for key, value in observations.items()}
    return observations[game]


def _rows(mask: Bool, value: NDArray[Any]) -> Bool:
    """``mask`` shaped to select whole rows of ``value`` (one row per game) in ``np.where``."""
    return mask.reshape(mask.shape + (1,) * (np.ndim(value) - 1))


def _everywhere(info: dict[str, Any]) -> dict[str, Any]:
    """``info`` with each key's Gymnasium ``"_key"`` mask, True for every game."""
    every = np.ones(len(next(iter(info.values()))), np.bool_)
    return info | {f"_{key}": every for key in info}

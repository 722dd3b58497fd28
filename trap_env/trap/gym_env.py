"""Trap!'s Gymnasium env, ``trap_env/Trap-v0``: :class:`TrapEnv`, the generic
:class:`trap_env.gym_env.GameEnv` with Trap!'s arguments, its chance ``info`` keys and
Gymnasium's documented sections.

Example:
    >>> from trap_env.trap.gym_env import TrapEnv
    >>> env = TrapEnv(board_size=5, seat=0)
    >>> observation, info = env.reset(seed=0)
    >>> observation.shape, int(info["target"])
    ((5, 5, 4), -1)
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from trap_env.gym_env import GameEnv, Opponent
from trap_env.trap.core import DEFAULT_DECAY, Phase, State, validate_state
from trap_env.trap.observation import NUM_PLANES

__all__ = ["TrapEnv", "planes_space"]


class TrapEnv(GameEnv):
    """Trap! for one learner against an opponent that plays inside the environment.

    ## Description
    Two players stand on an ``N x N`` board. A turn is a move (a king step onto a free
    cell) and then a throw: the player names a target cell and a trap lands on it, or, with
    a probability growing with the Manhattan distance, on one of its free neighbours. A
    player who leaves the opponent no legal move wins. The rules are in ``docs/RULES.md``
    and ``trap_env.trap.core``; this class only translates them. The opponent's decisions and the
    landings happen inside ``reset`` and ``step``.

    ## Action Space
    ``Discrete(N * N)``: a flat cell index ``row * N + col``. In the move phase it is the
    destination (one of the up to 8 neighbouring free cells); in the throw phase it is the
    target (any cell but the two players'). ``action_masks()`` gives the legal actions as a
    bool array (what sb3-contrib's MaskablePPO calls); ``info["action_mask"]`` as ``int8``.

    ## Observation Space
    ``Box(0, 1, (N, N, 4), int8)`` from the learner's point of view: plane 0 the learner's
    cell, plane 1 the opponent's cell, plane 2 the traps, plane 3 all ones in the throw
    phase and all zeros in the move phase (see :mod:`trap_env.trap.observation`).

    ## Starting State
    Player 0 on ``(0, N // 2)``, player 1 on ``(N - 1, N // 2)``, no traps; player 0 moves
    first. The learner's seat is drawn from ``np_random`` unless ``seat`` fixes it; when the
    learner is player 1, the opponent's first turn is already played in ``reset``; if that
    turn ends the game (a trap on a small board), ``reset`` plays another game, from the
    same generator, so that an episode always begins at a decision of the learner.

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
    ``truncated=True``, ``info["opponent_fault"] = True``, and a ``RuntimeWarning`` with the
    error message. If the opponent fails during ``reset`` or ``set_game_state``, there is no
    step to end, so :class:`~trap_env.agent.OpponentError` is raised. Either way the env refuses
    ``step`` until the next ``reset``; it never plays on from a
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
    - ``board_size``: N from 3 to 1000, default 7.
    - ``max_turns``: the truncation limit in turns; None means ``4 * N * N``. An episode
      is at most ``2 * ceil(max_turns / 2)`` learner steps (a move and a throw per turn).
      1 is refused unless ``seat=0``: player 0's first turn would end the game before
      the learner in seat 1 decides.
    - ``decay``: the throw's accuracy loss per step of distance beyond the first, an
      integer per mille in 0..1000 (see :class:`trap_env.trap.core.GameConfig`); 50, the game
      as specified, by default; 0 lands every throw on its target.
    - ``render_mode``: None, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (pygame).
    - ``illegal_action``: ``"lose"`` (default: reward -1, episode over) or ``"raise"``
      (raise :class:`trap_env.trap.core.IllegalActionError`).
    - ``mask_in_observation``: False (default: the planes) or True (a dict,
      ``{"observation": planes, "action_mask": mask}``, for clients such as TorchRL that
      read the mask's spec from the observation).

    ``info`` holds the same keys after every ``reset`` and ``step``, NumPy values only:
    ``"action_mask"`` (``int8``; all ones once the episode is over, as ``action_masks()``,
    so that a masked sampler always has an action; ``trap_env.trap.core.legal_action_mask``
    stays exact), ``"phase"`` (0 for a move, 1 for a
    throw: the index in ``Trap.decision_names``), ``"seat"``, ``"turn"``; ``"target"`` and
    ``"landing"`` of the learner's throw in this step, ``"opponent_target"`` and
    ``"opponent_landing"`` of the opponent's last throw (each -1 when there was none);
    ``"illegal_action"`` and ``"opponent_fault"`` (booleans, as above).

    Like every Gymnasium env, it must be ``reset`` before the first ``step`` (or started
    with ``set_game_state``); ``step`` raises ``gymnasium.error.ResetNeeded`` otherwise, also
    without the ``gymnasium.make`` wrappers.

    ## Version History
    - v0: first version.
    """

    def __init__(
        self,
        opponent: Opponent = "random",
        seat: int | None = None,
        board_size: int = 7,
        max_turns: int | None = None,
        decay: int = DEFAULT_DECAY,
        render_mode: str | None = None,
        illegal_action: str = "lose",
        mask_in_observation: bool = False,
    ) -> None:
        super().__init__(
            "trap",
            opponent,
            seat,
            max_turns,
            render_mode,
            illegal_action,
            mask_in_observation,
            board_size=board_size,
            decay=decay,
        )

    @property
    def game_state(self) -> State:
        """The current game state (a value: changing the env never changes it)."""
        return self._game_state  # type: ignore[no-any-return]

    def set_game_state(self, state: State) -> tuple[np.ndarray, dict[str, Any]]:
        """Continue the episode from ``state``, for search and debugging.

        The state must be valid (:func:`trap_env.trap.core.validate_state`), of this env's board
        size and decay, and in phase ``MOVE`` or ``THROW``. If the opponent is to act, it plays (and
        chance lands its throw) until the learner must decide, as in ``reset``.

        Returns:
            The observation and info, as ``reset`` returns them.

        Raises:
            ValueError: if the state is invalid, of another board size or decay, or in
                ``LANDING``.
            OpponentError: if the opponent raises or plays an illegal action.
        """
        return super().set_game_state(state)

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
                "set_game_state needs a state in phase MOVE or THROW, got LANDING; apply a "
                "landing cell from chance_outcomes(state) first"
            )

    _NO_CHANCE: ClassVar[dict[str, np.int64]] = {
        "target": np.int64(-1),
        "landing": np.int64(-1),
        "opponent_target": np.int64(-1),
        "opponent_landing": np.int64(-1),
    }

    def _chance_info(self, before: State, outcome: int, *, own: bool) -> dict[str, np.int64]:
        """``target``/``landing`` (the opponent's: ``opponent_target``/``opponent_landing``)."""
        prefix = "" if own else "opponent_"
        return {f"{prefix}target": np.int64(before.target), f"{prefix}landing": np.int64(outcome)}


def planes_space(board_size: int) -> spaces.Box:
    """The space of the observation planes (:func:`trap_env.trap.observation.observe`)."""
    return spaces.Box(0, 1, (board_size, board_size, NUM_PLANES), dtype=np.int8)

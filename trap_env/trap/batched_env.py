"""Trap!'s batched vector env, ``gymnasium.make_vec("trap_env/Trap-v0")``:
:class:`TrapVectorEnv`, the generic :class:`trap_env.batched_env.GameVectorEnv` on Trap!'s
batched engine (:mod:`trap_env.trap.batched`), with Trap!'s arguments.

Example:
    >>> import gymnasium, trap_env
    >>> envs = gymnasium.make_vec("trap_env/Trap-v0", num_envs=8, board_size=5)
    >>> observations, infos = envs.reset(seed=0)
    >>> observations.shape, envs.action_masks().shape
    ((8, 5, 5, 4), (8, 25))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gymnasium.vector import AutoresetMode

from trap_env.batched_env import GameVectorEnv, VectorOpponent
from trap_env.trap import batched as batched_trap

__all__ = ["TrapVectorEnv"]


class TrapVectorEnv(GameVectorEnv):
    """Trap! for a learner in B games at once, against opponents inside the batch.

    ## Description
    The single env ``trap_env/Trap-v0`` (:class:`trap_env.trap.gym_env.TrapEnv`), B times, with
    every game held in the arrays of :mod:`trap_env.trap.batched` and stepped without a Python
    loop over games (except opponents given as game-by-game agents). One step is one
    learner decision; the landings and the opponent's turn happen inside it.

    ## Action Space
    ``MultiDiscrete([N*N] * B)``; each game's ``single_action_space`` is ``Discrete(N*N)``,
    a flat cell as in the single env. ``action_masks()`` gives the legal actions as a
    ``(B, N*N)`` bool array; ``info["action_mask"]`` as ``int8`` (with ``"_action_mask"``).

    ## Observation Space
    ``(B, N, N, 4)`` ``int8``, each game's planes as the single env gives them
    (:mod:`trap_env.trap.observation`) from the learner's side (in ``"self"`` mode, from the side
    to act). With ``mask_in_observation=True``, a dict as the single env's:
    ``{"observation": planes, "action_mask": masks}``, the masks ``(B, N*N)`` ``int8`` as
    ``info["action_mask"]`` (all ones in a game whose episode is over).

    ## Starting State
    As the single env: the learner's seat is drawn per episode unless ``seat`` fixes it;
    when the opponent is player 0, its first turn is played in the reset.

    ## Rewards
    +1 when the learner wins, -1 when it loses or plays an illegal action (with
    ``illegal_action="lose"``), 0 otherwise. In ``"self"`` mode, the reward is the side
    that acted's.

    ## Episode End
    As the single env; games reset on the step after they end (Gymnasium's next-step
    autoreset: that step ignores the game's action and returns reward 0 and the first
    observation of the next episode). With ``autoreset_mode="same_step"`` they reset in the
    step that ends them (Gymnasium's same-step autoreset: the next episode's first
    observation, and the last one and its ``info`` in ``info["final_obs"]`` and
    ``info["final_info"]``). With ``autoreset_mode="disabled"`` the caller resets ended
    games with ``reset(options={"reset_mask": mask})``.

    ## Randomness
    Everything (seats, landings, opponents' choices, the choice from a mix) is drawn from
    counter-based streams keyed by ``(seed, slot, episode)``
    (:func:`trap_env.trap.batched.game_keys`), so a slot's games depend only on the seed given
    to ``reset`` and the learner's actions in that slot, not on B.

    ## Arguments
    - ``num_envs``: B.
    - ``opponent``: ``"random"`` and the one-ply agents ``"greedy"`` (with heuristic
      ``is``, ``ais`` or ``ocls``), ``"is"``, ``"ais"``, ``"ocls"`` (computed for the whole
      batch: the scalar agents' sets of best actions, ties broken by the batch's random
      words; see :mod:`agents.trap.batched_heuristics`), ``"self"`` (the caller
      plays both seats; ``info["player"]`` is the side that acted, ``info["winner"]`` the
      winner, -1 while none, and ``info["returns"]`` the ``(B, 2)`` results of players 0
      and 1, an illegal action losing), a batched policy ``(observations, masks) -> actions`` (a
      callable with two parameters, called on the games it plays, seen from its side), or
      any other agent spec string, agent object or ``state -> action`` callable, played game
      by game (slower). A mapping ``{opponent: probability}`` or a sequence of
      ``(opponent, probability)`` pairs draws one per episode and game.
    - ``seat``, ``board_size`` (3..8), ``max_turns``, ``illegal_action``: as the single env
      (``max_turns=1`` needs ``seat=0`` or ``"self"``).
    - ``decay``: the throw's accuracy loss per step of distance, per mille (default 50).
    - ``render_mode``: only None; for rendering use ``vectorization_mode="sync"``.
    - ``autoreset_mode``: ``"next_step"`` (default), ``"same_step"`` or ``"disabled"``.
    - ``mask_in_observation``: False (default: the planes) or True (the dict above, for
      clients such as TorchRL that read the mask's spec from the observation).

    ``info`` holds the same keys after every ``reset`` and ``step``, each set for every game
    (its ``"_key"`` mask all True), NumPy arrays in every game (the env contract of
    ``docs/environments.md``): ``"action_mask"`` (all ones in a game whose episode is over,
    until it restarts, as ``action_masks()``: a masked sampler always has an action; the
    engine's ``legal_masks`` stay exact), ``"seat"``, ``"turn"``, ``"illegal_action"`` and
    ``"opponent_fault"`` (booleans: the game ended on one), and in ``"self"`` mode
    ``"player"``, ``"winner"`` and ``"returns"`` (-1, -1 and zeros after a reset).

    ## Version History
    - v0: first version.
    """

    def __init__(
        self,
        num_envs: int = 1,
        opponent: VectorOpponent | Mapping[Any, float] | Sequence[tuple[Any, float]] = "random",
        seat: int | None = None,
        board_size: int = 7,
        max_turns: int | None = None,
        decay: int = batched_trap.DEFAULT_DECAY,
        render_mode: str | None = None,
        illegal_action: str = "lose",
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        mask_in_observation: bool = False,
    ) -> None:
        limit = batched_trap.MAX_BOARD_SIZE
        if isinstance(board_size, int) and board_size > limit:
            raise ValueError(
                f"the batched env plays boards up to {limit}x{limit} (one uint64 per board), "
                f"got board_size={board_size}; use gymnasium.make_vec(..., "
                'vectorization_mode="sync") for larger boards'
            )
        super().__init__(
            "trap", num_envs, opponent, seat, max_turns, render_mode, illegal_action,
            autoreset_mode, mask_in_observation, board_size=board_size, decay=decay,
        )  # fmt: skip
        self.board_size = board_size
        self.tables: batched_trap.Tables = batched_trap.tables(board_size, decay)

"""The PettingZoo AEC environment: both players are agents; chance plays inside ``step``."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from trap_env.core import (
    DEFAULT_DECAY,
    GameConfig,
    Phase,
    State,
    apply,
    initial_state,
    outcome,
    resolve_turn_limit,
    sample_landing,
)
from trap_env.game import TRUNCATED
from trap_env.gym_env import planes_space
from trap_env.observation import action_mask, observe
from trap_env.rendering import RENDER_MODES, EnvRenderer

__all__ = ["AGENTS", "env", "raw_env"]

AGENTS = ("player_0", "player_1")
"""The agent names; ``player_i`` is player ``i`` of :mod:`trap_env.core`."""

Observation = dict[str, np.ndarray]


def env(**kwargs: Any) -> AECEnv:
    """The AEC env with PettingZoo's usual wrappers, as its classic games ship it.

    An illegal action ends the game with -1 for its author (``TerminateIllegalWrapper``);
    out-of-range actions fail an assertion; calls out of order raise
    (``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``). The wrappers forward every
    attribute read through one ``__getattr__`` per layer, a Python call per layer on every
    read; where throughput matters, step :class:`raw_env` directly (it raises
    :class:`~trap_env.core.IllegalActionError` for an illegal action and refuses ``step``
    before ``reset``).

    Args:
        **kwargs: passed to :class:`raw_env` (``board_size``, ``max_turns``, ``decay``,
            ``render_mode``).
    """
    wrapped: AECEnv = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv[str, Observation, int]):  # type: ignore[misc]
    """Trap! for two agents, ``player_0`` and ``player_1``, in PettingZoo's AEC API.

    ## Description
    Two players stand on an ``N x N`` board. A turn is a move (a king step onto a free
    cell) and then a throw: the player names a target cell and a trap lands on it, or, with
    a probability growing with the Manhattan distance, on one of its free neighbours. A
    player who leaves the opponent no legal move wins. The rules are in ``docs/RULES.md``
    and ``trap_env.core``; this class only translates them. The same agent is selected twice in
    a row, first to move, then to throw; the landing is drawn inside ``step`` from the
    env's generator, seeded by ``reset(seed=...)``.

    ## Action Space
    ``Discrete(N * N)`` for each agent: a flat cell index ``row * N + col``, the destination
    of a move or the target of a throw. ``observation["action_mask"]`` marks the legal ones.

    ## Observation Space
    ``Dict(observation=Box(0, 1, (N, N, 4), int8), action_mask=Box(0, 1, (N * N,), int8))``.
    The planes are from the observing agent's point of view: own cell, opponent's cell,
    traps, and a plane of ones in the throw phase (zeros in the move phase); see
    :mod:`trap_env.observation`. The mask is all zeros for the agent not selected and
    once the game is over.

    ## Starting State
    Player 0 on ``(0, N // 2)``, player 1 on ``(N - 1, N // 2)``, no traps; ``player_0``
    is selected first, to move.

    ## Rewards
    +1 for the winner and -1 for the loser when a player is left with no legal move; 0 and
    0 on every other step and on truncation. With :func:`env`, an illegal action scores -1
    for its author and ends the game.

    ## Episode End
    Termination when a player has no legal move. Truncation of both agents when
    ``max_turns`` turns (one player's move and throw each) are complete. ``infos`` of both
    agents hold the latest throw: ``{"thrower", "target", "landing"}`` (the intended target
    and the cell the trap landed on).

    ## Arguments
    - ``board_size``: N >= 3, default 7.
    - ``max_turns``: the truncation limit in turns; None means ``4 * N * N``.
    - ``decay``: the throw's accuracy loss per step of distance beyond the first, an
      integer per mille in 0..1000 (see :class:`trap_env.core.GameConfig`); 50, the game
      as specified, by default; 0 lands every throw on its target.
    - ``render_mode``: None, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (pygame).

    ## Version History
    - v0: first version.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "name": "trap_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }
    agents: list[str]
    agent_selection: str
    rewards: dict[str, float]
    _cumulative_rewards: dict[str, float]
    terminations: dict[str, bool]
    truncations: dict[str, bool]
    infos: dict[str, dict[str, Any]]
    _game: State

    def __init__(
        self,
        board_size: int = 7,
        max_turns: int | None = None,
        decay: int = DEFAULT_DECAY,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self._config = GameConfig(board_size, decay)
        self.max_turns = resolve_turn_limit(max_turns, board_size)
        self.render_mode = render_mode
        num_cells = board_size * board_size
        self.possible_agents = list(AGENTS)
        self.action_spaces = {agent: spaces.Discrete(num_cells) for agent in AGENTS}
        planes = planes_space(board_size)
        mask = spaces.Box(0, 1, (num_cells,), dtype=np.int8)
        self.observation_spaces = {
            agent: spaces.Dict({"observation": planes, "action_mask": mask}) for agent in AGENTS
        }
        self._rng, _ = seeding.np_random(None)
        self._renderer = EnvRenderer(render_mode, self.metadata["render_fps"])
        self._last_throw: tuple[int, int] | None = None
        self._start_game()
        self._has_started = False  # step() needs a reset() first, as in the wrapped env

    @property
    def game_state(self) -> State:
        """The current game state (a value of :mod:`trap_env.core`)."""
        return self._game

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same for both)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent`` (the same for both)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game; ``seed`` reseeds the generator that draws the landings."""
        if seed is not None:
            self._rng, _ = seeding.np_random(seed)
        self._start_game()
        self._has_started = True
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> Observation:
        """The planes from ``agent``'s side and its mask (zeros unless it is to act)."""
        player = AGENTS.index(agent)
        state = self._game
        if agent == self.agent_selection and not self._is_over():
            mask = action_mask(state)
        else:
            mask = np.zeros(state.board_size * state.board_size, dtype=np.int8)
        return {"observation": observe(state, player), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Apply the selected agent's move or throw; after a throw, draw the landing.

        Raises:
            RuntimeError: before the first ``reset``.
            IllegalActionError: for an illegal action (``env()`` catches it first and ends
                the game with -1 for the agent that played it).
        """
        if not self._has_started:
            raise RuntimeError("call reset() before step(): the env has no game yet")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        state = apply(self._game, action)  # type: ignore[arg-type]
        if state.phase is Phase.LANDING:
            landing = sample_landing(state, self._rng)
            self._last_throw = (state.target, landing)
            throw = {"thrower": agent, "target": state.target, "landing": landing}
            self.infos = {name: dict(throw) for name in self.agents}
            state = apply(state, landing)
        self._game = state
        self._update_ends()
        self.agent_selection = AGENTS[state.player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """Draw the board as ``render_mode`` says: text, an RGB array, or a pygame window."""
        return self._renderer.render(self._game, self._last_throw)

    def close(self) -> None:
        """Close the window if one is open; closing twice is fine."""
        self._renderer.close()

    # --- Internals -------------------------------------------------------------------

    def _start_game(self) -> None:
        self._game = initial_state(self._config)
        self._last_throw = None
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {agent: {} for agent in AGENTS}
        self.agent_selection = AGENTS[self._game.player]

    def _update_ends(self) -> None:
        """Set the rewards, terminations and truncations that the new state implies."""
        ended = outcome(self._game, self.max_turns)
        self.rewards = dict(zip(AGENTS, ended.returns() if ended else (0.0, 0.0), strict=True))
        if ended is not None and ended.reason == TRUNCATED:
            self.truncations = dict.fromkeys(AGENTS, True)
        elif ended is not None:
            self.terminations = dict.fromkeys(AGENTS, True)

    def _is_over(self) -> bool:
        agent = self.agent_selection
        return self.terminations.get(agent, True) or self.truncations.get(agent, True)


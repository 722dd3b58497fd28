"""The PettingZoo AEC environments: both players are agents; chance plays inside ``step``.

:class:`GameAECEnv` plays any :class:`trap_env.game.Game` and restates no rule;
:class:`raw_env` is its Trap! instance (``trap_env/trap_v0``).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from trap_env.checks import describe
from trap_env.game import TRUNCATED, Game, turn_limit
from trap_env.games import game_of
from trap_env.gym_env import StateFacts, check_reset_arguments, count_info
from trap_env.rendering import RENDER_MODES, EnvRenderer, GameRenderer
from trap_env.trap.core import DEFAULT_DECAY, State

__all__ = ["AGENTS", "GameAECEnv", "env", "raw_env", "wrap"]

AGENTS = ("player_0", "player_1")
"""The agent names; ``player_i`` is player ``i`` of :mod:`trap_env.trap.core`."""

Observation = dict[str, np.ndarray]


def env(**kwargs: Any) -> AECEnv:
    """The AEC env with PettingZoo's usual wrappers, as its classic games ship it.

    An illegal action ends the game with -1 for its author (``TerminateIllegalWrapper``);
    out-of-range actions fail an assertion; calls out of order raise
    (``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``). The wrappers forward every
    attribute read through one ``__getattr__`` per layer, a Python call per layer on every
    read; where throughput matters, step :class:`raw_env` directly (it raises
    :class:`~trap_env.trap.core.IllegalActionError` for an illegal action and refuses ``step``
    before ``reset``).

    Args:
        **kwargs: passed to :class:`raw_env` (``board_size``, ``max_turns``, ``decay``,
            ``render_mode``).
    """
    return wrap(raw_env(**kwargs))


def wrap(raw: AECEnv) -> AECEnv:
    """``raw`` in the wrappers of :func:`env` (for any game's :class:`GameAECEnv`)."""
    wrapped: AECEnv = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class GameAECEnv(AECEnv[str, Observation, int]):  # type: ignore[misc]
    """Any registered game for two agents, ``player_0`` and ``player_1``, in PettingZoo's
    AEC API.

    The env translates the game's protocol (:class:`trap_env.game.Game`): the agent
    selected is ``game.current_player``; observations from ``game.observe``, masks from
    ``game.legal_action_mask``; chance drawn inside ``step`` by ``game.sample_chance`` from
    the env's generator (seeded by ``reset(seed=...)``); the end from ``game.outcome`` and
    rewards from :meth:`trap_env.game.Outcome.returns`. ``raw_env`` documents the rest.

    The env contract of ``docs/environments.md``: ``infos`` of both agents hold the same
    keys from ``reset`` on, NumPy values only: in a game with chance the latest chance
    outcome, ``"player"`` (the player whose decision it followed; -1 for a start drawn by
    chance, and before any) and ``"chance"`` (-1 before any; Trap! says
    ``thrower``/``target``/``landing``), and the game's counts (``"discs"``, ``"zones"``).
    ``observe(agent)["action_mask"]`` marks the selected agent's legal actions, zeros for
    the other, and all ones for both once the game is over (terminated, truncated, or an
    illegal action under :func:`wrap`'s ``TerminateIllegalWrapper``, which empties
    ``infos``), so that a masked sampler always has an action; the rules'
    ``game.legal_action_mask`` stays exact. A game lasts at most ``d * max_turns`` steps,
    ``d`` the decisions in one of the game's turns (Trap!: 2; Othello, Colosseum: 1).

    Args:
        game: a :class:`trap_env.game.Game` or its registered name.
        max_turns: the truncation limit in turns; None means the game's default.
        render_mode: None, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (pygame).
        **params: the game's rule parameters (``game.make_config``).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "name": "game_v0",
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
    _game_state: Any

    def __init__(
        self,
        game: Game[Any, Any] | str,
        max_turns: int | None = None,
        render_mode: str | None = None,
        **params: Any,
    ) -> None:
        super().__init__()
        self.game = game = game_of(game)
        self._config = config = game.make_config(**params)
        self.max_turns = turn_limit(max_turns, game.default_turn_limit(config))
        self._facts = StateFacts(game, self.max_turns)
        self.render_mode = render_mode
        if type(self).metadata["name"] == GameAECEnv.metadata["name"]:
            self.metadata = {**GameAECEnv.metadata, "name": f"{game.name}_v0"}  # type: ignore[misc]
        self._num_actions = num_actions = game.num_actions(config)
        self.possible_agents = list(AGENTS)
        self.action_spaces = {agent: spaces.Discrete(num_actions) for agent in AGENTS}
        planes = spaces.Box(0, 1, game.observation_shape(config), dtype=np.int8)
        mask = spaces.Box(0, 1, (num_actions,), dtype=np.int8)
        self.observation_spaces = {
            agent: spaces.Dict({"observation": planes, "action_mask": mask}) for agent in AGENTS
        }
        self._rng, _ = seeding.np_random(None)
        self._renderer = self._make_renderer(render_mode)
        self._last_throw: tuple[int, int] | None = None
        self._start_game()
        self._has_started = False  # step() needs a reset() first, as in the wrapped env

    def _make_renderer(self, render_mode: str | None) -> GameRenderer | EnvRenderer:
        return GameRenderer(self.game, render_mode, self.metadata["render_fps"])

    @property
    def game_state(self) -> Any:
        """The current game state (a value of the game's rules).

        Not ``state``: PettingZoo keeps ``state()`` for a global observation.
        """
        return self._game_state

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same for both)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent`` (the same for both)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game; ``seed`` reseeds the generator that draws chance.

        Raises:
            TypeError: for a seed that is not an integer, or options that are not a dict.
        """
        check_reset_arguments(seed, options)
        if seed is not None:
            self._rng, _ = seeding.np_random(int(seed))
        self._start_game()
        self._has_started = True
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> Observation:
        """The planes from ``agent``'s side and its mask (zeros unless it is to act).

        Raises:
            ValueError: for an agent that is not one of :data:`AGENTS`.
        """
        if agent not in AGENTS:
            raise ValueError(f"agent must be one of {list(AGENTS)}, got {describe(agent)}")
        player = AGENTS.index(agent)
        state = self._game_state
        if self._is_over():
            mask = np.ones(self._num_actions, dtype=np.int8)  # the env contract
        elif agent == self.agent_selection:
            mask = np.array(self._facts.legal_mask(state), dtype=np.int8)
        else:
            mask = np.zeros(self._num_actions, dtype=np.int8)
        return {"observation": self.game.observe(state, player), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Apply the selected agent's decision; then draw any chance outcome.

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
        state = self.game.apply(self._game_state, action)  # type: ignore[arg-type]
        if self.game.is_chance(state):
            landing = self.game.sample_chance(state, self._rng)
            self._chance = self._chance_info(AGENTS.index(agent), state, landing)
            state = self.game.apply(state, landing)
        self._game_state = state
        self._update_ends()
        self.agent_selection = AGENTS[self.game.current_player(state)]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """Draw the board as ``render_mode`` says: text, an RGB array, or a pygame window."""
        return self._renderer.render(self._game_state, self._last_throw)

    def close(self) -> None:
        """Close the window if one is open; closing twice is fine."""
        self._renderer.close()

    # --- Internals -------------------------------------------------------------------

    def _chance_info(self, player: int, before: Any, outcome: int) -> dict[str, np.int64]:
        """The chance keys of both agents' ``infos`` after a chance outcome that followed
        ``player``'s decision (-1: none); a game's env may say more (then it overrides
        :attr:`_NO_CHANCE` too)."""
        return {"player": np.int64(player), "chance": np.int64(outcome)}

    _NO_CHANCE: ClassVar[dict[str, np.int64]] = {"player": np.int64(-1), "chance": np.int64(-1)}
    """The chance keys of ``infos`` before any outcome (a game with chance only)."""

    def _start_game(self) -> None:
        self._game_state = self.game.initial_state(self._config)
        self._last_throw = None
        self._chance = dict(self._NO_CHANCE) if self.game.has_chance else {}
        while self.game.is_chance(self._game_state):  # a start drawn by chance (Colosseum's)
            start = self.game.sample_chance(self._game_state, self._rng)
            self._chance = self._chance_info(-1, self._game_state, start)
            self._game_state = self.game.apply(self._game_state, start)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self._set_infos()
        self.agent_selection = AGENTS[self.game.current_player(self._game_state)]

    def _set_infos(self) -> None:
        """Both agents' ``infos``: the latest chance outcome and the game's counts."""
        counts = count_info(self.game.scores(self._game_state))
        self.infos = {agent: {**self._chance, **counts} for agent in AGENTS}

    def _update_ends(self) -> None:
        """Set the rewards, terminations, truncations and infos the new state implies."""
        self._set_infos()
        ended = self._facts.outcome(self._game_state)
        self.rewards = dict(zip(AGENTS, ended.returns() if ended else (0.0, 0.0), strict=True))
        if ended is not None and ended.reason == TRUNCATED:
            self.truncations = dict.fromkeys(AGENTS, True)
        elif ended is not None:
            self.terminations = dict.fromkeys(AGENTS, True)

    def _is_over(self) -> bool:
        agent = self.agent_selection
        return self.terminations.get(agent, True) or self.truncations.get(agent, True)


class raw_env(GameAECEnv):
    """Trap! for two agents, ``player_0`` and ``player_1``, in PettingZoo's AEC API.

    ## Description
    Two players stand on an ``N x N`` board. A turn is a move (a king step onto a free
    cell) and then a throw: the player names a target cell and a trap lands on it, or, with
    a probability growing with the Manhattan distance, on one of its free neighbours. A
    player who leaves the opponent no legal move wins. The rules are in ``docs/RULES.md``
    and ``trap_env.trap.core``; this class only translates them. The same agent is selected twice in
    a row, first to move, then to throw; the landing is drawn inside ``step`` from the
    env's generator, seeded by ``reset(seed=...)``.

    ## Action Space
    ``Discrete(N * N)`` for each agent: a flat cell index ``row * N + col``, the destination
    of a move or the target of a throw. ``observation["action_mask"]`` marks the legal ones.

    ## Observation Space
    ``Dict(observation=Box(0, 1, (N, N, 4), int8), action_mask=Box(0, 1, (N * N,), int8))``.
    The planes are from the observing agent's point of view: own cell, opponent's cell,
    traps, and a plane of ones in the throw phase (zeros in the move phase); see
    :mod:`trap_env.trap.observation`. The mask is all zeros for the agent not selected, and
    all ones for both once the game is over (so that a masked sampler always has an
    action; ``trap_env.trap.core.legal_action_mask`` stays exact).

    ## Starting State
    Player 0 on ``(0, N // 2)``, player 1 on ``(N - 1, N // 2)``, no traps; ``player_0``
    is selected first, to move.

    ## Rewards
    +1 for the winner and -1 for the loser when a player is left with no legal move; 0 and
    0 on every other step and on truncation. With :func:`env`, an illegal action scores -1
    for its author and ends the game.

    ## Episode End
    Termination when a player has no legal move. Truncation of both agents when
    ``max_turns`` turns (one player's move and throw each) are complete: a game is at most
    ``2 * max_turns`` steps. ``infos`` of both agents hold the latest throw from ``reset``
    on, as ``np.int64``: ``{"thrower", "target", "landing"}`` (the thrower's player number,
    the intended target and the cell the trap landed on; -1 before the first throw).

    ## Arguments
    - ``board_size``: N >= 3, default 7.
    - ``max_turns``: the truncation limit in turns; None means ``4 * N * N``.
    - ``decay``: the throw's accuracy loss per step of distance beyond the first, an
      integer per mille in 0..1000 (see :class:`trap_env.trap.core.GameConfig`); 50, the game
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
    _game_state: State

    def __init__(
        self,
        board_size: int = 7,
        max_turns: int | None = None,
        decay: int = DEFAULT_DECAY,
        render_mode: str | None = None,
    ) -> None:
        super().__init__("trap", max_turns, render_mode, board_size=board_size, decay=decay)

    @property
    def game_state(self) -> State:
        """The current game state (a value of :mod:`trap_env.trap.core`)."""
        return self._game_state

    def _make_renderer(self, render_mode: str | None) -> GameRenderer | EnvRenderer:
        return EnvRenderer(render_mode, self.metadata["render_fps"])

    _NO_CHANCE: ClassVar[dict[str, np.int64]] = {
        "thrower": np.int64(-1),
        "target": np.int64(-1),
        "landing": np.int64(-1),
    }

    def _chance_info(self, player: int, before: State, outcome: int) -> dict[str, np.int64]:
        """``{"thrower", "target", "landing"}``: the throw's author, its target, its landing."""
        self._last_throw = (before.target, outcome)
        return {
            "thrower": np.int64(player),
            "target": np.int64(before.target),
            "landing": np.int64(outcome),
        }

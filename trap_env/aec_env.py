"""The PettingZoo AEC environments: both players are agents; chance plays inside ``step``.

:class:`GameAECEnv` plays any :class:`trap_env.game.Game` and restates no rule. Each game
of the table has a PettingZoo module with ``raw_env`` (its :class:`GameAECEnv`) and ``env()``
(that in the wrappers of :func:`wrap`): ``from trap_env import trap_v0, othello_v0,
colosseum_v0``. A game whose table entry names no module of its own gets one made here,
:func:`game_module` (``raw_env`` a :class:`BoundAECEnv`); Trap!'s is its own
(:mod:`trap_env.trap.aec_env`, with Trap!'s arguments and throw ``infos``).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from trap_env.checks import describe
from trap_env.entry_points import check_own_game
from trap_env.game import TRUNCATED, Game, played_params, turn_limit
from trap_env.games import entry_for, game_of, get_game
from trap_env.gym_env import StateFacts, check_reset_arguments, count_info
from trap_env.rendering import GameRenderer, available_render_modes

__all__ = ["AGENTS", "BoundAECEnv", "GameAECEnv", "game_env", "game_module", "wrap"]

AGENTS = ("player_0", "player_1")
"""The agent names; ``player_i`` is the game's player ``i``."""

Observation = dict[str, np.ndarray]


def game_env(game: Game[Any, Any] | str, **kwargs: Any) -> AECEnv:
    """:class:`GameAECEnv` of ``game`` in the wrappers of :func:`wrap`: the PettingZoo entry
    point of a game without its own AEC module (:func:`trap_env.games.register_game`).

    Args:
        game: a :class:`trap_env.game.Game` or its registered name.
        **kwargs: passed to :class:`GameAECEnv` (``max_turns``, ``render_mode``, the rules).
    """
    return wrap(GameAECEnv(game, **kwargs))


def wrap(raw: AECEnv) -> AECEnv:
    """``raw`` (any game's :class:`GameAECEnv`) in PettingZoo's usual wrappers, as its
    classic games ship them: every game's ``env()`` is its ``raw_env`` wrapped so.

    An illegal action ends the game with -1 for its author (``TerminateIllegalWrapper``);
    out-of-range actions fail an assertion; calls out of order raise
    (``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``). The wrappers forward every
    attribute read through one ``__getattr__`` per layer, a Python call per layer on every
    read; where throughput matters, step the raw env directly (it raises
    :class:`~trap_env.game.IllegalActionError` for an illegal action and refuses ``step``
    before ``reset``).
    """
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
    rewards from :meth:`trap_env.game.Outcome.returns`. Trap!'s ``raw_env``
(:class:`trap_env.trap.aec_env.raw_env`) documents the rest in PettingZoo's sections.

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
        "render_modes": available_render_modes(),
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
        self._renderer = GameRenderer(game, render_mode, self.metadata["render_fps"])
        self._last_chance: tuple[int, int] | None = None
        """The last chance node's ``(decision before it, outcome)``, drawn by ``render``."""
        self._start_game()
        self._has_started = False  # step() needs a reset() first, as in the wrapped env

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
            self._last_chance = (int(action), landing)  # type: ignore[arg-type]  # applied
            state = self.game.apply(state, landing)
        self._game_state = state
        self._update_ends()
        self.agent_selection = AGENTS[self.game.current_player(state)]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """Draw the board as ``render_mode`` says: text, an RGB array, or a pygame window."""
        return self._renderer.render(self._game_state, self._last_chance)

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
        self._last_chance = None
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


class BoundAECEnv(GameAECEnv):
    """:class:`GameAECEnv` of one game, :attr:`game_name`: the ``raw_env`` of a game's
    PettingZoo module made by :func:`game_module`, which takes the game's rule parameters and
    a ``game=`` naming only that game.

    Args:
        max_turns: the truncation limit in turns; None means the game's default.
        render_mode: None, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (pygame).
        **params: the game's rule parameters, and ``game`` naming the game itself.

    Raises:
        ValueError: for a ``game=`` naming another game, and what :class:`GameAECEnv` refuses.
    """

    game_name: ClassVar[str]
    """The name of the game the class plays."""

    def __init__(
        self, max_turns: int | None = None, render_mode: str | None = None, **params: Any
    ) -> None:
        game = self.game_name
        check_own_game(game, params.pop("game", game), self.metadata["name"])
        super().__init__(game, max_turns, render_mode, **params)


def game_module(game: str) -> ModuleType:
    """The PettingZoo module of the table's game ``game``, ``trap_env.<game>_v0`` (the last
    part of its AEC id), made for a game whose entry names no module of its own: ``raw_env``,
    the game's :class:`BoundAECEnv`, and ``env()``, that in :func:`wrap`'s wrappers.

    ``import trap_env`` serves it (:mod:`trap_env.aliases`): ``from trap_env import
    othello_v0``, ``import trap_env.othello_v0`` and ``pettingzoo.make`` give it.

    Raises:
        UnknownGameError: for a game that is not registered.
        ValueError: for a game without a PettingZoo id.
    """
    aec_id = entry_for(game).aec_id
    if aec_id is None:
        raise ValueError(f"the game {game!r} has no PettingZoo id, so no PettingZoo module")
    short = aec_id.rpartition("/")[2]
    name, title = f"trap_env.{short}", get_game(game).title
    body = {
        "game_name": game,
        "metadata": {**GameAECEnv.metadata, "name": short},
        "__module__": name,
        "__qualname__": "raw_env",
        "__doc__": _raw_env_doc(game, title),
    }
    raw_env = type("raw_env", (BoundAECEnv,), body)

    def env(**kwargs: Any) -> AECEnv:
        return wrap(raw_env(**kwargs))

    env.__module__, env.__qualname__ = name, "env"
    env.__doc__ = f"{title}'s ``raw_env`` in PettingZoo's usual wrappers (:func:`wrap`)."
    module = ModuleType(name, f"{title}'s PettingZoo module, ``{aec_id}``: ``env``, ``raw_env``.")
    module.__dict__.update(env=env, raw_env=raw_env, __all__=["env", "raw_env"])
    return module


def _raw_env_doc(game: str, title: str) -> str:
    """The docstring of a made module's ``raw_env``: the game, its arguments and defaults."""
    params = played_params(get_game(game))
    rules = ", ".join(f"``{key}={value!r}``" for key, value in params.items())
    return (
        f"{title} for two agents, ``player_0`` (the first to act) and ``player_1``, in "
        f"PettingZoo's AEC API: the :class:`trap_env.aec_env.GameAECEnv` of {game!r}, which "
        "says what the agents observe, their masks, rewards and ``infos``; the game's page "
        "of the docs says its rules, actions and planes. Its arguments: the game's rule "
        f"parameters ({rules or 'none'}), ``max_turns`` (None: the game's default), "
        f"``render_mode`` and ``game``, which names only {game!r}."
    )

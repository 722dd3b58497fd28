"""Tests of trap_env.aec_env: PettingZoo's tests, turn order, chance, ends, copies, rollouts."""

from __future__ import annotations

import copy
import hashlib
import pickle
import random
import warnings
from typing import Any

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils import wrappers

import trap_env
from tests.support.env_contract import StateQuestions, play_aec_game
from tests.support.far_throws import far_target
from tests.support.game_runs import random_decision_states
from tests.support.games import every_game, game_object, small_rules
from tests.support.replay_elsewhere import digest_in_another_process
from tests.support.toy_game import GAMBLE, ChanceShown
from trap_env.aec_env import AGENTS, GameAECEnv, game_env, wrap
from trap_env.games import entry_of, get_game
from trap_env.trap.aec_env import env, raw_env
from trap_env.trap.core import IllegalActionError, Phase, legal_actions, validate_state
from trap_env.trap.observation import observe


@pytest.fixture(autouse=True)
def _headless_pygame(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def play_digest(num_games: int = 6, board_size: int = 5) -> str:
    """Play seeded games with actions from a seeded generator; hash everything observed."""
    game_env = env(board_size=board_size)
    rng = np.random.default_rng(99)
    digest = hashlib.sha256()
    for game in range(num_games):
        game_env.reset(seed=game)
        for agent in game_env.agent_iter():
            observation, reward, terminated, truncated, info = game_env.last()
            digest.update(observation["observation"].tobytes())
            digest.update(repr((agent, reward, terminated, truncated, info)).encode())
            if terminated or truncated:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            game_env.step(action)
    return digest.hexdigest()


def random_action(game_env: pettingzoo.AECEnv, rng: np.random.Generator) -> int | None:
    observation, _, terminated, truncated, _ = game_env.last()
    if terminated or truncated:
        return None
    return int(rng.choice(np.flatnonzero(observation["action_mask"])))


# --- PettingZoo's own tests ------------------------------------------------------------


def test_pettingzoo_api_test_passes() -> None:
    with warnings.catch_warnings():
        # Dict observations with an action mask draw two generic hints, as in every
        # classic PettingZoo game.
        warnings.filterwarnings("ignore", message="Observation space for each agent")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(env(board_size=5), num_cycles=300)
        api_test(raw_env(board_size=4), num_cycles=300)


def test_pettingzoo_seed_test_passes() -> None:
    seed_test(lambda: env(board_size=5), num_cycles=300)


def test_pettingzoo_render_test_passes() -> None:
    render_test(lambda render_mode=None: env(board_size=5, render_mode=render_mode))


def test_metadata_agents_and_registration() -> None:
    game_env = env()
    assert game_env.metadata["name"] == "trap_v0"
    assert str(game_env) == "trap_v0"
    game_env.reset(seed=0)
    assert game_env.agents == list(AGENTS) == ["player_0", "player_1"]
    assert trap_env.env is env and trap_env.raw_env is raw_env
    made = pettingzoo.make("aec", "trap_env/trap_v0", board_size=4)
    assert made.unwrapped.game_state.board_size == 4


def test_order_is_enforced_before_reset() -> None:
    game_env = env()
    with pytest.raises(AttributeError, match="before reset"):
        _ = game_env.agent_selection


def test_the_raw_env_refuses_step_before_reset() -> None:
    game_env = raw_env(board_size=5)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        game_env.step(1)
    game_env.reset(seed=0)
    game_env.step(1)
    assert game_env.game_state.cells[0] == 1


def test_env_uses_pettingzoos_own_wrappers() -> None:
    # No subclass of a PettingZoo wrapper, so nothing here depends on their internals.
    layers = []
    layer = env()
    while layer is not layer.unwrapped:
        layers.append(type(layer))
        layer = layer.env
    assert layers == [
        wrappers.OrderEnforcingWrapper,
        wrappers.AssertOutOfBoundsWrapper,
        wrappers.TerminateIllegalWrapper,
    ]


# --- Turn order, chance and infos ----------------------------------------------------


def test_the_same_agent_moves_then_throws() -> None:
    game_env = env(board_size=7)
    game_env.reset(seed=0)
    seen = []
    for _ in range(6):
        observation, *_ = game_env.last()
        seen.append((game_env.agent_selection, int(observation["observation"][0, 0, 3])))
        game_env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert seen == [
        ("player_0", 0),
        ("player_0", 1),
        ("player_1", 0),
        ("player_1", 1),
        ("player_0", 0),
        ("player_0", 1),
    ]


def test_infos_carry_the_target_and_the_landing() -> None:
    game_env = env(board_size=7)
    game_env.reset(seed=0)
    game_env.step(2)  # player_0 moves from (0, 3) to (0, 2)
    none = {"thrower": -1, "target": -1, "landing": -1}
    assert game_env.infos == {"player_0": none, "player_1": none}
    game_env.step(42)  # and throws at (6, 0), 8 steps away
    expected_cells = {42, 35, 36, 43}
    for agent in AGENTS:
        info = game_env.infos[agent]
        assert info["thrower"] == 0 and info["target"] == 42
        assert info["landing"] in expected_cells
    assert game_env.unwrapped.game_state.traps >> info["landing"] & 1


def test_landings_follow_the_env_seed() -> None:
    def landings(seed: int) -> list[int]:
        game_env = env(board_size=7)
        game_env.reset(seed=seed)
        cells = []
        for _ in range(10):
            game_env.reset(seed=seed + len(cells))
            game_env.step(2)
            game_env.step(48)  # far away: often misses the target
            cells.append(game_env.infos["player_0"]["landing"])
        return cells

    assert landings(1) == landings(1)
    assert landings(1) != landings(2)


def test_masks_are_zero_for_the_agent_not_selected() -> None:
    game_env = env(board_size=5)
    game_env.reset(seed=0)
    assert game_env.observe("player_1")["action_mask"].sum() == 0
    planes = game_env.observe("player_1")["observation"]
    assert planes[4, 2, 0] == 1 and planes[0, 2, 1] == 1


@pytest.mark.parametrize(("decay", "lands_on_target"), [(0, True), (1000, False)])
def test_decay_decides_where_far_throws_land(decay: int, lands_on_target: bool) -> None:
    # decay 0: every throw lands on its target; 1000: none two or more steps away does.
    game_env = env(board_size=5, decay=decay)
    rng = np.random.default_rng(0)
    num_throws = 0
    for seed in range(4):
        game_env.reset(seed=seed)
        assert game_env.unwrapped.game_state.decay == decay
        for agent in game_env.agent_iter():
            state = game_env.unwrapped.game_state
            action = random_action(game_env, rng)
            is_throw = action is not None and state.phase is Phase.THROW
            if is_throw:
                action = far_target(state)
            game_env.step(action)
            if is_throw:
                num_throws += 1
                info = game_env.infos[agent]
                assert bool(info["landing"] == info["target"] == action) is lands_on_target
    assert num_throws > 10


# --- Ends of a game --------------------------------------------------------------------


def test_truncation_at_max_turns_gives_zero_to_both() -> None:
    game_env = env(board_size=7, max_turns=3)
    game_env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    while not any(game_env.truncations.values()):
        game_env.step(random_action(game_env, rng))
        steps += 1
    assert steps == 6 and game_env.unwrapped.game_state.turn == 3
    assert game_env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert not any(game_env.terminations.values())


def test_a_win_scores_plus_one_and_minus_one() -> None:
    game_env = env(board_size=3)
    rng = np.random.default_rng(0)
    for game in range(50):
        game_env.reset(seed=game)
        totals = dict.fromkeys(AGENTS, 0.0)
        for agent in game_env.agent_iter():
            totals[agent] += game_env.last()[1]
            game_env.step(random_action(game_env, rng))
        winner = game_env.unwrapped.game_state.winner
        assert totals == {AGENTS[winner]: 1.0, AGENTS[1 - winner]: -1.0}


def test_an_illegal_action_loses_with_the_wrapped_env() -> None:
    game_env = env(board_size=5)
    game_env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        game_env.step(24)  # not a neighbour of (0, 2)
    assert game_env.terminations["player_0"]
    _, reward, *_ = game_env.last()
    assert reward == -1


def test_an_illegal_action_raises_with_the_raw_env() -> None:
    game_env = raw_env(board_size=5)
    game_env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="illegal action 24"):
        game_env.step(24)


def test_out_of_range_actions_fail_the_bounds_check() -> None:
    game_env = env(board_size=5)
    game_env.reset(seed=0)
    with pytest.raises(AssertionError, match="action space"):
        game_env.step(25)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"board_size": 1}, "board_size must be an integer from 3 to "),
        ({"max_turns": -5}, "max_turns must be a positive integer"),
        ({"decay": 1001}, r"decay must be an integer per mille in 0\.\.1000"),
        ({"render_mode": "svg"}, "render_mode must be None or one of"),
    ],
)
def test_bad_arguments_say_what_is_allowed(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        raw_env(**kwargs)


def test_wrong_arguments_to_reset_and_observe_are_named() -> None:
    game = raw_env()
    with pytest.raises(TypeError, match="seed must be an integer or None, got str '1'"):
        game.reset(seed="1")
    game.reset(seed=0)
    with pytest.raises(ValueError, match=r"agent must be one of \['player_0', 'player_1'\]"):
        game.observe(3)  # type: ignore[arg-type]


@pytest.mark.parametrize("game", [3, None, b"trap"])
def test_the_game_is_a_name_or_a_game_object(game: object) -> None:
    with pytest.raises(TypeError, match=r"game must be a game's name \(.*othello.*\)"):
        GameAECEnv(game)  # type: ignore[arg-type]


# --- Determinism and copies ------------------------------------------------------------


def test_same_seed_and_actions_give_the_same_game() -> None:
    assert play_digest() == play_digest()


def test_same_seed_gives_the_same_game_in_another_process() -> None:
    assert digest_in_another_process(__name__, "54321") == play_digest()


@pytest.mark.parametrize("duplicate", [copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))])
def test_a_copy_carries_on_the_same_game(duplicate) -> None:  # type: ignore[no-untyped-def]
    original = env(board_size=5, render_mode="rgb_array")
    original.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(5):
        original.step(random_action(original, rng))
    twin = duplicate(original)
    assert twin.unwrapped.game_state == original.unwrapped.game_state
    assert twin.unwrapped is not original.unwrapped
    histories = []
    for played in (original, twin):
        moves = np.random.default_rng(1)
        history = []
        for agent in played.agent_iter():
            history.append((agent, played.last()[1:], played.unwrapped.game_state))
            played.step(random_action(played, moves))
        histories.append(history)
    assert histories[0] == histories[1]


# --- Random rollouts with invariants ---------------------------------------------------


@pytest.mark.parametrize(("board_size", "num_games"), [(3, 800), (4, 500), (5, 300), (7, 60)])
def test_random_masked_rollouts_keep_every_invariant(board_size: int, num_games: int) -> None:
    game_env = env(board_size=board_size)
    rng = np.random.default_rng(board_size)
    ends = set()
    for game in range(num_games):
        game_env.reset(seed=game)
        for agent in game_env.agent_iter():
            observation, reward, terminated, truncated, _ = game_env.last()
            state = game_env.unwrapped.game_state
            if terminated or truncated:
                ends.add("win" if terminated else "truncated")
                assert reward in (1.0, -1.0) if terminated else reward == 0.0
                game_env.step(None)
                continue
            validate_state(state)
            assert agent == AGENTS[state.player] and state.phase in (Phase.MOVE, Phase.THROW)
            assert np.array_equal(observation["observation"], observe(state, state.player))
            assert np.flatnonzero(observation["action_mask"]).tolist() == legal_actions(state)
            game_env.step(random_action(game_env, rng))
        assert game_env.agents == []
    assert "win" in ends


def test_the_docstring_has_gymnasiums_sections() -> None:
    from tests.trap_env.test_gym_env import GYMNASIUM_SECTIONS

    for section in GYMNASIUM_SECTIONS:
        assert f"## {section}" in (raw_env.__doc__ or "")


def test_raw_env_is_the_generic_aec_env_of_trap() -> None:
    raw = raw_env(board_size=5)
    assert isinstance(raw, GameAECEnv)
    assert raw.metadata["name"] == "trap_v0"


def test_seeded_trap_game_replays_the_recorded_one() -> None:
    raw = raw_env(board_size=5)
    raw.reset(seed=3)
    landings = []
    while not (raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]):
        agent = raw.agent_selection
        raw.step(int(np.flatnonzero(raw.observe(agent)["action_mask"])[0]))
        landing = int(raw.infos[agent]["landing"])
        landings.append(None if landing == -1 else landing)  # as recorded: None before a throw
    assert len(landings) == 200
    assert [i for i, cell in enumerate(landings) if cell not in (None, 0)] == [
        43,
        44,
        93,
        94,
        129,
        130,
        133,
        134,
        137,
        138,
        143,
        144,
        169,
        170,
    ]
    assert raw.rewards == {"player_0": 0.0, "player_1": 0.0}


def test_generic_aec_env_plays_trap_as_raw_env_does() -> None:
    generic, trap = GameAECEnv("trap", board_size=5), raw_env(board_size=5)
    for aec in (generic, trap):
        aec.reset(seed=1)
        for _ in range(40):
            agent = aec.agent_selection
            aec.step(int(np.flatnonzero(aec.observe(agent)["action_mask"])[-1]))
    assert generic.game_state == trap.game_state
    assert generic.metadata["name"] == "trap_v0"


# --- The other games through the generic env --------------------------------------------


@pytest.mark.parametrize(
    ("game", "params", "num_cycles"),
    [
        ("trap", {"board_size": 4}, 300),
        ("othello", {"board_size": 6}, 300),
        ("colosseum", {"board_size": 5}, 100),
    ],
)
def test_every_shipped_games_module_passes_pettingzoos_tests(
    game: str, params: dict, num_cycles: int
) -> None:
    """``from trap_env import <game>_v0``: ``env()`` and ``raw_env`` pass ``api_test``,
    ``seed_test`` and ``render_test``, as the id ``trap_env/<game>_v0`` makes them."""
    module = getattr(trap_env, f"{game}_v0")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation space for each agent")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(module.env(**params), num_cycles=num_cycles)
        api_test(module.raw_env(**params), num_cycles=num_cycles)
        api_test(pettingzoo.make("aec", f"trap_env/{game}_v0", **params), num_cycles=num_cycles)
    seed_test(lambda: module.env(**params), num_cycles=num_cycles)
    render_test(lambda render_mode=None: module.env(render_mode=render_mode))
    assert module.raw_env(**params).metadata["name"] == f"{game}_v0"


def test_a_game_object_passes_pettingzoos_tests_in_the_generic_env() -> None:
    api_test(wrap(GameAECEnv(get_game("othello"), board_size=4)), num_cycles=100)
    seed_test(lambda: game_env("colosseum", board_size=4), num_cycles=50)


@every_game()
def test_every_games_id_passes_pettingzoos_tests(game: str) -> None:
    """Each game's registered AEC id, a game registered from outside too, makes an env
    that passes ``api_test`` and ``seed_test``."""
    aec_id, params = entry_of(game).aec_id, small_rules(game, board_size=4)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(pettingzoo.make("aec", aec_id, **params), num_cycles=50)
    seed_test(lambda: pettingzoo.make("aec", aec_id, **params), num_cycles=20)


@every_game()
def test_every_game_plays_to_its_end_with_its_scores_in_the_infos(game: str) -> None:
    rules = get_game(game)
    aec = GameAECEnv(rules, **small_rules(game, board_size=4))
    aec.reset(seed=0)
    rng = random.Random(0)
    while not all(aec.terminations.values()) and not all(aec.truncations.values()):
        assert not rules.is_chance(aec.game_state)  # drawn inside reset (Colosseum's start)
        mask = aec.observe(aec.agent_selection)["action_mask"]
        aec.step(rng.choice(np.flatnonzero(mask).tolist()))
    assert sorted(aec.rewards.values()) in ([-1.0, 1.0], [0.0, 0.0])
    assert rules.outcome(aec.game_state, aec.max_turns) is not None
    for info in aec.infos.values():
        for score, counts in rules.scores(aec.game_state).items():
            assert info[score].tolist() == counts


# --- One env contract in every game (docs/environments.md) ------------------------------

SMALL = {"trap": 5, "othello": 6, "colosseum": 5}
"""Each shipped game's board for a few whole games."""


def aec_keys(game: str) -> frozenset[str]:
    """The keys of ``game``'s AEC infos: the generic env's keys of its chance and its
    counts (``game.scores``), or Trap!'s own env's."""
    if game == "trap":
        return frozenset({"thrower", "target", "landing"})
    rules = game_object(game)
    first = random_decision_states(rules, rules.make_config(), seed=0, count=1)[0]
    chance = {"player", "chance"} if rules.has_chance else set()
    return frozenset({*chance, *rules.scores(first)})


@every_game()
@pytest.mark.parametrize("max_turns", [None, 3])
def test_every_game_end_masks_all_ones_with_the_same_numpy_infos(
    game: str, max_turns: int | None
) -> None:
    params = small_rules(game, board_size=SMALL.get(game))
    for seed in range(3):
        play_aec_game(wrap(_raw_env(game, max_turns=max_turns, **params)), aec_keys(game), seed)


def _raw_env(game: str, **kwargs: Any) -> GameAECEnv:
    """The game's registered AEC env (Trap!'s ``raw_env``, with its throw keys)."""
    return raw_env(**kwargs) if game == "trap" else GameAECEnv(game, **kwargs)


@every_game()
def test_an_illegal_action_ends_the_game_with_all_ones_masks(game: str) -> None:
    wrapped = wrap(_raw_env(game, **small_rules(game, board_size=SMALL.get(game))))
    wrapped.reset(seed=0)
    mask = wrapped.observe(wrapped.agent_selection)["action_mask"]
    while mask.all():  # till the agent to act has an action to refuse (Drop's: a column full)
        wrapped.step(int(mask.argmax()))
        mask = wrapped.observe(wrapped.agent_selection)["action_mask"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's warning about the illegal move
        wrapped.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(wrapped.terminations.values())
    for agent in AGENTS:
        assert wrapped.unwrapped.observe(agent)["action_mask"].all()


@every_game()
def test_each_state_is_asked_for_its_outcome_and_mask_once(monkeypatch, game: str) -> None:
    """However often the agent to act observes (``last()``, then ``observe``)."""
    aec = GameAECEnv(game)
    questions = StateQuestions(monkeypatch, aec.game)
    for seed in range(3):
        aec.reset(seed=seed)
        for agent in aec.agent_iter():
            observation, _, termination, truncation, _ = aec.last()
            aec.observe(agent)
            done = termination or truncation
            aec.step(None if done else int(np.flatnonzero(observation["action_mask"])[0]))
        assert questions.repeated() == []


def test_render_draws_the_last_chance_node_as_the_decision_and_its_outcome() -> None:
    aec = GameAECEnv(ChanceShown(), render_mode="ansi", goal=9)
    aec.reset(seed=0)
    assert aec.render() == "None\n"  # the renderer ends a text with a new line
    aec.step(GAMBLE)
    assert aec.render() == f"{(GAMBLE, int(aec.infos['player_0']['chance']))}\n"

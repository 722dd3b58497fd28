"""The agent interface: spec parsing, make_agent errors, every agent legal and reproducible."""

from __future__ import annotations

import gc
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents import Agent, SpecError, agent_names, make_agent, parse_spec
from agents.base import pause_collector, resume_collector
from trap_env import core
from trap_env.core import Phase, State

FAST_OPTIONS = {
    name: "depth=2,time_limit=1"
    for name in ("expectiminimax", "alphabeta", "minimax", "easy", "medium", "hard", "expert")
}
NEEDS_EXTRAS = {"ppo"}  # needs torch and trained weights; tested with the PPO code
OURS = [name for name in agent_names() if name not in NEEDS_EXTRAS]


def fast_spec(name: str) -> str:
    options = FAST_OPTIONS.get(name)
    return f"{name}:{options}" if options else name


def test_every_agent_of_the_issue_is_registered() -> None:
    expected = {"random", "greedy", "is", "ais", "ocls", "minimax", "alphabeta",
                "expectiminimax", "easy", "medium", "hard", "expert"}
    assert expected <= set(agent_names())


@pytest.mark.parametrize(
    "spec, name, options",
    [
        ("greedy", "greedy", {}),
        ("greedy:heuristic=ocls", "greedy", {"heuristic": "ocls"}),
        (
            "expectiminimax:depth=4,time_limit=1.0,table=false,depth_x=none",
            "expectiminimax",
            {"depth": 4, "time_limit": 1.0, "table": False, "depth_x": None},
        ),
    ],
)
def test_parse_spec(spec: str, name: str, options: dict[str, object]) -> None:
    assert parse_spec(spec) == (name, options)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("nosuchagent", "known agents: .*expectiminimax"),
        ("greedy:heuristic=nope", "known: ais, eval, is, ocls"),
        ("expectiminimax:speed=3", "takes no option 'speed'"),
        ("expectiminimax:depth=0", "depth must be"),
        ("greedy:heuristic", "not key=value"),
        ("no.such.module.Agent", "cannot import"),
    ],
)
def test_bad_specs_say_what_exists(spec: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        make_agent(spec)


def test_dotted_path_builds_a_user_agent() -> None:
    agent = make_agent("agents.heuristics.GreedyAgent:heuristic=is", seed=1)
    assert isinstance(agent, Agent)


def test_overrides_win_over_the_spec() -> None:
    agent = make_agent("expectiminimax:depth=2", depth=3, time_limit=None)
    assert agent.depth == 3  # type: ignore[attr-defined]


def test_presets_take_expectiminimax_options() -> None:
    agent = make_agent("hard:throw_radius=1,time_limit=2")
    assert agent.time_limit == 2 and agent.game.throw_radius == 1  # type: ignore[attr-defined]
    with pytest.raises(SpecError, match="speed"):
        make_agent("hard:speed=3")


def random_state(seed: int, board_size: int, turns: int, throw: bool) -> State:
    """A live state after random play, in phase THROW when ``throw`` (if possible)."""
    rng = random.Random(seed)
    state = core.initial_state(core.GameConfig(board_size))
    for _ in range(turns):
        after_move = core.apply(state, rng.choice(core.legal_actions(state)))
        if core.is_terminal(after_move):
            break
        landing = core.apply(after_move, rng.choice(core.legal_actions(after_move)))
        following = core.apply(landing, core.sample_landing(landing, rng))
        if core.is_terminal(following):
            break
        state = following
    if throw:
        after_move = core.apply(state, rng.choice(core.legal_actions(state)))
        if not core.is_terminal(after_move):
            return after_move
    return state


@pytest.mark.parametrize("name", OURS)
@given(
    seed=st.integers(0, 10_000),
    board_size=st.sampled_from([3, 4, 5, 7]),
    turns=st.integers(0, 12),
    throw=st.booleans(),
)
def test_agents_choose_legal_actions(
    name: str, seed: int, board_size: int, turns: int, throw: bool
) -> None:
    state = random_state(seed, board_size, turns, throw)
    agent = make_agent(fast_spec(name), seed=seed)
    action = agent.select_action(state)
    assert action in core.legal_actions(state)
    if state.phase is Phase.MOVE:
        assert not core.is_terminal(state)


def play_moves(agent: Agent, seed: int, board_size: int) -> list[int]:
    """The agent's actions over a few turns of self-play with seeded landings."""
    rng = random.Random(seed)
    state = core.initial_state(core.GameConfig(board_size))
    actions = []
    for _ in range(8):
        if core.is_terminal(state):
            break
        action = agent.select_action(state)
        actions.append(action)
        state = core.apply(state, action)
        if state.phase is Phase.LANDING:
            state = core.apply(state, core.sample_landing(state, rng))
    return actions


DETERMINISTIC_SPECS = {
    "expectiminimax": "expectiminimax:depth=2,time_limit=none",
    "easy": "easy:time_limit=none",
    "medium": "medium:depth=2,time_limit=none",
    "hard": "hard:depth=2,time_limit=none",
    "expert": "expert:depth=2,time_limit=none",
}


@pytest.mark.parametrize("name", OURS)
def test_same_seed_same_choices(name: str) -> None:
    spec = DETERMINISTIC_SPECS.get(name, fast_spec(name))
    runs = [play_moves(make_agent(spec, seed=7), 3, board_size=5) for _ in range(2)]
    assert runs[0] == runs[1]
    agent = make_agent(spec, seed=7)
    play_moves(agent, 3, board_size=5)
    agent.reset(seed=7)
    assert play_moves(agent, 3, board_size=5) == runs[0]


@pytest.mark.parametrize("enabled", [True, False])
def test_collector_paused_then_left_as_found(enabled: bool) -> None:
    was_enabled = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        outer = pause_collector()
        inner = pause_collector()
        assert not gc.isenabled()
        resume_collector(inner)
        assert not gc.isenabled()  # the outer pause still holds
        resume_collector(outer)
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was_enabled else gc.disable)()

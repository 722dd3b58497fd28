"""The agent interface: spec parsing, make_agent errors, every agent legal and reproducible."""

from __future__ import annotations

import dataclasses
import gc
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents import Agent, SpecError, agent_names, make_agent, parse_spec, register
from agents.registry import AGENT_TABLE, built_agent
from agents.seeded import SeededAgent
from agents.timing import ClockedAgent, pause_collector, resume_collector
from agents.trap.search import ExpectiminimaxAgent, SearchSettings
from tests.support.positions import random_position
from trap_env.agent import UnsupportedGameError, check_supports, time_limit_of
from trap_env.games import game_names
from trap_env.trap import core
from trap_env.trap.core import GameConfig, Phase, State

FAST_OPTIONS = {
    name: "depth=2,time_limit=1"
    for name in (
        "reference", "expectiminimax", "alphabeta", "minimax", "easy", "medium", "hard", "expert"
    )
}
# Weights (ppo: torch), a program, OpenSpiel: each tested with its code.
NEEDS_EXTRAS = {"ppo", "mcts", "exec", "openspiel-mcts"}
SOLVED_BOARDS_ONLY = {"perfect"}  # its own tests: tests/agents/trap/test_solve.py
OURS = [name for name in agent_names("trap") if name not in NEEDS_EXTRAS | SOLVED_BOARDS_ONLY]


def fast_spec(name: str) -> str:
    options = FAST_OPTIONS.get(name)
    return f"{name}:{options}" if options else name


def test_every_agent_of_the_issue_is_registered() -> None:
    expected = {"random", "greedy", "is", "ais", "ocls", "minimax", "alphabeta",
                "expectiminimax", "easy", "medium", "hard", "expert"}
    assert expected <= set(agent_names("trap"))


@pytest.mark.parametrize(
    "call",
    [
        lambda: make_agent("random"),
        lambda: agent_names(),
        lambda: register("test_no_game"),
    ],
    ids=["make_agent", "agent_names", "register"],
)
def test_the_table_defaults_to_no_game(call: Any) -> None:
    """The table names no game for its caller: without one, a one-line error names them."""
    games = ", ".join(map(repr, game_names()))  # the shipped ones, and the tests' strangers
    with pytest.raises(TypeError, match=rf"needs game=: one of {games}, or a game's path"):
        call()


@pytest.mark.parametrize(
    "spec, name, options",
    [
        ("greedy", "greedy", {}),
        (" greedy : heuristic = ocls ", "greedy", {"heuristic": "ocls"}),
        (
            "expectiminimax:depth=4,time_limit=1.0,weights=voronoi=0;room=1",
            "expectiminimax",
            {"depth": "4", "time_limit": "1.0", "weights": "voronoi=0;room=1"},
        ),
    ],
)
def test_parse_spec_splits_the_texts(spec: str, name: str, options: dict[str, str]) -> None:
    assert parse_spec(spec) == (name, options)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("nosuchagent", "known agents: .*expectiminimax"),
        ("greedy:heuristic=nope", "known: ais, eval, is, ocls"),
        ("expectiminimax:speed=3", "takes no option 'speed'"),
        ("expectiminimax:depth=0", "depth must be"),
        ("greedy:heuristic", "not key=value"),
        ("expectiminimax:depth=2,depth=3", "'depth' is given twice"),
        ("no.such.module.Agent", "cannot import"),
        # Booleans are true or false, not any text.
        ("expectiminimax:throw_filter=no", "'throw_filter' .*true or false, got 'no'"),
        ("ppo:deterministic=no", "'deterministic' .*true or false, got 'no'"),
        ("expectiminimax:throw_filter=1", "true or false, got '1'"),
        # Integers are integers; none only where None is allowed.
        ("expectiminimax:depth=1.5", "'depth' .*an integer or none, got '1.5'"),
        ("expectiminimax:throw_radius=none", "'throw_radius' .*an integer, got 'none'"),
        ("expectiminimax:chance_reduction=true", "an integer, got 'true'"),
        ("random:seed=x", "'seed' .*an integer or none"),
        ("expectiminimax:move_share=lots", "'move_share' .*a number, got 'lots'"),
        ("expectiminimax:move_share=nan", "a number, got 'nan'"),
        ("expectiminimax:clock=gpu", "one of 'cpu', 'wall'"),
        ("expectiminimax:weights=speed=1", "weights item 'speed=1'"),
        ("expectiminimax:settings=fast", "SearchSettings .*cannot give"),
        # inf reads as none where none is allowed; a limit the clocks cannot hold is refused.
        ("expectiminimax:time_limit=inf", "give a time_limit, a depth, or both"),
        ("expectiminimax:time_limit=2000000", "at most 86400 seconds"),
        ("expectiminimax:time_limit=-inf,depth=2", "time_limit must be > 0"),
        ("expectiminimax:depth=inf", "an integer or none, got 'inf'"),
        # Experiment switches are gone from the agent (Search keeps them).
        ("expectiminimax:table=false", "takes no option 'table'"),
        # A model file where its agent's spec goes: the spec that plays it.
        ("model.zip", "unknown agent 'model.zip': .* 'ppo:path=model.zip'"),
        ("runs/x/best.npz", "'mcts:path=runs/x/best.npz'"),
        ("expectiminimax:star2=false", "takes no option 'star2'"),
    ],
)
def test_bad_specs_say_what_exists(spec: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        make_agent(spec, game="trap")


def test_a_constructor_that_raises_is_a_spec_error_naming_the_spec() -> None:
    spec = "tests.support.faulty_agents.RaisingConstructorAgent"
    with pytest.raises(RuntimeError):
        make_agent(spec, game="trap")  # the policy's own error, for a caller that wants it
    message = f"^building agent '{spec}' raised RuntimeError: cannot build this agent$"
    with pytest.raises(SpecError, match=message):
        built_agent(spec, game="trap")


@pytest.mark.parametrize(
    "spec, time_limit, depth",
    [
        ("expectiminimax:time_limit=inf,depth=3", None, 3),
        ("expectiminimax:time_limit=1e400,depth=3", None, 3),
        ("expectiminimax:time_limit=none,depth=3", None, 3),
        ("expectiminimax:time_limit=1,depth=none", 1.0, None),
        ("expectiminimax:time_limit=2", 2.0, None),
    ],
)
def test_inf_reads_as_no_limit(spec: str, time_limit: float | None, depth: int | None) -> None:
    agent = make_agent(spec, game="trap")
    assert isinstance(agent, ExpectiminimaxAgent)
    assert (agent.settings.time_limit, agent.settings.depth) == (time_limit, depth)


def test_every_documented_spec_builds() -> None:
    for spec in [
        "expectiminimax:time_limit=1.0",
        "expectiminimax:depth=4,time_limit=none",
        "expectiminimax:depth=4,time_limit=none,weights=voronoi=0",
        "expectiminimax:time_limit=0.25,weights=voronoi=0.35;voronoi_decay=0.8",
        "expectiminimax:throw_radius=1,chance_reduction=0,clock=wall,throw_filter=false",
        "alphabeta:time_limit=1.0",
        "minimax:depth=3",
        "easy", "medium", "hard:time_limit=2", "expert",
    ]:  # fmt: skip
        assert isinstance(make_agent(spec, game="trap"), ExpectiminimaxAgent), spec


def test_dotted_path_builds_a_user_agent() -> None:
    agent = make_agent("agents.trap.heuristics.GreedyAgent:heuristic=is", seed=1, game="trap")
    assert isinstance(agent, Agent)
    assert isinstance(make_agent("agents.trap.heuristics.greedy:heuristic=is", game="trap"), Agent)


def unannotated_factory(seed=None):  # type: ignore[no-untyped-def]
    """A function that says nothing of what it returns."""
    return SeededAgent(seed)


@pytest.mark.parametrize(
    "spec",
    [
        "os.getcwd",  # a builtin function: never called
        "math.pi",  # not callable
        "trap_env.agent.SpecError",  # a class, not an agent
        "agents.registry.agent_names",  # annotated to return a list
        f"{__name__}.unannotated_factory",  # may return anything: not called
    ],
)
def test_dotted_path_to_a_non_agent_is_refused(spec: str) -> None:
    with pytest.raises(SpecError, match="is not an agent"):
        make_agent(spec, game="trap")


def test_a_factory_whose_product_is_no_agent_is_refused() -> None:
    @register("test_not_an_agent", game="trap")
    def not_an_agent(seed: int | None = None) -> Any:
        return "a string"

    with pytest.raises(SpecError, match="built a str, not an agent"):
        make_agent("test_not_an_agent", game="trap")


class TypedAgent(SeededAgent):
    """A user's agent with one option of each type a spec can give."""

    def __init__(  # type: ignore[no-untyped-def]
        self,
        flag: bool = False,
        count: int = 1,
        limit: float | None = 1.0,
        mode: Literal["fast", "slow"] = "fast",
        path: Path | None = None,
        label: str = "",
        loose=None,  # untyped on purpose
        seed: int | None = None,
    ) -> None:
        super().__init__(seed)
        self.options = {"flag": flag, "count": count, "limit": limit, "mode": mode,
                        "path": path, "label": label, "loose": loose}  # fmt: skip

    def select_action(self, state: State) -> int:
        return core.legal_actions(state)[0]


register("test_typed", game="trap")(TypedAgent)


@pytest.mark.parametrize(
    "options, expected",
    [
        ("flag=TRUE,count=-3,limit=inf", {"flag": True, "count": -3, "limit": None}),
        ("limit=0.5,mode=slow,path=a/b", {"limit": 0.5, "mode": "slow", "path": Path("a/b")}),
        ("label=1.5,loose=1.5", {"label": "1.5", "loose": 1.5}),  # untyped: read as before
        ("loose=none,label=none", {"loose": None, "label": "none"}),
    ],
)
def test_users_agents_are_parsed_by_their_annotations(
    options: str, expected: dict[str, object]
) -> None:
    agent = make_agent(f"test_typed:{options}", game="trap")
    assert isinstance(agent, TypedAgent)
    assert {key: agent.options[key] for key in expected} == expected


@pytest.mark.parametrize(
    "options, message",
    [
        ("flag=yes", "'flag' of agent 'test_typed' takes true or false, got 'yes'"),
        ("count=1.5", "'count' .* takes an integer, got '1.5'"),
        ("count=none", "takes an integer, got 'none'"),
        ("limit=soon", "takes a number or none \\(or inf\\), got 'soon'"),
        ("mode=medium", "takes one of 'fast', 'slow', got 'medium'"),
        ("count=" + "7" * 5000, "takes an integer of at most 100 digits, got '7777.* characters"),
        ("loose=" + "7" * 5000, "takes an integer of at most 100 digits"),
        ("count=\u0663", "takes an integer, got '\u0663'"),  # an Arabic-Indic three
        ("count=\u00b2", "takes an integer, got '\u00b2'"),
        ("limit=\u0663", "takes a number or none"),
    ],
)
def test_users_agents_refuse_values_their_types_do_not_allow(options: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        make_agent(f"test_typed:{options}", game="trap")


@dataclasses.dataclass(frozen=True)
class UserSettings:
    """A user's settings record."""

    depth: int = 1
    greedy: bool = False


class RecordAgent(SeededAgent):
    """A user's agent that takes a settings record."""

    def __init__(
        self, settings: UserSettings = UserSettings(depth=5), seed: int | None = None
    ) -> None:
        super().__init__(seed)
        self.settings = settings

    def select_action(self, state: State) -> int:
        return core.legal_actions(state)[0]


def test_a_settings_record_gives_its_fields_as_options() -> None:
    agent = make_agent(f"{__name__}.RecordAgent:greedy=true", game="trap")
    assert isinstance(agent, RecordAgent)
    assert agent.settings == UserSettings(depth=5, greedy=True)  # from the default record
    with pytest.raises(SpecError, match=r"'greedy' .*true or false"):
        make_agent(f"{__name__}.RecordAgent:greedy=1", game="trap")


def test_overrides_win_over_the_spec() -> None:
    agent = make_agent("expectiminimax:depth=2", depth=3, time_limit=None, game="trap")
    assert isinstance(agent, ExpectiminimaxAgent)
    assert agent.settings.depth == 3 and agent.settings.time_limit is None
    base = SearchSettings(depth=2, time_limit=None, throw_radius=1)
    agent = make_agent("expectiminimax:depth=4", settings=base, game="trap")
    assert isinstance(agent, ExpectiminimaxAgent)
    assert agent.settings == dataclasses.replace(base, depth=4)


def test_presets_take_expectiminimax_options() -> None:
    agent = make_agent("hard:throw_radius=1,time_limit=2", game="trap")
    assert isinstance(agent, ExpectiminimaxAgent)
    assert agent.settings.time_limit == 2 and agent.game.throw_radius == 1
    with pytest.raises(SpecError, match="speed"):
        make_agent("hard:speed=3", game="trap")


SPEC_TEXT = st.text(alphabet="abcdefghilmnoprstuwxyz_.:=,;0123456789+-e ", max_size=40)
OPTION_NAMES = ["depth", "time_limit", "throw_filter", "throw_radius", "chance_reduction",
                "move_share", "deterministic_throws", "weights", "clock", "seed", "heuristic",
                "settings", "speed"]  # fmt: skip
OPTION_TEXT = st.sampled_from(
    ["true", "false", "no", "none", "inf", "-inf", "nan", "1e400", "0", "1", "-1", "2", "1.5",
     "0.5", "cpu", "wall", "voronoi=0;room=1", "room", "is", "", "x"]
) | st.text(alphabet="abcdefinortuw0123456789.+-=;e", max_size=12)  # fmt: skip


@given(spec=SPEC_TEXT)
def test_parse_spec_fuzz(spec: str) -> None:
    try:
        name, options = parse_spec(spec)
    except SpecError:
        return
    assert name and all(isinstance(value, str) for value in options.values())


FUZZ_NAMES = ["random", "greedy", "is", "expectiminimax", "alphabeta", "minimax", "easy",
              "expert", "os.getcwd", "agents.trap.heuristics.GreedyAgent", "trap_env.agent.Agent",
              "agents.trap.heuristics.greedy", "nosuch", "no.such.Agent"]  # fmt: skip


@given(
    name=st.sampled_from(FUZZ_NAMES),
    options=st.lists(st.tuples(st.sampled_from(OPTION_NAMES), OPTION_TEXT), max_size=4),
)
def test_make_agent_fuzz_gives_an_agent_or_a_spec_error(
    name: str, options: list[tuple[str, str]]
) -> None:
    spec = name + ":" + ",".join(f"{key}={value}" for key, value in options)
    try:
        agent = make_agent(spec, seed=0, game="trap")
    except SpecError:
        return
    assert isinstance(agent, Agent)


def test_spec_string_and_python_build_the_same_agent() -> None:
    spec = "expectiminimax:depth=3,time_limit=none,throw_filter=false,clock=wall"
    agent = make_agent(spec, game="trap")
    assert isinstance(agent, ExpectiminimaxAgent)
    assert agent.settings == SearchSettings(
        depth=3, time_limit=None, throw_filter=False, clock="wall"
    )


@pytest.mark.parametrize(
    "code",
    ["import agents; agents.make_agent('random', game='trap')", "import agents.arena.match"],
)
def test_light_paths_import_neither_the_search_nor_torch(code: str) -> None:
    check = (
        f"import sys; {code}; "
        "loaded = [m for m in ('agents.search.expectimax', 'torch') if m in sys.modules]; "
        "assert not loaded, loaded"
    )
    subprocess.run([sys.executable, "-c", check], check=True)


def test_check_supports_asks_the_agent() -> None:
    check_supports(make_agent("random", game="trap"), GameConfig(1000))  # no check_game: any game
    agent = make_agent("expectiminimax:time_limit=1", game="trap")
    check_supports(agent, GameConfig(7))
    with pytest.raises(UnsupportedGameError, match="boards up to"):
        check_supports(agent, GameConfig(1000))


@pytest.mark.parametrize(
    ("game", "name"),
    [(game, name) for game, table in AGENT_TABLE.items() for name in table
     if name != "ppo"],  # a model file
)
def test_an_agent_says_its_clock_if_and_only_if_it_decides_on_one(game: str, name: str) -> None:
    """What a ladder asks of its rungs (trap_env.agent.time_limit_of): no clock, or it says."""
    agent = make_agent(name, game=game, seed=0)
    assert (time_limit_of(agent) is not None) == isinstance(agent, ClockedAgent)
    if isinstance(agent, ClockedAgent):  # without a clock, it stops at a depth or budget
        bound = "simulations" if name == "mcts" else "depth"
        assert time_limit_of(make_agent(name, game=game, time_limit=None, **{bound: 2})) is None


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
    phase = Phase.THROW if throw else None
    state = random_position(random.Random(seed), board_size, 3 * turns, phase=phase)
    agent = make_agent(fast_spec(name), seed=seed, game="trap")
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
    runs = [play_moves(make_agent(spec, seed=7, game="trap"), 3, board_size=5) for _ in range(2)]
    assert runs[0] == runs[1]
    agent = make_agent(spec, seed=7, game="trap")
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


NUMBER_LIKE = st.characters(categories=["Nd", "No"]) | st.sampled_from("+-")
"""Characters of numbers in any script, and signs."""


@given(st.text(NUMBER_LIKE, min_size=1, max_size=60))
def test_only_ascii_digits_are_numbers_in_specs_and_rules(text: str) -> None:
    from agents.options import _loose_value, rule_pair

    is_integer = re.fullmatch(r"[+-]?[0-9]{1,100}", text) is not None
    loose = _loose_value(text)
    assert isinstance(loose, int) == is_integer
    assert not isinstance(loose, float) or text.isascii()
    assert isinstance(rule_pair(f"size={text}")[1], int) == is_integer


def test_a_rule_with_too_many_digits_is_one_line_naming_the_limit() -> None:
    import argparse

    from agents.options import rule_pair

    with pytest.raises(argparse.ArgumentTypeError) as caught:
        rule_pair("board_size=" + "9" * 5000)
    message = str(caught.value)
    assert "'board_size' takes an integer of at most 100 digits" in message and len(message) < 200

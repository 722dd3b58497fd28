"""The pruned expectiminimax against the plain oracle, forced wins, time budget, stats."""

from __future__ import annotations

import gc
import math
import random
import time
from collections.abc import Callable

import pytest

from agents import make_agent
from agents.search.expectimax import Search
from agents.timing import Clock, decision_budget, decision_deadline
from agents.trap.search import (
    MAX_BOARD_SIZE,
    ExpectiminimaxAgent,
    SearchSettings,
    SearchStats,
    check_decision_state,
)
from agents.trap.search_game import TrapGame
from tests.conftest import CollectionWatch
from tests.support.positions import random_position
from tests.support.search_oracle import expectimax
from trap_env.agent import UnsupportedGameError
from trap_env.trap import core
from trap_env.trap.core import Phase, State

CONFIGS = [
    {},
    {"use_table": False},
    {"star2": False},
    {"use_table": False, "star2": False},
    {"star1": False, "star2": False},
]
MAX_DEPTH = {3: 5, 4: 4, 5: 3}
CUT_SHORT = "...../.0.x./...../..x1./..... 0 move - 2"


def positions(seed: int, count: int) -> list[State]:
    rng = random.Random(seed)
    return [
        random_position(rng, rng.choice((3, 4, 5)), rng.randint(0, 24)) for _ in range(count)
    ]


def same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.fixture(scope="module")
def oracle_cases() -> list[tuple[State, int, float]]:
    """(position, depth, plain expectimax value): 60 positions at every depth up to the max."""
    return [
        (state, depth, expectimax(state, depth))
        for state in positions(seed=11, count=60)
        for depth in range(MAX_DEPTH[state.board_size] + 1)
    ]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: ",".join(c) or "all-pruning")
def test_pruned_search_equals_plain_expectimax(
    config: dict[str, bool], oracle_cases: list[tuple[State, int, float]]
) -> None:
    for state, depth, want in oracle_cases:
        got = Search(TrapGame(throw_filter=False), **config).value(state, depth)
        assert same(got, want), (core.to_text(state), depth, got, want)


def test_one_search_object_stays_exact_across_depths(
    oracle_cases: list[tuple[State, int, float]],
) -> None:
    """The table carried from shallower depths (as in iterative deepening) changes nothing."""
    searches: dict[State, Search[State]] = {}
    for state, depth, want in oracle_cases:
        search = searches.setdefault(state, Search(TrapGame(throw_filter=False)))
        assert same(search.value(state, depth), want)


def test_best_action_reaches_the_root_value(
    oracle_cases: list[tuple[State, int, float]],
) -> None:
    for state, depth, want in oracle_cases[::7]:
        if depth == 0:
            continue
        value, action = Search(TrapGame(throw_filter=False)).best(state, depth)
        assert same(value, want)
        child = core.apply(state, action)
        child_value = expectimax(child, depth - 1)
        assert same(value, child_value if child.player == state.player else -child_value)


def test_deterministic_throws_match_the_deterministic_oracle() -> None:
    for state in positions(seed=14, count=30):
        for depth in range(MAX_DEPTH[state.board_size] + 1):
            want = expectimax(state, depth, deterministic=True)
            game = TrapGame(throw_filter=False, deterministic_throws=True)
            assert same(Search(game).value(state, depth), want)


@pytest.mark.parametrize("reduction", [1, 2])
@pytest.mark.parametrize("config", CONFIGS[:3], ids=lambda c: ",".join(c) or "all-pruning")
def test_chance_reduction_matches_the_reduced_oracle(
    config: dict[str, bool], reduction: int
) -> None:
    for state in positions(seed=15, count=40):
        for depth in range(MAX_DEPTH[state.board_size] + 1):
            want = expectimax(state, depth, reduction=reduction)
            search = Search(TrapGame(throw_filter=False), chance_reduction=reduction, **config)
            assert same(search.value(state, depth), want), (core.to_text(state), depth)


def test_leaf_values_are_the_outcomes_applied_and_valued() -> None:
    game = TrapGame()
    checked = 0
    for state in positions(seed=7, count=300):
        if state.phase is not Phase.THROW:
            continue
        for target in core.legal_actions(state):
            landing = core.apply(state, target)
            for player in (0, 1):
                expected = []
                for cell, p in game.chance_outcomes(landing):
                    child = core.apply(landing, cell)
                    value = (
                        game.terminal_value(child, player)
                        if game.is_terminal(child)
                        else game.evaluate(child, player)
                    )
                    expected.append((p, value))
                assert list(game.leaf_values(landing, player)) == expected
                checked += 1
    assert checked > 500


def test_a_full_landing_memo_keeps_answering_and_is_cleared_only_between_searches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Clearing a full memo mid-search could overrun the budget between two clock checks.
    monkeypatch.setattr("agents.trap.search_game.MAX_LANDINGS", 8)
    game = TrapGame()
    landings = [
        core.apply(state, target)
        for state in positions(seed=3, count=60)
        if state.phase is Phase.THROW and state.board_size == 5  # a new size clears the memo
        for target in core.legal_actions(state)[:2]
    ]
    assert len(landings) > 8
    for landing in landings:
        assert game.chance_outcomes(landing) == TrapGame().chance_outcomes(landing)
    assert len(game._landings) == 8
    game.make_room()
    assert not game._landings
    assert all(game.chance_outcomes(landing) for landing in landings)


def test_star_pruning_visits_fewer_nodes() -> None:
    state = core.initial_state()
    counts = {}
    for name, config in {"plain": {"star1": False, "star2": False}, "star1": {"star2": False},
                         "star2": {}}.items():
        search = Search(TrapGame(), use_table=False, **config)
        search.value(state, 3)
        counts[name] = search.nodes
    assert counts["star2"] <= counts["star1"] < counts["plain"]


# Positions found by the oracle: the player to act wins for sure within one turn
# (value 1 at depth 2) or two turns (value 1 at depth 6, below 1 at depth 2).
WINS_IN_ONE_TURN = [
    ".0.x/...x/.x.1/.xxx 0 move - 8",
    "xxx./.x0./...x/.x.1 0 move - 6",
    "..x./..0./x..x/..x1 0 move - 6",
    "0x.x/..xx/.x1x/x... 1 move - 7",
    "...../...../..0../x..../1x... 0 move - 4",
    ".../0.x/..1 0 move - 2",
    "...../...../...0./x..../1x... 0 move - 4",  # only the step to (3,2) makes it sure
]
WINS_IN_TWO_TURNS = [
    "x.x./.x0x/xx../.1x. 0 move - 8",
    "...xx/.0.x./x...x/1..../.x... 0 move - 6",
    "...x/x.x./xxx./.1.0 0 move - 8",
]


def test_win_tables_are_what_they_claim() -> None:
    for text in WINS_IN_ONE_TURN:
        assert Search(TrapGame(throw_filter=False)).value(core.from_text(text), 2) == 1.0
    for text in WINS_IN_TWO_TURNS:
        state = core.from_text(text)
        assert Search(TrapGame(throw_filter=False)).value(state, 2) < 1.0
        assert Search(TrapGame(throw_filter=False)).value(state, 6) == 1.0


def play_out(state: State, agent: object, turns: int, seed: int) -> State:
    """Let ``agent`` play the side to act against a random opponent for ``turns`` turns."""
    rng = random.Random(seed)
    opponent = make_agent("random", seed=seed, game="trap")
    hero = state.player
    for _ in range(2 * turns):
        for _phase in (Phase.MOVE, Phase.THROW):
            if core.is_terminal(state):
                return state
            actor = agent if state.player == hero else opponent
            state = core.apply(state, actor.select_action(state))  # type: ignore[attr-defined]
        if core.is_terminal(state):
            return state
        state = core.apply(state, core.sample_landing(state, rng))
    return state


SEARCH_SPECS = ["expectiminimax:time_limit=2", "expectiminimax:depth=6,time_limit=none", "hard",
                "expert"]


@pytest.mark.parametrize("spec", SEARCH_SPECS)
@pytest.mark.parametrize("text", WINS_IN_ONE_TURN + WINS_IN_TWO_TURNS)
def test_search_agents_convert_forced_wins(spec: str, text: str) -> None:
    state = core.from_text(text)
    turns = 1 if text in WINS_IN_ONE_TURN else 2
    for seed in range(3):
        agent = make_agent(spec, seed=seed, game="trap")
        final = play_out(state, agent, turns, seed)
        assert final.winner == state.player, (spec, text, seed, core.to_ascii(final))


@pytest.mark.parametrize(
    ("clock", "timer"), [("cpu", time.process_time), ("wall", time.perf_counter)]
)
@pytest.mark.parametrize("time_limit", [0.1, 0.3])
def test_turn_never_overruns_its_time_limit(
    time_limit: float, clock: Clock, timer: Callable[[], float]
) -> None:
    agent = ExpectiminimaxAgent(SearchSettings(time_limit=time_limit, clock=clock))

    def decide(state: State) -> tuple[State, float]:
        started = timer()
        action = agent.select_action(state)
        seconds = timer() - started
        return core.apply(state, action), seconds

    rng = random.Random(3)
    state = core.initial_state()
    for _ in range(4):
        # A turn's time is its two decisions', as agents.arena.match counts it: a garbage
        # collection that falls due during a decision runs between them.
        state, move_time = decide(state)
        if core.is_terminal(state):
            break
        state, throw_time = decide(state)
        assert move_time + throw_time < time_limit
        state = core.apply(state, core.sample_landing(state, rng))
        if core.is_terminal(state):
            break
        state = core.apply(state, rng.choice(core.legal_actions(state)))
        if core.is_terminal(state):
            break
        state = core.apply(state, rng.choice(core.legal_actions(state)))
        state = core.apply(state, core.sample_landing(state, rng))
        if core.is_terminal(state):
            break


def test_last_search_reports_the_decision() -> None:
    agent = ExpectiminimaxAgent(SearchSettings(time_limit=None, depth=3))
    agent.select_action(core.initial_state())
    stats = agent.last_search
    assert isinstance(stats, SearchStats)
    assert stats.depth == 3 and stats.nodes > 0 and stats.seconds > 0


def test_no_garbage_collection_runs_during_a_decision(collection_watch: CollectionWatch) -> None:
    agent = ExpectiminimaxAgent(SearchSettings(time_limit=None, depth=3))
    state = core.initial_state()
    collection_watch.active = True
    agent.select_action(state)
    collection_watch.active = False
    assert collection_watch.collections == []
    assert gc.isenabled()


def test_tiny_budget_still_answers_legally() -> None:
    agent = ExpectiminimaxAgent(SearchSettings(time_limit=0.001))
    state = core.initial_state()
    assert agent.select_action(state) in core.legal_actions(state)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"time_limit": None, "depth": None}, "time_limit, a depth"),
        ({"time_limit": -1.0}, "time_limit must be > 0"),
        ({"time_limit": float("inf")}, "at most 86400 seconds"),
        ({"time_limit": 1e7}, "at most 86400 seconds"),
        ({"time_limit": "1"}, "time_limit must be"),
        ({"time_limit": True}, "time_limit must be"),
        ({"depth": 0}, "depth must be an integer >= 1 or None"),
        ({"depth": 2.0}, "depth must be an integer"),
        ({"depth": True}, "depth must be an integer"),
        ({"throw_radius": 0}, "throw_radius must be an integer >= 1"),
        ({"chance_reduction": -1}, "chance_reduction must be an integer >= 0"),
        ({"move_share": 1.5}, "move_share"),
        ({"throw_filter": "no"}, "throw_filter must be True or False"),
        ({"deterministic_throws": 1}, "deterministic_throws must be True or False"),
        ({"weights": "voronoi=0"}, "weights must be a Weights"),
        ({"clock": "gpu"}, "clock must be one of"),
    ],
)
def test_bad_settings_say_what_is_allowed(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SearchSettings(**options)  # type: ignore[arg-type]


def test_the_agent_takes_a_settings_record() -> None:
    with pytest.raises(TypeError, match="settings must be a SearchSettings"):
        ExpectiminimaxAgent({"depth": 2})  # type: ignore[arg-type]
    settings = SearchSettings(depth=2, time_limit=None, throw_radius=1, chance_reduction=0)
    agent = ExpectiminimaxAgent(settings)
    assert agent.settings is settings
    assert agent.game.throw_radius == 1 and agent.search.chance_reduction == 0
    assert agent.search.star1 and agent.search.star2  # Star2's default: see Search


def test_check_game_refuses_boards_past_the_limit() -> None:
    agent = ExpectiminimaxAgent()
    agent.check_game(core.GameConfig(3))
    agent.check_game(core.GameConfig(MAX_BOARD_SIZE))
    with pytest.raises(UnsupportedGameError, match="boards up to 100x100, not 101x101"):
        agent.check_game(core.GameConfig(MAX_BOARD_SIZE + 1))


def test_start_decision_resets_the_per_decision_state_and_plans_from_the_table() -> None:
    state = core.from_text(CUT_SHORT)
    search = Search(TrapGame())
    assert search.start_decision(state) is None
    _, action = search.best(state, 3)
    assert search.nodes > 0 and search.killers
    assert search.start_decision(state) == action
    assert search.nodes == 0 and search.killers == []
    after_move = core.apply(state, action)
    planned_throw = search.start_decision(after_move)  # the throw the move's search stored
    assert planned_throw in core.legal_actions(after_move)


def test_decisions_go_through_start_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent starts each decision through the search's public method, not by reaching in."""
    calls = []
    original = Search.start_decision

    def spy(self: Search[State], state: State) -> int | None:
        calls.append(state)
        return original(self, state)

    monkeypatch.setattr(Search, "start_decision", spy)
    agent = ExpectiminimaxAgent(SearchSettings(time_limit=None, depth=2))
    state = core.initial_state()
    agent.select_action(state)
    assert calls == [state]


def test_landing_state_is_refused() -> None:
    state = core.apply(core.apply(core.initial_state(), 10), 24)
    with pytest.raises(ValueError, match="MOVE or THROW"):
        ExpectiminimaxAgent(SearchSettings(depth=2)).select_action(state)
    with pytest.raises(ValueError, match="decision node"):
        Search(TrapGame()).value(state, 2)


def test_iterate_yields_the_requested_depths() -> None:
    state = core.from_text("..0../...../...../...../..1.. 0 move - 0")
    depths = [result.depth for result in Search(TrapGame()).iterate(state, 6, start=2, step=2)]
    assert depths == [2, 4, 6]
    with pytest.raises(ValueError, match="start and step"):
        next(Search(TrapGame()).iterate(state, 6, step=0))



def value_of(state: State, action: int, depth: int) -> float:
    """The depth-``depth`` value of playing ``action`` in ``state``, for its player."""
    child = core.apply(state, action)
    value = Search(TrapGame()).value(child, depth - 1)
    return value if child.player == state.player else -value


@pytest.mark.parametrize("nodes", [300, 700, 1500, 3000, 6000])
def test_an_iteration_cut_short_answers_at_least_as_well_as_the_previous_best(
    nodes: int,
) -> None:
    state = core.from_text(CUT_SHORT)
    search = Search(TrapGame())
    *finished, last = search.iterate(state, 8, lambda: search.nodes >= nodes)
    assert all(result.complete for result in finished)
    assert last.depth == finished[-1].depth + 1
    if last.complete:
        return
    assert same(last.value, value_of(state, last.action, last.depth))
    previous_best = value_of(state, finished[-1].action, last.depth)
    assert last.value >= previous_best - 1e-12


def test_an_iteration_cut_before_its_first_action_yields_nothing() -> None:
    state = core.from_text(CUT_SHORT)
    depth_three_nodes = list(Search(TrapGame()).iterate(state, 3))[-1].nodes
    search = Search(TrapGame())
    results = list(search.iterate(state, 8, lambda: search.nodes > depth_three_nodes + 1))
    assert [(result.depth, result.complete) for result in results] == [
        (1, True), (2, True), (3, True)
    ]


# --- Rule variants and large boards (the kernel's decay and geometry) ---------------------


@pytest.mark.parametrize("decay", [0, 137, 1000])
def test_pruned_search_follows_the_states_decay(decay: int) -> None:
    game = TrapGame(throw_filter=False)  # one game for every decay: its memo must not mix them
    for state in positions(seed=21, count=20):
        state = state._replace(decay=decay)
        for depth in range(MAX_DEPTH[state.board_size]):
            want = expectimax(state, depth)
            got = Search(game).value(state, depth)
            assert same(got, want), (core.to_text(state), depth, got, want)


def test_the_first_move_on_a_100x100_board_keeps_its_budget() -> None:
    """No table grows as N**4: the agent answers at once rather than building tables."""
    agent = make_agent("expectiminimax:time_limit=1.0", seed=0, game="trap")
    state = core.initial_state(core.GameConfig(100))
    started = time.process_time()
    move = agent.select_action(state)
    assert time.process_time() - started < 1.0
    assert move in core.legal_actions(state)
    thrown = core.apply(state, move)
    started = time.process_time()
    assert agent.select_action(thrown) in core.legal_actions(thrown)
    assert time.process_time() - started < 1.0



# --- The turn's budget (shared with other agents that search under a clock) --------------


@pytest.mark.parametrize("time_limit", [0.0, 0.05, 0.3, 1.0, 5.0])
@pytest.mark.parametrize("move_share", [0.1, 0.6, 0.9])
def test_a_turns_two_decisions_stay_within_its_limit(time_limit: float, move_share: float) -> None:
    move = decision_budget(time_limit, move_share, True, None)
    assert move == pytest.approx(time_limit * move_share)
    for move_seconds in (0.0, move, time_limit, 2 * time_limit):
        throw = decision_budget(time_limit, move_share, False, move_seconds)
        assert throw is not None and throw >= 0.0
        assert min(move_seconds, time_limit) + throw <= time_limit + 1e-12  # float rounding
    unplanned = decision_budget(time_limit, move_share, False, None)
    assert unplanned == pytest.approx(time_limit * (1 - move_share))
    for budget in (move, unplanned):
        assert budget is not None and decision_deadline(10.0, budget) < 10.0 + budget
    assert decision_budget(None, move_share, True, None) is None


def test_a_state_that_asks_no_decision_is_refused() -> None:
    over = core.from_text("0x.../xx.../...../...../....1 0 move - 9")
    thrown = core.apply(core.initial_state(core.GameConfig(5)), 7)
    in_the_air = core.apply(thrown, 12)
    for state in (over, in_the_air):
        with pytest.raises(ValueError, match="needs a MOVE or THROW state of a game in progress"):
            check_decision_state(state)
    check_decision_state(thrown)

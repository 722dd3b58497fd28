"""Tests of agents.arena.match: one game, its seeds, its faults, its replay."""

from __future__ import annotations

import gc
import json
import random
from collections import Counter

import pytest

from agents import make_agent
from agents.arena.match import (
    FAULTS,
    REASONS,
    chance_draw,
    derive_seed,
    keyed_uniform,
    play_game,
    replay,
)
from agents.arena.replays import replay_record
from tests.conftest import CollectionWatch
from tests.support import faulty_agents
from tests.support.far_throws import far_target
from trap_env.trap.core import (
    DEFAULT_DECAY,
    NO_PLAYER,
    GameConfig,
    Phase,
    State,
    apply,
    default_turn_limit,
    initial_state,
    legal_actions,
)
from trap_env.trap.game import GAME as TRAP


def random_pair(seed: int = 0) -> list:
    return [
        make_agent("random", game="trap", seed=seed),
        make_agent("random", game="trap", seed=seed + 1),
    ]


def test_same_seed_same_game_whatever_the_agents_were_seeded_with():
    first = play_game(random_pair(0), seed=11, params={"board_size": 5}, game="trap")
    second = play_game(random_pair(99), seed=11, params={"board_size": 5}, game="trap")
    assert (first.actions, first.winner, first.turns) == (
        second.actions,
        second.winner,
        second.turns,
    )
    assert first.reason in REASONS
    assert json.loads(json.dumps(first.to_dict())) == first.to_dict()


def test_different_seeds_give_different_games():
    games = {
        tuple(play_game(random_pair(), seed=s, game="trap", params={"board_size": 5}).actions)
        for s in range(5)
    }
    assert len(games) == 5


def test_normal_game_ends_with_a_trapped_player_and_replays_exactly():
    result = play_game(random_pair(), seed=4, params={"board_size": 5}, game="trap")
    assert result.reason == "trapped" and result.winner in (0, 1) and result.detail == ""
    states = list(replay(result.actions, game=result.game, params=result.params))
    final, last_throw = states[-1]
    assert final.winner == result.winner and final.turn == result.turns
    assert states[0][1] is None and last_throw is not None
    assert all(state.phase is Phase.MOVE for state, _ in states[:-1])


def test_truncation_is_a_draw_after_max_turns():
    result = play_game(random_pair(), seed=1, params={"board_size": 7}, max_turns=3, game="trap")
    assert (result.winner, result.reason, result.turns) == (NO_PLAYER, "truncated", 3)
    assert default_turn_limit(7) == 196


def test_derive_seed_is_stable_and_spreads():
    assert derive_seed(0, "a", 1) == derive_seed(0, "a", 1)
    assert len({derive_seed(0, "a", i) for i in range(100)}) == 100
    assert 0 <= derive_seed("x") < 2**63


@pytest.mark.parametrize(
    ("agent_class", "reason", "words"),
    [
        (faulty_agents.RaisingAgent, "exception", "RuntimeError"),
        (faulty_agents.IllegalAgent, "illegal", "illegal action"),
        (faulty_agents.NoneAgent, "no_action", "None"),
        (faulty_agents.SpinningAgent, "timeout", "budget 0.05"),
    ],
)
@pytest.mark.parametrize("faulty_seat", [0, 1])
def test_a_fault_loses_the_game_with_its_reason(agent_class, reason, words, faulty_seat):
    agents = random_pair()
    agents[faulty_seat] = agent_class(after=2)
    result = play_game(agents, seed=3, params={"board_size": 7}, time_budget=0.05, game="trap")
    assert result.reason == reason and reason in FAULTS
    assert result.winner == 1 - faulty_seat
    assert words in result.detail
    assert result.turns == 2 + faulty_seat  # seat 0 acts in even turns, seat 1 in odd ones
    list(replay(result.actions, game="trap"))  # the moves made before the fault still replay


def test_time_is_counted_per_seat_and_no_budget_means_no_limit():
    agents = random_pair()
    agents[1] = faulty_agents.SpinningAgent(seconds=0.02, after=0)
    result = play_game(agents, seed=3, params={"board_size": 5}, time_budget=None, max_turns=4,
                       game="trap")  # fmt: skip
    assert result.reason == "truncated"
    assert result.max_turn_time[1] >= 0.04 > result.max_turn_time[0]
    assert result.cpu_time[1] >= 0.08


def test_on_turn_sees_every_turn_and_the_end():
    seen = []
    result = play_game(
        random_pair(),
        seed=2,
        params={"board_size": 5},
        on_turn=lambda s, st, a: seen.append((s, st.turn)),
        game="trap",
    )
    assert [turn for _, turn in seen] == [*range(result.turns), result.turns]
    assert seen[-1][0] == -1 and seen[0] == (0, 0)


def test_no_garbage_collection_runs_during_a_decision(collection_watch: CollectionWatch) -> None:
    class Allocating:
        """Plays like ``random``, making garbage that would start collections."""

        def __init__(self) -> None:
            self.inner = make_agent("random", game="trap")

        def reset(self, seed: int | None = None) -> None:
            self.inner.reset(seed)

        def select_action(self, state: State) -> int:
            collection_watch.active = True
            garbage = [[] for _ in range(100)]
            del garbage
            collection_watch.active = False
            return self.inner.select_action(state)

    result = play_game([Allocating(), Allocating()], seed=5, params={"board_size": 5}, game="trap")
    assert result.reason == "trapped"
    assert collection_watch.collections == []
    assert gc.isenabled()


@pytest.mark.parametrize(
    ("agent_class", "words"),
    [
        (faulty_agents.RaisingResetAgent, "reset raised RuntimeError"),
        (faulty_agents.NoResetAgent, "no method reset"),
    ],
)
@pytest.mark.parametrize("faulty_seat", [0, 1])
def test_a_reset_that_fails_or_is_missing_loses_for_its_own_seat(agent_class, words, faulty_seat):
    agents = random_pair()
    agents[faulty_seat] = agent_class()
    resets = []
    result = play_game(agents, seed=3, params={"board_size": 5}, on_reset=resets.append,
                       game="trap")  # fmt: skip
    assert (result.reason, result.winner, result.turns) == ("exception", 1 - faulty_seat, 0)
    assert words in result.detail and result.actions == []
    assert resets == list(range(faulty_seat + 1))  # announced before each reset, in seat order


# --- Rule variants ----------------------------------------------------------------------


class FarThrower:
    """Moves to the lowest legal cell and throws two or more steps away."""

    def reset(self, seed: int | None = None) -> None:
        pass

    def select_action(self, state: State) -> int:
        target = far_target(state)
        return legal_actions(state)[0] if target is None else target


@pytest.mark.parametrize(("decay", "lands_on_target"), [(0, True), (1000, False)])
def test_the_games_decay_decides_where_far_throws_land(decay, lands_on_target):
    result = play_game(
        [FarThrower(), FarThrower()], seed=1, params={"board_size": 5, "decay": decay}, game="trap"
    )
    assert result.to_dict()["rules"]["decay"] == decay
    state, num_landings = initial_state(GameConfig(5, decay)), 0
    for action in result.actions:
        if state.phase is Phase.LANDING:
            num_landings += 1
            assert (action == state.target) is lands_on_target
        state = apply(state, action)
    assert num_landings > 3
    *_, (final, _) = replay(result.actions, game="trap", params={"board_size": 5, "decay": decay})
    assert final.turn == result.turns and final.decay == decay


def test_a_record_names_its_game_and_every_rule_it_was_played_by():
    record = play_game(random_pair(), seed=2, params={"board_size": 5}, game="trap").to_dict()
    assert record["game"] == "trap"
    assert record["rules"] == {"board_size": 5, "decay": DEFAULT_DECAY}
    assert not {"board_size", "decay"} & set(record)  # no rule beside the others


def test_a_bad_decay_is_refused_before_the_game():
    with pytest.raises(ValueError, match=r"decay must be an integer per mille in 0\.\.1000"):
        play_game(random_pair(), seed=0, params={"board_size": 5, "decay": -1}, game="trap")


# --- Rules ------------------------------------------------------------------------------


def test_the_board_size_keyword_is_deprecated_for_the_rule_in_params():
    with pytest.warns(DeprecationWarning, match=r"params=\{'board_size': 5\}"):
        old = play_game(random_pair(), seed=3, board_size=5, game="trap")
    new = play_game(random_pair(), seed=3, params={"board_size": 5}, game="trap")
    assert (old.actions, old.params) == (new.actions, new.params)
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="the board size once"):
        play_game(random_pair(), seed=3, board_size=5, params={"board_size": 6}, game="trap")


def test_a_rule_drawn_per_game_is_drawn_from_the_seed_in_any_game():
    """Race has no board: its track's length is drawn as a board size is, by the rule's name."""
    from agents.arena.match import draw_rules
    from agents.arena.record_rules import DrawnRule
    from tests.support.toy_game import RandomRacer, Walker

    race, drawn = "tests.support.toy_game:GAME", {"goal": DrawnRule(3, 9)}
    goals = set()
    for seed in range(6):
        record = play_game([RandomRacer(), Walker()], seed=seed, game=race, params=drawn).to_dict()
        goal = 3 + derive_seed(seed, "goal") % 7
        assert record["rules"] == {"goal": goal} == draw_rules(drawn, seed)
        goals.add(goal)
    assert len(goals) > 1


# --- Duplicate chance -----------------------------------------------------------------------


def _landing_state(decay: int = 300) -> State:
    """A throw three steps away on 5x5: a spread of landings, the target the likeliest."""
    state = apply(initial_state(GameConfig(5, decay)), 1)  # seat 0 steps from its corner
    return apply(state, 16)  # and throws three steps away


def _chance_nodes(record: dict) -> list[tuple[State, int]]:
    """Each chance node of a recorded Trap! game and the outcome drawn there."""
    state, nodes = initial_state(GameConfig(**record["rules"])), []
    for action in record["actions"]:
        if TRAP.is_chance(state):
            nodes.append((state, action))
        state = apply(state, action)
    return nodes


def test_keyed_draws_reproduce_the_exact_odds_over_keys_and_seeds():
    state = _landing_state()
    odds = dict(TRAP.chance_outcomes(state))
    assert len(odds) >= 5
    keyed = [chance_draw(TRAP, seed, duplicate=True)(state) for seed in range(2000)]
    keyed += [chance_draw(TRAP, 7, duplicate=True)(state._replace(turn=2 * t)) for t in range(2000)]
    counts = Counter(keyed)
    assert set(counts) <= set(odds)
    chi_square = sum((counts[o] - len(keyed) * p) ** 2 / (len(keyed) * p) for o, p in odds.items())
    assert chi_square < 27.9  # chi-square's 0.999 quantile at 9 degrees of freedom (seeded)
    assert len(odds) - 1 <= 9


def test_the_same_throw_lands_the_same_in_both_games_of_a_pair_whoever_sits_where():
    """Greedy and a greedy that errs swap seats: a landing depends on the seed and its
    node's key alone (not on who sits where), so a throw both games make lands alike."""
    num_shared = 0
    for seed in range(6):
        games = [_landings(seats, seed) for seats in (SEATS, SEATS[::-1])]
        shared = games[0].keys() & games[1].keys()
        assert [games[0][key] for key in shared] == [games[1][key] for key in shared]
        num_shared += len(shared)
    assert num_shared >= 3


SEATS = ("greedy", "epsilon-greedy:epsilon=0.2")
"""Two agents that often play alike, so that their games share throws past the opening."""


def _landings(seats: tuple[str, str], seed: int) -> dict:
    """Each throw of a duplicate 5x5 game after its opening, by its key and odds: where it
    landed, checked to be the inverse of the odds at its key's uniform."""
    agents = [make_agent(spec, game="trap") for spec in seats]
    record = play_game(agents, seed=seed, game="trap", params={"board_size": 5},
                       opening_plies=2, duplicate_chance=True).to_dict()
    landed = {}
    for state, outcome in _chance_nodes(record)[1:]:  # the opening draws from its own
        key = TRAP.chance_key(state)
        assert outcome == TRAP.sample_chance(state, _Fixed(keyed_uniform(seed, key)))
        landed[key, tuple(TRAP.chance_outcomes(state))] = outcome
    return landed


class _Fixed:
    def __init__(self, value: float) -> None:
        self.value = value

    def random(self) -> float:
        return self.value


def test_a_duplicate_game_replays_from_its_record_and_independent_draws_are_as_before():
    agents = [make_agent("greedy", game="trap"), make_agent("random", game="trap", seed=1)]
    record = play_game(agents, seed=5, game="trap", params={"board_size": 5},
                       duplicate_chance=True).to_dict()
    assert replay_record(record)[-1][0].turn == record["turns"]
    rng, plain = random.Random(derive_seed(5, "landing")), chance_draw(TRAP, 5)
    state = _landing_state()
    assert [plain(state) for _ in range(20)] == [
        TRAP.sample_chance(state, rng) for _ in range(20)
    ]


def test_a_game_that_keys_no_chance_node_draws_duplicates_as_without():
    from tests.support.toy_game import GAME as RACE
    from tests.support.toy_game import RandomRacer, Walker

    race = "tests.support.toy_game:GAME"
    assert RACE.chance_key(RACE.initial_state(RACE.make_config())) is None
    games = [play_game([RandomRacer(), Walker()], seed=3, game=race, duplicate_chance=duplicate)
             for duplicate in (False, True)]  # fmt: skip
    assert games[0].actions == games[1].actions

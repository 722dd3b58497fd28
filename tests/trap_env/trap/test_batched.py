"""The batched engine against the scalar core, state by state, and its chance exactly."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.positions import playout
from trap_env.batched import select_bits
from trap_env.trap import batched as batched_trap
from trap_env.trap import core
from trap_env.trap.core import GameConfig, IllegalActionError, Phase, State
from trap_env.trap.observation import action_mask, observe


def _random_action(state: State, rng: random.Random) -> int:
    """A random legal action of the core, or a landing drawn from the outcomes."""
    if state.phase is Phase.LANDING:
        cells, weights = zip(*core.chance_outcomes(state), strict=True)
        return int(rng.choices(cells, weights)[0])
    return rng.choice(core.legal_actions(state))


def spread_states(
    board_size: int, num_games: int, rng: random.Random, decay: int = 50
) -> list[State]:
    """Games started a random number of plies in, so the batch mixes phases and turns."""
    start = core.initial_state(GameConfig(board_size, decay))
    return [playout(start, rng, rng.randrange(3 * board_size))[-1] for _ in range(num_games)]


def _assert_same(t: batched_trap.Tables, batch: batched_trap.Batch, states: list[State]) -> None:
    assert batched_trap.to_states(t, batch) == states
    masks = batched_trap.legal_masks(t, batch)
    assert masks.tolist() == [[bool(x) for x in core.legal_action_mask(s)] for s in states]
    decision = np.flatnonzero(batch.phase != batched_trap.LANDING)
    seen = batched_trap.observations(t, batch, batch.player)
    for game in decision.tolist():
        state = states[game]
        assert np.array_equal(seen[game], observe(state, state.player))
        assert np.array_equal(masks[game], action_mask(state).astype(bool))


@settings(max_examples=120)
@given(
    seed=st.integers(0, 2**32 - 1),
    board_size=st.integers(3, 8),
    num_games=st.integers(1, 40),
    decay=st.sampled_from([50, 50, 0, 120, 1000]),
)
def test_random_games_match_the_core_state_by_state(
    seed: int, board_size: int, num_games: int, decay: int
) -> None:
    rng = random.Random(seed)
    t = batched_trap.tables(board_size, decay)
    states = spread_states(board_size, num_games, rng, decay)
    batch = batched_trap.from_states(states)
    _assert_same(t, batch, states)
    for _ in range(6 * board_size * board_size):
        if all(core.is_terminal(s) for s in states):
            break
        actions = np.zeros(num_games, np.int64)
        for game, state in enumerate(states):
            if not core.is_terminal(state):
                actions[game] = _random_action(state, rng)
                states[game] = core.apply(state, int(actions[game]))
        batch = batched_trap.apply(t, batch, actions)
        _assert_same(t, batch, states)


def _landing_states(board_size: int, decay: int = 50) -> list[State]:
    """Every (thrower, opponent, target) of the board, player 0 throwing, no traps."""
    cells = range(board_size * board_size)
    return [
        State(board_size, 0, (thrower, other), 0, Phase.LANDING, target, 0, core.NO_PLAYER, decay)
        for thrower in cells
        for other in cells
        for target in cells
        if len({thrower, other, target}) == 3
    ]


@pytest.mark.parametrize("board_size", [3, 4, 5])
def test_landing_distribution_equals_the_core_for_every_throw(board_size: int) -> None:
    t = batched_trap.tables(board_size)
    states = _landing_states(board_size)
    probabilities = batched_trap.landing_probabilities(t, batched_trap.from_states(states))
    for state, row in zip(states, probabilities, strict=True):
        expected = dict(core.chance_outcomes(state))
        got = {cell: float(p) for cell, p in enumerate(row) if p > 0}
        assert got.keys() == expected.keys()
        assert all(got[c] == pytest.approx(expected[c], rel=1e-12) for c in expected)


def _exact_distribution(board_size: int, state: State, decay: int) -> dict[int, Fraction]:
    """The rule with Fractions: the target gets p, each eligible neighbour (1 - p) / n."""
    n = board_size
    (tr, tc), (gr, gc) = divmod(state.cells[state.player], n), divmod(state.target, n)
    distance = abs(tr - gr) + abs(tc - gc)
    on_target = min(max(1 - Fraction((distance - 1) * decay, 1000), Fraction(0)), Fraction(1))
    eligible = [
        c
        for c in range(n * n)
        if core.neighbour_mask(n, state.target) >> c & 1 and c not in state.cells
    ]
    exact = {c: (1 - on_target) / len(eligible) for c in eligible}
    exact[state.target] = on_target
    return {cell: p for cell, p in exact.items() if p > 0}


@pytest.mark.parametrize("decay", [0, 1, 37, 50, 100, 333, 1000])
def test_landing_weights_are_the_exact_rule_for_any_decay(decay: int) -> None:
    t = batched_trap.tables(4, decay)
    states = _landing_states(4, decay)
    weights = batched_trap.landing_weights(t, batched_trap.from_states(states))
    for state, row in zip(states, weights, strict=True):
        total = int(row.sum())
        got = {cell: Fraction(int(w), total) for cell, w in enumerate(row) if w > 0}
        assert got == _exact_distribution(4, state, decay)
        core_outcomes = dict(core.chance_outcomes(state))
        assert core_outcomes == {c: float(p) for c, p in got.items()}


@pytest.mark.parametrize("decay", [0, 50, 333])
def test_sampling_hits_each_cell_exactly_its_weight_over_all_draws(decay: int) -> None:
    """Words that make ``r`` run over [0, 1000 n) land on each cell ``weight`` times."""
    t = batched_trap.tables(4, decay)
    for state in _landing_states(4, decay)[::37]:
        batch = batched_trap.from_states([state])
        weights = batched_trap.landing_weights(t, batch)[0]
        total = int(weights.sum())
        draws = np.arange(total, dtype=np.uint64)
        # The smallest word whose high half h gives (h * total) >> 32 == r.
        high = (draws * np.uint64(2**32) + np.uint64(total - 1)) // np.uint64(total)
        words = high << np.uint64(32)
        many = batched_trap.gather(batch, np.zeros(total, np.int64))
        landed = batched_trap.sample_landings(t, many, words)
        counts = np.bincount(landed, minlength=t.num_cells)
        assert counts.tolist() == weights.tolist()


@settings(max_examples=200)
@given(bitboard=st.integers(1, 2**64 - 1), data=st.data())
def test_select_bits_finds_the_rank_th_set_bit(bitboard: int, data: st.DataObject) -> None:
    cells = [c for c in range(64) if bitboard >> c & 1]
    rank = data.draw(st.integers(0, len(cells) - 1))
    got = select_bits(np.array([bitboard], np.uint64), np.array([rank]))
    assert got.tolist() == [cells[rank]]


@pytest.mark.parametrize(
    ("num_cells", "candidates"),
    [(12, None), (49, None), (64, None), (64, [9, 0, 5, 11, 8, 64, 64, 64]), (64, [8, 11, 0, 9])],
)
def test_choose_bits_is_uniform_over_the_set_bits(
    num_cells: int, candidates: list[int] | None
) -> None:
    board = np.full(70_000, 0b1011_0000_0001, np.uint64)
    words = batched_trap.random_words(batched_trap.game_keys(1, np.arange(70_000), 0), 0, 0)
    rows = None if candidates is None else np.tile(np.array(candidates), (70_000, 1))
    chosen = batched_trap.choose_bits(board, words, num_cells, candidates=rows)
    counts = np.bincount(chosen, minlength=12)
    assert set(np.flatnonzero(counts).tolist()) == {0, 8, 9, 11}
    assert counts[[0, 8, 9, 11]] == pytest.approx([17_500] * 4, rel=0.03)


def test_random_words_depend_only_on_seed_game_episode_ply_and_stream() -> None:
    keys = batched_trap.game_keys(5, np.array([0, 1, 2, 3]), np.array([0, 0, 1, 1]))
    alone = batched_trap.game_keys(5, np.array([2]), np.array([1]))
    assert keys[2] == alone[0]
    words = batched_trap.random_words(keys, np.array([0, 1, 2, 3]), batched_trap.STREAM_CHANCE)
    assert (
        batched_trap.random_words(alone, np.array([2]), batched_trap.STREAM_CHANCE)[0] == words[2]
    )
    assert len(set(words.tolist())) == 4
    other_stream = batched_trap.random_words(
        keys, np.array([0, 1, 2, 3]), batched_trap.STREAM_OPPONENT
    )
    assert not set(words.tolist()) & set(other_stream.tolist())


def test_apply_names_the_illegal_actions() -> None:
    t = batched_trap.tables(5)
    batch = batched_trap.initial_batch(t, 2)
    with pytest.raises(IllegalActionError, match=r"game 1: action 12 in phase MOVE, legal \[1, 3"):
        batched_trap.apply(t, batch, np.array([1, 12]))


def test_finished_games_stay_as_they_are() -> None:
    t = batched_trap.tables(3)
    won = core.from_text("0x./xxx/.x1 0 throw - 3")
    assert core.is_terminal(won)
    batch = batched_trap.from_states([won, core.initial_state(GameConfig(3))])
    after = batched_trap.apply(t, batch, np.array([7, 0]))
    assert batched_trap.to_states(t, after)[0] == won
    assert batched_trap.legal_masks(t, after)[0].sum() == 0


@pytest.mark.parametrize("board_size", [2, 9, 7.0, True])
def test_board_sizes_outside_the_engine_get_an_error_naming_the_limit(board_size: object) -> None:
    batched_trap.tables(7)  # cached first: 7.0 must not hit the entry of 7
    with pytest.raises(ValueError, match=r"board sizes 3\.\.8 \(a board is one uint64"):
        batched_trap.tables(board_size)  # type: ignore[arg-type]


@pytest.mark.parametrize("decay", [-1, 1001, 2500, 50.0, True])
def test_decays_the_rules_refuse_are_refused_as_the_core_refuses_them(decay: object) -> None:
    batched_trap.tables(5, 50)  # cached first: 50.0 must not hit the entry of 50
    batched_trap.tables(5, 1)  # and True not that of 1
    with pytest.raises(ValueError, match=r"decay must be an integer per mille in 0\.\.1000"):
        batched_trap.tables(5, decay)  # type: ignore[arg-type]


def test_gather_and_scatter_round_trip() -> None:
    t = batched_trap.tables(6)
    states = spread_states(6, 10, random.Random(3))
    batch = batched_trap.from_states(states)
    index = np.array([7, 2, 5])
    part = batched_trap.gather(batch, index)
    assert batched_trap.to_states(t, part) == [states[i] for i in index]
    fresh = batched_trap.scatter(batched_trap.initial_batch(t, 10), index, part)
    start = core.initial_state(GameConfig(6))
    assert batched_trap.to_states(t, fresh) == [
        states[i] if i in index else start for i in range(10)
    ]


def test_truncation_marks_games_at_the_turn_limit_in_phase_move() -> None:
    states = [
        core.initial_state(GameConfig(5))._replace(turn=100),
        core.initial_state(GameConfig(5))._replace(turn=99),
    ]
    assert batched_trap.is_truncated(batched_trap.from_states(states), 100).tolist() == [
        True,
        False,
    ]


@settings(max_examples=60)
@given(
    seed=st.integers(0, 2**32 - 1),
    board_size=st.integers(3, 8),
    num_games=st.integers(1, 30),
    decay=st.sampled_from([50, 0, 300]),
)
def test_the_engine_answers_as_the_game_protocol_does(
    seed: int, board_size: int, num_games: int, decay: int
) -> None:
    from trap_env.batched import NO_WINNER, batched_engine
    from trap_env.trap.game import GAME

    states = spread_states(board_size, num_games, random.Random(seed), decay)
    engine = batched_engine(GAME, GAME.make_config(board_size=board_size, decay=decay))
    batch = batched_trap.from_states(states)
    limit = 2
    outcomes, probabilities = engine.chance_outcomes(batch)
    assert engine.num_actions == board_size**2 and outcomes.shape[1] == engine.chance_slots
    for game, state in enumerate(states):
        ended = GAME.outcome(state)
        assert engine.players(batch)[game] == GAME.current_player(state)
        assert engine.is_chance(batch)[game] == GAME.is_chance(state)
        assert engine.is_over(batch)[game] == (ended is not None)
        cut = GAME.outcome(state, limit)
        assert engine.is_truncated(batch, limit)[game] == (cut is not None and ended is None)
        assert engine.winners(batch)[game] == (NO_WINNER if ended is None else ended.winner)
        if GAME.is_chance(state):
            pairs = zip(outcomes[game].tolist(), probabilities[game].tolist(), strict=True)
            slots = [(cell, p) for cell, p in pairs if p > 0]  # padding has probability 0
            expected = GAME.chance_outcomes(state)
            assert [cell for cell, _ in slots] == [cell for cell, _ in expected]
            assert [p for _, p in slots] == pytest.approx([p for _, p in expected])
        else:
            assert not probabilities[game].any()


def test_a_game_without_a_batched_engine_says_so() -> None:
    from types import SimpleNamespace

    from trap_env.batched import batched_engine

    plain = SimpleNamespace(name="plain")  # a game that offers no batched_engine
    with pytest.raises(ValueError, match="the game 'plain' has no batched engine"):
        batched_engine(plain, None)  # type: ignore[arg-type]


def test_from_states_refuses_a_state_no_game_reaches() -> None:
    start = core.initial_state(core.GameConfig(5))
    for bad, words in [
        (start._replace(cells=(3, 3)), "both players stand on cell 3"),
        (start._replace(traps=1 << 40), "traps must be a bitboard of 25 bits"),
        (start._replace(player=7), "player must be 0 or 1"),
    ]:
        with pytest.raises(ValueError, match=words):
            batched_trap.from_states([start, bad])
    with pytest.raises(TypeError, match=r"a trap_env\.trap\.core\.State"):
        text = "..0../...../...../...../..1.. 0 move - 0"
        batched_trap.from_states([text])  # type: ignore[list-item]

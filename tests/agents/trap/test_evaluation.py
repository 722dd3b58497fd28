"""The evaluation: each term on drawn boards, bounds, antisymmetry, the cache."""

from __future__ import annotations

import random

import pytest

from agents.trap.evaluation import (
    EVAL_BOUND,
    Evaluator,
    Terms,
    Weights,
    evaluate,
    raw_score,
    terms,
)
from tests.support.positions import playout
from trap_env.trap import core
from trap_env.trap.kernel import geometry, king_dilate

# (board, terms from player 0's side: mobility, room, voronoi with every cell counted 1)
TERM_TABLE = [
    # The start of a 5x5 game: symmetric.
    ("..0../...../...../...../..1.. 0 move - 0", Terms(0, 0, 0)),
    # Player 0 boxed into a corner: 1 step against 5, 6 cells within two steps against 14,
    # first to 4 cells against 12 (3 cells are tied).
    ("0x.../x..../...../...../..1.. 0 move - 3", Terms(1 - 5, 6 - 14, 4 - 12)),
    # A wall of traps splits the board: each player owns its side.
    ("..0/xxx/..1 0 move - 3", Terms(0, 0, 0)),
    ("0.x/.xx/x.1 0 move - 3", Terms(2 - 1, 2 - 1, 2 - 1)),
]


@pytest.mark.parametrize("text, expected", TERM_TABLE)
def test_terms_on_drawn_boards(text: str, expected: Terms) -> None:
    assert terms(core.from_text(text), voronoi_decay=1.0) == expected


def test_voronoi_decay_weighs_far_cells_less() -> None:
    state = core.from_text("0.x../..x../xxx../...../....1 0 move - 3")
    # Player 0 owns the 3 cells one step away; player 1 owns 3, 4, 4 and 4 cells at 1 to 4.
    assert terms(state, voronoi_decay=1.0).voronoi == 3 - 15
    assert terms(state, voronoi_decay=0.5).voronoi == 3 - (3 + 4 * 0.5 + 4 * 0.25 + 4 * 0.125)


def test_king_dilate_grows_a_cell_into_its_neighbourhood() -> None:
    assert king_dilate(geometry(3), 1 << 4) == (1 << 9) - 1
    assert king_dilate(geometry(3), 1 << 0) == 1 | 1 << 1 | 1 << 3 | 1 << 4
    assert king_dilate(geometry(4), 1 << 3) == 1 << 2 | 1 << 3 | 1 << 6 | 1 << 7


def test_evaluation_is_bounded_and_antisymmetric() -> None:
    extreme = Weights(mobility=100.0, room=100.0, voronoi=100.0, scale=0.01)
    for state in random_states(1, 300):
        for weights in (Weights(), extreme):
            value = evaluate(state, 0, weights)
            assert -EVAL_BOUND <= value <= EVAL_BOUND < 1.0
            assert evaluate(state, 1, weights) == -value
            assert raw_score(state, 1, weights) == -raw_score(state, 0, weights)


def test_evaluator_caches_the_same_values() -> None:
    evaluator = Evaluator(max_entries=10)
    for state in random_states(2, 50) * 2:
        assert evaluator(state, 1) == evaluate(state, 1)


def test_more_mobility_scores_higher() -> None:
    boxed = core.from_text("0x.../x..../...../...../..1.. 0 move - 3")
    free = core.from_text("..0../x..../...../...../..1.. 0 move - 3")
    assert evaluate(boxed, 0) < 0
    assert evaluate(boxed, 0) < evaluate(free, 0)


@pytest.mark.parametrize(
    "weights, message",
    [({"scale": 0.0}, "scale must be > 0"), ({"voronoi_decay": 0.0}, r"decay must be in \(0, 1\]")],
)
def test_weights_reject_bad_values(weights: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Weights(**weights)


def test_weights_parse_replaces_the_named_defaults() -> None:
    assert Weights.parse("voronoi=0; room=1") == Weights(room=1.0, voronoi=0.0)
    assert Weights.parse("") == Weights()


@pytest.mark.parametrize(
    "text, message",
    [("speed=1", "field among"), ("voronoi", "field=number"), ("room=lots", "not a number")],
)
def test_weights_parse_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Weights.parse(text)


def test_an_agent_spec_sets_the_weights() -> None:
    from agents import make_agent

    agent = make_agent("expectiminimax:depth=2,weights=voronoi=0;mobility=2", game="trap")
    assert agent.game.evaluator.weights == Weights(mobility=2.0, voronoi=0.0)  # type: ignore[attr-defined]


def random_states(seed: int, count: int) -> list[core.State]:
    """The last states (maybe finished) of random playouts on random board sizes."""
    rng = random.Random(seed)
    starts = (core.initial_state(core.GameConfig(rng.choice([3, 5, 7, 9]))) for _ in range(count))
    return [playout(start, rng, rng.randint(0, 30))[-1] for start in starts]

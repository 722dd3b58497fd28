import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.arena.pairs import PAIR_POINTS, game_number, pair_groups, pentanomial
from agents.arena.plan import round_robin


def record(game_id: str, pairing: tuple[str, str] = ("a", "b")) -> dict[str, object]:
    return {"game_id": game_id, "pairing": list(pairing)}


def test_a_round_robin_with_paired_seeds_pairs_games_that_share_a_seed():
    tasks = round_robin(["a", "b", "c"], 4, seed=1, paired_seeds=True)
    records = [{"game_id": t.game_id, "pairing": list(t.pairing), "seed": t.seed} for t in tasks]
    groups = pair_groups(records)
    assert len(groups) == 6
    for group in groups:
        assert len(group) == 2 and group[0]["seed"] == group[1]["seed"]


def test_a_pair_cut_short_is_a_group_of_one_and_pairings_never_mix():
    groups = pair_groups([record("x #0"), record("x #2", ("a", "c")), record("x #1")])
    assert [[r["game_id"] for r in g] for g in groups] == [["x #0", "x #1"], ["x #2"]]


@pytest.mark.parametrize("game_id", ["x", "x #", "x #-1", "#3", "x #1a"])
def test_a_game_id_without_a_number_is_refused_naming_it(game_id):
    with pytest.raises(ValueError, match="does not end in '#<number>'"):
        game_number(record(game_id))


@given(st.lists(st.sampled_from(PAIR_POINTS)))
def test_the_pentanomial_counts_every_pair_once(points):
    counts = pentanomial(points)
    assert sum(counts) == len(points)
    assert sum(c * p for c, p in zip(counts, PAIR_POINTS, strict=True)) == sum(points)


def test_points_that_no_pair_gives_are_refused():
    with pytest.raises(ValueError, match=r"0, 0\.5, 1, 1\.5 or 2 points, got 0\.25"):
        pentanomial([0.25])

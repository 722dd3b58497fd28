"""Tests of agents.arena.stats: Wilson intervals, Elo by maximum likelihood, summaries, report."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.arena.stats import (
    ELO_PER_LOG_STRENGTH,
    elo_intervals,
    elo_ratings,
    format_report,
    plot_report,
    records_title,
    replay_note,
    report_figure,
    score_matrix,
    specs_of,
    summarize_pairings,
    wilson_interval,
)


def game(first, second, winner, seat_of_first=0):
    seats = [first, second] if seat_of_first == 0 else [second, first]
    return {"pairing": [first, second], "seats": seats, "winner_spec": winner,
            "reason": "trapped" if winner else "truncated"}  # fmt: skip


@pytest.mark.parametrize(
    ("score", "games", "expected"),
    [(0, 10, (0.0, 0.2775)), (5, 10, (0.2366, 0.7634)), (10, 10, (0.7225, 1.0)),
     (95, 100, (0.8882, 0.9785)), (0, 0, (0.0, 1.0))],
)  # fmt: skip
def test_wilson_interval_matches_known_values(score, games, expected):
    low, high = wilson_interval(score, games)
    assert low == pytest.approx(expected[0], abs=1e-4)
    assert high == pytest.approx(expected[1], abs=1e-4)


def test_wilson_interval_rejects_a_score_out_of_range():
    with pytest.raises(ValueError, match="within"):
        wilson_interval(11, 10)


def test_two_agents_rating_gap_is_the_logistic_mle_with_the_prior_draw():
    records = [game("a", "b", "a")] * 7 + [game("a", "b", "b")] * 2 + [game("a", "b", None)]
    ratings = elo_ratings(records)
    score = 7.5 + 0.5  # wins + half a draw + half the prior's virtual draw
    assert ratings["a"] - ratings["b"] == pytest.approx(400 * math.log10(score / (11 - score)))
    assert ratings["a"] + ratings["b"] == pytest.approx(0)


def test_ratings_are_finite_for_a_clean_sweep_and_ordered_transitively():
    records = (
        [game("strong", "weak", "strong")] * 20
        + [game("strong", "mid", "strong")] * 15 + [game("strong", "mid", "mid")] * 5
        + [game("mid", "weak", "mid")] * 15 + [game("mid", "weak", "weak")] * 5
    )  # fmt: skip
    ratings = elo_ratings(records)
    assert all(math.isfinite(value) for value in ratings.values())
    assert ratings["strong"] > ratings["mid"] > ratings["weak"]
    assert sum(ratings.values()) == pytest.approx(0, abs=1e-6)


def test_two_agents_intervals_are_the_logistic_standard_error_of_the_gap():
    records = [game("a", "b", "a")] * 7 + [game("a", "b", "b")] * 2 + [game("a", "b", None)]
    ratings, intervals = elo_ratings(records), elo_intervals(records)
    p, n = 8 / 11, 11  # a's score rate and games, with the prior's virtual draw
    gap_error = ELO_PER_LOG_STRENGTH / math.sqrt(n * p * (1 - p))  # the gap's standard error
    for spec in "ab":
        low, high = intervals[spec]
        assert (low + high) / 2 == pytest.approx(ratings[spec])
        assert high - low == pytest.approx(2 * 1.96 * gap_error / 2)  # each holds half the gap


@given(
    st.lists(st.sampled_from(["a", "b", "c", None]), min_size=1, max_size=30),
    st.integers(1, 4),
)
def test_intervals_hold_the_ratings_and_narrow_with_more_games(winners, copies):
    pairings = [("a", "b"), ("b", "c"), ("c", "a")]
    records = [game(*pairings[i % 3], winner if winner in pairings[i % 3] else None)
               for i, winner in enumerate(winners)]  # fmt: skip
    ratings, intervals = elo_ratings(records), elo_intervals(records)
    narrower = elo_intervals(records * (copies + 1))
    assert intervals.keys() == ratings.keys()
    for spec, (low, high) in intervals.items():
        assert low < ratings[spec] < high
        assert narrower[spec][1] - narrower[spec][0] < high - low


def test_no_records_give_no_intervals():
    assert elo_intervals([]) == {}


def test_summaries_count_per_pairing_and_per_seat():
    records = [game("a", "b", "a", 0), game("a", "b", "a", 1), game("a", "b", "b", 1),
               game("a", "b", None, 0), game("b", "c", "c")]  # fmt: skip
    ab, bc = summarize_pairings(records)
    assert (ab.first, ab.second, ab.results) == ("a", "b", [2, 1, 1])
    assert ab.by_seat == [[1, 1, 0], [1, 0, 1]]
    assert ab.score == 2.5 and ab.win_rate == 0.625 and ab.num_games == 4
    assert ab.reasons == {"trapped": 3, "truncated": 1}
    assert bc.results == [0, 0, 1]
    assert specs_of(records) == ["a", "b", "c"]
    assert score_matrix(records, ["a", "b", "c"]) == [
        [None, 0.625, None], [0.375, None, 0.0], [None, 1.0, None]
    ]  # fmt: skip


def test_no_records_give_no_ratings_and_an_empty_report():
    assert elo_ratings([]) == {}
    assert "W-D-L" in format_report([])


def test_the_report_counts_games_replayed_after_a_machine_stall():
    records = [{**game("a", "b", "a"), "replays": 2}, game("a", "b", "b"),
               {**game("a", "b", None), "replays": 1}]  # fmt: skip
    assert replay_note(records).startswith("replayed: 2 games (3 replays)")
    assert replay_note(records) in format_report(records)
    assert replay_note(records[1:2]) == "" and "replayed" not in format_report(records[1:2])


def test_report_and_plot(tmp_path):
    timeout = {**game("c", "b", "b", 0), "reason": "timeout", "max_turn_time": [5.5, 0.25]}
    records = [game("a", "b", "a")] * 3 + [game("b", "c", None), timeout]
    text = format_report(records)
    assert "W-D-L" in text and "Elo" in text and "3-0-0" in text
    row_c = [line for line in text.splitlines() if line.startswith("c ")][-1]
    assert row_c.split()[-3:] == ["1", "5.50", "s"]  # one fault, its longest turn
    assert len(text.split("\n\n")[0].splitlines()) == 4  # b-c and c-b: one pairing
    pytest.importorskip("matplotlib")
    plot_report(records, tmp_path / "plot.png")
    assert (tmp_path / "plot.png").read_bytes()[:4] == b"\x89PNG"


def ladder() -> list[dict]:
    """Games whose agents appear in another order (c, a, b) than their ratings (a, b, c)."""
    return ([{**game("c", "a", "a"), "board_size": 5, "time_budget": 0.5}] * 4
            + [{**game("a", "b", "a"), "board_size": 5, "time_budget": 0.5}] * 3
            + [{**game("b", "c", "b"), "board_size": 5, "time_budget": 0.5}] * 2)  # fmt: skip


def test_the_agent_table_shows_each_rating_with_its_interval():
    records = ladder()
    low, high = elo_intervals(records)["a"]
    row_a = [line for line in format_report(records).splitlines() if line.startswith("a ")][-1]
    assert "Elo [95% CI]" in format_report(records)
    assert f"{elo_ratings(records)['a']:+.0f} [{low:+.0f}, {high:+.0f}]" in row_a


@pytest.mark.parametrize(
    ("fields", "title"),
    [({"board_size": 5, "time_budget": 0.5}, "Trap! 5x5, at most 0.5 s CPU a turn"),
     ({"board_size": 7, "time_budget": None}, "Trap! 7x7, no time limit"),
     ({"board_size": 8, "time_budget": 5.0, "game": "othello", "rules": {}},
      "Othello 8x8, at most 5 s CPU a turn"),
     ({"board_size": 5, "decay": 0, "time_budget": None}, "Trap! 5x5, decay 0, no time limit"),
     ({"game": "trap", "rules": {"board_size": 6, "decay": 50}, "time_budget": None},
      "Trap! 6x6, no time limit"),
     ({"game": "othello", "rules": {"board_size": 6, "end_rule": "course"}, "time_budget": 1},
      "Othello 6x6, end_rule course, at most 1 s CPU a turn")],
)  # fmt: skip
def test_records_title_names_the_game_board_and_time_control(fields, title):
    assert records_title([{**game("a", "b", "a"), **fields}]) == title


def test_records_title_names_the_range_of_boards_drawn():
    records = [{**game("a", "b", "a"), "board_size": n, "time_budget": 1.0} for n in (9, 6, 12)]
    assert records_title(records) == "Trap! 6x6 to 12x12, at most 1 s CPU a turn"


def test_a_game_without_a_board_is_titled_and_plotted_by_its_own_rules(tmp_path):
    """Race has no board_size: its title names the rules off their defaults, drawn or not."""
    race = [{**game("a", "b", winner), "game": "tests.support.toy_game:GAME",
             "rules": {"goal": goal}, "reason": "finished", "time_budget": None}
            for winner, goal in [("a", 4), ("b", 6), ("a", 5)]]  # fmt: skip
    assert records_title(race[:1]) == "Race, no time limit"
    assert records_title(race) == "Race, goal 4 to 6, no time limit"
    pytest.importorskip("matplotlib")
    plot_report(race, tmp_path / "race.png")
    assert (tmp_path / "race.png").stat().st_size > 0


def test_the_figure_names_the_run_and_orders_the_matrix_like_the_ratings():
    pytest.importorskip("matplotlib")
    records = ladder()
    figure = report_figure(records)
    matrix, bars = figure.axes
    assert figure.get_suptitle() == "Trap! 5x5, at most 0.5 s CPU a turn: 9 games"
    order = ["a", "b", "c"]
    assert [label.get_text() for label in matrix.get_yticklabels()] == order
    assert [label.get_text() for label in matrix.get_xticklabels()] == order
    assert [label.get_text() for label in bars.get_yticklabels()] == order
    assert bars.yaxis_inverted()  # the first label on top, as the matrix's first row
    assert matrix.get_images()[0].get_array()[0][1] == 1.0  # a beat b in every game


def test_the_figure_shows_each_ratings_interval_as_an_error_bar():
    pytest.importorskip("matplotlib")
    records = ladder()
    _, bars = report_figure(records).axes
    (error_bars,) = [box for box in bars.containers if getattr(box, "has_xerr", False)]
    segments = error_bars.lines[2][0].get_segments()
    intervals = elo_intervals(records)
    for spec, segment in zip(["a", "b", "c"], segments, strict=True):
        assert [x for x, _ in segment] == pytest.approx(list(intervals[spec]))

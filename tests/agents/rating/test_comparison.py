"""Tests for agents.rating.comparison and ``trap-rate --compare``: the GSPRT on the pentanomial,
its error rates, a stop that no worker count moves, the card, and the command line."""

from __future__ import annotations

import contextlib
import io
import json
import math
import random
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from trap_scripts import rate as rate_cli

import agents.rating.comparison as comparison
from agents.rating import SprtTest, compare
from agents.rating.comparison import (
    DECISIONS,
    _log_weights,
    b_points,
    expected_score,
    llr,
    walk_of_records,
    walk_pairs,
)
from agents.rating.ladder import find_ladder
from agents.rating.verify import verify_card
from tests.agents.rating.test_rating import SMALL, stamped_network, stamped_zip
from tests.support.cli_fuzz import RunStarted, check_command, command_lines, raise_run_started

QUICK = SprtTest(elo1=200, alpha=0.3, beta=0.3, max_games=24)
"""A test that greedy passes over random on the small ladder in three pairs (1, 2, 2 points):
a stop that two workers, playing two pairs at a time, go past."""


def quiet() -> dict:
    return {"run_options": {"workers": 0}, "check": False, "say": lambda line: None}


def records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


def of_the_games(card: dict) -> dict:
    """The card's fields that its games give."""
    return {key: value for key, value in card.items()
            if key not in ("date", "commit", "machine", "environment")}  # fmt: skip


# --- The log-likelihood ratio ---------------------------------------------------------------


def test_the_llr_of_pairs_all_won_or_all_lost_is_the_bernoulli_one():
    # Only 0 and 2 points seen: the pentanomial of mean s puts s on 2 points, 1 - s on 0 (the
    # classes never seen count 0.001 of a pair, which moves the ratio by about 1e-4)
    s0, s1 = 0.5, 1 / (1 + 10 ** (-50 / 400))
    by_hand = 20 * math.log(s1 / s0) + 10 * math.log((1 - s1) / (1 - s0))  # 1.12952...
    assert by_hand == pytest.approx(1.12952, abs=1e-5)
    assert float(llr([10, 0, 0, 0, 20], 0, 50)) == pytest.approx(by_hand, abs=1e-3)
    assert expected_score(50) == pytest.approx(s1) and expected_score(0) == 0.5


def test_the_llr_is_zero_between_equal_hypotheses_and_grows_with_b_s_points():
    assert float(llr([3, 10, 20, 10, 3], 0, 0)) == pytest.approx(0, abs=1e-12)
    assert float(llr([3, 10, 20, 10, 3], 0, 50)) < 0 < float(llr([3, 10, 20, 10, 30], 0, 50))
    batch = llr([[3, 10, 20, 10, 3], [3, 10, 20, 10, 30]], 0, 50)  # leading axes: many tests
    assert batch.shape == (2,) and batch[0] < 0 < batch[1]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 300), min_size=5, max_size=5),
       st.floats(-900, 900, allow_nan=False))  # fmt: skip
def test_the_constrained_maximum_is_a_distribution_of_the_hypothesis_mean(counts, elo):
    n = np.maximum(np.array(counts, dtype=float), 1e-3)
    s = expected_score(elo)
    p = n / n.sum() / np.exp(_log_weights(n, s))  # f_i / (1 + x (a_i - s))
    scores = np.array([0, 0.25, 0.5, 0.75, 1])
    assert p.sum() == pytest.approx(1, abs=1e-7)
    assert (p * scores).sum() == pytest.approx(s, abs=1e-7)
    assert np.all(p > 0)


# --- The error rates ------------------------------------------------------------------------


def pentanomial_at(elo: float, draws: float = 0.2) -> np.ndarray:
    """The pentanomial of two independent games of a mean score ``expected_score(elo)``."""
    s = expected_score(elo)
    game = np.array([1 - s - draws / 2, draws, s - draws / 2])  # loss, draw, win
    return np.convolve(game, game)


def decisions_of(p: np.ndarray, test: SprtTest, runs: int, rng: np.random.Generator) -> dict:
    """How often the test decides each way over ``runs`` runs of pairs drawn from ``p``:
    all the runs walked together, a block of pairs at a time, each stopped at its first
    pair past a bound."""
    lower, upper = test.bounds
    counts = np.zeros((runs, 5))
    decided = {"stronger": 0, "not stronger": 0}
    for start in range(0, test.max_pairs, 40):
        size = min(40, test.max_pairs - start)
        draws = rng.choice(5, size=(len(counts), size), p=p)
        walked = counts[:, None, :] + np.cumsum(np.eye(5)[draws], axis=1)
        values = llr(walked, test.elo0, test.elo1)
        crossed = (values >= upper) | (values <= lower)
        stop = values[np.arange(len(counts)), crossed.argmax(axis=1)]
        done = crossed.any(axis=1)
        decided["stronger"] += int(np.sum(done & (stop >= upper)))
        decided["not stronger"] += int(np.sum(done & (stop <= lower)))
        counts = walked[~done, -1]
        if not len(counts):
            break
    return {key: value / runs for key, value in decided.items()}


def test_the_error_rates_are_alpha_and_beta():
    rng = np.random.default_rng(2026)
    test = SprtTest()  # elo0 0, elo1 50, alpha = beta = 0.05
    at_h0 = decisions_of(pentanomial_at(test.elo0), test, 1500, rng)
    at_h1 = decisions_of(pentanomial_at(test.elo1), test, 1500, rng)
    assert at_h0["stronger"] <= test.alpha + 0.01  # false positives
    assert at_h1["not stronger"] <= test.beta + 0.01  # false negatives
    assert at_h0["not stronger"] >= 0.9 and at_h1["stronger"] >= 0.9  # and it does decide


# --- The walk -------------------------------------------------------------------------------


def test_the_walk_stops_at_the_first_pair_past_a_bound_and_counts_none_after():
    walk = walk_pairs(QUICK, [1.0, 2.0, 2.0, 0.0, 0.0])
    assert (walk.decision, walk.num_pairs, walk.counts) == ("stronger", 3, [0, 0, 1, 0, 2])
    with pytest.raises(ValueError, match=r"decided \(stronger\); no pair counts after"):
        walk.add(2.0)
    capped = walk_pairs(SprtTest(max_games=4), [1.0, 1.0, 1.0])
    assert (capped.decision, capped.num_pairs) == ("inconclusive", 2)
    assert walk_pairs(QUICK, [1.0]).decision is None


def test_the_stop_is_the_same_with_one_or_two_pairs_at_a_time(tmp_path, monkeypatch):
    one = compare("random", "greedy", game="trap", ladder=SMALL, output=tmp_path / "0",
                  test=QUICK, **quiet())  # fmt: skip
    # two workers play two pairs at a time; in this process, to keep the test quick
    monkeypatch.setattr(comparison, "_pairs_at_once", lambda config: 2)
    two = compare("random", "greedy", game="trap", ladder=SMALL, output=tmp_path / "2",
                  test=QUICK, **quiet())  # fmt: skip
    assert (one.decision, one.num_games, one.pentanomial) == ("stronger", 6, [0, 0, 1, 0, 2])
    assert of_the_games(json.loads(one.to_json())) == of_the_games(json.loads(two.to_json()))
    assert len(records(tmp_path / "0")) == 6 and len(records(tmp_path / "2")) == 8
    games = records(tmp_path / "2")
    random.Random(0).shuffle(games)  # the order games finish in moves nothing either
    assert walk_of_records(QUICK, games).counts == [0, 0, 1, 0, 2]


def test_b_s_points_are_its_seat_s_in_both_games():
    pair = [{"game_id": "pair #4", "winner": 1}, {"game_id": "pair #5", "winner": -1}]
    assert b_points(pair) == 1.5  # B sits in seat 1 of even games, seat 0 of odd ones


# --- Resuming, the card and checking it -----------------------------------------------------


def test_a_resumed_comparison_gives_the_same_card_and_refuses_another_test(tmp_path):
    whole = compare("random", "greedy", game="trap", ladder=SMALL, output=tmp_path / "w",
                    test=QUICK, **quiet())  # fmt: skip
    cut = tmp_path / "cut"
    compare("random", "greedy", game="trap", ladder=SMALL, output=cut, test=QUICK, **quiet())
    lines = (cut / "results.jsonl").read_text().splitlines(keepends=True)
    (cut / "results.jsonl").write_text("".join(lines[:3]))
    (cut / "card.json").unlink()
    resumed = compare("random", "greedy", game="trap", ladder=SMALL, output=cut, test=QUICK,
                      resume=True, **quiet())  # fmt: skip
    assert of_the_games(json.loads(resumed.to_json())) == of_the_games(json.loads(whole.to_json()))
    with pytest.raises(ValueError, match="holds a comparison with elo1 200, this one has 100"):
        compare("random", "greedy", game="trap", ladder=SMALL, output=cut,
                test=SprtTest(elo1=100, alpha=0.3, beta=0.3, max_games=24), resume=True,
                **quiet())  # fmt: skip
    with pytest.raises(ValueError, match="holds a comparison already"):
        compare("random", "greedy", game="trap", ladder=SMALL, output=cut, test=QUICK, **quiet())


def test_the_card_is_a_comparison_its_games_give(tmp_path):
    folder = tmp_path / "c"
    card = compare("random", "greedy", game="trap", ladder=SMALL, output=folder, test=QUICK,
                   **quiet())  # fmt: skip
    written = json.loads((folder / "card.json").read_text())
    assert written["kind"] == "comparison" and written["ladder_sha256"] == SMALL.identity
    assert (written["a"], written["b"], written["params"]["board_size"]) == ("random", "greedy", 5)
    assert written["lower"] == -written["upper"] == round(math.log(0.3 / 0.7), 4)
    assert card.line.endswith(": stronger") and written["line"] == card.line
    assert {"python", "numpy"} <= set(written["environment"]) and "speed" in written["machine"]
    ladder_file = tmp_path / "small.json"
    ladder_file.write_text(SMALL.to_json())
    assert verify_card(folder, ladder_file) == []
    (folder / "card.json").write_text(json.dumps(written | {"decision": "not stronger"}))
    assert verify_card(folder, ladder_file) == [
        'decision: the card says "not stronger", its games give "stronger"'
    ]
    games = records(folder)
    (folder / "results.jsonl").write_text("".join(json.dumps(game) + "\n" for game in games[2:]))
    assert "game 'pair #0' of a comparison" in verify_card(folder, ladder_file)[0]


def test_a_ladder_of_other_rules_is_refused(tmp_path):
    refused = r"the ladder given is the trap ladder v1 \(trap 5x5\), not one of trap 7x7"
    with pytest.raises(ValueError, match=refused):
        compare("random", "greedy", game="trap", rules={"board_size": 7}, ladder=SMALL,
                output=tmp_path / "x", **quiet())  # fmt: skip
    assert not (tmp_path / "x").exists()


# --- The command line -----------------------------------------------------------------------


def test_trap_rate_compare_says_its_decision_last_and_its_card_verifies(tmp_path, capsys):
    ladder_file = tmp_path / "small.json"
    ladder_file.write_text(SMALL.to_json())
    folder = tmp_path / "c"
    argv = ["--compare", "random", "greedy", "--game", "trap", "--ladder", str(ladder_file),
            "--max-games", "4", "--workers", "0", "--output", str(folder)]  # fmt: skip
    assert rate_cli.main(argv) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("'greedy' against 'random', 4 games, LLR ")
    assert last.rpartition(": ")[2] in DECISIONS
    assert rate_cli.main(["--verify", str(folder), "--ladder", str(ladder_file)]) == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--elo1", "100", "random"], "--elo1 goes with --compare"),
        (["--compare", "random", "greedy", "random"], "give no SPEC to rate, no --calibrate"),
        (["--compare", "random", "greedy", "--calibrate"], "give no SPEC to rate"),
        (["--compare", "random"], "expected 2 arguments"),
        (["--compare", "random", "greedy", "--elo0", "60"], "elo0 < elo1, got elo0=60.0"),
        (["--compare", "random", "greedy", "--alpha", "0"], "alpha must be an error rate > 0"),
        (["--compare", "random", "greedy", "--beta", "nan"], "beta must be an error rate > 0"),
        (["--compare", "random", "greedy", "--elo1", "inf"], "Elo differences from -1000"),
        (["--compare", "random", "greedy", "--max-games", "3"], "not an even number of games"),
        (["--compare", "random", "greedy", "--alpha", "x"], "invalid float value: 'x'"),
        (["--verify", "d", "--compare", "random", "greedy"], "--verify goes alone"),
        (["--compare", "random", "nosuchagent"], "nosuchagent"),
    ],
)
def test_trap_rate_compare_answers_bad_input_in_one_line(argv, message, tmp_path, capsys):
    try:
        status = rate_cli.main([*argv, "--output", str(tmp_path / "o")])
    except SystemExit as exit:  # the parser's errors
        status = exit.code
    error = capsys.readouterr().err
    assert status == 2 and message in error and len(error.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


MODEL_SETTINGS = [("trap", 4), ("othello", 6), ("othello", 8)]
"""Games and board sizes of the models below: Trap! 4x4 has no ladder, Othello's two do."""


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> list[tuple[str, str, int]]:
    """A ppo zip and an mcts network of each of :data:`MODEL_SETTINGS`: (spec, game, size)."""
    made = []
    for game, size in MODEL_SETTINGS:
        folder = tmp_path_factory.mktemp(f"{game}{size}")
        made += [(make(folder, game, board_size=size), game, size)
                 for make in (stamped_zip, stamped_network)]  # fmt: skip
    return made


def _main(argv: list[str]) -> tuple[int, str, str]:
    """``trap-rate``'s exit status, stdout and stderr; its comparison stopped as it starts."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            mock.patch.object(rate_cli, "compare", side_effect=RunStarted) as run:  # fmt: skip
        try:
            status = rate_cli.main(argv)
        except RunStarted:
            status = -1  # started: the ladder it plays on is in the call
        except SystemExit as exit:  # the parser's errors
            status = int(exit.code or 0)
    ladder = run.call_args.kwargs["ladder"] if run.called else None
    return status, err.getvalue(), ladder


@settings(max_examples=30, deadline=None)
@given(a=st.integers(0, 6), b=st.integers(0, 6))
def test_compare_plays_the_game_and_rules_its_models_record_and_refuses_two(models, a, b):
    """Index 6 is ``random``, no model: the other spec's record decides alone."""
    chosen = [models[i] if i < len(models) else ("random", None, None) for i in (a, b)]
    status, err, ladder = _main(["--compare", chosen[0][0], chosen[1][0], "--workers", "0"])
    recorded = {(game, size) for _, game, size in chosen if game is not None}
    if len(recorded) == 2:  # one line naming both models and their rules
        assert status == 2 and err.count("\n") == 1, err
        for spec, game, size in chosen:
            assert f"{spec.partition('path=')[2]} plays {game} {size}x{size}" in err
    elif recorded == {("trap", 4)}:
        assert status == 2 and "no ladder of trap 4x4" in err, err
    else:
        ((game, size),) = recorded or {("trap", 7)}  # no model: Trap!'s default ladder
        assert status == -1 and ladder == find_ladder(game, {"board_size": size}), err


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--game", "trap"], "plays othello, not trap; play it with --game othello"),
        (["--board-size", "8"], "plays othello 6x6, not the rules given (8x8)"),
        (["--game", "othello", "--rule", "end_rule=course"], "not the rules given "
         "(8x8-end_rule=course): give none to play it under its own; the ladders of othello"),
    ],
)
@pytest.mark.parametrize("model", [stamped_zip, stamped_network], ids=["ppo", "mcts"])
def test_compare_refuses_a_model_whose_record_is_not_the_game_or_rules_given(
    model, flags, message, tmp_path
):
    spec = model(tmp_path, "othello", board_size=6)
    for specs in ([spec, "random"], ["random", spec]):
        status, err, _ = _main(["--compare", *specs, *flags, "--output", str(tmp_path / "o")])
        assert status == 2 and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "o").exists()


@settings(max_examples=40, deadline=None)
@given(command_lines(
    ["--compare", "--elo0", "--elo1", "--alpha", "--beta", "--max-games", "--game", "--rule"],
    switches=["--calibrate", "--resume"], positionals=["random", "greedy"],
))  # fmt: skip
def test_fuzzed_compare_lines_start_a_run_or_are_one_line(tmp_path_factory, argv):
    with contextlib.chdir(tmp_path_factory.mktemp("compare")), \
            mock.patch.object(rate_cli, "compare", raise_run_started), \
            mock.patch.object(rate_cli, "rate_spec", raise_run_started), \
            mock.patch.object(rate_cli, "calibrate_ladder", raise_run_started):  # fmt: skip
        check_command(rate_cli.main, [*argv, "--workers", "0"], "trap-rate")

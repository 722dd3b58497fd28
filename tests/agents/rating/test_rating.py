"""Tests for agents.rating and trap-rate: the estimate, the schedule, cards, the ladders."""

from __future__ import annotations

import contextlib
import doctest
import importlib
import json
import lzma
import math
import pkgutil
import runpy
import zipfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from trap_scripts import rate as rate_cli

import agents.rating
from agents.arena import pool
from agents.arena.tournament import run_games
from agents.mcts.network import Network
from agents.rating import (
    estimate_rating,
    ladder_games,
    load_ladder,
    rate,
    rate_spec,
    shipped_ladders,
)
from agents.rating.calibrate import calibrate_ladder
from agents.rating.estimate import (
    LIKELIHOOD_RATIO,
    ONE_SIDED,
    TWO_SIDED,
    describe_interval,
    expected_score,
)
from agents.rating.fingerprint import fingerprints_of
from agents.rating.ladder import (
    ANCHOR,
    ANCHOR_RATING,
    Calibration,
    Ladder,
    Rung,
    find_ladder,
    ladder_target,
    new_ladder,
    write_ladder,
)
from agents.rating.run import make_card, policy_score, round_tasks, schedule_round
from agents.rl.ppo import GAME_MEMBER
from tests.agents.rating.conftest import STAGED
from tests.support.cli_fuzz import RunStarted, check_command, command_lines, raise_run_started
from tests.support.games import SHIPPED
from trap_env.games import get_game

SMALL = Ladder(
    game="trap",
    version="v1",
    params={"board_size": 5},
    opening_plies=2,
    seed=7,
    rungs=(
        Rung("random", 1000.0),
        Rung("greedy", 1400.0),
        Rung("alphabeta:depth=2,time_limit=none", 1700.0),
    ),
    calibration=Calibration(games_per_pairing=4, seed=1),
)
"""A ladder of Trap! 5x5 small enough for tests (its ratings are made up)."""


def without_date(card: dict) -> dict:
    """The card's fields that its games give (CPU times vary from run to run)."""
    return {key: value for key, value in card.items()
            if key not in ("date", "commit", "machine", "policy_cpu")}


@pytest.mark.parametrize(
    "module", sorted(info.name for info in pkgutil.iter_modules(agents.rating.__path__))
)
def test_each_module_s_examples_run(module: str) -> None:
    results = doctest.testmod(importlib.import_module(f"agents.rating.{module}"))
    assert results.failed == 0


# --- The estimate ------------------------------------------------------------------------

games_strategy = st.lists(
    st.tuples(st.sampled_from([800.0, 1000.0, 1300.0, 1800.0]), st.sampled_from([0.0, 0.5, 1.0])),
    min_size=1,
    max_size=40,
)


def _log_likelihood(games: list[tuple[float, float]], rating: float) -> float:
    """The games' log-likelihood at ``rating``, draws as half a win and half a loss."""
    return sum(score * math.log(expected_score(rating, opponent))
               + (1 - score) * math.log(1 - expected_score(rating, opponent))
               for opponent, score in games)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(games_strategy)
def test_the_estimate_is_the_likelihood_s_maximum_and_its_old_interval_the_ratio_test(games):
    estimate = estimate_rating(games, method=LIKELIHOOD_RATIO)
    score = sum(s for _, s in games)
    if 0 < score < len(games):
        grid = [estimate.rating + step for step in (-5.0, -1.0, 1.0, 5.0)]
        top = _log_likelihood(games, estimate.rating)
        assert all(_log_likelihood(games, r) <= top + 1e-9 for r in grid)
        assert estimate.low < estimate.rating < estimate.high
        for end in (estimate.low, estimate.high):  # each end is where the ratio test crosses
            assert _log_likelihood(games, end) == pytest.approx(top - TWO_SIDED, abs=1e-3)
        expected = sum(expected_score(estimate.rating, r) for r, _ in games)
        assert expected == pytest.approx(score, abs=1e-3)
    elif score == len(games):  # one-sided: a lower bound
        assert estimate.rating is None and estimate.high is None
        assert _log_likelihood(games, estimate.low) == pytest.approx(-ONE_SIDED, abs=1e-3)
        assert estimate.describe().startswith("> ")
    else:
        assert estimate.rating is None and estimate.low is None
        assert estimate.describe().startswith("< ")


def test_two_hundred_games_near_even_odds_give_about_fifty_points_either_way():
    games = [(1500.0, 1.0)] * 100 + [(1500.0, 0.0)] * 100
    estimate = estimate_rating(games)
    assert estimate.rating == pytest.approx(1500.0, abs=0.1)
    assert 45 < estimate.high - estimate.rating < 55
    assert estimate.describe() == "1500 [1452, 1548]"


@pytest.mark.parametrize("game", [(1000.0, 0.7), (math.inf, 1.0), (math.nan, 0.0)])
def test_the_estimate_refuses_a_score_or_rating_that_is_not_one(game):
    with pytest.raises(ValueError, match=r"score 0, 0\.5 or 1"):
        estimate_rating([game])


# --- The schedule --------------------------------------------------------------------------


def test_the_first_round_plays_every_rung_and_later_ones_the_nearest_three():
    ladder = load_ladder("trap")
    by_rating = [r.spec for r in sorted(ladder.rungs, key=lambda rung: rung.rating)]
    assert schedule_round(ladder, [], 200) == by_rating
    assert schedule_round(ladder, [], 4) == by_rating[:2]  # few games: the weakest rungs
    strong = [(spec, 1.0) for spec in ladder.specs[:-1]] + [(ladder.specs[-1], 0.0)]
    nearest = schedule_round(ladder, strong, 100)
    assert len(nearest) == 3 and by_rating[-1] in nearest
    assert schedule_round(ladder, strong, 2) == nearest[:1]  # one pair left


# --- Rating a policy -----------------------------------------------------------------------


def test_a_spec_rated_with_one_worker_or_two_gets_the_same_games_and_card(tmp_path):
    cards = []
    for workers in (1, 2):
        card = rate_spec(SMALL, "greedy", tmp_path / str(workers), games=8,
                         run_options={"workers": workers}, say=lambda line: None)
        cards.append(json.loads((tmp_path / str(workers) / "card.json").read_text()))
        assert card.num_games == 8 and card.line.startswith("trap ladder v1: ")
    assert without_date(cards[0]) == without_date(cards[1])
    games = [sorted(game_plays(tmp_path / str(w) / "results.jsonl")) for w in (1, 2)]
    assert games[0] == games[1]  # the same games, in any order of finishing


def game_plays(path) -> list[tuple]:
    """What decides each game of a results file (not its CPU times)."""
    records = [json.loads(line) for line in path.read_text().splitlines()]
    return [(r["game_id"], r["seed"], r["winner"], r["reason"], tuple(r["actions"]))
            for r in records]


def test_a_resumed_rating_finishes_with_nothing_lost_or_doubled(tmp_path):
    whole = rate_spec(SMALL, "greedy", tmp_path / "whole", games=12,
                      run_options={"workers": 0}, say=lambda line: None)
    cut = tmp_path / "cut"
    rate_spec(SMALL, "greedy", cut, games=12, run_options={"workers": 0}, say=lambda line: None)
    lines = (cut / "results.jsonl").read_text().splitlines(keepends=True)
    (cut / "results.jsonl").write_text("".join(lines[:7]))  # stopped in the second round
    (cut / "card.json").unlink()
    resumed = rate_spec(SMALL, "greedy", cut, games=12, run_options={"workers": 0},
                        resume=True, say=lambda line: None)
    assert without_date(json.loads(resumed.to_json())) == without_date(json.loads(whole.to_json()))
    assert len((cut / "results.jsonl").read_text().splitlines()) == 12
    with pytest.raises(ValueError, match="with spec 'greedy', this one has 'random'"):
        rate_spec(SMALL, "random", cut, games=12, resume=True, run_options={"workers": 0})
    with pytest.raises(ValueError, match="holds a rating already"):
        rate_spec(SMALL, "greedy", cut, games=12, run_options={"workers": 0})


def test_a_policy_that_raises_or_runs_out_of_time_loses_by_fault_and_the_run_goes_on(tmp_path):
    card = rate_spec(SMALL, "tests.support.faulty_agents.RaisingAgent:after=1", tmp_path / "r",
                     games=6, run_options={"workers": 0}, say=lambda line: None)
    assert card.num_games == 6 and sum(rung.faults for rung in card.opponents) == 6
    assert card.rating is None and card.line.endswith("< " + card.line.split("< ")[1])
    slow = rate_spec(SMALL, "tests.support.faulty_agents.SpinningAgent:seconds=0.3", tmp_path / "s",
                     games=2, cpu_cap=0.1, run_options={"workers": 0}, say=lambda line: None)
    assert sum(rung.faults for rung in slow.opponents) == 2
    illegal = rate_spec(SMALL, "tests.support.faulty_agents.IllegalAgent:after=1", tmp_path / "i",
                        games=2, run_options={"workers": 0}, say=lambda line: None)
    assert sum(rung.faults for rung in illegal.opponents) == 2


def test_a_python_policy_is_rated_through_the_callable(tmp_path):
    rules = get_game("trap")
    seen = []

    def first_legal(observation, mask):
        seen.append((observation.shape, mask.dtype))
        return int(mask.argmax())

    card = rate(first_legal, game="trap", games=4, output=tmp_path, name="first-legal",
                ladder=SMALL)
    config = rules.make_config(board_size=5)
    assert seen and seen[0] == (tuple(rules.observation_shape(config)), "int8")
    assert card.spec == "first-legal" and card.num_games == 4
    assert json.loads((tmp_path / "card.json").read_text())["spec"] == "first-legal"


# --- The command ---------------------------------------------------------------------------


def test_trap_rate_prints_the_line_and_writes_the_card(tmp_path, capsys):
    ladder_file = tmp_path / "ladder.json"
    ladder_file.write_text(SMALL.to_json())
    out = tmp_path / "out"
    assert rate_cli.main(["random", "--ladder", str(ladder_file), "--games", "6",
                          "--workers", "0", "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    card = json.loads((out / "card.json").read_text())
    line, scale = printed.strip().splitlines()[-2:]
    assert line == card["line"]
    assert scale == ("on the ladder's scale (its rungs' ratings exact): "
                     + describe_interval(card["scale_low"], card["scale_high"]))  # fmt: skip
    assert f"card: {out / 'card.json'}" in printed


def test_trap_rate_calibrates_a_ladder_from_its_round_robin(tmp_path, capsys):
    ladder_file = tmp_path / "ladder.json"
    ladder_file.write_text(SMALL.to_json())
    out = tmp_path / "cal"
    assert rate_cli.main(["--calibrate", "--ladder", str(ladder_file), "--workers", "0",
                          "--output", str(out)]) == 0
    rated = load_ladder("trap", out / "ladder.json")
    assert rated.calibration.num_games == 12 and rated.specs == SMALL.specs
    assert dict((r.spec, r.rating) for r in rated.rungs)[ANCHOR] == ANCHOR_RATING
    assert rated.calibration.command.startswith("trap-rate --calibrate")
    assert rated.fingerprints == fingerprints_of(rated)  # the rungs' moves, recorded afresh


TRAP = find_ladder("trap", version="v1")
"""The shipped ladder v1 of Trap! 7x7 (read before a test points the lookup elsewhere)."""

NEW_RUNGS = ["--calibrate", "--rungs", "random", "greedy", "--game", "trap", "--board-size",
             "4", "--games-per-pairing", "2", "--pair-games", "0", "--workers", "0"]  # fmt: skip
"""A new ladder of Trap! 4x4 of two rungs, calibrated by two games (a round robin alone)."""


def test_trap_rate_makes_a_new_ladder_of_the_rungs_given_and_rates_on_it(tmp_path):
    ladder_file = tmp_path / "new.json"
    argv = [*NEW_RUNGS, "--ladder-out", str(ladder_file), "--output", str(tmp_path / "cal")]
    assert rate_cli.main(argv) == 0
    new = load_ladder("trap", ladder_file)
    assert (new.version, new.params, new.specs) == ("v2", {"board_size": 4, "decay": 50},
                                                    ["random", "greedy"])  # fmt: skip
    assert new.calibration.num_games == 2 and new.fingerprints == fingerprints_of(new)
    out = tmp_path / "rated"
    assert rate_cli.main(["greedy", "--ladder", str(ladder_file), "--games", "2", "--workers",
                          "0", "--output", str(out)]) == 0  # fmt: skip
    assert json.loads((out / "card.json").read_text())["line"].startswith("trap 4x4 ladder v2: ")


def test_a_new_ladder_goes_into_its_game_s_ladders_folder_and_is_found_there(
    ladders_root, tmp_path, capsys
):
    (ladders_root / "trap" / "ladders" / "v1-7x7.json").write_text(TRAP.to_json())
    assert rate_cli.main([*NEW_RUNGS, "--output", str(tmp_path / "cal")]) == 0
    written = ladders_root / "trap" / "ladders" / "v2-4x4.json"
    assert find_ladder("trap", {"board_size": 4}) == load_ladder("trap", written)
    capsys.readouterr()
    for version, words in [("2", f"{written} exists already"), ("1", "is the v1 of trap already")]:
        status = rate_cli.main([*NEW_RUNGS, "--ladder-version", version, "--output",
                                str(tmp_path / version)])  # fmt: skip
        assert status == 2 and words in capsys.readouterr().err
        assert not (tmp_path / version).exists()  # refused before any game


def stamped_zip(folder: Path, game: str, **rules: object) -> str:
    """The spec of a ``ppo`` model zip that holds only its record of the game and rules: all
    that trap-rate reads of it before any game (a game would load its policy)."""
    path = folder / f"{game}-{len(rules)}.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(GAME_MEMBER, json.dumps({"game": game, "rules": rules}))
    return f"ppo:path={path}"


def stamped_network(folder: Path, game: str, **rules: object) -> str:
    """The spec of an ``mcts`` network of ``game`` under ``rules``, as small as one gets."""
    played = get_game(game)
    path = folder / f"{game}-{'-'.join(map(str, rules.values()))}.npz"
    Network.initial(played.make_config(**rules), channels=2, blocks=0, hidden=2,
                    game=played).save(path)  # fmt: skip
    return f"mcts:path={path}"


def test_a_ppo_model_s_record_picks_the_rules_and_other_rules_given_are_refused(
    ladders_root, tmp_path, capsys
):
    four = new_ladder("trap", {"board_size": 4}, ["random", "greedy"])
    write_ladder(four, ladder_target(four))
    spec = stamped_zip(tmp_path, "trap", board_size=4)
    with mock.patch.object(rate_cli, "rate_spec", side_effect=RunStarted) as run:
        assert check_command(rate_cli.main, [spec, "--output", str(tmp_path / "o")], "trap-rate")
    assert run.call_args.args[0] == four
    for argv, words in [
        (["--board-size", "7"], "plays trap 4x4, not the rules given (7x7)"),
        (["--game", "othello"], "plays trap, not othello; play it with --game trap"),
        (["--board-size", "4", "--rule", "decay=3"], "not the rules given (4x4-decay=3)"),
    ]:
        assert rate_cli.main([spec, *argv, "--output", str(tmp_path / "o")]) == 2
        assert words in capsys.readouterr().err
    assert rate_cli.main([stamped_zip(tmp_path, "trap", board_size=5, decay=50)]) == 2
    assert "no ladder of trap 5x5; the ladders of trap: 4x4 (v1)" in capsys.readouterr().err


@pytest.mark.parametrize("model", [stamped_zip, stamped_network], ids=["ppo", "mcts"])
@pytest.mark.parametrize("game", [[], ["--game", "othello"]], ids=["stamp", "given"])
def test_a_model_s_record_picks_its_game_too_and_its_ladder_by_its_rules(
    game, model, tmp_path, capsys
):
    spec = model(tmp_path, "othello", board_size=6)
    with mock.patch.object(rate_cli, "rate_spec", side_effect=RunStarted) as run:
        assert check_command(rate_cli.main, [spec, *game, "--output", str(tmp_path / "o")],
                             "trap-rate")  # fmt: skip
    assert run.call_args.args[0].name == "othello 6x6 ladder v2"
    for argv in (["--board-size", "8"], ["--rule", "end_rule=course"], ["--board-size", "4"]):
        assert rate_cli.main([spec, *game, *argv, "--output", str(tmp_path / "o")]) == 2
        (line,) = capsys.readouterr().err.splitlines()  # one line, before any game
        assert "plays othello 6x6, not the rules given" in line
        assert line.endswith("the ladders of othello: 8x8 (v1); 6x6 (v2)")
        assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("version", ["1", "v1"])
def test_trap_rate_takes_the_ladder_version_as_1_or_v1(version, tmp_path):
    with mock.patch.object(rate_cli, "rate_spec", side_effect=RunStarted) as run:
        argv = ["random", "--ladder-version", version, "--output", str(tmp_path)]
        assert check_command(rate_cli.main, argv, "trap-rate")
    assert run.call_args.args[0] == find_ladder("trap", version="v1")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "trap"], "give an agent SPEC to rate, or --calibrate"),
        (["random", "--games", "3"], "not an even number of games"),
        (["nosuchagent", "--game", "othello", "--games", "2"], "nosuchagent"),
        (["random", "--game", "nope"], "unknown game 'nope'"),
        (["random", "--ladder-version", "v0"], "a ladder version is v1, v2, ... (or 1, 2, ...)"),
        (["random", "--ladder-version", "3"], "no v3 ladder of trap 7x7; the ladders of trap: "
         "7x7 (v1, v2)"),
        (["random", "--board-size", "5"], "no ladder of trap 5x5; the ladders of trap: 7x7 (v1, v2)"),
        (["random", "--game", "othello", "--rule", "end_rule=course"],
         "no ladder of othello 8x8-end_rule=course; the ladders of othello: 8x8 (v1)"),
        (["random", "--board-size", "7", "--rule", "board_size=7"], "given twice"),
        (["random", "--game", "colosseum", "--board-size", "6-12"],
         "no ladder of colosseum 6-12; the ladders of colosseum: 8x8 (v1, v2)"),  # drawn: a setting
        (["random", "--rungs", "random", "greedy"], "--rungs goes with --calibrate"),
        (["--calibrate", "--rungs", "greedy", "epsilon-greedy"],
         "the new ladder of trap 7x7: rungs has no 'random', the anchor"),
        (["--calibrate", "--rungs", "random", "greedy", "--ladder", "l.json"],
         "--rungs makes a new ladder and --ladder reads one"),
    ],
)
def test_trap_rate_answers_bad_input_in_one_line(argv, message, tmp_path, capsys):
    try:
        status = rate_cli.main([*argv, "--output", str(tmp_path / "o")])
    except SystemExit as exit:  # the parser's errors
        status = exit.code
    error = capsys.readouterr().err
    assert status == 2 and message in error and len(error.strip().splitlines()) == 1


@settings(max_examples=40, deadline=None)
@given(command_lines(
    ["--game", "--board-size", "--rule", "--ladder-version", "--rungs", "--ladder-out",
     "--games-per-pairing", "--opening-plies"],
    switches=["--calibrate"], positionals=["random", "greedy"],
))  # fmt: skip
@example(["--calibrate", "--rungs", "random", "greedy", "--board-size", "5"])
def test_fuzzed_ladder_choices_start_a_run_or_are_one_line(tmp_path_factory, argv):
    with contextlib.chdir(tmp_path_factory.mktemp("rate")), \
            mock.patch.object(rate_cli, "rate_spec", raise_run_started), \
            mock.patch.object(rate_cli, "calibrate_ladder", raise_run_started):  # fmt: skip
        check_command(rate_cli.main, [*argv, "--workers", "0"], "trap-rate")


# --- The shipped ladders -------------------------------------------------------------------


def test_every_game_has_a_ladder_anchored_on_random_without_a_clock():
    assert ladder_games() == sorted(SHIPPED)
    for ladder in shipped_ladders():
        ratings = {rung.spec: rung.rating for rung in ladder.rungs}
        most = 10 if ladder.version == "v1" else 16  # v2 spends games on neighbours: more fit
        assert ratings[ANCHOR] == ANCHOR_RATING and 6 <= len(ladder.rungs) <= most
        for spec in ladder.specs:  # a clock would make a rung's play the machine's
            clockless = spec.partition(":")[0] in ("random", "greedy", "epsilon-greedy")
            assert clockless or "time_limit=none" in spec
        assert ladder.calibration.num_games > 0 and ladder.calibration.command


@pytest.mark.parametrize(
    "ladder", shipped_ladders(), ids=lambda ladder: f"{ladder.game}-{ladder.file_stem}"
)
def test_each_rung_plays_as_when_its_ladder_was_rated(ladder):
    """A change of code that alters a rung's moves calls for a new ladder version."""
    assert ladder.fingerprints is not None, f"the {ladder.name} records no fingerprints"
    assert fingerprints_of(ladder) == ladder.fingerprints


def test_the_sb3_example_rates_during_learn_and_after_it(capsys, request):
    pytest.importorskip("sb3_contrib")
    path = request.path.parents[3] / "examples" / "rate_ppo.py"
    example = runpy.run_path(str(path), run_name="example")
    example["main"](["--timesteps", "256", "--rate-every", "256", "--games", "2",
                     "--callback-games", "2"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("step 256: trap 7x7 ladder v2: ")
    assert lines[-1].startswith("trap 7x7 ladder v2: ") and lines[-1].endswith("(2 games)")


def test_a_rating_plays_its_rounds_on_one_pool_the_games_a_runner_per_round_plays(
    tmp_path, monkeypatch
):
    started = []
    start = pool.WorkerPool._start
    monkeypatch.setattr(pool.WorkerPool, "_start", lambda self: started.append(1) or start(self))
    card = rate_spec(SMALL, "greedy", tmp_path / "one", games=8, run_options={"workers": 1},
                     say=lambda line: None)
    assert len(started) == 1  # one worker for the rating's two rounds, not one a round
    pairs: dict[str, int] = {}
    records: list[dict] = []  # the rounds as a runner per round played them
    while len(records) < 8:
        scores = [(r["pairing"][1], policy_score(r)) for r in records]
        rungs = schedule_round(SMALL, scores, 8 - len(records))
        records += run_games(round_tasks(SMALL, "greedy", 0, rungs, pairs),
                             tmp_path / "rounds.jsonl", SMALL.run_config(workers=0),
                             resume=bool(records), progress=False)  # fmt: skip
        pairs.update({rung: pairs.get(rung, 0) + 1 for rung in rungs})
    assert sorted(game_plays(tmp_path / "one" / "results.jsonl")) == sorted(
        game_plays(tmp_path / "rounds.jsonl")
    )
    remade = make_card(SMALL, "greedy", 0, records)
    assert without_date(json.loads(remade.to_json())) == without_date(json.loads(card.to_json()))


def test_a_staged_calibration_resumes_without_playing_a_game_twice_and_is_rated_on(
    calibrated, tmp_path
):
    assert sorted(path.name for path in calibrated.iterdir()) == [
        "ladder.json", "results.jsonl.xz", "results.settings.json"
    ]  # the games packed
    cut = tmp_path / "cut"
    cut.mkdir()
    lines = lzma.decompress((calibrated / "results.jsonl.xz").read_bytes()).splitlines(True)
    (cut / "results.jsonl").write_bytes(b"".join(lines[:9]))  # stopped in the second stage
    (cut / "results.settings.json").write_bytes((calibrated / "results.settings.json").read_bytes())
    assert rate_cli.main([*STAGED, "--output", str(cut), "--ladder-out", str(cut / "ladder.json"),
                          "--resume"]) == 0  # fmt: skip
    resumed = lzma.decompress((cut / "results.jsonl.xz").read_bytes()).splitlines(True)
    assert resumed[:9] == lines[:9] and len(resumed) == len(lines) == 30  # none played again
    first, again = (load_ladder("trap", folder / "ladder.json") for folder in (calibrated, cut))
    assert (again.rungs, again.covariance) == (first.rungs, first.covariance)
    assert first.covariance is not None and first.calibration.num_games == 30
    assert rate_cli.main(["greedy", "--ladder", str(cut / "ladder.json"), "--games", "2",
                          "--workers", "0", "--output", str(tmp_path / "rated")]) == 0
    line = json.loads((tmp_path / "rated" / "card.json").read_text())["line"]
    assert line.startswith("trap 4x4 ladder v2: ")
    with pytest.raises(ValueError, match=r"games already \(results.jsonl.xz\); continue"):
        calibrate_ladder(first, cut)  # packed games are never played over unasked

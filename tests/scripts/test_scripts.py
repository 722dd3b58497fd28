"""Tests of the command-line tools: evaluate, tournament, play, benchmark."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import sys
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from trap_scripts import _cli, benchmark, evaluate, play, tournament
from trap_scripts.benchmarks import pgx
from trap_scripts.benchmarks import search as search_rows

from agents.arena.tournament import load_results
from tests.support.cli_fuzz import (
    VALUES,
    check_command,
    command_lines,
    exit_status,
    raise_run_started,
)
from tests.support.games import PATHS, SHIPPED

TWO_RANDOMS = ["random", "agents.trap.random_agent.RandomAgent"]
QUICK = ["--games", "2", "--board-size", "5", "--workers", "0", "--quiet"]


def test_evaluate_writes_results_summary_and_plot(tmp_path, capsys):
    status = evaluate.main(["--agents", *TWO_RANDOMS, *QUICK, "--output", str(tmp_path)])
    assert status == 0
    out = capsys.readouterr().out
    assert "win rate [95% CI]" in out and "Elo" in out
    assert len(load_results(tmp_path / "results.jsonl")) == 2
    assert "W-D-L" in (tmp_path / "summary.txt").read_text()
    assert (tmp_path / "evaluate.png").read_bytes()[:4] == b"\x89PNG"


def test_evaluate_defaults_keep_only_agents_that_build():
    assert "random" in evaluate.available_agents()
    assert evaluate.available_agents(["random", "no_such_agent", "random:bad=1"]) == ["random"]


def test_tournament_resume_adds_only_missing_games(tmp_path, capsys):
    argv = [*TWO_RANDOMS, *QUICK, "--no-plot", "--output", str(tmp_path)]
    assert tournament.main(argv) == 0
    assert tournament.main([*argv, "--games", "4", "--resume"]) == 0
    assert len(load_results(tmp_path / "results.jsonl")) == 4
    assert "4 games" in capsys.readouterr().out


def test_tournament_game_trap_is_the_default_and_its_records_name_it_with_every_rule(tmp_path):
    argv = [*TWO_RANDOMS, *QUICK, "--no-plot", "--output", str(tmp_path)]
    assert tournament.main(argv) == 0
    records = load_results(tmp_path / "results.jsonl")
    rules = {"board_size": 5, "decay": 50}
    assert records and all(r["game"] == "trap" and r["rules"] == rules for r in records)
    settings = json.loads((tmp_path / "results.settings.json").read_text())
    assert settings["game"] == "trap" and settings["rules"] == rules
    assert tournament.main([*argv, "--game", "trap", "--games", "4", "--resume"]) == 0
    assert len(load_results(tmp_path / "results.jsonl")) == 4


def test_a_game_name_is_offered_from_the_registry():
    args = tournament.build_parser().parse_args(["random", "greedy", "--game", "trap"])
    assert args.game == "trap"
    assert evaluate.build_parser().parse_args(["--game", "trap"]).game == "trap"


BAD_INPUT = [
    ([*TWO_RANDOMS, "--game", "chess"], "unknown game 'chess'"),
    (["random", "no_such_agent"], "unknown agent 'no_such_agent'"),
    (["random", "random:depth=2"], "takes no option 'depth'"),
    (["random", "no.such.Module"], "cannot import"),
    (["random", "random"], "distinct"),
    ([*TWO_RANDOMS, "--games", "x"], "'x' is not an integer 1..1000000"),
    ([*TWO_RANDOMS, "--games", "0"], "'0' is not an integer 1..1000000"),
    ([*TWO_RANDOMS, "--time-budget", "2000000"], "'2000000' is not positive seconds up to 1000000"),
    ([*TWO_RANDOMS, "--wall-ceiling", "1e300"], "--wall-ceiling"),
    ([*TWO_RANDOMS, "--time-budget", "nan"], "--time-budget"),
    (["random", "tests.support.faulty_agents.RaisingConstructorAgent"], "cannot build this agent"),
    (["random", "tests.support.faulty_agents.ExitingConstructorAgent"], "it exited with code 7"),
    (["random", "os.getcwd"], "'os.getcwd' is not an agent"),
    (["random", "tests.support.faulty_agents.FiveOnlyAgent"], "plays 5x5 boards only, not 7x7"),
    ([*TWO_RANDOMS, "--board-size", "2"], "board_size must be an integer from 3 to 1000"),
    ([*TWO_RANDOMS, "--board-size", "6-4"], "--rule board_size=6-4: a rule drawn per game is "
                                            "LOW-HIGH, integers with LOW <= HIGH"),
    ([*TWO_RANDOMS, "--time-budget", "-1"], "--time-budget"),
    ([*TWO_RANDOMS, "--workers", "1.5"], "--workers"),
    ([*TWO_RANDOMS, "--decay", "-1"], "decay must be an integer per mille in 0..1000"),
    ([*TWO_RANDOMS, "--decay", "1001"], "decay must be an integer per mille in 0..1000"),
    ([*TWO_RANDOMS, "--decay", "x"], "decay must be an integer per mille in 0..1000"),
    ([*TWO_RANDOMS, "--resume", "--overwrite"], "not allowed with argument --resume"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_INPUT)
def test_bad_input_is_one_line_and_no_game_starts(tmp_path, capsys, argv, message):
    output = tmp_path / "out"
    assert exit_status(tournament.main, [*argv, "--output", str(output), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert not (output / "results.jsonl").exists()


def test_inf_reads_as_no_limit_and_runs(tmp_path, capsys):
    args = tournament.build_parser().parse_args(
        [*TWO_RANDOMS, "--time-budget", "inf", "--wall-ceiling", "Infinity"]
    )
    assert args.time_budget is None and args.wall_ceiling == math.inf
    argv = [*TWO_RANDOMS, "--games", "2", "--board-size", "5", "--workers", "1", "--quiet",
            "--no-plot", "--output", str(tmp_path), "--time-budget", "inf",
            "--wall-ceiling", "inf"]  # fmt: skip
    assert tournament.main(argv) == 0
    assert [r["time_budget"] for r in load_results(tmp_path / "results.jsonl")] == [None, None]
    capsys.readouterr()


def test_a_folder_with_results_needs_resume_or_overwrite(tmp_path, capsys):
    argv = [*TWO_RANDOMS, *QUICK, "--no-plot", "--output", str(tmp_path)]
    assert tournament.main(argv) == 0
    first = (tmp_path / "results.jsonl").read_text()
    assert tournament.main(argv) == 2
    err = capsys.readouterr().err
    assert "already holds 2 recorded games" in err and "--overwrite" in err
    assert len(err.strip().splitlines()) == 1
    assert (tmp_path / "results.jsonl").read_text() == first
    assert tournament.main([*argv, "--resume", "--board-size", "6"]) == 2
    assert "board_size 5 there, 6 now" in capsys.readouterr().err
    assert tournament.main([*argv, "--overwrite", "--board-size", "6"]) == 0
    assert {r["rules"]["board_size"] for r in load_results(tmp_path / "results.jsonl")} == {6}


def test_a_decay_is_played_recorded_and_resumed_only_with_itself(tmp_path, capsys):
    argv = [*TWO_RANDOMS, *QUICK, "--no-plot", "--output", str(tmp_path), "--decay", "0"]
    assert tournament.main(argv) == 0
    settings = json.loads((tmp_path / "results.settings.json").read_text())
    assert settings["rules"]["decay"] == 0
    assert [r["rules"]["decay"] for r in load_results(tmp_path / "results.jsonl")] == [0, 0]
    capsys.readouterr()
    assert tournament.main([*argv, "--resume", "--decay", "1000"]) == 2
    note, error = capsys.readouterr().err.strip().splitlines()  # the alias's note, the error
    assert "--decay is an alias of --rule decay=VALUE" in note
    assert "decay 0 there, 1000 now" in error
    assert tournament.main([*argv, "--resume", "--games", "4"]) == 0
    assert len(load_results(tmp_path / "results.jsonl")) == 4


def test_unwritable_output_is_one_line_before_any_game(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    argv = ["--agents", *TWO_RANDOMS, *QUICK, "--output", str(blocker / "sub")]
    assert evaluate.main(argv) == 2
    err = capsys.readouterr().err
    assert "cannot write to the output folder" in err and len(err.strip().splitlines()) == 1


def test_play_watches_a_game_and_writes_a_gif(tmp_path, capsys):
    assert play.main(["random", "random", "--board-size", "5", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "turn 0, player 0 to move" in out and "won after" in out
    gif = tmp_path / "game.gif"
    assert play.main(["random", "random", "--board-size", "5", "--gif", str(gif)]) == 0
    assert gif.read_bytes()[:3] == b"GIF"


def test_play_replays_a_recorded_game(tmp_path, capsys):
    evaluate.main(["--agents", *TWO_RANDOMS, *QUICK, "--no-plot", "--output", str(tmp_path)])
    capsys.readouterr()
    results = str(tmp_path / "results.jsonl")
    assert play.main(["--replay", results, "--index", "1"]) == 0
    record = load_results(results)[1]
    assert f"after {record['turns']} turns" in capsys.readouterr().out
    assert play.main(["--replay", results, "--index", "5"]) == 2
    assert "holds 2 games" in capsys.readouterr().err


def test_play_plays_the_decay_it_is_given(tmp_path, capsys):
    with mock.patch.object(play, "play_game", wraps=play.play_game) as spy:
        argv = ["random", "random", "--board-size", "5", "--decay", "0"]
        assert play.main([*argv, "--gif", str(tmp_path / "g.gif")]) == 0
    assert spy.call_args.kwargs["params"] == {"board_size": 5, "decay": 0}
    capsys.readouterr()
    assert exit_status(play.main, ["random", "random", "--decay", "x"]) == 2
    err = capsys.readouterr().err
    assert "decay must be an integer per mille in 0..1000" in err
    assert len(err.strip().splitlines()) == 1


def test_decay_is_an_alias_of_its_rule_that_says_so_once(tmp_path, capsys):
    """--decay N is --rule decay=N: the run's rule dictionary holds it, as any game's rules;
    the command says once, on stderr, that the flag is an alias."""
    configs, notes = [], []
    for flags in (["--decay", "0"], ["--rule", "decay=0"]):
        with mock.patch.object(_cli, "run_games", return_value=[]) as run_games:
            tournament.main(["random", "greedy", "--board-size", "5", "--quiet", "--no-plot",
                             "--output", str(tmp_path / flags[0]), *flags])  # fmt: skip
        configs.append(run_games.call_args.args[2])
        notes.append(capsys.readouterr().err)
    assert configs[0].params == configs[1].params == {"board_size": 5, "decay": 0}
    assert configs[0].settings() == configs[1].settings()
    note = "trap-tournament: note: --decay is an alias of --rule decay=VALUE\n"
    assert notes[0].count(note) == 1 and note not in notes[1]
    assert exit_status(tournament.main, ["random", "greedy", "--decay", "0", "--rule",
                                         "decay=1"]) == 2  # fmt: skip
    assert capsys.readouterr().err.count("\n") == 1  # the error alone, no note


def test_play_draws_watches_and_replays_another_game(tmp_path, capsys):
    from trap_scripts import tournament

    racers = ["tests.support.toy_game.RandomRacer", "tests.support.toy_game.Walker"]
    argv = [*racers, "--game", "tests.support.toy_game:GAME"]
    assert play.main([*argv, "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "won after" in out or "draw after" in out
    assert exit_status(play.main, [*argv, "--decay", "10"]) == 2
    assert "Race has no rule 'decay'; Race's rules, at their defaults: goal=4" in (
        capsys.readouterr().err
    )
    folder = tmp_path / "race"
    assert tournament.main([*argv, "--games", "2", "--time-budget", "none", "--workers", "1",
                            "--out", str(folder), "--no-plot", "--quiet"]) == 0  # fmt: skip
    replay = ["--replay", str(folder / "results.jsonl"), "--game", "tests.support.toy_game:GAME"]
    assert play.main([*replay, "--index", "1"]) == 0
    assert play.main([*replay, "--gif", str(tmp_path / "r.gif")]) == 0
    capsys.readouterr()
    assert exit_status(play.main, replay[:2]) == 2  # a game's path is imported only when given
    assert "'tests.support.toy_game:GAME'" in capsys.readouterr().err
    assert (tmp_path / "r.gif").stat().st_size > 0


def human_game(monkeypatch, lines):
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))
    return play.main(["human", "random", "--board-size", "5", "--max-turns", "1"])


def test_human_gets_the_legal_choices_and_a_message_on_bad_input(monkeypatch, capsys):
    # Player 0 starts on 0,2: 0,0 is not a neighbour, "x" is no cell, 1,2 is fine.
    assert human_game(monkeypatch, ["0,0", "x", "9,9", "1,2", "1,2", "3,3"]) == 0
    out = capsys.readouterr().out
    assert "move: one of 0,1 0,3 1,1 1,2 1,3" in out
    assert "throw: any except " in out
    assert "not a legal choice: '0,0'" in out and "not a legal choice: 'x'" in out
    assert "not a legal choice: '1,2'" in out  # throwing at one's own cell
    assert "draw after 1 turns" in out


def test_human_end_of_input_resigns_cleanly(monkeypatch, capsys):
    assert human_game(monkeypatch, ["0,1"]) == 1
    out = capsys.readouterr().out
    assert "you resigned" in out and "Traceback" not in out


def test_play_bad_input(tmp_path, capsys):
    assert exit_status(play.main, ["random"]) == 2
    assert exit_status(play.main, ["random", "nobody"]) == 2
    assert (
        exit_status(play.main, ["random", "random", "--gif", str(tmp_path / "no" / "g.gif")]) == 2
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("trap-play: error:") for line in err)


def test_benchmark_quick_prints_and_writes_json(tmp_path, capsys):
    path = tmp_path / "bench.json"
    with mock.patch.dict(sys.modules, {"pgx": None}):  # the peer's row says it is missing
        assert benchmark.main(["--quick", "--json", str(path)]) == 0
    figures = json.loads(path.read_text())["figures"]
    names = [figure["name"] for figure in figures]
    note = f"pgx not installed ({pgx.PGX_INSTALL})"
    assert {"name": pgx.PGX_ROW, "value": 0.0, "unit": "skipped", "note": note} in figures
    assert not [name for name in names if "/ pgx" in name]  # no ratio without the peer
    expected = [
        "core random playout",
        "connect_four_v3 env()",
        "trap_v0 AEC env()",
        "Trap-v0 Gym env",
        "Othello-v0 Gym env",
        "Colosseum-v0 Gym env",
        "search depth in 0.2 s, start",
        "nodes at depth 2: plain expectimax",
        "nodes at depth 2: all + table",
    ]
    assert set(expected) <= set(names)
    assert "plies/s" in capsys.readouterr().out


def test_benchmark_counts_the_full_tree_like_the_search_without_pruning():
    from agents.search.expectimax import Search
    from agents.trap.search_game import TrapGame

    game, state = TrapGame(), search_rows.middle_game()
    search = Search(game, use_table=False, star1=False, star2=False)
    assert search_rows.plain_expectimax_nodes(game, state, 1) == 1 + len(game.legal_actions(state))
    search.value(state, 2)
    assert search.nodes <= search_rows.plain_expectimax_nodes(game, state, 2)


OPTION_WORDS = ["--games", "--board-size", "--max-turns", "--time-budget", "--wall-ceiling",
                "--workers", "--seed", "--output", "--resume", "--overwrite", "--agents", "--",
                "random", "greedy", "inf", "-inf", "nan", "none", "0", "-1", "1e309", "2000000",
                "3", "1.5", "x", "", "\x00", "out/\x00", "random:x=1", ":"]  # fmt: skip
ARGUMENTS = st.lists(
    st.one_of(st.sampled_from(OPTION_WORDS), st.text(max_size=8), st.integers(-5, 9).map(str)),
    max_size=8,
)


@contextlib.contextmanager
def no_games(folder):
    """In ``folder``, with the runner and the agent probe replaced by stubs: no game is played."""
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        agents = ["random", "greedy"]
        with mock.patch.object(_cli, "run_games", return_value=[]) as run_games, \
                mock.patch.object(evaluate, "available_agents", return_value=agents):  # fmt: skip
            yield run_games
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("script", [tournament, evaluate])
@given(argv=ARGUMENTS)
def test_any_arguments_end_in_a_run_or_a_one_line_error(tmp_path_factory, script, argv):
    errors, output = io.StringIO(), io.StringIO()
    with no_games(tmp_path_factory.mktemp("cli")) as run_games, \
            contextlib.redirect_stderr(errors), contextlib.redirect_stdout(output):  # fmt: skip
        status = exit_status(script.main, [*argv, "--no-plot", "--quiet"])
    err = errors.getvalue()
    assert status in (0, 2), (argv, status, err)
    if status == 2:
        assert len(err.strip().splitlines()) == 1 and ": error: " in err, (argv, err)
    if run_games.called:
        tasks, _, config = run_games.call_args.args
        assert len(tasks) >= 1 and config.game.board_size >= 3


def test_another_games_rules_come_from_board_size_and_rule(tmp_path, capsys):
    folder = tmp_path / "othello"
    argv = ["random", "greedy", "--game", "othello", "--games", "2", "--time-budget", "none",
            "--workers", "0", "--no-plot", "--quiet", "--output", str(folder)]  # fmt: skip
    assert tournament.main([*argv, "--board-size", "6", "--rule", "end_rule=course"]) == 0
    records = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    assert [r["rules"] for r in records] == [{"board_size": 6, "end_rule": "course"}] * 2
    assert {r["game"] for r in records} == {"othello"}
    capsys.readouterr()
    for extra, words in [
        (["--rule", "end_rule=sudden"], "end_rule"),
        (["--rule", "end_rule"], "is not KEY=VALUE"),
        (["--decay", "10"], "Othello has no rule 'decay'"),
        (["--rule", "end_rule=course", "--rule", "end_rule=course"], "given twice"),
        (["--rule", "size=6", "--rule", "size=8"], "Othello has no rule 'size'; Othello's "
                                                   "rules, at their defaults: board_size=8"),
    ]:
        assert exit_status(tournament.main, [*argv, "--overwrite", *extra]) == 2
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1
    assert exit_status(tournament.main, ["random", "greedy", "--rule", "end_rule=course"]) == 2
    assert "Trap! has no rule 'end_rule'" in capsys.readouterr().err
    assert evaluate._default_agents("othello") == (
        "mcts", "expectiminimax", "greedy", "random"
    )


# --- Fuzzing each command's flags: the run starts, or one line and exit status 2 ----------

RUN_FLAGS = ["--game", "--games", "--board-size", "--rule", "--max-turns", "--decay",
             "--time-budget", "--wall-ceiling", "--workers", "--backend", "--address",
             "--seed", "--output", "--memory-limit"]  # fmt: skip
RUN_SWITCHES = ["--resume", "--overwrite", "--no-plot", "--quiet"]
SPECS = ["random", "greedy", "nobody", "random:depth=2", "exec:", "human",
         "tests.support.toy_game:GAME"]  # fmt: skip


@contextlib.contextmanager
def runs_stopped(folder, *stubs):
    """In ``folder``, with each ``(module, name)`` in ``stubs`` raising RunStarted."""
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.chdir(folder))
        for module, name in stubs:
            stack.enter_context(mock.patch.object(module, name, raise_run_started))
        yield


@settings(max_examples=60, deadline=None)
@given(argv=command_lines(RUN_FLAGS, switches=RUN_SWITCHES, positionals=SPECS))
@example(argv=["--games=--"])  # argparse 3.11 gave the option an empty list
@example(argv=["--output", "out/\x00"])
def test_fuzzed_tournament_flags_start_the_run_or_are_one_line(tmp_path_factory, argv):
    with runs_stopped(tmp_path_factory.mktemp("cli"), (_cli, "run_games")):
        check_command(tournament.main, ["random", "greedy", *argv], "trap-tournament")


def _all_build(specs, config):
    return dict.fromkeys(specs)


@settings(max_examples=60, deadline=None)
@given(argv=command_lines([*RUN_FLAGS, "--agents"], switches=RUN_SWITCHES, positionals=SPECS))
def test_fuzzed_evaluate_flags_start_the_run_or_are_one_line(tmp_path_factory, argv):
    with runs_stopped(tmp_path_factory.mktemp("cli"), (_cli, "run_games")), \
            mock.patch.object(evaluate, "probe_specs", _all_build):  # fmt: skip
        check_command(evaluate.main, argv, "trap-evaluate")


PLAY_FLAGS = ["--board-size", "--decay", "--rule", "--seed", "--max-turns", "--time-budget",
              "--delay", "--gif", "--frame-seconds", "--replay", "--index", "--game"]  # fmt: skip
RESULTS_FILES = ["results.jsonl", "garbage.jsonl", "missing.jsonl", "folder", "g.gif"]


@pytest.fixture(scope="module")
def results_folder(tmp_path_factory):
    """A folder with a results file of two games, a garbage one and a subfolder."""
    folder = tmp_path_factory.mktemp("replays")
    with contextlib.redirect_stdout(io.StringIO()):
        assert tournament.main([*TWO_RANDOMS, *QUICK, "--no-plot", "--output", str(folder)]) == 0
    (folder / "garbage.jsonl").write_bytes(b'{"seed": 1}\n\xff\n')
    (folder / "folder").mkdir()
    return folder


@settings(max_examples=60, deadline=None)
@given(
    argv=command_lines(PLAY_FLAGS, [*VALUES, *RESULTS_FILES], positionals=SPECS),
    agents=st.lists(st.sampled_from(SPECS), max_size=3),
)
@example(argv=["--replay", "\x00"], agents=[])  # open() raised ValueError
def test_fuzzed_play_flags_start_the_game_or_are_one_line(results_folder, argv, agents):
    with runs_stopped(results_folder, (play, "play_game"), (play, "replay_record")):
        check_command(play.main, [*agents, *argv], "trap-play")


@settings(max_examples=40, deadline=None)
@given(
    argv=command_lines(
        ["--seconds", "--search-seconds", "--depth", "--ppo-timesteps", "--json"],
        [*VALUES, "bench.json", "folder", "missing/bench.json"],
        switches=["--quick"],
    )
)
@example(argv=["--json", "\x00"])
def test_fuzzed_benchmark_flags_start_the_measures_or_are_one_line(results_folder, argv):
    with runs_stopped(results_folder, (benchmark, "run")):
        check_command(benchmark.main, argv, "trap-benchmark")


def test_a_negative_number_of_ppo_steps_is_refused(capsys):
    assert exit_status(benchmark.main, ["--ppo-timesteps", "-1"]) == 2
    assert "'-1' is not an integer >= 0" in capsys.readouterr().err


# --- Rules: any game's, on every command --------------------------------------------------

RACE = PATHS["race"]
RACERS = ["tests.support.toy_game.RandomRacer", "tests.support.toy_game.Walker"]


def test_a_game_without_a_board_plays_writes_and_plots_its_run(tmp_path, capsys):
    """Race has no board_size: its run is titled, summed up and plotted by its own rules."""
    argv = [*RACERS, "--game", RACE, "--games", "4", "--time-budget", "none", "--workers", "0",
            "--quiet", "--output", str(tmp_path), "--rule", "goal=3-5"]  # fmt: skip
    assert tournament.main(argv) == 0
    assert "Race, goal 3 to 5, no time limit: 2 agents" in capsys.readouterr().out
    assert (tmp_path / "tournament.png").read_bytes()[:4] == b"\x89PNG"
    records = load_results(tmp_path / "results.jsonl", allow_paths=(RACE,))
    goals = {record["rules"]["goal"] for record in records}
    assert goals <= {3, 4, 5} and len(goals) > 1
    assert tournament.main([*argv, "--resume", "--games", "6"]) == 0
    assert len(load_results(tmp_path / "results.jsonl", allow_paths=(RACE,))) == 6
    capsys.readouterr()
    assert exit_status(tournament.main, [*argv, "--resume", "--board-size", "5"]) == 2
    assert "Race has no rule 'board_size'; Race's rules, at their defaults: goal=4" in (
        capsys.readouterr().err
    )


def rule_texts() -> st.SearchStrategy[str]:
    """``NAME=VALUE`` texts: the games' rule names and others, values of every kind."""
    names = st.sampled_from(["board_size", "decay", "end_rule", "start", "goal", "size", ""])
    values = st.one_of(
        st.integers(-2, 20).map(str),
        st.tuples(st.integers(-2, 14), st.integers(-2, 14)).map(lambda p: f"{p[0]}-{p[1]}"),
        st.sampled_from(["course", "standard", "x", "", "1e3", "9" * 120]),
        st.text(max_size=6),
    )
    return st.tuples(names | st.text(max_size=6), st.sampled_from(["=", ""]), values).map("".join)


EVERY_GAME = [*SHIPPED, *PATHS.values()]
"""Every game as the commands name it: a shipped one by its name, a test-only one by its path."""


@settings(max_examples=80, deadline=None)
@given(game=st.sampled_from(EVERY_GAME), texts=st.lists(rule_texts(), max_size=3))
def test_any_rule_gives_the_runs_rules_or_one_line_naming_the_games_rules(game, texts):
    """A --rule that is no NAME=VALUE, names no rule of the game or is given twice is one
    line naming the game's rules; a value the game refuses, one line in the game's words."""
    from agents.options import rule_pair
    from trap_env.game import played_params
    from trap_env.games import get_game

    argv = ["random", "greedy", "--game", game, *(f"--rule={text}" for text in texts)]
    args = tournament.build_parser(game).parse_args(argv)
    rules = played_params(get_game(game))
    try:
        names = [rule_pair(text)[0] for text in texts]
    except argparse.ArgumentTypeError:
        names = None  # a text that is no NAME=VALUE
    try:
        config = _cli.run_config(args)
    except _cli.CliError as error:
        message = str(error)
        assert "\n" not in message
        if names is None or len(set(names)) < len(names) or not set(names) <= set(rules):
            assert all(f"{name}={value}" in message for name, value in rules.items()), message
        else:  # the game's own words, naming the rule
            assert any(name in message for name in names), message
        return
    assert names is not None and set(config.params or {}) == set(names) <= set(rules)


@pytest.mark.parametrize("game", EVERY_GAME)
def test_every_commands_help_gives_the_chosen_games_rules_and_turn_limit(game, capsys):
    from trap_env.games import get_game

    found = get_game(game)
    limit = str(found.default_turn_limit(found.make_config()))
    for main in (tournament.main, evaluate.main, play.main):
        assert exit_status(main, ["--game", game, "--help"]) == 0
        shown = " ".join(capsys.readouterr().out.split())  # the help's lines joined
        assert f"{found.title}'s own limit" in shown and f"{limit} under its default" in shown
        assert f"{found.title}'s rules, at their defaults:" in shown


def test_play_draws_a_rule_given_as_a_range_from_its_seed(tmp_path, capsys):
    """trap-play plays the game that a tournament plays for a game of that seed."""
    from agents.arena.match import derive_seed

    for seed in range(3):
        with mock.patch.object(play, "play_game", wraps=play.play_game) as spy:
            argv = ["random", "random", "--rule", "board_size=4-6", "--seed", str(seed)]
            assert play.main(argv) == 0
        size = 4 + derive_seed(seed, "board_size") % 3
        assert spy.call_args.kwargs["params"] == {"board_size": size}
    capsys.readouterr()


@pytest.mark.parametrize("game", SHIPPED)
def test_the_decision_benchmark_times_repeatable_choices_from_positions_in_play(
    game: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pyspiel")
    from trap_scripts.benchmarks import openspiel_mcts as bench

    args = ["--game", game, "--board-size", "4", "--spec", "openspiel-mcts:simulations=3"]
    assert bench.main(args) == 0
    *rows, summary = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert 1 <= len(rows) <= len(bench.TURNS) and summary["median_cpu_seconds"] >= 0
    bench.main(args)
    assert [json.loads(line)["action"] for line in capsys.readouterr().out.splitlines()[:-1]] == [
        row["action"] for row in rows
    ]

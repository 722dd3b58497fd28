"""Tests of trap-evaluate (scripts/evaluate.py): what it says it plays, and the files it names."""

from __future__ import annotations

import pytest
from trap_scripts import evaluate, tournament

TWO_RANDOMS = ["random", "agents.trap.random_agent.RandomAgent"]
QUICK = ["--games", "2", "--board-size", "5", "--workers", "0", "--quiet"]


def _run(script, tmp_path, *extra):
    if script is evaluate:
        return evaluate.main(["--agents", *TWO_RANDOMS, *QUICK, *extra, "--output", str(tmp_path)])
    return tournament.main([*TWO_RANDOMS, *QUICK, *extra, "--output", str(tmp_path)])


@pytest.mark.parametrize("script", [evaluate, tournament])
def test_the_first_line_says_what_runs_and_where_it_writes(script, tmp_path, capsys):
    assert _run(script, tmp_path, "--time-budget", "0.5", "--no-plot") == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == (
        "Trap! 5x5, at most 0.5 s CPU a turn: 2 agents (random, "
        "agents.trap.random_agent.RandomAgent), 2 games per pairing (2 games); writing to "
        f"{tmp_path}"
    )


def test_the_first_line_names_the_range_of_boards_and_no_time_limit(tmp_path, capsys):
    status = evaluate.main(["--agents", "random", "greedy", "--games", "2", "--workers", "0",
                            "--quiet", "--no-plot", "--game", "colosseum", "--board-size", "5-6",
                            "--time-budget", "none", "--output", str(tmp_path)])  # fmt: skip
    assert status == 0
    assert capsys.readouterr().out.startswith("Colosseum 5x5 to 6x6, no time limit: 2 agents")


@pytest.mark.parametrize(
    ("script", "plot"), [(evaluate, "evaluate.png"), (tournament, "tournament.png")]
)
def test_the_last_line_names_every_file_written(script, plot, tmp_path, capsys):
    assert _run(script, tmp_path) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    files = ["results.jsonl", "results.settings.json", "summary.txt", plot]
    assert last.endswith(f"; wrote in {tmp_path}: {', '.join(files)}")
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(files)


def test_without_the_plot_the_last_line_names_no_plot(tmp_path, capsys):
    assert _run(evaluate, tmp_path, "--no-plot") == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.endswith(": results.jsonl, results.settings.json, summary.txt")

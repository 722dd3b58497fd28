"""Program agents (agents.program) playing whole games: the Python and C examples, replays
from a seed, the tournament's worker processes and the run's limits reaching them.
"""

from __future__ import annotations

import json
import random
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from agents import make_agent
from agents.arena.match import play_game
from agents.program import ProgramAgent, ProgramCrashed
from tests.support.positions import random_position
from tests.support.programs import EXAMPLES, OPENING, PYTHON_EXAMPLE, program
from trap_env.trap.core import NO_PLAYER, legal_actions


@pytest.fixture(scope="module")
def c_agent(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The C example, compiled with ``cc`` (the test is skipped without a compiler)."""
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler 'cc' on PATH")
    binary = tmp_path_factory.mktemp("c_agent") / "c_agent"
    flags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-O2"]
    subprocess.run([compiler, *flags, "-o", str(binary), str(EXAMPLES / "c_agent.c")], check=True)
    return str(binary)


# --- Whole games ------------------------------------------------------------------------


def play_both_seats(agent: ProgramAgent, board_size: int, seeds: range) -> list:
    results = []
    for seed in seeds:
        for seat in (0, 1):
            agents = [
                make_agent("random", game="trap", seed=seed),
                make_agent("random", game="trap", seed=seed),
            ]
            agents[seat] = agent
            result = play_game(
                agents, seed=seed, board_size=board_size, time_budget=1.0, game="trap"
            )
            assert result.reason in ("trapped", "truncated"), result.detail
            results.append((seat, result))
    return results


@pytest.mark.parametrize("board_size", [5, 7])
def test_python_example_plays_whole_games_against_random(board_size):
    with make_agent(f"exec:{PYTHON_EXAMPLE}", time_limit=1.0, game="trap") as agent:
        results = play_both_seats(agent, board_size, range(3))
    assert sum(result.winner == seat for seat, result in results) >= len(results) // 2


@pytest.mark.parametrize("board_size", [3, 5, 7, 9])
def test_c_example_plays_whole_games_against_random(c_agent, board_size):
    with make_agent(f"exec:{c_agent}", time_limit=1.0, game="trap") as agent:
        results = play_both_seats(agent, board_size, range(3))
    assert sum(result.winner == seat for seat, result in results) >= len(results) // 2


@pytest.fixture(scope="module")
def example_agents(c_agent: str) -> Iterator[dict[str, ProgramAgent]]:
    """Both examples, each one program for the whole module."""
    agents = {
        "python": ProgramAgent(PYTHON_EXAMPLE, game="trap"),
        "c": ProgramAgent(c_agent, game="trap"),
    }
    yield agents
    for agent in agents.values():
        agent.close()


@pytest.mark.parametrize("name", ["python", "c"])
@settings(max_examples=60, deadline=None)
@given(size=st.integers(3, 9), seed=st.integers(0, 2**32), steps=st.integers(0, 80))
def test_the_examples_answer_a_legal_action_in_any_position(
    example_agents, name, size, seed, steps
):
    state = random_position(random.Random(seed), size, steps)
    assume(state.winner == NO_PLAYER)
    assert example_agents[name].select_action(state) in legal_actions(state)


def test_extended_program_replays_a_game_from_its_seed():
    def game(seed: int) -> list[int]:
        with ProgramAgent(PYTHON_EXAMPLE, game="trap") as agent:
            players = [agent, make_agent("random", game="trap")]
            return play_game(players, seed=seed, game="trap", board_size=7).actions

    assert game(5) == game(5)


def test_tournament_cli_runs_programs_in_worker_processes(tmp_path, c_agent):
    from trap_scripts.tournament import main

    output = tmp_path / "run"
    status = main(
        [
            "random",
            f"exec:{PYTHON_EXAMPLE}",
            f"exec:{c_agent}",
            "--games",
            "2",
            "--board-size",
            "5",
            "--time-budget",
            "1",
            "--workers",
            "1",
            "--quiet",
            "--no-plot",
            "--output",
            str(output),
        ]
    )
    assert status == 0
    records = [json.loads(line) for line in (output / "results.jsonl").read_text().splitlines()]
    assert len(records) == 6
    assert all(record["reason"] in ("trapped", "truncated") for record in records), records


@pytest.mark.parametrize(
    ("body", "option", "words"),
    [
        ("bytearray(100 << 20)", ["--memory-limit", "64M"], "ran out of memory (limit 64 MiB)"),
        ("spin(0.5)", ["--time-budget", "0.2"], "ProgramTimeout"),
    ],
)
def test_the_runs_limits_reach_program_agents_in_the_workers(tmp_path, body, option, words):
    from trap_scripts.tournament import main

    command = program(
        tmp_path,
        f"""
        def spin(seconds):
            start = time.process_time()
            while time.process_time() - start < seconds:
                pass

        while line := sys.stdin.readline():
            {body}
            print(decide(line, rng), flush=True)
        """,
    )
    output = tmp_path / "run"
    arguments = ["random", f"exec:{command}", "--games", "2", "--board-size", "5"]
    arguments += ["--workers", "1", "--quiet", "--no-plot", "--output", str(output), *option]
    assert main(arguments) == 0
    records = [json.loads(line) for line in (output / "results.jsonl").read_text().splitlines()]
    assert len(records) == 2
    for record in records:
        assert record["winner_spec"] == "random" and words in record["detail"], record


@pytest.mark.parametrize(
    ("text", "size"),
    [("1G", 1 << 30), ("512m", 512 << 20), ("64K", 64 << 10), ("4096", 4096), ("none", None)],
)
def test_memory_limit_option_reads_sizes_with_units(text, size):
    from trap_scripts._cli import memory_or_none

    assert memory_or_none(text) == size


@pytest.mark.parametrize(
    "text", ["0", "1.5G", "-1M", "G", "lots", "8589934592G", str(1 << 63), "9" * 30]
)
def test_a_bad_memory_limit_is_refused_in_one_line(capsys, text):
    from trap_scripts.tournament import main

    with pytest.raises(SystemExit) as exit_info:
        main(["random", "greedy", f"--memory-limit={text}"])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert f"{text!r} is not a memory size such as" in error and "RLIMIT_AS" in error
    assert error.count("\n") == 1


def test_a_program_that_ends_at_start_under_its_memory_limit_is_told_why():
    command = shlex.join([sys.executable, "-c", "print(0)"])
    with (
        ProgramAgent(command, memory_limit=8 << 20, game="trap") as agent,
        pytest.raises(ProgramCrashed) as raised,
    ):
        agent.select_action(OPENING)
    assert "its memory limit (8 MiB) may be why" in str(raised.value)

"""Accuracy on solved positions (agents.rating.accuracy, ``trap-rate --accuracy``): perfect
play scores 100% with no regret and random less, the figures reproduce, the card passes the
schema and jsonschema, and every refusal is one line."""

from __future__ import annotations

import contextlib
import io
import json
import math
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from trap_scripts import rate as rate_cli

from agents.arena.stats import wilson_interval
from agents.rating import accuracy as accuracy_module
from agents.rating.accuracy import METHOD, Score, accuracy, write_card
from agents.rating.card_format import card_schema, check_card
from agents.registry import make_agent
from agents.solved_positions import Positions, find_positions
from tests.agents.rating.test_rating import stamped_network, stamped_zip
from tests.support.cli_fuzz import RunStarted, check_command
from tests.support.schemas import STRICT
from tests.support.solved_positions import SAMPLE, SHIPPED, rows

BOARD = {"game": "trap", "params": {"board_size": 3}}


def test_perfect_play_is_all_optimal_without_regret(solved_cache: Path):
    perfect = make_agent("perfect", game="trap")  # one agent, reset at each position
    card = accuracy(perfect, positions=rows(SHIPPED, slice(0, 800, 16)), **BOARD)
    assert (card.optimal, card.regret, card.regret_low, card.regret_high) == (1.0, 0, 0, 0)
    assert card.positions == 50 and set(card.decisions) == {"move", "throw"}
    assert card.optimal_low == round(wilson_interval(50, 50)[0], 6) < 1 == card.optimal_high


def test_random_is_below_and_greedy_between():
    scores = {spec: accuracy(spec, positions=SAMPLE, **BOARD) for spec in ("random", "greedy")}
    assert scores["random"].optimal_high < scores["greedy"].optimal_low
    assert scores["random"].regret_low > scores["greedy"].regret_high > 0
    assert scores["random"].positions == 100 and scores["random"].spec == "random"


def test_the_figures_reproduce_and_an_agent_object_scores_as_its_spec():
    by_spec = accuracy("epsilon-greedy:epsilon=0.5", positions=SAMPLE, **BOARD)
    again = accuracy("epsilon-greedy:epsilon=0.5", positions=SAMPLE, **BOARD)
    agent = make_agent("epsilon-greedy:epsilon=0.5", game="trap")
    by_agent = accuracy(agent, positions=SAMPLE, **BOARD)
    figures = ("optimal", "regret", "regret_low", "regret_high", "decisions")
    assert [getattr(by_spec, key) for key in figures] == [getattr(again, key) for key in figures]
    assert [getattr(by_spec, key) for key in figures] == [getattr(by_agent, key) for key in figures]
    assert by_agent.spec == "agents.epsilon_greedy.EpsilonGreedyAgent" and by_agent.files == {}
    other_seed = accuracy("epsilon-greedy:epsilon=0.5", positions=SAMPLE, seed=1, **BOARD)
    assert other_seed.optimal != by_spec.optimal


def test_the_card_passes_the_schema_the_checker_and_jsonschema(tmp_path: Path):
    card = accuracy("greedy", positions=SAMPLE, **BOARD)
    write_card(card, tmp_path / "card.json")
    written = json.loads((tmp_path / "card.json").read_text())
    check_card(written)
    assert STRICT(card_schema()).is_valid(written)
    assert written["kind"] == "accuracy" and written["positions_sha256"] == SHIPPED.sha256
    assert written["interval"] == {"level": 0.95, "method": METHOD}
    assert written["line"].startswith("trap 3x3 solved positions: ")
    for key in ("optimal", "regret", "decisions", "positions_sha256"):
        broken = {name: value for name, value in written.items() if name != key}
        with pytest.raises(ValueError, match=f"the card has no '{key}'"):
            check_card(broken)
        assert not STRICT(card_schema()).is_valid(broken)


def test_the_intervals_are_wilson_for_the_share_and_normal_for_the_regret():
    regrets = np.array([0.0] * 6 + [0.5, 1.0, 0.25, 0.25])
    score = Score.of(regrets)
    low, high = wilson_interval(6, 10)
    assert (score.optimal, score.optimal_low, score.optimal_high) == (0.6, round(low, 6),
                                                                      round(high, 6))  # fmt: skip
    spread = 1.96 * float(np.std(regrets, ddof=1)) / math.sqrt(10)
    assert score.regret == 0.2 and score.regret_high == round(0.2 + spread, 6)
    assert score.regret_low == 0.0 < 0.2 - spread + 0.2  # cut at 0, never below


class Illegal:
    def reset(self, seed: int | None = None) -> None:
        pass

    def select_action(self, state: Any) -> int:
        return 4 if state.cells[state.player] != 4 else 0


class Raising(Illegal):
    def select_action(self, state: Any) -> int:
        raise RuntimeError("out of ideas\nsecond line")


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        (Illegal(), r"^the policy answered [04] at position \d+ \(.*\), not a legal action \(\["),
        (Raising(), r"^the policy raised RuntimeError at position 0: out of ideas"),
        ("mcts", r"^the mcts network .* was trained for trap \(board_size=7, decay=50\)"),
        ("nobody", r"^unknown agent 'nobody'"),
        ("tests.support.faulty_agents.RaisingConstructorAgent",
         r"^building agent '.*RaisingConstructorAgent' raised RuntimeError: cannot build"),
    ],
)
def test_a_policy_that_cannot_play_is_refused_in_one_line(policy: Any, message: str):
    with pytest.raises(ValueError, match=message) as raised:
        accuracy(policy, positions=SAMPLE, **BOARD)
    assert "\n" not in str(raised.value).split("out of ideas")[0]


def test_a_board_without_positions_and_a_missing_game_are_refused():
    with pytest.raises(ValueError, match=r"^no solved positions of Trap! 7x7 .*; shipped: 3x3"):
        accuracy("random", game="trap")
    with pytest.raises(TypeError, match="game"):
        accuracy("random")
    with pytest.raises(ValueError, match="the positions are of trap, not of othello"):
        accuracy("random", game="othello", positions=SAMPLE)


def test_colosseum_3x3_scores_random_below_greedy():
    board = {"game": "colosseum", "params": {"board_size": 3}}
    scores = {spec: accuracy(spec, **board) for spec in ("random", "greedy")}
    assert scores["random"].optimal_high < scores["greedy"].optimal_low
    assert scores["greedy"].optimal < 1 and scores["greedy"].positions > 200


def test_trap_rate_accuracy_scores_othello_4x4_random_below_greedy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    scores = {}
    for spec in ("random", "greedy"):
        argv = [spec, "--game", "othello", "--board-size", "4", "--accuracy", "--output",
                str(tmp_path / spec)]  # fmt: skip
        assert rate_cli.main(argv) == 0
        assert capsys.readouterr().out.startswith("othello 4x4 solved positions: ")
        scores[spec] = json.loads((tmp_path / spec / "card.json").read_text())
    assert scores["random"]["optimal_high"] < scores["greedy"]["optimal_low"]
    assert scores["greedy"]["positions"] == 280 and set(scores["greedy"]["decisions"]) == {"place"}
    assert scores["greedy"]["params"] == {"board_size": 4, "end_rule": "standard"}


def test_an_endgame_set_says_so_in_the_line():
    card = accuracy("greedy", game="othello", params={"board_size": 6})
    assert card.line.startswith("othello 6x6 solved endgame positions: ")
    assert card.positions == 400 and 0.5 < card.optimal < 1


# --- trap-rate --accuracy ------------------------------------------------------------------


def small_lookup(step: int) -> Any:
    """``find_positions``, giving every ``step``-th position of the 3x3 set (others as
    shipped): ``trap-rate --accuracy`` scores those."""

    def lookup(game: str, params: Any = None) -> Positions:
        found = find_positions(game, params)
        return rows(found, slice(0, None, step)) if found.sha256 == SHIPPED.sha256 else found

    return lookup


@pytest.fixture
def small_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(accuracy_module, "find_positions", small_lookup(8))


def test_trap_rate_accuracy_prints_one_line_and_writes_the_card(
    small_set: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    argv = ["greedy", "--game", "trap", "--board-size", "3", "--accuracy", "--output",
            str(tmp_path)]  # fmt: skip
    assert rate_cli.main(argv) == 0
    out = capsys.readouterr().out
    card = json.loads((tmp_path / "card.json").read_text())
    assert out == f"{card['line']}; card: {tmp_path / 'card.json'}\n"
    assert card["spec"] == "greedy" and card["params"] == {"board_size": 3, "decay": 50}
    assert rate_cli.main(argv) == 2  # the card is there: --overwrite replaces it
    assert "exists; --overwrite replaces it" in capsys.readouterr().err
    assert rate_cli.main([*argv, "--overwrite"]) == 0


@pytest.mark.parametrize("model", [stamped_zip, stamped_network], ids=["ppo", "mcts"])
def test_trap_rate_accuracy_scores_a_model_on_the_board_its_record_names(
    model: Any, tmp_path: Path
):
    spec = model(tmp_path, "othello", board_size=6)
    with mock.patch.object(rate_cli, "accuracy", side_effect=RunStarted) as scored:
        assert check_command(rate_cli.main, [spec, "--accuracy", "--output", str(tmp_path / "o")],
                             "trap-rate")  # fmt: skip
    assert scored.call_args.kwargs["game"] == "othello"
    assert scored.call_args.kwargs["params"] == {"board_size": 6, "end_rule": "standard"}
    code, err = _run([spec, "--accuracy", "--game", "trap", "--output", str(tmp_path / "o")])
    assert code == 2 and err.count("\n") == 1 and "plays othello, not trap" in err, err


def test_trap_rate_verify_scores_an_accuracy_card_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(accuracy_module, "shipped_positions", lambda game: [SAMPLE])
    write_card(accuracy("greedy", positions=SAMPLE, **BOARD), tmp_path / "card.json")
    assert rate_cli.main(["--verify", str(tmp_path)]) == 0
    assert "agrees with its spec scored again on its positions" in capsys.readouterr().out
    card = json.loads((tmp_path / "card.json").read_text())
    (tmp_path / "card.json").write_text(json.dumps(card | {"optimal": 0.5}))
    assert rate_cli.main(["--verify", str(tmp_path)]) == 1
    assert f"optimal: the card says 0.5, its positions give {card['optimal']}" in (
        capsys.readouterr().out
    )
    other = "0" * 64
    (tmp_path / "card.json").write_text(json.dumps(card | {"positions_sha256": other}))
    assert rate_cli.main(["--verify", str(tmp_path)]) == 2
    assert "made on positions that are not shipped (positions_sha256 000000000000...)" in (
        capsys.readouterr().err
    )


WORDS = ["random", "greedy", "nobody", "--accuracy", "--board-size", "3", "5", "--rule",
         "decay=0", "board_size=3-5", "--calibrate", "--resume", "--verify", "--ladder", "x",
         "--ladder-version", "1", "--seed", "-1", "--game", "othello", "--rungs",
         "--decay", "--games", "--workers", "2"]  # fmt: skip


@settings(max_examples=40)
@given(st.lists(st.sampled_from(WORDS), max_size=6))
def test_any_accuracy_command_line_succeeds_or_fails_in_one_line(words: list[str]):
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        patch.setattr(accuracy_module, "find_positions", small_lookup(40))
        code, err = _run(["--accuracy", *words, "--output", folder])
    assert code in (0, 2), (words, err)
    lines = err.splitlines()
    assert all(line.startswith("trap-rate: note: ") for line in lines[:-1]), (words, err)
    if code == 2:
        assert lines[-1].startswith("trap-rate: error: "), (words, err)


def _run(argv: list[str]) -> tuple[int, str]:
    """``trap-rate``'s exit status and what it wrote on stderr."""
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            code = rate_cli.main(argv)
        except SystemExit as exit_:  # argparse's usage errors
            code = int(exit_.code or 0)
    return code, err.getvalue()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--accuracy", "--game", "trap"], "--accuracy scores an agent SPEC on solved "
         "positions; give one"),
        (["greedy", "--accuracy", "--calibrate"], "not with --calibrate"),
        (["greedy", "--accuracy", "--resume"], "not with --resume"),
        (["greedy", "--accuracy", "--games", "20"], "not with --games"),
        (["greedy", "--accuracy", "--workers", "0"], "not with --workers"),
        (["greedy", "--accuracy", "--cpu-cap", "2"], "not with --cpu-cap"),
        (["greedy", "--accuracy"], "no solved positions of Trap! 7x7 (board_size=7, decay=50); "
         "shipped: 3x3 (board_size=3, decay=50)"),
        (["greedy", "--accuracy", "--game", "othello", "--board-size", "8"],
         "no solved positions of Othello 8x8"),
    ],
)  # fmt: skip
def test_trap_rate_accuracy_refuses_in_one_line(argv: list[str], message: str, tmp_path: Path):
    code, err = _run([*argv, "--output", str(tmp_path)])
    assert code == 2 and err.startswith("trap-rate: error: ") and err.count("\n") == 1, err
    assert message in err

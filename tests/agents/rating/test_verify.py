"""Tests for agents.rating.verify and ``trap-rate --verify``: a card made again from its games."""

from __future__ import annotations

import json
import lzma
from pathlib import Path

import pytest
from trap_scripts import rate as rate_cli

from agents.rating import load_ladder, rate_spec
from agents.rating.calibrate import PACKED_FILE
from agents.rating.estimate import LIKELIHOOD_RATIO, METHOD
from agents.rating.run import make_card
from agents.rating.verify import verify_card, verify_ladder
from tests.support.results_roots import as_format_1


@pytest.fixture(scope="module")
def rated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny rating's folder: greedy's two games against the Trap! ladder's weakest rung."""
    folder = tmp_path_factory.mktemp("rated") / "greedy"
    rate_spec(load_ladder("trap"), "greedy", folder, games=2, run_options={"workers": 0},
              say=lambda line: None)  # fmt: skip
    return folder


def edited(rated: Path, tmp_path: Path, change: dict[str, object]) -> Path:
    """A copy of the rating's folder whose card has ``change`` made by hand."""
    folder = tmp_path / "edited"
    folder.mkdir()
    (folder / "results.jsonl").write_bytes((rated / "results.jsonl").read_bytes())
    card = json.loads((rated / "card.json").read_text()) | change
    (folder / "card.json").write_text(json.dumps(card))
    return folder


def test_a_card_agrees_with_its_games(rated: Path, capsys: pytest.CaptureFixture[str]):
    assert verify_card(rated) == []
    assert rate_cli.main(["--verify", str(rated)]) == 0
    assert "agrees with its games" in capsys.readouterr().out


def test_a_card_edited_by_hand_does_not_agree_naming_each_field(
    rated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    card = json.loads((rated / "card.json").read_text())
    shifted = {"policy_cpu": {"mean": 0.0, "max": 0.0}}
    if card["rating"] is not None:  # within the line's rounding: the card still reads
        shifted |= {key: card[key] + 0.3 for key in ("rating", "low", "high")}
    shifted |= {key: card[key] - 0.3 for key in ("scale_low", "scale_high")
                if card[key] is not None}  # fmt: skip
    assert {"scale_low", "scale_high"} & set(shifted)
    folder = edited(rated, tmp_path, shifted)
    assert rate_cli.main(["--verify", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "does not agree" in out
    for key in shifted:
        assert f"  {key}: the card says" in out, key


def test_a_card_whose_seed_is_not_its_games_does_not_agree(rated: Path, tmp_path: Path):
    assert "is not among its games" in verify_card(edited(rated, tmp_path, {"seed": 5}))[0]


def old_card(rated: Path) -> dict[str, object]:
    """The rating's card as it was written before the interval counted pairs and the
    rungs' covariance: the likelihood ratio's ends, line and method, and no interval on
    the ladder's scale."""
    records = [json.loads(line) for line in (rated / "results.jsonl").read_text().splitlines()]
    remade = json.loads(make_card(load_ladder("trap"), "greedy", 0, records,
                                  method=LIKELIHOOD_RATIO).to_json())  # fmt: skip
    card = json.loads((rated / "card.json").read_text())
    card = {key: value for key, value in card.items() if key not in ("scale_low", "scale_high")}
    return card | {key: remade[key] for key in ("rating", "low", "high", "line", "interval")}


def test_an_old_card_agrees_by_its_own_method_a_format_1_one_by_the_likelihood_ratio(
    rated: Path, tmp_path: Path
):
    def folder_of(name: str, card: dict[str, object]) -> Path:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "results.jsonl").write_bytes((rated / "results.jsonl").read_bytes())
        (folder / "card.json").write_text(json.dumps(card))
        return folder

    old = old_card(rated)
    assert old != json.loads((rated / "card.json").read_text())  # the methods' ends differ
    assert verify_card(folder_of("old", old)) == []
    assert verify_card(folder_of("format-1", as_format_1(old))) == []
    # the new method's name on the old ends: they are not what its games give
    renamed = old | {"interval": {"level": 0.95, "method": METHOD}}
    differences = verify_card(folder_of("renamed", renamed))
    assert any(line.startswith("low: the card says") for line in differences), differences


def test_edited_games_do_not_agree(rated: Path, tmp_path: Path):
    folder = edited(rated, tmp_path, {})
    records = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    records[0]["turns"] += 2  # a record the reader takes, but not what its actions give
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    differences = verify_card(folder)
    assert any("does not replay" in line for line in differences), differences


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda folder: (folder / "card.json").unlink(), "holds no card.json"),
        (lambda folder: (folder / "results.jsonl").unlink(), "results.jsonl: cannot be read"),
        (lambda folder: (folder / "card.json").write_text("[1"), "not a card"),
    ],
)
def test_trap_rate_verify_answers_bad_input_in_one_line_with_2(
    rated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], setup, message
):
    folder = edited(rated, tmp_path, {})
    setup(folder)
    assert rate_cli.main(["--verify", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("trap-rate: error: ") and message in err and err.count("\n") == 1


def test_trap_rate_verify_goes_alone(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    with pytest.raises(SystemExit) as exit_:
        rate_cli.main(["greedy", "--verify", str(tmp_path)])
    assert exit_.value.code == 2 and "--verify goes alone" in capsys.readouterr().err


def test_a_ladder_agrees_with_its_calibration_games(calibrated: Path):
    assert verify_ladder(calibrated) == []
    assert rate_cli.main(["--verify", str(calibrated)]) == 0


def test_a_ladder_edited_by_hand_does_not_agree(
    calibrated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    ladder = json.loads((calibrated / "ladder.json").read_text())
    ladder["rungs"][1]["rating"] += 50
    ladder["covariance"][1][2] = ladder["covariance"][2][1] = 1.0
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(ladder))
    assert rate_cli.main(["--verify", str(calibrated), "--ladder", str(edited)]) == 1
    out = capsys.readouterr().out
    assert "  rung 'epsilon-greedy:epsilon=0.75': the ladder says" in out
    assert "  covariance: the ladder's is not the one its games give" in out


def test_a_calibration_missing_a_game_of_a_stage_does_not_agree(calibrated: Path, tmp_path: Path):
    lines = lzma.decompress((calibrated / PACKED_FILE).read_bytes()).splitlines(keepends=True)
    (tmp_path / PACKED_FILE).write_bytes(lzma.compress(b"".join(lines[:-1])))
    problems = verify_ladder(tmp_path, calibrated / "ladder.json")
    assert len(problems) == 1 and "calibration is not among its games" in problems[0]

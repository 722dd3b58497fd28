"""The settings records' shared checks: field rules and reading JSON back."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.rl.settings import Rule, check_fields, load_record

RULES: dict[str, Rule] = {
    "run_dir": (str, lambda v: True, "a folder path"),
    "games": (int, lambda v: v >= 1, "an integer >= 1"),
    "rate": (float, lambda v: v > 0, "a number > 0"),
    "limit": (int, lambda v: v >= 1, "an integer >= 1 or null"),
    "verbose": (bool, lambda v: True, "true or false"),
}


@dataclass
class Settings:
    run_dir: str
    games: int = 1
    rate: float = 0.5
    limit: int | None = None
    verbose: bool = False

    def __post_init__(self) -> None:
        check_fields(self, RULES, ("limit",))


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("games", 0, "games must be an integer >= 1, got 0"),
        ("games", True, "games must be an integer >= 1, got True"),
        ("games", 1.0, "games must be an integer >= 1, got 1.0"),
        ("rate", float("nan"), "rate must be a number > 0"),
        ("rate", "1", "rate must be a number > 0"),
        ("limit", 0, "limit must be an integer >= 1 or null"),
        ("verbose", 1, "verbose must be true or false"),
        ("run_dir", "  ", "run_dir must be a folder path"),
    ],
)
def test_a_bad_field_is_named_with_what_it_must_be(field: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        Settings(**{"run_dir": "run", field: value})  # type: ignore[arg-type]


def test_good_fields_and_an_optional_none_pass() -> None:
    assert Settings("run", games=3, rate=2, limit=None, verbose=True).rate == 2


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
                    max_leaves=8))
def test_any_json_is_a_record_or_one_value_error(tmp_path_factory: pytest.TempPathFactory,
                                                 data: object) -> None:
    path = tmp_path_factory.mktemp("json") / "config.json"
    path.write_text(json.dumps(data))
    try:
        record = load_record(Settings, path)
    except ValueError as error:
        assert str(error).startswith(str(path))
    else:
        assert isinstance(record, Settings)


def test_unknown_and_missing_keys_name_the_keys(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"run_dir": "r", "gmaes": 2}))
    with pytest.raises(ValueError, match=r"unknown keys \['gmaes'\]; the keys of a config are"):
        load_record(Settings, path)
    path.write_text(json.dumps({"games": 2}))
    with pytest.raises(ValueError, match="no key 'run_dir'"):
        load_record(Settings, path)
    path.write_bytes(b"\xff")
    with pytest.raises(ValueError, match="is not a JSON config"):
        load_record(Settings, path)

"""Reading ``ppo:`` zips (:mod:`agents.rl.ppo`): a damaged, oversized or crafted zip is
loaded or refused in one line (:class:`IncompatibleModelError`), never another exception;
the record of the game holds rules of the game."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support import crafted_files

pytest.importorskip("sb3_contrib")

from agents import SpecError, make_agent
from agents.rl.ppo import GAME_MEMBER, IncompatibleModelError, PPOAgent, stamp_model
from agents.zips import MAX_READ_BYTES


def tiny_model(path: Path) -> Path:
    """An untrained MaskablePPO ``"MlpPolicy"`` of Othello 4x4, stamped, as small as one gets."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    from agents.rl.sb3 import to_sb3

    envs = gym.make_vec("trap_env/Othello-v0", num_envs=1, autoreset_mode="disabled",
                        board_size=4)  # fmt: skip
    MaskablePPO("MlpPolicy", to_sb3(envs), n_steps=16, batch_size=16, device="cpu",
                policy_kwargs={"net_arch": [4]}).save(path)  # fmt: skip
    envs.close()
    stamp_model(path, game="othello", params={"board_size": 4})
    return path


@pytest.fixture(scope="module")
def model_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The tiny model's zip, every member deflated (a deflate stream to damage)."""
    path = tiny_model(tmp_path_factory.mktemp("ppo_zips") / "tiny.zip")
    return crafted_files.deflated(crafted_files.members_of(path.read_bytes()))


def written(folder: Path, content: bytes) -> Path:
    path = folder / "model.zip"
    path.write_bytes(content)
    return path


def test_the_tiny_model_plays(model_bytes: bytes, tmp_path: Path) -> None:
    agent = PPOAgent(written(tmp_path, model_bytes), game="othello")
    assert agent.record == ("othello", {"board_size": 4, "end_rule": "standard"})


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_a_damaged_model_zip_is_loaded_or_refused_in_one_line(
    model_bytes: bytes, tmp_path: Path, data: st.DataObject
) -> None:
    path = written(tmp_path, data.draw(crafted_files.mutated_zips(model_bytes)))
    try:
        PPOAgent(path, game="othello")
    except IncompatibleModelError as error:
        message = str(error)
        assert len(message.splitlines()) == 1 and message.startswith(str(path)), message
        assert "Traceback" not in message


def test_a_member_declaring_gigabytes_is_refused_before_it_is_read(
    model_bytes: bytes, tmp_path: Path
) -> None:
    content = crafted_files.declare_size(model_bytes, "policy.pth", 1_500_000_000)
    with pytest.raises(SpecError, match=rf"'policy.pth' holds 1,500,000,000 bytes, past the "
                                        rf"{MAX_READ_BYTES:,} read from one file at most"):
        make_agent(f"ppo:path={written(tmp_path, content)}", game="othello")


@pytest.mark.parametrize("member", ["data", GAME_MEMBER])
def test_json_nested_deep_is_a_damaged_member_not_a_recursion_error(
    model_bytes: bytes, tmp_path: Path, member: str
) -> None:
    content = crafted_files.members_of(model_bytes)
    content[member] = b"[" * 100_000 + b"]" * 100_000
    path = written(tmp_path, crafted_files.deflated(content))
    with pytest.raises(IncompatibleModelError, match="JSON nested deeper than 32 levels"):
        PPOAgent(path, game="othello")


def test_a_damaged_deflate_stream_is_refused_in_our_words(
    model_bytes: bytes, tmp_path: Path
) -> None:
    start, _ = crafted_files.data_span(model_bytes, "policy.pth")
    damaged = bytearray(model_bytes)
    damaged[start:start + 8] = b"\xff" * 8  # an invalid deflate block
    path = written(tmp_path, bytes(damaged))
    with pytest.raises(IncompatibleModelError, match=r"is not a model zip saved by "
                       r"MaskablePPO.save \(its member 'policy.pth' is damaged: zlib.error: "):
        PPOAgent(path, game="othello")


@pytest.mark.parametrize(
    ("rules", "words"),
    [({"board_size": "4", "end_rule": "standard"}, "board_size must be an even integer from 4 "
      "to 26, got str '4'"),
     ({"board_size": 4.0}, "got float 4.0"),
     ({"size": 4}, "Othello has no rule parameter ['size']")],
)
def test_rules_recorded_as_text_are_refused_naming_the_rule(
    model_bytes: bytes, tmp_path: Path, rules: dict[str, object], words: str
) -> None:
    """Once: an agent was built and then refused every game as "trained for othello
    (board_size=4, ...); this game is othello (board_size=4, ...)"."""
    content = crafted_files.members_of(model_bytes)
    content[GAME_MEMBER] = json.dumps({"game": "othello", "rules": rules}).encode()
    path = written(tmp_path, crafted_files.deflated(content))
    with pytest.raises(IncompatibleModelError) as raised:
        PPOAgent(path, game="othello")
    message = str(raised.value)
    assert f"record of the game ({GAME_MEMBER}) is damaged (no rules of othello: " in message
    assert words in message and "stamp it again" in message


def test_a_record_of_some_rules_is_read_with_the_games_defaults(
    model_bytes: bytes, tmp_path: Path
) -> None:
    content = crafted_files.members_of(model_bytes)
    content[GAME_MEMBER] = b'{"game": "othello", "rules": {"board_size": 4}}'
    agent = PPOAgent(written(tmp_path, crafted_files.deflated(content)), game="othello")
    agent.check_game(agent.game.make_config(board_size=4))
    assert agent.record == ("othello", {"board_size": 4, "end_rule": "standard"})


def test_stamping_reads_within_the_bound_too(model_bytes: bytes, tmp_path: Path) -> None:
    content = crafted_files.declare_size(model_bytes, "data", 1_500_000_000)
    with pytest.raises(IncompatibleModelError, match="'data' holds 1,500,000,000 bytes"):
        stamp_model(written(tmp_path, content), game="othello")
    path = written(tmp_path, model_bytes)
    stamp_model(path, game="othello", params={"board_size": 4, "end_rule": "course"})
    assert PPOAgent(path, game="othello").record == (
        "othello", {"board_size": 4, "end_rule": "course"}
    )

"""agents.spec_files: the files a spec loads, each with its SHA-256, and what changed since."""

from __future__ import annotations

import hashlib
import shlex
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.mcts.agent import DEFAULT_NETWORKS
from agents.rl.ppo import DEFAULT_MODELS
from agents.spec_files import file_changes, file_digests, file_sha256, spec_files
from tests.support import faulty_agents
from trap_env.agent import SpecError


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_ppo_and_mcts_load_the_file_their_path_names_or_the_bundled_one(tmp_path):
    model = tmp_path / "model.zip"
    model.write_bytes(b"a model")
    assert spec_files(f"ppo:path={model}", "trap") == {str(model): sha256(model)}
    assert spec_files(f"mcts:path={model},simulations=4", "othello") == {
        str(model): sha256(model)
    }
    bundled = DEFAULT_MODELS["trap"]
    assert spec_files("ppo:deterministic=false", "trap") == {str(bundled): sha256(bundled)}
    assert list(spec_files("mcts:path=none", "othello")) == [str(DEFAULT_NETWORKS["othello"])]


def test_a_file_that_a_spec_loads_and_cannot_be_read_is_refused_naming_the_spec(tmp_path):
    with pytest.raises(SpecError, match=r"agent spec 'ppo:path=.*missing\.zip'"):
        spec_files(f"ppo:path={tmp_path / 'missing.zip'}", "trap")
    with pytest.raises(SpecError, match="no bundled ppo model for othello"):
        spec_files("ppo", "othello")


def test_built_in_agents_without_files_load_none():
    assert spec_files("greedy", "trap") == spec_files("random", "colosseum") == {}
    assert spec_files("epsilon-greedy:epsilon=0.5", "othello") == {}


def test_a_dotted_path_loads_its_module_and_any_file_an_option_names(tmp_path):
    model = tmp_path / "model.bin"
    model.write_text("weights")
    files = spec_files(f"tests.support.faulty_agents.ModelFileAgent:path={model}", "trap")
    module = Path(faulty_agents.__file__)
    assert files == {str(model): sha256(model), str(module): sha256(module)}


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a.py", "b.dat", "c d.txt", "--fast"]),
                          st.booleans()), max_size=4))
def test_an_exec_command_loads_each_argument_that_names_a_file(tmp_path_factory, arguments):
    folder = tmp_path_factory.mktemp("program")
    named = []
    for name, exists in arguments:
        path = folder / name
        if exists:
            path.write_text(name)
        named.append(str(path))
    spec = "exec:" + shlex.join([sys.executable, *named])
    files = spec_files(spec, "trap")
    expected = {str(Path(sys.executable)), *(path for path in named if Path(path).is_file())}
    assert set(files) == expected
    assert all(files[path] == file_sha256(path) for path in files)


def test_a_spec_that_names_no_agent_is_refused():
    with pytest.raises(SpecError, match="unknown agent 'nosuch'"):
        spec_files("nosuch", "trap")
    with pytest.raises(SpecError, match="takes no option 'depth'"):
        spec_files("random:depth=2", "trap")


@settings(max_examples=40, deadline=None)
@given(st.binary(max_size=64), st.integers(min_value=0, max_value=63), st.integers(1, 255))
def test_a_changed_byte_is_a_change_named_by_its_path(tmp_path_factory, content, at, flip):
    path = tmp_path_factory.mktemp("file") / "model.zip"
    path.write_bytes(content)
    recorded = file_digests([str(path)])
    assert file_changes(recorded, file_digests([str(path)])) == []
    if content:
        changed = bytearray(content)
        changed[at % len(content)] ^= flip
        path.write_bytes(bytes(changed))
        (change,) = file_changes(recorded, file_digests([str(path)]))
        assert change.startswith(f"{path}: SHA-256 {recorded[str(path)][:12]}... recorded, ")
    path.unlink()
    assert file_changes(recorded, file_digests([str(path)])) == [
        f"{path}: recorded by the run, not there now"
    ]
    assert file_changes({}, recorded) == [f"{path}: loaded now, not recorded by the run"]

"""The versioning policy (docs/versioning.md) holds: an env plays under its id as it played
when the id's fingerprint was recorded, and CITATION.cff and CHANGELOG.md say the package's
version.

An env's fingerprint is the SHA-256 of what a learner sees in a few seeded random steps with
the env's default arguments (rules, opponent, seat): observations, masks, rewards and
episode ends, of the single env, ``make_vec``'s env and the PettingZoo env. The fingerprints
are kept by id in tests/data/env_fingerprints.json, so changing what an env plays without
bumping its id's version fails here; ``python -m tests.test_versioning`` prints the current
ones to record under a new id. (The ladders' rungs have fingerprints of their own, in the
rating tests.)
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.envs.registration import load_env_creator

import trap_env
from trap_env.games import GAME_TABLE, bound_entry_point

ROOT = Path(__file__).resolve().parent.parent
FINGERPRINTS = ROOT / "tests" / "data" / "env_fingerprints.json"
STEPS = 64
"""Learner steps of the single env, vector steps of ``make_vec``, agent steps in PettingZoo."""
NUM_ENVS = 3


def _update(hasher: Any, *values: object) -> None:
    """Hash each value with its dtype and shape, so that a dtype or shape change shows too."""
    for value in values:
        array = np.ascontiguousarray(np.asarray(value))
        hasher.update(f"{array.dtype.str}{array.shape}".encode() + array.tobytes())


def _legal_choice(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def single_env_fingerprint(gym_id: str) -> str:
    """SHA-256 of ``STEPS`` random legal steps of ``gymnasium.make(gym_id)`` from seed 0."""
    hasher, rng = hashlib.sha256(), np.random.default_rng(0)
    env = gymnasium.make(gym_id)
    observation, info = env.reset(seed=0)
    _update(hasher, observation, info["action_mask"])
    for _ in range(STEPS):
        step = env.step(_legal_choice(rng, info["action_mask"]))
        observation, reward, terminated, truncated, info = step
        _update(hasher, observation, info["action_mask"], reward, terminated, truncated)
        if terminated or truncated:
            observation, info = env.reset()
            _update(hasher, observation, info["action_mask"])
    env.close()
    return hasher.hexdigest()


def vector_env_fingerprint(gym_id: str) -> str:
    """SHA-256 of ``STEPS`` random legal steps of ``make_vec(gym_id, num_envs=3)`` from seed 0
    (the id's default vector env and autoreset)."""
    hasher, rng = hashlib.sha256(), np.random.default_rng(0)
    envs = gymnasium.make_vec(gym_id, num_envs=NUM_ENVS)
    observations, infos = envs.reset(seed=0)
    _update(hasher, observations, infos["action_mask"])
    for _ in range(STEPS):
        actions = np.array([_legal_choice(rng, mask) for mask in infos["action_mask"]])
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        _update(hasher, observations, infos["action_mask"], rewards, terminated, truncated)
    envs.close()
    return hasher.hexdigest()


def aec_env_fingerprint(game: str) -> str:
    """SHA-256 of ``STEPS`` random legal agent steps of the game's PettingZoo env from seed 0,
    made by the entry point its AEC id is registered with."""
    hasher, rng = hashlib.sha256(), np.random.default_rng(0)
    env = load_env_creator(bound_entry_point("aec_env", game))()
    env.reset(seed=0)
    for _ in range(STEPS):
        observation, reward, terminated, truncated, _ = env.last()
        _update(hasher, observation["observation"], observation["action_mask"], reward,
                terminated, truncated)
        if terminated or truncated:
            env.step(None)
            if not env.agents:
                env.reset()
        else:
            env.step(_legal_choice(rng, observation["action_mask"]))
    env.close()
    return hasher.hexdigest()


def fingerprints() -> Iterator[tuple[str, str, Callable[[], str]]]:
    """``(id, kind, fingerprint)`` for every id of the suite's games."""
    for entry in GAME_TABLE:
        if entry.gym_id is not None:
            gym_id = entry.gym_id
            yield gym_id, "env", lambda gym_id=gym_id: single_env_fingerprint(gym_id)
            yield gym_id, "vector_env", lambda gym_id=gym_id: vector_env_fingerprint(gym_id)
        if entry.aec_id is not None:
            yield entry.aec_id, "aec_env", lambda game=entry.name: aec_env_fingerprint(game)


def next_version(env_id: str) -> str:
    """The id with its version one higher: ``trap_env/Trap-v0`` -> ``trap_env/Trap-v1``."""
    match = re.fullmatch(r"(.*[-_]v)(\d+)", env_id)
    assert match, f"{env_id} does not end in its version (-v0 or _v0)"
    return f"{match.group(1)}{int(match.group(2)) + 1}"


CASES = list(fingerprints())


@pytest.mark.parametrize(
    "env_id, kind, fingerprint", CASES, ids=[f"{env_id}-{kind}" for env_id, kind, _ in CASES]
)
def test_each_env_plays_as_when_its_id_was_fingerprinted(env_id, kind, fingerprint):
    recorded = json.loads(FINGERPRINTS.read_text(encoding="utf-8")).get(env_id, {}).get(kind)
    found = fingerprint()
    assert recorded is not None, (
        f"{env_id} ({kind}) has no fingerprint in {FINGERPRINTS.relative_to(ROOT)}: record "
        f"\"{kind}\": \"{found}\" under it (python -m tests.test_versioning prints them all)"
    )
    assert found == recorded, (
        f"{env_id} ({kind}) no longer plays as its id recorded: its observations, masks, "
        f"rewards or episode ends under the default arguments changed. A changed env is a "
        f"new id (docs/versioning.md): register it as {next_version(env_id)}, record its "
        "fingerprint (python -m tests.test_versioning) and say so in CHANGELOG.md; if the "
        "change was not meant, mend it instead"
    )


def test_a_bumped_id_is_the_next_version():
    assert next_version("trap_env/Trap-v0") == "trap_env/Trap-v1"
    assert next_version("trap_env/othello_v9") == "trap_env/othello_v10"


def test_a_fingerprint_sees_a_change_of_the_observations(monkeypatch):
    # The guard's own check: the same steps with one observation plane flipped differ.
    from trap_env.gym_env import GameEnv

    before = single_env_fingerprint("trap_env/Othello-v0")
    observe = GameEnv._observation

    def flipped(self: GameEnv) -> Any:
        return observe(self)[..., ::-1]

    monkeypatch.setattr(GameEnv, "_observation", flipped)
    assert single_env_fingerprint("trap_env/Othello-v0") != before


def _citation_fields() -> dict[str, str]:
    """CITATION.cff's top-level ``key: value`` lines (the file is YAML; its keys are plain)."""
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    lines = re.findall(r"^([\w-]+):(.*)$", text, re.M)
    return {key: value.strip().strip('"') for key, value in lines}


def test_citation_cff_is_cff_1_2_0_of_this_version():
    fields = _citation_fields()
    assert fields["cff-version"] == "1.2.0"
    assert {"cff-version", "message", "title", "authors"} <= fields.keys()  # CFF's required
    assert fields["version"] == trap_env.__version__, "CITATION.cff's version is not the package's"
    assert fields["license"] == "MIT"
    assert "- name: trap_env developers" in (ROOT / "CITATION.cff").read_text(encoding="utf-8")


def test_the_readme_cites_this_version():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    entry = re.search(r"```bibtex\n(@software\{.*?)\n```", readme, re.DOTALL)
    assert entry, "README.md has no ```bibtex block with an @software entry"
    assert f"version = {{{trap_env.__version__}}}" in entry.group(1)
    assert "CITATION.cff" in readme


def test_the_changelog_has_unreleased_and_this_version():
    headings = re.findall(r"^## (.+)$", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), re.M)
    assert headings[0] == "Unreleased", "CHANGELOG.md begins with an 'Unreleased' section"
    assert any(heading.split()[0] == trap_env.__version__ for heading in headings), (
        f"CHANGELOG.md has no section for {trap_env.__version__}, the package's version"
    )


def main() -> int:
    """Print every id's current fingerprints as JSON, to record in tests/data/."""
    found: dict[str, dict[str, str]] = {}
    for env_id, kind, fingerprint in fingerprints():
        found.setdefault(env_id, {})[kind] = fingerprint()
    print(json.dumps(found, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The envs through outside libraries that wrap them, as their users call them: TorchRL's
``GymEnv`` (one env, ``num_envs`` in Gymnasium's process workers, and a ``ParallelEnv`` of
single envs), ``GymWrapper`` over every id's ``make_vec`` and ``PettingZooWrapper``, and
shimmy's OpenSpiel-to-PettingZoo wrapper over our OpenSpiel games (the ``clients`` extra)."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import gymnasium
import pytest

import trap_env
from tests.support.games import every_game, small_rules
from trap_env.games import entry_of

torch = pytest.importorskip("torch")
torchrl_envs = pytest.importorskip("torchrl.envs")
transforms = pytest.importorskip("torchrl.envs.transforms")
check_env_specs = pytest.importorskip("torchrl.envs.utils").check_env_specs



@pytest.fixture(autouse=True)
def _quiet() -> None:
    warnings.simplefilter("ignore", DeprecationWarning)


@every_game()
def test_torchrl_wraps_each_gymnasium_env(game: str) -> None:
    env = torchrl_envs.GymEnv(entry_of(game).gym_id)
    check_env_specs(env)
    rollout = env.rollout(60, break_when_any_done=False)
    assert rollout.batch_size == (60,)
    env.close()


@pytest.mark.parametrize("gym_id", ["trap_env/Trap-v0", "trap_env/Colosseum-v0"])
def test_torchrl_runs_the_env_in_process_workers_reading_every_info_key(gym_id: str) -> None:
    """Gymnasium's async workers know the env by the module-prefixed id only, and TorchRL's
    info reader needs the same keys, numbers only, after every reset and step."""
    env = torchrl_envs.GymEnv(f"trap_env:{gym_id}", num_envs=2)
    try:
        check_env_specs(env)
        rollout = env.rollout(80, break_when_any_done=False)
    finally:
        env.close()
    assert rollout.batch_size == (2, 80)
    assert {"action_mask", "phase", "seat", "turn", "illegal_action", "opponent_fault"} <= set(
        rollout["next"].keys()
    )
    assert ((rollout["next", "phase"] == 0) | (rollout["next", "phase"] == 1)).all()


@every_game()
def test_torchrl_registers_every_info_key_of_every_game(game: str) -> None:
    """TorchRL's ``auto_register_info_dict`` reads each value's ``dtype``: NumPy values
    only, the same keys in every step (the env contract of docs/environments.md)."""
    env = torchrl_envs.GymEnv(entry_of(game).gym_id).auto_register_info_dict()
    rollout = env.rollout(60, break_when_any_done=False)
    assert {"action_mask", "phase", "seat", "turn", "illegal_action", "opponent_fault"} <= set(
        rollout["next"].keys()
    )
    env.close()


def test_torchrl_wraps_the_pettingzoo_env_with_its_masks() -> None:
    env = torchrl_envs.PettingZooWrapper(trap_env.env(board_size=5), use_mask=True)
    check_env_specs(env)
    env.close()


@pytest.mark.parametrize("game", ["trap", "othello", "colosseum"])
def test_shimmy_wraps_our_openspiel_games_for_pettingzoo(game: str) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    shimmy = pytest.importorskip("shimmy")
    from pettingzoo.test import api_test

    import trap_env.openspiel  # noqa: F401  (registers every game's short name)

    spiel_game = pyspiel.load_game(f"python_{game}", {"board_size": 6})
    api_test(shimmy.OpenSpielCompatibilityV0(env=spiel_game), num_cycles=100)


ROLLOUT = 200
"""Steps of a masked rollout: some games end in each env (6x6 boards; Race's short track)."""


def _masked_uniform(td: Any) -> Any:
    """A policy sampling each game's action from a categorical over its mask's legal actions."""
    mask = td["action_mask"].bool()
    logits = torch.zeros(mask.shape).masked_fill(~mask, float("-inf"))
    chosen = torch.distributions.Categorical(logits=logits).sample()
    td["action"] = torch.nn.functional.one_hot(chosen, mask.shape[-1])
    return td


def _check_masked_rollout(rollout: Any) -> None:
    """Every action legal, no game seen after its end, the end keys as the env contract says."""
    chosen = rollout["action"].argmax(-1)
    assert rollout["action_mask"].gather(-1, chosen[..., None]).bool().all()
    after = rollout["next"]
    done, terminated = after["done"].squeeze(-1), after["terminated"].squeeze(-1)
    assert done.any() and (done == terminated | after["truncated"].squeeze(-1)).all()
    # An ended game's mask is all ones; a live one's may be too (Drop's empty columns): an
    # ended game is told by done, not by its mask.
    assert after["action_mask"].bool().all(-1)[done].all()
    assert (after["reward"].squeeze(-1)[~terminated] == 0).all()
    assert not after["illegal_action"].any() and not after["opponent_fault"].any()


@every_game()
def test_torchrl_masks_the_single_env_from_the_observations_mask(game: str) -> None:
    """With ``mask_in_observation=True`` TorchRL reads the mask's spec from the dict
    observation: ``ActionMask()`` samples legal actions only, with no hand-written spec."""
    gym_id, rules = entry_of(game).gym_id, small_rules(game, board_size=6)
    env = transforms.TransformedEnv(
        torchrl_envs.GymEnv(gym_id, **rules, mask_in_observation=True),
        transforms.ActionMask(),
    )
    check_env_specs(env)
    rollout = env.rollout(500, break_when_any_done=False)
    chosen = rollout["action"].argmax(-1)
    assert rollout["action_mask"].gather(-1, chosen[..., None]).bool().all()
    env.close()
    auto = torchrl_envs.GymEnv(gym_id, **rules).auto_register_info_dict()
    assert auto.rollout(20, break_when_any_done=False).batch_size == (20,)


@every_game()
def test_torchrl_rolls_out_a_masked_policy_on_every_ids_vector_env(game: str) -> None:
    """TorchRL's route for a vectorized env: ``GymWrapper`` over ``make_vec``'s output with
    ``autoreset_mode="disabled"`` (TorchRL resets ended games itself, through
    ``reset_mask``: every action applied, no transition that no action caused) and
    ``mask_in_observation=True``, with ``ActionMask()`` and ``auto_register_info_dict()``."""
    envs = gymnasium.make_vec(entry_of(game).gym_id, num_envs=4, **small_rules(game, board_size=6),
                              autoreset_mode="disabled", mask_in_observation=True)  # fmt: skip
    env = transforms.TransformedEnv(
        torchrl_envs.GymWrapper(envs).auto_register_info_dict(), transforms.ActionMask()
    )
    try:
        check_env_specs(env)
        rollout = env.rollout(ROLLOUT, policy=_masked_uniform, break_when_any_done=False)
    finally:
        env.close()
    assert rollout.batch_size == (4, ROLLOUT)
    _check_masked_rollout(rollout)


def _masked_gym_env(game: str) -> Any:
    rules = small_rules(game, board_size=6)
    env = torchrl_envs.GymEnv(entry_of(game).gym_id, **rules, mask_in_observation=True)
    return env.auto_register_info_dict()


@every_game()
def test_torchrl_rolls_out_a_masked_policy_on_parallel_single_envs(game: str) -> None:
    """TorchRL's other route: a ``ParallelEnv`` of single ``GymEnv``s (what
    ``GymEnv(id, num_workers=N)`` builds; forked workers here, to keep the test fast)."""
    env = transforms.TransformedEnv(
        torchrl_envs.ParallelEnv(
            2, functools.partial(_masked_gym_env, game), mp_start_method="fork"
        ),
        transforms.ActionMask(),
    )
    try:
        rollout = env.rollout(ROLLOUT, policy=_masked_uniform, break_when_any_done=False)
    finally:
        env.close()
    assert rollout.batch_size == (2, ROLLOUT)
    _check_masked_rollout(rollout)

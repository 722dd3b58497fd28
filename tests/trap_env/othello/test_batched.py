"""Othello's batched engine (:mod:`trap_env.othello.batched`) against the scalar rules state by
state, as the game protocol's engine, and under the batched envs."""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trap_env
from trap_env.batched import NO_WINNER, batched_engine
from trap_env.batched_env import GameVectorEnv
from trap_env.othello import batched
from trap_env.othello.game import GAME
from trap_env.testing import assert_engine_matches
from trap_env.trap.core import IllegalActionError

SIZES = (4, 6, 8)
END_RULES = ("standard", "course")


@pytest.mark.parametrize("board_size", SIZES)
@pytest.mark.parametrize("end_rule", END_RULES)
@settings(max_examples=4)
@given(seed=st.integers(0, 2**32 - 1), num_games=st.integers(1, 10))
def test_random_games_match_the_scalar_rules_state_by_state(
    seed: int, board_size: int, end_rule: str, num_games: int
) -> None:
    rng = random.Random(seed)
    config = GAME.make_config(board_size=board_size, end_rule=end_rule)
    engine = batched_engine(GAME, config)
    states = [GAME.initial_state(config)] * num_games
    batch = engine.initial_batch(num_games)
    plies: list[set[int]] = [set() for _ in states]
    for _ in range(GAME.default_turn_limit(config)):
        assert_engine_matches(GAME, engine, batch, states)
        # The derived fields (placements, liveness) come out of apply as from scratch.
        assert all(map(np.array_equal, engine.from_states(states), batch))
        # Some games sit out each step (where=), and their actions are ignored.
        where = np.array([rng.random() < 0.8 for _ in states])
        actions = [rng.choice(GAME.legal_actions(s) or [0]) for s in states]
        for game, state in enumerate(states):
            if where[game] and GAME.outcome(state) is None:
                assert engine.ply_index(batch)[game] not in plies[game]
                plies[game].add(int(engine.ply_index(batch)[game]))
        states = [
            GAME.apply(s, a) if w and GAME.outcome(s) is None else s
            for s, a, w in zip(states, actions, where, strict=True)
        ]
        batch = engine.apply(batch, np.array(actions), where=where)
    assert all(GAME.outcome(s) is not None for s in states)
    assert_engine_matches(GAME, engine, engine.from_states(states), states)


def test_passes_and_both_end_rules_on_a_crafted_position() -> None:
    # Light (to act) is blocked; dark can still place on d1 (3), so the standard rule
    # passes and the course rule ends the game (dark 9, light 6: dark wins).
    text = "xxo./xxoo/oxoo/xxxx o 11 {}"
    for end_rule, mask_pass, over, winner in (("standard", 1, False, -1), ("course", 0, True, 0)):
        state = GAME.from_text(text.format(end_rule))
        engine = GAME.batched_engine(GAME.config_of(state))
        batch = engine.from_states([state])
        assert engine.legal_masks(batch)[0, 16] == mask_pass
        assert engine.is_over(batch)[0] == over and engine.winners(batch)[0] == winner
        assert_engine_matches(GAME, engine, batch, [state])
    standard = GAME.from_text(text.format("standard"))
    engine = GAME.batched_engine(GAME.config_of(standard))
    batch = engine.apply(engine.from_states([standard]), np.array([16]))
    assert engine.to_states(batch)[0].player == 0
    assert np.flatnonzero(engine.legal_masks(batch)[0]).tolist() == [3]


def test_a_draw_has_no_winner() -> None:
    state = GAME.from_text("xxoo/xxoo/xxoo/xxoo x 12 standard")
    engine = GAME.batched_engine(GAME.config_of(state))
    batch = engine.from_states([state])
    assert engine.is_over(batch).tolist() == [True]
    assert engine.winners(batch).tolist() == [NO_WINNER]
    assert not engine.legal_masks(batch).any()


def test_the_engine_answers_as_the_game_protocol_asks() -> None:
    config = GAME.make_config(board_size=6, end_rule="course")
    engine = batched_engine(GAME, config)
    batch = engine.initial_batch(3)
    assert engine.config == config and engine.num_actions == GAME.num_actions(config) == 37
    assert engine.chance_slots == 0 and not engine.is_chance(batch).any()
    outcomes, probabilities = engine.chance_outcomes(batch)
    assert outcomes.shape == probabilities.shape == (3, 0)
    with pytest.raises(ValueError, match="no chance"):
        engine.sample_chance(batch, np.zeros(3, np.uint64))
    assert engine.ply_index(batch).tolist() == [0, 0, 0]
    with pytest.raises(IllegalActionError, match=r"game 1: action 36, legal \[8, 13, 22, 27\]"):
        engine.apply(batch, np.array([8, 36, 13]))
    sitting_out = engine.apply(batch, np.array([8, 36, 13]), where=np.array([1, 0, 1], bool))
    assert engine.turns(sitting_out).tolist() == [1, 0, 1]  # game 1's illegal action ignored
    with pytest.raises(ValueError, match="of OthelloConfig"):
        engine.from_states([GAME.initial_state(GAME.make_config(board_size=4))])


def test_boards_over_eight_get_an_error_that_names_the_alternatives() -> None:
    message = r"up to 8x8 .* board_size=10; .*single env.*vectorization_mode=\"sync\""
    with pytest.raises(ValueError, match=message):
        GAME.batched_engine(GAME.make_config(board_size=10))
    with pytest.raises(ValueError, match=message):
        gymnasium.make_vec(trap_env.OTHELLO_GYM_ID, num_envs=2, board_size=10)
    envs = gymnasium.make_vec(
        trap_env.OTHELLO_GYM_ID, num_envs=2, board_size=10, vectorization_mode="sync"
    )
    assert envs.reset(seed=0)[0].shape == (2, 10, 10, 4)
    envs.close()


def test_random_actions_are_legal_and_uniform() -> None:
    engine = GAME.batched_engine(GAME.make_config(board_size=8))
    batch = engine.initial_batch(4000)
    words = np.random.default_rng(0).integers(0, 2**64, 4000, np.uint64, endpoint=False)
    chosen = batched.random_actions(engine.tables, batch, words)
    assert sorted(set(chosen.tolist())) == [19, 26, 37, 44]
    assert np.bincount(chosen, minlength=45)[[19, 26, 37, 44]].min() > 900
    small = GAME.batched_engine(GAME.make_config(board_size=4))
    blocked = small.from_states([GAME.from_text("xxo./xxoo/oxoo/xxxx o 11 standard")])
    assert batched.random_actions(small.tables, blocked, words[:1]).tolist() == [16]


def _run(envs: gymnasium.vector.VectorEnv, steps: int) -> list[object]:
    """The observations, rewards and ends of ``steps`` steps of random legal actions."""
    record: list[object] = []
    observations, info = envs.reset(seed=7)
    rng = np.random.default_rng(1)
    for _ in range(steps):
        masks = info["action_mask"].astype(bool)
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        observations, rewards, terminated, truncated, info = envs.step(actions)
        record += [observations.tobytes(), rewards.tolist(), terminated.tolist(),
                   truncated.tolist()]  # fmt: skip
    return record


def test_make_vec_gives_the_batched_env_deterministic_under_a_seed() -> None:
    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.argmax(masks, axis=1)

    for opponent in ("random", policy):
        runs = []
        for _ in range(2):
            envs = gymnasium.make_vec(
                trap_env.OTHELLO_GYM_ID, num_envs=6, opponent=opponent, board_size=4
            )
            assert isinstance(envs, GameVectorEnv)
            runs.append(_run(envs, 40))
        assert runs[0] == runs[1]
        rewards = {r for step in runs[0][1::4] for r in step}  # type: ignore[attr-defined]
        assert rewards <= {-1.0, 0.0, 1.0} and len(rewards) > 1


def test_the_batched_env_plays_whole_games_against_random() -> None:
    envs = GameVectorEnv("othello", num_envs=16, opponent="random", board_size=6)
    assert isinstance(envs._opponents[0], batched.BatchedRandom)  # the batched twin
    observations, _ = envs.reset(seed=3)
    assert observations.shape == (16, 6, 6, 4) and envs.action_masks().shape == (16, 37)
    ended = 0
    for _ in range(60):
        masks = envs.action_masks()
        _, rewards, terminated, truncated, _ = envs.step(np.argmax(masks, axis=1))
        assert not truncated.any()
        ended += int(terminated.sum())
        assert set(rewards[terminated].tolist()) <= {-1.0, 0.0, 1.0}
    assert ended >= 16


def test_maskable_ppo_learns_a_few_hundred_steps_on_the_sb3_vec_env() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from agents.rl.batched_vec_env import BatchedVecEnv

    envs = VecMonitor(BatchedVecEnv(8, game="othello", board_size=6))
    assert envs.observation_space.shape == (6, 6, 4) and envs.action_space.n == 37
    model = MaskablePPO("MlpPolicy", envs, n_steps=32, batch_size=64, n_epochs=1, seed=0)
    model.learn(512)
    assert model.num_timesteps >= 512
    assert len(model.ep_info_buffer) > 0
    assert {info["r"] for info in model.ep_info_buffer} <= {-1.0, 0.0, 1.0}


def test_from_states_refuses_a_state_no_game_reaches() -> None:
    engine = GAME.batched_engine(GAME.make_config(board_size=6))
    start = GAME.initial_state(GAME.make_config(board_size=6))
    for bad, words in [
        (start.__class__(6, "standard", 0, 0, 0, 0), "centre cells"),
        (start.__class__(6, "standard", start.dark, start.light, 0, 57), "after 57 plies"),
        (start.__class__(6, "standard", start.dark | 1, start.light | 1, 0, 1), "both colours"),
        (start.__class__(6, "standard", start.dark, start.light, 7, 0), "0 \\(dark\\)"),
    ]:
        with pytest.raises(ValueError, match=words):
            engine.from_states([start, bad])

"""The batched Gymnasium env against a game-by-game oracle on the core, and its API."""

from __future__ import annotations

import re
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import RecordEpisodeStatistics
from hypothesis import given, settings
from hypothesis import strategies as st

import trap_env  # noqa: F401  (registers trap_env/Trap-v0)
from tests.support.env_contract import BATCHED_KEYS, check_values_are_numpy, refused_action
from tests.support.games import every_game, small_rules
from trap_env.batched_env import GameVectorEnv
from trap_env.batched_opponents import AgentOpponent
from trap_env.games import entry_of
from trap_env.gym_env import OpponentError
from trap_env.trap import batched as batched_trap
from trap_env.trap import core
from trap_env.trap.batched_env import TrapVectorEnv
from trap_env.trap.core import GameConfig, IllegalActionError, Phase, State
from trap_env.trap.observation import action_mask, observe


class OracleGame:
    """One slot of the batched env, played through the core with the same random words.

    This restates the single env's turn order (``TrapEnv._play_others``) with core calls;
    only the draws come from :mod:`trap_env.trap.batched` (whose sampler is checked exactly
    against the rule in ``test_vector.py``).
    """

    def __init__(self, seed: int, slot: int, board_size: int, max_turns: int, seat: int | None):
        self.seed, self.slot, self.seat_rule = seed, slot, seat
        self.tables = batched_trap.tables(board_size)
        self.max_turns = max_turns
        self.episode = -1
        self.reset()

    def reset(self) -> None:
        self.episode += 1
        self.key = batched_trap.game_keys(
            self.seed, np.array([self.slot]), np.array([self.episode])
        )
        coin = int(
            batched_trap.random_words(self.key, 0, batched_trap.STREAM_SEAT)[0] & np.uint64(1)
        )
        self.seat = coin if self.seat_rule is None else self.seat_rule
        self.state = core.initial_state(GameConfig(self.tables.board_size))
        self.illegal = False
        self.truncated = self._play_others()

    def _word(self, stream: int) -> np.ndarray:
        ply = 3 * self.state.turn + int(self.state.phase)
        return batched_trap.random_words(self.key, np.array([ply]), stream)

    def _land(self) -> None:
        batch = batched_trap.from_states([self.state])
        cell = batched_trap.sample_landings(
            self.tables, batch, self._word(batched_trap.STREAM_CHANCE)
        )
        self.state = core.apply(self.state, int(cell[0]))

    def _opponent_action(self) -> int:
        legal = sum(1 << c for c in core.legal_actions(self.state))
        empty = legal & ~self.state.traps
        if self.state.phase is Phase.THROW and empty:
            legal = empty
        bits = np.array([legal], np.uint64)
        word = self._word(batched_trap.STREAM_OPPONENT)
        if self.state.phase is Phase.MOVE:  # a guess among the neighbours first
            neighbours = self.tables.neighbour_cells[[self.state.cells[self.state.player]]]
            return int(batched_trap.choose_bits(bits, word, candidates=neighbours)[0])
        return int(batched_trap.choose_bits(bits, word, self.tables.num_cells)[0])

    def _play_others(self) -> bool:
        while not core.is_terminal(self.state):
            if self.state.phase is Phase.MOVE and self.state.turn >= self.max_turns:
                return True
            if self.state.player == self.seat:
                return False
            self.state = core.apply(self.state, self._opponent_action())
            if self.state.phase is Phase.LANDING:
                self._land()
        return False

    def step(self, action: int) -> tuple[float, bool, bool]:
        if action not in core.legal_actions(self.state):
            self.illegal = True
            return -1.0, True, False
        self.state = core.apply(self.state, action)
        if self.state.phase is Phase.LANDING:
            self._land()
        self.truncated = self._play_others()
        if core.is_terminal(self.state):
            return core.returns(self.state)[self.seat], True, False
        return 0.0, False, self.truncated

    def observation(self) -> np.ndarray:
        return observe(self.state, self.seat)

    def mask(self) -> np.ndarray:
        """The legal actions; all of them once the episode is over (the env contract)."""
        if self.illegal or self.truncated or core.is_terminal(self.state):
            return np.ones(self.tables.num_cells, bool)
        return action_mask(self.state).astype(bool)


@settings(max_examples=60)
@given(
    seed=st.integers(0, 2**40),
    num_envs=st.integers(1, 12),
    board_size=st.integers(3, 8),
    seat=st.sampled_from([None, 0, 1]),
    max_turns=st.sampled_from([None, 3, 10]),
    actions_seed=st.integers(0, 2**32 - 1),
)
def test_every_slot_plays_as_the_core_oracle_with_next_step_autoreset(
    seed: int,
    num_envs: int,
    board_size: int,
    seat: int | None,
    max_turns: int | None,
    actions_seed: int,
) -> None:
    envs = TrapVectorEnv(num_envs, board_size=board_size, seat=seat, max_turns=max_turns)
    limit = 4 * board_size * board_size if max_turns is None else max_turns
    oracles = [OracleGame(seed, slot, board_size, limit, seat) for slot in range(num_envs)]
    observations, info = envs.reset(seed=seed)
    rng = np.random.default_rng(actions_seed)
    done = np.zeros(num_envs, bool)
    for _ in range(60):
        for slot, oracle in enumerate(oracles):
            assert np.array_equal(observations[slot], oracle.observation())
            assert np.array_equal(envs.action_masks()[slot], oracle.mask())
            assert info["seat"][slot] == oracle.seat
        actions = np.array([_pick(envs.action_masks()[i], rng) for i in range(num_envs)])
        observations, rewards, terminated, truncated, info = envs.step(actions)
        for slot, oracle in enumerate(oracles):
            if done[slot]:
                oracle.reset()
                expected = (0.0, False, False)
            else:
                expected = oracle.step(int(actions[slot]))
            assert (rewards[slot], terminated[slot], truncated[slot]) == expected
        done = terminated | truncated


def _pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    """Mostly a legal action; now and then an illegal one (or any, when none is legal)."""
    legal = np.flatnonzero(mask)
    if len(legal) == 0 or rng.random() < 0.03:
        return int(rng.integers(len(mask)))
    return int(rng.choice(legal))


def test_make_vec_returns_the_batched_env_with_the_single_envs_spaces() -> None:
    envs = gymnasium.make_vec("trap_env/Trap-v0", num_envs=16, opponent="random", board_size=6)
    single = gymnasium.make("trap_env/Trap-v0", board_size=6)
    assert isinstance(envs, TrapVectorEnv)
    assert envs.single_observation_space == single.observation_space
    assert envs.single_action_space == single.action_space
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    observations, info = envs.reset(seed=1)
    assert observations.shape == (16, 6, 6, 4) and observations.dtype == np.int8
    assert envs.action_masks().dtype == np.bool_ and envs.action_masks().shape == (16, 36)
    assert np.array_equal(info["action_mask"], envs.action_masks().astype(np.int8))
    assert info["_action_mask"].all()
    assert envs.observation_space.contains(observations)


def test_a_board_over_the_limit_points_to_the_sync_mode() -> None:
    with pytest.raises(ValueError, match='vectorization_mode="sync"'):
        gymnasium.make_vec("trap_env/Trap-v0", num_envs=2, board_size=9)
    envs = gymnasium.make_vec(
        "trap_env/Trap-v0", num_envs=2, board_size=9, vectorization_mode="sync"
    )
    observations, _ = envs.reset(seed=0)
    assert observations.shape == (2, 9, 9, 4)


def test_one_seed_replays_and_slots_do_not_depend_on_b() -> None:
    runs = []
    for num_envs in (3, 3, 9):
        envs = TrapVectorEnv(num_envs, board_size=5)
        observations, _ = envs.reset(seed=11)
        trace = [observations[:3].copy()]
        for step in range(40):
            masks = envs.action_masks()
            actions = np.array(
                [np.flatnonzero(m)[step % max(m.sum(), 1)] if m.any() else 0 for m in masks]
            )
            observations, *_ = envs.step(actions)
            trace.append(observations[:3].copy())
        runs.append(np.stack(trace))
    assert np.array_equal(runs[0], runs[1])
    assert np.array_equal(runs[0], runs[2])


def test_record_episode_statistics_sees_game_outcomes() -> None:
    envs = RecordEpisodeStatistics(TrapVectorEnv(32, board_size=4))
    envs.reset(seed=3)
    rng = np.random.default_rng(0)
    returns: list[float] = []
    for _ in range(200):
        masks = envs.unwrapped.action_masks()  # type: ignore[attr-defined]
        actions = np.array([_pick(m, rng) for m in masks])
        *_, info = envs.step(actions)
        if "episode" in info:
            returns += info["episode"]["r"][info["_episode"]].tolist()
    assert len(returns) > 50
    assert set(returns) <= {-1.0, 0.0, 1.0} and {-1.0, 1.0} <= set(returns)


def test_illegal_actions_lose_or_raise() -> None:
    envs = TrapVectorEnv(2, board_size=5, seat=0)
    envs.reset(seed=0)
    legal = int(np.flatnonzero(envs.action_masks()[0])[0])
    _, rewards, terminated, _, info = envs.step(np.array([legal, 24]))
    assert rewards.tolist() == [0.0, -1.0] and terminated.tolist() == [False, True]
    assert info["illegal_action"].tolist() == [False, True]
    assert envs.action_masks()[1].all()  # the episode is over: all ones
    raising = TrapVectorEnv(2, board_size=5, seat=0, illegal_action="raise")
    raising.reset(seed=0)
    with pytest.raises(IllegalActionError, match="game 1: illegal action 24"):
        raising.step(np.array([legal, 24]))
    with pytest.raises(ValueError, match="actions must be 2 integers"):
        raising.step(np.array([0.5, 1.0]))


def test_batched_policy_and_mix_opponents() -> None:
    calls: list[tuple[tuple[int, ...], tuple[int, ...]]] = []

    def lowest(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        calls.append((observations.shape, masks.shape))
        assert (observations[..., 0].reshape(len(masks), -1).sum(axis=1) == 1).all()
        return masks.argmax(axis=1)

    envs = TrapVectorEnv(64, board_size=5, opponent={"random": 0.5, lowest: 0.5}, seat=1)
    envs.reset(seed=5)
    assert len(calls) > 0 and all(o[1:] == (5, 5, 4) and m[1] == 25 for o, m in calls)
    kinds = envs._kind  # the mix's draw per game
    assert 10 < kinds.sum() < 54
    for _ in range(30):
        envs.step(envs.action_masks().argmax(axis=1))


def test_agent_specs_play_game_by_game() -> None:
    envs = TrapVectorEnv(4, board_size=5, opponent="greedy")
    envs.reset(seed=2)
    batch_before = batched_trap.to_states(envs.tables, envs.batch)
    assert all(s.phase is Phase.MOVE for s in batch_before)
    for _ in range(20):
        envs.step(envs.action_masks().argmax(axis=1))
    with pytest.raises(ValueError, match="unknown agent"):
        TrapVectorEnv(2, opponent="no-such-agent")


def test_a_spec_opponent_is_told_its_game() -> None:
    assert AgentOpponent("greedy", game="othello").game == "othello"
    assert AgentOpponent(lambda state: 0).game is None  # an object plays as it is


def test_self_play_acts_for_both_seats() -> None:
    envs = TrapVectorEnv(8, board_size=4, opponent="self")
    _, info = envs.reset(seed=4)
    assert info["seat"].tolist() == [0] * 8
    rng = np.random.default_rng(1)
    seen_winner = False
    for _ in range(100):
        to_act = envs.batch.player.copy()
        _, rewards, terminated, _, info = envs.step(
            np.array([_pick(m, rng) for m in envs.action_masks()])
        )
        assert info["player"].tolist() == to_act.tolist()
        won = terminated & (info["winner"] >= 0)
        assert (rewards[won] == np.where(info["winner"][won] == to_act[won], 1.0, -1.0)).all()
        acted = info["returns"][np.arange(8), to_act]
        assert (acted[terminated] == rewards[terminated]).all()
        assert (info["returns"].sum(axis=1) == 0).all()
        seen_winner |= bool(won.any())
        assert (envs.seats == envs.batch.player).all()
    assert seen_winner


def test_disabled_autoreset_waits_for_the_reset_mask() -> None:
    envs = TrapVectorEnv(2, board_size=5, seat=0, autoreset_mode="disabled")
    envs.reset(seed=0)
    legal = int(np.flatnonzero(envs.action_masks()[0])[0])
    envs.step(np.array([legal, 24]))  # game 1 ends on an illegal action
    _, rewards, terminated, _, _ = envs.step(np.array([0, 0]))
    assert rewards[1] == 0.0 and not terminated[1]
    observations, _ = envs.reset(options={"reset_mask": np.array([False, True])})
    assert envs.action_masks()[1].sum() == 5
    assert np.array_equal(observations[1], observe(core.initial_state(GameConfig(5)), 0))


def _states(envs: TrapVectorEnv) -> list[State]:
    return batched_trap.to_states(envs.tables, envs.batch)


def test_seats_are_drawn_per_episode() -> None:
    envs = TrapVectorEnv(200, board_size=5)
    _, info = envs.reset(seed=9)
    assert 60 < info["seat"].sum() < 140
    for state, seat in zip(_states(envs), info["seat"].tolist(), strict=True):
        assert state.player == seat and state.turn == seat


@pytest.mark.parametrize(
    "bad",
    [
        {"num_envs": 0},
        {"seat": 2},
        {"render_mode": "human"},
        {"opponent": "self", "seat": 0},
        {"opponent": {"random": 0.5}},
        {"autoreset_mode": "SameStep"},
    ],
)
def test_bad_arguments_get_clear_errors(bad: dict[str, Any]) -> None:
    pattern = r"num_envs|seat must|does not render|no learner's seat|sum to 1|autoreset_mode"
    with pytest.raises(ValueError, match=pattern):
        TrapVectorEnv(**{"num_envs": 2, **bad})


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"seat": 1.0}, "seat must be 0, 1 or None (random each reset), got float 1.0"),
        ({"seat": True}, "seat must be 0, 1 or None (random each reset), got bool True"),
    ],
)
def test_wrong_types_are_refused_naming_the_argument(bad: dict[str, Any], message: str) -> None:
    with pytest.raises(TypeError, match=re.escape(message)):
        TrapVectorEnv(**{"num_envs": 2, **bad})


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"seed": "1"}, "seed must be an integer or None, got str '1'"),
        ({"seed": [1, 2]}, "seed must be an integer or None, got list [1, 2]"),
        ({"options": 3}, "options must be a dict or None, got int 3"),
    ],
)
def test_reset_refuses_wrong_types_naming_the_argument(arguments: dict, message: str) -> None:
    with pytest.raises(TypeError, match=re.escape(message)):
        TrapVectorEnv(2).reset(**arguments)


def test_the_game_is_a_name_or_a_game_object() -> None:
    from trap_env.batched_env import GameVectorEnv

    with pytest.raises(TypeError, match=r"game must be a game's name \(.*othello.*\)"):
        GameVectorEnv(3, num_envs=2)  # type: ignore[arg-type]


def test_step_before_reset_needs_a_reset() -> None:
    with pytest.raises(ResetNeeded):
        TrapVectorEnv(2).step(np.array([0, 0]))


def _faulty_policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Plays legally, except in phase THROW where it names its own cell (never legal)."""
    throwing = observations[:, 0, 0, 3] == 1
    own = observations[..., 0].reshape(len(masks), -1).argmax(axis=1)
    return np.where(throwing, own, masks.argmax(axis=1))


def test_an_opponent_fault_truncates_only_its_games_with_a_warning() -> None:
    envs = TrapVectorEnv(6, board_size=5, opponent={"random": 0.5, _faulty_policy: 0.5}, seat=0)
    envs.reset(seed=1)
    faulty = envs._kind == 1
    assert 0 < faulty.sum() < 6
    masks = envs.action_masks()
    envs.step(masks.argmax(axis=1))  # the learner moves
    with pytest.warns(RuntimeWarning, match="erred: action"):
        _, rewards, terminated, truncated, info = envs.step(envs.action_masks().argmax(axis=1))
    assert truncated.tolist() == faulty.tolist()
    assert info["opponent_fault"].tolist() == faulty.tolist()
    assert not terminated.any() and (rewards == 0).all()
    assert envs.action_masks()[faulty].all()  # the episodes are over: all ones
    envs.step(np.zeros(6, np.int64))  # the faulted games restart
    assert envs.batch.turn[faulty].tolist() == [0] * int(faulty.sum())


def test_an_opponent_that_raises_in_reset_raises_opponent_error() -> None:
    class Broken:
        def select_action(self, state: State) -> int:
            raise ZeroDivisionError("broken")

    envs = TrapVectorEnv(3, board_size=5, opponent=Broken(), seat=1)
    with pytest.raises(OpponentError, match="raised ZeroDivisionError"):
        envs.reset(seed=0)


def test_close_ends_the_opponents_the_env_built() -> None:
    from tests.support.faulty_agents import ClosingAgent

    ClosingAgent.closed.clear()
    closing = "tests.support.faulty_agents.ClosingAgent"
    envs = TrapVectorEnv(3, opponent=closing, board_size=5, seat=1)
    envs.reset(seed=0)
    envs.close()
    assert len(ClosingAgent.closed) == 3  # one agent per slot, each ended


def test_an_agent_opponents_spec_names_an_agent_of_the_envs_game() -> None:
    """``AgentOpponent(spec)`` names no game of its own: the env it plays in gives its game,
    so that the spec builds that game's agent (Othello's random player here)."""
    opponent = AgentOpponent("random")
    envs = GameVectorEnv("othello", num_envs=2, opponent=opponent, seat=1, board_size=6)
    _, info = envs.reset(seed=0)
    assert opponent.game == "othello" and int(info["turn"][0]) >= 1
    envs.close()
    with pytest.raises(ValueError, match=r"names an agent of no game; give AgentOpponent"):
        AgentOpponent("random").start(envs.engine, np.array([0]), np.array([1], np.uint64))


def test_the_batched_opponents_are_re_exported_where_they_were() -> None:
    from trap_env import batched_env, batched_opponents

    for name in ("BatchOpponent", "BatchPolicy", "VectorOpponent"):
        assert getattr(batched_env, name) is getattr(batched_opponents, name)


def _trajectory_hash(opponent, seat, board, decay, mode, steps, num_envs) -> str:
    """A hash of everything the env returned over ``steps`` steps of random legal actions
    (with an illegal one now and then), for the recorded runs below."""
    import hashlib

    env = TrapVectorEnv(num_envs, opponent=opponent, seat=seat, board_size=board, decay=decay,
                        autoreset_mode=mode)  # fmt: skip
    digest = hashlib.sha256()
    observations, _ = env.reset(seed=7)
    digest.update(observations.tobytes())
    rng = np.random.default_rng(3)
    aborted = np.zeros(num_envs, bool)
    for step in range(steps):
        masks = _masks_as_recorded(env, aborted)
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        if step % 17 == 5:
            actions[0] = 0  # maybe illegal
        observations, rewards, terminated, truncated, info = env.step(actions)
        aborted = info["illegal_action"] | info["opponent_fault"]
        recorded = _info_as_recorded(info, _masks_as_recorded(env, aborted))
        if mode == "disabled" and (terminated | truncated).any():
            env.reset(options={"reset_mask": terminated | truncated})
            aborted[:] = False  # every ended game restarted
        for array in (observations, rewards, terminated, truncated):
            digest.update(array.tobytes())
        for key in sorted(recorded):
            digest.update(key.encode())
            digest.update(np.asarray(recorded[key]).tobytes())
    return digest.hexdigest()[:16]


def _masks_as_recorded(env: TrapVectorEnv, aborted: np.ndarray) -> np.ndarray:
    """The masks as the env gave them when the runs were recorded, before the env contract
    made an ended episode's mask all ones: the rules' masks, with none legal in a game that
    ended on an illegal action or a fault (``aborted``) and has not restarted."""
    masks: np.ndarray = env.engine.legal_masks(env.batch)
    masks[aborted] = False
    return masks


def _info_as_recorded(info: dict, masks: np.ndarray) -> dict:
    """``info`` as the env gave it when the runs were recorded: the masks as they were
    (:func:`_masks_as_recorded`), the fault flags only in a step where some game had one,
    masked where they were True."""
    flags = ("illegal_action", "opponent_fault")
    recorded = {key: value for key, value in info.items() if key.lstrip("_") not in flags}
    recorded["action_mask"] = masks.view(np.int8)
    for key in flags:
        if info[key].any():
            recorded[key] = recorded[f"_{key}"] = info[key]
    return recorded


@pytest.mark.parametrize(
    ("opponent", "seat", "board", "decay", "mode", "steps", "num_envs", "recorded"),
    [
        ("random", None, 7, 50, "next_step", 120, 64, "5239cf0cfcac2473"),
        ("greedy", 0, 5, 50, "next_step", 120, 64, "c6d6916d87ae049e"),
        ({"random": 0.5, "ais": 0.5}, None, 6, 120, "disabled", 120, 64, "9cdbe9ffa157fc37"),
        ("self", None, 4, 0, "next_step", 120, 64, "2bbf3af166f5c78a"),
        (
            # Played game by game, as the spec was then (it now has a batched twin).
            AgentOpponent("expectiminimax:depth=1,time_limit=inf", game="trap"),
            None,
            4,
            50,
            "next_step",
            60,
            8,
            "9bd9c89544e9c6b7",
        ),
        (
            lambda seen, masks: np.argmax(masks, axis=1),
            1,
            5,
            50,
            "next_step",
            120,
            64,
            "6705069165e896ab",
        ),
    ],
)
def test_the_batched_env_replays_the_runs_recorded_before_the_engine_protocol(
    opponent, seat, board, decay, mode, steps, num_envs, recorded
) -> None:
    # Recorded on 6d38ad0, before the env went through trap_env.batched.BatchedEngine.
    assert _trajectory_hash(opponent, seat, board, decay, mode, steps, num_envs) == recorded


def test_what_the_single_env_refuses_the_batched_env_refuses_too() -> None:
    from gymnasium.error import ClosedEnvironmentError

    from trap_env.gym_env import MAX_NUM_ENVS

    for num_envs in (0, MAX_NUM_ENVS + 1, 2.0, True):
        with pytest.raises(ValueError, match=r"num_envs must be an integer 1\.\."):
            TrapVectorEnv(num_envs)  # type: ignore[arg-type]
    envs = TrapVectorEnv(4, board_size=5)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="bool array of shape \\(4,\\)"):
        envs.reset(options={"reset_mask": np.array([0, 1, 1, 0])})  # indices or ints: refused
    envs.reset(options={"reset_mask": np.array([False, True, True, False])})
    with pytest.raises(ValueError, match="actions must be 4 integers"):
        envs.step(np.array([1.0, 2.0, 3.0, 4.0]))
    envs.close()
    for call in (lambda: envs.reset(seed=1), lambda: envs.step(np.zeros(4, np.int64))):
        with pytest.raises(ClosedEnvironmentError, match="closed"):
            call()


@pytest.mark.parametrize("answer", ["7", 7.0, True, None])
def test_an_opponent_answering_something_but_an_integer_is_a_fault(answer: object) -> None:
    envs = TrapVectorEnv(2, opponent=lambda state: answer, seat=0, board_size=5)
    envs.reset(seed=0)
    with pytest.warns(RuntimeWarning, match="not an integer action"):
        for _ in range(2):  # the learner's move, then its throw: the opponent's turn comes
            _, rewards, terminated, truncated, info = envs.step(
                np.argmax(envs.action_masks(), axis=1)
            )
    assert truncated.all() and not terminated.any() and not rewards.any()
    assert info["opponent_fault"].all()


ARGUMENT_VALUES = {
    "seat": [0, 1, 2, -1, 1.0, True, "1", None, np.int64(1)],
    "board_size": [2, 3, 5, 7.0, "7", None, np.int64(5), True],
    "max_turns": [0, 1, None, 1.5, "3", True, np.int64(3)],
    "decay": [0, 50, 1001, -1, 0.5, "50", None, True],
    "illegal_action": ["lose", "raise", "ignore", None, 1],
    "opponent": ["random", "greedy", "nobody", 3, None],
    "mask_in_observation": [False, True, 1, "yes", None, np.True_],
}


def _outcome(make: Any, arguments: dict[str, Any]) -> type[Exception] | None:
    """None if ``make(**arguments)`` builds an env; else the class of what it raised,
    after checking that the message names one of the arguments (or the agent spec)."""
    try:
        make(**arguments).close()
    except (TypeError, ValueError) as error:
        assert str(error).startswith((*arguments, "unknown agent")), error
        return type(error)
    return None


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(sorted(ARGUMENT_VALUES)),
        st.integers(0, 8),
        max_size=2,
    )
)
def test_the_single_and_batched_envs_refuse_the_same_arguments_naming_them(
    choices: dict[str, int],
) -> None:
    arguments = {
        name: ARGUMENT_VALUES[name][index % len(ARGUMENT_VALUES[name])]
        for name, index in choices.items()
    }
    single = _outcome(lambda **kwargs: gymnasium.make("trap_env/Trap-v0", **kwargs), arguments)
    assert _outcome(lambda **kwargs: TrapVectorEnv(2, **kwargs), arguments) is single


# --- One env contract in every game (docs/environments.md) ------------------------------


class _IllegalNow:
    """A batched policy that answers an illegal action (an action out of range)."""

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.full(len(masks), 10**6)


SMALL = {"trap": 5}
"""The shipped games' boards for whole episodes (Othello's: its default)."""


@every_game("batched engine")
@pytest.mark.parametrize("mode", ["next_step", "disabled"])
@pytest.mark.parametrize(
    "end", ["terminated", "truncated", "illegal_action", "opponent_fault"]
)
def test_every_episode_end_masks_all_ones_with_the_same_numpy_keys(
    game: str, mode: str, end: str
) -> None:
    options: dict[str, Any] = {"seat": 0, "autoreset_mode": mode}
    if end == "truncated":
        options["max_turns"] = 3
    if end == "opponent_fault":
        options["opponent"] = {"random": 0.5, _IllegalNow(): 0.5}
    envs = GameVectorEnv(game, 8, **options, **small_rules(game, board_size=SMALL.get(game)))
    _, info = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    seen = np.zeros(8, bool)
    for step in range(200):
        assert {key for key in info if not key.startswith("_")} == BATCHED_KEYS
        check_values_are_numpy(info)
        masks = envs.action_masks()
        assert masks.any(axis=1).all() and np.array_equal(masks, info["action_mask"] > 0)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        if end == "illegal_action" and step % 5 == 4:
            actions[:] = envs.engine.num_actions  # illegal everywhere
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            _, _, terminated, truncated, info = envs.step(actions)
        ended = terminated | truncated
        assert info["action_mask"][ended].all() and envs.action_masks()[ended].all()
        kind = truncated & ~info["opponent_fault"] if end == "truncated" else terminated
        if end in ("illegal_action", "opponent_fault"):
            kind = info[end]
        seen |= kind
        if mode == "disabled" and ended.any():
            _, info = envs.reset(options={"reset_mask": ended})
    assert seen.any()
    rules = envs.engine.legal_masks(envs.batch)
    over = envs.engine.is_over(envs.batch)
    assert not rules[over].any()  # the rules' masks stay exact


@pytest.mark.parametrize("seat", [None, 1])
def test_a_turn_limit_that_leaves_the_learner_no_decision_is_refused(seat: int | None) -> None:
    with pytest.raises(ValueError, match=r"max_turns=1 .* seat 1.*max_turns >= 2 or seat=0"):
        TrapVectorEnv(4, seat=seat, max_turns=1)
    TrapVectorEnv(4, opponent="self", max_turns=1)  # the caller plays both seats: fine


@pytest.mark.parametrize(("seat", "max_turns"), [(0, 1), (None, 2), (1, 2)])
def test_every_episode_begins_at_a_decision_of_the_learner(
    seat: int | None, max_turns: int
) -> None:
    envs = TrapVectorEnv(32, board_size=4, seat=seat, max_turns=max_turns)
    envs.reset(seed=0)
    playing = np.ones(32, bool)
    for _ in range(12):
        assert (envs.batch.player == envs.seats)[playing].all()
        assert not envs.engine.is_over(envs.batch)[playing].any()
        _, _, terminated, truncated, _ = envs.step(envs.action_masks().argmax(axis=1))
        playing = ~(terminated | truncated)  # the others restart at the next step


@every_game()
def test_same_step_autoreset_is_gymnasiums_and_ends_as_the_single_env(game: str) -> None:
    """Every id's vector entry point takes ``autoreset_mode="same_step"``: an ended game's
    last observation and ``info`` are in ``info["final_obs"]``/``["final_info"]`` (masked by
    ``"_final_obs"``/``"_final_info"``), equal to the single env's, and the step returns the
    next episode's start, as the single env's next ``reset`` gives it."""
    kwargs = {"seat": 0, **small_rules(game, board_size=6)}
    gym_id = entry_of(game).gym_id
    envs = gymnasium.make_vec(gym_id, 3, autoreset_mode="same_step", **kwargs)
    single = gymnasium.make(gym_id, **kwargs)
    first, info = envs.reset(seed=0)
    single_first, _ = single.reset(seed=0)
    assert np.array_equal(first[0], single_first)
    masks = info["action_mask"].astype(bool)
    illegal = refused_action(masks[0])
    actions = np.array([illegal, *(np.flatnonzero(m)[0] for m in masks[1:])])
    observations, rewards, terminated, _, info = envs.step(actions)
    last, reward, _, _, last_info = single.step(illegal)
    start, start_info = single.reset()

    assert terminated[0] and rewards[0] == reward == -1.0
    assert info["_final_obs"].tolist() == info["_final_info"].tolist() == [True, False, False]
    assert np.array_equal(info["final_obs"][0], last)
    final_info = info["final_info"]
    keys = {key for key in final_info if not key.startswith("_")}  # the batched env's fewer
    assert BATCHED_KEYS <= keys <= set(last_info) and keys < set(info)
    for key in keys:
        assert np.array_equal(final_info[key][0], last_info[key]), key
        assert final_info[f"_{key}"].tolist() == [True, False, False]
        assert np.array_equal(info[key][0], start_info[key]), key
    assert np.array_equal(observations[0], start) and not info["illegal_action"][0]


@every_game()
def test_same_step_autoreset_never_shows_an_ended_game_to_the_policy(game: str) -> None:
    rules = small_rules(game, board_size=6)
    envs = gymnasium.make_vec(entry_of(game).gym_id, 4, autoreset_mode="same_step", **rules)
    rng = np.random.default_rng(0)
    _, info = envs.reset(seed=1)
    ends = 0
    for _ in range(150):
        masks = info["action_mask"].astype(bool)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, _, terminated, truncated, info = envs.step(actions)
        ended = terminated | truncated
        ends += int(ended.sum())
        # An ended game is shown as the next one at its start (a learner's first decision is
        # at turn 0 or 1), not by its mask: a game's live mask may be all ones (Drop's).
        assert (info["turn"][ended] <= 1).all(), "an ended game is shown to the policy"
        assert info.get("_final_obs", np.zeros(4, bool)).tolist() == ended.tolist()
        for game in np.flatnonzero(ended):
            assert info["final_info"]["action_mask"][game].all()
    assert ends > 4


@every_game()
@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
def test_mask_in_observation_gives_every_ids_vector_env_the_single_envs_dict(
    game: str, mode: str
) -> None:
    """``make_vec(id, mask_in_observation=True)`` observes ``{"observation": planes,
    "action_mask": masks}``: the single env's dict space batched, the planes of the env
    without it, the masks ``int8`` as ``info["action_mask"]`` where ``info`` has it (all
    ones at an episode's end), and in same-step autoreset each ended game's last
    observation a dict too."""
    rules, gym_id = small_rules(game, board_size=6), entry_of(game).gym_id
    kwargs: dict[str, Any] = {**rules, "autoreset_mode": mode}
    envs = gymnasium.make_vec(gym_id, 4, mask_in_observation=True, **kwargs)
    plain = gymnasium.make_vec(gym_id, 4, **kwargs)
    single = gymnasium.make(gym_id, **rules, mask_in_observation=True)
    assert envs.single_observation_space == single.observation_space
    observations, info = envs.reset(seed=0)
    planes, _ = plain.reset(seed=0)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(60):
        assert envs.observation_space.contains(observations)
        assert np.array_equal(observations["observation"], planes)
        masks, shown = observations["action_mask"], info["_action_mask"]  # sync: reset's only
        assert masks.dtype == np.int8 and np.array_equal(masks[shown], info["action_mask"][shown])
        assert np.array_equal(masks, envs.action_masks())
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        observations, _, terminated, truncated, info = envs.step(actions)
        planes, *_ = plain.step(actions)
        ended = terminated | truncated
        ends += int(ended.sum())
        if mode == "same_step":
            for game in np.flatnonzero(ended):
                last = info["final_obs"][game]
                assert single.observation_space.contains(last) and last["action_mask"].all()
        else:
            assert observations["action_mask"][ended].all()
        if mode == "disabled" and ended.any():
            observations, info = envs.reset(options={"reset_mask": ended})
            planes, _ = plain.reset(options={"reset_mask": ended})
    assert ends > 0


@every_game()
def test_every_ids_vector_env_stacks_info_into_typed_arrays(game: str) -> None:
    """Each ``info`` value of a vector env is an array of numbers or booleans, never of
    objects (Gymnasium stacks a NumPy bool into an object array; TorchRL's info reader
    cannot take one), and it says what the vector env runs on."""
    rules = small_rules(game, board_size=6)
    envs = gymnasium.make_vec(entry_of(game).gym_id, 2, **rules, autoreset_mode="disabled")
    assert envs.autoreset_mode is AutoresetMode.DISABLED  # read by TorchRL's GymWrapper
    _, info = envs.reset(seed=0)
    _, _, _, _, stepped = envs.step(envs.action_masks().argmax(axis=1))
    for values in (info, stepped):
        objects = sorted(key for key, value in values.items() if value.dtype == object)
        assert objects == []

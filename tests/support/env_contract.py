"""The env contract of docs/environments.md, checked on any game's Gymnasium, batched and
PettingZoo env: the same ``info`` keys after every reset and step, NumPy values only, and
an all-ones action mask at every episode end while the rules' mask stays exact."""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any

import numpy as np

GYM_KEYS = frozenset({"action_mask", "phase", "seat", "turn", "illegal_action", "opponent_fault"})
"""The keys of every single env's ``info``, in every game."""
CHANCE_KEYS = frozenset({"chance", "opponent_chance"})
"""The generic chance keys, only in a game with chance."""
BATCHED_KEYS = frozenset({"action_mask", "seat", "turn", "illegal_action", "opponent_fault"})
"""The keys of every batched env's ``info`` (each with its ``"_key"`` mask), in every game."""


def check_values_are_numpy(info: dict[str, Any]) -> None:
    """Every value has a ``dtype`` (TorchRL's info reader needs one): no Python int or bool."""
    plain = {key: type(value).__name__ for key, value in info.items()
             if not isinstance(value, np.ndarray | np.generic)}  # fmt: skip
    assert plain == {}, f"values that are not NumPy's: {plain}"


def refused_action(mask: Any) -> int:
    """An action that ``mask`` refuses: its first illegal action, or where every action is
    legal (Drop's empty board) the one past the last, which the Gymnasium envs refuse as
    they refuse any illegal action (the episode ends, reward -1)."""
    refused = np.flatnonzero(~np.asarray(mask, bool))
    return int(refused[0]) if refused.size else len(mask)


def play_gym_episode(env: Any, keys: frozenset[str], seed: int, illegal: bool = False) -> str:
    """Play one episode of random legal actions (one illegal action if ``illegal``),
    checking the contract at every reset and step; return how it ended."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    while True:
        assert set(info) == keys
        check_values_are_numpy(info)
        mask = env.action_masks()
        assert mask.any() and np.array_equal(mask, info["action_mask"].astype(bool))
        if illegal and not mask.all():
            action = int(np.flatnonzero(~mask)[0])
        else:
            action = int(rng.choice(np.flatnonzero(mask)))
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    assert set(info) == keys
    check_values_are_numpy(info)
    assert info["action_mask"].all() and env.action_masks().all()
    assert info["action_mask"].dtype == np.int8 and env.action_masks().dtype == np.bool_
    game = env.game
    rules = np.array(game.legal_action_mask(env.game_state), bool)
    if terminated and not info["illegal_action"]:
        assert not rules.any(), "the rules' mask of a finished game stays exact (empty)"
    if info["illegal_action"]:
        return "illegal action"
    if info["opponent_fault"]:
        return "opponent fault"
    return "terminated" if terminated else "truncated"


def play_aec_game(env: Any, keys: frozenset[str], seed: int) -> None:
    """Play one game of random legal actions through a PettingZoo AEC env, checking that
    both agents' infos hold ``keys`` with NumPy values throughout, and that both masks are
    all ones once the game is over while the rules' mask stays exact."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    raw = env.unwrapped
    for _agent in env.agent_iter():
        for name in env.agents:
            assert set(env.infos[name]) == keys
            check_values_are_numpy(env.infos[name])
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            for name in env.possible_agents:
                assert raw.observe(name)["action_mask"].all()
            assert not any(raw.game.legal_action_mask(raw.game_state)) or truncated
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))


class StateQuestions:
    """Counts, state by state, how often an env asks its game for ``outcome`` and
    ``legal_action_mask`` (each must be asked at most once per state an env reaches).

    Only questions from outside the game count: one that the game asks itself, from a
    method of its own (Race's ``apply`` and ``legal_actions`` ask its ``outcome``), is the
    game's own business."""

    def __init__(self, monkeypatch: Any, game: Any) -> None:
        self.asked: list[tuple[str, Any]] = []
        self.game = game
        for name in ("outcome", "legal_action_mask"):
            monkeypatch.setattr(game, name, self._counting(name, getattr(game, name)))

    def _counting(self, name: str, ask: Any) -> Any:
        def counted(state: Any, *args: Any) -> Any:
            caller = sys._getframe(1)
            if caller.f_locals.get("self") is not self.game:
                self.asked.append((name, state))
            return ask(state, *args)

        return counted

    def repeated(self) -> list[tuple[str, Any]]:
        """The questions asked twice or more since the last call, and forget them."""
        counts = Counter(self.asked)
        self.asked = []
        return [question for question, times in counts.items() if times > 1]

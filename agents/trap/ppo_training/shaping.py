"""Reward shaping by the mobility margin (:class:`MobilityShaping`), potential-based.

Part of :mod:`agents.trap.ppo_training`.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from trap_env.trap.core import mobility


class MobilityShaping(gym.Wrapper):
    """Potential-based reward shaping with the mobility margin (Ng, Harada, Russell 1999).

    The potential of a state is ``coef * (mobility(learner) - mobility(opponent)) / 8``
    (0 once the game is over), and each step adds ``gamma * potential(after) -
    potential(before)``. Shaping of this form leaves the optimal policy unchanged, but it
    rewards a throw that hems the opponent in at once instead of 30 turns later, which
    is most of what the first hundred thousand steps have to learn. Put it outside the
    ``Monitor``, so that episode returns stay the game's +1 / 0 / -1.
    """

    def __init__(self, env: gym.Env, coef: float, gamma: float) -> None:
        super().__init__(env)
        self.coef, self.gamma = coef, gamma
        self._potential = 0.0

    def _potential_now(self, terminated: bool) -> float:
        if terminated:
            return 0.0
        state, seat = self.env.unwrapped.game_state, self.env.unwrapped.seat  # type: ignore[attr-defined]
        return self.coef * (mobility(state, seat) - mobility(state, 1 - seat)) / 8

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        """Reset the env and the potential."""
        observation, info = self.env.reset(**kwargs)
        self._potential = self._potential_now(False)
        return observation, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step the env and add the change of potential to the reward."""
        observation, reward, terminated, truncated, info = self.env.step(action)
        potential = self._potential_now(terminated)
        shaped = float(reward) + self.gamma * potential - self._potential
        self._potential = potential
        return observation, shaped, terminated, truncated, info

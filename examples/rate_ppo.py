"""Train MaskablePPO on Trap! for about a minute and rate it on the ladder, two ways.

During ``learn``, a stable-baselines3 callback rates the policy every ``--rate-every`` steps
and logs ``ladder/rating`` (TensorBoard with ``--tensorboard DIR``); after it, the trained
policy is rated with more games through the callable ``rate``. Needs the ``rl`` extra.

    python examples/rate_ppo.py --timesteps 20000 --games 40
"""

from __future__ import annotations

import argparse
import math

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

import trap_env  # noqa: F401  (registers the ids)
from agents.rating import rate


def policy_of(model: MaskablePPO):
    """The model as ``policy(observation, action_mask) -> action``, playing its best action."""
    def policy(observation: np.ndarray, action_mask: np.ndarray) -> int:
        action, _ = model.predict(observation, action_masks=action_mask.astype(bool),
                                  deterministic=True)
        return int(action)
    return policy


class RatingCallback(BaseCallback):
    """Rate the policy on the game's ladder every ``every`` steps; log ``ladder/rating``."""

    def __init__(self, game: str, every: int, games: int) -> None:
        super().__init__()
        self.game, self.every, self.games = game, every, games

    def _on_step(self) -> bool:
        if self.n_calls % self.every == 0:
            card = rate(policy_of(self.model), game=self.game, games=self.games, name="my-ppo")
            self.logger.record("ladder/rating", math.nan if card.rating is None else card.rating)
            print(f"step {self.num_timesteps}: {card.line}")
        return True


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=20_000)
    parser.add_argument("--rate-every", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=40, help="games of the final rating")
    parser.add_argument("--callback-games", type=int, default=10, help="games of each rating "
                        "during learn")
    parser.add_argument("--tensorboard", default=None, metavar="DIR")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # a small MLP: more threads only wait for each other
    env = gymnasium.make("trap_env/Trap-v0", opponent="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=256, seed=0,
                        tensorboard_log=args.tensorboard)
    callback = RatingCallback("trap", args.rate_every, args.callback_games)
    model.learn(args.timesteps, callback=callback)
    print(rate(policy_of(model), game="trap", games=args.games, name="my-ppo").line)


if __name__ == "__main__":
    main()

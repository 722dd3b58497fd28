"""PPO with action masks in one file, in the style of CleanRL's ``ppo.py``: no framework,
every step of the algorithm on this page, on the batched env of ``gymnasium.make_vec``.

It trains against an opponent played inside the env (``greedy`` by default) on Trap! 5x5,
then plays 200 games with the greedy (most probable legal) action and prints the win rate.
Masks come from ``info["action_mask"]`` (all ones once a game has ended, so a masked
sampler never sees an empty mask); the vector env resets finished games in the same step
(``autoreset_mode="same_step"``), so every transition is a real one.

    python examples/cleanrl_ppo.py                       # Trap! 5x5 against greedy
    python examples/cleanrl_ppo.py --env-id trap_env/Othello-v0 --board-size 6 --opponent random

Needs torch (the ``rl`` extra).
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
import torch
from torch import nn

import trap_env  # noqa: F401  (registers the ids)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="trap_env/Trap-v0")
    parser.add_argument("--board-size", type=int, default=5)
    parser.add_argument("--opponent", default="greedy")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--total-timesteps", type=int, default=700_000)
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--num-steps", type=int, default=64, help="steps per env per rollout")
    parser.add_argument("--learning-rate", type=float, default=5e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--num-minibatches", type=int, default=8)
    parser.add_argument("--update-epochs", type=int, default=4)
    parser.add_argument("--clip-coef", type=float, default=0.2)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--vf-coef", type=float, default=0.5)
    parser.add_argument("--max-grad-norm", type=float, default=0.5)
    parser.add_argument("--eval-games", type=int, default=200)
    return parser.parse_args(argv)


class Agent(nn.Module):
    """An MLP over the flattened planes with a policy and a value head."""

    def __init__(self, num_inputs: int, num_actions: int) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(num_inputs, 256), nn.Tanh(),
                                  nn.Linear(256, 256), nn.Tanh())
        self.actor = nn.Linear(256, num_actions)
        self.critic = nn.Linear(256, 1)

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(self.body(x)).squeeze(-1)

    def act(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        """An action (sampled unless given), its log-probability, the entropy and the value;
        illegal actions get no probability."""
        hidden = self.body(x)
        logits = self.actor(hidden).masked_fill(~mask, -1e9)
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(hidden).squeeze(-1)


def make_envs(args: argparse.Namespace, num_envs: int):
    return gymnasium.make_vec(args.env_id, num_envs=num_envs, board_size=args.board_size,
                              opponent=args.opponent, autoreset_mode="same_step")


def as_tensors(obs: np.ndarray, info: dict) -> tuple[torch.Tensor, torch.Tensor]:
    flat = torch.as_tensor(obs.reshape(len(obs), -1), dtype=torch.float32)
    return flat, torch.as_tensor(info["action_mask"], dtype=torch.bool)


def train(args: argparse.Namespace) -> Agent:
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small matrices: more threads only wait for each other
    envs = make_envs(args, args.num_envs)
    obs, info = envs.reset(seed=args.seed)
    num_inputs = int(np.prod(envs.single_observation_space.shape))
    num_actions = int(envs.single_action_space.n)
    agent = Agent(num_inputs, num_actions)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    n, t = args.num_envs, args.num_steps
    batch = n * t
    store = {name: torch.zeros((t, n)) for name in ("logp", "reward", "done", "value")}
    store_obs = torch.zeros((t, n, num_inputs))
    store_mask = torch.zeros((t, n, num_actions), dtype=torch.bool)
    store_action = torch.zeros((t, n), dtype=torch.long)
    next_obs, next_mask = as_tensors(obs, info)
    next_done = torch.zeros(n)
    for _ in range(args.total_timesteps // batch):
        for step in range(t):  # the rollout
            store_obs[step], store_mask[step], store["done"][step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logp, _, value = agent.act(next_obs, next_mask)
            store_action[step], store["logp"][step], store["value"][step] = action, logp, value
            obs, reward, terminated, truncated, info = envs.step(action.numpy())
            store["reward"][step] = torch.as_tensor(reward, dtype=torch.float32)
            next_obs, next_mask = as_tensors(obs, info)
            next_done = torch.as_tensor(terminated | truncated, dtype=torch.float32)
        with torch.no_grad():  # generalized advantage estimation
            next_value = agent.value(next_obs)
            advantages = torch.zeros((t, n))
            gae = torch.zeros(n)
            for step in reversed(range(t)):
                done_after = next_done if step == t - 1 else store["done"][step + 1]
                value_after = next_value if step == t - 1 else store["value"][step + 1]
                delta = (store["reward"][step] + args.gamma * value_after * (1 - done_after)
                         - store["value"][step])
                gae = delta + args.gamma * args.gae_lambda * (1 - done_after) * gae
                advantages[step] = gae
            returns = advantages + store["value"]
        flat = {"obs": store_obs.reshape(batch, -1), "mask": store_mask.reshape(batch, -1),
                "action": store_action.reshape(-1), "logp": store["logp"].reshape(-1),
                "adv": advantages.reshape(-1), "ret": returns.reshape(-1)}
        for _ in range(args.update_epochs):  # the clipped surrogate objective
            for idx in torch.randperm(batch).split(batch // args.num_minibatches):
                _, logp, entropy, value = agent.act(flat["obs"][idx], flat["mask"][idx],
                                                    flat["action"][idx])
                ratio = (logp - flat["logp"][idx]).exp()
                adv = flat["adv"][idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(
                    1 - args.clip_coef, 1 + args.clip_coef)).mean()
                value_loss = 0.5 * ((value - flat["ret"][idx]) ** 2).mean()
                loss = policy_loss - args.ent_coef * entropy.mean() + args.vf_coef * value_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
    envs.close()
    return agent


def win_rate(agent: Agent, args: argparse.Namespace) -> float:
    """Wins (draws half) over ``eval_games`` games, playing the most probable legal action."""
    envs = make_envs(args, min(args.eval_games, 50))
    obs, info = envs.reset(seed=args.seed + 1)
    results: list[float] = []
    while len(results) < args.eval_games:
        x, mask = as_tensors(obs, info)
        with torch.no_grad():
            logits = agent.actor(agent.body(x)).masked_fill(~mask, -1e9)
        obs, reward, terminated, truncated, info = envs.step(logits.argmax(-1).numpy())
        for i in np.flatnonzero(terminated | truncated):
            results.append((float(reward[i]) + 1) / 2)  # +1 a win, 0 a draw, -1 a loss
    envs.close()
    return float(np.mean(results[: args.eval_games]))


def main(argv: list[str] | None = None) -> float:
    args = parse_args(argv)
    started = time.monotonic()
    agent = train(args)
    rate = win_rate(agent, args)
    print(f"{args.env_id} {args.board_size}x{args.board_size}: {args.total_timesteps} steps in "
          f"{time.monotonic() - started:.0f} s; against {args.opponent}: {rate:.1%} of "
          f"{args.eval_games} games")
    return rate


if __name__ == "__main__":
    main()

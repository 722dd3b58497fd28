"""Self-play on the batched engine: many games searched together by
:class:`agents.mcts.batched.BatchedTree`.

Part of :mod:`agents.rl.alphazero`.
"""

from __future__ import annotations

import numpy as np

from agents.mcts.batched import BatchedTree, PlanesEvaluator
from agents.rl.alphazero.config import AlphaZeroConfig
from agents.rl.alphazero.replay import Samples, _SampleRecorder
from trap_env import batched_trap


class SelfPlay:
    """``config.games`` self-play games on the batched engine (:mod:`trap_env.batched_trap`).

    Every decision searches all the games at once (:class:`agents.mcts.batched.BatchedTree`,
    one network evaluation per simulation step for all of them), then plays each game's
    choice and draws the landings of its throws. A finished game is replaced at once, which
    keeps the batches full; a game in progress carries over to the next call of
    :meth:`play` (with the network of that time). Every draw comes from ``rng``.
    """

    def __init__(self, config: AlphaZeroConfig, rng: np.random.Generator) -> None:
        self.config = config
        self.rng = rng
        self.t = batched_trap.tables(config.board_size, config.decay)
        self.games = batched_trap.initial_batch(self.t, config.games)
        self.recorders = [_SampleRecorder() for _ in range(config.games)]

    def play(self, evaluate: PlanesEvaluator, num_decisions: int) -> tuple[Samples, list[int]]:
        """Make ``num_decisions`` decisions in every game; the samples and winners (-1: draw)
        of the games that ended meanwhile."""
        config = self.config
        finished: list[Samples] = [Samples.empty(config.board_size)]
        winners: list[int] = []
        for _ in range(num_decisions):
            tree = BatchedTree(
                batched_trap.Engine(self.t),
                self.games,
                config.simulations,
                config.c_puct,
                config.turn_limit,
                (config.dirichlet_alpha, config.noise_fraction),
                self.rng,
            )
            tree.run(evaluate)
            self._record(tree)
            games = batched_trap.apply(self.t, self.games, self._choose(tree))
            landing = games.phase == batched_trap.LANDING
            words = self.rng.integers(0, 2**64, size=games.size, dtype=np.uint64)
            games = batched_trap.apply_landings(
                self.t, games, batched_trap.sample_landings(self.t, games, words), landing
            )
            ended = batched_trap.is_over(games) | batched_trap.is_truncated(
                games, config.turn_limit
            )
            for slot in np.flatnonzero(ended).tolist():
                winner = int(games.winner[slot])
                finished.append(self.recorders[slot].finish(winner, config.value_mix))
                winners.append(winner)
                self.recorders[slot] = _SampleRecorder()
            if ended.any():
                games = batched_trap.scatter(
                    games, ended, batched_trap.initial_batch(self.t, int(ended.sum()))
                )
            self.games = games
        return Samples.concatenate(finished), winners

    def _record(self, tree: BatchedTree) -> None:
        """A sample of every game's decision: the position, the visit distribution and
        the root's value (the priors where nothing was visited: one simulation)."""
        visits = tree.root_visits()
        totals = visits.sum(axis=1, keepdims=True)
        policies = np.where(totals > 0, visits / np.maximum(totals, 1), tree.root_priors())
        observations = batched_trap.observations(self.t, self.games, self.games.player)
        masks = tree.root_legal().copy()  # rows outlive the tree: not views into it
        values = tree.root_values()
        for slot, recorder in enumerate(self.recorders):
            recorder.add(
                observations[slot],
                masks[slot],
                policies[slot],
                int(self.games.player[slot]),
                float(values[slot]),
            )

    def _choose(self, tree: BatchedTree) -> np.ndarray:
        """The most visited action; in the first ``temperature_turns`` turns one drawn in
        proportion to the visits."""
        actions = tree.best_actions()
        early = np.flatnonzero(self.games.turn < self.config.temperature_turns)
        if len(early):
            visits = tree.root_visits()[early]
            weights = np.where(
                visits.sum(axis=1, keepdims=True) > 0, visits, tree.root_priors()[early]
            )
            cumulative = np.cumsum(weights, axis=1)
            draws = self.rng.random(len(early)) * cumulative[:, -1]
            actions[early] = np.argmax(cumulative > draws[:, None], axis=1)
        return actions

"""Self-play on the batched engine: many games searched together by
:class:`agents.mcts.batched.BatchedTree`.

Part of :mod:`agents.rl.alphazero`.
"""

from __future__ import annotations

import numpy as np

from agents.mcts.batched import BatchedTree, PlanesEvaluator
from agents.rl.alphazero.config import AlphaZeroConfig
from agents.rl.alphazero.replay import Samples, _SampleRecorder
from trap_env.batched import batched_engine, scatter


class SelfPlay:
    """``config.games`` self-play games on the game's batched engine
    (:class:`trap_env.batched.BatchedEngine`).

    Every decision searches all the games at once (:class:`agents.mcts.batched.BatchedTree`,
    one network evaluation per simulation step for all of them), then plays each game's
    choice and draws the chance outcomes that follow (Trap!'s landings). A finished game is
    replaced at once, which keeps the batches full; a game in progress carries over to the
    next call of :meth:`play` (with the network of that time). Every draw comes from ``rng``.
    """

    def __init__(self, config: AlphaZeroConfig, rng: np.random.Generator) -> None:
        self.config = config
        self.rng = rng
        self.engine = batched_engine(config.rulebook, config.game)
        self.games = self.engine.initial_batch(config.games)
        self.recorders = [_SampleRecorder() for _ in range(config.games)]

    def play(self, evaluate: PlanesEvaluator, num_decisions: int) -> tuple[Samples, list[int]]:
        """Make ``num_decisions`` decisions in every game; the samples and winners (-1: draw)
        of the games that ended meanwhile."""
        config, engine = self.config, self.engine
        finished: list[Samples] = [Samples.empty(*config.sample_shapes)]
        winners: list[int] = []
        for _ in range(num_decisions):
            tree = BatchedTree(
                engine,
                self.games,
                config.simulations,
                config.c_puct,
                config.turn_limit,
                (config.dirichlet_alpha, config.noise_fraction),
                self.rng,
            )
            tree.run(evaluate)
            self._record(tree)
            games = engine.apply(self.games, self._choose(tree))
            if engine.chance_slots:
                chance = engine.is_chance(games)
                words = self.rng.integers(0, 2**64, size=config.games, dtype=np.uint64)
                games = engine.apply(games, engine.sample_chance(games, words), where=chance)
            ended = engine.is_over(games) | engine.is_truncated(games, config.turn_limit)
            for slot in np.flatnonzero(ended).tolist():
                winner = int(engine.winners(games)[slot])
                finished.append(self.recorders[slot].finish(winner, config.value_mix))
                winners.append(winner)
                self.recorders[slot] = _SampleRecorder()
            if ended.any():
                games = scatter(games, ended, engine.initial_batch(int(ended.sum())))
            self.games = games
        return Samples.concatenate(finished), winners

    def _record(self, tree: BatchedTree) -> None:
        """A sample of every game's decision: the position, the visit distribution and
        the root's value (the priors where nothing was visited: one simulation)."""
        visits = tree.root_visits()
        totals = visits.sum(axis=1, keepdims=True)
        policies = np.where(totals > 0, visits / np.maximum(totals, 1), tree.root_priors())
        players = self.engine.players(self.games)
        observations = self.engine.observations(self.games, players)
        masks = tree.root_legal().copy()  # rows outlive the tree: not views into it
        values = tree.root_values()
        for slot, recorder in enumerate(self.recorders):
            recorder.add(
                observations[slot],
                masks[slot],
                policies[slot],
                int(players[slot]),
                float(values[slot]),
            )

    def _choose(self, tree: BatchedTree) -> np.ndarray:
        """The most visited action; in the first ``temperature_turns`` turns one drawn in
        proportion to the visits."""
        actions = tree.best_actions()
        early = np.flatnonzero(self.engine.turns(self.games) < self.config.temperature_turns)
        if len(early):
            visits = tree.root_visits()[early]
            weights = np.where(
                visits.sum(axis=1, keepdims=True) > 0, visits, tree.root_priors()[early]
            )
            cumulative = np.cumsum(weights, axis=1)
            draws = self.rng.random(len(early)) * cumulative[:, -1]
            actions[early] = np.argmax(cumulative > draws[:, None], axis=1)
        return actions


"""AlphaZero-style training of the ``mcts`` agent's network (``trap-train alphazero``).

Any game with a batched engine trains (``game_name``: Trap! or Othello, chosen on the command
line, where ``trap-train`` plays Trap! by default; its rule parameters in ``rules``).
Self-play runs on the game's batched engine
(:class:`trap_env.batched.BatchedEngine`: :mod:`trap_env.trap.batched`,
:mod:`trap_env.othello.batched`): ``games`` games kept going at once (a finished one is
replaced at once), searched together by
:class:`agents.mcts.batched.BatchedTree`, which evaluates the leaves of all the games' trees
in one torch batch per simulation step. An iteration makes ``decisions`` decisions in every
game, then trains. A decision is chosen from the root's visit counts (sampled in
proportion to them for the first ``temperature_turns`` turns, the most visited after), with
Dirichlet noise on the root's priors; chance outcomes (Trap!'s landings) are drawn from
the exact distribution. Every
decision becomes a sample: the position, the legal mask, the visit distribution (policy
target) and the value target, a mix of the game's outcome and the root's search value
(``value_mix``). Samples go to a replay buffer; the network then trains on minibatches drawn
from it, each turned by a random symmetry of the square (the rules are invariant under all
eight).

Optionally the run starts by imitating a teacher (expert iteration's warm start): games of
``imitation_teacher`` against itself, opened by a few uniformly random actions so that they
differ, give the teacher's choices as one-hot policy targets and the outcomes as value
targets.

Everything lands in ``run_dir``: ``config.json``, ``checkpoint.pt`` (network, optimiser,
counters), ``replay.npz``, ``networks/iter_NNNN.npz`` and ``latest.npz`` (NumPy weights for
the ``mcts`` agent), ``log.csv`` (losses), ``elo.csv`` and ``ladder.jsonl``/``eval.jsonl``
(evaluations against the ladder, rated with :func:`agents.arena.stats.elo_ratings`), and
TensorBoard logs in ``tb/`` when tensorboard is installed. ``--resume`` continues from
``checkpoint.pt``.

Example:
    trap-train alphazero --run-dir /tmp/az --minutes 30 --imitation-games 200
    trap-train alphazero --run-dir /tmp/az --resume --minutes 60
    trap-train alphazero --game othello --board-size 8 --run-dir /tmp/az_othello

Needs torch (the ``rl`` extra).
"""

from agents.files import DamagedRunFileError
from agents.rl.alphazero.cli import build_parser, config_from_args, main
from agents.rl.alphazero.config import AlphaZeroConfig
from agents.rl.alphazero.imitation import imitation_samples
from agents.rl.alphazero.ladder import evaluate_ladder
from agents.rl.alphazero.learning import augment, fit, train_step
from agents.rl.alphazero.net import AlphaZeroNet, build_net
from agents.rl.alphazero.replay import ReplayBuffer, Samples
from agents.rl.alphazero.run import DivergedError, plot_elo, train
from agents.rl.alphazero.selfplay import SelfPlay

__all__ = [
    "AlphaZeroConfig",
    "AlphaZeroNet",
    "DamagedRunFileError",
    "DivergedError",
    "ReplayBuffer",
    "Samples",
    "SelfPlay",
    "augment",
    "build_net",
    "build_parser",
    "config_from_args",
    "evaluate_ladder",
    "fit",
    "imitation_samples",
    "main",
    "plot_elo",
    "train",
    "train_step",
]

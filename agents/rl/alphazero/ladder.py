"""Evaluation of a network against a ladder of agents, rated by Elo.

Part of :mod:`agents.rl.alphazero`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.arena.plan import RunConfig
from agents.rl.alphazero.config import AlphaZeroConfig


def run_config(config: AlphaZeroConfig, **settings: Any) -> RunConfig:
    """The runner's settings for games of the run's rules (``settings``: the rest)."""
    return RunConfig(game_name=config.game_name, params=config.rule_params or None, **settings)


def evaluate_ladder(
    network_path: Path, config: AlphaZeroConfig, iteration: int, run: Path
) -> dict[str, float]:
    """Play the network's ``mcts`` agent against the ladder; Elo ratings of all players.

    The ladder's own round robin (of two rungs or more) is played once per run
    (``ladder.jsonl``) so that the fit knows how the rungs compare; each evaluation writes
    ``eval_ITER.jsonl``.
    """
    from agents.arena.match import derive_seed
    from agents.arena.stats import elo_ratings
    from agents.arena.tournament import GameTask, load_results, round_robin, run_games

    # The agents keep their own clocks; the runner enforces none (a rung's rare slow turn
    # should not decide a game).
    settings = run_config(config, time_budget=None, workers=0)
    ladder_file = run / "ladder.jsonl"
    if len(config.ladder) > 1:
        # Resumed, so that a round robin cut short by a stopped run is completed, never redone.
        tasks = round_robin(config.ladder, config.eval_games, config.seed)
        run_games(tasks, ladder_file, settings, resume=True, progress=False)
    spec = f"mcts:path={network_path},time_limit={config.eval_time_limit}"
    tasks = []
    for rung in config.ladder:
        for number in range(config.eval_games):
            seats = (spec, rung) if number % 2 == 0 else (rung, spec)
            tasks.append(
                GameTask(
                    f"{iteration} {rung} #{number}",
                    (spec, rung),
                    seats,
                    derive_seed(config.seed, iteration, rung, number),
                )
            )
    eval_file = run / f"eval_{iteration:04d}.jsonl"
    # A resumed run may evaluate an iteration again (it was evaluated after the checkpoint
    # it resumes from): the new games replace the old.
    run_games(tasks, eval_file, settings, overwrite=True, progress=False)
    given = (config.game_name,)  # the run's game, the only path a record may import
    records = load_results(ladder_file, allow_paths=given) if ladder_file.exists() else []
    for path in sorted(run.glob("eval_*.jsonl")):
        records += load_results(path, allow_paths=given)
    return elo_ratings(records)

"""Train a MaskablePPO policy for Trap! (console command ``trap-train``).

Each ``--stage`` is one step of the opponent curriculum: agent specs joined by ``|``,
played in equal shares (repeat a spec to weight it). The stages split the budget evenly
unless ``--stage-fractions`` gives where each starts. Everything lands in ``--run-dir``;
see :mod:`agents.rl.training` for the layout. Needs the ``rl`` extra.

The whole config (every option, every agent spec, ``config.json`` on ``--resume``) is
checked before the run folder is created or changed; a mistake is a one-line error. On
``--resume``, options that the run cannot change (its network's size, its board, its warm
start) are refused, naming each; the others are recorded in its ``config.json``.
``--resume`` builds the agent specs stored in the run's ``config.json``: ``exec:``
commands and dotted paths in them run code, so resume only runs whose folder you trust.

Example:
    trap-train --run-dir /tmp/ppo_run --timesteps 1000000 --num-envs 2 \\
        --stage random --stage "greedy|random" --stage greedy --eval-opponent greedy
    trap-train --run-dir /tmp/ppo_run --resume            # continue from the last checkpoint
    trap-train --run-dir /tmp/ppo_run --resume --timesteps 2000000   # and train longer
    trap-train alphazero --run-dir /tmp/az --minutes 30   # the mcts agent's network instead

``--game NAME`` (default ``trap``) names the game; the trainers train Trap! for now.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence

from trap_scripts._cli import Parser, one_line

from trap_env.games import DEFAULT_GAME, game_names

PROG = "trap-train"

_HYPERPARAMETERS = {
    "learning_rate": float,
    "n_steps": int,
    "batch_size": int,
    "n_epochs": int,
    "gamma": float,
    "gae_lambda": float,
    "clip_range": float,
    "ent_coef": float,
    "vf_coef": float,
    "channels": int,
    "num_layers": int,
    "hidden": int,
}


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``trap-train`` (its errors are one line)."""
    parser = Parser(prog=PROG, description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--run-dir", required=True, help="the run folder")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in --run-dir; this builds the agent specs its config.json "
        "names (exec: commands and dotted paths run code): resume only folders you trust",
    )
    parser.add_argument("--timesteps", type=int, help="total learner steps (default 1000000)")
    parser.add_argument(
        "--stage", action="append", metavar="SPEC[|SPEC...]", help="a curriculum stage"
    )
    parser.add_argument("--stage-fractions", type=float, nargs="+", metavar="F")
    parser.add_argument("--self-play-fraction", type=float, help="share of games vs snapshots")
    parser.add_argument("--shaping", type=float, help="mobility shaping weight (0: none)")
    parser.add_argument("--pretrain-games", type=int, help="teacher games to imitate first")
    parser.add_argument("--pretrain-teacher", help="the agent spec to imitate (greedy)")
    parser.add_argument("--pretrain-epochs", type=int)
    parser.add_argument("--pretrain-learning-rate", type=float)
    parser.add_argument("--snapshot-every", type=int, help="steps between self-play snapshots")
    parser.add_argument("--pool-size", type=int, help="snapshots kept in the self-play pool")
    parser.add_argument("--board-size", type=int)
    parser.add_argument("--max-turns", type=int)
    parser.add_argument("--num-envs", type=int, help="games at once (default 2)")
    parser.add_argument("--no-subprocess", action="store_true", help="envs in this process")
    parser.add_argument(
        "--no-batched", action="store_true", help="single envs instead of one batched env"
    )
    parser.add_argument("--seed", type=int)
    parser.add_argument("--eval-opponent", help="agent spec of the periodic evaluation")
    parser.add_argument("--eval-every", type=int, help="steps between evaluations (0: none)")
    parser.add_argument("--eval-episodes", type=int)
    parser.add_argument("--checkpoint-every", type=int)
    parser.add_argument("--torch-threads", type=int, help="torch threads of the learner")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    for name, kind in _HYPERPARAMETERS.items():
        parser.add_argument("--" + name.replace("_", "-"), type=kind)
    return parser


def config_from_args(args: argparse.Namespace) -> dict[str, object]:
    """The :class:`~agents.rl.training.TrainConfig` fields that the arguments set."""
    fields: dict[str, object] = {
        "total_timesteps": args.timesteps,
        "stages": [spec.split("|") for spec in args.stage] if args.stage else None,
        "stage_fractions": args.stage_fractions,
        "self_play_fraction": args.self_play_fraction,
        "shaping": args.shaping,
        "pretrain_games": args.pretrain_games,
        "pretrain_teacher": args.pretrain_teacher,
        "pretrain_epochs": args.pretrain_epochs,
        "pretrain_learning_rate": args.pretrain_learning_rate,
        "snapshot_every": args.snapshot_every,
        "pool_size": args.pool_size,
        "board_size": args.board_size,
        "max_turns": args.max_turns,
        "num_envs": args.num_envs,
        "batched": False if args.no_batched else None,
        "subprocess": False if args.no_subprocess else None,
        "seed": args.seed,
        "eval_opponent": args.eval_opponent,
        "eval_every": args.eval_every,
        "eval_episodes": args.eval_episodes,
        "checkpoint_every": args.checkpoint_every,
        "torch_threads": args.torch_threads,
        "progress_bar": False if args.no_progress else None,
    }
    fields.update({name: getattr(args, name) for name in _HYPERPARAMETERS})
    return {name: value for name, value in fields.items() if value is not None}


TRAINED_GAMES = ("trap",)
"""The games the trainers train (both write networks of Trap!'s planes and cells)."""


def _split_game(argv: Sequence[str]) -> tuple[str, list[str]]:
    """The game (``--game NAME``, default Trap!) and the other arguments."""
    rest = list(argv)
    for index, item in enumerate(rest):
        if item == "--game" and index + 1 < len(rest):
            return rest[index + 1], rest[:index] + rest[index + 2 :]
        if item.startswith("--game="):
            return item.partition("=")[2], rest[:index] + rest[index + 1 :]
    return DEFAULT_GAME, rest


def _split_algo(argv: Sequence[str]) -> tuple[str, list[str]]:
    """The algorithm (``alphazero`` as a first word or ``--algo NAME``; else ``ppo``), and
    the other arguments."""
    rest = list(argv)
    if rest[:1] == ["alphazero"]:
        return "alphazero", rest[1:]
    for index, item in enumerate(rest):
        if item == "--algo" and index + 1 < len(rest):
            return rest[index + 1], rest[:index] + rest[index + 2 :]
        if item.startswith("--algo="):
            return item.partition("=")[2], rest[:index] + rest[index + 1 :]
    return "ppo", rest


def main(argv: Sequence[str] | None = None) -> int:
    """Train, or resume, one run; print where the models are.

    ``trap-train alphazero ...`` (or ``--algo alphazero``) trains the ``mcts`` agent's
    network instead (see :mod:`agents.rl.alphazero` for its options).
    """
    game, argv = _split_game(sys.argv[1:] if argv is None else argv)
    if game not in TRAINED_GAMES:
        known = f"the games: {', '.join(game_names())}" if game not in game_names() else ""
        print(
            f"{PROG}: error: --game {game!r}: the trainers train {', '.join(TRAINED_GAMES)} "
            f"only{'; ' + known if known else ''}",
            file=sys.stderr,
        )
        return 2
    algo, argv = _split_algo(argv)
    if algo not in ("ppo", "alphazero"):
        print(f"{PROG}: error: --algo must be ppo or alphazero, got {algo!r}", file=sys.stderr)
        return 2
    if algo == "alphazero":
        try:
            from agents.rl import alphazero
        except ImportError as error:
            print(
                f"{PROG}: error: needs the rl extra (pip install 'trap_env[rl]'): {error}",
                file=sys.stderr,
            )
            return 2
        return alphazero.main(argv, Parser)
    args = build_parser().parse_args(argv)
    try:
        from agents.files import run_folder
        from agents.rl.settings import check_resume_overrides
        from agents.rl.training import CONFIG_FILE, FIXED_ON_RESUME, TrainConfig, train
    except ImportError as error:
        print(
            f"{PROG}: error: needs the rl extra (pip install 'trap_env[rl]'): {error}",
            file=sys.stderr,
        )
        return 2
    overrides = config_from_args(args)
    try:
        run = run_folder(args.run_dir)
        if args.resume:
            if not (run / CONFIG_FILE).is_file():
                raise ValueError(f"nothing to resume in {run}: it holds no {CONFIG_FILE}")
            saved = TrainConfig.load(run / CONFIG_FILE)
            check_resume_overrides(saved, overrides, FIXED_ON_RESUME, {})
            # The folder may have moved since the run began: it is where the run is now.
            config = dataclasses.replace(saved, run_dir=args.run_dir, **overrides)  # type: ignore[arg-type]
        else:
            config = TrainConfig(run_dir=args.run_dir, **overrides)  # type: ignore[arg-type]
        train(config, resume=args.resume)
    except (OSError, ValueError) as error:
        print(f"{PROG}: error: {one_line(str(error))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: error: interrupted; run again with --resume to continue from the last "
              "checkpoint", file=sys.stderr)
        return 1
    models = [run / "final_model.zip", run / "best" / "best_model.zip"]
    print("; ".join(f"{what}: {path}" for what, path in zip(
        ("final model", "best by evaluation"), models, strict=True) if path.is_file()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Train the learned agents: Trap!'s MaskablePPO policy (console command ``trap-train``), or
the ``mcts`` network of Trap! or Othello with ``trap-train alphazero``
(:mod:`agents.rl.alphazero.cli`).

Each ``--stage`` is one step of the opponent curriculum: agent specs joined by ``|``,
played in equal shares (repeat a spec to weight it). The stages split the budget evenly
unless ``--stage-fractions`` gives where each starts. Everything lands in ``--run-dir``;
see :mod:`agents.trap.ppo_training` for the layout. Needs the ``rl`` extra.

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

``--game NAME`` (default ``trap``) names the game: PPO trains Trap!, AlphaZero Trap! and
Othello (``trap-train alphazero --game othello``). ``--rule NAME=VALUE`` gives a rule of the
game; PPO trains Trap!'s ``board_size`` (``--rule board_size=N`` is ``--board-size N``) with
its other rules at their defaults.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence

from trap_scripts._cli import (
    DEFAULT_GAME,
    CliError,
    Parser,
    fail,
    one_line,
    parse_rules,
    rules_text,
    turn_limit_text,
)

from agents.arena.record_rules import DrawnRule
from trap_env.game import played_params
from trap_env.games import game_names, get_game

PROG = "trap-train"

_FLAGS = {"total_timesteps": "timesteps", "progress_bar": "progress"}
"""Options named otherwise than their TrainConfig field."""
_HELPS = {
    "total_timesteps": "total learner steps (default 1000000)",
    "stage_fractions": "where each stage after the first begins, as shares of the steps",
    "self_play_fraction": "share of games vs snapshots",
    "shaping": "mobility shaping weight (0: none)",
    "pretrain_games": "teacher games to imitate first",
    "pretrain_teacher": "the agent spec to imitate (greedy)",
    "snapshot_every": "steps between self-play snapshots",
    "pool_size": "snapshots kept in the self-play pool",
    "num_envs": "games at once (default 2)",
    "batched": "single envs instead of one batched env",
    "subprocess": "envs in this process",
    "eval_opponent": "agent spec of the periodic evaluation",
    "eval_every": "steps between evaluations (0: none)",
    "torch_threads": "torch threads of the learner",
    "progress_bar": "no progress bar",
}
"""The options' help, by field (the others are TrainConfig's fields of the same name)."""
_OWN = ("run_dir", "stages")
"""The fields with options of their own form."""


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``trap-train`` (its errors are one line): an option per
    :class:`~agents.trap.ppo_training.TrainConfig` field, built as AlphaZero's are."""
    from agents.rl.settings import add_record_options, add_run_folder_options
    from agents.trap.ppo_training import TrainConfig

    parser = Parser(prog=PROG, description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    add_run_folder_options(parser)
    parser.add_argument(
        "--stage", action="append", metavar="SPEC[|SPEC...]", help="a curriculum stage"
    )
    turns = f"draw by truncation after MAX_TURNS turns (default: {turn_limit_text(PPO_GAMES[0])})"
    helps = _HELPS | {"max_turns": turns}
    add_record_options(parser, TrainConfig, skip=_OWN, flags=_FLAGS, helps=helps)
    trap = get_game(PPO_GAMES[0])
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=f"a rule of the game, repeatable: PPO trains {', '.join(_trained_rules())} "
        f"(board_size=N is --board-size N), the others at their defaults. "
        f"{rules_text(trap, played_params(trap))}",
    )
    return parser


def config_from_args(args: argparse.Namespace) -> dict[str, object]:
    """The :class:`~agents.trap.ppo_training.TrainConfig` fields that the arguments set.

    Raises:
        CliError: for a ``--rule`` that PPO does not train with, or a rule given twice.
    """
    from agents.rl.settings import record_overrides
    from agents.trap.ppo_training import TrainConfig

    fields = record_overrides(args, TrainConfig, skip=_OWN)
    for name, value in parse_rules(args.rule, PPO_GAMES[0]).items():
        if name not in _trained_rules() or isinstance(value, DrawnRule):
            raise CliError(
                f"--rule {name}={value}: PPO trains one game of Trap!, with the rules "
                f"{', '.join(_trained_rules())} (the others at their defaults)"
            )
        if name in fields:
            raise CliError(f"the rule {name!r} is given twice")
        fields[name] = value
    if args.stage:
        fields["stages"] = [spec.split("|") for spec in args.stage]
    return fields


def _trained_rules() -> list[str]:
    """The rules of Trap! that PPO trains with: those that are fields of its config."""
    from agents.trap.ppo_training import TrainConfig

    fields = {item.name for item in dataclasses.fields(TrainConfig)}
    return [name for name in played_params(get_game(PPO_GAMES[0])) if name in fields]


PPO_GAMES = ("trap",)
"""The games PPO trains (its policy reads Trap!'s planes and cells); AlphaZero trains every
game with a batched engine (Trap! and Othello)."""


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
    algo, argv = _split_algo(sys.argv[1:] if argv is None else argv)
    if algo not in ("ppo", "alphazero"):
        print(f"{PROG}: error: --algo must be ppo or alphazero, got {algo!r}", file=sys.stderr)
        return 2
    if algo == "ppo":  # AlphaZero's own parser takes --game (every game with a batched engine)
        game, argv = _split_game(argv)
        if game not in PPO_GAMES:
            known = f"the games: {', '.join(game_names())}" if game not in game_names() else ""
            print(
                f"{PROG}: error: --game {game!r}: PPO trains {', '.join(PPO_GAMES)} only "
                f"(trap-train alphazero trains othello too){'; ' + known if known else ''}",
                file=sys.stderr,
            )
            return 2
    try:
        from agents.files import run_folder
        from agents.rl import alphazero
        from agents.rl.settings import check_resume_overrides
        from agents.trap.ppo_training import CONFIG_FILE, FIXED_ON_RESUME, TrainConfig, train
    except ImportError as error:
        print(
            f"{PROG}: error: needs the rl extra (pip install 'trap_env[rl]'): {error}",
            file=sys.stderr,
        )
        return 2
    if algo == "alphazero":
        return alphazero.main(argv, Parser, DEFAULT_GAME)
    args = build_parser().parse_args(argv)
    try:
        overrides = config_from_args(args)
    except CliError as error:
        return fail(PROG, error)
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

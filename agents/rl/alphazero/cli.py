"""The command line of ``trap-train alphazero``.

Part of :mod:`agents.rl.alphazero`.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from agents.files import (
    run_folder,
)
from agents.options import given_rules, rule_flag, rule_pair
from agents.rl.alphazero import run
from agents.rl.alphazero.config import CONFIG_FILE, FIXED_ON_RESUME, AlphaZeroConfig
from agents.rl.alphazero.ladder import run_config
from agents.rl.settings import (
    add_record_options,
    add_run_folder_options,
    check_resume_overrides,
    record_overrides,
)
from trap_env.games import game_names


def _check_agents(config: AlphaZeroConfig) -> None:
    """Build the teacher and the ladder once, before an hour of training depends on them.

    Raises:
        ValueError: (``SpecError``, ``UnsupportedGameError``) naming the spec at fault.
    """
    from agents.arena.tournament import check_specs

    specs = [*config.ladder]
    if config.imitation_games:
        specs.append(config.imitation_teacher)
    check_specs(specs, run_config(config))


def build_parser(
    parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser,
    default_game: str | None = None,
) -> argparse.ArgumentParser:
    """The command line of ``trap-train alphazero`` (``parser_class``: the CLI's parser;
    ``default_game``: the game of a new run that names none, or None to require one)."""
    parser = parser_class(
        prog="trap-train alphazero",
        description=importlib.import_module("agents.rl.alphazero").__doc__,
        formatter_class=argparse.RawTextHelpFormatter,
    )
    add_run_folder_options(parser)
    parser.add_argument(
        "--game",
        dest="game_name",
        metavar="NAME",
        help=f"the game: {', '.join(game_names())} (one with a batched engine); "
        + (f"default {default_game}" if default_game else "required for a new run"),
    )
    parser.set_defaults(default_game=default_game)
    parser.add_argument("--board-size", type=int, metavar="N", help="the rule board_size=N")
    parser.add_argument(
        "--decay", type=int, metavar="PER_MILLE", help="the rule decay=PER_MILLE (Trap!'s)"
    )
    add_record_options(
        parser,
        AlphaZeroConfig,
        skip=("run_dir", "game_name", "rules"),
        flags={"progress_bar": "progress"},
        helps={"ladder": "evaluation opponents (agent specs)", "progress_bar": "no progress bar"},
    )
    parser.add_argument(
        "--rule",
        type=rule_pair,
        action="append",
        metavar="KEY=VALUE",
        help="a rule parameter of the game (e.g. end_rule=course for othello), repeatable",
    )
    return parser


def config_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`AlphaZeroConfig` fields that the arguments set: the game when named, and
    ``--board-size``, ``--decay`` and the ``--rule`` pairs in ``rules``.

    Raises:
        ValueError: for a rule given twice.
    """
    fields = record_overrides(args, AlphaZeroConfig, skip=("run_dir", "rules"))
    pairs = [*([("decay", args.decay)] if args.decay is not None else []), *(args.rule or [])]
    rules = given_rules(args.board_size, pairs)
    return fields | ({"rules": rules} if rules else {})


def main(
    argv: Sequence[str] | None = None,
    parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser,
    default_game: str | None = None,
) -> int:
    """Train, or resume, one AlphaZero run; print where the network is.

    ``default_game`` is the game of a new run without ``--game`` (None: ``--game`` is
    required); a resumed run keeps its own.

    The whole config (every setting, the agent specs of the teacher and the ladder, and on
    ``--resume`` the flags against the stored run) is checked before the run folder is
    created or changed. Note that ``--resume`` builds the agent specs stored in the run's
    ``config.json`` (``exec:`` commands and dotted paths run code): resume only runs whose
    folder you trust.
    """
    args = build_parser(parser_class, default_game).parse_args(argv)
    prog = "trap-train alphazero"
    try:
        config = _config(args)
        _check_agents(config)
        latest = run.train(config, resume=args.resume)
    except (OSError, ValueError) as error:  # FileExistsError, FileNotFoundError too
        print(f"{prog}: error: {str(error).replace(chr(10), ' ')}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(
            f"{prog}: error: interrupted; run again with --resume to continue from the last "
            "checkpoint",
            file=sys.stderr,
        )
        return 1
    print(f"latest network: {latest}; per iteration: {Path(args.run_dir) / 'networks'}")
    return 0


def _config(args: argparse.Namespace) -> AlphaZeroConfig:
    """The run's config: new from the flags, or the stored one with the flags it can take.

    Raises:
        ValueError: for a bad run folder, setting or stored config, or a flag that a
            resumed run cannot honour (see :data:`FIXED_ON_RESUME`).
        FileNotFoundError: for ``--resume`` without a stored config.
    """
    folder = run_folder(args.run_dir)
    overrides = config_from_args(args)
    if not args.resume:
        game = overrides.pop("game_name", args.default_game)
        if game is None:
            raise ValueError(f"give the game: --game NAME ({', '.join(game_names())})")
        return AlphaZeroConfig(run_dir=args.run_dir, game_name=game, **overrides)
    saved = AlphaZeroConfig.load(folder / CONFIG_FILE)
    given = overrides.pop("rules", {})
    played = saved.rulebook.config_params(saved.game)
    check_resume_overrides(
        SimpleNamespace(**vars(saved), **played),  # each rule flag beside the stored rule
        overrides | given,
        (*FIXED_ON_RESUME, *given),
        {"game_name": "--game", **{name: rule_flag(name) for name in given}},
    )
    # The folder may have moved since the run began: it is where the run is now.
    return dataclasses.replace(saved, run_dir=args.run_dir, **overrides)

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
from typing import Any

from agents.files import (
    run_folder,
)
from agents.options import given_rules, rule_pair
from agents.rl.alphazero import run
from agents.rl.alphazero.config import CONFIG_FILE, FIXED_ON_RESUME, TRAP, AlphaZeroConfig
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
) -> argparse.ArgumentParser:
    """The command line of ``trap-train alphazero`` (``parser_class``: the CLI's parser)."""
    parser = parser_class(
        prog="trap-train alphazero",
        description=importlib.import_module("agents.rl.alphazero").__doc__,
        formatter_class=argparse.RawTextHelpFormatter,
    )
    add_run_folder_options(parser)
    add_record_options(
        parser,
        AlphaZeroConfig,
        skip=("run_dir", "rules"),
        flags={"progress_bar": "progress", "game_name": "game"},
        helps={
            "ladder": "evaluation opponents (agent specs)",
            "progress_bar": "no progress bar",
            "game_name": f"the game: {', '.join(game_names())} (one with a batched engine)",
            "board_size": "N (of any game)",
            "decay": "Trap!'s rule variant",
        },
    )
    parser.add_argument(
        "--rule",
        type=rule_pair,
        action="append",
        metavar="KEY=VALUE",
        help="a rule parameter of a game other than Trap! (e.g. end_rule=course), repeatable",
    )
    return parser


def config_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`AlphaZeroConfig` fields that the arguments set: another game's
    ``--board-size`` and ``--rule`` pairs go into ``rules``.

    Raises:
        ValueError: for ``--rule`` with Trap!, or a rule given twice.
    """
    fields = record_overrides(args, AlphaZeroConfig, skip=("run_dir", "rules"))
    game = fields.get("game_name", TRAP)
    size = fields.pop("board_size", None) if game != TRAP else None
    if game == TRAP and args.rule:
        raise ValueError("Trap!'s rules are --board-size and --decay, not --rule")
    rules = {} if game == TRAP else given_rules(size, args.rule or [])
    return fields | ({"rules": rules} if rules else {})


def main(
    argv: Sequence[str] | None = None,
    parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser,
) -> int:
    """Train, or resume, one AlphaZero run; print where the network is.

    The whole config (every setting, the agent specs of the teacher and the ladder, and on
    ``--resume`` the flags against the stored run) is checked before the run folder is
    created or changed. Note that ``--resume`` builds the agent specs stored in the run's
    ``config.json`` (``exec:`` commands and dotted paths run code): resume only runs whose
    folder you trust.
    """
    args = build_parser(parser_class).parse_args(argv)
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
        return AlphaZeroConfig(run_dir=args.run_dir, **overrides)
    saved = AlphaZeroConfig.load(folder / CONFIG_FILE)
    check_resume_overrides(saved, overrides, FIXED_ON_RESUME, {})
    # The folder may have moved since the run began: it is where the run is now.
    return dataclasses.replace(saved, run_dir=args.run_dir, **overrides)

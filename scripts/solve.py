"""Solve a small board: print the start's value under perfect play as one JSON line.

Example:
    trap-solve --game trap --board-size 3

prints ``{"game": "trap", "rules": {...}, "value_low": ..., "value_high": ...,
"value_turn_limited": ..., "positions": ..., "seconds": ..., "peak_memory_mb": ...,
"cached": false}``: the value for the first player without a turn limit (a game that never
ends is a draw; ``value`` where the solver pins it, else the bounds it proves), and under
the runners' turn limit, the decision positions counted, and the solve's time and peak
memory. The table is kept under the user's cache folder (:func:`agents.solved.cache_folder`)
and read from there next time (``"cached": true``, with the first solve's report).

``--positions FILE`` also draws the board's solved positions from games of ``--rungs``
(:mod:`agents.solved_positions`: the same file byte for byte from the same options) and
writes them to ``FILE``; the line then has ``"drawn"``: the file, its positions and SHA-256.
A board with no table whose ``perfect`` agent plays it by search (Colosseum 4x4) is drawn
too, its line without a value; so is a board that ``perfect`` does not play, whose endgames
the game's exact solver values (Othello 6x6: an endgame set, not solved from the start).
The shipped sets are rebuilt by:

    trap-solve --game trap --board-size 3 --positions agents/trap/positions/3x3.npz
    trap-solve --game colosseum --board-size 3 --positions agents/colosseum/positions/3x3.npz
    trap-solve --game colosseum --board-size 4 --positions agents/colosseum/positions/4x4.npz
    trap-solve --game othello --board-size 4 --positions agents/othello/positions/4x4.npz
    trap-solve --game othello --board-size 6 --positions agents/othello/positions/6x6-endgame.npz \\
        --rungs random epsilon-greedy:epsilon=0.5 greedy \\
        reference:depth=2,time_limit=none,endgame_empties=6 \\
        reference:depth=4,time_limit=none,endgame_empties=10
"""

from __future__ import annotations

import json
import logging
import shlex
import sys
from collections.abc import Sequence
from typing import Any

from trap_scripts._cli import (
    CliError,
    Parser,
    add_game_option,
    add_rule_options,
    chosen_game,
    fail,
    non_negative_int,
    path,
    positive_int,
    rule_params,
)

from agents.registry import make_agent
from agents.solved import load_or_solve
from agents.solved_positions import (
    DEFAULT_PER_DECISION,
    default_rungs,
    draw_positions,
    endgame_solver,
    read_positions,
)
from trap_env.agent import check_supports
from trap_env.game import Game
from trap_env.games import get_game

PROG = "trap-solve"


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``trap-solve``; 0 on success, 2 for rules with no solver."""
    words = list(sys.argv[1:] if argv is None else argv)
    parser = Parser(prog=PROG, description=__doc__.partition("\n")[0])
    add_game_option(parser)
    add_rule_options(parser, chosen_game(words))
    drawing = parser.add_argument_group("drawing solved positions")
    drawing.add_argument("--positions", type=path, default=None, metavar="FILE",
                         help="also draw the board's solved positions and write them to FILE "
                         "(an .npz: observations, legal actions, each action's value, best "
                         "actions)")
    drawing.add_argument("--rungs", nargs="+", default=None, metavar="SPEC",
                         help="with --positions: the agents whose games they are drawn from "
                         "(default: the game's rungs that play a small board without a clock)")
    drawing.add_argument("--per-decision", type=positive_int, default=None, metavar="N",
                         help="with --positions: the most positions of each decision "
                         f"(default {DEFAULT_PER_DECISION})")
    drawing.add_argument("--seed", type=non_negative_int, default=None,
                         help="with --positions: the games' and the draw's seed (default 0)")
    args = parser.parse_args(words)
    loose = [flag for flag in ("rungs", "per_decision", "seed") if getattr(args, flag) is not None]
    if loose and args.positions is None:
        parser.error(f"--{loose[0].replace('_', '-')} goes with --positions")
    # A long solve says on stderr how far it got (the sweeps it saved, to resume from).
    logging.basicConfig(level=logging.INFO, format=f"{PROG}: %(message)s", stream=sys.stderr)
    try:
        params = rule_params(args)
        game = get_game(args.game)
        rules = game.config_params(game.make_config(**params))
        line = _solved(args, game, rules)
        if args.positions is not None:
            line["drawn"] = _draw(args, rules)
    except (CliError, ValueError, TypeError, OSError) as error:
        return fail(PROG, error)
    print(json.dumps(line))
    return 0


def _solved(args: Any, game: Game[Any, Any], rules: dict[str, Any]) -> dict[str, Any]:
    """The solve's line; with ``--positions``, the game and rules alone on a board with no
    table that the game's ``perfect`` agent plays by search (Colosseum 4x4), and on one it
    does not play, whose positions are an endgame set (Othello 6x6: its start is not solved).

    Raises:
        ValueError: the solver's refusal, for a board that ``perfect`` does not play either.
    """
    plays = args.positions is not None and _perfect_plays(game, rules)
    if args.positions is not None and not plays and endgame_solver(args.game) is not None:
        return {"game": args.game, "rules": rules}
    try:
        table, cached = load_or_solve(args.game, rules)
    except ValueError:
        if not plays:
            raise
        return {"game": args.game, "rules": rules}
    return {"game": table.game, "rules": table.rules, **table.report, "cached": cached}


def _perfect_plays(game: Game[Any, Any], rules: dict[str, Any]) -> bool:
    try:
        check_supports(make_agent("perfect", game=game.name), game.make_config(**rules))
    except ValueError:  # no perfect agent, or one that refuses the board
        return False
    return True


def _draw(args: Any, rules: dict[str, Any]) -> dict[str, Any]:
    """Draw the positions into ``args.positions``; the file, its positions and SHA-256."""
    rungs = args.rungs or default_rungs(args.game)
    per_decision = args.per_decision or DEFAULT_PER_DECISION
    seed = args.seed or 0
    positions = draw_positions(
        args.game, rules, rungs=rungs, per_decision=per_decision, seed=seed,
        command=_command(args.game, rules, rungs, per_decision, seed),
    )
    positions.save(args.positions)
    written = read_positions(args.positions)  # as a reader sees it
    return {"file": str(args.positions), "positions": len(written), "sha256": written.sha256}


def _command(
    game: str, rules: dict[str, Any], rungs: Sequence[str], per_decision: int, seed: int
) -> str:
    """The command that draws the same positions (to any ``FILE``: the file records it, so
    that a rebuild is the same file byte for byte wherever it is written)."""
    words = [PROG, "--game", game, *(f"--rule={name}={value}" for name, value in rules.items())]
    words += ["--positions", "FILE", "--rungs", *rungs]
    words += ["--per-decision", str(per_decision), "--seed", str(seed)]
    return shlex.join(words)


if __name__ == "__main__":
    raise SystemExit(main())

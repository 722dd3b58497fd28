"""Solve a small board: print the start's value under perfect play as one JSON line.

Example:
    trap-solve --game trap --board-size 3

prints ``{"game": "trap", "rules": {...}, "value": ..., "value_turn_limited": ...,
"positions": ..., "seconds": ..., "peak_memory_mb": ..., "cached": false}``: the value for
the first player without a turn limit (a game that never ends is a draw) and under the
runners' turn limit, the decision positions counted, and the solve's time and traced
memory. The table is kept under the user's cache folder (:func:`agents.solved.cache_folder`)
and read from there next time (``"cached": true``, with the first solve's report).
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Sequence

from trap_scripts._cli import (
    CliError,
    Parser,
    add_game_option,
    add_rule_options,
    chosen_game,
    fail,
    rule_params,
)

from agents.solved import load_or_solve
from trap_env.games import get_game

PROG = "trap-solve"


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``trap-solve``; 0 on success, 2 for rules with no solver."""
    words = list(sys.argv[1:] if argv is None else argv)
    parser = Parser(prog=PROG, description=__doc__.partition("\n")[0])
    add_game_option(parser)
    add_rule_options(parser, chosen_game(words))
    args = parser.parse_args(words)
    # A long solve says on stderr how far it got (the sweeps it saved, to resume from).
    logging.basicConfig(level=logging.INFO, format=f"{PROG}: %(message)s", stream=sys.stderr)
    try:
        params = rule_params(args)
        game = get_game(args.game)
        rules = game.config_params(game.make_config(**params))
        table, cached = load_or_solve(args.game, rules)
    except (CliError, ValueError, TypeError) as error:
        return fail(PROG, error)
    print(json.dumps({"game": table.game, "rules": table.rules, **table.report, "cached": cached}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

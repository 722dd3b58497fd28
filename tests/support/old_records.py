"""Records in the shapes written before records held every rule in ``rules``, for the tests
that every reader still reads them.

:func:`old_shape` turns a record the runner writes now into the shape of its game's records
before: Trap!'s named no game and held its rules in fields of their own (``decay`` only off
its default); another game's held its board size beside its other rules.
"""

from __future__ import annotations

from typing import Any

from trap_env.game import played_params
from trap_env.games import get_game


def old_shape(record: dict[str, Any], **rules: Any) -> dict[str, Any]:
    """``record`` as it was written before, its rules changed by ``rules``."""
    given = record["rules"] | rules
    old = {name: value for name, value in record.items() if name not in ("game", "rules")}
    if record["game"] != "trap":
        others = {name: value for name, value in given.items() if name != "board_size"}
        return old | {"board_size": given["board_size"], "game": record["game"], "rules": others}
    defaults = played_params(get_game("trap"))
    return old | {name: value for name, value in given.items()
                  if name == "board_size" or defaults[name] != value}  # fmt: skip

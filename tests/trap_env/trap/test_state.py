"""Trap!'s State as a value (trap_env.trap.core): validate_state names what is malformed;
equal states are equal and hash alike.
"""

from __future__ import annotations

import pytest

from trap_env.trap.core import (
    NO_PLAYER,
    GameConfig,
    Phase,
    State,
    apply,
    from_text,
    initial_state,
    to_text,
    validate_state,
)

# --- validate_state and State as a value --------------------------------------------------

START = initial_state(GameConfig(3))  # .0./.../.1.

MALFORMED_STATES = [
    (START._replace(board_size=2), "board_size"),
    (START._replace(traps=-1), "traps must be a bitboard"),
    (START._replace(traps=1 << 9), "traps must be a bitboard"),
    (START._replace(traps=0b10), "player 0 stands on a trap"),
    (START._replace(traps=1 << 7), "player 1 stands on a trap"),
    (START._replace(cells=(1, 1)), "both players stand on cell 1"),
    (START._replace(cells=(1, 9)), "cells must be two cells"),
    (START._replace(cells=(1,)), "cells must be two cells"),
    (START._replace(cells=[1, 7]), "cells must be"),
    (START._replace(player=2), "player must be 0 or 1"),
    (START._replace(player=True), "player must be 0 or 1"),
    (START._replace(phase=3), "phase"),
    (START._replace(phase=1), "phase"),
    (START._replace(target=4), "does not fit phase MOVE"),
    (START._replace(phase=Phase.LANDING), "does not fit phase LANDING"),
    (START._replace(phase=Phase.LANDING, target=1), "does not fit phase LANDING"),
    (START._replace(phase=Phase.LANDING, target=9), "target must be in 0..8"),
    (START._replace(turn=-1), "turn must be"),
    (START._replace(turn=1.0), "turn must be"),
    (START._replace(decay=1001), "decay must be an integer per mille"),
    (START._replace(decay=-1), "decay must be an integer per mille"),
    (START._replace(decay=True), "decay must be an integer per mille"),
    (START._replace(winner=0), "winner 0 contradicts the position"),
    (START._replace(winner=5), "winner"),
    (from_text("0x./xx./..1 0 move - 0")._replace(winner=NO_PLAYER), "winner -1 contradicts"),
]


@pytest.mark.parametrize(("state", "problem"), MALFORMED_STATES)
def test_validate_state_catches_malformed_states(state: State, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        validate_state(state)


def test_states_are_values() -> None:
    a = apply(initial_state(), 10)
    b = apply(initial_state(), 10)
    assert a == b and hash(a) == hash(b) and a is not b
    assert a != apply(initial_state(), 11)
    assert len({a, b, initial_state()}) == 2
    assert from_text(to_text(a)) == a
    with pytest.raises(AttributeError):
        a.turn = 3  # type: ignore[misc]

#!/usr/bin/env python3
"""An AI for the CSC384 Othello manager (``othello_game.py``) that plays this project's
reference search: the manager runs ``python3 FILE``, and this file hands the talking to
:func:`agents.othello.course.main` (the protocol, the time limit, the answers to boards it
cannot read: see there).

It needs the ``trap_env`` package installed (``pip install -e .`` in a checkout, or
the wheel that ``pip wheel --no-deps .`` builds there); it works from any directory. Give
the manager this file's path wherever it takes an AI's file (as it takes ``randy_ai.py``).
"""

import sys

try:
    from agents.othello.course import main
except ImportError as error:
    print(
        f"othello_csc384_ai.py needs the trap_env package ({error}); install it with "
        "'pip install -e .' in its checkout for the python3 that the manager runs",
        file=sys.stderr,
    )
    sys.exit(1)

if __name__ == "__main__":
    sys.exit(main())

"""Fuzzing a console command's argument parsing, for the tests of each command.

Command lines are drawn from the command's real flags, with values near their limits and
past them (:func:`command_lines`); the test replaces the function that would start the run
with one that raises :class:`RunStarted`, and :func:`check_command` asserts the outcome:
the run would start, or the command exits with status 2 and one line on standard error,
never a traceback.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import strategies as st

VALUES = ["-1", "0", "1", "2", "3", "4", "5", "7", "9", "13", "32", "65535", "65536", "0.5",
          "1e3", "1e309", "-inf", "nan", "inf", "none", "x", "", " ", "3-5", "5-3", "3-",
          "1G", "512M", "8589934592G", "trap", "othello", "colosseum", "chess",
          "tests.support.toy_game:GAME", "end_rule=course", "end_rule=", "=1", "random", "greedy",
          "nobody", "random:depth=2", "exec:", "-", "--", "\x00", "out/\x00", "é"]  # fmt: skip
"""Values for any flag: the real kinds (numbers, sizes, ranges, games, rules, specs) and
near misses."""

Main = Callable[[Sequence[str]], int]


class RunStarted(Exception):
    """Raised by the stub put where the command would start its run: the line was accepted."""


def raise_run_started(*args: Any, **kwargs: Any) -> Any:
    """The stub for the function that starts a run."""
    raise RunStarted


def command_lines(
    flags: Sequence[str],
    values: Sequence[str] = VALUES,
    switches: Sequence[str] = (),
    positionals: Sequence[str] = (),
) -> st.SearchStrategy[list[str]]:
    """Command lines of up to 6 items: a flag with a value (also joined as ``--flag=value``),
    a switch, a positional word, or a near miss of a flag's name."""
    value = st.sampled_from(values)
    flag = st.sampled_from(flags)
    pair = st.tuples(flag, value).map(list)
    joined = st.tuples(flag, value).map(lambda item: [f"{item[0]}={item[1]}"])
    alone = st.sampled_from([*switches, *positionals, *flags] or ["--"]).map(lambda word: [word])
    misspelt = flag.map(lambda name: [name[:-1]]) | flag.map(lambda name: [name + "s", "1"])
    items = st.lists(pair | joined | alone | misspelt, max_size=6)
    return items.map(lambda parts: [word for part in parts for word in part])


def exit_status(main: Main, argv: Sequence[str]) -> int:
    """The exit status of ``main(argv)``, whether returned or raised by argparse."""
    try:
        return main(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 1


def captured_run(main: Main, argv: Sequence[str]) -> tuple[int, str, str]:
    """The exit status of ``main(argv)`` (:func:`exit_status`), its stdout and its stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = exit_status(main, argv)
    return status, out.getvalue(), err.getvalue()


def check_command(main: Main, argv: Sequence[str], prog: str) -> bool:
    """Run ``main(argv)`` with its output captured: whether the run started (or the command
    ended with 0); otherwise assert exit status 2 and one line ``PROG: error: ...``.

    Lines ``PROG: note: ...`` (a deprecation, say) may come before the error.
    """
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
        try:
            status = exit_status(main, argv)
        except RunStarted:
            return True
    err = errors.getvalue()
    assert "Traceback" not in err, (argv, err)
    if status == 0:
        return True
    lines = [line for line in err.strip().splitlines() if not line.startswith(f"{prog}: note:")]
    assert status == 2, (argv, status, err)
    assert len(lines) == 1 and lines[0].startswith(f"{prog}: error: "), (argv, err)
    return False

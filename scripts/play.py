"""Watch or play one game of Trap!, export it as a GIF, or replay a recorded game.

Two agent specs play one game shown turn by turn in the terminal; ``human`` as a spec
lets you play, entering cells as ``row,col`` (the legal choices are shown; ``q`` resigns).
``--gif FILE`` writes the game as an animated GIF (needs imageio, in the ``plot`` extra).
``--replay FILE --game N`` shows game N (counted from 0) of a results file written by
trap-evaluate or trap-tournament.

Example:
    trap-play greedy random
    trap-play human "expectiminimax:time_limit=1.0" --board-size 5
    trap-play greedy random --gif game.gif
    trap-play --replay results/evaluate/results.jsonl --game 0 --gif replay.gif
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from trap_scripts._cli import (
    CliError,
    Parser,
    board_size,
    fail,
    non_negative_float,
    non_negative_int,
    positive_float,
    positive_int,
    seconds_or_none,
)

from agents.arena.match import LastThrow, derive_seed, play_game, replay
from agents.base import Agent, SpecError, make_agent
from trap_env.core import Cell, Phase, State, legal_actions
from trap_env.rendering import render_ansi, render_rgb

HUMAN = "human"
PROG = "trap-play"


class HumanAgent:
    """An agent that asks a person at the terminal for each move and throw.

    Args:
        read: reads one line of input (``input`` by default); EOF or ``q`` resigns.
        write: prints a line.
    """

    def __init__(
        self, read: Callable[[str], str] = input, write: Callable[[str], None] = print
    ) -> None:
        self.read, self.write = read, write
        self.resigned = False

    def reset(self, seed: int | None = None) -> None:
        """Nothing to forget."""
        self.resigned = False

    def select_action(self, state: State) -> Cell:
        """Ask until the person enters a legal cell; resigns (raises) on EOF or ``q``."""
        if state.phase is Phase.THROW:
            self.write(render_ansi(state))
        legal = legal_actions(state)
        self.write(_choices_text(state, legal))
        while True:
            try:
                text = self.read("your choice (row,col; q resigns): ").strip()
            except EOFError:
                self.write("")
                text = "end of input"
            if text.lower() in ("q", "quit", "end of input"):
                self.resigned = True
                raise Resigned(f"you resigned ({text})")
            cell = _parse_cell(text, state.board_size)
            if cell in legal:
                return cell
            self.write(f"not a legal choice: {text!r}. {_choices_text(state, legal)}")


class Resigned(Exception):
    """The person at the terminal gave up (``q`` or end of input)."""


def _choices_text(state: State, legal: list[Cell]) -> str:
    n = state.board_size
    if state.phase is Phase.THROW:
        mine, theirs = (f"{c // n},{c % n}" for c in state.cells)
        return f"throw a trap at any cell except {mine} and {theirs}"
    return "move to one of: " + " ".join(f"{c // n},{c % n}" for c in legal)


def _parse_cell(text: str, n: int) -> Cell | None:
    row, sep, col = text.replace(" ", "").partition(",")
    if not sep or not row.isdigit() or not col.isdigit() or int(row) >= n or int(col) >= n:
        return None
    return int(row) * n + int(col)


def build_parser() -> Parser:
    """The command line."""
    parser = Parser(prog=PROG, description="Watch, play or replay one game of Trap!.")
    parser.add_argument(
        "agents",
        nargs="*",
        metavar="SPEC",
        help="two agent specs, seat 0 then seat 1; 'human' for you",
    )
    parser.add_argument("--board-size", type=board_size, default=7, metavar="N")
    parser.add_argument("--seed", type=int, default=0, help="the game's seed (default 0)")
    parser.add_argument(
        "--max-turns",
        type=positive_int,
        default=None,
        metavar="T",
        help="draw after T turns (default 4*N*N)",
    )
    parser.add_argument(
        "--time-budget",
        type=seconds_or_none,
        default=None,
        metavar="S",
        help="CPU seconds per turn for agents (default: none)",
    )
    parser.add_argument(
        "--delay",
        type=non_negative_float,
        default=0.0,
        metavar="S",
        help="pause between turns when watching (default 0)",
    )
    parser.add_argument(
        "--gif",
        type=Path,
        default=None,
        metavar="FILE",
        help="write the game as an animated GIF instead of showing it",
    )
    parser.add_argument(
        "--frame-seconds",
        type=positive_float,
        default=0.6,
        metavar="S",
        help="seconds per GIF frame (default 0.6)",
    )
    parser.add_argument(
        "--replay",
        type=Path,
        default=None,
        metavar="FILE",
        help="a results.jsonl file to replay a game from",
    )
    parser.add_argument(
        "--game",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="the game to replay: its line in the file, from 0 (default 0)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Play or replay; 0 on success, 1 if the human resigned, 2 on bad input."""
    args = build_parser().parse_args(argv)
    try:
        if args.gif is not None:
            _check_writable(args.gif)
        if args.replay is not None:
            return _replay(args)
        return _play(args)
    except CliError as error:
        return fail(PROG, error)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


def _play(args: argparse.Namespace) -> int:
    if len(args.agents) != 2:
        raise CliError(f"give two agent specs (seat 0, seat 1), got {len(args.agents)}")
    agents = [_build(spec, args.seed, seat) for seat, spec in enumerate(args.agents)]
    has_human = any(isinstance(agent, HumanAgent) for agent in agents)
    show = None if args.gif is not None and not has_human else _show_turn(args.delay, has_human)
    budget = None if has_human else args.time_budget
    result = play_game(
        agents,
        seed=args.seed,
        board_size=args.board_size,
        max_turns=args.max_turns,
        time_budget=budget,
        on_turn=show,
    )
    resigned = [a.resigned for a in agents if isinstance(a, HumanAgent)]
    if any(resigned):
        print(f"you resigned; seat {result.winner} ({args.agents[result.winner]}) wins")
    else:
        print(_outcome_text(result.to_dict(), list(args.agents)))
    if args.gif is not None:
        _write_gif(args.board_size, result.actions, args.gif, args.frame_seconds)
    return 1 if any(resigned) else 0


def _check_writable(path: Path) -> None:
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir() or not os.access(folder, os.W_OK) or path.is_dir():
        raise CliError(f"cannot write the GIF {str(path)!r}: no writable folder for it")


def _build(spec: str, seed: int, seat: int) -> Agent:
    if spec == HUMAN:
        return HumanAgent()
    try:
        return make_agent(spec, seed=derive_seed(seed, "seat", seat))
    except SpecError as error:
        raise CliError(error) from None


def _show_turn(delay: float, has_human: bool) -> Callable[[int, State, list[Cell]], None]:
    def show(seat: int, state: State, actions: list[Cell]) -> None:
        print(render_ansi(state, _last_throw(state.board_size, actions)))
        print()
        if delay and not has_human:
            time.sleep(delay)

    return show


def _last_throw(board_size: int, actions: list[Cell]) -> LastThrow:
    last: LastThrow = None
    for _, throw in replay(board_size, actions):
        last = throw
    return last


def _outcome_text(record: dict[str, Any], seats: list[str]) -> str:
    winner, reason, turns = record["winner"], record["reason"], record["turns"]
    if winner < 0:
        return f"draw after {turns} turns ({reason})"
    loser = 1 - winner
    why = "trapped" if reason == "trapped" else f"{reason}: {record.get('detail', '')}"
    return (
        f"seat {winner} ({seats[winner]}) won after {turns} turns; "
        f"seat {loser} ({seats[loser]}) lost ({why})"
    )


def _replay(args: argparse.Namespace) -> int:
    record = _load_game(args.replay, args.game)
    actions = record["actions"]
    if args.gif is not None:
        _write_gif(record["board_size"], actions, args.gif, args.frame_seconds)
    else:
        for state, last_throw in replay(record["board_size"], actions):
            print(render_ansi(state, last_throw))
            print()
            if args.delay:
                time.sleep(args.delay)
    print(_outcome_text(record, record.get("seats", ["seat 0", "seat 1"])))
    return 0


def _load_game(path: Path, index: int) -> dict[str, Any]:
    try:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except OSError as error:
        raise CliError(f"cannot read {str(path)!r}: {error}") from None
    if index >= len(lines):
        raise CliError(f"{path} holds {len(lines)} games (0..{len(lines) - 1}); no game {index}")
    try:
        record: dict[str, Any] = json.loads(lines[index])
        record["actions"], record["board_size"]
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        raise CliError(f"line {index} of {path} is not a game record: {error}") from None
    return record


def _write_gif(board_size: int, actions: list[Cell], path: Path, frame_seconds: float) -> None:
    try:
        import imageio.v3 as iio
    except ImportError:
        raise CliError("--gif needs imageio: pip install 'trap_env[plot]'") from None
    frames = [render_rgb(state, throw) for state, throw in replay(board_size, actions)]
    frames.extend([frames[-1]] * 3)  # linger on the final position
    try:
        iio.imwrite(path, frames, duration=int(frame_seconds * 1000), loop=0)
    except OSError as error:
        raise CliError(f"cannot write {str(path)!r}: {error}") from None
    print(f"wrote {path} ({len(frames) - 3} frames)")


if __name__ == "__main__":
    sys.exit(main())

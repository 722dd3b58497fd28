"""Whole games of one game through the project's front doors, for each game's tests: a
tournament (:func:`tournament_records`), a program over ``exec:`` that answers in the
game's action text (:data:`TEXT_PROGRAM`, :func:`play_text_program`), and the decision
states of a game of random moves (:func:`random_decision_states`, which the ladders'
fingerprints take their positions from).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.rating.fingerprint import random_decision_states as random_decision_states

if TYPE_CHECKING:
    from agents.arena.match import GameResult

ROOT = Path(__file__).resolve().parents[2]
"""This checkout, for a program to put on its path."""

TEXT_PROGRAM = """\
import sys
sys.path.insert(0, {root!r})
from trap_env.{game} import rules

sys.stdin.readline()  # the first state, answered with the hello
print("trap-protocol 2 games={game} sizes={board_size}", flush=True)
for line in sys.stdin:
    if line.split()[0] in ("trap-protocol", "game", "time"):
        continue
    state = rules.from_text(line.strip())
    print({answer}, flush=True)
"""
"""A program of the game ``trap_env.{game}`` that answers with ``{answer}``, a Python
expression of ``state`` and the game's ``rules`` module."""


def tournament_records(out: Path, *argv: str) -> list[dict[str, Any]]:
    """The records of ``trap-tournament ARGV --out OUT --no-plot --quiet``, which must end
    with status 0."""
    from trap_scripts import tournament

    assert tournament.main([*argv, "--out", str(out), "--no-plot", "--quiet"]) == 0
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def play_text_program(
    answer: str, folder: Path, game: str, board_size: int, seeds: int, time_budget: float
) -> list[GameResult]:
    """The games ``seed in range(seeds)`` of a :data:`TEXT_PROGRAM` against ``random``, the
    program in seat ``seed % 2``.

    Args:
        answer: the program's answer (see :data:`TEXT_PROGRAM`).
        folder: where to write the program.
        game: the game's name, also its package ``trap_env.GAME``.
        board_size: the board's size, the only one the program plays.
        seeds: how many games.
        time_budget: each agent's seconds per decision.
    """
    from agents import make_agent
    from agents.arena.match import play_game

    program = folder / f"{game}_text.py"
    source = TEXT_PROGRAM.format(root=str(ROOT), game=game, board_size=board_size, answer=answer)
    program.write_text(source, encoding="utf-8")
    spec = "exec:" + shlex.join([sys.executable, str(program)])
    results = []
    for seed in range(seeds):
        players = [make_agent(spec, game=game), make_agent("random", game=game)]
        players = players[::-1] if seed % 2 else players
        try:
            results.append(
                play_game(
                    players,
                    seed=seed,
                    game=game,
                    params={"board_size": board_size},
                    time_budget=time_budget,
                )
            )
        finally:
            for player in players:
                getattr(player, "close", lambda: None)()
    return results

"""CPU seconds per decision of an agent (``openspiel-mcts`` by default) from a few seeded
positions of a game: the start and after 6, 12 and 18 random turns (chance drawn by the
game), a fresh agent with seed 0 at each, so that its choices are repeatable too.

The median is the figure: it is what rating an agent on a ladder costs per turn.

Example:
    python -m trap_scripts.benchmarks.openspiel_mcts --game trap --board-size 7
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

from agents import make_agent
from trap_env.games import get_game

TURNS = (0, 6, 12, 18)
"""The random turns played before each position."""


def positions(
    game_name: str, board_size: int, turns: Sequence[int] = TURNS, seed: int = 7
) -> list[Any]:
    """A position of ``game_name`` after each number of random ``turns`` (a turn being the
    game's ``decisions_per_turn`` decisions), or its end, with a player to act."""
    game = get_game(game_name)
    found = []
    for count in turns:
        rng = random.Random(seed)
        state = game.initial_state(game.make_config(board_size=board_size))
        for _ in range(count * game.decisions_per_turn):
            state = _past_chance(game, state, rng)
            if not (legal := game.legal_actions(state)):
                break
            state = game.apply(state, rng.choice(legal))
        state = _past_chance(game, state, rng)
        if game.legal_actions(state):
            found.append(state)
    return found


def _past_chance(game: Any, state: Any, rng: random.Random) -> Any:
    while game.is_chance(state):
        state = game.apply(state, game.sample_chance(state, rng))
    return state


def decision_seconds(spec: str, game_name: str, states: Sequence[Any]) -> list[tuple[int, float]]:
    """The action and the CPU seconds of a fresh ``spec`` (seed 0) at each of ``states``."""
    timed = []
    for state in states:
        agent = make_agent(spec, game=game_name, seed=0)
        start = time.process_time()
        action = agent.select_action(state)
        timed.append((action, time.process_time() - start))
    return timed


def main(argv: Sequence[str] | None = None) -> int:
    """Print one JSON line per position (its text, the action, the CPU seconds), then the
    median."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="trap")
    parser.add_argument("--board-size", type=int, default=7)
    parser.add_argument("--spec", default="openspiel-mcts:simulations=100")
    args = parser.parse_args(argv)
    states = positions(args.game, args.board_size)
    timed = decision_seconds(args.spec, args.game, states)
    for state, (action, seconds) in zip(states, timed, strict=True):
        text = get_game(args.game).to_text(state)
        print(json.dumps({"position": text, "action": action, "cpu_seconds": round(seconds, 3)}))
    median = statistics.median(seconds for _, seconds in timed)
    print(json.dumps({"spec": args.spec, "median_cpu_seconds": round(median, 3)}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

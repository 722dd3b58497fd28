"""``openspiel-mcts``: one agent, with the same options, plays every game legally and
repeatably from its seed, in this process and in a runner's worker."""

from __future__ import annotations

import doctest
import random
from pathlib import Path
from typing import Any

import pytest

from agents import SpecError, make_agent
from agents.arena.match import FAULTS, play_game
from agents.arena.plan import GameTask, RunConfig
from agents.arena.tournament import run_games
from tests.support.games import every_game, small_rules
from trap_env.games import get_game

pytest.importorskip("pyspiel")

BOARDS = {"trap": 4, "othello": 4, "colosseum": 6}
"""Each shipped game's small board, so that a game takes a few hundredths of a second (the
test-only games' default rules are small)."""


def tiny(game: str) -> dict[str, Any]:
    """The rules of a tiny game of ``game``."""
    return small_rules(game, board_size=BOARDS.get(game))
MAX_TURNS = 8
"""A draw after this many turns (Trap! on 4x4 lasts long between two weak players)."""


def test_the_module_example_runs() -> None:
    from agents import openspiel_mcts

    assert doctest.testmod(openspiel_mcts).failed == 0


@every_game()
def test_it_is_the_same_agent_with_the_same_options_in_every_game(game: str) -> None:
    from agents.openspiel_mcts import OpenSpielMCTSAgent

    agent = make_agent("openspiel-mcts:simulations=30,uct_c=1.5,rollouts=2", game=game, seed=0)
    assert isinstance(agent, OpenSpielMCTSAgent)
    assert (agent.simulations, agent.uct_c, agent.rollouts, agent.solve) == (30, 1.5, 2, True)
    with pytest.raises(SpecError, match="simulations must be an integer >= 1"):
        make_agent("openspiel-mcts:simulations=0", game=game)


def bot_game(game: str, seed: int, seat: int, agent: Any = None) -> list[int]:
    """The actions of a tiny game of ``openspiel-mcts`` in ``seat`` against ``random``."""
    bot = agent or make_agent("openspiel-mcts:simulations=6", game=game)
    players = [bot, make_agent("random", game=game)]
    if seat:
        players.reverse()
    result = play_game(players, seed=seed, game=game, params=tiny(game), max_turns=MAX_TURNS,
                       time_budget=None, opening_plies=2)  # fmt: skip
    assert result.reason not in FAULTS, result.detail  # every action was legal
    return result.actions


@every_game()
def test_it_plays_legal_games_repeatably_from_its_seed(game: str) -> None:
    assert bot_game(game, 3, seat=0) == bot_game(game, 3, seat=0)
    assert bot_game(game, 4, seat=1) == bot_game(game, 4, seat=1)
    bot = make_agent("openspiel-mcts:simulations=6", game=game)
    first = bot_game(game, 5, seat=0, agent=bot)
    bot_game(game, 6, seat=1, agent=bot)
    assert bot_game(game, 5, seat=0, agent=bot) == first  # the game's reset reseeds it


def test_a_worker_process_plays_as_this_process(tmp_path: Path) -> None:
    spec = "openspiel-mcts:simulations=6"
    tasks = [GameTask(f"g{seed}", (spec, "random"), (spec, "random"), seed) for seed in (0, 1)]

    def actions(workers: int) -> list[list[int]]:
        config = RunConfig(params=tiny("trap"), max_turns=MAX_TURNS, workers=workers,
                           game_name="trap", time_budget=None, opening_plies=2)  # fmt: skip
        records = run_games(tasks, tmp_path / f"{workers}.jsonl", config, progress=False)
        return [record["actions"] for record in records]

    assert actions(workers=1) == actions(workers=0)


def positions(game: str, seed: int = 11) -> list[Any]:
    """Three positions of a tiny game of ``game``: the start, and after 3 and 6 random
    decisions (chance drawn by the game), each with a player to act."""
    rules = get_game(game)
    rng = random.Random(seed)
    state = rules.initial_state(rules.make_config(**tiny(game)))
    found = []
    for decisions in range(7):
        while rules.is_chance(state):
            state = rules.apply(state, rules.sample_chance(state, rng))
        if decisions % 3 == 0:
            found.append(state)
        state = rules.apply(state, rng.choice(rules.legal_actions(state)))
    return found


PINNED_CHOICES = {"trap": [5, 9, 14], "othello": [4, 0, 0], "colosseum": [104, 89, 120]}
"""``openspiel-mcts:simulations=40``'s choices (seed 0) on :func:`positions`: OpenSpiel's bot
searches the same game, its draws and its ties the same, however fast the adapter gets."""


@pytest.mark.parametrize("game", sorted(PINNED_CHOICES))
def test_its_choices_from_a_seed_are_pinned(game: str) -> None:
    choices = []
    for state in positions(game):
        agent = make_agent("openspiel-mcts:simulations=40", game=game, seed=0)
        choices.append(agent.select_action(state))
    assert choices == PINNED_CHOICES[game]

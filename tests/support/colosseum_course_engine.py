"""A stand-in for the McGill COMP 424 (Winter 2022) *Colosseum Survival!* engine
(Ctree35/Project-COMP424-2022-Winter at b34add2: ``world.py``, ``simulator.py``,
``store.py``, ``constants.py``, ``agents/agent.py``, ``agents/random_agent.py``), for
tests: the same calls in the same order, written from the engine's behaviour, not from
:mod:`trap_env.colosseum.rules`, so that it checks our agent against the engine rather
than against our own rules.

:func:`write_course_tree` lays out a directory as the engine's (its own ``agents``
package, which hides this project's, ``store.py``, ``constants.py``, and this module as
``simulator.py``); run there, ``python simulator.py --player_1 A --player_2 B
--autoplay_runs N --seed S`` plays N games and prints one JSON line. What it keeps of
the engine:

* agents are classes registered with ``@register_agent(name)`` in ``store``; the world
  makes one instance per player per game and, in autoplay, refuses an agent without
  ``autoplay = True``;
* the size, when not given, is ``np.random.randint(MIN_BOARD_SIZE, MAX_BOARD_SIZE)``
  (5 to 9); the board is an ``(M, M, 4)`` bool array (sides up, right, down, left), the
  border set; K = (M + 1) // 2; K barriers, each on a uniform (row, col, side) drawn
  again while it has one, with its mirror; A on ``np.random.randint(0, M, size=2)``
  drawn again while it is the mirror cell, B on the mirror cell;
* a start where the players are already separated is drawn again by a new world (the
  simulator's ``reset``, which then does not swap the players: the engine's quirk);
* each step calls ``step(deepcopy(chess_board), tuple(cur_pos), tuple(adv_pos),
  max_step)`` (positions: tuples of numpy integers), converts the position with
  ``np.asarray(..., dtype=cur_pos.dtype)``, and replaces an answer off the board, a side
  outside 0..3, an invalid step (a barrier there, or out of reach by the breadth-first
  search of at most K steps around barriers and the opponent) or any exception by the
  engine's random walk; there is no time limit;
* the game ends when union-find puts the players in different sets; autoplay swaps the
  first player in every even-numbered run and counts a tie as a win for both.

Additions for tests, outside the engine's behaviour: ``--seed`` seeds numpy's global
generator, ``--sizes 6-12`` sets the constants' size range to the handout's (the engine's
5-9 otherwise), and the JSON line counts the random walks the engine made for each agent.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from copy import deepcopy
from pathlib import Path
from typing import Any

MOVES = ((-1, 0), (0, 1), (1, 0), (0, -1))
OPPOSITES = {0: 2, 1: 3, 2: 0, 3: 1}

COURSE_FILES = {
    "store.py": """\
AGENT_REGISTRY = {}


def register_agent(agent_name=""):
    def decorator(func):
        if agent_name not in AGENT_REGISTRY:
            AGENT_REGISTRY[agent_name] = func
        else:
            raise AssertionError(f"Agent {agent_name} is already registered.")
        return func

    return decorator
""",
    "constants.py": """\
MIN_BOARD_SIZE = 5
MAX_BOARD_SIZE = 10
DIRECTION_UP = 0
DIRECTION_RIGHT = 1
DIRECTION_DOWN = 2
DIRECTION_LEFT = 3
PLAYER_1_ID = 0
PLAYER_2_ID = 1
""",
    "agents/__init__.py": "from .agent import *\nfrom .random_agent import *\n",
    "agents/agent.py": """\
class Agent:
    def __init__(self):
        self.name = "DummyAgent"

    def step(self, chess_board, my_pos, adv_pos, max_step):
        pass
""",
    "agents/random_agent.py": '''\
from copy import deepcopy

import numpy as np

from agents.agent import Agent
from store import register_agent


@register_agent("random_agent")
class RandomAgent(Agent):
    """The engine's random walk (see the stand-in's random_walk)."""

    def __init__(self):
        super().__init__()
        self.name = "RandomAgent"
        self.autoplay = True

    def step(self, chess_board, my_pos, adv_pos, max_step):
        from simulator import random_walk

        return random_walk(chess_board, deepcopy(my_pos), adv_pos, max_step)
''',
}
"""The engine's files this stand-in needs beside it, as the engine lays them out."""


def write_course_tree(path: Path, agent_files: tuple[Path, ...] = ()) -> Path:
    """Lay out ``path`` as the engine's directory, with ``agent_files`` copied into its
    ``agents/`` and imported by ``agents/__init__.py`` (as students add theirs)."""
    for name, text in COURSE_FILES.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text, encoding="utf-8")
    init = path / "agents" / "__init__.py"
    for agent_file in agent_files:
        shutil.copy(agent_file, path / "agents" / agent_file.name)
        init.write_text(init.read_text() + f"from .{agent_file.stem} import *\n")
    shutil.copy(__file__, path / "simulator.py")
    return path


def random_walk(chess_board: Any, my_pos: Any, adv_pos: Any, max_step: int) -> Any:
    """The engine's random walk: ``randint(0, K + 1)`` steps, each a random way drawn
    again while a barrier or the opponent is there (after 300 redraws, back to the start
    and stop), then a random side without a barrier."""
    import numpy as np

    origin = deepcopy(my_pos)
    for _ in range(np.random.randint(0, max_step + 1)):
        row, col = my_pos
        side = np.random.randint(0, 4)
        my_pos = (row + MOVES[side][0], col + MOVES[side][1])
        tries = 0
        while chess_board[row, col, side] or my_pos == adv_pos:
            tries += 1
            if tries > 300:
                break
            side = np.random.randint(0, 4)
            my_pos = (row + MOVES[side][0], col + MOVES[side][1])
        if tries > 300:
            my_pos = origin
            break
    side = np.random.randint(0, 4)
    row, col = my_pos
    while chess_board[row, col, side]:
        side = np.random.randint(0, 4)
    return my_pos, side


class World:
    """One game, as ``world.World``: the start in the constructor, one turn per ``step``."""

    def __init__(
        self, registry: dict[str, Any], player_1: str, player_2: str,
        board_size: int | None = None, autoplay: bool = False,
    ) -> None:  # fmt: skip
        import numpy as np
        from constants import MAX_BOARD_SIZE, MIN_BOARD_SIZE  # type: ignore[import-not-found]

        for name in (player_1, player_2):
            if name not in registry:
                raise ValueError(f"Agent '{name}' is not registered.")
        self.p0, self.p1 = registry[player_1](), registry[player_2]()
        if autoplay and not (self.p0.autoplay and self.p1.autoplay):
            raise ValueError("Autoplay mode is not supported by one of the agents")
        if board_size is None:
            board_size = np.random.randint(MIN_BOARD_SIZE, MAX_BOARD_SIZE)
        self.board_size = board_size
        self.chess_board = np.zeros((board_size, board_size, 4), dtype=bool)
        self.chess_board[0, :, 0] = self.chess_board[:, 0, 3] = True
        self.chess_board[-1, :, 2] = self.chess_board[:, -1, 1] = True
        self.max_step = (board_size + 1) // 2
        for _ in range(self.max_step):
            pos = np.random.randint(0, board_size, size=2)
            side = np.random.randint(0, 4)
            while self.chess_board[pos[0], pos[1], side]:
                pos = np.random.randint(0, board_size, size=2)
                side = np.random.randint(0, 4)
            mirror = board_size - 1 - pos
            self.set_barrier(pos[0], pos[1], side)
            self.set_barrier(mirror[0], mirror[1], OPPOSITES[side])
        self.p0_pos = np.random.randint(0, board_size, size=2)
        self.p1_pos = board_size - 1 - self.p0_pos
        while np.array_equal(self.p0_pos, self.p1_pos):
            self.p0_pos = np.random.randint(0, board_size, size=2)
            self.p1_pos = board_size - 1 - self.p0_pos
        self.turn = 0
        self.initial_end, _, _ = self.check_endgame()
        self.random_walks = [0, 0]

    def set_barrier(self, row: int, col: int, side: int) -> None:
        self.chess_board[row, col, side] = True
        step = MOVES[side]
        self.chess_board[row + step[0], col + step[1], OPPOSITES[side]] = True

    def step(self) -> tuple[bool, int, int]:
        import numpy as np

        player = self.p1 if self.turn else self.p0
        cur_pos, adv_pos = (self.p1_pos, self.p0_pos) if self.turn else (self.p0_pos, self.p1_pos)
        try:
            next_pos, side = player.step(
                deepcopy(self.chess_board), tuple(cur_pos), tuple(adv_pos), self.max_step
            )
            next_pos = np.asarray(next_pos, dtype=cur_pos.dtype)
            if not self.check_boundary(next_pos):
                raise ValueError(f"End position {next_pos} is out of boundary")
            if not 0 <= side <= 3:
                raise ValueError(f"Barrier dir should reside in [0, 3], but your dir is {side}")
            if not self.check_valid_step(cur_pos, next_pos, side):
                raise ValueError(f"Not a valid step from {cur_pos} to {next_pos} and {side}")
        except BaseException as error:
            if "KeyboardInterrupt" in type(error).__name__:
                sys.exit(0)
            print(f"random walk for {type(player).__name__}: {error!r}", file=sys.stderr)
            self.random_walks[self.turn] += 1
            next_pos, side = random_walk(self.chess_board, tuple(cur_pos), tuple(adv_pos),
                                         self.max_step)  # fmt: skip
            next_pos = np.asarray(next_pos, dtype=cur_pos.dtype)
        if self.turn:
            self.p1_pos = next_pos
        else:
            self.p0_pos = next_pos
        self.set_barrier(next_pos[0], next_pos[1], side)
        self.turn = 1 - self.turn
        return self.check_endgame()

    def check_boundary(self, pos: Any) -> bool:
        row, col = pos
        return bool(0 <= row < self.board_size and 0 <= col < self.board_size)

    def check_valid_step(self, start_pos: Any, end_pos: Any, side: int) -> bool:
        """The engine's test: no barrier on that side of the end, and the end within K
        steps by breadth-first search, not through barriers or the opponent."""
        import numpy as np

        if self.chess_board[end_pos[0], end_pos[1], side]:
            return False
        if np.array_equal(start_pos, end_pos):
            return True
        adv_pos = self.p0_pos if self.turn else self.p1_pos
        queue, visited = [(start_pos, 0)], {tuple(start_pos)}
        while queue:
            cur_pos, steps = queue.pop(0)
            if steps == self.max_step:
                break
            for way, move in enumerate(MOVES):
                if self.chess_board[cur_pos[0], cur_pos[1], way]:
                    continue
                next_pos = cur_pos + np.array(move)
                if np.array_equal(next_pos, adv_pos) or tuple(next_pos) in visited:
                    continue
                if np.array_equal(next_pos, end_pos):
                    return True
                visited.add(tuple(next_pos))
                queue.append((next_pos, steps + 1))
        return False

    def check_endgame(self) -> tuple[bool, int, int]:
        """Union-find over the right and down sides: (ended, A's set, B's set)."""
        n = self.board_size
        father = {(r, c): (r, c) for r in range(n) for c in range(n)}

        def find(pos: tuple[int, int]) -> tuple[int, int]:
            while father[pos] != pos:
                pos = father[pos]
            return pos

        for r in range(n):
            for c in range(n):
                for way, (dr, dc) in ((1, MOVES[1]), (2, MOVES[2])):
                    if not self.chess_board[r, c, way]:
                        a, b = find((r, c)), find((r + dr, c + dc))
                        if a != b:
                            father[a] = b
        roots = [find(pos) for pos in father]
        p0_root, p1_root = find(tuple(self.p0_pos)), find(tuple(self.p1_pos))
        return p0_root != p1_root, roots.count(p0_root), roots.count(p1_root)


def run(registry: dict[str, Any], player_1: str, player_2: str, board_size: int | None,
        autoplay: bool, swap_players: bool = False) -> dict[str, Any]:  # fmt: skip
    """One game as ``Simulator.run``: a new world (again while the start is separated:
    that redraw does not swap), stepped to the end."""
    first, second = (player_2, player_1) if swap_players else (player_1, player_2)
    world = World(registry, first, second, board_size, autoplay)
    while world.initial_end:
        world = World(registry, player_1, player_2, board_size, autoplay)
        first, second = player_1, player_2
    ended, score_0, score_1 = world.step()
    while not ended:
        ended, score_0, score_1 = world.step()
    return {"players": [first, second], "scores": [score_0, score_1],
            "size": world.board_size, "random_walks": world.random_walks}  # fmt: skip


def autoplay(registry: dict[str, Any], player_1: str, player_2: str, runs: int,
             board_size: int | None) -> dict[str, Any]:  # fmt: skip
    """``Simulator.autoplay``: the first player swapped in every even run; a tie counts
    for both; plus each game's record."""
    wins = {player_1: 0, player_2: 0}
    walks = {player_1: 0, player_2: 0}
    games = []
    for number in range(runs):
        game = run(registry, player_1, player_2, board_size, True, swap_players=number % 2 == 0)
        (first, second), (score_0, score_1) = game["players"], game["scores"]
        if score_0 >= score_1:
            wins[first] += 1
        if score_1 >= score_0:
            wins[second] += 1
        walks[first] += game["random_walks"][0]
        walks[second] += game["random_walks"][1]
        games.append(game)
    return {"wins": wins, "random_walks": walks, "games": games}


def main(argv: list[str] | None = None) -> int:
    """``python simulator.py --player_1 A --player_2 B --autoplay_runs N [--seed S]``."""
    import numpy as np

    parser = argparse.ArgumentParser()
    parser.add_argument("--player_1", default="random_agent")
    parser.add_argument("--player_2", default="random_agent")
    parser.add_argument("--board_size", type=int, default=None)
    parser.add_argument("--autoplay_runs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--sizes", default=None, help="LOW-HIGH, both included")
    args = parser.parse_args(argv)
    if args.seed is not None:
        np.random.seed(args.seed)
    if args.sizes is not None:
        import constants  # type: ignore[import-not-found]

        low, high = (int(size) for size in args.sizes.split("-"))
        constants.MIN_BOARD_SIZE, constants.MAX_BOARD_SIZE = low, high + 1
    from store import AGENT_REGISTRY  # type: ignore[import-not-found]

    import agents  # type: ignore[import-not-found]  # noqa: F401  (the engine's: registers)

    result = autoplay(AGENT_REGISTRY, args.player_1, args.player_2, args.autoplay_runs,
                      args.board_size)  # fmt: skip
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

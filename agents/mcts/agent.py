"""The ``mcts`` agent of Trap! and Othello: PUCT search (with chance nodes where the game
has them), guided by a small network, under a clock.

The network (:mod:`agents.mcts.network`) gives the search its priors and leaf values; it
runs in NumPy, so the agent needs no torch. By default it is the network bundled with the
game's agents for its default rules (:func:`agents.mcts.network.bundled_network`: Trap!
7x7, Othello 8x8), trained by ``trap-train alphazero`` (see :mod:`agents.rl.alphazero`); a
network plays only the game and rules it was trained for.

Time control is that of the game's reference search: a CPU-time budget per turn, shared
by the decisions one player makes in a turn as the game says (``game.decisions_per_turn``:
Trap!'s move and throw; the first gets an even share, the second what the first left), the
clock checked every eight simulations with a safety margin, so a turn never runs over. The
tree is kept between decisions, where it still holds the position. If the clock is nearly
out before the search starts, the agent plays the network's likeliest legal action (or the
kept tree's most visited one).

Example:
    >>> from agents import make_agent
    >>> agent = make_agent("mcts:time_limit=1.0", game="trap")  # the bundled 7x7 network
    >>> agent = make_agent("mcts:simulations=200,path=run/best.npz", game="trap", seed=3)
    >>> agent = make_agent("mcts:time_limit=1.0", game="othello")  # the bundled 8x8 one
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.files import deprecated_bundled_table
from agents.mcts.network import Network, bundled_network, load_network
from agents.mcts.search import CHANCE_MODES, Tree
from agents.options import require_game, rule_flag, rules_text, with_value
from agents.seeded import SeededAgent
from agents.timing import MAX_TIME_LIMIT, Clock, TimedAgent, check_clock
from trap_env.agent import UnsupportedGameError
from trap_env.game import turn_limit
from trap_env.games import game_names, get_game

__all__ = ["MCTSAgent", "MCTSStats"]


def __getattr__(name: str) -> Mapping[str, Path]:
    """``DEFAULT_NETWORKS``, deprecated: each game's :func:`bundled_network`."""
    if name == "DEFAULT_NETWORKS":
        return deprecated_bundled_table(name, bundled_network, game_names())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class MCTSStats:
    """What the last decision's search did.

    Attributes:
        simulations: simulations run for this decision (the static fallback runs at most
            one: the root's own evaluation).
        depth: the deepest path of the tree, in nodes below the root (plies and landings).
        seconds: the decision's time on the agent's clock.
        value: the chosen action's mean value for the player to act.
        budget: the time the decision was allowed (0.0 without a time limit).
    """

    simulations: int
    depth: int
    seconds: float
    value: float
    budget: float


class MCTSAgent(TimedAgent, SeededAgent):
    """AlphaZero-style search, with exact chance nodes where the game has them.

    Args:
        time_limit: CPU seconds per turn (all the decisions of one player's turn together);
            None for no limit (then ``simulations`` must be given).
        simulations: the most simulations per decision; None for no limit.
        path: the network's ``.npz`` file; by default the game's bundled network of its
            default rules (:func:`~agents.mcts.network.bundled_network`).
        c_puct: the weight of the prior in PUCT.
        chance: ``"expect"`` (follow each chance outcome in proportion to its probability)
            or ``"sample"`` (draw them from the agent's generator).
        move_share: deprecated (it warns): the part of a turn's budget given to its first
            decision, in a game of two decisions a turn; by default an even share.
        max_turns: the turn limit the search counts as a draw (default: the game's, Trap!'s
            4 * N * N).
        clock: ``"cpu"`` (this process's CPU time) or ``"wall"``.
        seed: seeds the agent's generator (used by ``chance="sample"``).
        game: the game it plays (the runner tells it); the network must be of that game.

    Raises:
        FileNotFoundError, IncompatibleNetworkError: for a missing or unreadable network.
        ValueError: for a bad option, or a network of another game.
    """

    def __init__(
        self,
        time_limit: float | None = 1.0,
        simulations: int | None = None,
        path: str | Path | None = None,
        c_puct: float = 1.5,
        chance: str = "expect",
        move_share: float | None = None,
        max_turns: int | None = None,
        clock: Clock = "cpu",
        seed: int | None = None,
        game: str | None = None,
    ) -> None:
        game = require_game(game, "MCTSAgent()")
        SeededAgent.__init__(self, seed)
        _check_options(time_limit, simulations, chance, move_share, clock, c_puct, max_turns)
        self.time_limit = time_limit
        self.simulations = simulations
        self.path = _network_path(path, game)
        self.rules = get_game(game)
        self.network: Network = load_network(self.path, self.rules)
        if self.network.game_name != self.rules.name:
            raise ValueError(
                f"the mcts network {self.path} plays {self.network.describe()}, not {game}; "
                f"train one for {game} with trap-train alphazero --game {game}"
            )
        TimedAgent.__init__(self, clock, self.rules)
        self.c_puct = c_puct
        self.chance = chance
        self.move_share = move_share
        self.max_turns = max_turns
        self.last_search: MCTSStats | None = None
        self._tree: Tree | None = None

    @staticmethod
    def loaded_files(game: str, path: str | Path | None = None, **_: Any) -> list[Path]:
        """The file an agent of ``game`` with these options loads: its network (see
        :mod:`agents.spec_files`)."""
        return [_network_path(path, game)]

    def check_game(self, config: Any) -> None:
        """Refuse rules the network was not trained for (another board size, Trap!'s
        ``decay``, Othello's ``end_rule``).

        Raises:
            UnsupportedGameError: naming what the network plays and what the game is.
        """
        params = self.rules.config_params(config)
        if params == dict(self.network.rules):
            return
        game_name = self.network.game_name
        flags = " ".join(
            with_value(rule_flag(name), value)
            for name, value in params.items()
            if self.network.rules.get(name) != value
        )
        raise UnsupportedGameError(
            f"the mcts network {self.path} was trained for {self.network.describe()}; this "
            f"game is {rules_text(params)}. Train one for it "
            f"with trap-train alphazero --game {game_name} {flags}"
        )

    def reset(self, seed: int | None = None) -> None:
        """Start a new game: drop the tree."""
        super().reset(seed)
        self._tree = None
        self._forget_turn()
        self.last_search = None

    def _decide(self, state: Any) -> int:
        """The most visited legal action after searching within the budget.

        Raises:
            ValueError: if the state is not a decision of a game in progress.
            UnsupportedGameError: if the rules are not the network's.
        """
        started = self.clock()
        rules = self.rules
        if rules.outcome(state) is not None or rules.is_chance(state):
            raise ValueError(
                "select_action needs a decision of a game in progress, got "
                f"{rules.to_text(state)}"
            )
        self.check_game(rules.config_of(state))
        budget = self._turn_budget(state, self.time_limit, self.move_share)
        tree = self._tree_for(state)
        before = tree.simulations
        stop = self._stopper(started, budget)
        # A forced move needs no search: its time goes to the throw.
        is_forced = len(tree.root.actions) == 1
        if not is_forced and not (budget is not None and stop()):
            limit = self.simulations if self.simulations is not None else 1 << 62
            tree.run(self.network.evaluate, limit, stop)
        action = self._most_visited(tree)
        seconds = self.clock() - started
        root = tree.root
        index = root.actions.index(action)
        visits = root.visits[index]
        value = float(root.totals[index] / visits) if visits else root.value
        self.last_search = MCTSStats(
            tree.simulations - before, tree.max_depth, seconds, value, budget or 0.0
        )
        self._end_decision(state, action, seconds)
        return action

    def _tree_for(self, state: Any) -> Tree:
        """The kept tree re-rooted at ``state`` if it holds it, else a new tree."""
        tree = self._tree
        if tree is None or not (tree.root.state == state or tree.advance(state)):
            rules = self.rules
            limit = turn_limit(self.max_turns, rules.default_turn_limit(rules.config_of(state)))
            tree = Tree(state, self.c_puct, self.chance, limit, self.rng, game=rules)
        tree.max_depth = 0
        self._tree = tree
        return tree

    def _most_visited(self, tree: Tree) -> int:
        """The most visited action; with no visits, the network's likeliest one."""
        root = tree.root
        if not root.is_expanded:
            logits, values = self.network.evaluate([root.state])
            leaf = tree.select()
            assert leaf is not None and leaf.node is root
            tree.expand(leaf, logits[0], float(values[0]))
        return root.actions[root.best_index()]


def _network_path(path: str | Path | None, game: str) -> Path:
    """The network file ``path``, or the bundled network of ``game`` (:func:`bundled_network`)."""
    return Path(path) if path is not None else bundled_network(game)


def _check_options(
    time_limit: float | None,
    simulations: int | None,
    chance: str,
    move_share: float | None,
    clock: str,
    c_puct: float,
    max_turns: int | None,
) -> None:
    if time_limit is None and simulations is None:
        raise ValueError("give a time_limit, simulations, or both (both None would never stop)")
    if time_limit is not None and not 0 < time_limit <= MAX_TIME_LIMIT:
        raise ValueError(
            f"time_limit must be > 0 and at most {MAX_TIME_LIMIT:g} seconds (a day), or None "
            f"with simulations; got {time_limit!r}"
        )
    if not c_puct > 0:
        raise ValueError(f"c_puct must be > 0, got {c_puct!r}")
    if max_turns is not None and (
        isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1
    ):
        raise ValueError(f"max_turns must be an integer >= 1 or None, got {max_turns!r}")
    if simulations is not None and (
        isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1
    ):
        raise ValueError(f"simulations must be an integer >= 1 or None, got {simulations!r}")
    if chance not in CHANCE_MODES:
        raise ValueError(f"chance must be one of {list(CHANCE_MODES)}, got {chance!r}")
    if move_share is not None:
        if not 0.0 < move_share < 1.0:
            raise ValueError(f"move_share must be between 0 and 1 (exclusive), got {move_share}")
        warnings.warn(
            "mcts's move_share is deprecated: a turn's decisions share its budget as the game "
            "says (game.decisions_per_turn: an even share each)",
            DeprecationWarning,
            stacklevel=3,  # the caller of MCTSAgent()
        )
    check_clock(clock)


"""The settings of an AlphaZero run (:class:`AlphaZeroConfig`) and its run folder's file names.

Part of :mod:`agents.rl.alphazero`.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.arena.record_rules import UNNAMED_GAME, record_params
from agents.files import (
    write_text_atomically,
)
from agents.rl.settings import (
    Rule,
    check_fields,
    is_text,
    load_record,
)
from trap_env.batched import batched_engine
from trap_env.game import Game, played_params, turn_limit
from trap_env.games import game_names, get_game

CONFIG_FILE = "config.json"
CHECKPOINT_FILE = "checkpoint.pt"
REPLAY_FILE = "replay.npz"
FIXED_ON_RESUME = (
    "game_name",
    "rules",
    "channels",
    "blocks",
    "hidden",
    "initial_network",
    "seed",
    "imitation_games",
    "imitation_teacher",
    "imitation_random_actions",
    "imitation_epochs",
    "imitation_value_mix",
)
"""The settings a resumed run cannot change: what its network, buffer and generators
were built from, and the warm start done at its beginning."""
DEFAULT_LADDER = ("random", "greedy", "alphabeta", "expectiminimax:time_limit=0.1")


@dataclass
class AlphaZeroConfig:
    """The settings of one training run.

    Attributes:
        run_dir: the run folder.
        game_name: the game, by its name in :mod:`trap_env.games`; it needs a batched engine
            (Trap! and Othello have one).
        rules: the game's rule parameters, as its ``make_config`` takes them (Trap!:
            ``{"board_size": 5, "decay": 0}``; Othello: ``{"board_size": 8, "end_rule":
            "standard"}``); None for the game's defaults.
        channels, blocks, hidden: the network's size (see :mod:`agents.mcts.network`).
        initial_network: an ``mcts`` network file to start from (a warm start; its size
            must be ``channels``, ``blocks``, ``hidden``), or None for random weights.
        minutes: stop after this much training time (wall clock, summed over resumes).
        iterations: stop after this many self-play iterations (0: no limit but ``minutes``).
        games: self-play games played at once (their leaves are evaluated in one batch).
        decisions: decisions made in every game per iteration (between training phases).
        simulations: simulations per self-play decision.
        c_puct: PUCT's exploration weight.
        dirichlet_alpha, noise_fraction: the root noise of self-play.
        temperature_turns: turns during which moves are sampled by visit counts.
        value_mix: value target = (1 - value_mix) * outcome + value_mix * root value.
        max_turns: self-play games are draws after this many turns (default: the game's).
        replay_size: samples kept in the replay buffer.
        batch_size: minibatch size.
        sample_reuse: training steps per iteration = new samples * reuse / batch size.
        learning_rate, weight_decay: Adam's settings.
        imitation_games: teacher games to imitate first (0: none).
        imitation_teacher: the teacher's agent spec.
        imitation_random_actions: uniformly random actions opening each teacher game (at
            most; the count is drawn from 0..this).
        imitation_epochs: passes over the teacher's samples.
        imitation_value_mix: teacher value target = (1 - mix) * outcome + mix * the
            teacher's own search value (for teachers that report one in ``last_search``).
        checkpoint_every: iterations between checkpoints (the replay buffer included).
        eval_every: iterations between evaluations against the ladder (0: none).
        eval_games: games per ladder opponent per evaluation (seats alternating).
        eval_time_limit: seconds per turn of every player in the evaluations.
        ladder: the agent specs of the ladder.
        seed: the run's seed.
        torch_threads: torch's intra-op threads.
        progress_bar: show a tqdm bar.
    """

    run_dir: str
    game_name: str
    rules: dict[str, Any] | None = None
    channels: int = 32
    blocks: int = 3
    hidden: int = 64
    initial_network: str | None = None
    minutes: float = 60.0
    iterations: int = 0
    games: int = 32
    decisions: int = 16
    simulations: int = 64
    c_puct: float = 1.5
    dirichlet_alpha: float = 0.3
    noise_fraction: float = 0.25
    temperature_turns: int = 3
    value_mix: float = 0.5
    max_turns: int | None = None
    replay_size: int = 100_000
    batch_size: int = 256
    sample_reuse: float = 4.0
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    imitation_games: int = 0
    imitation_teacher: str = "expectiminimax:depth=4,time_limit=none"
    imitation_random_actions: int = 4
    imitation_epochs: int = 4
    imitation_value_mix: float = 0.75
    checkpoint_every: int = 10
    eval_every: int = 0
    eval_games: int = 10
    eval_time_limit: float = 0.1
    ladder: list[str] = field(default_factory=lambda: list(DEFAULT_LADDER))
    seed: int = 0
    torch_threads: int = 1
    progress_bar: bool = True

    def __post_init__(self) -> None:
        """Check every field's type and range, so that a bad config fails before a run starts.

        Raises:
            ValueError: naming the first field that is wrong and what it must be.
        """
        check_fields(self, _FIELD_RULES, ("initial_network", "max_turns", "rules"))
        if not isinstance(self.ladder, list) or not all(is_text(spec) for spec in self.ladder):
            raise ValueError(f"ladder must be a list of agent specs, got {self.ladder!r:.100}")
        self._check_rules()
        try:
            batched_engine(self.rulebook, self.game)
        except ValueError as error:
            raise ValueError(f"self-play runs on the game's batched engine: {error}") from None
        if self.eval_every and not self.ladder:
            raise ValueError("ladder must name at least one agent spec, or eval_every=0")
        if self.eval_every and "," in self.run_dir:
            raise ValueError(
                f"run_dir {self.run_dir!r} holds a comma: the ladder evaluation names the "
                "network in an agent spec (mcts:path=...), whose options commas separate; "
                "choose a folder without one, or eval_every=0"
            )

    def _check_rules(self) -> None:
        """Refuse a game that is not registered, and rules the game's ``make_config`` refuses."""
        if self.game_name not in game_names():  # a run's file never makes us import a module
            raise ValueError(
                f"game_name must be one of {', '.join(game_names())}, got {self.game_name!r:.60}"
            )
        if self.rules is not None and not (
            isinstance(self.rules, dict) and all(isinstance(key, str) for key in self.rules)
        ):
            raise ValueError(f"rules must be an object of rule parameters, got {self.rules!r:.100}")
        _ = self.game  # make_config names a bad parameter and what is allowed

    @property
    def rulebook(self) -> Game[Any, Any]:
        """The game the run trains for (:func:`trap_env.games.get_game` of ``game_name``)."""
        return get_game(self.game_name)

    @property
    def rule_params(self) -> dict[str, Any]:
        """The rule parameters given (``rules``; empty for the game's defaults)."""
        return {} if self.rules is None else dict(self.rules)

    @property
    def game(self) -> Any:
        """The rules the run trains for, as the game's config."""
        return self.rulebook.make_config(**self.rule_params)

    @property
    def sample_shapes(self) -> tuple[tuple[int, ...], int]:
        """The observation shape and the action count of the game's samples."""
        game, config = self.rulebook, self.game
        return tuple(game.observation_shape(config)), game.num_actions(config)

    @property
    def turn_limit(self) -> int:
        """The turn limit of self-play games."""
        return turn_limit(self.max_turns, self.rulebook.default_turn_limit(self.game))

    def save(self, path: Path) -> None:
        """Write the settings as JSON (atomically: a killed run leaves the old file whole)."""
        write_text_atomically(path, json.dumps(dataclasses.asdict(self), indent=2) + "\n")

    @classmethod
    def load(cls, path: Path) -> AlphaZeroConfig:
        """Read settings written by :meth:`save`, by this version or an earlier one
        (:func:`current_fields`).

        Raises:
            FileNotFoundError: if there is no such file (no run to resume).
            ValueError: if the file is not a JSON object of this record's fields.
        """
        if not path.is_file():
            raise FileNotFoundError(f"no run to resume: {path} does not exist")
        return load_record(cls, path, current_fields)


OLD_RULE_FIELDS = ("board_size", "decay")
"""The fields that held the rules of a run of the game that records naming none are of
(Trap!'s), in config files written before ``rules`` held every game's rule parameters."""


def current_fields(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored config's fields as this version names them.

    A config written before ``game_name`` existed is a run of the game that records naming
    none are of (:data:`agents.arena.record_rules.UNNAMED_GAME`); one written before
    ``rules`` held every game's parameters kept that game's rules in fields of their own
    (:data:`OLD_RULE_FIELDS`, read as an old game record's are:
    :func:`agents.arena.record_rules.record_params`), at their defaults for another game.

    Raises:
        ValueError: for old rule fields off their defaults beside ``rules``.
    """
    fields = dict(stored)
    old = {name: fields.pop(name) for name in OLD_RULE_FIELDS if name in fields}
    game = fields.setdefault("game_name", UNNAMED_GAME)
    if old and game == UNNAMED_GAME and fields.get("rules") is None:
        return fields | {"rules": record_params(old)}
    unnamed = get_game(UNNAMED_GAME)
    defaults = played_params(unnamed)
    if any(defaults[name] != value for name, value in old.items()):
        raise ValueError(
            f"{' and '.join(OLD_RULE_FIELDS)} hold the rules of a {UNNAMED_GAME} run only in a "
            f"config without rules; give every rule parameter in rules={{...}}"
        )
    return fields


_AT_LEAST_1: Rule = (int, lambda v: v >= 1, "an integer >= 1")
_AT_LEAST_0: Rule = (int, lambda v: v >= 0, "an integer >= 0")
_POSITIVE: Rule = (float, lambda v: v > 0, "a number > 0")
_SHARE: Rule = (float, lambda v: 0 <= v <= 1, "a number in [0, 1]")
_FIELD_RULES: dict[str, Rule] = {
    "run_dir": (str, lambda v: True, "a folder path"),
    "game_name": (str, lambda v: True, "a game's name"),  # get_game names the games
    "channels": _AT_LEAST_1,
    "blocks": _AT_LEAST_1,
    "hidden": _AT_LEAST_1,
    "initial_network": (str, lambda v: True, "a network file or null"),
    "minutes": _POSITIVE,
    "iterations": _AT_LEAST_0,
    "games": _AT_LEAST_1,
    "decisions": _AT_LEAST_1,
    "simulations": _AT_LEAST_1,
    "c_puct": _POSITIVE,
    "dirichlet_alpha": _POSITIVE,
    "noise_fraction": _SHARE,
    "temperature_turns": _AT_LEAST_0,
    "value_mix": _SHARE,
    "max_turns": (int, lambda v: v >= 1, "an integer >= 1 or null (the game's limit)"),
    "replay_size": _AT_LEAST_1,
    "batch_size": _AT_LEAST_1,
    "sample_reuse": _POSITIVE,
    "learning_rate": _POSITIVE,
    "weight_decay": (float, lambda v: v >= 0, "a number >= 0"),
    "imitation_games": _AT_LEAST_0,
    "imitation_teacher": (str, lambda v: True, "an agent spec"),
    "imitation_random_actions": _AT_LEAST_0,
    "imitation_epochs": _AT_LEAST_0,
    "imitation_value_mix": _SHARE,
    "checkpoint_every": _AT_LEAST_1,
    "eval_every": _AT_LEAST_0,
    "eval_games": _AT_LEAST_1,
    "eval_time_limit": _POSITIVE,
    "seed": (int, lambda v: True, "an integer"),
    "torch_threads": _AT_LEAST_1,
    "progress_bar": (bool, lambda v: True, "true or false"),
}
"""What each field of :class:`AlphaZeroConfig` must be (``ladder``: a list of specs)."""

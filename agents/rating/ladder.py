"""The ladders: per game, fixed opponents with published ratings on one Elo scale.

A ladder is data (``agents/rating/ladders/<game>-<version>.json``): the game's rules, the
rungs (agent specs that play without a clock, at a fixed depth or number of simulations, so
that they play alike on any machine) with their ratings, and how those ratings were made:
one round robin of the rungs (:func:`calibration_tasks`), fitted by maximum likelihood on the
logistic Elo scale and anchored by giving ``random`` the rating :data:`ANCHOR_RATING`
(:func:`fit_ratings`). A change of code that alters a rung's play calls for a new version
(``tests/agents/rating/test_rating.py`` holds each rung's moves on a few positions).

Example:
    >>> ladder = load_ladder("othello")
    >>> ladder.name, ladder.rungs[0].spec, ladder.rungs[0].rating
    ('othello ladder v1', 'random', 1000.0)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agents.arena.plan import GameTask, RunConfig, round_robin
from agents.arena.stats import elo_ratings
from trap_env.game import played_params
from trap_env.games import game_names, get_game

__all__ = [
    "ANCHOR",
    "ANCHOR_RATING",
    "LADDER_VERSION",
    "Calibration",
    "Ladder",
    "Rung",
    "calibration_tasks",
    "fit_ratings",
    "ladder_games",
    "load_ladder",
]

LADDER_VERSION = "v1"
"""The ladders' version: cards of different versions are not compared."""

ANCHOR = "random"
ANCHOR_RATING = 1000.0
"""The scale's anchor: the uniformly random player is rated 1000 in every game."""

LADDERS = Path(__file__).resolve().parent / "ladders"


@dataclass(frozen=True)
class Rung:
    """One opponent of a ladder.

    Attributes:
        spec: the agent spec (no clock: ``time_limit=none`` with a fixed depth or budget).
        rating: its published rating.
    """

    spec: str
    rating: float


@dataclass(frozen=True)
class Calibration:
    """How a ladder's ratings were made: a round robin of its rungs.

    Attributes:
        games_per_pairing: games each pair of rungs played (openings from both seats).
        seed: the round robin's base seed.
        num_games: games behind the ratings.
        command: the command that plays it again.
        date: when it was played (ISO date).
    """

    games_per_pairing: int
    seed: int
    num_games: int = 0
    command: str = ""
    date: str = ""


@dataclass(frozen=True)
class Ladder:
    """A game's ladder.

    Attributes:
        game: the game's name in :mod:`trap_env.games`.
        version: :data:`LADDER_VERSION` for the ladders shipped now.
        params: every rule parameter of the game it is played by.
        opening_plies: random legal actions that open each game (drawn from its seed and
            played from both seats), so that deterministic rungs play different games.
        seed: the base seed of the games a policy plays against the ladder.
        rungs: the opponents, in the order of the calibration's round robin (whose
            seeds depend on it), which is not their order of strength.
        calibration: how the ratings were made.
    """

    game: str
    version: str
    params: dict[str, Any]
    opening_plies: int
    seed: int
    rungs: tuple[Rung, ...]
    calibration: Calibration = field(default_factory=lambda: Calibration(16, 1))

    @property
    def name(self) -> str:
        """``"othello ladder v1"``: how a rating names its scale."""
        return f"{self.game} ladder {self.version}"

    @property
    def specs(self) -> list[str]:
        """The rungs' specs, in their order."""
        return [rung.spec for rung in self.rungs]

    @property
    def identity(self) -> str:
        """The SHA-256 of the ladder's canonical content (game, version, rules, openings,
        seed, rungs with their ratings, as sorted-key JSON): what a card records, so that a
        rating on an edited ladder never passes for one on the shipped ladder, while moving
        or reformatting the file keeps it."""
        content = {
            "game": self.game,
            "version": self.version,
            "params": game_params(self.game, self.params),
            "opening_plies": self.opening_plies,
            "seed": self.seed,
            "rungs": [[rung.spec, rung.rating] for rung in self.rungs],
        }
        canonical = json.dumps(content, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def run_config(self, **options: Any) -> RunConfig:
        """The :class:`RunConfig` of games on this ladder: its rules and openings, no clock
        (``options``, such as ``workers`` or a ``time_budget`` cap, are passed on)."""
        options.setdefault("time_budget", None)
        return RunConfig(
            game_name=self.game, params=self.params, opening_plies=self.opening_plies, **options
        )

    def with_ratings(self, ratings: dict[str, float], calibration: Calibration) -> Ladder:
        """This ladder with the rungs rated by ``ratings``."""
        rungs = tuple(Rung(spec, round(ratings[spec], 1)) for spec in self.specs)
        return Ladder(self.game, self.version, self.params, self.opening_plies, self.seed,
                      rungs, calibration)

    def to_json(self) -> str:
        """The ladder as the JSON its file holds."""
        return json.dumps(asdict(self), indent=2) + "\n"


def ladder_games() -> list[str]:
    """The games that have a ladder of the current version."""
    return [game for game in game_names() if (LADDERS / f"{game}-{LADDER_VERSION}.json").exists()]


def load_ladder(game: str, path: str | Path | None = None) -> Ladder:
    """The ladder of ``game`` (:data:`LADDER_VERSION`), or the one in the file ``path``.

    Raises:
        ValueError: for a game without a ladder, or a file that is not a ladder of ``game``.
    """
    if path is None:
        if game not in ladder_games():
            raise ValueError(
                f"no {LADDER_VERSION} ladder for game {game!r}; ladders: "
                f"{', '.join(ladder_games())}"
            )
        path = LADDERS / f"{game}-{LADDER_VERSION}.json"
    try:
        data = json.loads(Path(path).read_text())
        ladder = Ladder(
            **{key: value for key, value in data.items() if key not in ("rungs", "calibration")},
            rungs=tuple(Rung(**rung) for rung in data["rungs"]),
            calibration=Calibration(**data["calibration"]),
        )
    except (OSError, TypeError, KeyError, AttributeError, ValueError) as error:
        raise ValueError(f"{path} is not a ladder file: {error}") from None
    if ladder.game != game:
        raise ValueError(f"{path} is the ladder of {ladder.game!r}, not {game!r}")
    return ladder


def calibration_tasks(ladder: Ladder) -> list[GameTask]:
    """The round robin that rates the rungs: every pair, openings from both seats."""
    calibration = ladder.calibration
    return round_robin(ladder.specs, calibration.games_per_pairing, calibration.seed,
                       paired_seeds=True)


def fit_ratings(records: Sequence[dict[str, Any]]) -> dict[str, float]:
    """The rungs' ratings from the round robin's games, with ``random`` at the anchor.

    Bradley-Terry by maximum likelihood (:func:`agents.arena.stats.elo_ratings`, a virtual
    draw per pairing keeping a rung that won every game finite).

    Raises:
        ValueError: if ``random`` played no game.
    """
    ratings = elo_ratings(records)
    if ANCHOR not in ratings:
        raise ValueError(f"the anchor {ANCHOR!r} played no game")
    shift = ANCHOR_RATING - ratings[ANCHOR]
    return {spec: rating + shift for spec, rating in ratings.items()}


def game_params(game: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every rule parameter of ``game`` played with ``params`` (its defaults fill the rest)."""
    return played_params(get_game(game), params)

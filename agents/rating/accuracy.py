"""Accuracy on a solved board: how often a policy plays an optimal action, and what its
choices cost, over the board's shipped solved positions; and the card that says so.

The positions (:mod:`agents.solved_positions`) come with every legal action's value under
perfect play, so no solver runs here. At each position the policy is asked for its action:
a spec is built afresh for it, and an agent object is reset, with the seed
``derive_seed("accuracy", seed, index)``, so that a run gives the same figures anywhere.
A decision is optimal when its action's value is within :data:`agents.solved.TIE_TOLERANCE`
of the best; its regret is the best value minus its action's (0 to 2: win 1, loss -1).

:func:`verify_accuracy_card` (``trap-rate --verify DIR``) scores the card's spec afresh on
the positions it names (by their SHA-256) and says which figures differ.

The card (kind ``"accuracy"``, ``card.schema.json``) gives the share of optimal decisions
with its 95% Wilson score interval, the mean regret with its 95% normal-approximation
interval (mean +- 1.96 standard errors, the low end at least 0), the same per decision
(Trap!'s move and throw), and the positions file's SHA-256.

Example:
    >>> card = accuracy("greedy", game="trap", params={"board_size": 3})  # doctest: +SKIP
    >>> card.optimal, card.regret  # doctest: +SKIP
    (0.665, 0.209029)
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from agents.arena.match import derive_seed
from agents.arena.stats import wilson_interval
from agents.folder_walk import read_regular_file
from agents.json_schema import parse_json
from agents.options import require_game
from agents.rating.card_format import BaseCard, Provenance, check_card, write_card
from agents.rating.estimate import LEVEL
from agents.rating.verify import NOT_COMPARED
from agents.registry import built_agent
from agents.solved import TIE_TOLERANCE
from agents.solved_positions import Positions, find_positions, shipped_positions
from agents.spec_files import spec_files
from trap_env.agent import Agent, check_supports, close_agent
from trap_env.games import get_game

__all__ = [
    "BENCHMARK",
    "METHOD",
    "AccuracyCard",
    "Score",
    "accuracy",
    "read_accuracy_card",
    "verify_accuracy_card",
    "write_card",
]

BENCHMARK = "trap_env solved positions"
METHOD = "Wilson score (optimal); normal approximation (regret)"
"""The intervals' methods, as the card names them."""
Z = 1.96
"""The normal quantile of :data:`~agents.rating.estimate.LEVEL` (95%)."""


@dataclass(frozen=True)
class Score:
    """A policy's decisions on a set of positions.

    Attributes:
        positions: decisions scored.
        optimal: the share of them that are optimal, and its interval's ``optimal_low``
            and ``optimal_high``.
        regret: the mean regret, and its interval's ``regret_low`` and ``regret_high``.
    """

    positions: int
    optimal: float
    optimal_low: float
    optimal_high: float
    regret: float
    regret_low: float
    regret_high: float

    @classmethod
    def of(cls, regrets: npt.NDArray[np.float64]) -> Score:
        """The score of decisions with these regrets."""
        count = len(regrets)
        hits = int((regrets <= TIE_TOLERANCE).sum())
        low, high = wilson_interval(hits, count, Z)
        mean = float(regrets.mean()) if count else 0.0
        spread = Z * float(regrets.std(ddof=1)) / math.sqrt(count) if count > 1 else 0.0
        return cls(
            count, _round(hits / count if count else 0.0), _round(low), _round(high),
            _round(mean), _round(max(mean - spread, 0.0)), _round(mean + spread),
        )  # fmt: skip

    def describe(self) -> str:
        """``"66.5% optimal [63.2, 69.7], mean regret 0.209 [0.174, 0.244]"``."""
        return (
            f"{100 * self.optimal:.1f}% optimal [{100 * self.optimal_low:.1f}, "
            f"{100 * self.optimal_high:.1f}], mean regret {self.regret:.3f} "
            f"[{self.regret_low:.3f}, {self.regret_high:.3f}]"
        )


def _round(value: float) -> float:
    return round(value, 6)


@dataclass(frozen=True)
class AccuracyCard(BaseCard):
    """An accuracy with everything needed to quote, check and reproduce it: a card of
    format :data:`~agents.rating.card_format.CARD_FORMAT`, kind ``"accuracy"``.

    Attributes:
        benchmark: :data:`BENCHMARK`.
        game, params: the game and every rule of the board.
        spec: the policy's spec (an agent object: its class's dotted name).
        files: the SHA-256 of each file the spec loads, by path.
        seed: the seed the positions' seeds derive from.
        positions: the positions scored.
        positions_sha256: the positions file's SHA-256 (its identity).
        optimal, optimal_low, optimal_high: the share of optimal decisions, its interval.
        regret, regret_low, regret_high: the mean regret, its interval.
        decisions: the same per decision (Trap!'s ``move``, ``throw``).
        line: the line to quote.
        interval: the intervals' ``level`` and ``method``.
        provenance: the package's version and commit, the date, the software and the
            machine (:class:`~agents.rating.card_format.Provenance`).
    """

    kind: ClassVar[str] = "accuracy"
    benchmark: str
    game: str
    params: dict[str, Any]
    spec: str
    files: dict[str, str]
    seed: int
    positions: int
    positions_sha256: str
    optimal: float
    optimal_low: float
    optimal_high: float
    regret: float
    regret_low: float
    regret_high: float
    decisions: dict[str, dict[str, Any]]
    line: str
    interval: dict[str, Any]
    provenance: Provenance


def accuracy(
    policy: str | Agent,
    *,
    game: str | None = None,
    params: Mapping[str, Any] | None = None,
    seed: int = 0,
    positions: Positions | None = None,
) -> AccuracyCard:
    """Score ``policy`` on the solved positions of ``game`` under ``params``.

    Args:
        policy: an agent spec (built afresh for each position) or an agent (reset for each).
        game: the game's name; required.
        params: the board's rules (the game's defaults fill the rest).
        seed: the seed each position's agent seed derives from.
        positions: the set to score on (default: the shipped one of the board).

    Raises:
        TypeError: without ``game``.
        ValueError: for a board without shipped positions (naming those with them), a spec
            that names no agent, a policy that cannot play the board, or one that raises or
            answers an illegal action (naming the position).
    """
    game = require_game(game, "accuracy()")
    if positions is None:
        positions = find_positions(game, params)
    elif positions.game != game:
        raise ValueError(f"the positions are of {positions.game}, not of {game}")
    spec = policy if isinstance(policy, str) else _dotted_name(policy)
    files = spec_files(policy, game) if isinstance(policy, str) else {}
    regrets = _regrets(policy, positions, seed)
    return _card(positions, spec, files, seed, regrets)


def _dotted_name(agent: object) -> str:
    kind = type(agent)
    return f"{kind.__module__}.{kind.__qualname__}"


def _regrets(
    policy: str | Agent, positions: Positions, seed: int
) -> npt.NDArray[np.float64]:
    """The regret of the policy's action at each position."""
    game = get_game(positions.game)
    config = game.make_config(**positions.rules)
    if not isinstance(policy, str):
        check_supports(policy, config)
    regrets = np.zeros(len(positions))
    for index, text in enumerate(positions.states):
        position_seed = derive_seed("accuracy", seed, index)
        state = game.from_text(str(text))
        action = _action(policy, game.name, config, position_seed, state, index)
        regrets[index] = _regret(positions, index, action)
    return regrets


def _action(
    policy: str | Agent, game: str, config: Any, seed: int, state: Any, index: int
) -> Any:
    """The policy's action at the position: a spec's agent built for it, an agent reset."""
    if not isinstance(policy, str):
        return _decide(policy, seed, state, index)
    agent = built_agent(policy, game=game, seed=seed)
    try:
        check_supports(agent, config)
        return _decide(agent, seed, state, index)
    finally:
        close_agent(agent)


def _decide(agent: Agent, seed: int, state: Any, index: int) -> Any:
    """The agent's action at the position, reset with its seed first.

    Raises:
        ValueError: for an agent that raises, naming the position.
    """
    try:
        agent.reset(seed)
        return agent.select_action(state)
    except Exception as error:  # the policy's own fault: one line naming the position
        raise ValueError(
            f"the policy raised {type(error).__name__} at position {index}: {error}"
        ) from None


def _regret(positions: Positions, index: int, action: Any) -> float:
    """The best value minus the action's at the position.

    Raises:
        ValueError: for an action that is not legal there.
    """
    legal = positions.legal[index]
    if isinstance(action, bool) or not isinstance(action, int | np.integer) or not (
        0 <= action < len(legal) and legal[action]
    ):
        allowed = np.flatnonzero(legal).tolist()
        raise ValueError(
            f"the policy answered {action!r:.40} at position {index} "
            f"({positions.states[index]}), not a legal action ({allowed})"
        )
    values = positions.values[index]
    return float(np.nanmax(values) - values[int(action)])


def _card(
    positions: Positions, spec: str, files: dict[str, str], seed: int,
    regrets: npt.NDArray[np.float64],
) -> AccuracyCard:
    """The card of the regrets on ``positions``."""
    game = get_game(positions.game)
    score = Score.of(regrets)
    decisions = {
        name: asdict(Score.of(regrets[positions.decisions == number]))
        for number, name in enumerate(game.decision_names)
        if (positions.decisions == number).any()
    }
    kind = "solved positions" if positions.endgame is None else "solved endgame positions"
    setting = f"{positions.game} {_board(positions.rules)}{kind}"
    return AccuracyCard(
        benchmark=BENCHMARK, game=positions.game, params=dict(positions.rules), spec=spec,
        files=files, seed=seed, positions_sha256=positions.sha256, **asdict(score),
        decisions=decisions, line=f"{setting}: {score.describe()} ({len(positions)} positions)",
        interval={"level": LEVEL, "method": METHOD},
        provenance=Provenance.now([spec], positions.game),
    )  # fmt: skip


def _board(rules: Mapping[str, Any]) -> str:
    size = rules.get("board_size")
    return f"{size}x{size} " if isinstance(size, int) else ""


MAX_CARD_BYTES = 1 << 20


def read_accuracy_card(path: Path) -> dict[str, Any]:
    """The accuracy card at ``path``, checked against the schema.

    Raises:
        ValueError: for a file that is not a regular file of at most 1 MiB, not JSON, not
            a card of the format written now, or a card of another kind, saying which.
    """
    try:
        card = parse_json(read_regular_file(path, MAX_CARD_BYTES))
    except ValueError as error:
        raise ValueError(f"{path} is not a card: {error}") from None
    check_card(card)
    if card["kind"] != "accuracy":
        raise ValueError(f"{path} is a {card['kind']} card, not an accuracy")
    return card  # type: ignore[no-any-return]


def is_accuracy_card(path: Path) -> bool:
    """Whether ``path`` reads as a card of kind ``"accuracy"`` (whatever else is wrong)."""
    try:
        card = parse_json(read_regular_file(path, MAX_CARD_BYTES))
    except ValueError:
        return False
    return isinstance(card, dict) and card.get("kind") == "accuracy"


def verify_accuracy_card(path: Path) -> list[str]:
    """What of the accuracy card at ``path`` its spec, seed and positions do not give: one
    line per figure that differs (the run's own fields not compared); empty if none.

    Raises:
        ValueError: for a file that is not an accuracy card, or positions that are not
            shipped (no shipped file has the card's ``positions_sha256``).
    """
    card = read_accuracy_card(path)
    positions = next((found for found in shipped_positions(card["game"])
                      if found.sha256 == card["positions_sha256"]), None)  # fmt: skip
    if positions is None:
        raise ValueError(
            f"{path} was made on positions that are not shipped (positions_sha256 "
            f"{card['positions_sha256'][:12]}...)"
        )
    remade = json.loads(accuracy(
        card["spec"], game=card["game"], params=card["params"], seed=card["seed"],
        positions=positions,
    ).to_json())  # fmt: skip
    return [
        f"{key}: the card says {json.dumps(card[key])[:100]}, its positions give "
        f"{json.dumps(value)[:100]}"
        for key, value in remade.items()
        if key in card and key not in NOT_COMPARED and card[key] != value
    ]

"""The card format: its schema, the check of every card written, what every kind of card
shares (:class:`BaseCard`: its JSON and its writing), and what a card records of the run's
software and machine (:class:`Provenance`).

A card is versioned by its ``format`` (:data:`CARD_FORMAT`), the version of
``card.schema.json`` (shipped beside this module); within a format fields are only added
(docs/versioning.md). A card without ``format`` is of format 1, a rating card written
before the format was named; :func:`card_format` says which a card is.

Example:
    >>> sorted(environment())[:3]  # doctest: +SKIP
    ['gymnasium', 'numpy', 'python']
"""

from __future__ import annotations

import datetime
import functools
import importlib.metadata
import json
import platform
import random
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar

import trap_env
from agents.files import write_text_atomically
from agents.json_schema import check_json
from trap_env.agent import close_agent
from trap_env.games import get_game

__all__ = [
    "CARD_FORMAT",
    "CARD_KINDS",
    "LIBRARIES",
    "SPEED_UNIT",
    "BaseCard",
    "Provenance",
    "card_format",
    "card_schema",
    "check_card",
    "code_commit",
    "environment",
    "machine",
    "write_card",
]

CARD_FORMAT = 2
"""The format of the cards written now (``card.schema.json``'s)."""
CARD_KINDS = ("rating", "comparison", "accuracy")
SCHEMA = Path(__file__).resolve().parent / "card.schema.json"

LIBRARIES = {
    "torch": "torch",
    "stable_baselines3": "stable_baselines3",
    "sb3_contrib": "sb3_contrib",
    "open_spiel": "pyspiel",
    "numba": "numba",
}
"""A library a policy may load -> the module whose presence in ``sys.modules`` says it did."""

_DISTRIBUTIONS = {"open_spiel": "open_spiel", "sb3_contrib": "sb3-contrib",
                  "stable_baselines3": "stable-baselines3"}  # fmt: skip
"""A library's distribution name, where it is not its key."""

SPEED_PLAYOUTS = 40
"""Random Trap! games (7x7, the default rules, fixed seeds) timed for the speed figure."""
SPEED_UNIT = "Trap! 7x7 random playouts per CPU second"


def card_schema() -> dict[str, Any]:
    """The JSON Schema of a card of format :data:`CARD_FORMAT` (draft 2020-12)."""
    schema: dict[str, Any] = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return schema


_schema = functools.cache(card_schema)


def card_format(card: dict[str, Any]) -> int:
    """A card's format: its ``format``, 1 for a card without one (written before formats)."""
    value = card.get("format", 1)
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def check_card(card: Any) -> None:
    """Refuse a card of format :data:`CARD_FORMAT` that breaks ``card.schema.json``.

    Raises:
        ValueError: naming the field, what it must be and what it is; for a card of
            another format, saying which formats are read.
    """
    if isinstance(card, dict) and "format" in card and card_format(card) != CARD_FORMAT:
        raise ValueError(
            f"the card's format is {json.dumps(card['format'])[:40]}; this trap_env reads "
            f"formats 1 and {CARD_FORMAT} (a newer trap_env writes newer ones)"
        )
    check_json(card, _schema(), "the card")


@dataclass(frozen=True)
class Provenance:
    """What made a card rather than its games: a card made again from the same games
    differs only here (:data:`~agents.rating.verify.NOT_COMPARED`).

    Attributes:
        version: the package's version.
        commit: the git commit of the code, when run from a checkout (:func:`code_commit`).
        date: the day the card was made (ISO).
        environment: the versions of Python, NumPy, Gymnasium and each library the
            policies loaded (:func:`environment`).
        machine: the CPU model and a fixed speed figure (:func:`machine`).
    """

    version: str
    commit: str | None
    date: str
    environment: dict[str, str]
    machine: dict[str, Any]

    @classmethod
    def now(cls, specs: Sequence[str], game: str) -> Provenance:
        """This run's, the agents of ``specs`` (of ``game``) loaded first
        (:func:`environment`)."""
        return cls(
            trap_env.__version__, code_commit(), datetime.date.today().isoformat(),
            environment(specs, game), machine(),
        )  # fmt: skip


@dataclass(frozen=True)
class BaseCard:
    """What every kind of card (:data:`CARD_KINDS`) shares: its format and kind, and its JSON.

    A kind is a frozen dataclass of this with its ``kind`` and its fields, in the order
    its JSON writes them; its :class:`Provenance` field is written flat, in its place.
    """

    format: ClassVar[int] = CARD_FORMAT
    kind: ClassVar[str]

    def to_json(self) -> str:
        """The card as JSON: ``format``, ``kind``, then its fields in order."""
        card: dict[str, Any] = {"format": self.format, "kind": self.kind}
        for key, value in asdict(self).items():
            card.update(value if isinstance(getattr(self, key), Provenance) else {key: value})
        return json.dumps(card, indent=2) + "\n"


def write_card(card: BaseCard, path: Path) -> None:
    """Check ``card`` against the schema and write it to ``path`` atomically.

    Raises:
        ValueError: for a card that breaks its schema (a bug here).
    """
    check_card(json.loads(card.to_json()))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(path, card.to_json())


def environment(specs: Sequence[str] = (), game: str | None = None) -> dict[str, str]:
    """The versions of Python, NumPy, Gymnasium, and of each of :data:`LIBRARIES` that the
    policy loads: the agents of ``specs`` (of ``game``) are built here once first, as the
    workers that played the games built them in their own processes, so that what they
    import is imported here too."""
    for spec in specs:
        _build(spec, game)
    found = {"python": platform.python_version(), "numpy": _version("numpy"),
             "gymnasium": _version("gymnasium")}  # fmt: skip
    for name, module in LIBRARIES.items():
        if module in sys.modules:
            found[name] = _version(_DISTRIBUTIONS.get(name, name))
    return found


def _build(spec: str, game: str | None) -> None:
    """Build and close the agent of ``spec`` (what it imports stays imported); a program
    (``exec:``) imports nothing of ours and is not started, and a spec that cannot be built
    here adds nothing."""
    from agents.options import EXEC, parse_spec
    from agents.registry import make_agent  # the table imports every agent: only when asked

    try:
        if parse_spec(spec)[0] != EXEC:
            close_agent(make_agent(spec, game=game, seed=0))
    except (ValueError, TypeError, OSError):  # SpecError is a ValueError
        return


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:  # imported from a path, not installed
        return "unknown"


def code_commit() -> str | None:
    """The git commit of the package's checkout, if it is one (None for an installed wheel)."""
    root = Path(trap_env.__file__).resolve().parent.parent
    if not (root / ".git").exists():  # an installed package (perhaps inside someone's repo)
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
            timeout=10, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and len(commit) == 40 else None


def machine() -> dict[str, Any]:
    """The machine: its CPU model and its speed (:func:`speed`, in :data:`SPEED_UNIT`)."""
    return {"cpu": cpu_model(), "speed": speed(), "speed_unit": SPEED_UNIT}


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``'s on Linux, else what ``platform`` says)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as file:
            for line in file:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Hardware", "Processor") and value.strip():
                    return value.strip()[:200]
    except OSError:
        pass
    return (platform.processor() or platform.machine() or "unknown")[:200]


@functools.lru_cache(maxsize=1)  # one figure per process
def speed() -> float:
    """Random Trap! playouts per CPU second through the pure-Python core: the same
    :data:`SPEED_PLAYOUTS` games on any machine (about a fifth of a second), measured once a
    process."""
    game = get_game("trap")
    config = game.make_config()
    limit = game.default_turn_limit(config)
    rng = random.Random(0)
    start = time.process_time()
    for _ in range(SPEED_PLAYOUTS):
        state = game.initial_state(config)
        while game.outcome(state, limit) is None:
            if game.is_chance(state):
                state = game.apply(state, game.sample_chance(state, rng))
            else:
                state = game.apply(state, rng.choice(game.legal_actions(state)))
    seconds = max(time.process_time() - start, 1e-6)
    return round(SPEED_PLAYOUTS / seconds, 1)

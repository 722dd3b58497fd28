"""Solved positions: decisions drawn from games of a solved board, each legal action valued.

A positions file is an ``.npz`` that a game ships in ``agents/<game>/positions/`` (one per
rules; :func:`find_positions` finds it by its content). Its arrays, one row per position:

================  ==========================================================================
array             what it holds
================  ==========================================================================
``states``        the position in the game's notation (``game.to_text``; ``from_text`` reads it)
``decisions``     the decision, an index into ``game.decision_names`` (Trap!: 0 move, 1 throw)
``observations``  the planes ``game.observe`` gives the player to act, ``int8`` of shape
                  ``(positions, *game.observation_shape)``: what a value network is fed
``legal``         the legal actions, ``bool`` of shape ``(positions, game.num_actions)``
``values``        each legal action's value for the player to act under perfect play
                  without a turn limit (win 1, loss -1, draw 0; chance averaged), ``float64``,
                  NaN where the action is illegal
``best``          the optimal action, the lowest of those tied (:func:`agents.solved.best_action`)
``meta``          JSON text: ``format``, ``game``, ``rules`` and ``drawn``, how the set was
                  drawn (rungs, games, seeds, counts, the command that rebuilds it)
================  ==========================================================================

How a set is drawn (:func:`draw_positions`): every ordered pair of ``rungs`` (agents that
play without a clock; a rung against itself too; by default the game's
:func:`default_rungs`) plays ``games_per_pairing`` games from
:func:`~agents.arena.match.play_game`, each opened by ``opening_plies`` random legal actions,
the ``k``-th game of ``(a, b)`` with the seed ``derive_seed("positions", seed, a, b, k)``.
Every decision of those games (both of a Trap! turn: the move and the throw) is a candidate;
candidates that a network sees alike (the same decision and observation) count once, the
first met; those where every legal action is worth the same (a forced or indifferent choice,
which says nothing of a policy) are dropped. Of the rest, at most ``per_decision`` of each
decision are drawn with ``random.Random(derive_seed("positions", seed, "sample", name))``
and kept in the order met. The values come from the game's ``perfect`` agent (its
``action_values(state)``, from the solved table): a board plugs in by having one.

A board that no ``perfect`` agent plays whole but whose endgames a game's exact solver
reaches (Othello 6x6) draws an **endgame set** instead: the game's endgame solver
(:func:`endgame_solver`) values the candidates it reaches (Othello: at most 12 empty cells)
and the rest are no candidates; ``drawn`` then has ``endgame``: what the set covers and how
many candidates the solver reached. Either way the file is the one set of its rules, found
by its content.

A game's own facts are declared in its agents package, in ``agents.<game>.solve`` beside its
solver (:data:`agents.solved.HOOK_MODULE`), so that this module names no game and a new game
adds its own there: ``POSITION_RUNGS``, the rungs its sets are drawn from (else
:data:`COMMON_RUNGS`), and ``ENDGAME``, its :data:`Endgame` (Othello's
:func:`agents.othello.solve.endgame_values`).

The file is written byte for byte the same from the same arguments (its zip entries carry
a fixed date), so ``trap-solve --positions`` rebuilds a shipped file exactly.

Example:
    >>> positions = find_positions("trap", {"board_size": 3})  # doctest: +SKIP
    >>> positions.values[0], positions.best[0]  # doctest: +SKIP
"""

from __future__ import annotations

import io
import json
import math
import random
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from agents.arena.match import FAULTS, derive_seed, play_game
from agents.files import game_files, replace_atomically
from agents.registry import game_declaration, make_agent
from agents.solved import HOOK_MODULE, TIE_TOLERANCE, best_action
from agents.spec_files import file_sha256
from agents.zips import read_npz
from trap_env.agent import UnsupportedGameError, check_supports, close_agent
from trap_env.game import Game, played_params
from trap_env.games import get_game

__all__ = [
    "COMMON_RUNGS",
    "FORMAT",
    "KIND",
    "MAX_BYTES",
    "Positions",
    "board_values",
    "default_rungs",
    "draw_positions",
    "endgame_solver",
    "find_positions",
    "read_positions",
    "shipped_positions",
]

FORMAT = 1
"""The version of the file's layout."""
KIND = "positions"
"""The folder of ``agents/<game>/`` that holds a game's positions files."""
MAX_BYTES = 64 * 2**20
"""The most bytes read from a positions file (the shipped ones are tens of KB)."""
COMMON_RUNGS = (
    "random",
    "epsilon-greedy:epsilon=0.5",
    "greedy",
    "reference:depth=2,time_limit=none",
)
"""Rungs every game's ladder has, without a clock: a game that declares no
``POSITION_RUNGS`` draws its positions from their games."""
DEFAULT_GAMES_PER_PAIRING = 16
DEFAULT_OPENING_PLIES = 2
DEFAULT_PER_DECISION = 400
ARRAYS = ("states", "decisions", "observations", "legal", "values", "best", "meta")

ActionValues = Callable[[Any], Mapping[int, float] | None]
"""A solved board's values: state -> each legal action's value for the player to act, or
None for a position out of the solver's reach (an endgame set's earlier positions)."""
Endgame = Callable[[Mapping[str, Any]], tuple[ActionValues, str]]
"""Rules -> the exact values of the board's endgame positions and what they cover."""


@dataclass(frozen=True)
class Positions:
    """A set of solved positions (the arrays of the module's table, by row).

    Attributes:
        game: the game's name.
        rules: every rule parameter of the board.
        states, decisions, observations, legal, values, best: the arrays.
        drawn: how the set was drawn (:func:`draw_positions`' arguments and counts).
        sha256: the file's SHA-256 when read from one ("" for a set not yet saved).
    """

    game: str
    rules: dict[str, Any]
    states: npt.NDArray[np.str_]
    decisions: npt.NDArray[np.int8]
    observations: npt.NDArray[np.int8]
    legal: npt.NDArray[np.bool_]
    values: npt.NDArray[np.float64]
    best: npt.NDArray[np.int64]
    drawn: dict[str, Any] = field(default_factory=dict)
    sha256: str = ""

    def __len__(self) -> int:
        return len(self.states)

    def to_bytes(self) -> bytes:
        """The ``.npz`` file's bytes: the same for the same set (entries dated 1980-01-01)."""
        meta = {"format": FORMAT, "game": self.game, "rules": self.rules, "drawn": self.drawn}
        arrays = {name: getattr(self, name) for name in ARRAYS[:-1]}
        arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for name, array in arrays.items():
                member = io.BytesIO()
                np.lib.format.write_array(member, np.asarray(array), allow_pickle=False)
                entry = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
                entry.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(entry, member.getvalue(), compresslevel=9)
        return buffer.getvalue()

    def save(self, path: Path) -> None:
        """Write the set to ``path`` atomically, its folder made if missing (a game's first
        set goes into a new ``positions/`` folder)."""
        data = self.to_bytes()
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_atomically(path, lambda temporary: temporary.write_bytes(data))

    @property
    def endgame(self) -> str | None:
        """What an endgame set covers (``"positions with at most 12 empty cells"``); None
        for a set drawn from the whole game."""
        endgame = self.drawn.get("endgame")
        return str(endgame["covers"]) if isinstance(endgame, dict) else None

    def describe(self) -> str:
        """``"trap 3x3 (board_size=3, decay=50): 800 positions"`` (an endgame set: ``"...:
        400 endgame positions (positions with at most 12 empty cells)"``)."""
        what = f"{len(self)} positions" if self.endgame is None else (
            f"{len(self)} endgame positions ({self.endgame})"
        )  # fmt: skip
        return f"{self.game} {_rules_text(self.rules)}: {what}"


def _rules_text(rules: Mapping[str, Any]) -> str:
    size = rules.get("board_size")
    listed = ", ".join(f"{name}={value}" for name, value in rules.items())
    return f"{size}x{size} ({listed})" if isinstance(size, int) else f"({listed})"


# --- Reading ---------------------------------------------------------------------------


def read_positions(path: Path) -> Positions:
    """The positions file at ``path``, read bounded (:func:`agents.zips.read_npz`) and checked.

    Raises:
        ValueError: one line naming the file and what is wrong with it.
    """
    try:
        arrays = read_npz(path, MAX_BYTES, ARRAYS)
        positions = _positions(arrays, file_sha256(path))
    except OSError as error:
        raise ValueError(f"{path}: cannot be read: {error.strerror}") from None
    except ValueError as error:  # UnreadableZipError too
        raise ValueError(f"{path} is not a positions file: {error}") from None
    return positions


def _positions(arrays: dict[str, np.ndarray], sha256: str) -> Positions:
    """The set the arrays hold, each checked against the game's shapes.

    Raises:
        ValueError: naming the first array or field that is missing or wrong.
    """
    missing = [name for name in ARRAYS if name not in arrays]
    if missing:
        raise ValueError(f"it has no array {missing[0]!r}; it needs {', '.join(ARRAYS)}")
    meta = _meta(arrays["meta"])
    game = get_game(meta["game"])
    config = game.make_config(**meta["rules"])
    count = len(arrays["states"])
    shapes = {
        "states": ((count,), "U"),
        "decisions": ((count,), "i"),
        "observations": ((count, *game.observation_shape(config)), "i"),
        "legal": ((count, game.num_actions(config)), "b"),
        "values": ((count, game.num_actions(config)), "f"),
        "best": ((count,), "i"),
    }
    for name, (shape, kind) in shapes.items():
        array = arrays[name]
        if array.shape != shape or array.dtype.kind != kind:
            raise ValueError(
                f"its {name!r} is {array.dtype} of shape {array.shape}, not of kind {kind!r} "
                f"and shape {shape}"
            )
    _check_rows(game, arrays)
    return Positions(
        meta["game"], game.config_params(config), arrays["states"],
        arrays["decisions"].astype(np.int8), arrays["observations"].astype(np.int8),
        arrays["legal"], arrays["values"].astype(np.float64), arrays["best"].astype(np.int64),
        meta["drawn"], sha256,
    )  # fmt: skip


def _check_rows(game: Game[Any, Any], arrays: dict[str, np.ndarray]) -> None:
    """Refuse rows whose arrays disagree: a value where no legal action is (or none where
    one is), a best action that is not legal, a decision the game does not have.

    Raises:
        ValueError: naming the first such row.
    """
    legal, values, best = arrays["legal"], arrays["values"], arrays["best"]
    rows = np.arange(len(best))
    bad = (legal != ~np.isnan(values)).any(axis=1) | ~legal.any(axis=1)
    bad |= (best < 0) | (best >= legal.shape[1])
    bad[~bad] = ~legal[rows[~bad], best[~bad]]
    bad |= (arrays["decisions"] < 0) | (arrays["decisions"] >= len(game.decision_names))
    if bad.any():
        raise ValueError(
            f"its row {int(np.flatnonzero(bad)[0])} has values where no action is legal (or "
            "none where one is), a best action that is not legal, or an unknown decision"
        )


def _meta(array: np.ndarray) -> dict[str, Any]:
    """The ``meta`` array's JSON: format, game, rules, drawn."""
    try:
        meta = json.loads(str(array[()])) if array.shape == () else None
    except (ValueError, TypeError):
        meta = None
    if not isinstance(meta, dict) or not {"format", "game", "rules", "drawn"} <= set(meta):
        raise ValueError("its 'meta' is not JSON text with format, game, rules and drawn")
    if meta["format"] != FORMAT:
        raise ValueError(f"its format is {meta['format']!r:.20}; this trap_env reads {FORMAT}")
    if not isinstance(meta["game"], str) or not isinstance(meta["rules"], dict):
        raise ValueError("its 'meta' names no game and rules")
    return meta


def shipped_positions(game: str) -> list[Positions]:
    """The positions files ``game`` ships (``agents/<game>/positions/*.npz``), by file name.

    Raises:
        ValueError: for a shipped file that is not a positions file of ``game``.
    """
    found = []
    for path in game_files(game, KIND):
        if path.suffix == ".npz":
            positions = read_positions(path)
            if positions.game != game:
                raise ValueError(f"{path} holds positions of {positions.game}, not of {game}")
            found.append(positions)
    return found


def find_positions(game: str, params: Mapping[str, Any] | None = None) -> Positions:
    """The shipped positions of ``game`` under the rules ``params`` (defaults fill the rest).

    Raises:
        ValueError: for rules that are not the game's, or rules without shipped positions,
            in one line naming the boards that have them.
    """
    found = get_game(game)
    wanted = played_params(found, params)
    shipped = shipped_positions(game)
    for positions in shipped:
        if positions.rules == wanted:
            return positions
    have = "; ".join(_rules_text(positions.rules) for positions in shipped) or "none"
    raise ValueError(
        f"no solved positions of {found.title} {_rules_text(wanted)}; shipped: {have}"
    )


# --- Drawing ---------------------------------------------------------------------------


def default_rungs(game: str) -> tuple[str, ...]:
    """The rungs ``game``'s positions are drawn from by default: the ``POSITION_RUNGS`` its
    agents package declares (:data:`agents.solved.HOOK_MODULE`: the ladder's rungs that play
    a small board without a clock), else :data:`COMMON_RUNGS`."""
    rungs = game_declaration(game, HOOK_MODULE, "POSITION_RUNGS")
    return tuple(rungs) if isinstance(rungs, tuple) else COMMON_RUNGS


def endgame_solver(game: str) -> Endgame | None:
    """The :data:`Endgame` that values the endgames of ``game``'s boards its ``perfect``
    agent does not play: the ``ENDGAME`` its agents package declares
    (:data:`agents.solved.HOOK_MODULE`), or None."""
    endgame = game_declaration(game, HOOK_MODULE, "ENDGAME")
    return cast(Endgame, endgame) if callable(endgame) else None


def draw_positions(
    game: str,
    params: Mapping[str, Any] | None = None,
    *,
    rungs: Sequence[str] | None = None,
    games_per_pairing: int = DEFAULT_GAMES_PER_PAIRING,
    opening_plies: int = DEFAULT_OPENING_PLIES,
    per_decision: int = DEFAULT_PER_DECISION,
    seed: int = 0,
    action_values: ActionValues | None = None,
    command: str = "",
) -> Positions:
    """Draw a set of solved positions from games of ``rungs`` (see the module's docstring).

    Args:
        game: the game's name.
        params: the board's rules (the game's defaults fill the rest).
        rungs: the agents whose games are drawn from (specs, without a clock; default
            :func:`default_rungs`).
        games_per_pairing: games of each ordered pair of rungs.
        opening_plies: random legal actions opening each game.
        per_decision: the most positions kept of each decision (Trap!'s move, throw).
        seed: the seed the games' seeds and the draw derive from.
        action_values: the solved values (default: the game's ``perfect`` agent's where it
            plays the board, else the game's endgame solver's, :func:`board_values`).
        command: the command that rebuilds the set, recorded in ``drawn``.

    Raises:
        ValueError: for rules or rungs the game refuses, a board with no solution, or a
            rung that loses a game by a fault.
    """
    found = get_game(game)
    config = found.make_config(**dict(params or {}))
    rules = found.config_params(config)
    values_of, endgame = (action_values, None) if action_values else board_values(game, rules)
    rungs = default_rungs(game) if rungs is None else rungs
    candidates = _candidates(
        found, rules, rungs, games_per_pairing, opening_plies, seed
    )
    reached = [(state, dict(values)) for state in candidates
               if (values := values_of(state)) is not None]  # fmt: skip
    valued = [(state, values) for state, values in reached if not _is_indifferent(values)]
    kept = _sample(found, valued, per_decision, seed)
    drawn: dict[str, Any] = {
        "rungs": list(rungs), "games_per_pairing": games_per_pairing,
        "opening_plies": opening_plies, "per_decision": per_decision, "seed": seed,
        "candidates": len(candidates), "decisive": len(valued), "command": command,
    }  # fmt: skip
    if endgame is not None:
        drawn["endgame"] = {"covers": endgame, "reached": len(reached)}
    return _arrays(found, config, rules, kept, drawn)


def board_values(game: str, rules: Mapping[str, Any]) -> tuple[ActionValues, str | None]:
    """The values a board's positions are drawn with: its ``perfect`` agent's where that
    plays the board (and None), else its endgame solver's (:func:`endgame_solver`) and what
    they cover.

    Raises:
        ValueError: for a board neither plays, naming what the perfect agent said.
    """
    agent = make_agent("perfect", game=game)
    try:
        check_supports(agent, get_game(game).make_config(**rules))
    except UnsupportedGameError as refusal:
        close_agent(agent)
        endgame = endgame_solver(game)
        if endgame is None:
            raise ValueError(f"{refusal}; and {game} has no endgame solver") from None
        return endgame(rules)
    values = getattr(agent, "action_values", None)
    if not callable(values):
        raise ValueError(f"the {game} perfect agent gives no action_values(state)")
    return values, None


def _candidates(
    game: Game[Any, Any], rules: dict[str, Any], rungs: Sequence[str],
    games_per_pairing: int, opening_plies: int, seed: int,
) -> list[Any]:
    """Every decision of the rungs' games, those that a network sees alike once (the first)."""
    seen: dict[tuple[int, bytes], Any] = {}
    for first in rungs:
        for second in rungs:
            for number in range(games_per_pairing):
                game_seed = derive_seed("positions", seed, first, second, number)
                for state in _decisions(game, rules, (first, second), game_seed, opening_plies):
                    key = (_decision(game, state), _observation(game, state).tobytes())
                    seen.setdefault(key, state)
    return list(seen.values())


def _decisions(
    game: Game[Any, Any], rules: dict[str, Any], specs: tuple[str, str], seed: int,
    opening_plies: int,
) -> list[Any]:
    """The decision states of one game of ``specs`` (after its opening), in order.

    Raises:
        ValueError: if a rung lost the game by a fault (it cannot play the board).
    """
    agents = [make_agent(spec, game=game.name) for spec in specs]
    try:
        result = play_game(
            agents, seed=seed, game=game.name, params=rules, time_budget=None,
            opening_plies=opening_plies,
        )
    finally:
        for agent in agents:
            close_agent(agent)
    if result.reason in FAULTS:
        raise ValueError(
            f"{specs[result.winner ^ 1]!r} lost a game by {result.reason} ({result.detail}); "
            "give rungs that play this board without a clock"
        )
    state, states = game.initial_state(game.make_config(**rules)), []
    for index, action in enumerate(result.actions):
        if index >= opening_plies and not game.is_chance(state):
            states.append(state)
        state = game.apply(state, action)
    return states


def _decision(game: Game[Any, Any], state: Any) -> int:
    return game.decision_names.index(game.decision_name(state))


def _observation(game: Game[Any, Any], state: Any) -> np.ndarray:
    return np.asarray(game.observe(state, game.current_player(state)), dtype=np.int8)


def _is_indifferent(values: Mapping[int, float]) -> bool:
    """Whether every legal action is worth the same (a forced or indifferent choice)."""
    return max(values.values()) - min(values.values()) <= TIE_TOLERANCE


def _sample(
    game: Game[Any, Any], valued: list[tuple[Any, dict[int, float]]], per_decision: int,
    seed: int,
) -> list[tuple[Any, dict[int, float]]]:
    """At most ``per_decision`` of each decision, drawn from ``seed``, kept in order."""
    chosen: set[int] = set()
    for name in game.decision_names:
        rows = [row for row, (state, _) in enumerate(valued) if game.decision_name(state) == name]
        rng = random.Random(derive_seed("positions", seed, "sample", name))
        chosen.update(rng.sample(rows, min(per_decision, len(rows))))
    return [valued[row] for row in sorted(chosen)]


def _arrays(
    game: Game[Any, Any], config: Any, rules: dict[str, Any],
    kept: list[tuple[Any, dict[int, float]]], drawn: dict[str, Any],
) -> Positions:
    """The :class:`Positions` of the kept states and their values."""
    actions = game.num_actions(config)
    values = np.full((len(kept), actions), math.nan)
    for row, (_, by_action) in enumerate(kept):
        values[row, list(by_action)] = list(by_action.values())
    states = [state for state, _ in kept]
    return Positions(
        game=game.name,
        rules=rules,
        states=np.array([game.to_text(state) for state in states], dtype=np.str_),
        decisions=np.array([_decision(game, state) for state in states], dtype=np.int8),
        observations=np.array(
            [_observation(game, state) for state in states], dtype=np.int8
        ).reshape(len(kept), *game.observation_shape(config)),
        legal=~np.isnan(values),
        values=values,
        best=np.array([best_action(by_action) for _, by_action in kept], dtype=np.int64),
        drawn=drawn,
    )

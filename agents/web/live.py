"""Games played live on the page: a person against an agent, or two agents watched.

A :class:`LiveGame` is :func:`agents.arena.match.play_game` in a thread of its own, its
agents in worker processes (:class:`~agents.web.seats.WorkerSeat`), its frames
(:mod:`agents.web.views`) appended as the actions come. The server's event loop only reads
the frames and hands over the person's choices. :class:`LiveGames` holds the games by an
unguessable id, so that one browser's games are not another's.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Sequence
from typing import Any

from agents.arena.match import derive_seed, play_game
from agents.arena.plan import GameTask, RunConfig
from agents.arena.worker import make_record
from agents.web.seats import PersonSeat, WorkerSeat
from agents.web.views import Frame, FrameBuilder, decision_odds, record_outcome
from trap_env.agent import Agent

__all__ = ["IDLE_SECONDS", "MAX_LIVE_GAMES", "LiveGame", "LiveGames", "build_seats"]

MAX_LIVE_GAMES = 8
"""Games that may be live at once (each holds up to two worker processes)."""
IDLE_SECONDS = 30.0
"""A game that no page has looked at for this long may be closed to make room (a page
following a game asks for it many times a second)."""


class LiveGame:
    """One game in a thread; its frames grow as it is played.

    Args:
        seats: the two agents by seat (a :class:`PersonSeat` for the person).
        labels: what the page calls each seat (the specs, ``"you"``).
        config: the game, its rules and limits.
        seed: the game's seed.
    """

    def __init__(
        self, seats: Sequence[Agent], labels: Sequence[str], config: RunConfig, seed: int
    ) -> None:
        self.seats, self.labels, self.config, self.seed = list(seats), list(labels), config, seed
        self.id = secrets.token_urlsafe(16)
        self.lock = threading.Lock()
        self.builder = FrameBuilder(config.game_name, config.rule_params, config.turn_limit)
        self.waiting: dict[str, Any] | None = None  # the person's decision asked for
        self.record: dict[str, Any] | None = None
        self.seen = time.monotonic()
        self._actions: list[int] = []
        for seat in self.seats:
            if isinstance(seat, PersonSeat):
                seat.on_ask = self._on_ask
        self.thread = threading.Thread(target=self._run, name=f"game {self.id}", daemon=True)
        self.thread.start()

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (its record is there)."""
        return self.record is not None

    def person_seat(self) -> int | None:
        """The person's seat, or None in a watched game."""
        found = [i for i, seat in enumerate(self.seats) if isinstance(seat, PersonSeat)]
        return found[0] if found else None

    def choose(self, action: int | str) -> None:
        """The person's choice at the decision asked for: an action, or its text in the
        game's form (``game.action_from_text``; Trap!: ``"row,col"``).

        Raises:
            ValueError: when no decision is asked for, for text not in the game's form, or
                naming the legal choices.
        """
        with self.lock:
            waiting = self.waiting
            if waiting is None or self.is_over:
                raise ValueError("it is not your turn")
            rules, state = self.builder.rules, waiting["state"]
            if isinstance(action, str):
                action = rules.action_from_text(state, action)
            if action not in waiting["legal"]:
                legal = " ".join(rules.action_to_text(state, a) for a in waiting["legal"])
                raise ValueError(f"not a legal {waiting['decision']}: the legal ones: {legal}")
            self.waiting = None
        seat = self.seats[waiting["seat"]]
        assert isinstance(seat, PersonSeat)
        seat.choose(action)

    def close(self) -> None:
        """Stop the game: the person resigns, the workers end."""
        for seat in self.seats:
            if isinstance(seat, PersonSeat):
                seat.choose(None)
            elif isinstance(seat, WorkerSeat):
                seat.close()

    def snapshot(
        self, start: int
    ) -> tuple[list[Frame], dict[str, Any] | None, dict[str, Any] | None]:
        """The frames from ``start``, the decision asked of the person, the record if over."""
        self.seen = time.monotonic()
        with self.lock:
            waiting = None
            if self.waiting is not None:
                waiting = {
                    key: self.waiting[key] for key in ("seat", "decision", "legal", "odds", "texts")
                }
            return self.builder.frames[start:], waiting, self.record

    def _run(self) -> None:
        try:
            result = play_game(
                self.seats,
                seed=self.seed,
                game=self.config.game_name,
                params=self.config.rule_params,
                max_turns=self.config.turn_limit,
                time_budget=None,  # measured in each worker: this process runs the server too
                on_turn=self._on_turn,
            )
            seats = (self.labels[0], self.labels[1])
            task = GameTask(f"page {self.id}", seats, seats, self.seed)
            record = make_record(task, result, self.config)
        except Exception as error:  # a bug of ours: say it on the page, keep serving
            record = {"error": f"the game stopped: {type(error).__name__}: {error}"}
        finally:
            for seat in self.seats:
                if isinstance(seat, WorkerSeat):
                    seat.close()
        with self.lock:
            if "actions" in record:
                self._follow(record["actions"])
                self.builder.frames[-1]["outcome"] = record_outcome(record)
            self.waiting, self.record = None, record

    def _on_turn(self, seat: int, state: Any, actions: list[int]) -> None:
        self._actions = actions  # play_game's own list: it grows as the game goes
        with self.lock:
            self._follow(actions)

    def _on_ask(self, state: Any) -> None:
        rules = self.builder.rules
        seat = rules.current_player(state)
        with self.lock:
            self._follow(self._actions)
            legal = rules.legal_actions(state)
            self.waiting = {
                "seat": seat,
                "state": state,
                "decision": rules.decision_name(state),
                "legal": legal,
                "odds": decision_odds(rules, state),
                "texts": {action: rules.action_to_text(state, action) for action in legal},
            }

    def _follow(self, actions: list[int]) -> None:
        self.builder.follow(list(actions))


class LiveGames:
    """The live games by id, at most :data:`MAX_LIVE_GAMES`; finished or idle ones make room."""

    def __init__(self, limit: int = MAX_LIVE_GAMES) -> None:
        self.limit = limit
        self.games: dict[str, LiveGame] = {}
        self.lock = threading.Lock()

    def add(self, game: LiveGame) -> None:
        """Keep ``game``; with too many, the game looked at least recently that is finished
        or idle (:data:`IDLE_SECONDS`) is closed.

        Raises:
            RuntimeError: when every kept game is being played and followed.
        """
        with self.lock:
            if len(self.games) >= self.limit:
                idle_since = time.monotonic() - IDLE_SECONDS
                spare = [g for g in self.games.values() if g.is_over or g.seen < idle_since]
                if not spare:
                    game.close()
                    raise RuntimeError(
                        f"{self.limit} games are being played already: finish or close one"
                    )
                oldest = min(spare, key=lambda g: g.seen)
                del self.games[oldest.id]
                oldest.close()
            self.games[game.id] = game

    def get(self, game_id: str) -> LiveGame:
        """The game of ``game_id``.

        Raises:
            KeyError: for an id that names no game (ended and dropped, or never there).
        """
        with self.lock:
            return self.games[game_id]

    def close(self, game_id: str) -> None:
        """End and forget a game (nothing happens for an unknown id)."""
        with self.lock:
            game = self.games.pop(game_id, None)
        if game is not None:
            game.close()

    def close_all(self) -> None:
        """End every game (the server stops)."""
        for game_id in list(self.games):
            self.close(game_id)


def build_seats(specs: Sequence[str | None], config: RunConfig, seed: int) -> list[Agent]:
    """The seats of a game: a :class:`WorkerSeat` per spec, a :class:`PersonSeat` for None.

    Raises:
        SpecError: from the worker that could not build its agent (the others are closed).
    """
    seats: list[Agent] = []
    try:
        for number, spec in enumerate(specs):
            if spec is None:
                seats.append(PersonSeat())
            else:
                seats.append(WorkerSeat(spec, derive_seed(seed, "seat", number), config))
    except BaseException:
        for seat in seats:
            if isinstance(seat, WorkerSeat):
                seat.close()
        raise
    return seats

"""Conformance checks for a game of the protocol, shipped as library code (as pgx ships
``api_test`` and OpenSpiel ``random_sim_test``): call them from the tests of a game you add.

:func:`check_game` plays seeded random games of a registered game (or a game object) and
checks, at every state reached: the text notation reads back (``from_text(to_text(s))``),
the legal mask is the legal actions, ``apply`` takes every legal action and refuses every
other one, a chance node's probabilities sum to one, ``outcome`` agrees with the turn
limit, the observation fits the Gymnasium env's space, and ``describe`` is JSON whose
``grid``, where it gives one, is a :class:`trap_env.grid.Grid`'s; odd texts get a state or a
one-line error from the parsers (:func:`check_text`, which a game's tests also feed with
Hypothesis). Then it runs the checkers of
the adapters: Gymnasium's ``check_env`` on :class:`trap_env.gym_env.GameEnv`,
PettingZoo's ``api_test`` and ``seed_test`` on :class:`trap_env.aec_env.GameAECEnv`, and
OpenSpiel's ``random_sim_test`` when pyspiel is installed (the ``openspiel`` extra; else
skipped with a warning saying so).

:func:`check_batched_engine` plays random games through a game's batched engine and its
scalar rules side by side and compares every query, value for value.

A failure raises :class:`ConformanceError` (an ``AssertionError``, so test runners report
it as a failed check) naming the game, the state as text and what differed, or the step
(a call of the game, the engine or a checker) that raised, the exception chained. Every
loop is bounded (:class:`_Pace`): a game that does not advance or does not end fails.

Example:
    >>> from trap_env.testing import check_batched_engine, check_game
    >>> check_game("othello", games=1, board_size=4, adapters=False)
    >>> check_batched_engine("othello", games=2, board_size=4)
"""

from __future__ import annotations

import itertools
import json
import math
import random
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from trap_env.batched import NO_WINNER, batched_engine, game_keys, random_words
from trap_env.checks import describe, is_int
from trap_env.game import TRUNCATED, Game, IllegalActionError
from trap_env.games import game_of
from trap_env.grid import Grid

__all__ = [
    "ConformanceError",
    "assert_engine_matches",
    "check_batched_engine",
    "check_game",
    "check_text",
]

_ADAPTER_CYCLES = 40
"""The steps PettingZoo's ``api_test`` and ``seed_test`` play."""
_CHANCE_APPLIED = 64
"""The chance outcomes of a node that :func:`check_game` applies (Colosseum's start has
65,536)."""
_MAX_ERROR = 300
"""The longest error message a parser may give (one line)."""
_MAX_OUTCOMES = 1 << 20
"""The most outcomes a chance node may list (read lazily, so an endless list fails)."""
_MAX_STEPS = 100_000
"""The most applies of one game the checks play, whatever the game's turn limit says."""
_ODD_TEXTS = ("", " ", "\n", "x", "-1", "0,0", "0,0,0", "٣", "²", "1,٣", "9" * 5000)
"""Texts that :func:`check_game` gives the parsers beside each position's own."""
_PROBE_TURNS = 6
"""The turn limit at which :func:`check_batched_engine` asks ``is_truncated``."""
_SHOWN = 60
"""Characters of an argument's repr that a failed call's message shows."""


class ConformanceError(AssertionError):
    """A game or engine that breaks the protocol: the game, the state and what differed."""


def check_game(
    name: Game[Any, Any] | str,
    *,
    seed: int = 0,
    games: int = 3,
    adapters: bool = True,
    opponent: Any = "random",
    **params: Any,
) -> None:
    """Check a game against the protocol over ``games`` seeded random games.

    Every loop is bounded: a game must advance (a turn ends within ``2 *
    decisions_per_turn + 1`` applies) and end within its turn limit (and
    :data:`_MAX_STEPS` applies); each step that raises is reported by name.

    Args:
        name: a registered game's name (or path), or a game object.
        seed: the seed of the random games.
        games: how many random games to play, at least 1 (keep boards small: every state
            is checked with every action).
        adapters: also run the Gymnasium, PettingZoo and OpenSpiel checkers.
        opponent: the Gymnasium env's opponent (an agent spec of the game or an agent).
        **params: the game's rule parameters (``game.make_config``).

    Raises:
        ConformanceError: naming the game, the state (or the step that raised) and what
            differed.
        ValueError: for ``games`` that is not a positive integer, and rule parameters the
            game refuses.
    """
    _check_count(games)
    raw = game_of(name)
    config = raw.make_config(**params)  # the caller's parameters: its own ValueError
    game = _Named(raw)
    limit = game.default_turn_limit(config)
    space = _observation_space(game, config)
    rng = random.Random(seed)
    for _ in range(games):
        for state in _random_game(game, config, rng, limit):
            _check_state(game, state, limit, space)
    start = game.initial_state(config)
    for text in (*_ODD_TEXTS, game.to_text(start)[:-1], game.to_text(start) + " 1"):
        check_text(raw, text, [start])
    if adapters:
        _check_adapters(name, raw, games, opponent, params)


def _check_count(games: object) -> None:
    """Refuse a number of games that would check nothing (0, -1) or is no integer."""
    if not (is_int(games) and games >= 1):  # type: ignore[operator]
        raise ValueError(f"games must be a positive integer, got {describe(games)}")


def check_text(
    name: Game[Any, Any] | str, text: str, positions: Sequence[Any] = ()
) -> None:
    """Check the game's parsers on any ``text``: a state or a one-line ``ValueError``.

    ``from_text(text)`` gives a state that ``check_state`` passes, or a ``ValueError`` of one
    short line (never another exception, never a traceback from deep inside); in each of
    ``positions``, ``action_from_text`` gives an action number of the game or such an error.
    Feed it any text (Hypothesis's ``st.text()`` and the notation's own tokens).

    Raises:
        ConformanceError: naming the game, the text and what went wrong.
    """
    raw = game_of(name)
    game = _Named(raw)
    _check_parse(game, text, "from_text", lambda: raw.check_state(raw.from_text(text)))
    for position in positions:
        num_actions = game.num_actions(game.config_of(position))

        def read_action(position: Any = position, num_actions: int = num_actions) -> None:
            action = raw.action_from_text(position, text)
            _expect(isinstance(action, int) and 0 <= action < num_actions, game, repr(text),
                    f"action_from_text gave {action!r}, not an action of 0..{num_actions - 1}")

        _check_parse(game, text, "action_from_text", read_action)


def _check_parse(
    game: _Named, text: str, parser: str, parse: Callable[[], None]
) -> None:
    """``parse()`` returns, or raises a one-line ``ValueError`` of at most ``_MAX_ERROR``."""
    try:
        parse()
    except ValueError as error:
        message = str(error)
        _expect("\n" not in message and len(message) <= _MAX_ERROR, game, repr(text[:80]),
                f"{parser}'s error is not one short line: {message[:400]!r}")
    except ConformanceError:
        raise
    except Exception as error:  # the parser let another exception out
        raise ConformanceError(
            f"{game.name}: {parser}({text[:80]!r}) raised {type(error).__name__}: {error}"
        ) from error


def _random_game(
    game: _Named, config: Any, rng: random.Random, limit: int
) -> Iterator[Any]:
    """Every state of one random game up to its end or the turn limit, chance drawn exactly.

    Raises:
        ConformanceError: if the game does not advance or does not end (:class:`_Pace`).
    """
    state = game.initial_state(config)
    pace = _Pace(game, limit, state)
    yield state
    while game.outcome(state, limit) is None:
        state = game.apply(state, _random_action(game, state, rng))
        pace.step(state)
        yield state


class _Pace:
    """One game's progress, so that no check plays on forever: the turn count grows within
    a turn's applies, and the game ends within the applies its turn limit allows (at most
    :data:`_MAX_STEPS`).

    Args:
        game: the game (its ``decisions_per_turn`` and ``turn``).
        limit: the turn limit the game is played to.
        start: the first state.

    Raises:
        ConformanceError: for a ``decisions_per_turn`` or a limit that is not a positive
            integer (no bound follows from it).
    """

    def __init__(self, game: _Named, limit: int, start: Any) -> None:
        decisions = game.decisions_per_turn
        for label, value in (("decisions_per_turn", decisions), ("default_turn_limit", limit)):
            _expect(is_int(value) and value >= 1, game, _text_of(game, start),
                    f"{label} is {value!r}, not a positive integer")
        self._game, self._limit = game, limit
        # A turn's decisions may each be followed by chance, and the game may start with
        # chance (Colosseum's start): that many applies may leave the turn count as it is.
        self._most_stalled = 2 * decisions
        self.most_steps = min((2 * decisions + 1) * (limit + 1), _MAX_STEPS)
        """The most applies the game may take to end."""
        self._turn, self._stalled, self._steps = game.turn(start), 0, 0

    def step(self, state: Any) -> None:
        """Count the apply that gave ``state``.

        Raises:
            ConformanceError: if the turn count has not grown over more applies than a
                turn holds, or the game goes on past the applies its limit allows.
        """
        game = self._game
        self._steps += 1
        turn = game.turn(state)
        self._stalled = 0 if turn > self._turn else self._stalled + 1
        self._turn = max(turn, self._turn)
        if self._stalled > self._most_stalled:
            _expect(False, game, _text_of(game, state),
                    f"the game does not advance: turn {turn} after {self._stalled} applies in "
                    f"a row, more than a turn holds ({game.decisions_per_turn} decision(s), "
                    "each maybe followed by chance)")
        if self._steps > self.most_steps:
            _expect(False, game, _text_of(game, state),
                    f"the game does not end: {self._steps} applies, turn {turn} of a limit of "
                    f"{self._limit}")


def _text_of(game: _Named, state: Any) -> str:
    """``state`` as the game writes it, or its repr if ``to_text`` fails (for a message)."""
    try:
        return str(game.to_text(state))
    except Exception:  # the message is about something else; to_text is checked apart
        return _short(state)


def _check_state(game: _Named, state: Any, limit: int, space: Any) -> None:
    """Every check of one state (the text, the actions, chance, the end, the observation)."""
    text = game.to_text(state)
    try:
        read = game.raw.from_text(text)
    except ValueError as error:
        message = f"{game.name}: from_text refuses to_text's text ({error}) (state {text!r})"
        raise ConformanceError(message) from error
    except Exception as error:
        raise _failed(game.name, f"from_text({_short(text)})", error) from error
    _expect(read == state, game, text, f"from_text(to_text(state)) gives {read}")
    _check_outcome(game, state, limit, text)
    _check_view(game, state, text)
    if game.is_chance(state):
        _check_chance(game, state, text)
        return  # observations are of decisions (Trap!'s refuses a landing)
    _check_actions(game, state, text)
    for player in (0, 1):
        planes = game.observe(state, player)
        _expect(
            space.contains(planes),
            game,
            text,
            f"observe(state, {player}) is {getattr(planes, 'dtype', type(planes))} "
            f"{getattr(planes, 'shape', '')}, outside the env's space {space}",
        )


def _check_view(game: _Named, state: Any, text: str) -> None:
    """``describe`` is a JSON object (no NaN), and its ``grid``, if any, reads back as it is."""
    try:
        view = json.loads(json.dumps(game.describe(state), allow_nan=False))
        if not isinstance(view, dict):
            raise ValueError(f"it gives {describe(view)}")
        grid = Grid.from_json(view["grid"]).to_json() if "grid" in view else None
    except (TypeError, ValueError) as error:
        raise ConformanceError(
            f"{game.name}: describe(state) is not a JSON object (with a grid, if any, as "
            f"trap_env.grid reads it): {error} (state {text!r})"
        ) from error
    same = grid is None or grid == view["grid"]
    _expect(same, game, text, f"describe's grid reads back as {grid}")


def _check_actions(game: _Named, state: Any, text: str) -> None:
    """The mask is the legal actions; ``apply`` takes each of them and refuses the rest."""
    num_actions = game.num_actions(game.config_of(state))
    legal = game.legal_actions(state)
    mask = list(game.legal_action_mask(state))
    _expect(legal == sorted(set(legal)), game, text, f"legal actions not ascending: {legal}")
    from_mask = [action for action, bit in enumerate(mask) if bit]
    _expect(
        len(mask) == num_actions and from_mask == legal,
        game,
        text,
        f"the mask (length {len(mask)}, set at {from_mask}) is not the legal actions {legal} "
        f"over {num_actions} actions",
    )
    for action in legal:
        game.apply(state, action)
    allowed = set(legal)
    for action in [-1, *range(num_actions + 1)]:
        if action not in allowed:
            _refuses(game, state, text, action)


def _refuses(game: _Named, state: Any, text: str, action: int) -> None:
    try:
        game.raw.apply(state, action)
    except IllegalActionError:
        return
    except Exception as error:
        raise _failed(game.name, f"apply(state, {action})", error, "IllegalActionError") from error
    _expect(False, game, text, f"apply accepted the illegal action {action}")


def _check_chance(game: _Named, state: Any, text: str) -> None:
    """Positive probabilities summing to one, each outcome taken by ``apply``, -1 refused."""
    outcomes = list(itertools.islice(game.chance_outcomes(state), _MAX_OUTCOMES + 1))
    _expect(len(outcomes) <= _MAX_OUTCOMES, game, text,
            f"chance lists more than {_MAX_OUTCOMES:,} outcomes")
    total = math.fsum(probability for _, probability in outcomes)
    _expect(math.isclose(total, 1.0, abs_tol=1e-9), game, text, f"chance sums to {total}")
    _expect(
        all(probability > 0 for _, probability in outcomes),
        game,
        text,
        f"chance lists an outcome without a positive probability: {outcomes[:8]}",
    )
    for outcome, _ in outcomes[:_CHANCE_APPLIED]:
        game.apply(state, outcome)
    _refuses(game, state, text, -1)


def _check_outcome(game: _Named, state: Any, limit: int, text: str) -> None:
    """The rules' end and the turn limit's cut, as :meth:`trap_env.game.Game.outcome` says."""
    ended, cut = game.outcome(state), game.outcome(state, limit)
    if ended is not None:
        _expect(
            cut == ended and ended.reason in game.end_reasons and not game.legal_actions(state),
            game,
            text,
            f"over ({ended}) but outcome with the limit {cut}, reasons {game.end_reasons}, "
            f"legal actions {game.legal_actions(state)}",
        )
        return
    decides = not game.is_chance(state)
    _expect(
        bool(game.legal_actions(state)) or not decides,
        game,
        text,
        "no legal action for the player to act in a game going on",
    )
    due = game.turn(state) >= limit and decides
    _expect(
        (cut is not None) == due and (cut is None or (cut.reason, cut.winner) == (TRUNCATED, None)),
        game,
        text,
        f"at turn {game.turn(state)} of a limit of {limit}, outcome with the limit is {cut}",
    )


def _observation_space(game: _Named, config: Any) -> Any:
    from gymnasium import spaces

    return spaces.Box(0, 1, game.observation_shape(config), dtype=np.int8)


def _check_adapters(
    name: Game[Any, Any] | str,
    game: Game[Any, Any],
    games: int,
    opponent: Any,
    params: dict[str, Any],
) -> None:
    """Gymnasium's, PettingZoo's and (where installed) OpenSpiel's own checkers, each a
    step that a failure names."""
    from gymnasium.utils.env_checker import check_env

    from trap_env.gym_env import GameEnv

    with _step(game.name, "Gymnasium's check_env"):
        env = GameEnv(name, opponent, **params)
        try:
            check_env(env, skip_render_check=True)
        finally:
            env.close()
    _check_pettingzoo(name, game, params)
    _check_openspiel(game, games, params)


def _check_pettingzoo(
    name: Game[Any, Any] | str, game: Game[Any, Any], params: dict[str, Any]
) -> None:
    from pettingzoo.test import api_test, seed_test

    from trap_env.aec_env import GameAECEnv, wrap

    def make() -> Any:
        return wrap(GameAECEnv(name, **params))

    with _step(game.name, "PettingZoo's api_test"):
        api_test(make(), num_cycles=_ADAPTER_CYCLES)
    with _step(game.name, "PettingZoo's seed_test"):
        seed_test(make, num_cycles=_ADAPTER_CYCLES)


def _check_openspiel(game: Game[Any, Any], games: int, params: dict[str, Any]) -> None:
    try:
        import pyspiel
    except ImportError:
        warnings.warn(
            f"OpenSpiel's random_sim_test of {game.name!r} skipped: pyspiel is not installed "
            '(pip install "trap_env[openspiel]")',
            stacklevel=4,
        )
        return
    from trap_env.openspiel import spiel_name_of

    with _step(game.name, "OpenSpiel's random_sim_test"):
        short_name = spiel_name_of(game)
        arguments = ",".join(f"{key}={value}" for key, value in params.items())
        loaded = pyspiel.load_game(f"{short_name}({arguments})" if arguments else short_name)
        pyspiel.random_sim_test(loaded, num_sims=games, serialize=False, verbose=False)


class _Named:
    """A game or a batched engine whose every call that raises raises a
    :class:`ConformanceError` naming the game and the call: the step of the check that
    failed, rather than the game's own exception from deep inside.

    Args:
        raw: the game or engine; ``raw`` itself is for a call expected to raise.
        game_name: the game's name for messages (the game's own by default).
        prefix: what a call's name starts with (``"engine."``).
    """

    def __init__(self, raw: Any, game_name: str | None = None, prefix: str = "") -> None:
        self.raw = raw
        self.name: str = raw.name if game_name is None else game_name
        self._prefix = prefix

    def __getattr__(self, attribute: str) -> Any:
        found = getattr(self.raw, attribute)
        if not callable(found):
            return found
        step = f"{self._prefix}{attribute}"

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return found(*args, **kwargs)
            except ConformanceError:
                raise
            except Exception as error:
                shown = [*map(_short, args), *(f"{k}={_short(v)}" for k, v in kwargs.items())]
                raise _failed(self.name, f"{step}({', '.join(shown)})", error) from error

        self.__dict__[attribute] = call  # later reads find it without __getattr__
        return call


@contextmanager
def _step(game_name: str, step: str) -> Iterator[None]:
    """Run one step of a check: an exception in it becomes a :class:`ConformanceError`
    naming the step."""
    try:
        yield
    except ConformanceError:
        raise
    except Exception as error:
        raise _failed(game_name, step, error) from error


def _failed(
    game_name: str, step: str, error: Exception, text: str | None = None
) -> ConformanceError:
    """The :class:`ConformanceError` of a step that raised ``error`` (its first line: the
    rest is in the chained exception)."""
    lines = str(error).splitlines()
    said = f": {lines[0]}" if lines else ""
    where = "" if text is None else f" (state {text!r})"
    return ConformanceError(f"{game_name}: {step} raised {type(error).__name__}{said}{where}")


def _short(value: Any) -> str:
    """``value``'s repr, cut to :data:`_SHOWN` characters, for a message."""
    shown = repr(value)
    return shown if len(shown) <= _SHOWN else shown[: _SHOWN - 3] + "..."


def check_batched_engine(
    name: Game[Any, Any] | str,
    *,
    seed: int = 0,
    games: int = 8,
    **params: Any,
) -> None:
    """Check a game's batched engine against its scalar rules over random games.

    ``games`` random games run side by side through ``game.batched_engine(config)`` and
    through the scalar rules, each to its end or its turn limit; after every step each
    query of the engine (states, masks, players, turns, chance and its outcomes, the end,
    winners, truncation, observations) must answer as the scalar game does. Some games sit
    out each step (``where``). The loop is bounded as :func:`check_game`'s.

    Args:
        name: a registered game's name (or path), or a game object.
        seed: the seed of the random games.
        games: the batch size, at least 1.
        **params: the game's rule parameters (``game.make_config``).

    Raises:
        ConformanceError: naming the game, the state (or the call that raised) and what
            differed.
        ValueError: if the game has no batched engine, or ``games`` is not a positive
            integer.
    """
    _check_count(games)
    raw = game_of(name)
    config = raw.make_config(**params)
    engine: Any = _Named(batched_engine(raw, config), raw.name, "engine.")
    game: Any = _Named(raw)
    limit = game.default_turn_limit(config)
    rng = random.Random(seed)
    states = [game.initial_state(config)] * games
    paces = [_Pace(game, limit, state) for state in states]
    batch = engine.initial_batch(games)
    keys = game_keys(seed, np.arange(games), 0)
    plies: list[set[int]] = [set() for _ in states]
    # Each game moves in four steps of five: twice its most applies is ample.
    rounds = 2 * paces[0].most_steps + 16
    for played in range(rounds + 1):
        assert_engine_matches(game, engine, batch, states)
        _check_samples(game, engine, batch, states, random_words(keys, engine.ply_index(batch), 0))
        live = [game.outcome(state, limit) is None for state in states]
        if not any(live):
            return
        index = live.index(True)
        _expect(played < rounds, game, game.to_text(states[index]),
                f"game {index} of the batch does not end within {rounds} steps")
        where = [is_live and rng.random() < 0.8 for is_live in live]
        for index, ply in enumerate(engine.ply_index(batch).tolist()):
            if where[index]:
                what = f"ply_index {ply} again (random draws would repeat)"
                _expect(ply not in plies[index], game, game.to_text(states[index]), what)
                plies[index].add(ply)
        actions = [
            _random_action(game, state, rng) if on else 0
            for state, on in zip(states, where, strict=True)
        ]
        states = [
            game.apply(state, action) if on else state
            for state, action, on in zip(states, actions, where, strict=True)
        ]
        for pace, state, on in zip(paces, states, where, strict=True):
            if on:
                pace.step(state)
        batch = engine.apply(batch, np.array(actions), where=np.array(where))


def _random_action(game: _Named, state: Any, rng: random.Random) -> int:
    if game.is_chance(state):
        outcome: int = game.sample_chance(state, rng)
        return outcome
    action: int = rng.choice(game.legal_actions(state))
    return action


def assert_engine_matches(
    game: Game[Any, Any], engine: Any, batch: Any, states: Sequence[Any]
) -> None:
    """Every query of a batched ``engine`` answers on ``batch`` as ``game`` does on each of
    ``states`` (the oracle of :func:`check_batched_engine`, for a game's own tests).

    Raises:
        ConformanceError: naming the game, the first state that differs and the query.
    """
    seen = engine.to_states(batch)
    for index, state in enumerate(states):
        _expect(seen[index] == state, game, game.to_text(state), f"to_states gives {seen[index]}")
    rebuilt = engine.from_states(list(states))
    _expect(
        all(np.array_equal(mine, theirs) for mine, theirs in zip(rebuilt, batch, strict=True)),
        game,
        game.to_text(states[0]),
        "from_states(to_states(batch)) differs from the batch (a derived field)",
    )
    answers = {
        "legal_masks": (engine.legal_masks(batch).astype(int).tolist(), game.legal_action_mask),
        "players": (engine.players(batch).tolist(), game.current_player),
        "turns": (engine.turns(batch).tolist(), game.turn),
        "is_chance": (engine.is_chance(batch).tolist(), game.is_chance),
        "is_over": (engine.is_over(batch).tolist(), lambda s: game.outcome(s) is not None),
        "winners": (engine.winners(batch).tolist(), lambda s: _winner(game, s)),
        "is_truncated": (
            engine.is_truncated(batch, _PROBE_TURNS).tolist(),
            lambda s: game.outcome(s) is None and game.outcome(s, _PROBE_TURNS) is not None,
        ),
    }
    for query, (values, scalar) in answers.items():
        for value, state in zip(values, states, strict=True):
            expected = scalar(state)
            what = f"{query} gives {value}, the rules {expected}"
            _expect(value == expected, game, game.to_text(state), what)
    _check_engine_chance(game, engine, batch, states)
    _check_engine_planes(game, engine, batch, states)


def _winner(game: Game[Any, Any], state: Any) -> int:
    ended = game.outcome(state)
    return NO_WINNER if ended is None or ended.winner is None else ended.winner


def _check_engine_chance(
    game: Game[Any, Any], engine: Any, batch: Any, states: Sequence[Any]
) -> None:
    """Each chance node's outcomes and exact probabilities, as the rules list them."""
    if not engine.chance_slots:
        return
    outcomes, probabilities = engine.chance_outcomes(batch)
    for index, state in enumerate(states):
        if game.is_chance(state):
            listed = {
                int(outcome): float(probability)
                for outcome, probability in zip(outcomes[index], probabilities[index], strict=True)
                if probability > 0
            }
            expected = dict(game.chance_outcomes(state))
            _expect(
                listed.keys() == expected.keys()
                and all(math.isclose(listed[key], expected[key]) for key in listed),
                game,
                game.to_text(state),
                f"chance_outcomes gives {listed}, the rules {expected}",
            )


def _check_engine_planes(
    game: Game[Any, Any], engine: Any, batch: Any, states: Sequence[Any]
) -> None:
    """The observations of both players at every decision (a chance node's may differ)."""
    for player in (0, 1):
        planes = engine.observations(batch, np.full(len(states), player))
        for index, state in enumerate(states):
            if not game.is_chance(state):
                _expect(
                    np.array_equal(planes[index], game.observe(state, player)),
                    game,
                    game.to_text(state),
                    f"observations for player {player} differ from observe",
                )


def _check_samples(
    game: Game[Any, Any], engine: Any, batch: Any, states: Sequence[Any], words: Any
) -> None:
    """Each sampled chance outcome is one the rules list with a positive probability."""
    if not engine.chance_slots:
        return
    drawn = engine.sample_chance(batch, words)
    for index, state in enumerate(states):
        if game.is_chance(state):
            outcomes = dict(game.chance_outcomes(state))
            what = f"sample_chance drew {drawn[index]}, not one of {sorted(outcomes)[:8]}"
            _expect(outcomes.get(int(drawn[index]), 0) > 0, game, game.to_text(state), what)


def _expect(holds: bool, game: Game[Any, Any] | _Named, text: str, what: str) -> None:
    """Raise :class:`ConformanceError` unless ``holds``."""
    if not holds:
        raise ConformanceError(f"{game.name}: {what} (state {text!r})")

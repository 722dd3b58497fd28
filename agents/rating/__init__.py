"""Ratings anyone can reproduce: a policy against a fixed ladder of opponents per game.

The ladders (:mod:`agents.rating.ladder`) are fixed opponents that play without a clock,
with published ratings, each game's own (``agents/<game>/ladders/``, :func:`find_ladder`);
:mod:`agents.rating.run` plays a policy against one and writes its card;
:mod:`agents.rating.estimate` turns the games into a rating with a 95% interval;
:mod:`agents.rating.policy` rates a Python callable from a training loop (:func:`rate`);
:mod:`agents.rating.comparison` tests whether one policy is stronger than another
(:func:`compare`).
"""

from agents.rating.comparison import ComparisonCard, SprtTest, compare
from agents.rating.estimate import RatingEstimate, estimate_rating
from agents.rating.ladder import (
    LADDER_VERSION,
    Ladder,
    find_ladder,
    ladder_games,
    load_ladder,
    shipped_ladders,
)
from agents.rating.policy import PolicyAgent, rate
from agents.rating.run import Card, rate_spec

__all__ = [
    "LADDER_VERSION",
    "Card",
    "ComparisonCard",
    "Ladder",
    "PolicyAgent",
    "RatingEstimate",
    "SprtTest",
    "compare",
    "estimate_rating",
    "find_ladder",
    "ladder_games",
    "load_ladder",
    "rate",
    "rate_spec",
    "shipped_ladders",
]

"""Type checks at the public edges: a wrong type is refused with a message that names the
argument and what it allows, before it can fail deep inside with a message about something
else (``'NoneType' object has no attribute 'split'``).

This module imports nothing outside the standard library, so the rules core can use it.
"""

from __future__ import annotations

import numbers

__all__ = ["check_int", "check_type", "describe", "is_int", "is_integral", "parse_natural"]

_SHOWN = 80
"""Characters of a refused value's repr shown in a message."""
MAX_DIGITS = 4300
"""The most digits of a number in text: Python's own limit for ``int()`` of a str."""


def is_int(value: object) -> bool:
    """Whether ``value`` is a Python int and not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_integral(value: object) -> bool:
    """Whether ``value`` is an integer of any kind (NumPy's too) and not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_type(name: str, value: object, kind: type | tuple[type, ...], allowed: str) -> None:
    """Refuse ``value`` as the argument ``name`` unless it is an instance of ``kind``.

    Raises:
        TypeError: ``"NAME must be ALLOWED, got TYPE VALUE"``.
    """
    if not isinstance(value, kind):
        raise TypeError(f"{name} must be {allowed}, got {describe(value)}")


def check_int(name: str, value: object, allowed: str) -> None:
    """Refuse ``value`` as the argument ``name`` unless it is an int (a bool is none).

    Raises:
        TypeError: ``"NAME must be ALLOWED, got TYPE VALUE"``.
    """
    if not is_int(value):
        raise TypeError(f"{name} must be {allowed}, got {describe(value)}")


def describe(value: object) -> str:
    """A refused value for a message: its type and the start of its repr."""
    try:
        shown = repr(value)
    except ValueError:  # an int of more digits than Python writes out
        shown = f"<an integer of {value.bit_length()} bits>"  # type: ignore[attr-defined]
    if len(shown) > _SHOWN:
        shown = shown[: _SHOWN - 3] + "..."
    return f"{type(value).__name__} {shown}"


def parse_natural(text: str, problem: str) -> int:
    """A non-negative integer written in ASCII digits 0-9, the one reading of a number in
    every text notation (``str.isdigit`` also takes ``'²'`` and ``'٣'``).

    Raises:
        ValueError: ``"PROBLEM, got 'TEXT'"``, or for more than :data:`MAX_DIGITS` digits
            ``"PROBLEM of at most 4300 digits, got N digits"``.
    """
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"{problem}, got {text[:40]!r}")
    if len(text) > MAX_DIGITS:
        raise ValueError(f"{problem} of at most {MAX_DIGITS} digits, got {len(text)} digits")
    return int(text)

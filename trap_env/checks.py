"""Type checks at the public edges: a wrong type is refused with a message that names the
argument and what it allows, before it can fail deep inside with a message about something
else (``'NoneType' object has no attribute 'split'``).

This module imports nothing outside the standard library, so the rules core can use it.
"""

from __future__ import annotations

import numbers

__all__ = ["check_int", "check_type", "describe", "is_int", "is_integral"]

_SHOWN = 80
"""Characters of a refused value's repr shown in a message."""


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
    shown = repr(value)
    if len(shown) > _SHOWN:
        shown = shown[: _SHOWN - 3] + "..."
    return f"{type(value).__name__} {shown}"

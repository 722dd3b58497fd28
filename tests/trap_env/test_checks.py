"""The shared type checks: what counts as an int, and the message that names the argument."""

from __future__ import annotations

import numpy as np
import pytest

from trap_env.checks import check_int, check_type, describe, is_int, is_integral


@pytest.mark.parametrize(
    ("value", "int_", "integral"),
    [(3, True, True), (np.int64(3), False, True), (True, False, False), (3.0, False, False)],
)
def test_what_counts_as_an_integer(value: object, int_: bool, integral: bool) -> None:
    assert (is_int(value), is_integral(value)) == (int_, integral)


def test_a_refusal_names_the_argument_what_it_allows_and_what_it_got() -> None:
    with pytest.raises(TypeError, match=r"^size must be an int, got float 2\.5$"):
        check_int("size", 2.5, "an int")
    with pytest.raises(TypeError, match=r"^text must be a str, got NoneType None$"):
        check_type("text", None, str, "a str")


def test_a_long_value_is_shown_cut() -> None:
    shown = describe("x" * 1000)
    assert shown.startswith("str 'xxx") and shown.endswith("...") and len(shown) < 100

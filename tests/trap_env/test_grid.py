"""The board a page draws for any game (``trap_env.grid``): its fields read back as they
are written, anything else is refused in one line, and a click rule reaches the cells it
says."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trap_env.grid import SIDES, Click, Grid, Legend, click_targets

KEYS = ("a", "b", "c")
LEGEND = [Legend(key, key.upper(), "#102030", f"the {key}") for key in KEYS]


@st.composite
def grids(draw: st.DrawFn) -> Grid:
    """Any grid of up to 6x6 cells, its pieces, marks and walls, with or without a click."""
    rows, cols = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    cells = st.integers(0, rows * cols - 1)
    sides = st.sets(st.sampled_from(SIDES), min_size=1).map(
        lambda chosen: "".join(side for side in SIDES if side in chosen)
    )
    click = draw(st.none() | st.builds(Click, st.integers(0, 9), st.integers(0, 9),
                                       st.integers(0, 9)))  # fmt: skip
    return Grid(
        rows,
        cols,
        LEGEND,
        draw(st.dictionaries(cells, st.sampled_from(KEYS))),
        draw(st.dictionaries(cells, st.sampled_from(KEYS))),
        draw(st.dictionaries(cells, sides)),
        click,
    )


@settings(max_examples=60, deadline=None)
@given(grid=grids())
def test_a_grid_reads_back_as_it_is_written_through_json(grid: Grid) -> None:
    data = json.loads(json.dumps(grid.to_json()))
    assert data == grid.to_json()
    assert Grid.from_json(data).to_json() == data


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 70) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=5),
    max_leaves=20,
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(data=JSON | grids().map(Grid.to_json).flatmap(
    lambda grid: st.sampled_from(list(grid)).flatmap(
        lambda key: JSON.map(lambda value: {**grid, key: value}))))  # fmt: skip
def test_any_json_is_a_grid_or_a_one_line_error(data: Any) -> None:
    """A page or a check reads what a game gives: a grid, or a ValueError of one short line
    naming the field (never a TypeError or a KeyError from inside)."""
    try:
        grid = Grid.from_json(data)
    except ValueError as error:
        assert "\n" not in str(error) and len(str(error)) < 300
    else:
        assert grid.rows >= 1 and grid.cols >= 1


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"rows": 0}, "rows is an integer >= 1"),
        ({"cols": True}, "cols is an integer >= 1"),
        ({"pieces": {9: "a"}}, "cells 0..5, got cell int 9"),
        ({"pieces": {0: "z"}}, "not a key of the legend"),
        ({"marks": {0: ["a"]}}, "not a key of the legend"),
        ({"walls": {0: "sn"}}, "letters of 'nesw' in that order"),
        ({"walls": {0: ""}}, "letters of 'nesw' in that order"),
        ({"legend": [*LEGEND, LEGEND[0]]}, "names each key once"),
        ({"rows": 300, "cols": 300}, "at most 65536 cells"),
    ],
)
def test_a_grid_that_is_wrong_is_refused_naming_the_field(change: dict[str, Any],
                                                           words: str) -> None:  # fmt: skip
    fields: dict[str, Any] = {"rows": 2, "cols": 3, "legend": LEGEND, **change}
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        Grid(**fields)


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        (("a", "A", "red", "x"), "#rrggbb"),
        (("a", "A", "#A0B0C0", "x"), "#rrggbb"),
        (("a", "ABCD", "#000000", "x"), "at most 3 characters"),
        (("", "A", "#000000", "x"), "a key"),
        (("a", "A", "#000000", 3), "text is a string"),
    ],
)
def test_a_legend_that_is_wrong_is_refused(fields: tuple[Any, ...], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        Legend(*fields)


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("click", {"row": -1, "col": 1, "side": 0}, "click's row is an integer >= 0"),
        ("click", {"row": 1}, "a click has the keys"),
        ("cells", {"x": {"piece": "a"}}, "keyed by cell numbers"),
        ("cells", {"0": {"colour": "a"}}, "may have"),
        ("legend", "a", "legend is a list"),
    ],
)
def test_json_that_is_no_grid_is_refused_naming_the_field(field: str, value: Any,
                                                          words: str) -> None:  # fmt: skip
    data = {**Grid(2, 3, LEGEND).to_json(), field: value}
    with pytest.raises(ValueError, match=words):
        Grid.from_json(data)


def test_a_click_reaches_the_cells_its_rule_says() -> None:
    """A cell's action (Trap!, Othello), a column's (any cell of it), a side's (Colosseum)."""
    cells = Grid(2, 3, LEGEND, click=Click(3, 1)).to_json()
    assert click_targets(cells) == {action: [(action, None)] for action in range(6)}
    columns = Grid(2, 3, LEGEND, click=Click(0, 1)).to_json()
    assert click_targets(columns) == {0: [(0, None), (3, None)], 1: [(1, None), (4, None)],
                                      2: [(2, None), (5, None)]}  # fmt: skip
    sides = Grid(2, 2, LEGEND, click=Click(8, 4, 1)).to_json()
    assert click_targets(sides) == {4 * cell + side: [(cell, side)]
                                    for cell in range(4) for side in range(4)}  # fmt: skip
    assert click_targets(Grid(2, 2, LEGEND).to_json()) == {}

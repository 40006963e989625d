"""What the screens read from the view instead of knowing the rules: the sheet's
checks, whether the called number can be declared, the marker track."""

from __future__ import annotations

import pytest

from engines.countup.sheet import sheet_check, sheet_problems


@pytest.mark.parametrize("restricted", [set(), {0}, {2, 5, 7}, {0, 2, 5, 7}])
def test_sheet_check_refuses_what_the_engine_refuses(restricted):
    top = 49
    check = sheet_check(restricted, top)
    assert check["size"] == 5 and check["distinct"] and check["range"] == [1, top]
    for n in range(0, top + 3):
        # The first problem the engine names for n alone is the one a screen shows.
        codes = [code for code, _ in sheet_problems([n], restricted, top) if code != "not_five"]
        low, high = check["range"]
        says = ("out_of_range" if not low <= n <= high
                else "restricted_digit" if str(n) in check["refused"] else None)
        assert codes[:1] == ([says] if says else []), n
        if says == "restricted_digit":
            assert check["refused"][str(n)] == n % 10


def test_view_publishes_the_sheet_check_of_the_round(table):
    t = table()
    t.cards([2, 5, 7])
    v = t.view("A")
    assert v["sheet_check"] == sheet_check([2, 5, 7], v["number_range"][1])
    assert v["marker_top"] == 20
    assert v["big_table"] is False
    assert table([f"p{i}" for i in range(1, 9)]).view(None)["big_table"] is True


def test_called_number_says_when_it_cannot_be_declared(table):
    t = table(sheetMode="paper")
    t.cards([2, 5, 7])
    assert t.view(None)["count"]["restricted_digit"] is None
    t.call()
    assert t.view(None)["count"]["restricted_digit"] is None
    t.call()
    assert t.view(None)["count"]["restricted_digit"] == 2
    t.refuse("restricted_number", "declare", "A", players=["A"])

"""The castle's rows as the screens read them: points, caps in play and at a
round's end, the same figures the engine scores and checks with."""

from __future__ import annotations

import pytest

from engines.kingup import castle
from engines.kingup.constants import CHARACTERS, ELIMINATED, THRONE, value


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_rows_top_to_bottom_with_points_and_caps(table, n):
    t = table(n)
    rows = t.view("p1")["rows"]
    assert [r["row"] for r in rows] == ["throne", 5, 4, 3, 2, 1, 0, "eliminated"]
    assert [r["points"] for r in rows] == [10, 5, 4, 3, 2, 1, 0, 0]
    assert [r["cap"] for r in rows] == [1, 4, 4, 4, 4, 4, None, None]
    ends = [r["end_cap"] for r in rows]
    assert ends[:6] == [1, 3, 4, 4, 4, 4]
    assert ends[6] == t.view(None)["rules"]["leftovers"]
    assert ends[7] == n * t.view(None)["rules"]["no_cards_each"]


def test_end_caps_are_the_board_check(table):
    """A row one over its end cap is what board_problem refuses; at the cap it is fine."""
    t = table(4)
    caps = castle.end_caps(4, t.state.no_each)
    full = [THRONE, 5, 5, 5, 4, 4, 4, 4, 3, 3, 3, 3, 0]
    assert castle.board_problem(t.state, full) is None
    for pos, board in ((5, [THRONE, 5, 5, 5, 5, 4, 4, 4, 4, 3, 3, 3, 0]),
                       (4, [THRONE, 5, 5, 5, 4, 4, 4, 4, 4, 3, 3, 3, 0]),
                       (0, [THRONE, 5, 5, 5, 4, 4, 4, 4, 3, 3, 3, 0, 0])):
        assert board.count(pos) == caps[pos] + 1
        assert f"at most {caps[pos]}" in (castle.board_problem(t.state, board) or ""), pos
    assert castle.board_problem(t.state, [ELIMINATED] * len(CHARACTERS)) is not None


def test_row_points_are_what_a_goal_character_scores(table):
    t = table(4)
    t.board({"throne": "A", 5: "BCD", 4: "EFGH", 3: "IJK", 0: "L", "eliminated": "M"})
    points = {r["row"]: r["points"] for r in t.view(None)["rows"]}
    for ch, pos in t.view(None)["positions"].items():
        assert points[pos] == value(t.state.positions[CHARACTERS.index(ch)]), ch

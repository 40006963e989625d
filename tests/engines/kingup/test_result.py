"""The result sheet of a finished King Up! game (Engine.result): Examples 4 and 5."""

from __future__ import annotations

from engines.kingup import ENGINE
from tests.engines.kingup.test_examples import _example_4, _example_5


def _players(t):
    result = ENGINE.result(t.state, t.steps)
    return result, {p["id"]: p for p in result["players"]}


def test_unfinished_game_has_no_result(table) -> None:
    t = table(4)
    assert ENGINE.result(t.state, t.steps) is None


def test_example_5_tie_break_decides_the_winner_not_the_shared_total(table) -> None:
    result, players = _players(_example_5(table))
    assert {p: v["score"] for p, v in players.items()} == {"p1": 59, "p2": 27, "p3": 59, "p4": 27}
    # R24: the survivors tie-break gives p1 the win; p2 and p4 share third.
    assert {p: v["rank"] for p, v in players.items()} == {"p1": 1, "p3": 2, "p2": 3, "p4": 3}
    assert [p for p, v in players.items() if v["winner"]] == ["p1"]
    assert result["tie_break"]["survivors"] == {"p1": 6, "p3": 5}
    assert [r["points"]["p1"] for r in result["rounds"]] == [20, 15, 24]
    assert [r["points"]["p3"] for r in result["rounds"]] == [25, 17, 17]
    assert all(r["rule33"] == [] for r in result["rounds"])
    assert result["start_player"] == "p1"


def test_example_5_without_tie_break_both_win_and_share_first(table) -> None:
    _, players = _players(_example_5(table, tieBreak="none"))
    assert players["p1"]["winner"] and players["p3"]["winner"]
    assert players["p1"]["rank"] == players["p3"]["rank"] == 1 and players["p2"]["rank"] == 3


def test_example_4_the_33_rule_is_marked(table) -> None:
    t = table(5)
    _example_4(lambda n: t, 3)
    result, players = _players(t)
    (last,) = result["rounds"]
    assert (last["round"], last["rule33"], last["raw"]["p2"], last["points"]["p2"]) == (3, ["p2"], 0, 33)
    assert last["king"] == "B"
    assert players["p2"]["score"] == 33 and players["p2"]["winner"]

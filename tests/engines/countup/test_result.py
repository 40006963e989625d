"""The result sheet of a finished Count Up game (Engine.result): Examples 6 and 7 in play."""

from __future__ import annotations

from engines.countup import ENGINE


def _players(t):
    result = ENGINE.result(t.state, t.steps)
    return result, {p["id"]: p for p in result["players"]}


def test_unfinished_game_has_no_result(table) -> None:
    t = table(("A", "B", "C"))
    assert ENGINE.result(t.state, t.steps) is None


def test_example_6_two_stars_end_the_game(table) -> None:
    t = table(("A", "B", "C"))
    for r in (1, 2):
        t.cards([7, 8, 9])
        t.sheets({"A": [1, 2, 3, 4, 5], "B": [31, 32, 33, 34, 35], "C": [41, 42, 43, 44, 45]})
        t.call("end")
        if r == 1:
            t.act("next_round")
    result, players = _players(t)
    assert (result["ended_by"], result["reason"]) == ("two_stars", "two_stars")
    assert players["A"]["winner"] and players["A"]["rank"] == 1 and players["A"]["stars"] == 2
    assert [r["stars"] for r in result["rounds"]] == [["A"], ["A"]]
    assert [r["scores"]["A"] for r in result["rounds"]] == [20, 20]
    assert [r["end"] for r in result["rounds"]] == ["marker20", "marker20"]
    assert players["A"]["score"] == 40


def test_example_7_four_rounds_total_and_shared_ranks(table) -> None:
    t = table(("A", "B", "C"))
    t.play_example7()
    result, players = _players(t)
    assert {p: v["score"] for p, v in players.items()} == {"A": 64, "B": 76, "C": 56}
    assert {p: v["rank"] for p, v in players.items()} == {"A": 2, "B": 1, "C": 3}
    assert [p for p, v in players.items() if v["winner"]] == ["B"]
    assert (result["ended_by"], result["reason"]) == ("last_round", "total")
    assert len(result["rounds"]) == 4 and all(r["stars"] == [] for r in result["rounds"])
    assert result["rounds"][0]["scores"] == {"A": 16, "B": 19, "C": 14}

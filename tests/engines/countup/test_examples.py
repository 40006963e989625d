"""The worked examples of the spec (section 5), one scenario each."""

from __future__ import annotations

from typing import Any

import pytest

from engines.base import EngineError
from engines.countup import ENGINE
from engines.countup.scoring import decide
from engines.countup.state import RoundRecord, SeatResult

EX2 = {
    "A": [3, 9, 14, 30, 41],
    "B": [6, 9, 21, 36, 48],
    "C": [1, 11, 19, 33, 44],
    "D": [4, 16, 29, 38, 46],
}
EX2_TRACE = [
    (1, ["C"], None), (3, ["A"], ("C", 2)), (4, ["D"], ("A", 1)), (6, ["B"], ("D", 2)),
    (9, ["A", "B"], ("B", 3)), (11, ["C"], None), (14, ["A"], ("C", 3)),
    (16, ["D"], ("A", 2)), (19, ["C"], ("D", 3)), (21, ["B"], ("C", 2)),
    (29, ["D"], ("B", 8)), (30, ["A"], ("D", 1)), (33, ["C"], ("A", 3)),
    (36, ["B"], ("C", 3)), (38, ["D"], ("B", 2)), (41, ["A"], ("D", 3)),
    (44, ["C"], ("A", 3)), (46, ["D"], ("C", 2)), (48, ["B"], ("D", 2)),
]
EX4 = {"A": [11, 13, 14, 31, 41], "B": [3, 14, 22, 33, 44], "C": [1, 2, 3, 48, 49]}
EX4_TRACE = [
    (1, ["C"], None), (2, ["C"], ("C", 1)), (3, ["B", "C"], ("C", 1)), (11, ["A"], None),
    (13, ["A"], ("A", 2)), (14, ["A", "B"], ("A", 1)), (22, ["B"], None),
    (31, ["A"], ("B", 9)), (33, ["B"], ("A", 2)), (41, ["A"], ("B", 8)),
    (44, ["B"], ("A", 3)),
]
EX5 = {
    "A": [8, 11, 34, 43, 48],
    "B": [3, 8, 31, 38, 41],
    "C": [1, 4, 31, 42, 49],
    "D": [2, 9, 33, 39, 44],
}


def trace(calls: Any) -> tuple[list[tuple[int, list[str], Any]], tuple[str, int] | None]:
    """(number, declarers, (previous leader, stint)) per declaration, and the
    stint still running when the round ended."""
    out = []
    stint: tuple[str, int] | None = None
    for c in calls:
        if c.advanced is not None:
            stint = (c.advanced, (stint[1] if stint else 0) + 1)
        if c.declared:
            out.append((c.number, list(c.declared), stint))
            stint = None
    return out, stint


# -- Example 1 ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("numbers", "code"),
    [
        ([3, 10, 22, 31, 49], "restricted_digit"),
        ([8, 13, 13, 31, 44], "duplicate"),
        ([8, 13, 31, 44, 50], "out_of_range"),
    ],
)
def test_example1_rejected(table, numbers, code):
    t = table(("A", "B", "C"))
    t.cards([2, 5, 7])
    assert t.view("A")["restricted_digits"] == [0, 2, 5, 7]
    with pytest.raises(EngineError) as err:
        t.act("numbers", "B", numbers=numbers)
    assert err.value.code == code
    assert t.seat("B").numbers is None


def test_example1_messages_name_the_numbers(table):
    t = table(("A", "B", "C"))
    t.cards([2, 5, 7])
    with pytest.raises(EngineError) as err:
        t.act("numbers", "B", numbers=[3, 10, 22, 31, 49])
    assert "10, 22" in err.value.message and "0, 2, 5, 7" in err.value.message


def test_example1_accepted_and_sorted(table):
    t = table(("A", "B", "C"))
    t.cards([2, 5, 7])
    t.act("numbers", "B", numbers=[49, 8, 13, 31, 44])
    assert t.seat("B").numbers == (8, 13, 31, 44, 49)
    assert t.view("B")["my_numbers"] == [8, 13, 31, 44, 49]


def test_example1_five_players(table):
    t = table(("A", "B", "C", "D", "E"))
    t.cards([2, 5, 7])
    assert t.view(None)["restricted_digits"] == [2, 5]
    t.act("numbers", "C", numbers=[10, 13, 31, 44, 49])
    assert t.seat("C").numbers == (10, 13, 31, 44, 49)


# -- Examples 2 and 3 -----------------------------------------------------------


def test_example2_full_round(table):
    t = table()
    t.cards([2, 5, 7])
    t.sheets(EX2)
    assert t.state.phase == "count"
    # Step by step, as the caller would.
    while t.state.phase == "count":
        t.call()
    declarations, last = trace(t.state.calls)
    assert declarations == [(n, d, g) for n, d, g in EX2_TRACE]
    assert last == ("B", 2) and t.state.count == 50 and t.state.end == "max"
    assert t.markers() == {"A": 9, "B": 15, "C": 12, "D": 11}
    rec = t.state.rounds[-1]
    assert [x.number for x in rec.seats[0].x_cells] == [9]
    assert rec.seats[0].x_cells[0].slot == 1 and rec.seats[1].x_cells[0].slot == 1
    assert t.scores() == {"A": 10, "B": 16, "C": 12, "D": 11}
    assert not any(s.star for s in rec.seats)
    assert t.state.phase == "scored"


def test_example2_until_end_matches_step_by_step(table):
    t = table()
    t.cards([2, 5, 7])
    t.sheets(EX2)
    events = t.call("end")
    # Only the numbers where something happened are in the history.
    assert [e["number"] for e in events if e["type"] == "called"] == [
        n for n, _, _ in EX2_TRACE
    ] + [50]
    assert len(t.state.calls) == 50
    assert t.scores() == {"A": 10, "B": 16, "C": 12, "D": 11}


def test_example2_other_bonus_table(table):
    t = table(bonus=[[0, 7, 0, 0, 0], [2] * 5, [2] * 5, [3] * 5])
    t.cards([2, 5, 7])
    t.sheets(EX2)
    t.call("end")
    # 9 sits in slot 2 on both sheets.
    assert t.scores() == {"A": 16, "B": 22, "C": 12, "D": 11}
    assert t.state.rounds[-1].seats[1].star


def test_example3_danger_zone(table):
    t = table(dangerZoneEnabled=True)
    t.cards([2, 5, 7], danger=[1, 10])
    t.sheets(EX2)
    t.call("end")
    assert t.markers() == {"A": 9, "B": 15, "C": 12, "D": 11}
    assert t.scores() == {"A": 9, "B": 15, "C": 12, "D": 11}
    rec = t.state.rounds[-1]
    assert rec.seats[0].x_cells[0].voided and rec.seats[1].x_cells[0].voided
    nine = next(c for c in t.state.calls if c.number == 9)
    assert nine.voided


# -- Example 4 ------------------------------------------------------------------


def test_example4_leader_numbers_and_marker20(table):
    t = table(("A", "B", "C"), round_no=4)
    t.cards([5, 6, 7])
    assert t.view("A")["restricted_digits"] == [0, 5, 6, 7]
    t.sheets(EX4)
    events = t.call("end")
    declarations, last = trace(t.state.calls)
    assert declarations == EX4_TRACE
    assert last == ("B", 3)
    assert t.state.count == 47 and t.state.end == "marker20"
    assert events[-3]["type"] == "called" and events[-3]["end"] == "marker20"
    assert [e["type"] for e in events[-2:]] == ["round_ended", "round_scored"]
    assert 48 not in t.seat("C").declared
    assert t.markers() == {"A": 8, "B": 20, "C": 2}
    assert [len(t.seat(p).x_cells) for p in "ABC"] == [1, 2, 1]
    assert [x.number for x in t.seat("B").x_cells] == [3, 14]
    assert t.scores() == {"A": 11, "B": 26, "C": 5}
    assert [s.star for s in t.state.rounds[-1].seats] == [False, True, False]


# -- Example 5 ------------------------------------------------------------------


def test_example5_marker20_before_declarations(table):
    t = table(round_no=2)
    t.cards([5, 6, 7])
    t.sheets(EX5)
    t.call("end")
    assert t.state.count == 31 and t.state.end == "marker20"
    declarations, last = trace(t.state.calls)
    assert declarations[:6] == [
        (1, ["C"], None), (2, ["D"], ("C", 1)), (3, ["B"], ("D", 1)), (4, ["C"], ("B", 1)),
        (8, ["A", "B"], ("C", 4)), (9, ["D"], None),
    ]
    assert declarations[6] == (11, ["A"], ("D", 2)) and last == ("A", 20)
    assert t.state.calls[-1].declared == ()
    assert t.markers() == {"A": 20, "B": 1, "C": 5, "D": 3}
    assert t.scores() == {"A": 22, "B": 3, "C": 5, "D": 3}


def test_example5_final_count_declarations(table):
    t = table(round_no=2, finalCountDeclarations=True)
    t.cards([5, 6, 7])
    t.sheets(EX5)
    t.call("end")
    assert t.state.count == 31 and t.state.end == "marker20"
    assert t.state.calls[-1].declared == ("B", "C")
    assert t.scores() == {"A": 22, "B": 5, "C": 7, "D": 3}


def test_example5_paper_mode(table):
    """The same round on paper: the host taps who declared."""
    t = table(round_no=2, sheetMode="paper", finalCountDeclarations=True)
    t.cards([5, 6, 7])
    owners: dict[int, list[str]] = {}
    for p, nums in EX5.items():
        for n in nums:
            owners.setdefault(n, []).append(p)
    while t.state.phase == "count":
        t.call()
        if t.state.phase == "count" and t.state.count in owners:
            t.act("declare", players=owners[t.state.count])
    assert t.state.phase == "bonus" and t.state.end == "marker20"
    view = t.view("A")
    assert view["bonus"]["A"] == {"points": None, "pending": True, "hint": 2}
    assert view["bonus"]["D"]["pending"] is False
    for p in "ABC":
        t.act("bonus", p, points=view["bonus"][p]["hint"])
    assert t.scores() == {"A": 22, "B": 5, "C": 7, "D": 3}


# -- Examples 6 and 7 (end of game) ---------------------------------------------


def records(table_: dict[str, list[int]]) -> tuple[list[str], list[RoundRecord]]:
    players = list(table_)
    n_rounds = len(next(iter(table_.values())))
    out = []
    for r in range(n_rounds):
        seats = tuple(
            SeatResult(numbers=None, marker=0, x_cells=(), cell_bonus=(), bonus=0,
                       score=table_[p][r], star=table_[p][r] >= 20)
            for p in players
        )
        out.append(RoundRecord(number=r + 1, restriction=None, restricted=(), danger=None,
                               end="max", last=50, seats=seats))
    return players, out


def test_example6_two_stars_win():
    players, rounds = records({"A": [22, 6, 20], "B": [13, 21, 17], "C": [9, 14, 8]})
    assert decide(players, rounds[:2]) is None
    result = decide(players, rounds)
    assert result is not None
    assert (result.winners, result.ended_by, result.reason) == (("A",), "two_stars", "two_stars")


def test_example6_two_players_second_star_same_round():
    players, rounds = records({"A": [22, 6, 20], "B": [13, 21, 23], "C": [9, 14, 8]})
    result = decide(players, rounds)
    assert result is not None
    assert (result.winners, result.ended_by, result.reason) == (("B",), "two_stars", "total")


@pytest.mark.parametrize(
    ("b_scores", "winners", "reason", "depth"),
    [
        ([14, 14, 14, 12], ("A",), "tie_break", 1),  # the best round decides
        ([18, 11, 13, 12], ("A",), "tie_break", 2),  # then the second best
        ([15, 9, 18, 12], ("A", "B"), "shared", None),  # every round ties: shared victory
    ],
)
def test_example7_ties(b_scores, winners, reason, depth):
    players, rounds = records({"A": [12, 18, 9, 15], "B": b_scores, "C": [10, 11, 19, 13]})
    result = decide(players, rounds)
    assert result is not None
    assert (result.winners, result.reason) == (winners, reason)
    if depth is not None:
        assert result.tie_break_depth == depth


def test_example6_in_play_instant_win(table):
    """A leads from 1 and reaches 20 at 21 in two rounds: the game ends."""
    t = table(("A", "B", "C"))
    for r in (1, 2):
        t.cards([7, 8, 9])
        t.sheets({"A": [1, 2, 3, 4, 5], "B": [31, 32, 33, 34, 35], "C": [41, 42, 43, 44, 45]})
        t.call("end")
        assert t.state.count == 21 and t.scores()["A"] == 20
        if r == 1:
            t.act("next_round")
    assert t.state.phase == "over"
    view = t.view(None)
    assert view["result"]["winners"] == ["A"] and view["result"]["ended_by"] == "two_stars"
    assert ENGINE.status(t.state) == {"round": 2, "over": True}
    assert ENGINE.public_players(t.state)["A"]["stars"] == 2
    with pytest.raises(EngineError) as err:
        t.act("next_round")
    assert err.value.code == "game_over"


def test_example6_variant_in_play(table):
    """Bonuses alone give A and B their second ☆20 in the same round (UP-8, UP-13)."""
    t = table(("A", "B", "C"), bonus=[[20] * 5] * 4)
    sheets = {"A": [1, 2, 3, 4, 11], "B": [1, 21, 22, 23, 24], "C": [41, 42, 43, 44, 45]}
    for r in (1, 2):
        t.cards([7, 8, 9])
        t.sheets(sheets)
        t.call("end")
        if r == 1:
            t.act("next_round")
    assert t.state.phase == "over"
    totals = {p: v["total"] for p, v in ENGINE.public_players(t.state).items()}
    assert totals["A"] != totals["B"]
    best = max(("A", "B"), key=totals.__getitem__)
    assert t.view("C")["result"]["winners"] == [best]
    assert t.view("C")["result"]["reason"] == "total"


def test_example7_in_play_four_rounds(table):
    t = table(("A", "B", "C"))
    t.play_example7()
    assert t.state.phase == "over"
    result = t.view("A")["result"]
    assert (result["ended_by"], result["reason"], result["winners"]) == ("last_round", "total", ["B"])
    pp = ENGINE.public_players(t.state)
    assert pp["A"] == {"round_scores": [16] * 4, "stars": 0, "total": 64, "marker": 16}
    assert result["totals"] == {"A": 64, "B": 76, "C": 56}


# -- Example 8 ------------------------------------------------------------------


def test_example8_nine_players():
    players = [f"p{i}" for i in range(1, 10)]
    state = ENGINE.setup(players, ENGINE.normalize_options({}))
    view = ENGINE.view(state, "p1")
    assert view["max"] == 60 and view["number_range"] == [1, 59]
    assert view["restricted_digits"] == [] and view["restriction_card"] is None
    assert state.phase == "entry"
    # p9 collides on 1-4 with p1, so its marker is 0 when it declares 45.
    sheets = {"p1": [1, 2, 3, 4, 5], "p9": [1, 2, 3, 4, 45]}
    pool = iter(range(6, 45))
    for p in players[1:8]:
        sheets[p] = [next(pool) for _ in range(5)]
    with pytest.raises(EngineError) as err:
        ENGINE.apply(state, {"type": "numbers", "player": "p2", "host": False,
                             "numbers": [10, 20, 55, 59, 60]})
    assert err.value.code == "out_of_range"
    state, _ = ENGINE.apply(state, {"type": "numbers", "player": "p2", "host": False,
                                    "numbers": [10, 20, 55, 59, 1]})
    state = ENGINE.setup(players, ENGINE.normalize_options({}))
    for p, nums in sheets.items():
        state, _ = ENGINE.apply(state, {"type": "numbers", "player": p, "host": False,
                                        "numbers": nums})
    state, _ = ENGINE.apply(state, {"type": "call", "player": "p1", "host": True,
                                    "until": "end"})
    assert state.rounds[-1].last == 60 and state.rounds[-1].end == "max"
    assert state.rounds[-1].seats[8].marker == 15


def test_example8_eight_players_max():
    players = [f"p{i}" for i in range(1, 9)]
    state = ENGINE.setup(players, ENGINE.normalize_options({"restrictionSource": "manual"}))
    assert state.phase == "entry"  # no cards to type at 8+
    assert ENGINE.view(state, None)["max"] == 55

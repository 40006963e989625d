"""A seat without a phone at a phone table (issue 17): it writes on the paper
sheet; the caller taps when it declares the number just called, and the host
enters its bonus after the round."""

from __future__ import annotations

from dataclasses import replace

from engines.countup import ENGINE

# Example 2's sheets; B (seat p2) writes on paper.
SHEETS = {"p1": [3, 9, 14, 30, 41], "p3": [1, 11, 19, 33, 44], "p4": [4, 16, 29, 38, 46]}
PAPER = [6, 9, 21, 36, 48]
# Collisions score nothing after round 1, so later rounds are easy to follow by hand.
BONUS = [[1] * 5, [0] * 5, [0] * 5, [0] * 5]


def paper_table(table, **options):
    t = table(("p1", "p2", "p3", "p4"), **options)
    t.state = replace(t.state, paper=("p2",))
    return t


def count_round(t, paper: list[int]) -> None:
    """Calls one number at a time; the caller taps for p2 on its numbers."""
    while t.state.phase == "count":
        t.call()
        n = t.state.count
        if t.state.phase == "count" and n in paper:
            t.act("paper_declare", "p2", host=False, number=n)


def test_a_paper_seat_collides_with_a_phone_sheet_and_ties_the_game(table):
    t = paper_table(table, bonus=BONUS)
    t.cards([2, 5, 7])
    t.refuse("sheet_on_paper", "numbers", "p2", numbers=PAPER)
    t.sheets(SHEETS)
    # The count starts without the paper sheet.
    assert t.view(None)["phase"] == "count"
    assert t.view(None)["paper_sheets"] == ["p2"] and t.view("p1")["paper"] == ["p2"]
    t.refuse("nothing_called", "paper_declare", "p2", number=1)
    t.call()
    t.refuse("not_last_number", "paper_declare", "p2", number=2)
    t.refuse("wrong_mode", "paper_declare", "p1", number=1)  # the app reads p1's sheet
    assert ENGINE.legal_actions(t.state, "p2") == [{"type": "paper_declare", "number": 1}]
    t.call()
    # 2 ends in a restricted digit: nobody can have written it.
    assert ENGINE.legal_actions(t.state, "p2") == []
    t.refuse("restricted_number", "paper_declare", "p2", number=2)
    for _ in range(4):
        t.call()
    t.act("paper_declare", "p2", number=6)
    t.refuse("already_declared", "paper_declare", "p2", number=6)
    assert t.state.leader == "p2"
    t.call()
    t.call()
    t.call()
    # 9: p1's phone sheet declares it alone and leads ...
    assert (t.state.count, t.state.leader) == (9, "p1")
    # ... until the caller taps p2's hand: a collision, B +3 on 7-9 first (Example 2).
    event = t.act("paper_declare", "p2", number=9)[-1]
    assert event["type"] == "declared" and event["players"] == ["p1", "p2"]
    assert event["leader"] is None and event["paper"] == "p2"
    assert t.state.leader is None and t.markers()["p2"] == 3
    assert [(x.number, x.slot) for x in t.seat("p1").x_cells] == [(9, 1)]
    assert [(x.number, x.slot) for x in t.seat("p2").x_cells] == [(9, None)]
    for viewer in (None, "p1", "p3"):
        assert t.view(viewer)["sheets"]["p2"]["numbers"] is None
        assert t.view(viewer)["sheets"]["p2"]["declared"] == [6, 9]
    count_round(t, PAPER)
    assert t.markers() == {"p1": 9, "p2": 15, "p3": 12, "p4": 11}
    # The paper sheet's crossed cell: its bonus comes from the host; p1's is read off.
    v = t.view("p3")
    assert (v["phase"], v["paper_waiting"]) == ("bonus", ["p2"])
    assert v["bonus"]["p2"] == {"points": None, "pending": True, "hint": 1}
    assert v["bonus"]["p1"]["pending"] is False
    assert ENGINE.legal_actions(t.state, "p2") == [{"type": "bonus"}]
    assert {"type": "bonus"} not in ENGINE.legal_actions(t.state, "p1")
    t.refuse("wrong_mode", "bonus", "p1", points=1)
    events = t.act("bonus", "p2", host=False, points=1)
    assert events[-1]["type"] == "round_scored"
    assert t.scores() == {"p1": 10, "p2": 16, "p3": 12, "p4": 11}

    # Rounds 2 and 3: the phones collide on every number, the paper seat declares nothing.
    for _ in (2, 3):
        t.act("next_round", host=True)
        t.cards([7, 8, 9])
        t.sheets({p: [1, 2, 3, 4, 5] for p in ("p1", "p3", "p4")})
        t.call(until="end")
        assert t.scores() == {"p1": 0, "p2": 0, "p3": 0, "p4": 0}
    # Round 4: p2 declares 1 and leads to p1's 4; p1 leads to the collision on 13.
    t.act("next_round", host=True)
    t.cards([7, 8, 9])
    t.sheets({"p1": [4, 13, 14, 15, 16], "p3": [13, 14, 15, 16, 20], "p4": [13, 14, 15, 16, 20]})
    count_round(t, [1])
    assert t.scores() == {"p1": 9, "p2": 3, "p3": 0, "p4": 0}
    # 19 each: p2's best round (16) beats p1's (10), R20.
    over = t.events[-1]
    assert over["type"] == "game_over" and over["winners"] == ["p2"]
    assert over["reason"] == "tie_break"
    result = t.view(None)["result"]
    assert result["totals"] == {"p1": 19, "p2": 19, "p3": 12, "p4": 11}
    assert result["tie_break_depth"] == 1


def test_a_paper_hand_on_a_phone_collision_joins_it(table):
    t = paper_table(table)
    t.cards([2, 5, 7])
    t.sheets({"p1": [1, 3, 4, 6, 8], "p3": [1, 10, 11, 13, 14], "p4": [20, 21, 23, 24, 26]})
    t.call()
    assert t.state.calls[-1].declared == ("p1", "p3")
    t.act("paper_declare", "p2", number=1)
    assert t.state.calls[-1].declared == ("p1", "p2", "p3")
    assert t.state.leader is None
    assert [len(t.seat(p).x_cells) for p in ("p1", "p2", "p3", "p4")] == [1, 1, 1, 0]


def test_the_count_waits_for_the_phones_only_and_a_late_paper_seat_is_not_waited_for(table):
    t = table(("p1", "p2", "p3"))
    t.cards([2, 5, 7])
    t.sheets({"p1": [1, 3, 4, 6, 8], "p3": [11, 13, 14, 16, 19]})
    assert t.view(None)["phase"] == "entry"
    # p2's phone dies before its sheet is locked: it writes on paper from now on.
    events = t.act("set_paper", host=True, seat="p2")
    assert events[-1] == {"type": "count_ready", "round": 1}
    # No hand goes up for p2 all round: its sheet has no crossed cell, no bonus to wait for.
    t.call(until="end")
    assert t.view(None)["phase"] == "scored"


def test_paper_sheets_at_a_paper_table_take_the_host_entry(table):
    t = table(("p1", "p2", "p3"), sheetMode="paper")
    t.state = replace(t.state, paper=("p2",))
    t.cards([2, 5, 7])
    t.call()
    assert ENGINE.legal_actions(t.state, "p2") == []  # the caller taps declare for all
    t.act("declare", players=["p1", "p2"])
    t.call(until="end")
    assert t.view(None)["paper_waiting"] == ["p2"]
    assert ENGINE.legal_actions(t.state, "p2") == [{"type": "bonus"}]
    t.act("bonus", "p2", host=False, points=1)
    t.act("bonus", "p1", points=1)
    assert t.view(None)["phase"] == "scored"


def test_with_final_count_declarations_a_paper_hand_collides_on_the_last_number(table):
    t = table(("p1", "p2", "p3"), finalCountDeclarations=True)
    t.state = replace(t.state, paper=("p2",))
    t.cards([7, 8, 9])
    t.sheets({"p1": [1, 31, 32, 33, 34], "p3": [21, 41, 42, 43, 44]})
    for _ in range(21):
        t.call()
    # p1 reached 20 on 21; the number stays open for a paper hand until the next call.
    assert (t.markers()["p1"], t.state.final_pending, t.state.end) == (20, True, None)
    assert ENGINE.legal_actions(t.state, "p2") == [{"type": "paper_declare", "number": 21}]
    t.act("paper_declare", "p2", number=21)
    assert t.state.calls[-1].declared == ("p2", "p3")
    t.call()
    assert t.state.end == "marker20" and t.view(None)["paper_waiting"] == ["p2"]
    t.act("bonus", "p2", points=1)
    assert t.scores() == {"p1": 20, "p2": 1, "p3": 1}

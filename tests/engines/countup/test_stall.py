"""The stalled phone (issue 33): whom the table waits for, a seat on paper handed its
phone back, and a count that starts without a phone's sheet."""

from __future__ import annotations

from dataclasses import replace

from engines.countup import ENGINE
from tests.words import describe_in

# Example 2's sheets (docs/rules), seats p1..p4 for A..D.
EXAMPLE2 = {"p1": [3, 9, 14, 30, 41], "p2": [6, 9, 21, 36, 48],
            "p3": [1, 11, 19, 33, 44], "p4": [4, 16, 29, 38, 46]}
PLAYERS = ("p1", "p2", "p3", "p4")


def host_templates(t, kind: str) -> list[dict]:
    return [a for a in ENGINE.legal_actions(t.state, "p1") if a["type"] == kind]


def test_the_count_waits_for_the_phones_still_writing(table):
    t = table(PLAYERS)
    assert ENGINE.waiting(t.state) == ()  # the host types the cards in
    t.cards([2, 5, 7])
    assert ENGINE.waiting(t.state) == PLAYERS
    t.act("set_paper", host=True, seat="p3")  # a paper sheet is not waited for
    t.sheets({"p2": EXAMPLE2["p2"]})
    for viewer in (None, "p1", "p2"):
        assert t.view(viewer)["waiting"] == ["p1", "p4"]
    t.sheets({"p1": EXAMPLE2["p1"], "p4": EXAMPLE2["p4"]})
    assert t.state.phase == "count" and ENGINE.waiting(t.state) == ()


def test_a_skipped_seat_sits_the_round_out_with_0_and_writes_again_next_round(table):
    t = table(PLAYERS)
    t.cards([2, 5, 7])
    t.sheets({p: EXAMPLE2[p] for p in ("p1", "p3", "p4")})
    assert host_templates(t, "skip") == [{"type": "skip", "seat": "p2", "host": True}]
    events = t.act("skip", seat="p2")
    assert events == [{"type": "seat_skipped", "round": 1, "seat": "p2"},
                      {"type": "count_ready", "round": 1}]
    assert describe_in(ENGINE, events[0], "ko", {"p2": "하린"}) == "하린님이 1라운드를 쉽니다: 숫자 없이 라운드 점수 0점."
    assert describe_in(ENGINE, events[0], "en", {"p2": "Harin"}) == (
        "Harin sits out round 1: no numbers, a round score of 0."
    )
    sheet = t.view("p3")["sheets"]["p2"]
    assert (sheet["locked"], sheet["sat_out"], t.view("p2")["my_numbers"]) == (True, True, [])
    msg = t.refuse("locked", "numbers", "p2", numbers=EXAMPLE2["p2"])
    assert "sits round 1 out" in msg
    t.call("end")
    # Example 2 without B: no collision on 9 (A leads from it), no stint of B's;
    # C's stint 19-38 reaches 20 on 38 and ends the round.
    assert t.scores() == {"p1": 8, "p2": 0, "p3": 20, "p4": 9}
    assert t.state.end == "marker20" and t.state.rounds[0].seats[1].numbers == ()
    assert t.view(None)["rounds_played"][0]["players"]["p2"]["numbers"] == []
    t.act("next_round")
    t.cards([2, 5, 7])
    assert ENGINE.waiting(t.state) == PLAYERS
    t.sheets(EXAMPLE2)  # p2 writes again
    assert t.state.phase == "count"


def test_skip_is_refused_outside_the_entry_of_sheets(table):
    t = table(PLAYERS)
    t.refuse("not_waiting", "skip", "p1", seat="p2")  # the cards are the host's
    t.cards([2, 5, 7])
    t.refuse("not_host", "skip", "p2", host=False, seat="p3")
    t.refuse("not_seated", "skip", "p1", seat="p9")
    t.sheets({"p2": EXAMPLE2["p2"]})
    t.refuse("not_waiting", "skip", "p1", seat="p2")  # its sheet is locked
    t.sheets({p: EXAMPLE2[p] for p in ("p1", "p3", "p4")})
    t.refuse("not_waiting", "skip", "p1", seat="p1")  # the count: the host calls
    assert host_templates(t, "skip") == []


def test_a_paper_bonus_cannot_be_skipped(table):
    t = table(("p1", "p2", "p3"), sheetMode="paper")
    t.cards([2, 5, 7])
    t.call()
    t.act("declare", players=["p1", "p2"])
    t.call(until="end")
    assert ENGINE.waiting(t.state) == ("p1", "p2")
    assert "bonus" in t.refuse("cannot_skip", "skip", "p1", seat="p2")
    assert host_templates(t, "skip") == []


def test_a_seat_on_paper_gets_its_phone_back_before_the_count_and_is_waited_for(table):
    t = table(PLAYERS)
    t.act("set_paper", host=True, seat="p2")
    assert t.view(None)["paper_until"] == {}
    assert host_templates(t, "set_phone") == [{"type": "set_phone", "seat": "p2", "host": True}]
    t.cards([2, 5, 7])
    t.sheets({p: EXAMPLE2[p] for p in ("p1", "p3")})
    events = t.act("set_phone", seat="p2")
    assert events == [{"type": "seat_phone", "seat": "p2"}]
    assert describe_in(ENGINE, events[0], "en", {"p2": "Harin"}) == (
        "Harin is back on their phone: the app keeps their secrets again."
    )
    assert ENGINE.waiting(t.state) == ("p2", "p4")
    t.sheets({p: EXAMPLE2[p] for p in ("p2", "p4")})
    t.call("end")
    assert t.scores() == {"p1": 10, "p2": 16, "p3": 12, "p4": 11}  # Example 2


def test_a_paper_sheet_keeps_its_seat_on_paper_until_the_round_is_scored(table):
    t = table(PLAYERS)
    t.cards([2, 5, 7])
    t.sheets({p: EXAMPLE2[p] for p in ("p1", "p3")})
    t.act("set_paper", host=True, seat="p2")
    t.sheets({"p4": EXAMPLE2["p4"]})
    assert t.state.phase == "count"
    assert t.view("p1")["paper_until"] == {"p2": "round_end"}
    assert host_templates(t, "set_phone") == []
    msg = t.refuse("paper_until_round_end", "set_phone", "p1", seat="p2")
    assert "round 1" in msg
    t.call()
    t.call()
    t.call()
    t.act("paper_declare", "p2", host=False, number=3)  # p2's hand: A collides on 3
    t.call("end")
    assert t.state.phase == "bonus"
    t.refuse("paper_until_round_end", "set_phone", "p1", seat="p2")
    t.act("bonus", seat="p2", points=1)
    assert t.state.phase == "scored" and t.view(None)["paper_until"] == {}
    t.act("set_phone", seat="p2")
    t.act("next_round")
    t.cards([2, 5, 7])
    assert ENGINE.waiting(t.state) == PLAYERS


def test_a_sheet_locked_before_the_phone_died_lets_the_phone_back_at_once(table):
    t = table(PLAYERS)
    t.cards([2, 5, 7])
    t.sheets({p: EXAMPLE2[p] for p in ("p1", "p2", "p3")})
    t.act("set_paper", host=True, seat="p2")
    t.sheets({"p4": EXAMPLE2["p4"]})
    t.call()
    assert t.view(None)["paper_until"] == {}
    t.act("set_phone", seat="p2")
    t.call("end")
    assert t.scores()["p2"] == 16


def test_at_a_paper_table_a_seat_gets_its_phone_back_any_time(table):
    t = table(("p1", "p2", "p3"), sheetMode="paper")
    t.state = replace(t.state, paper=("p2",))
    t.cards([2, 5, 7])
    t.call()
    assert t.view(None)["paper_until"] == {}
    t.act("set_phone", seat="p2")
    assert t.state.paper == ()

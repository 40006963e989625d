"""The stalled phone (issue 33): whom the table waits for, a seat on paper handed its
phone back, and an election that goes on without a seat's vote."""

from __future__ import annotations

from dataclasses import replace

from engines.kingup import ENGINE
from engines.kingup.state import AWAITING_GOALS, VOTE
from tests.words import describe_in

# Example 3's board at the coronation of D (tests/engines/kingup/test_paper.py).
B3 = {"throne": "D", 5: "AGK", 4: "BH", 3: "CEM", 2: "I", 1: "J", 0: "L", "eliminated": "F"}
MOVES = {5: "AGKD", 4: "BH", 3: "CEM", 2: "I", 1: "J", 0: "L", "eliminated": "F"}


def host_templates(t, kind: str) -> list[dict]:
    """The host's ``kind`` templates (any phone's list holds them, marked for the host)."""
    return [a for a in ENGINE.legal_actions(t.state, "p1") if a["type"] == kind]


def test_the_table_waits_for_the_turn_the_missing_votes_and_the_missing_goal_cards(table):
    t = table(4)
    assert ENGINE.waiting(t.state) == ("p1",)  # placement, p1 starts
    t.board(B3, phase=VOTE, crown=1)
    assert ENGINE.waiting(t.state) == ("p1", "p2", "p3", "p4")
    t.act("p3", "vote", vote="no")
    t.act("p1", "vote", vote="yes")
    for viewer in (None, "p1", "p2"):
        assert t.view(viewer)["waiting"] == ["p2", "p4"]
    t.act("p2", "vote", vote="yes")
    t.act("p4", "vote", vote="yes")
    # D is out; p3 (left of the crown holder p2) moves next.
    assert ENGINE.waiting(t.state) == ("p3",) and t.view(None)["waiting"] == ["p3"]
    t.board(B3, phase=VOTE, crown=1)
    for p in t.players:
        t.act(p, "vote", vote="yes")
    assert t.state.phase == AWAITING_GOALS
    t.goals({"p2": "ABCDEF", "p4": "ABCDEF"})
    assert ENGINE.waiting(t.state) == ("p1", "p3")
    t.goals({"p1": "ABCDEF", "p3": "ABCDEF"})
    assert ENGINE.waiting(t.state) == ()  # scored: only the host's next_round is left
    assert t.view(None)["waiting"] == []


def test_a_skipped_vote_counts_as_yes_and_the_last_one_reveals(table):
    t = table(4)
    t.board(B3, phase=VOTE, crown=1)
    t.act("p1", "vote", vote="yes")
    assert host_templates(t, "skip") == [
        {"type": "skip", "seat": p, "host": True} for p in ("p2", "p3", "p4")
    ]
    events = t.act("p1", "skip", host=True, seat="p3")
    assert events == [{"type": "seat_skipped", "seat": "p3", "count": 2, "of": 4}]
    names = {"p3": "하린"}
    assert describe_in(ENGINE, events[0], "ko", names) == "하린님이 자리에 없어 그 표는 찬성으로 칩니다 (2/4)."
    assert describe_in(ENGINE, events[0], "en", {"p3": "Harin"}) == (
        "Harin is away: their vote counts as Yes (2 of 4)."
    )
    v = t.view("p2")
    assert v["election"]["voted"] == ["p1", "p3"] and v["waiting"] == ["p2", "p4"]
    t.refused("not_waiting", "p1", "skip", host=True, seat="p3")
    t.refused("already_voted", "p3", "vote", vote="no")
    t.act("p2", "vote", vote="no")
    revealed = t.act("p1", "skip", host=True, seat="p4")[-1]
    assert revealed["type"] == "votes_revealed" and revealed["result"] == "eliminated"
    assert revealed["votes"] == {"p1": "yes", "p2": "no", "p3": "yes", "p4": "yes"}
    # A skipped seat spends no No card: only p2's is gone.
    assert t.state.no_left == (3, 2, 3, 3)


def test_all_votes_skipped_but_one_crowns_the_candidate(table):
    t = table(3)
    t.board(B3, phase=VOTE, crown=0)
    t.act("p1", "skip", host=True, seat="p2")
    t.act("p1", "skip", host=True, seat="p1")  # the host may skip itself too: a Yes
    assert t.act("p3", "vote", vote="yes")[-1]["result"] == "crowned"


def test_skip_is_refused_where_no_rule_lets_the_game_go_on(table):
    t = table(4)
    t.refused("not_host", "p2", "skip", seat="p1")
    t.refused("not_seated", "p1", "skip", host=True, seat="p9")
    t.refused("not_waiting", "p1", "skip", host=True, seat="p2")  # placement: p1's turn
    msg = t.refused("cannot_skip", "p1", "skip", host=True, seat="p1")
    assert "R10" in msg
    t.board(MOVES, turn=2)
    t.refused("cannot_skip", "p1", "skip", host=True, seat="p3")
    assert host_templates(t, "skip") == []
    t.board(B3, phase=VOTE, crown=1)
    for p in t.players:
        t.act(p, "vote", vote="yes")
    assert ENGINE.waiting(t.state) == ("p1", "p2", "p3", "p4")  # goal cards
    assert "R19" in t.refused("cannot_skip", "p1", "skip", host=True, seat="p2")
    assert host_templates(t, "skip") == []


def test_a_paper_seat_s_vote_can_be_skipped_before_the_phones_have_voted(table):
    t = table(4)
    t.state = replace(t.state, paper=("p3",))
    t.board(B3, phase=VOTE, crown=1)
    assert ENGINE.waiting(t.state) == ("p1", "p2", "p3", "p4")
    assert t.view(None)["paper_waiting"] == []
    t.act("p1", "skip", host=True, seat="p3")
    assert t.view(None)["election"]["voted"] == ["p3"]


def test_a_seat_gets_its_phone_back_with_its_goal_card_and_no_count(table):
    t = table(4)
    t.goals({"p1": "ABCDEF", "p2": "GHIJKL", "p3": "ABCGHM", "p4": "FLJICE"})
    t.board(B3, phase=VOTE, crown=1, no_left=(3, 3, 1, 3))
    t.act("p1", "set_paper", host=True, seat="p3")
    # Its vote is a physical card now, maybe already face down: votes are final.
    assert t.view(None)["paper_until"] == {"p3": "reveal"}
    assert host_templates(t, "set_phone") == []
    msg = t.refused("paper_until_reveal", "p1", "set_phone", host=True, seat="p3")
    assert "p3" in msg
    for p in ("p1", "p2", "p4"):
        t.act(p, "vote", vote="yes")
    t.act("p3", "vote", vote="no")  # the host enters the card shown at the reveal
    assert t.view(None)["paper_until"] == {}
    assert host_templates(t, "set_phone") == [{"type": "set_phone", "seat": "p3", "host": True}]
    events = t.act("p1", "set_phone", host=True, seat="p3")
    assert events == [{"type": "seat_phone", "seat": "p3"}]
    assert describe_in(ENGINE, events[0], "ko", {"p3": "하린"}) == (
        "하린님이 다시 휴대폰으로 참여합니다: 비밀 정보는 다시 앱이 지킵니다."
    )
    assert t.state.paper == ()
    me = t.view("p3")["me"]
    assert me["goal"] == list("ABCGHM") and me["no_left"] == 0
    t.refused("bad_action", "p1", "set_phone", host=True, seat="p3")
    t.refused("not_host", "p2", "set_phone", seat="p3")
    t.refused("not_seated", "p1", "set_phone", host=True, seat="p9")


def test_a_printed_card_keeps_the_seat_on_paper_until_its_round_is_scored(table):
    t = table(3, goalCardMode="deal")
    t.act("p1", "set_paper", host=True, seat="p2")
    t.act("p1", "draw_goal")
    t.act("p3", "draw_goal")
    # p2 took a printed card (no draw for a seat on paper): no virtual card can replace it.
    assert t.view(None)["paper_until"] == {"p2": "round_end"}
    msg = t.refused("paper_until_round_end", "p1", "set_phone", host=True, seat="p2")
    assert "round 1" in msg
    t.board(B3, phase=VOTE, crown=0)
    for p in ("p1", "p3", "p2"):  # the paper card last
        t.act(p, "vote", vote="yes")
    t.refused("paper_until_round_end", "p1", "set_phone", host=True, seat="p2")
    t.act("p2", "goal", characters=list("ABCDEF"))
    assert t.state.phase == "scored"
    t.act("p1", "set_phone", host=True, seat="p2")
    t.act("p1", "next_round", host=True)
    assert {"type": "draw_goal"} in ENGINE.legal_actions(t.state, "p2")


def test_a_seat_back_on_its_phone_records_its_printed_card_itself(table):
    t = table(3)
    t.act("p1", "set_paper", host=True, seat="p2")
    assert ENGINE.legal_actions(t.state, "p2") == []  # its card waits for the reveal
    t.act("p1", "set_phone", host=True, seat="p2")
    assert {"type": "goal"} in ENGINE.legal_actions(t.state, "p2")
    assert t.act("p2", "goal", characters=list("ABCDEF")) == [
        {"type": "goal_recorded", "player": "p2"}
    ]

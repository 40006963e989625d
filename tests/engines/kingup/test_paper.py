"""A seat without a phone (issue 17): its goal card and vote are physical cards,
entered for it by the host only once the table has seen them."""

from __future__ import annotations

from dataclasses import replace

from engines.kingup import ENGINE
from engines.kingup.constants import CHARACTERS
from engines.kingup.state import VOTE

# Example 3's board, one step earlier: F is the candidate, D still on level 5.
BEFORE_B3 = {"throne": "F", 5: "AGKD", 4: "BH", 3: "CEM", 2: "I", 1: "J", 0: "L"}
# Example 3's board at the coronation of D.
B3 = {"throne": "D", 5: "AGK", 4: "BH", 3: "CEM", 2: "I", 1: "J", 0: "L", "eliminated": "F"}
# A 4-player round 3 where p3's card scores 0: five characters out, one left-over on 0.
R3 = {"throne": "B", 5: "CD", 4: "H", 3: "I", 2: "M", 1: "A", 0: "J", "eliminated": "EFGKL"}


def paper_table(table, n: int = 4, paper: str = "p3", **options):
    t = table(n, **options)
    t.state = replace(t.state, paper=(paper,))
    return t


def phones_vote(t, vote: str = "yes", but: str = "p3") -> None:
    for p in t.state.players:
        if p != but:
            t.act(p, "vote", vote=vote)


def test_a_paper_seat_plays_a_whole_game_with_a_tie_and_the_33_rule(table):
    t = paper_table(table)
    # Round 1: the phones record their cards; the paper seat's card waits for the reveal.
    t.goals({"p1": "DABCIL", "p2": "GKHFJL", "p4": "FLJICE"})
    t.refused("goal_on_paper", "p3", "goal", characters=list("AGMEJF"))
    t.board(BEFORE_B3, phase=VOTE, crown=1)
    assert ENGINE.legal_actions(t.state, "p3") == []
    t.act("p1", "vote", vote="yes")
    t.refused("phones_voting", "p3", "vote", vote="no")
    assert t.view(None)["paper_waiting"] == []
    t.act("p2", "vote", vote="yes")
    t.act("p4", "vote", vote="yes")
    # Only the paper card is missing: the host enters it (a No here), nothing was shown yet.
    assert ENGINE.legal_actions(t.state, "p3") == [
        {"type": "vote", "vote": "yes"},
        {"type": "vote", "vote": "no"},
    ]
    for viewer in (None, "p1", "p2", "p4"):
        v = t.view(viewer)
        assert v["paper_waiting"] == ["p3"] and v["election"]["votes_cast"] == 3
        assert v["last_election"] is None
    events = t.act("p3", "vote", vote="no")
    revealed = events[-1]
    assert revealed["type"] == "votes_revealed" and revealed["result"] == "eliminated"
    assert revealed["votes"] == {"p1": "yes", "p2": "yes", "p3": "no", "p4": "yes"}
    assert t.state.no_left == (3, 3, 2, 3)
    # The turn passes to the paper seat (left of the crown): its move is public, entered for it.
    assert t.view(None)["turn"] == "p3" and t.view("p1")["paper_waiting"] == ["p3"]
    assert {"type": "move", "char": "D"} in ENGINE.legal_actions(t.state, "p3")
    t.act("p3", "move", char="D")
    phones_vote(t)
    t.act("p3", "vote", vote="yes")
    # Crowned: the round waits for the paper card, and says so.
    v = t.view("p1")
    assert (v["phase"], v["paper_waiting"], v["round_results"]) == ("awaiting_goals", ["p3"], [])
    assert ENGINE.legal_actions(t.state, "p3") == [{"type": "goal"}]
    scored = t.act("p3", "goal", characters=list("AGMEJF"))[-1]
    assert scored["type"] == "round_scored"
    assert scored["scores"] == {"p1": 24, "p2": 15, "p3": 17, "p4": 9}
    assert ENGINE.legal_actions(t.state, "p3") == []  # next_round is the host's own
    t.act("p1", "next_round", host=True)
    assert t.state.paper == ("p3",) and t.view(None)["turn"] == "p4"

    # Round 2, straight to the coronation of D on Example 3's board.
    t.goals({"p1": "ABCEIJ", "p2": "GKHFJL", "p4": "FLJICE"})
    t.board(B3, phase=VOTE, crown=3)
    phones_vote(t)
    t.act("p3", "vote", vote="yes")
    scored = t.act("p3", "goal", characters=list("ACDEFL"))[-1]
    assert scored["scores"] == {"p1": 18, "p2": 15, "p3": 21, "p4": 9}
    t.act("p1", "next_round", host=True)

    # Round 3: the paper seat's card scores 0 and becomes 33 (R20).
    t.goals({"p1": "BCDHIM", "p2": "ABCDEF", "p4": "FLJICE"})
    t.board(R3, phase=VOTE, crown=0)
    phones_vote(t)
    t.act("p3", "vote", vote="yes")
    events = t.act("p3", "goal", characters=list("EFGJKL"))
    scored, over = events[-2], events[-1]
    assert scored["raw"]["p3"] == 0 and scored["scores"]["p3"] == 33
    assert scored["rule33"] == ["p3"]
    # 71 each for p1 and the paper seat: p1 still has all 6 of its round-3 characters on
    # the board, p3 only J (on level 0), so p1 wins the tie-break (R24).
    assert over["type"] == "game_over"
    assert over["totals"] == {"p1": 71, "p2": 51, "p3": 71, "p4": 26}
    assert over["winners"] == ["p1"]
    assert over["tie_break"]["survivors"] == {"p1": 6, "p3": 1}
    res = ENGINE.result(t.state, t.steps)
    assert res is not None
    assert [p["id"] for p in res["players"] if p["winner"]] == ["p1"]


def test_phones_never_see_a_paper_vote_before_the_reveal(table):
    t = table(5)
    t.state = replace(t.state, paper=("p2", "p5"))
    t.board(B3, phase=VOTE, crown=0)
    for p in ("p1", "p3", "p4"):
        t.act(p, "vote", vote="yes")
    assert t.view(None)["paper_waiting"] == ["p2", "p5"]
    before = {p: t.view(p) for p in (None, "p1", "p3", "p4")}
    t.act("p2", "vote", vote="no")
    # The first paper card is in; the second is still face down: nothing is shown yet
    # but who is still awaited.
    assert t.view(None)["paper_waiting"] == ["p5"]
    awaited = ("election", "paper_waiting", "waiting", "paper_until")
    for viewer, v in before.items():
        now = t.view(viewer)
        assert now["last_election"] is None and now["election"]["voted"] == ["p1", "p2", "p3", "p4"]
        assert now["waiting"] == ["p5"] and now["paper_until"] == {"p5": "reveal"}
        assert {k: now[k] for k in now if k not in awaited} == {
            k: v[k] for k in v if k not in awaited
        }
    revealed = t.act("p5", "vote", vote="yes")[-1]
    assert revealed["votes"]["p2"] == "no" and revealed["result"] == "eliminated"


def test_a_seat_gone_to_paper_after_its_card_was_dealt_is_told_it_has_it(table):
    t = table(4, goalCardMode="deal")
    t.act("p3", "draw_goal", card=2)
    t.state = replace(t.state, paper=("p3",))       # the platform's phoneless, mid-round
    t.refused("goal_already_recorded", "p3", "draw_goal", card=4)


def test_a_paper_seat_records_its_printed_card_even_when_the_table_deals(table):
    t = paper_table(table, goalCardMode="deal")
    assert ENGINE.legal_actions(t.state, "p3") == []  # no draw for it: not its turn either
    assert {"type": "draw_goal"} in ENGINE.legal_actions(t.state, "p2")
    t.refused("goal_on_paper", "p3", "draw_goal", card=4)
    t.refused("goal_on_paper", "p3", "goal", characters=list("ABCDEF"))
    for k, p in enumerate(("p1", "p2", "p4")):
        t.act(p, "draw_goal", card=k)
    t.board(B3, phase=VOTE, crown=0)
    phones_vote(t)
    t.act("p3", "vote", vote="yes")
    assert ENGINE.legal_actions(t.state, "p3") == [{"type": "goal"}]
    scored = t.act("p3", "goal", characters=list("DABCIL"))[-1]
    assert scored["scores"]["p3"] == 24
    assert ENGINE.view(t.state, None)["round_results"][0]["players"]["p3"]["card"] is None
    assert t.state.used_cards == (0, 1, 2)


def test_a_paper_seat_with_no_card_left_can_only_show_yes(table):
    t = paper_table(table)
    t.board(B3, phase=VOTE, crown=0, no_left=(3, 3, 0, 3))
    phones_vote(t)
    assert ENGINE.legal_actions(t.state, "p3") == [{"type": "vote", "vote": "yes"}]
    t.refused("no_card_left", "p3", "vote", vote="no")


def test_a_seat_that_loses_its_phone_mid_election_is_waited_for_last(table):
    t = table(4)
    t.board(B3, phase=VOTE, crown=0)
    phones_vote(t, but="p2")
    # p2's phone dies before it voted: it becomes a paper seat, and the reveal waits for it.
    t.state = replace(t.state, paper=("p2",))
    assert t.view("p1")["paper_waiting"] == ["p2"]
    assert t.act("p2", "vote", vote="yes")[-1]["type"] == "votes_revealed"


def test_score_only_takes_the_paper_card_with_the_board(table):
    t = paper_table(table, playMode="score_only")
    t.goals({"p1": "DABCIL", "p2": "GKHFJL", "p4": "FLJICE"})
    t.refused("goal_on_paper", "p3", "goal", characters=list("AGMEJF"))
    board = {c: 0 for c in CHARACTERS}
    board.update({"D": "throne", "A": 5, "G": 5, "K": 5, "B": 4, "H": 4, "C": 3, "E": 3})
    board.update({"M": 3, "I": 2, "J": 1, "L": 0, "F": "eliminated"})
    scored = t.act("p1", "score_round", board=board, goals={"p3": list("AGMEJF")})[-1]
    assert scored["scores"] == {"p1": 24, "p2": 15, "p3": 17, "p4": 9}

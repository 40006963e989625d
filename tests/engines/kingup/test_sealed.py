"""Votes sealed on the phone (issue 38): the engine holds ``sealed`` until every
vote is in, then each phone opens its own; a forced Yes is sealed like any vote; a
seal whose phone is gone is withdrawn by the host's skip and the seat votes again;
which votes in the open the server must refuse (``fair.seal_required``)."""

from __future__ import annotations

from dataclasses import replace

from engines import codec
from engines.kingup import ENGINE
from engines.kingup.state import SEALED, paper_waiting

BOARD = {5: "AB", 4: "CDEF", 3: "GHI", 2: "JKLM"}


def nominated(table, n: int = 3):
    t = table(n)
    t.board(BOARD, turn=0)
    t.act("p1", "move", char="A")
    return t


def test_sealed_votes_hold_no_value_until_every_vote_is_in_then_open_and_reveal(table) -> None:
    t = nominated(table)
    t.act("p1", "vote", vote="sealed")
    t.act("p2", "vote", vote="sealed")
    # Nothing of a sealed vote is in the state (what the store holds).
    dumped = str(codec.dump(t.state))
    assert "'yes'" not in dumped and "'no'" not in dumped
    t.refused("wrong_phase", "p1", "open_vote", vote="yes")  # p3 still to vote
    assert t.view(None)["election"]["opening"] == []
    events = t.act("p3", "vote", vote="sealed")
    assert events[-1] == {"type": "votes_opening", "players": ["p1", "p2", "p3"]}
    assert t.view(None)["election"]["opening"] == ["p1", "p2", "p3"]
    assert [a for a in ENGINE.legal_actions(t.state, "p2") if a["type"] == "open_vote"] == [{"type": "open_vote"}]
    assert ENGINE.waiting(t.state) == ("p1", "p2", "p3")
    t.act("p2", "open_vote", vote="no")
    t.refused("not_sealed", "p2", "open_vote", vote="yes")  # opened once, final
    # An opened value is the seat's own until the reveal: no other view shows it.
    assert t.view("p1")["election"]["opening"] == ["p1", "p3"] and "'no'" not in str(t.view("p1")["election"])
    t.act("p1", "open_vote", vote="yes")
    events = t.act("p3", "open_vote", vote="yes")
    revealed = next(e for e in events if e["type"] == "votes_revealed")
    assert revealed["votes"] == {"p1": "yes", "p2": "no", "p3": "yes"} and revealed["result"] == "eliminated"
    assert t.state.no_left[1] == t.state.no_left[0] - 1  # the opened No was spent


def test_a_forced_yes_is_sealed_like_any_vote_and_an_opening_no_refused(table) -> None:
    """KU-9: a seat with no No card left votes like the others, so nothing in the
    store tells its count; its opening can only be Yes."""
    t = nominated(table)
    t.state = replace(t.state, no_left=(1, 0, 1))
    assert [a["vote"] for a in ENGINE.legal_actions(t.state, "p2") if a["type"] == "vote"] == ["yes"]
    assert ENGINE.fair.to_seal(t.state) == {p: f"round/1/vote/A/{p}" for p in ("p1", "p2", "p3")}  # type: ignore[union-attr]
    for p in ("p1", "p2", "p3"):
        t.act(p, "vote", vote="sealed")
    t.refused("no_card_left", "p2", "open_vote", vote="no")
    assert t.view(None)["election"]["opening"] == ["p1", "p2", "p3"]
    t.act("p2", "open_vote", vote="yes")
    # Opened values are not sealed-order dependent: the others open in any order.
    t.act("p3", "open_vote", vote="yes")
    assert t.view(None)["election"]["opening"] == ["p1"]


def test_a_seal_whose_phone_is_gone_is_withdrawn_and_the_seat_votes_again(table) -> None:
    t = nominated(table)
    for p in ("p1", "p2", "p3"):
        t.act(p, "vote", vote="sealed")
    t.act("p1", "open_vote", vote="yes")
    # p2's phone is gone at the reveal: the host may not set its value, only withdraw it.
    events = t.act("p1", "skip", host=True, seat="p2")
    assert events == [{"type": "vote_withdrawn", "seat": "p2"}]
    assert t.state.election is not None and t.state.election.votes[1] is None
    assert ENGINE.waiting(t.state) == ("p2",)
    t.refused("wrong_phase", "p3", "open_vote", vote="yes")  # a vote is missing again
    events = t.act("p2", "vote", vote="sealed")
    assert events[-1] == {"type": "votes_opening", "players": ["p2", "p3"]}
    t.act("p2", "open_vote", vote="yes")
    events = t.act("p3", "open_vote", vote="yes")
    assert next(e for e in events if e["type"] == "votes_revealed")["result"] == "crowned"


def test_a_paper_seats_sealed_vote_is_opened_by_the_host_and_holds_it_on_paper(table) -> None:
    t = nominated(table)
    t.state = replace(t.state, paper=("p3",))
    t.act("p1", "vote", vote="sealed")
    t.act("p2", "vote", vote="sealed")
    t.act("p3", "vote", vote="sealed")  # the host's phone sealed it
    assert paper_waiting(t.state) == ["p3"]
    assert ENGINE.fair.secrets(t.state)["round/1/vote/A/p3"] == (None, False)  # type: ignore[union-attr]
    t.refused("paper_until_reveal", "p1", "set_phone", host=True, seat="p3")
    t.act("p3", "open_vote", vote="yes")
    assert ENGINE.fair.secrets(t.state)["round/1/vote/A/p3"] == ({"vote": "yes"}, False)  # type: ignore[union-attr]
    assert SEALED in t.state.election.votes  # type: ignore[union-attr]


def test_a_vote_in_the_open_must_be_sealed_unless_its_casting_reveals_the_election(table) -> None:
    """``fair.seal_required``, what the server refuses as ``seal_required``:
    every vote but the one that reveals the election as it lands (the last in,
    no seal shut), whatever its value, forced Yes or paper seat's included."""
    t = nominated(table)
    name = "round/1/vote/A/{}".format
    for p in ("p1", "p2", "p3"):
        for v in ("yes", "no"):
            assert ENGINE.fair_seal_required(t.state, {"type": "vote", "vote": v, "player": p}) == name(p)
    assert ENGINE.fair_seal_required(t.state, {"type": "vote", "vote": "sealed", "player": "p1"}) is None
    t.act("p1", "vote", vote="sealed")
    t.act("p1", "skip", host=True, seat="p2")  # a Yes in the open, by the host
    # The last vote, but p1's seal is still shut: it would wait in the open for the openings.
    assert ENGINE.fair_seal_required(t.state, {"type": "vote", "vote": "no", "player": "p3"}) == name("p3")

    t = nominated(table)
    t.act("p1", "skip", host=True, seat="p2")
    assert ENGINE.fair_seal_required(t.state, {"type": "vote", "vote": "no", "player": "p3"}) == name("p3")
    t.act("p1", "skip", host=True, seat="p3")
    # The last vote and no seal shut: revealed with every other as it lands.
    assert ENGINE.fair_seal_required(t.state, {"type": "vote", "vote": "no", "player": "p1"}) is None
    assert ENGINE.fair_seal_required(t.state, {"type": "open_vote", "vote": "no", "player": "p1"}) is None

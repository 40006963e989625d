"""The stalled phone (issue 33): whom the table waits for, a seat on paper handed its
phone back at once (issue 37: a card it placed face down stays a physical card),
and no turn skipped (R9)."""

from __future__ import annotations

import dataclasses
from typing import Any

from engines.camelup import ENGINE
from engines.camelup.state import FACE_DOWN
from tests.engines import driver
from tests.engines.camelup.test_paper import FOUR, NEAR_END, paper
from tests.words import describe_in


def phone_templates(s: Any) -> list[dict]:
    return [a for a in ENGINE.legal_actions(s, "p1") if a["type"] in ("set_phone", "skip")]


def test_the_table_waits_for_the_seat_whose_turn_it_is(mk, do) -> None:
    s = mk(FOUR, NEAR_END)
    assert ENGINE.waiting(s) == ("p1",)
    s, _ = do(s, "leg_bet", "p1", camel="blue")
    for viewer in (None, "p1", "p3"):
        assert driver.view(ENGINE, s, viewer)["waiting"] == ["p2"]
    s, _ = do(s, "finish_bet", "p2", pile="winner", camel="red")
    s, _ = do(s, "pyramid", "p3", die="red", value=2)  # red crosses the line
    assert s.phase == "over" and ENGINE.waiting(s) == ()


def test_pyramid_mode_waits_for_nobody_in_particular(mk) -> None:
    s = mk(("p1",), options={"mode": "pyramid"})
    assert ENGINE.waiting(s) == () and driver.view(ENGINE, s, "p1")["waiting"] == []


def test_a_turn_is_never_skipped(mk, do) -> None:
    s = mk(FOUR, NEAR_END)
    assert phone_templates(s) == []
    msg = driver.refuse(ENGINE, s, "cannot_skip", "skip", "p1", True, seat="p1")
    assert "R9" in msg
    driver.refuse(ENGINE, s, "not_waiting", "skip", "p1", True, seat="p2")
    driver.refuse(ENGINE, s, "not_host", "skip", "p2", False, seat="p1")
    driver.refuse(ENGINE, s, "not_seated", "skip", "p1", True, seat="p9")


def test_a_seat_gets_its_phone_back_with_the_cards_its_phone_placed(mk, do) -> None:
    s, _ = do(mk(FOUR, NEAR_END), "finish_bet", "p1", pile="winner", camel="red")
    s = paper(s, "p2")
    s = paper(s, "p1")  # the host hands host powers on first; the engine does not mind
    s, _ = do(s, "leg_bet", "p2", camel="yellow")  # entered for p2, public
    assert driver.view(ENGINE, s, None)["paper_until"] == {}
    assert phone_templates(s) == []  # p1 is on paper: its own list has no host templates
    assert [a for a in ENGINE.legal_actions(s, "p3") if a["type"] == "set_phone"] == [
        {"type": "set_phone", "seat": "p1", "host": True},
        {"type": "set_phone", "seat": "p2", "host": True},
    ]
    s, events = do(s, "set_phone", "p3", True, seat="p1")
    assert events == [{"type": "seat_phone", "seat": "p1"}]
    assert describe_in(ENGINE, events[0], "ko", {"p1": "민준"}) == (
        "민준님이 다시 휴대폰으로 참여합니다: 비밀 정보는 다시 앱이 지킵니다."
    )
    me = driver.view(ENGINE, s, "p1")["me"]
    assert me["finish_hand"] == ["blue", "green", "yellow", "purple"]
    assert me["finish_placed"] == [{"pile": "winner", "camel": "red", "position": 1}]
    assert s.paper == ("p2",)


def test_a_seat_with_a_card_face_down_gets_its_phone_back_at_once(mk, do) -> None:
    """Issue 37: the phone comes back as soon as it is there. The face-down card
    stays a physical card, recorded at the race's end; the phone places no more
    cards than the seat holds, and a phone card of the face-down card's camel
    voids that card (R13: one per camel)."""
    s = paper(mk(FOUR, NEAR_END), "p2")
    s, _ = do(s, "leg_bet", "p1", camel="blue")
    s, _ = do(s, "finish_bet", "p2", pile="loser")  # a physical card, face down
    assert driver.view(ENGINE, s, "p3")["paper_until"] == {}
    assert {"type": "set_phone", "seat": "p2", "host": True} in phone_templates(s)
    driver.refuse(ENGINE, s, "bad_action", "set_phone", "p1", True, seat="p3")
    driver.refuse(ENGINE, s, "not_host", "set_phone", "p3", False, seat="p2")
    s, events = do(s, "set_phone", "p1", True, seat="p2")
    assert events == [{"type": "seat_phone", "seat": "p2"}] and s.paper == ()
    assert s.paper_cards_left("p2") == 4
    s, _ = do(s, "leg_bet", "p3", camel="blue")
    s, _ = do(s, "leg_bet", "p4", camel="blue")
    s, _ = do(s, "leg_bet", "p1", camel="green")
    assert {"type": "finish_bet", "pile": "winner", "camel": "red"} in ENGINE.legal_actions(s, "p2")
    s, _ = do(s, "finish_bet", "p2", pile="winner", camel="red")
    # The race ends: the host records the face-down card, a red one: void, the phone's red counts.
    s, _ = do(s, "pyramid", "p3", die="red", value=2)
    assert s.phase == "paper_cards"
    driver.refuse(ENGINE, s, "wrong_phase", "skip", "p1", True, seat="p2")
    s, events = do(s, "paper_cards", "p1", True, winner=[], loser=["red"])
    revealed = [e for e in events if e["type"] == "pile_revealed" and e.get("void")]
    assert revealed and revealed[0]["void"] == [{"player": "p2", "camel": "red"}], events


def test_a_phone_places_no_more_cards_than_its_seat_holds(mk, do) -> None:
    s = paper(mk(FOUR, NEAR_END), "p2")
    s, _ = do(s, "leg_bet", "p1", camel="blue")
    # Every physical card of p2 lies face down on the piles.
    s = dataclasses.replace(s, loser_pile=tuple(("p2", FACE_DOWN) for _ in s.seat("p2").hand))
    s, _ = do(s, "set_phone", "p1", True, seat="p2")
    assert s.paper_cards_left("p2") == 0
    assert not any(a["type"] == "finish_bet" for a in ENGINE.legal_actions(s, "p2"))
    driver.refuse(ENGINE, s, "card_not_in_hand", "finish_bet", "p2", pile="winner", camel="red")


def test_while_the_cards_are_recorded_a_seat_without_one_face_down_gets_its_phone(mk, do) -> None:
    s = paper(paper(mk(FOUR, NEAR_END), "p2"), "p4")
    s, _ = do(s, "leg_bet", "p1", camel="blue")
    s, _ = do(s, "finish_bet", "p2", pile="winner")
    s, _ = do(s, "pyramid", "p3", die="red", value=2)
    assert s.phase == "paper_cards" and ENGINE.waiting(s) == ()
    assert [a for a in ENGINE.legal_actions(s, "p1") if a["type"] == "set_phone"] == [
        {"type": "set_phone", "seat": "p2", "host": True}, {"type": "set_phone", "seat": "p4", "host": True}
    ]
    s, _ = do(s, "set_phone", "p1", True, seat="p4")
    s, events = do(s, "paper_cards", "p1", True, winner=["red"], loser=[])
    assert events[-1]["type"] == "game_over"

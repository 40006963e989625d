"""A seat without a phone at a Camel Up table (issue 17, docs/rules/camelup.md):
its leg bets, pyramid tickets and tile are ordinary actions; its finish cards
lie face down, only their pile known, until the host records them at the
race's end; then the piles are paid as the rules say (R37, R38)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from engines.base import EngineError
from engines.camelup import ENGINE
from engines.camelup.state import FACE_DOWN, PAPER_CARDS
from tests.engines import driver
from tests.engines.camelup.test_examples import LOSER_PILE, WINNER_PILE, example_8_state
from tests.words import describe_in

#: Red on 15 crosses the line with a 2; green (space 1) is last (R36).
NEAR_END = {1: ["green"], 5: ["blue"], 8: ["purple"], 10: ["white"], 11: ["black"], 12: ["yellow"],
            15: ["red"]}  # fmt: skip
FOUR = ("p1", "p2", "p3", "p4")


def paper(state: Any, seat: str) -> Any:
    """``set_paper`` as the platform sends it (the host marks the seat)."""
    state, events = driver.step(ENGINE, state, "set_paper", "p1", True, seat=seat)
    assert events == [{"type": "paper_seat", "seat": seat}]
    return state


def test_a_paper_seat_bets_face_down_and_is_shown_as_awaited(mk, do) -> None:
    s = paper(mk(FOUR, NEAR_END), "p4")
    driver.refuse(ENGINE, s, "bad_action", "set_paper", "p1", True, seat="p4")
    driver.refuse(ENGINE, s, "not_seated", "set_paper", "p1", True, seat="p9")
    driver.refuse(ENGINE, s, "not_host", "set_paper", "p2", False, seat="p3")
    for p in ("p1", "p2", "p3"):
        s, _ = do(s, "leg_bet", p, camel="blue")
    assert driver.view(ENGINE, s, None)["waiting_paper"] == "p4"
    legal = ENGINE.legal_actions(s, "p4")
    assert {"type": "finish_bet", "pile": "winner"} in legal and {"type": "finish_bet", "pile": "loser"} in legal
    assert not any(a["type"] == "finish_bet" and "camel" in a for a in legal), "no camel is ever offered"
    driver.refuse(ENGINE, s, "face_down_card", "finish_bet", "p4", pile="winner", camel="red")
    s, events = do(s, "finish_bet", "p4", pile="winner")
    assert events[0] == {"type": "finish_card_placed", "player": "p4", "pile": "winner"}
    assert s.winner_pile == (("p4", FACE_DOWN),) and s.paper_cards_left("p4") == 4
    assert driver.view(ENGINE, s, None)["waiting_paper"] is None


def test_a_seat_converted_mid_game_shows_no_camel_it_bet_by_phone(mk, do) -> None:
    """Its template must not tell which cards its phone already placed."""
    base = mk(FOUR, NEAR_END)
    views = []
    for camel in ("red", "blue"):
        s, _ = do(base, "finish_bet", "p1", pile="winner", camel=camel)
        s = paper(s, "p1")
        for p in ("p2", "p3", "p4"):
            s, _ = do(s, "leg_bet", p, camel="yellow")
        views.append((ENGINE.legal_actions(s, "p1"), driver.view(ENGINE, s, None), driver.view(ENGINE, s, "p2")))
    assert views[0] == views[1]
    assert s.paper_cards_left("p1") == 4


def four_player_race(do: Any, s: Any) -> Any:
    """Two laps of turns, p4 without a phone; then p1's red die ends the race."""
    turns = [("p1", "finish_bet", {"pile": "winner", "camel": "red"}),
             ("p2", "finish_bet", {"pile": "winner", "camel": "blue"}),
             ("p3", "leg_bet", {"camel": "red"}),
             ("p4", "finish_bet", {"pile": "winner"}),
             ("p1", "finish_bet", {"pile": "loser", "camel": "green"}),
             ("p2", "finish_bet", {"pile": "winner", "camel": "red"}),
             ("p3", "finish_bet", {"pile": "loser", "camel": "yellow"}),
             ("p4", "finish_bet", {"pile": "loser"})]  # fmt: skip
    for player, kind, payload in turns:
        s, _ = do(s, kind, player, **payload)
    return s


def test_a_full_race_with_a_paper_seat_pays_by_pile_order(mk, do) -> None:
    s = four_player_race(do, paper(mk(FOUR, NEAR_END), "p4"))
    s, events = do(s, "pyramid", "p1", die="red", value=2)
    assert [e["type"] for e in events][-3:] == ["race_ended", "leg_scored", "paper_cards_waiting"]
    assert events[-1] == {"type": "paper_cards_waiting", "winner": 1, "loser": 1}
    assert s.phase == PAPER_CARDS and s.result is None and ENGINE.status(s)["over"] is False
    spectator = driver.view(ENGINE, s, None)
    assert spectator["paper_cards"] == {"winner": [{"position": 3, "player": "p4"}],
                                        "loser": [{"position": 3, "player": "p4"}], "distinct": "player"}
    for camel in ("blue", "yellow"):  # the phones' wrong guesses stay hidden until the piles are paid
        assert f'"{camel}"' not in json.dumps(spectator["finish_piles"])
    # The paper seat may have its phone back meanwhile (issue 37): its cards stay face down.
    set_phone = {"type": "set_phone", "seat": "p4", "host": True}
    assert ENGINE.legal_actions(s, "p1") == [{"type": "paper_cards"}, set_phone]
    assert ENGINE.legal_actions(s, "p4") == [{"type": "paper_cards"}], "the host's; the server drops it"
    driver.refuse(ENGINE, s, "wrong_phase", "pyramid", "p2", die="blue", value=1)
    driver.refuse(ENGINE, s, "wrong_phase", "set_stack", "p1", True, space=3, camels=[])
    driver.refuse(ENGINE, s, "not_host", "paper_cards", "p2", winner=["red"], loser=["green"])
    driver.refuse(ENGINE, s, "bad_action", "paper_cards", "p1", True, winner=[], loser=["green"])
    driver.refuse(ENGINE, s, "card_not_in_hand", "paper_cards", "p1", True, winner=["red"], loser=["red"])
    # Money before the piles (by hand): 3 each; p1's pyramid ticket +1, p3's
    # red leg ticket (red first) +5: p1 4, p2 3, p3 8, p4 3.
    assert {x.id: x.money for x in s.seats} == {"p1": 4, "p2": 3, "p3": 8, "p4": 3}
    s, events = do(s, "paper_cards", "p1", True, winner=["red"], loser=["green"])
    assert [e["type"] for e in events] == ["pile_revealed", "pile_revealed", "game_over"]
    # Winner pile (red): p1 red 1st +8, p2 blue -1, p4 red 2nd +5, p2 red 3rd +3.
    # Loser pile (green): p1 green 1st +8, p3 yellow -1, p4 green 2nd +5.
    assert [(c.player, c.camel, c.paid) for c in s.result.winner_pile] == [
        ("p1", "red", 8), ("p2", "blue", -1), ("p4", "red", 5), ("p2", "red", 3)]
    assert [(c.player, c.camel, c.paid) for c in s.result.loser_pile] == [
        ("p1", "green", 8), ("p3", "yellow", -1), ("p4", "green", 5)]
    assert {x.id: x.money for x in s.seats} == {"p1": 20, "p2": 5, "p3": 7, "p4": 13}
    assert s.result.winners == ("p1",) and ENGINE.status(s)["over"] is True
    assert ENGINE.load(ENGINE.dump(s)) == s


def test_example_8_with_cal_on_paper_gives_the_rulebook_money(mk, do) -> None:
    """Cal's cards lie face down among the phones' (a paper card and phone
    cards both name the winner: pile order alone decides the pay)."""
    before = example_8_state(mk)
    def face(pile: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
        return tuple((o, FACE_DOWN if o == "cal" else c) for o, c in pile)

    # Cal holds all five cards as far as the app knows: the two on the piles are face down.
    seats = tuple(replace(x, hand=("blue", "green", "yellow", "red", "purple")) if x.id == "cal" else x
                  for x in before.seats)
    s = replace(before, seats=seats, paper=("cal",), winner_pile=face(WINNER_PILE), loser_pile=face(LOSER_PILE))
    s, _ = do(s, "pyramid", "ann", die="red", value=2)
    assert s.phase == PAPER_CARDS
    s, _ = do(s, "paper_cards", "ann", True, winner=["red"], loser=["green"])
    final = {p: m["money"] for p, m in ENGINE.public_players(s).items()}
    assert final == {"ann": 20, "ben": 2, "cal": 14, "dee": 2, "eli": 2, "fay": 8}, "example 8's money"
    assert [c.k for c in s.result.winner_pile] == [1, None, 2, 3, 4, 5, None]
    assert [(c.player, c.paid) for c in s.result.winner_pile][:4] == [("ann", 8), ("ben", 0), ("cal", 5), ("dee", 3)]


def test_old_states_without_paper_still_load(mk) -> None:
    data = ENGINE.dump(mk(FOUR, NEAR_END))
    assert "paper" not in data, "stored as it was before seats on paper"
    assert ENGINE.load(data).paper == ()


def _phone_then_paper(mk: Any, do: Any, phone_camel: str) -> Any:
    """p2 bets ``phone_camel`` on the winner pile by phone, loses its phone,
    then places a face-down card on the same pile; red's die ends the race."""
    s = mk(FOUR, NEAR_END)
    s, _ = do(s, "leg_bet", "p1", camel="yellow")
    s, _ = do(s, "finish_bet", "p2", pile="winner", camel=phone_camel)
    s = paper(s, "p2")
    for player, camel in (("p3", "green"), ("p4", "purple"), ("p1", "blue")):
        s, _ = do(s, "leg_bet", player, camel=camel)
    s, _ = do(s, "finish_bet", "p2", pile="winner")
    for player, camel in (("p3", "blue"), ("p4", "green")):
        s, _ = do(s, "leg_bet", player, camel=camel)
    s, _ = do(s, "pyramid", "p1", die="red", value=2)
    assert s.phase == PAPER_CARDS
    return s


def test_what_the_host_records_never_tells_a_card_the_seat_placed_by_phone(mk, do) -> None:
    """Issue 30: the same entry gets the same answer whichever camel the seat's
    phone placed, so no refusal (and no retry) tells the host that camel."""
    entries = [{"winner": [c], "loser": []} for c in ("red", "blue", "green")]
    entries += [{"winner": ["red", "blue"], "loser": []}, {"winner": ["teal"], "loser": []}]
    for entry in entries:
        answers = set()
        for phone_camel in ("red", "blue", "yellow"):
            s = _phone_then_paper(mk, do, phone_camel)
            try:
                ENGINE.apply(s, {"type": "paper_cards", "player": "p1", "host": True, **entry})
                answers.add("accepted")
            except EngineError as exc:
                answers.add((exc.code, exc.message))
        assert len(answers) == 1, (entry, answers)


def test_a_face_down_card_repeating_a_phone_card_is_void(mk, do) -> None:
    s = _phone_then_paper(mk, do, "red")
    # The host's own entry is still checked: one card per camel among those it names.
    face_down_twice = replace(s, loser_pile=(("p2", FACE_DOWN),))
    driver.refuse(ENGINE, face_down_twice, "card_not_in_hand", "paper_cards", "p1", True,
                  winner=["blue"], loser=["blue"])
    before = {x.id: x.money for x in s.seats}
    s, events = do(s, "paper_cards", "p1", True, winner=["red"], loser=[])
    winner = events[0]
    assert winner["pile"] == "winner" and winner["void"] == [{"player": "p2", "camel": "red"}]
    assert [(c["player"], c["camel"], c["paid"]) for c in winner["cards"]] == [("p2", "red", 8)], \
        "the phone's red alone is paid: one card per camel"
    assert "void" not in events[1]
    assert {x.id: x.money for x in s.seats}["p2"] == before["p2"] + 8
    assert s.winner_pile == (("p2", "red"),)
    lines = {lang: describe_in(ENGINE, winner, lang, {"p2": "Bo"}) for lang in ("en", "ko")}
    assert lines["en"].endswith("(void: Bo red, a camel its phone had already placed, worth 0)"), lines
    assert "무효: Bo" in lines["ko"], lines
    assert ENGINE.load(ENGINE.dump(s)) == s

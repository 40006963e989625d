"""Seats without a phone (issue 17): the host adds one, or turns a seat into
one; the host (or any phone, when allowed) acts for it with ``as``; nobody
reads its secrets; undo, results and the rejoin QR keep working."""

from __future__ import annotations

import json
from typing import Any

import pytest

from server.service import results
from server.service.seats import NO_TOKEN, find_seat, new_token
from tests.engines.camelup.conftest import SETUP
from tests.server.conftest import Phone, open_table, take_seat
from tests.words import texts, worded


def add_phoneless(client: Any, host: Phone, name: str, **extra: Any):
    return client.post(f"/api/tables/{host.table}/players", json={"name": name, "phone": False, **extra},
                       headers=host.auth)


def act_as(phone: Phone, seat: str, type_: str, request_id: str | None = None, **payload: Any):
    body = {"action": {"type": type_, **payload}, "request_id": request_id or new_token()[:12], "as": seat}
    return phone.client.post(f"/api/tables/{phone.table}/actions", json=body, headers=phone.auth)


def doc_of(app: Any, table: str) -> dict[str, Any]:
    return app.extensions["tablemate"].tables.load(table)


def history(client: Any, table: str, lang: str = "en") -> list[str]:
    return texts(client.get(f"/api/tables/{table}/history").json, lang)


def refused(app: Any, host: Phone, response: Any, status: int, code: str, before: dict[str, Any]) -> None:
    """``response`` is the refusal ``status``/``code`` and the table is exactly as it was."""
    assert response.status_code == status, response.json
    assert response.json["error"]["code"] == code
    assert doc_of(app, host.table) == before


@pytest.fixture
def seated(client) -> tuple[Phone, Phone, str]:
    """A toy table: the host, a phone and "Kid", a seat without a phone."""
    host, guest = open_table(client, joiners=1)
    r = add_phoneless(client, host, "Kid")
    assert r.status_code == 201, r.json
    return host, guest, r.json["player"]["id"]


def test_the_host_adds_a_seat_without_a_phone(app, client, seated) -> None:
    host, guest, kid = seated
    assert kid == "p3"
    r = add_phoneless(client, host, "Nan")
    assert r.json == {"player": {"id": "p4"}}, "an id and no token"
    snap = host.get().json
    assert [(p["id"], p.get("phone", True)) for p in snap["players"]] == [
        ("p1", True), ("p2", True), ("p3", False), ("p4", False)], "seat order like any seat"
    seat = next(s for s in doc_of(app, host.table)["seats"] if s["id"] == kid)
    assert seat["th"] == NO_TOKEN and seat["phone"] is False
    for token in ("", NO_TOKEN, new_token(), "x"):
        assert find_seat(doc_of(app, host.table), token) is None, "no token opens a seat without a phone"
    assert history(client, host.table)[-2:] == ["Host added Kid, a seat without a phone.",
                                                "Host added Nan, a seat without a phone."]
    assert history(client, host.table, "ko")[-1] == "Host님이 휴대폰 없는 자리 Nan님을 추가했습니다."
    assert guest.get().json["players"][2] == {"id": "p3", "name": "Kid", "host": False, "phone": False,
                                              "connected": False}


def test_adding_a_seat_without_a_phone_is_refused_like_a_join(app, client, seated) -> None:
    host, guest, _kid = seated
    before = doc_of(app, host.table)
    url = f"/api/tables/{host.table}/players"
    refused(app, host, client.post(url, json={"name": "A", "phone": False}), 401, "bad_token", before)
    refused(app, host, add_phoneless(client, guest, "A"), 403, "not_host", before)
    refused(app, host, client.post(url, json={"name": "A", "phone": True}, headers=host.auth),
            400, "bad_phone", before)
    refused(app, host, add_phoneless(client, host, "kid"), 409, "name_taken", before)
    refused(app, host, add_phoneless(client, host, "\u202e"), 400, "bad_name", before)
    assert host.act("start").status_code == 200
    before = doc_of(app, host.table)
    refused(app, host, add_phoneless(client, host, "Late"), 409, "game_started", before)


def test_a_full_table_takes_no_seat_without_a_phone(app, client) -> None:
    host, *_ = open_table(client, joiners=7)
    before = doc_of(app, host.table)
    refused(app, host, add_phoneless(client, host, "Ninth"), 409, "table_full", before)


def test_the_host_acts_for_a_seat_without_a_phone(app, client, seated) -> None:
    host, guest, kid = seated
    assert host.act("start").status_code == 200
    start = doc_of(app, host.table)["start"]
    assert start["paper"] == [kid] and doc_of(app, host.table)["state"]["paper"] == [kid]
    assert host.act("add", n=1).status_code == 200
    assert guest.act("add", n=1).status_code == 200
    snap = host.get().json
    assert snap["proxies"] == {kid: [{"type": "note", "text": ""}, *[{"type": "add", "n": n} for n in (1, 2, 3)],
                                     {"type": "roll"}]}, "its legal list, as a guest's"
    assert guest.get().json["proxies"] == {}, "only the host may act for it"
    r = act_as(host, kid, "add", request_id="kid-1", n=2)
    assert r.status_code == 200, r.json
    doc = doc_of(app, host.table)
    assert doc["state"]["scores"][kid] == start["options"]["start"] + 2
    assert history(client, host.table)[-1] == "Kid (entered by Host) +2"
    assert history(client, host.table, "ko")[-1] == "Kid (Host 입력) +2"
    entry = client.get(f"/api/tables/{host.table}/history").json["rounds"][-1]["entries"][-1]
    assert entry["by"] == "p1" and entry["entered_for"] == kid
    # The request id is the sender's: a retry answers, another phone cannot reuse it.
    assert act_as(host, kid, "add", request_id="kid-1", n=2).json == r.json
    assert guest.act("add", request_id="kid-1", n=1).json["error"]["code"] == "request_id_reused"
    # The action was the seat's own, without host powers; undo takes it back.
    assert host.act("undo").status_code == 200
    assert doc_of(app, host.table)["state"]["scores"][kid] == start["options"]["start"]


def test_as_is_refused_unless_allowed(app, client, seated) -> None:
    host, guest, kid = seated
    assert host.act("start").status_code == 200
    assert host.act("add", n=1).status_code == 200
    assert guest.act("add", n=1).status_code == 200
    before = doc_of(app, host.table)
    refused(app, host, act_as(host, "p2", "note", text="hi"), 403, "not_allowed", before)  # has a phone
    refused(app, host, act_as(host, "p1", "note", text="hi"), 403, "not_allowed", before)  # itself
    refused(app, host, act_as(host, "p9", "note", text="hi"), 403, "not_allowed", before)  # no such seat
    refused(app, host, act_as(guest, kid, "add", n=1), 403, "not_allowed", before)  # proxies: host
    refused(app, host, act_as(host, kid, "undo"), 403, "not_allowed", before)  # a table change
    refused(app, host, act_as(host, kid, "next_round"), 403, "not_host", before)  # never host powers
    refused(app, host, host.act("set_paper", seat="p2"), 400, "unknown_action", before)
    refused(app, host, guest.act("proxies", who="all"), 403, "not_host", before)
    # Any phone, once the host allows it.
    assert host.act("proxies", who="all").status_code == 200
    snap = guest.get().json
    assert snap["proxies_who"] == "all" and list(snap["proxies"]) == [kid]
    assert act_as(guest, kid, "add", n=3).status_code == 200
    assert history(client, host.table)[-1] == "Kid (entered by P2) +3"
    assert history(client, host.table)[-2] == "Host let every seated phone enter actions for seats without a phone."
    assert host.act("proxies", who="host").status_code == 200
    assert guest.get().json["proxies"] == {} and guest.get().json["proxies_who"] == "host"
    before = doc_of(app, host.table)
    refused(app, host, act_as(guest, kid, "note", text="x"), 403, "not_allowed", before)


def test_as_never_shows_the_seats_secrets(app, client) -> None:
    host, guest, third = open_table(client, joiners=2)
    assert host.act("start").status_code == 200
    assert third.act("note", text="my secret plan").status_code == 200
    assert third.get().json["view"]["my_note"] == "my secret plan"
    # Its phone dies mid-game: the host takes the seat off it.
    assert host.act("phoneless", player=third.id).status_code == 200
    # Its phone keeps its token but is paused: a spectator's view, no action.
    paused = third.get().json
    assert paused["me"] == third.id and paused["paused"] == "phoneless" and paused["legal"] == []
    assert "my secret plan" not in json.dumps(paused, ensure_ascii=False)
    refused(app, host, third.act("note", text="mine"), 409, "seat_paused", doc_of(app, host.table))
    assert host.act("proxies", who="all").status_code == 200
    for phone in (host, guest):
        snap = phone.get().json
        assert "my secret plan" not in json.dumps(snap, ensure_ascii=False)
    assert host.get().json["proxies"][third.id][0] == {"type": "note", "text": ""}
    r = act_as(host, third.id, "note", text="typed by host")
    assert r.status_code == 200 and "typed by host" not in json.dumps(r.json)
    assert "typed by host" not in json.dumps(host.get().json)


def test_phoneless_mid_game_is_replayed_by_undo_and_results(app, client) -> None:
    host, guest, third = open_table(client, joiners=2, options={"target": 6})
    assert host.act("start").status_code == 200
    assert host.act("add", n=1).status_code == 200
    after_first = doc_of(app, host.table)["state"]
    refused(app, host, host.act("phoneless", player="p1"), 409, "host_needs_phone", doc_of(app, host.table))
    refused(app, host, guest.act("phoneless", player="p3"), 403, "not_host", doc_of(app, host.table))
    r = host.act("phoneless", player=guest.id)
    assert r.status_code == 200 and r.json["events"][-1] == {"type": "paper_seat", "seat": guest.id}
    refused(app, host, host.act("phoneless", player=guest.id), 409, "already_phoneless",
            doc_of(app, host.table))
    paper = doc_of(app, host.table)["state"]
    assert paper["paper"] == [guest.id] and paper["played"] == after_first["played"]
    assert len(doc_of(app, host.table)["undoable"]) == 1, "a platform change: not undoable itself"
    assert act_as(host, guest.id, "add", n=3).status_code == 200
    assert host.act("undo").status_code == 200, "undoes the entry made for the seat"
    assert doc_of(app, host.table)["state"] == paper
    assert host.act("undo").status_code == 200, "undoes the host's first add; the seat stays on paper"
    state = doc_of(app, host.table)["state"]
    assert state["paper"] == [guest.id] and state["played"] == []
    assert ("Host made P2's seat one without a phone. Their phone waits until the host hands the seat "
            "back to it.") in history(client, host.table)
    # Played to its end, the result's replay rebuilds the same game.
    assert host.act("add", n=3).status_code == 200
    assert act_as(host, guest.id, "add", n=3).status_code == 200
    assert third.act("add", n=3).status_code == 200
    assert host.act("next_round").status_code == 200
    assert host.act("add", n=3).status_code == 200
    doc = doc_of(app, host.table)
    assert doc["status"] == "over"
    tables = app.extensions["tablemate"].tables
    steps = list(results._replay(tables.engine("toy"), doc, tables.store.log(host.table)))
    assert steps[-1][0] == doc["state"]


def test_the_rejoin_qr_gives_a_seat_its_phone(app, client, seated) -> None:
    host, guest, kid = seated
    kid_phone = take_seat(client, host, kid)
    assert kid_phone.get().json["me"] == kid
    assert "phone" not in host.get().json["players"][2]
    assert host.act("start").status_code == 200
    assert "paper" not in doc_of(app, host.table)["start"], "it had a phone at the start"
    # Mid-game: it gets its phone back but stays on paper for this game.
    assert host.act("phoneless", player=guest.id).status_code == 200
    back = take_seat(client, host, guest.id)
    snap = back.get().json
    assert snap["me"] == guest.id and "phone" not in snap["players"][1]
    assert doc_of(app, host.table)["state"]["paper"] == [guest.id]
    before = doc_of(app, host.table)
    refused(app, host, act_as(host, guest.id, "note", text="x"), 403, "not_allowed", before)
    # Without a phone again, it is not marked on paper twice.
    assert host.act("phoneless", player=guest.id).status_code == 200
    assert doc_of(app, host.table)["state"]["paper"] == [guest.id]


def test_a_camelup_seat_that_lost_its_phone_shows_no_card_it_placed(app, client) -> None:
    """Its legal list, entered for by the host, must not tell which finish
    cards its phone had already placed (one card per camel)."""
    proxies = []
    for camel in ("red", "blue"):
        # The same board both times (a fixed setup): only the card differs.
        host, bo, cy = open_table(client, joiners=2, game="camelup", options={"setup": SETUP})
        assert host.act("start").status_code == 200
        assert host.act("leg_bet", camel="green").status_code == 200
        assert bo.act("finish_bet", pile="winner", camel=camel).status_code == 200
        assert cy.act("leg_bet", camel="green").status_code == 200
        assert host.act("phoneless", player=bo.id).status_code == 200
        assert host.act("leg_bet", camel="green").status_code == 200
        snap = host.get().json
        finishes = [a for a in snap["proxies"][bo.id] if a["type"] == "finish_bet"]
        assert finishes == [{"type": "finish_bet", "pile": "winner"}, {"type": "finish_bet", "pile": "loser"}]
        proxies.append(snap["proxies"])
        refused(app, host, act_as(host, bo.id, "finish_bet", pile="loser", camel="yellow"), 409, "face_down_card",
                doc_of(app, host.table))
        assert act_as(host, bo.id, "finish_bet", pile="loser").status_code == 200
        assert history(client, host.table)[-1].startswith("P2 (entered by Host)")
    assert proxies[0] == proxies[1]


def test_the_history_credits_only_the_entered_action_to_the_seat_without_a_phone(client) -> None:
    """The die a seat without a phone rolls (entered by the host) ends the leg:
    its roll is marked as entered for that seat; the leg's scoring and the
    next leg's start are the game's own steps, credited to nobody."""
    host, bo = open_table(client, joiners=1, game="camelup", options={"setup": SETUP})
    kid = add_phoneless(client, host, "하린").json["player"]["id"]
    assert host.act("start").status_code == 200
    dice = iter(("blue", "green", "yellow", "red", "purple"))
    assert host.act("leg_bet", camel="green").status_code == 200
    for phone in (bo, kid, host, bo, kid):  # the leg's five dice, the fifth 하린's
        if phone == kid:
            r = act_as(host, kid, "pyramid", die=next(dice), value=1)
        else:
            r = phone.act("pyramid", die=next(dice), value=1)
        assert r.status_code == 200, r.json
    rounds = worded(client.get(f"/api/tables/{host.table}/history").json, "ko")["rounds"]
    last = rounds[-2]["entries"][-2:] + rounds[-1]["entries"]
    texts = [e["text"] for e in last]
    assert texts[0].startswith("하린 (Host 입력): 보라 주사위 1"), texts
    assert [t.split(" ")[0] for t in texts[1:]] == ["1레그", "2레그"], texts
    assert not any("입력" in t for t in texts[1:]), texts
    assert [e.get("entered_for") for e in last] == [kid, None, None]
    en = history(client, host.table)[-3:]
    assert en[0].startswith("하린 (entered by Host)") and not any("entered by" in t for t in en[1:]), en


def test_a_client_never_sends_set_phone_itself(app, client) -> None:
    """The engine's way back from paper changes who holds the seat: only the
    platform sends it, never a client (the seat would be on its phone in the
    engine while the table has no token for it)."""
    host, a, _b = open_table(client, joiners=2, game="kingup")
    assert host.act("start").status_code == 200
    assert host.act("phoneless", player=a.id).status_code == 200
    before = doc_of(app, host.table)
    r = host.act("set_phone", seat=a.id)
    refused(app, host, r, 400, "unknown_action", before)
    assert "phone_back" in r.json["error"]["message"]

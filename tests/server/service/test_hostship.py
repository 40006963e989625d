"""The host whose phone dies (issue 41, item 0): host powers pass to the next
seat with a live phone when the store's presence says the host's seat has
none, come back when it has one again, and the host's seat comes back through
the stand-in's rejoin code, sealed until the seat's PIN. The hub times the
absence (tests/server/live/test_hostship.py); here the service's decision."""

from __future__ import annotations

from typing import Any

from tests.server.conftest import Phone, open_table
from tests.words import texts


def tables(app: Any) -> Any:
    return app.extensions["tablemate"].tables


def doc_of(app: Any, table: str) -> dict[str, Any]:
    return tables(app).load(table)


def online(app: Any, table: str, *seats: str) -> None:
    """Each seat gets a live socket in the store's presence (as a phone's
    socket would), and only those: the others are dropped."""
    t = tables(app)
    for seat in {"p1", "p2", "p3", "p4"} - set(seats):
        t.store.presence.drop(table, f"{seat}/s", announce=False)
    for seat in seats:
        t.store.presence.touch(table, f"{seat}/s")


def history(client: Any, table: str) -> list[str]:
    return texts(client.get(f"/api/tables/{table}/history").json, "en")


def test_the_server_decides_from_presence_not_from_a_phone(app, client) -> None:
    host, a, b = open_table(client)
    online(app, host.table, "p1", "p2", "p3")
    before = doc_of(app, host.table)
    # Even told "away", the service reads the store: the host's phone is there.
    assert tables(app).settle_host(host.table, True) is False
    assert doc_of(app, host.table) == before
    # No phone can say the host is gone: there is no such action.
    r = a.act("stand_in", player="p2")
    assert r.status_code == 400 and r.json["error"]["code"] == "unknown_action"
    assert a.act("start").json["error"]["code"] == "not_host"
    # Gone from presence but not yet for long (the hub's timer): nothing either.
    online(app, host.table, "p2", "p3")
    assert tables(app).settle_host(host.table, False) is False
    assert doc_of(app, host.table) == before


def test_powers_pass_to_the_next_live_phone_and_come_back(app, client) -> None:
    host, a, b, _ = open_table(client, joiners=3)
    # p2 has no live phone: the next seat after the host with one is p3.
    online(app, host.table, "p3", "p4")
    assert tables(app).settle_host(host.table, True) is True
    doc = doc_of(app, host.table)
    assert doc["host"] == "p1" and doc["stand_in"] == "p3"
    snap = a.get().json
    assert snap["host"] == "p3" and snap["host_away"] == "p1"
    assert [p["id"] for p in snap["players"] if p["host"]] == ["p3"]
    assert history(client, host.table)[-1] == "Host's phone has been away for a while: P3 holds host powers until Host is back."
    stand_in = Phone(client, host.table, b.id, b.token)
    assert {"type": "start"} in stand_in.get().json["legal"]
    # Settled already: asked again, nothing changes.
    assert tables(app).settle_host(host.table, True) is False

    # What the seat stays: the host's. The stand-in cannot keep the powers, nor
    # remove the host or take its seat off its phone; the table is as it was.
    before = doc_of(app, host.table)
    for atype, target in (("host", "p3"), ("remove", "p1"), ("phoneless", "p1")):
        r = stand_in.act(atype, player=target)
        assert r.status_code == 403 and r.json["error"]["code"] == "stand_in_limit", r.json
    r = stand_in.act("phoneless", player="p3")
    assert r.status_code == 409 and r.json["error"]["code"] == "host_needs_phone"
    assert doc_of(app, host.table) == before

    # It may do what the host does: start the game.
    assert stand_in.act("start").status_code == 200
    # The host's phone is back: the powers go back at once.
    online(app, host.table, "p1", "p3", "p4")
    assert tables(app).settle_host(host.table, False) is True
    doc = doc_of(app, host.table)
    assert "stand_in" not in doc
    assert host.get().json["host"] == "p1" and "host_away" not in host.get().json
    assert history(client, host.table)[-1] == "Host is back and is the host again."
    assert stand_in.act("undo").json["error"]["code"] == "not_host"


def test_the_stand_in_passes_on_when_it_goes_too(app, client) -> None:
    host, a, b = open_table(client)
    online(app, host.table, "p2", "p3")
    tables(app).settle_host(host.table, True)
    assert doc_of(app, host.table)["stand_in"] == "p2"
    online(app, host.table, "p3")
    assert tables(app).settle_host(host.table, True) is True
    assert doc_of(app, host.table)["stand_in"] == "p3"
    # Nobody with a live phone: nothing to pass on to.
    online(app, host.table)
    assert tables(app).settle_host(host.table, True) is False


def test_the_host_seat_comes_back_through_the_stand_in_sealed(app, client) -> None:
    host, a, b = open_table(client)
    assert host.act("pin", pin="2468").status_code == 200
    # While the host holds its powers, nobody else makes its seat a code.
    r = client.post(f"/api/tables/{host.table}/players/p1/rejoin", headers=a.auth, json={})
    assert r.status_code == 403 and r.json["error"]["code"] == "not_host"

    online(app, host.table, "p2", "p3")
    tables(app).settle_host(host.table, True)
    r = client.post(f"/api/tables/{host.table}/players/p1/rejoin", headers=a.auth, json={})
    assert r.status_code == 200, r.json
    c = client.post(f"/api/tables/{host.table}/claim", json={"claim": r.json["claim"]})
    assert c.status_code == 201 and c.json["player"]["id"] == "p1"
    back = Phone(client, host.table, "p1", c.json["player"]["token"])
    # Sealed though the game has not started: whoever scanned is not the
    # host until the seat's PIN says so.
    snap = back.get().json
    assert snap["sealed"] is True and snap["legal"] == [{"type": "unlock"}]
    assert back.act("start").json["error"]["code"] == "seat_sealed"
    assert host.get().status_code == 401, "the dead phone's token is gone"
    assert back.act("unlock", pin="1111").json["error"]["code"] == "bad_pin"
    assert back.act("unlock", pin="2468").status_code == 200
    # Unlocked and live again: the powers go back to the host's seat.
    online(app, host.table, "p1", "p2", "p3")
    assert tables(app).settle_host(host.table, False) is True
    assert back.act("start").status_code == 200


def test_a_code_the_stand_in_made_dies_when_the_host_is_back(app, client) -> None:
    host, a, b = open_table(client)
    online(app, host.table, "p2", "p3")
    tables(app).settle_host(host.table, True)
    code = client.post(f"/api/tables/{host.table}/players/p1/rejoin", headers=a.auth, json={}).json["claim"]
    online(app, host.table, "p1", "p2", "p3")
    tables(app).settle_host(host.table, False)
    c = client.post(f"/api/tables/{host.table}/claim", json={"claim": code})
    assert c.status_code == 404 and c.json["error"]["code"] == "claim_not_found"
    assert host.get().status_code == 200, "the host's own phone keeps its seat"


def test_a_stand_in_that_opens_the_host_seat_stays_locked_out_past_play_again(app, client) -> None:
    """The stand-in may bring the host's seat back with a code, but whoever
    redeems it is sealed until the host's PIN: `play_again`, which lifts the
    seals of a game's secrets, must not lift this one, or the stand-in's own
    second phone would hold the host's seat and its powers for good."""
    from tests.server.service.test_rejoin_secrecy import redeem

    host, a, _b = open_table(client, options={"target": 2})
    assert host.act("pin", pin="2468").status_code == 200
    assert host.act("start").status_code == 200
    assert host.act("add", n=3).status_code == 200          # the toy game is over at once
    online(app, host.table, "p2", "p3")
    assert tables(app).settle_host(host.table, True) is True
    assert doc_of(app, host.table)["stand_in"] == "p2"
    r = client.post(f"/api/tables/{host.table}/players/p1/rejoin", headers=a.auth, json={})
    assert r.status_code == 200, r.json
    c = redeem(client, host.table, r.json["claim"])
    held = Phone(client, host.table, "p1", c.json["player"]["token"])
    assert held.get().json["sealed"] is True
    assert a.act("play_again").status_code == 200
    assert held.get().json["sealed"] is True, "play_again unsealed the host's seat"
    online(app, host.table, "p1", "p2", "p3")
    tables(app).settle_host(host.table, False)
    assert held.act("host", player="p2").json["error"]["code"] == "seat_sealed"
    # The host's PIN opens it, and the seat plays as before.
    assert held.act("unlock", pin="2468").status_code == 200
    assert held.get().json["sealed"] is False and "seal_kept" not in doc_of(app, host.table)["seats"][0]

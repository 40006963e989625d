"""A lost phone mid-game (issue 12): the re-issued token must not hand the
host, or anyone, that seat's secrets. The seat is sealed until its own PIN
(chosen earlier on its own phone) unlocks it."""

from __future__ import annotations

from typing import Any

from tests.server.conftest import Phone, open_table


def rejoin(client: Any, host: Phone, seat: Phone) -> Phone:
    r = client.post(f"/api/tables/{host.table}/players/{seat.id}/rejoin", headers=host.auth)
    assert r.status_code == 200, r.json
    return Phone(client, host.table, seat.id, r.json["player"]["token"])


def spectator(client: Any, table: str) -> dict[str, Any]:
    return client.get(f"/api/tables/{table}").json["view"]


def kingup_table(client: Any) -> list[Phone]:
    phones = open_table(client, joiners=2, game="kingup", options={"goalCardMode": "deal"})
    assert phones[0].act("start").status_code == 200
    return phones


def test_a_rejoin_mid_game_shows_the_new_phone_no_secret(client) -> None:
    host, a, _b = kingup_table(client)
    assert a.act("draw_goal").status_code == 200
    assert a.get().json["view"]["me"]["goal_card"] is not None
    new = rejoin(client, host, a)
    snap = new.get().json
    assert snap["sealed"] is True and snap["pin"] is False
    assert snap["view"] == spectator(client, host.table), "the sealed seat sees only what a spectator sees"
    assert snap["legal"] == [], "legal moves would reveal secrets too"
    assert client.get(f"/api/tables/{host.table}/analysis", headers=new.auth).status_code == 200
    assert new.act("unlock", pin="0000").json["error"]["code"] == "no_pin"
    assert new.act("pin", pin="1111").json["error"]["code"] == "seat_sealed"
    text = client.get(f"/api/tables/{host.table}/history?lang=en").json["rounds"]
    lines = [e["text"] for r in text for e in r["entries"]]
    assert any("sees none of" in t for t in lines), lines


def test_the_owners_pin_unlocks_the_seat_and_guesses_are_limited(client) -> None:
    host, a, _b = kingup_table(client)
    assert a.act("pin", pin="4821").status_code == 200
    assert a.act("draw_goal").status_code == 200
    card = a.get().json["view"]["me"]["goal_card"]
    new = rejoin(client, host, a)
    snap = new.get().json
    assert str(card) not in str(snap["view"]) or snap["view"] == spectator(client, host.table)
    assert snap["sealed"] and snap["pin"] and snap["legal"] == [{"type": "unlock"}]
    assert snap["view"] == spectator(client, host.table)
    wrong = new.act("unlock", pin="0000")
    assert wrong.status_code == 403 and wrong.json["error"]["code"] == "bad_pin"
    assert new.get().json["sealed"] is True
    for guess in ("0001", "0002", "0003", "0004"):
        assert new.act("unlock", pin=guess).status_code == 403
    limited = new.act("unlock", pin="4821")
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) > 0
    assert new.get().json["view"] == spectator(client, host.table)


def test_unlocking_with_the_pin_brings_the_secrets_back(client) -> None:
    host, a, _b = kingup_table(client)
    a.act("pin", pin="4821")
    a.act("draw_goal")
    card = a.get().json["view"]["me"]["goal_card"]
    new = rejoin(client, host, a)
    ok = new.act("unlock", pin="4821")
    assert ok.status_code == 200, ok.json
    snap = new.get().json
    assert snap["sealed"] is False and snap["view"]["me"]["goal_card"] == card
    assert a.get().status_code == 401, "the old token stopped working"


def test_a_rejoin_in_the_lobby_seals_nothing(client) -> None:
    host, a, _b = open_table(client, joiners=2, game="kingup")
    new = rejoin(client, host, a)
    assert new.get().json["sealed"] is False


def test_count_up_numbers_stay_hidden_from_a_reissued_token(app, client) -> None:
    import random

    host, a, _b, _c = open_table(client, joiners=3, game="countup")
    assert host.act("start").status_code == 200
    svc = app.extensions["tablemate"]
    engine = svc.engine("countup")
    state = engine.load(svc.store.load(host.table)["state"])
    sheet = engine.sample(state, a.id, {"type": "numbers"}, random.Random(7))
    assert sheet is not None
    r = a.act("numbers", numbers=sheet["numbers"])
    assert r.status_code == 200, r.json
    mine = a.get().json
    assert mine["view"] != spectator(client, host.table), "the owner sees its sheet"
    new = rejoin(client, host, a)
    sealed = new.get().json
    assert sealed["view"] == spectator(client, host.table) and sealed["legal"] == []

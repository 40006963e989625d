"""A lost phone mid-game (issues 12 and 30): the host hands out a one-time
rejoin code, never a seat token; the phone that redeems it gets a fresh token.
Mid-game that token is sealed (the host saw the code first and may have
redeemed it): no secret and no move until the seat's own PIN (chosen earlier
on its own phone) unlocks it."""

from __future__ import annotations

from typing import Any

from server.service import atrest
from tests.server.conftest import Phone, open_table
from tests.words import texts


def rejoin_code(client: Any, host: Phone, seat: Phone) -> str:
    """The host's rejoin code for ``seat``: never a token."""
    r = client.post(f"/api/tables/{host.table}/players/{seat.id}/rejoin", headers=host.auth)
    assert r.status_code == 200, r.json
    assert "token" not in r.json["player"], "the host must never hold a seat token"
    assert r.json["rejoin_url"].endswith(f"#claim={r.json['claim']}")
    return str(r.json["claim"])


def redeem(client: Any, table: str, code: str) -> Any:
    return client.post(f"/api/tables/{table}/claim", json={"claim": code})


def rejoin(client: Any, host: Phone, seat: Phone) -> Phone:
    """The seat taken over by whoever redeems the host's code (the host itself, at worst)."""
    r = redeem(client, host.table, rejoin_code(client, host, seat))
    assert r.status_code == 201, r.json
    assert r.json["player"]["id"] == seat.id
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
    lines = texts(client.get(f"/api/tables/{host.table}/history").json, "en")
    assert any("opened on a new phone" in t and "sees none of" in t for t in lines), lines


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
    state = atrest.load_state(engine, svc.store.load(host.table))
    sheet = engine.sample(state, a.id, {"type": "numbers"}, random.Random(7))
    assert sheet is not None
    r = a.act("numbers", numbers=sheet["numbers"])
    assert r.status_code == 200, r.json
    mine = a.get().json
    assert mine["view"] != spectator(client, host.table), "the owner sees its sheet"
    new = rejoin(client, host, a)
    sealed = new.get().json
    assert sealed["view"] == spectator(client, host.table) and sealed["legal"] == []


# -- issue 30: no token the host ever held sees a seat's secrets -----------------

def test_the_code_dies_on_use_and_the_old_token_only_then(client) -> None:
    host, a, _b = kingup_table(client)
    code = rejoin_code(client, host, a)
    assert a.get().status_code == 200, "a code shown by mistake breaks nothing until it is used"
    first = redeem(client, host.table, code)
    assert first.status_code == 201
    assert a.get().status_code == 401, "the old token stopped working"
    again = redeem(client, host.table, code)
    assert again.status_code == 404 and again.json["error"]["code"] == "claim_not_found"
    for junk in ({"claim": "x" * 8}, {"claim": 5}, {}, {"claim": code, "more": 1}):
        r = client.post(f"/api/tables/{host.table}/claim", json=junk)
        assert r.status_code == 400 and r.json["error"]["code"] == "invalid_payload", (junk, r.json)


def test_a_newer_code_replaces_the_older_and_codes_expire(app, client, monkeypatch) -> None:
    host, a, _b = open_table(client, joiners=2, game="kingup")
    old = rejoin_code(client, host, a)
    new = rejoin_code(client, host, a)
    assert redeem(client, host.table, old).json["error"]["code"] == "claim_not_found"
    import server.service.decide as decide

    later = decide.time.time() + 16 * 60
    monkeypatch.setattr(decide.time, "time", lambda: later)
    assert redeem(client, host.table, new).json["error"]["code"] == "claim_not_found", "expired"


def test_a_lobby_code_redeemed_by_the_host_never_sees_the_goal_card(client) -> None:
    """The lobby hole: a token from a lobby rejoin, kept by the host, showed the
    seat's goal card once the game started. Now the host holds no token at all:
    if it redeems the code itself, the player's own phone is the one shut out
    (which the table sees), and the player's next code shuts the host out."""
    host, a, _b = open_table(client, joiners=2, game="kingup", options={"goalCardMode": "deal"})
    stolen = rejoin(client, host, a)  # the host scans its own QR in the lobby
    assert a.get().status_code == 401, "the real phone is visibly shut out"
    owner = rejoin(client, host, a)  # the player asks for a code and scans it
    assert stolen.get().status_code == 401, "the host's copy dies with the next redemption"
    assert host.act("start").status_code == 200
    assert owner.act("draw_goal").status_code == 200
    assert owner.get().json["view"]["me"]["goal_card"] is not None
    assert stolen.get().status_code == 401


def test_the_owners_unlock_does_not_unseal_a_copy_the_host_kept(client) -> None:
    """Mid-game: the owner redeems the code on the new phone and unlocks it
    with the PIN. Nothing the host ever held opens the seat."""
    host, a, _b = kingup_table(client)
    assert a.act("pin", pin="4821").status_code == 200
    assert a.act("draw_goal").status_code == 200
    card = a.get().json["view"]["me"]["goal_card"]
    code = rejoin_code(client, host, a)
    owner = Phone(client, host.table, a.id, redeem(client, host.table, code).json["player"]["token"])
    assert owner.act("unlock", pin="4821").status_code == 200
    assert owner.get().json["view"]["me"]["goal_card"] == card
    # What the host has: the spent code, and its own token (its own seat).
    assert redeem(client, host.table, code).status_code == 404
    assert host.get().json["me"] == host.id


def test_play_again_carries_no_host_copy_into_the_next_game(client) -> None:
    """Before, the host's copy of a mid-game rejoin token came out of its seal
    at ``play_again`` and read the seat's secrets in the next game. Now the
    host holds no copy: after the game only the phone that redeemed the code
    opens the seat, and it alone sees the next game's secret."""
    host, a, _b = open_table(client, joiners=2, game="toy", options={"target": 2})
    assert host.act("start").status_code == 200
    code = rejoin_code(client, host, a)
    owner = Phone(client, host.table, a.id, redeem(client, host.table, code).json["player"]["token"])
    assert owner.get().json["sealed"] is True
    assert host.act("add", n=3).status_code == 200  # the host wins: the game is over
    assert host.act("play_again").status_code == 200
    assert owner.get().json["sealed"] is False, "the next game deals to the seat's one holder"
    assert host.act("start").status_code == 200
    assert owner.act("note", text="mine").status_code == 200
    assert owner.get().json["view"]["my_note"] == "mine"
    assert "my_note" not in host.get().json["view"]
    assert redeem(client, host.table, code).status_code == 404
    assert a.get().status_code == 401


def test_a_sealed_seat_may_only_unlock(client) -> None:
    """The sealed token from a mid-game rejoin cast the seat's King Up vote and
    renamed it. A sealed seat may only ``unlock``: every other action, game or
    platform, is refused and the table stays exactly as it was."""
    host, a, b = kingup_table(client)
    assert a.act("pin", pin="4821").status_code == 200
    new = rejoin(client, host, a)
    before = host.get().json
    attempts = [("rename", {"player": a.id, "name": "Cy"}), ("pin", {"pin": "1111"}),
                ("vote", {"vote": "yes"}), ("draw_goal", {}), ("proxies", {"who": "all"}),
                ("host", {"player": a.id}), ("undo", {}), ("next_round", {})]
    for atype, payload in attempts:
        r = new.act(atype, **payload)
        assert r.status_code == 409 and r.json["error"]["code"] == "seat_sealed", (atype, r.json)
    r = client.post(f"/api/tables/{host.table}/players/{b.id}/rejoin", headers=new.auth)
    assert r.status_code == 409 and r.json["error"]["code"] == "seat_sealed"
    after = host.get().json
    assert after["version"] == before["version"] and after["players"] == before["players"]
    assert new.act("unlock", pin="4821").status_code == 200
    assert new.act("rename", player=a.id, name="Cy").status_code == 200, "unlocked: the seat plays again"


def test_pin_stretching_runs_off_the_event_loop_and_is_limited(client, monkeypatch) -> None:
    """Each ``pin`` runs ~25 ms of PBKDF2: in a worker thread (``offload``),
    never on the event loop, and at most 5 times per seat per 10 minutes."""
    import server.service.pipeline as pipeline
    import server.service.platform as platform

    inside = {"now": False}
    stretched: list[bool] = []
    real_offload, real_hash = pipeline.offload, pipeline.pin_hash

    def spy_offload(fn):  # type: ignore[no-untyped-def]
        inside["now"] = True
        try:
            return real_offload(fn)
        finally:
            inside["now"] = False

    def spy_hash(*args):  # type: ignore[no-untyped-def]
        stretched.append(inside["now"])
        return real_hash(*args)

    monkeypatch.setattr(pipeline, "offload", spy_offload)
    monkeypatch.setattr(pipeline, "pin_hash", spy_hash)
    monkeypatch.setattr(platform, "pin_hash", spy_hash)
    host, a, _b = kingup_table(client)
    assert a.act("pin", pin="1234").status_code == 200
    new = rejoin(client, host, a)
    assert new.act("unlock", pin="1234").status_code == 200
    assert stretched == [True, True], "every PIN stretched inside offload"
    for pin in ("2345", "3456", "4567", "5678"):
        assert a.get().status_code == 401
        assert new.act("pin", pin=pin).status_code == 200
    before = host.get().json
    r = new.act("pin", pin="6789")
    assert r.status_code == 429 and r.json["error"]["code"] == "rate_limited" and int(r.headers["Retry-After"]) > 0
    assert host.get().json["version"] == before["version"]


def test_a_seat_whose_phone_is_live_is_not_moved_to_another_phone(app, client) -> None:
    """The host may not take a live phone's seat off it (`phoneless`: 409
    phone_live), nor by a rejoin code it redeems itself: that shut the live
    phone out, left the seat with no live phone, and the host then took it
    off its phone and played it from paper. A code is made, and redeemed,
    only while the seat's phone is gone; the table is unchanged otherwise."""
    from tests.server.service.test_hostship import doc_of, online

    host, p2, p3 = open_table(client, options={"target": 50})
    assert host.act("start").status_code == 200
    online(app, host.table, "p1", "p2", "p3")
    before = doc_of(app, host.table)
    r = client.post(f"/api/tables/{host.table}/players/p2/rejoin", headers=host.auth)
    assert (r.status_code, r.json["error"]["code"]) == (409, "phone_live")
    assert doc_of(app, host.table) == before
    # Who may not make codes at all is told so first.
    r = client.post(f"/api/tables/{host.table}/players/p2/rejoin", headers=p3.auth)
    assert (r.status_code, r.json["error"]["code"]) == (403, "not_host")
    # Its phone gone, a code is made; back before the code is used, the code waits.
    online(app, host.table, "p1", "p3")
    code = rejoin_code(client, host, p2)
    online(app, host.table, "p1", "p2", "p3")
    before = doc_of(app, host.table)
    r = redeem(client, host.table, code)
    assert (r.status_code, r.json["error"]["code"]) == (409, "phone_live")
    assert doc_of(app, host.table) == before
    assert p2.get().status_code == 200
    online(app, host.table, "p1", "p3")
    assert redeem(client, host.table, code).status_code == 201
    # The seat's own phone may still hand itself on: a code for one's own seat.
    online(app, host.table, "p1", "p2", "p3")
    assert client.post(f"/api/tables/{host.table}/players/p1/rejoin", headers=host.auth).status_code == 200

"""The stalled phone, the platform's side (issue 33): since when the game waits
for whom (with the server's clock), the host's reminder, a paused phone that
keeps its token and is handed back (``phone_back``, confirmed by ``resume``),
and the engine's ``set_phone``/``skip`` through the platform."""

from __future__ import annotations

import time
from typing import Any

from server.service import atrest, results
from server.service.seats import find_seat, token_hash
from tests.engines.kingup.climb import climb
from tests.sealed_votes import VoteSeals
from tests.server.conftest import Phone, open_table, open_votes, take_seat
from tests.server.service.test_countup_undo import SHEETS, countup
from tests.server.service.test_phoneless import act_as, add_phoneless, doc_of, history, refused


def kingup_vote(client: Any) -> list[Phone]:
    """A King Up! table of three phones played to its first election: each
    turn places on the highest level it may, then moves the highest
    character, until one reaches the throne."""
    phones = open_table(client, joiners=2, game="kingup")
    by_id = {p.id: p for p in phones}
    assert phones[0].act("start").status_code == 200
    for _ in range(200):
        view = phones[0].get().json["view"]
        if view["phase"] == "vote":
            return phones
        mover = by_id[view["turn"]]
        act = climb(mover.get().json["legal"], view["positions"])
        payload = {k: v for k, v in act.items() if k != "type"}
        r = mover.act(act["type"], **payload)
        assert r.status_code == 200, r.json
    raise AssertionError("no election")


def spectator(client: Any, table: str) -> dict[str, Any]:
    return client.get(f"/api/tables/{table}").json


# -- since when ----------------------------------------------------------------------------


def test_each_waited_seat_carries_since_when_with_the_servers_clock(client) -> None:
    phones = countup(client)
    host, p2, p3 = phones
    snap = p3.get().json
    assert snap["view"]["waiting"] == ["p1", "p2", "p3"]
    since = snap["waiting_since"]
    assert list(since) == ["p1", "p2", "p3"] and len(set(since.values())) == 1
    assert since["p1"] <= snap["now"] <= time.time() + 1
    time.sleep(0.05)
    assert p2.act("numbers", numbers=SHEETS[1]).status_code == 200
    later = spectator(client, host.table)
    assert later["view"]["waiting"] == ["p1", "p3"]
    # Another phone's entry does not restart the others' wait.
    assert later["waiting_since"] == {"p1": since["p1"], "p3": since["p3"]}
    assert later["now"] > snap["now"]
    assert host.act("numbers", numbers=SHEETS[0]).status_code == 200
    assert p3.act("numbers", numbers=SHEETS[2]).status_code == 200
    counting = host.get().json
    assert counting["view"]["waiting"] == [] and "waiting_since" not in counting and "now" not in counting


def test_a_new_wait_starts_at_its_own_commit(client) -> None:
    host, p2, _p3 = kingup_vote(client)
    first = host.get().json["waiting_since"]
    assert list(first) == ["p1", "p2", "p3"]
    time.sleep(0.05)
    seals = VoteSeals()
    assert host.vote("yes", seals).status_code == 200
    assert p2.vote("yes", seals).status_code == 200
    assert list(host.get().json["waiting_since"]) == ["p3"]
    assert host.get().json["waiting_since"]["p3"] == first["p3"]


def test_the_lobby_waits_for_nobody(client) -> None:
    host, _p2, _p3 = open_table(client, game="countup")
    snap = host.get().json
    assert snap["reminder"] == 0 and "waiting_since" not in snap and "now" not in snap


# -- the reminder ---------------------------------------------------------------------------


def test_the_host_sets_the_reminder_as_chatter(app, client) -> None:
    host, p2, _p3 = open_table(client, game="countup")
    before = doc_of(app, host.table)
    refused(app, host, p2.act("reminder", seconds=30), 403, "not_host", before)
    refused(app, host, host.act("reminder", seconds=601), 400, "invalid_payload", before)
    refused(app, host, host.act("reminder", seconds=-1), 400, "invalid_payload", before)
    refused(app, host, host.act("reminder", seconds="30"), 400, "invalid_payload", before)
    assert host.act("reminder", seconds=60).status_code == 200
    assert p2.get().json["reminder"] == 60 and spectator(client, host.table)["reminder"] == 60
    assert doc_of(app, host.table)["seats"][0]["chat"] == 1, "counted as chatter"
    assert host.act("start").status_code == 200
    assert host.act("reminder", seconds=0).status_code == 200, "the host may turn it off mid-game"
    assert p2.get().json["reminder"] == 0 and "reminder" not in doc_of(app, host.table)
    assert "Host set the reminder for a late player: 1 min." in history(client, host.table)
    assert "Host set the reminder for a late player: off." in history(client, host.table)
    assert "Host님이 늦는 사람 알림을 바꿨습니다: 1분" in history(client, host.table, "ko")


# -- a paused phone and its way back ---------------------------------------------------------


def test_a_paused_phone_keeps_its_token_and_comes_back(app, client) -> None:
    host, p2, _p3 = countup(client)
    assert host.act("phoneless", player=p2.id).status_code == 200
    paused = p2.get()
    assert paused.status_code == 200, "paused, not shut out: the phone keeps its token"
    snap = paused.json
    assert snap["me"] == p2.id and snap["paused"] == "phoneless" and snap["legal"] == []
    assert snap["view"] == spectator(client, host.table)["view"]
    seats = host.get().json["players"]
    assert seats[1]["phone"] is False and seats[1]["paused"] is True
    assert p2.id in host.get().json["proxies"], "the host enters for it meanwhile"
    assert host.get().json["view"]["waiting"] == ["p1", "p3"], "a sheet on paper is not waited for"
    refused(app, host, p2.act("numbers", numbers=SHEETS[1]), 409, "seat_paused", doc_of(app, host.table))
    refused(app, host, p2.act("rename", player=p2.id, name="Me"), 409, "seat_paused", doc_of(app, host.table))
    # Even where every phone may enter for seats without a phone, a paused one enters for none.
    assert host.act("proxies", who="all").status_code == 200
    assert p2.get().json["proxies"] == {}
    refused(app, host, act_as(p2, p2.id, "numbers", numbers=SHEETS[1]), 409, "seat_paused", doc_of(app, host.table))

    r = host.act("phone_back", player=p2.id)
    assert r.status_code == 200, r.json
    assert r.json["events"] == [{"type": "phone_back", "player": p2.id}, {"type": "seat_phone", "seat": p2.id}]
    assert host.get().json["view"]["paper"] == []
    back = p2.get().json
    assert back["paused"] == "handed_back" and back["legal"] == [{"type": "resume"}]
    assert back["view"] == spectator(client, host.table)["view"], "nothing shows before its owner's tap"
    assert "phone" not in host.get().json["players"][1]
    refused(app, host, p2.act("numbers", numbers=SHEETS[1]), 409, "seat_paused", doc_of(app, host.table))
    assert p2.act("resume").status_code == 200
    mine = p2.get().json
    assert "paused" not in mine and {"type": "numbers"} in mine["legal"]
    refused(app, host, p2.act("resume"), 409, "not_handed_back", doc_of(app, host.table))
    assert p2.act("numbers", numbers=SHEETS[1]).status_code == 200
    assert p2.get().json["view"]["my_numbers"] == SHEETS[1]
    lines = history(client, host.table)
    assert ("Host made P2's seat one without a phone. Their phone waits until the host hands the seat "
            "back to it.") in lines
    assert "Host handed P2's seat back to their own phone." in lines
    assert "P2 is back on their own phone." in lines
    ko = history(client, host.table, "ko")
    assert "Host님이 P2님 자리를 P2님의 휴대폰에 돌려줬습니다." in ko
    assert "P2님이 자기 휴대폰으로 다시 참여합니다." in ko


def test_the_host_never_holds_a_token_that_opens_the_seat_after_phone_back(app, client) -> None:
    """Issue 30's rule: whatever the host was given on the way (answers,
    snapshots, a rejoin code it showed meanwhile), none of it opens the seat
    once its phone is back; only the token the seat's own phone always kept."""
    host, p2, _p3 = countup(client)
    seen: list[Any] = []

    def keep(response: Any) -> Any:
        seen.append(response.json)
        return response

    assert keep(host.act("phoneless", player=p2.id)).status_code == 200
    code = keep(client.post(f"/api/tables/{host.table}/players/{p2.id}/rejoin", headers=host.auth, json={}))
    assert code.status_code == 200
    keep(host.get())
    assert keep(host.act("phone_back", player=p2.id)).status_code == 200
    keep(host.get())
    doc = doc_of(app, host.table)
    seat = next(s for s in doc["seats"] if s["id"] == p2.id)
    assert seat["th"] == token_hash(p2.token) and "claim" not in seat

    def strings(x: Any) -> list[str]:
        if isinstance(x, dict):
            return [s for v in x.values() for s in strings(v)]
        if isinstance(x, list):
            return [s for v in x for s in strings(v)]
        return [x] if isinstance(x, str) else []

    held = {host.token, *strings(seen)}
    assert all((find_seat(doc, s) or {}).get("id") != p2.id for s in held)
    r = client.post(f"/api/tables/{host.table}/claim", json={"claim": code.json["claim"]})
    assert r.status_code == 404 and r.json["error"]["code"] == "claim_not_found", "the code died with the hand-back"
    assert p2.act("resume").status_code == 200


def test_a_sealed_seat_handed_back_stays_sealed(app, client) -> None:
    """A seat opened by a rejoin code mid-game (a token the host may hold) and then
    paused gets no secret back by ``phone_back``: only its PIN unlocks it."""
    host, p2, _p3 = countup(client)
    new = take_seat(client, host, p2.id)
    assert host.act("phoneless", player=p2.id).status_code == 200
    assert host.act("phone_back", player=p2.id).status_code == 200
    snap = new.get().json
    assert snap["sealed"] is True and "paused" not in snap and snap["legal"] == []
    assert snap["view"] == spectator(client, host.table)["view"]
    refused(app, host, new.act("resume"), 409, "seat_sealed", doc_of(app, host.table))


def test_a_rejoin_code_shuts_the_paused_phone_out(client) -> None:
    host, p2, _p3 = countup(client)
    assert host.act("phoneless", player=p2.id).status_code == 200
    new = take_seat(client, host, p2.id)
    assert p2.get().status_code == 401 and p2.get().json["error"]["code"] == "bad_token"
    assert new.get().json["sealed"] is True


def test_a_refused_set_phone_leaves_the_table_unchanged(app, client) -> None:
    # King Up!: a vote not yet in is a physical card until the reveal.
    host, p2, p3 = kingup_vote(client)
    seals = VoteSeals()
    assert host.vote("yes", seals).status_code == 200
    assert host.act("phoneless", player=p2.id).status_code == 200
    before = doc_of(app, host.table)
    refused(app, host, host.act("phone_back", player=p2.id), 409, "paper_until_reveal", before)
    assert p2.get().json["paused"] == "phoneless"
    assert host.get().json["view"]["paper_until"] == {p2.id: "reveal"}
    # The host goes on without its vote (a Yes); the last vote reveals; then it is back.
    assert {"type": "skip", "seat": p2.id} in host.get().json["legal"]
    r = host.act("skip", seat=p2.id)
    assert r.status_code == 200 and r.json["events"][0]["type"] == "seat_skipped"
    assert p3.vote("yes", seals).status_code == 200
    open_votes([host, p2, p3], seals)
    assert host.get().json["view"]["phase"] != "vote"
    assert host.act("phone_back", player=p2.id).status_code == 200
    assert p2.act("resume").status_code == 200
    assert "paused" not in p2.get().json
    assert any("away: their vote counts as Yes" in t for t in history(client, host.table))

    # Count Up: from the count on, a sheet written on paper is the only copy.
    host, p2, p3 = countup(client)
    assert host.act("numbers", numbers=SHEETS[0]).status_code == 200
    assert p3.act("numbers", numbers=SHEETS[2]).status_code == 200
    assert host.act("phoneless", player=p2.id).status_code == 200  # the last sheet: the count starts
    assert host.get().json["view"]["phase"] == "count"
    before = doc_of(app, host.table)
    refused(app, host, host.act("phone_back", player=p2.id), 409, "paper_until_round_end", before)
    assert p2.get().json["paused"] == "phoneless"


def test_phone_back_refusals(app, client) -> None:
    host, p2, p3 = countup(client)
    kid = add_phoneless(client, host, "Kid")
    assert kid.status_code == 409, "seats without a phone are added in the lobby only"
    before = doc_of(app, host.table)
    refused(app, host, host.act("phone_back", player=p2.id), 409, "has_phone", before)
    refused(app, host, host.act("phone_back", player="p9"), 404, "no_such_player", before)
    assert host.act("phoneless", player=p2.id).status_code == 200
    before = doc_of(app, host.table)
    refused(app, host, p3.act("phone_back", player=p2.id), 403, "not_host", before)
    refused(app, host, p2.act("phone_back", player=p2.id), 409, "seat_paused", before)
    refused(app, host, host.act("set_phone", seat=p2.id), 400, "unknown_action", before)
    refused(app, host, host.act("host", player=p2.id), 409, "phoneless_host", before)
    # A seat added without a phone has no phone to hand back: the rejoin QR gives it one.
    lobby, _a, _b = open_table(client, game="countup")
    kid_id = add_phoneless(client, lobby, "Kid").json["player"]["id"]
    assert lobby.act("start").status_code == 200
    before = doc_of(app, lobby.table)
    refused(app, lobby, lobby.act("phone_back", player=kid_id), 409, "no_phone_to_return", before)


def test_phone_back_in_the_lobby_and_undo_stops_at_it(app, client) -> None:
    host, p2, _p3 = open_table(client, game="countup", options={"restrictionSource": "manual"})
    assert host.act("phoneless", player=p2.id).status_code == 200
    assert host.act("phone_back", player=p2.id).status_code == 200
    assert p2.get().json["paused"] == "handed_back"
    assert p2.act("resume").status_code == 200
    assert host.act("start").status_code == 200
    assert host.act("restriction", digits=[7, 8, 9]).status_code == 200
    assert host.act("numbers", numbers=SHEETS[0]).status_code == 200
    assert host.act("phoneless", player=p2.id).status_code == 200
    assert host.act("phone_back", player=p2.id).status_code == 200
    r = host.act("undo")
    assert r.status_code == 409 and r.json["error"]["code"] == "nothing_to_undo", "undo stops at a hand-back"
    assert p2.act("resume").status_code == 200
    assert p2.act("numbers", numbers=SHEETS[1]).status_code == 200
    assert host.act("undo").status_code == 200, "what follows it stays undoable"
    # The replay behind undo and results runs through the hand-back.
    doc = doc_of(app, host.table)
    assert doc["state"].get("paper", []) == [] and doc["state"]["phase"] == "entry"
    tables = app.extensions["tablemate"].tables
    engine = tables.engine("countup")
    steps = list(results._replay(engine, doc, tables.store.log(host.table)))
    # (The stored state keeps the locked sheets encrypted at rest: atrest.load_state opens them.)
    assert steps[-1][0] == atrest.load_state(engine, doc)


def test_skip_starts_the_count_without_a_phones_sheet(client) -> None:
    host, p2, p3 = countup(client)
    assert host.act("numbers", numbers=SHEETS[0]).status_code == 200
    assert p3.act("numbers", numbers=SHEETS[2]).status_code == 200
    legal = host.get().json["legal"]
    assert {"type": "skip", "seat": p2.id} in legal
    assert not any(a["type"] == "skip" for a in p3.get().json["legal"]), "the host's alone"
    r = host.act("skip", seat=p2.id)
    assert r.status_code == 200, r.json
    snap = p2.get().json
    assert snap["view"]["phase"] == "count" and "waiting_since" not in snap
    assert any("sits out round 1" in t for t in history(client, host.table)), history(client, host.table)

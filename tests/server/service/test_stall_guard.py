"""The host unsticks a table but cannot decide it (issue 37): ``skip`` only
for a seat the game has waited for long enough, no undo that changes
another seat's sealed choice (that seat chooses again on its own phone), a
retracted choice shown once the game is over, ``phoneless`` never on a
live phone but by that phone, and every step for another seat announced.

Each attack of the issue is replayed here as the host who wants to win would
send it; on a server without these rules each of them went through."""

from __future__ import annotations

import time
from typing import Any

import jsonschema
import pytest

from engines.history import part
from server import create_app
from server.service import stall
from tests.sealed_votes import VoteSeals
from tests.server.conftest import open_table, open_votes
from tests.server.service.test_countup_undo import SHEETS, countup
from tests.server.service.test_phoneless import act_as, doc_of, history, refused
from tests.server.service.test_stall import kingup_vote
from tests.toy_engine import TOY
from tests.words import worded


@pytest.fixture
def app(redis_url: str):
    """The production waits: 60 s for a live phone, 15 s for one that is gone."""
    return create_app({"REDIS_URL": redis_url, "EXTRA_ENGINES": [TOY], "FIXED_RANDOM": True,
                       "RATE_CREATE": 1000, "RATE_JOIN": 1000, "RATE_CODE": 1000, "WEB_BUILD": None,
                       "STALL_AFTER": 60, "STALL_OFFLINE": 15})


@pytest.fixture
def later(monkeypatch: pytest.MonkeyPatch):
    """Moves the server's clock on by the seconds given (waits are recorded and
    judged by it)."""
    shift = [0.0]
    monkeypatch.setattr(stall, "clock", lambda: time.time() + shift[0])

    def move(seconds: float) -> None:
        shift[0] += seconds

    return move


def live(app: Any, monkeypatch: pytest.MonkeyPatch, *seats: str) -> None:
    """These seats have a live socket (what presence would say of phones that
    answer; tests/server/live/test_stall_guard.py does it with real sockets)."""
    monkeypatch.setattr(app.extensions["tablemate"].tables.store.presence, "present", lambda table_id: set(seats))


def skips(snap: dict[str, Any]) -> list[str]:
    return [a["seat"] for a in snap["legal"] if a["type"] == "skip"]


# -- attack 1: a connected voter skipped at once ---------------------------------------------


def test_a_live_voter_is_not_skipped_in_its_first_minute(app, client, monkeypatch, later) -> None:
    host, p2, p3 = kingup_vote(client)
    live(app, monkeypatch, host.id, p2.id, p3.id)
    snap = host.get().json
    assert skips(snap) == [], "nothing offered at the start of the vote"
    assert {a["seat"] for a in snap["held"]} == {host.id, p2.id, p3.id}, "offered from step_in on"
    since = snap["waiting_since"]
    assert snap["step_in"] == {p: round(since[p] + 60, 3) for p in since}, "the clock every phone shows"
    assert p2.get().json["step_in"] == snap["step_in"]
    refused(app, host, host.act("skip", seat=p2.id), 409, "not_stalled", doc_of(app, host.table))
    later(59)
    refused(app, host, host.act("skip", seat=p2.id), 409, "not_stalled", doc_of(app, host.table))
    later(2)
    assert p2.id in skips(host.get().json) and "held" not in host.get().json
    r = host.act("skip", seat=p2.id)
    assert r.status_code == 200, r.json


def test_a_gone_phone_is_stepped_in_for_sooner_and_the_reminder_sets_the_wait(app, client, monkeypatch,
                                                                                later) -> None:
    host, p2, p3 = kingup_vote(client)
    live(app, monkeypatch, host.id, p3.id)  # p2's phone has no live socket
    refused(app, host, host.act("skip", seat=p2.id), 409, "not_stalled", doc_of(app, host.table))
    later(16)
    assert skips(host.get().json) == [p2.id]
    refused(app, host, host.act("skip", seat=p3.id), 409, "not_stalled", doc_of(app, host.table))
    # The reminder's time, but never under 30 s: not a way to skip at once.
    assert host.act("reminder", seconds=5).status_code == 200
    refused(app, host, host.act("skip", seat=p3.id), 409, "not_stalled", doc_of(app, host.table))
    later(15)
    assert host.act("skip", seat=p3.id).status_code == 200


# -- attack 2: a cast No turned into a Yes ----------------------------------------------------


def test_undo_of_a_cast_vote_gives_it_back_to_its_phone(app, client, monkeypatch, later) -> None:
    host, p2, p3 = kingup_vote(client)
    seals = VoteSeals()
    assert host.vote("yes", seals).status_code == 200
    assert p2.vote("yes", seals).status_code == 200
    assert p3.vote("no", seals).status_code == 200
    open_votes([host, p2, p3], seals)  # the last opening reveals: undo stops there
    refused(app, host, host.act("undo"), 409, "undo_sealed", doc_of(app, host.table))

    host, p2, p3 = kingup_vote(client)
    assert host.vote("yes", seals).status_code == 200
    assert p3.vote("no", seals).status_code == 200
    r = host.act("undo")
    assert r.status_code == 200, r.json
    assert r.json["events"][0]["reopened"] == p3.id
    assert "Host undid the last action. P3 chooses again on their own phone." in history(client, host.table)
    assert p3.get().json["step"] == {"v": r.json["version"], "type": "undo", "seat": p3.id, "by": host.id}
    snap = host.get().json
    assert snap["reopened"] == [p3.id] and p3.id not in snap["step_in"]
    later(3600)
    assert p3.id not in skips(host.get().json), "never offered for that choice"
    refused(app, host, host.act("skip", seat=p3.id), 409, "seat_reopened", doc_of(app, host.table))
    refused(app, host, host.act("phoneless", player=p3.id), 409, "seat_reopened", doc_of(app, host.table))
    refused(app, host, act_as(host, p3.id, "vote", vote="yes"), 403, "not_allowed", doc_of(app, host.table))
    # Its own phone chooses again, and is heard.
    assert p3.vote("yes", seals).status_code == 200
    assert "reopened" not in host.get().json
    assert p2.vote("yes", seals).status_code == 200
    open_votes([host, p2, p3], seals)
    assert host.get().json["view"]["phase"] != "vote"


def test_a_reopened_vote_cast_again_is_waited_for_at_its_opening_like_any(app, client, later) -> None:
    """A seat stays reopened only until it has chosen again: voting last, it
    is then waited for to open its seal, and the host may step in for that."""
    host, p2, p3 = kingup_vote(client)
    seals = VoteSeals()
    for phone, vote in ((host, "yes"), (p2, "yes"), (p3, "no")):
        assert phone.vote(vote, seals).status_code == 200
    r = host.act("undo")
    assert r.status_code == 200 and r.json["events"][0]["reopened"] == p3.id, r.json
    assert p3.vote("no", seals).status_code == 200
    snap = host.get().json
    assert snap["view"]["election"]["opening"] == [host.id, p2.id, p3.id]
    assert "reopened" not in snap, "its choice is made: only its opening is awaited"
    later(3600)
    assert p3.id in skips(host.get().json)


def test_undo_refuses_a_choice_whose_seat_is_off_its_phone(app, client) -> None:
    """The variant: the seat taken off its phone after it voted, then undo, then
    the host votes ``as`` it. Its phone alone may vote again, so no undo."""
    host, p2, p3 = kingup_vote(client)
    seals = VoteSeals()
    assert p3.vote("no", seals).status_code == 200
    assert host.act("phoneless", player=p3.id).status_code == 200  # no live socket: the phone is gone
    refused(app, host, host.act("undo"), 409, "choice_off_phone", doc_of(app, host.table))
    assert p2.vote("no", seals).status_code == 200
    assert host.act("undo").status_code == 200, "the host's undo of what it may redo goes on"


# -- attack 3: a rival sat out --------------------------------------------------------------


def test_undo_of_a_locked_sheet_gives_it_back_to_its_phone(app, client, later) -> None:
    host, p2, p3 = countup(client)
    assert p2.act("numbers", numbers=SHEETS[1]).status_code == 200
    assert host.act("undo").status_code == 200
    later(3600)
    refused(app, host, host.act("skip", seat=p2.id), 409, "seat_reopened", doc_of(app, host.table))
    assert p2.id not in skips(host.get().json)
    assert p2.act("numbers", numbers=SHEETS[0]).status_code == 200, "its new sheet is taken"
    assert "reopened" not in doc_of(app, host.table)
    # The host's own sheet is the host's to take back and lock again.
    assert host.act("numbers", numbers=SHEETS[1]).status_code == 200
    r = host.act("undo")
    assert r.status_code == 200 and "reopened" not in r.json["events"][0]


# -- attack 4: a seat taken for the game -----------------------------------------------------


def test_a_live_phone_is_taken_off_only_by_itself(app, client, monkeypatch) -> None:
    from tests.engines.camelup.conftest import SETUP

    host, p2, p3 = open_table(client, joiners=2, game="camelup", options={"setup": SETUP})
    assert host.act("start").status_code == 200
    live(app, monkeypatch, host.id, p2.id, p3.id)
    refused(app, host, host.act("phoneless", player=p2.id), 409, "phone_live", doc_of(app, host.table))
    refused(app, host, p3.act("phoneless", player=p2.id), 403, "not_host", doc_of(app, host.table))
    # The seat's own phone may (its player's choice), and the table hears of it.
    r = p2.act("phoneless", player=p2.id)
    assert r.status_code == 200, r.json
    assert host.get().json["players"][1]["phone"] is False
    assert "step" not in host.get().json, "its own choice is no host's step"
    assert "P2 chose to play without their phone. Their phone waits until the host hands the seat back to it." in (
        history(client, host.table))
    assert "P2님이 휴대폰 없이 하기로 했습니다. 이 자리의 휴대폰은 호스트가 돌려줄 때까지 쉽니다." in history(
        client, host.table, "ko")



def test_a_phone_that_paused_its_own_seat_gets_the_first_answer_when_it_retries(app, client) -> None:
    """The web client sends an action whose answer was lost again, with its
    request_id, on the next socket: a `phoneless` of its own seat must get its
    first answer, not `seat_paused` from the pause that action made."""
    host, p2, _p3 = open_table(client, joiners=2, game="countup")
    assert host.act("start").status_code == 200
    first = p2.act("phoneless", request_id="off-1", player=p2.id)
    assert first.status_code == 200, first.json
    before = doc_of(app, host.table)
    again = p2.act("phoneless", request_id="off-1", player=p2.id)
    assert (again.status_code, again.json) == (200, first.json)
    assert doc_of(app, host.table) == before
    # A new action from the paused seat is still refused.
    refused(app, host, p2.act("rename", player=p2.id, name="Bo"), 409, "seat_paused", before)

# -- a retracted choice is shown at the end; every step announced ---------------------------


def test_a_retracted_choice_is_shown_once_the_game_is_over(app, client) -> None:
    host, p2 = open_table(client, joiners=1, options={"target": 2, "start": 0})
    assert host.act("start").status_code == 200
    assert p2.act("note", text="my secret").status_code == 200
    assert host.act("undo").status_code == 200
    assert not any("my secret" in t for t in history(client, host.table)), "a secret while the game runs"
    assert host.act("add", n=2).status_code == 200
    assert host.get().json["status"] == "over"
    assert any("my secret" in t for t in history(client, host.table)), history(client, host.table)
    assert any("my secret" in t for t in history(client, host.table, "ko"))


def test_a_retracted_finish_card_is_its_camel_s_colour_in_the_phone_s_words(app, client) -> None:
    """The camel travels as the colour's key, as every line's values do: a
    Korean phone reads 파랑, never the English id "blue"."""
    from tests.engines.camelup.conftest import SETUP

    host, p2, p3 = open_table(client, joiners=2, game="camelup", options={"setup": SETUP})
    assert host.act("start").status_code == 200
    assert host.act("leg_bet", camel="green").status_code == 200
    assert p2.act("finish_bet", pile="winner", camel="blue").status_code == 200
    assert host.act("undo").status_code == 200

    def page() -> dict[str, Any]:
        return client.get(f"/api/tables/{host.table}/history").json

    def said(lang: str) -> list[str]:
        return [e["text"] for r in worded(page(), lang, "camelup")["rounds"] for e in r["entries"]]

    assert not any("retracted" in e for r in page()["rounds"] for e in r["entries"]), "a secret while it runs"
    assert not any("파랑" in t for t in said("ko"))
    phones = (host, p2, p3)
    for _ in range(400):  # the race to its end, on drawn dice
        if host.get().json["status"] == "over":
            break
        turn = next(p for p in phones if any(a["type"] == "pyramid" for a in p.get().json["legal"]))
        assert turn.act("pyramid").status_code == 200
    assert host.get().json["status"] == "over"
    taken_back = [e for r in page()["rounds"] for e in r["entries"] if "retracted" in e]
    assert [e["retracted"] for e in taken_back] == [part("camelup.colour.blue")]
    api = client.get("/api/openapi.json").json["paths"]["/api/tables/{table_id}/history"]["get"]
    jsonschema.validate(page(), api["responses"]["200"]["content"]["application/json"]["schema"])
    assert "P2: 우승 베팅 칸에 결승 베팅 카드 1장 (되돌리기로 취소된 비밀 선택: 파랑)" in said("ko"), said("ko")
    assert any(t.endswith("(a sealed choice taken back by an undo: blue)") for t in said("en"))


def test_every_step_for_another_seat_is_announced(app, client, later) -> None:
    host, p2, p3 = kingup_vote(client)
    later(61)
    r = host.act("skip", seat=p2.id)
    v = r.json["version"]
    for phone in (host, p2, p3):
        assert phone.get().json["step"] == {"v": v, "type": "skip", "seat": p2.id, "by": host.id}
    assert host.vote("yes", VoteSeals()).status_code == 200
    assert "step" not in p3.get().json, "announced with its own version only"


def test_a_seat_whose_card_the_host_laid_face_down_gets_its_phone_back_at_once(app, client) -> None:
    """Attack 4 where the phone really was gone: the host enters a face-down card
    for the seat, and the phone, back, is handed its seat at once (not at the
    race's end); the card stays face down for the host to record then."""
    from tests.engines.camelup.conftest import SETUP

    host, p2, _p3 = open_table(client, joiners=2, game="camelup", options={"setup": SETUP})
    assert host.act("start").status_code == 200
    assert host.act("leg_bet", camel="green").status_code == 200
    assert host.act("phoneless", player=p2.id).status_code == 200  # no live socket: gone
    assert act_as(host, p2.id, "finish_bet", pile="winner").status_code == 200
    assert host.get().json["view"]["paper_until"] == {}
    r = host.act("phone_back", player=p2.id)
    assert r.status_code == 200, r.json
    assert p2.act("resume").status_code == 200
    assert "paused" not in p2.get().json
    assert "P2 (entered by Host)" in " ".join(history(client, host.table))

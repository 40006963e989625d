"""Limits (issue 12): action rates per seat and per table (HTTP and socket alike,
across instances), a capped log, a bounded request-id cache, a paged history,
and analyses computed once per board position and limited per table."""

from __future__ import annotations

import json
import time
import types
import urllib.error
import urllib.request
from typing import Any

import pytest

from conftest import REDIS_KINDS, either_redis_url
from server import create_app
from server.store.keys import req_key
from tests.server.conftest import Phone, open_table
from tests.server.livehelpers import history_entries, http, open_live_table
from tests.toy_engine import TOY, ToyEngine
from tests.words import worded

BASE = {"EXTRA_ENGINES": [TOY], "FIXED_RANDOM": True,
        "RATE_CREATE": 1000, "RATE_JOIN": 1000, "RATE_CODE": 1000}


@pytest.fixture(autouse=True)
def one_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process, the rate windows stand still (mid-minute), so a test never
    straddles a window's end; live servers get ``roomy_window`` instead."""
    now = time.time() // 60 * 60 + 30
    clock = types.SimpleNamespace(time=lambda: now, sleep=time.sleep)
    monkeypatch.setattr("server.store.store.time", clock)
    monkeypatch.setattr("server.store.writes.time", clock)
    monkeypatch.setattr("server.store.rates.time", clock)


def roomy_window(seconds: float) -> None:
    """Waits, if need be, until the current one-minute window has ``seconds`` left."""
    left = 60 - time.time() % 60
    if left < seconds:
        time.sleep(left + 0.1)


def make_client(redis_url: str, **cfg: Any) -> Any:
    app = create_app({"REDIS_URL": redis_url, **BASE, **cfg})
    return app, app.test_client()


def started(client: Any, joiners: int = 2) -> list[Phone]:
    phones = open_table(client, joiners, options={"start": 0})
    assert phones[0].act("start").status_code == 200
    return phones


def assert_rate_limited(r: Any) -> int:
    assert r.status_code == 429, r.json
    assert r.json["error"]["code"] == "rate_limited"
    wait = int(r.headers["Retry-After"])
    assert 1 <= wait <= 61
    return wait


# -- action rates ----------------------------------------------------------------

def test_a_seat_over_its_limit_gets_429_with_retry_after_and_the_table_is_unchanged(redis_url: str) -> None:
    _, client = make_client(redis_url, RATE_ACTIONS_SEAT=5)
    host, p2, _ = started(client)  # "start" is the host's first action
    for i in range(5):
        assert p2.act("note", text=f"n{i}").status_code == 200
    before = host.get().json
    assert_rate_limited(p2.act("note", text="one too many"))
    assert host.get().json == before, "a refused action changed the table"
    # The limit is the seat's: another seat still plays, and its table with it.
    assert host.act("note", text="host").status_code == 200


def test_a_seat_over_its_limit_gets_an_error_frame_over_the_socket(app_server_factory) -> None:
    server = app_server_factory({"TABLEMATE_FIXED_RANDOM": "1", "TABLEMATE_RATE_ACTIONS_SEAT": "3"})
    host, p2, _ = open_live_table(server.url)
    roomy_window(15)
    assert host.act_http("start")[0] == 200
    p2.connect()
    for i in range(3):
        p2.send({"type": "action", "action": {"type": "note", "text": f"n{i}"}, "request_id": f"ok{i}"})
        assert p2.wait_message("result")["request_id"] == f"ok{i}"
    version = http(server.url, "GET", f"/api/tables/{p2.table}")[1]["version"]
    p2.send({"type": "action", "action": {"type": "note", "text": "flood"}, "request_id": "over"})
    err = p2.wait_message("error")
    assert err["error"]["code"] == "rate_limited" and err["request_id"] == "over"
    assert isinstance(err["retry_after"], int) and 1 <= err["retry_after"] <= 61
    assert http(server.url, "GET", f"/api/tables/{p2.table}")[1]["version"] == version
    # HTTP and the socket share one count.
    assert http_headers(server.url, p2.table, p2.token, "also-over")[0] == 429
    p2.close()


def test_two_flooding_seats_leave_the_others_their_whole_budget(redis_url: str) -> None:
    """Issue 30: two seats together used up the table's per-minute pool and
    locked the others out. There is no shared pool: each seat has its own."""
    _, client = make_client(redis_url, RATE_ACTIONS_SEAT=4)
    host, p2, p3, p4 = started(client, joiners=3)
    for flooder in (p2, p3):
        for _ in range(4):
            assert flooder.act("note", text="x").status_code == 200
        for _ in range(20):
            assert_rate_limited(flooder.act("note", text="flood"))
    # The host used 1 (start): 3 left; p4 all 4.
    for p in (host, host, host, p4, p4, p4, p4):
        assert p.act("note", text="mine").status_code == 200
    assert_rate_limited(p4.act("note", text="its own limit"))


def test_refused_actions_count_too(redis_url: str) -> None:
    """An action is counted with its commit, or on its own when refused: before
    the engine (an unknown type), by the engine (not your turn), or a replay."""
    _, client = make_client(redis_url, RATE_ACTIONS_SEAT=4)
    host, p2, _ = started(client)
    assert p2.act("dance").status_code == 400
    r = p2.act("add", n=1)
    assert r.status_code == 409 and r.json["error"]["code"] == "not_your_turn"
    ok = p2.act("note", text="x", request_id="once")
    assert ok.status_code == 200
    assert p2.act("note", text="x", request_id="once").json == ok.json  # the replay: its 4th
    before = host.get().json
    assert_rate_limited(p2.act("note", text="fifth"))
    assert_rate_limited(p2.act("dance"))
    assert host.get().json == before


def http_headers(base: str, table: str, token: str, rid: str) -> tuple[int, dict[str, str], Any]:
    req = urllib.request.Request(
        f"{base}/api/tables/{table}/actions", method="POST",
        data=json.dumps({"action": {"type": "note", "text": rid}, "request_id": rid}).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), json.loads(e.read())


#: On a single Redis and on a cluster (a seat's counters on its table's slot).
any_redis_url = pytest.fixture(params=REDIS_KINDS)(either_redis_url)


def test_limits_hold_across_two_instances_on_one_redis(app_server_factory, any_redis_url: str) -> None:
    env = {"TABLEMATE_FIXED_RANDOM": "1", "TABLEMATE_RATE_ACTIONS_SEAT": "4"}
    one, two = app_server_factory(env, redis=any_redis_url), app_server_factory(env, redis=any_redis_url)
    host, p2, p3 = open_live_table(one.url)
    roomy_window(20)
    assert host.act_http("start")[0] == 200
    bases = [one.url, two.url]
    # p2 alternates instances: each saw only two of its four, yet the fifth is refused.
    for i in range(4):
        status, _, body = http_headers(bases[i % 2], p2.table, p2.token, f"p2-{i}")
        assert status == 200, body
    status, headers, body = http_headers(two.url, p2.table, p2.token, "p2-over")
    assert status == 429 and body["error"]["code"] == "rate_limited"
    assert 1 <= int(headers["Retry-After"]) <= 61
    # p3 has its own four, on either instance; the socket of the other instance
    # counts against the same limit.
    for i in range(4):
        assert http_headers(bases[i % 2], p3.table, p3.token, f"p3-{i}")[0] == 200
    p3.connect(two.url)
    p3.send({"type": "action", "action": {"type": "note", "text": "ws"}, "request_id": "p3-ws"})
    err = p3.wait_message("error")
    assert err["error"]["code"] == "rate_limited" and err["request_id"] == "p3-ws" and err["retry_after"] >= 1
    p3.close()
    final = http(one.url, "GET", f"/api/tables/{host.table}")[1]
    assert final["version"] == 3 + 1 + 4 + 4, "only the allowed actions were applied"


# -- the log, request ids, history -------------------------------------------------

def test_a_retry_of_an_applied_action_gets_its_answer_whatever_the_rate(redis_url: str) -> None:
    """An action applied, its answer lost, the phone sends it again with its
    request_id (web/outbox.js) after its budget ran out meanwhile: the retry
    gets the first answer. Refused `rate_limited` ("nothing is applied"), the
    phone took the rename for not done, and the player tapped it again."""
    _, client = make_client(redis_url, RATE_CHATTER=3)
    host, p2, _ = started(client)
    first = p2.act("rename", request_id="ren-1", player=p2.id, name="Bo")
    assert first.status_code == 200
    for i in range(2):
        assert p2.act("rename", player=p2.id, name=f"Bo{i}").status_code == 200
    assert_rate_limited(p2.act("rename", player=p2.id, name="Bo-flood"))
    again = p2.act("rename", request_id="ren-1", player=p2.id, name="Bo")
    assert (again.status_code, again.json) == (200, first.json)
    # Still counted: the seat's next new action waits out the window.
    assert_rate_limited(p2.act("rename", player=p2.id, name="Bo-again"))

def test_renames_have_a_rate_of_their_own(redis_url: str) -> None:
    """Issue 30: 2,995 self-renames in 3 minutes filled the log, and then no
    action, not even undo, worked. Chatter (renames, PINs, seat order, host,
    proxies, rejoin codes) has a small rate of its own per seat."""
    _, client = make_client(redis_url, RATE_CHATTER=3)
    host, p2, _ = started(client)
    for i in range(3):
        assert p2.act("rename", player=p2.id, name=f"Bo{i}").status_code == 200
    before = host.get().json
    assert_rate_limited(p2.act("rename", player=p2.id, name="Bo-flood"))
    assert_rate_limited(p2.act("pin", pin="1234"))
    assert host.get().json == before
    # Its game actions are not chatter, and the others have their own rate.
    assert p2.act("note", text="still playing").status_code == 200
    assert host.act("rename", player=p2.id, name="Named-by-host").status_code == 200


def test_renames_cannot_fill_the_log_or_silence_anyone(redis_url: str) -> None:
    _, client = make_client(redis_url, RATE_CHATTER=100, MAX_CHATTER=5, MAX_SEAT_LOG=20)
    host, p2, p3 = started(client)
    for i in range(5):
        assert p2.act("rename", player=p2.id, name=f"Cy{i}").status_code == 200
    before = host.get().json
    r = p2.act("rename", player=p2.id, name="Cy-more")
    assert r.status_code == 409 and r.json["error"]["code"] == "chatter_limit", r.json
    assert host.get().json == before, "a refused rename leaves the table as it was"
    # Chatter never counts against a game share: p2 still has all 20.
    for i in range(20):
        assert p2.act("note", text=f"n{i}").status_code == 200
    # Everyone else renames and plays; the host's undo works.
    for p in (host, p3):
        assert p.act("rename", player=p.id, name=f"{p.id}-new").status_code == 200
    assert host.act("undo").status_code == 200


def test_a_seat_at_its_game_share_stops_alone(redis_url: str) -> None:
    _, client = make_client(redis_url, MAX_SEAT_LOG=6)
    host, p2, p3 = started(client)  # joined in the lobby; the game's shares start at "start"
    for i in range(6):
        assert p2.act("note", text=f"n{i}").status_code == 200
    before = host.get().json
    r = p2.act("note", text="one too many")
    assert r.status_code == 409 and r.json["error"]["code"] == "seat_log_full", r.json
    assert host.get().json == before
    for i in range(6):
        assert p3.act("note", text=f"m{i}").status_code == 200
    # The host has twice the share (undo, seats without a phone): 1 (start) + 11.
    for i in range(11):
        assert host.act("note", text=f"h{i}").status_code == 200
    assert host.act("note", text="over").json["error"]["code"] == "seat_log_full"


def test_a_full_log_lets_the_game_finish_but_not_a_new_one_start(redis_url: str) -> None:
    """The whole log's cap blocks only a new game: the one being played can
    be finished, by every seat, and undone."""
    app, client = make_client(redis_url, MAX_LOG=10)
    host, p2, p3 = open_table(client, 2, options={"start": 0, "target": 4})
    assert host.act("start").status_code == 200  # v4
    for i in range(7):
        assert p2.act("note", text=f"n{i}", request_id=f"n{i}").status_code == 200
    assert host.get().json["version"] == 11, "past the cap"
    assert host.act("add", n=3).status_code == 200
    assert host.act("undo").status_code == 200
    assert host.act("add", n=3).status_code == 200
    assert p2.act("add", n=3).status_code == 200
    assert p3.act("add", n=3).status_code == 200
    assert host.act("next_round").status_code == 200
    assert host.act("add", n=2).status_code == 200  # 5: the host wins
    assert host.get().json["status"] == "over"
    before = host.get().json
    r = host.act("play_again")
    assert r.status_code == 409 and r.json["error"]["code"] == "table_log_full", r.json
    assert host.get().json == before
    # A retry of an applied action still gets its first answer.
    again = p2.act("note", text="n6", request_id="n6")
    assert again.status_code == 200 and again.json["version"] == 11


def test_request_ids_are_kept_for_a_window_then_dropped(redis_url: str) -> None:
    app, client = make_client(redis_url, REQUEST_WINDOW=20, RATE_ACTIONS_SEAT=10**6)
    host, p2, _ = started(client)
    first = p2.act("note", text="first", request_id="first")
    assert first.status_code == 200
    r = app.extensions["tablemate"].store.r
    sizes = []
    for i in range(19):
        assert p2.act("note", text=f"n{i}").status_code == 200
        sizes.append(r.hlen(req_key(host.table)))
    # 19 versions later, still inside the window: the retry gets the first result.
    again = p2.act("note", text="first", request_id="first")
    assert again.status_code == 200 and again.json == first.json
    for i in range(200):
        assert p2.act("note", text=f"m{i}").status_code == 200
        sizes.append(r.hlen(req_key(host.table)))
    assert max(sizes) <= 20 + 20 // 5, "the request cache grew past its window"
    # Long out of the window: the same id is a new action now.
    late = p2.act("note", text="first", request_id="first")
    assert late.status_code == 200 and late.json["version"] > first.json["version"]


def test_an_undone_request_id_is_refused_while_in_the_window(redis_url: str) -> None:
    _, client = make_client(redis_url, REQUEST_WINDOW=20)
    host, p2, _ = started(client)
    assert host.act("add", n=1, request_id="add-1").status_code == 200
    assert host.act("undo").status_code == 200
    for i in range(5):
        assert p2.act("note", text=f"n{i}").status_code == 200
    retry = host.act("add", n=1, request_id="add-1")
    assert retry.status_code == 409 and retry.json["error"]["code"] == "request_undone"


def history_page(client: Any, phone: Phone, query: str = "") -> Any:
    r = client.get(f"/api/tables/{phone.table}/history?lang=en{query}", headers=phone.auth)
    assert r.status_code == 200, r.json
    return r.json


def versions(page: Any) -> list[int]:
    return [e["version"] for r in page["rounds"] for e in r["entries"]]


def test_history_is_paged(redis_url: str) -> None:
    _, client = make_client(redis_url, RATE_ACTIONS_SEAT=10**6)
    host, p2, _ = started(client)
    for i in range(246):
        assert p2.act("note", text=f"n{i}").status_code == 200
    assert host.get().json["version"] == 250
    latest = history_page(client, host)
    assert versions(latest) == list(range(51, 251))
    assert latest["more"] is True and latest["next_before"] == 51 and latest["version"] == 250
    older = history_page(client, host, f"&before={latest['next_before']}")
    assert versions(older) == list(range(1, 51)) and older["more"] is False and older["next_before"] is None
    small = history_page(client, host, "&before=101&limit=30")
    assert versions(small) == list(range(71, 101)) and small["next_before"] == 71
    assert versions(history_page(client, host, "&limit=500")) == list(range(1, 251))
    assert versions(history_page(client, host, "&before=1")) == []
    for bad in ("&limit=0", "&limit=501", "&limit=x", "&before=-3", "&before=²", "&before=" + "9" * 400):
        r = client.get(f"/api/tables/{host.table}/history?lang=en{bad}", headers=host.auth)
        assert r.status_code == 400 and r.json["error"]["code"] == "bad_query", bad


def test_history_pages_mark_undone_entries_and_name_removed_seats(redis_url: str) -> None:
    _, client = make_client(redis_url)
    host, p2, p3 = open_table(client)
    assert host.act("remove", player=p3.id).status_code == 200  # v4
    assert host.act("start").status_code == 200  # v5
    assert host.act("add", n=2).status_code == 200  # v6
    for i in range(3):
        assert p2.act("note", text=f"n{i}").status_code == 200  # v7-9
    assert host.act("undo").status_code == 200  # v10: takes back the last note
    page = history_page(client, host, "&before=8&limit=4")  # versions 4-7
    entries = [e for r in page["rounds"] for e in r["entries"]]
    assert [e["version"] for e in entries] == [4, 5, 6, 7]
    assert [e["undone"] for e in entries] == [False, False, False, False]
    joined = worded(history_page(client, host, "&before=4&limit=1"), "en")["rounds"][0]["entries"]
    assert joined[0]["version"] == 3 and joined[0]["text"] == "P3 joined.", \
        "a seat removed later keeps its name on an older page"
    last = history_page(client, host, "&limit=2")
    assert [e["undone"] for r in last["rounds"] for e in r["entries"]] == [True, False]


def test_the_live_history_pages_through_the_whole_log(app_server_factory) -> None:
    server = app_server_factory({"TABLEMATE_FIXED_RANDOM": "1"})
    phones = open_live_table(server.url)
    assert phones[0].act_http("start")[0] == 200
    roomy_window(30)
    for i in range(210):  # 70 a seat: within the default limits
        assert phones[i % 3].act_http("note", text=f"n{i}")[0] == 200
    assert [e["version"] for e in history_entries(server.url, phones[0].table)] == list(range(1, 215))


# -- analysis --------------------------------------------------------------------

class Counted:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, str | None]] = []

    def __call__(self, engine: Any, state: Any, player: str | None) -> dict[str, Any] | None:
        self.calls.append((json.dumps(state, sort_keys=True), player))
        return {"score_sum": sum(state["scores"].values())}


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counted:
    c = Counted()
    monkeypatch.setattr(ToyEngine, "analysis", lambda self, state, player: c(self, state, player))
    monkeypatch.setattr(ToyEngine, "analysis_viewer", lambda self, state, player: None)
    return c


def analysis(client: Any, phone: Phone) -> Any:
    return client.get(f"/api/tables/{phone.table}/analysis", headers=phone.auth)


def test_analysis_is_not_recomputed_after_a_rename(redis_url: str, counted: Counted) -> None:
    _, client = make_client(redis_url)
    host, p2, _ = started(client)
    first = analysis(client, host)
    assert first.status_code == 200 and first.json["analysis"] == {"score_sum": 0}
    for i in range(6):
        assert p2.act("rename", player=p2.id, name=f"Name{i}").status_code == 200
        r = analysis(client, p2)
        assert r.status_code == 200 and r.json["analysis"] == {"score_sum": 0}
        assert r.json["version"] == host.get().json["version"], "the answer names the current version"
    assert len(counted.calls) == 1, "platform changes recomputed the analysis"
    assert host.act("add", n=2).status_code == 200
    assert analysis(client, p2).json["analysis"] == {"score_sum": 2}
    assert host.act("undo").status_code == 200
    assert analysis(client, p2).json["analysis"] == {"score_sum": 0}
    assert len(counted.calls) == 2, "undo back to an analysed position recomputed it"


def test_fresh_analyses_are_limited_per_table(redis_url: str, counted: Counted) -> None:
    _, client = make_client(redis_url, RATE_ANALYSIS=3)
    host, p2, p3 = started(client)
    assert analysis(client, host).status_code == 200  # 1
    for p, n in ((host, 1), (p2, 1)):  # two new positions: 2, 3
        assert p.act("add", n=n).status_code == 200
        assert analysis(client, p3).status_code == 200
    assert len(counted.calls) == 3
    assert p3.act("add", n=1).status_code == 200
    r = analysis(client, host)
    assert_rate_limited(r)
    assert len(counted.calls) == 3, "a refused analysis was computed"
    # Positions already analysed are still served; another table has its own limit.
    assert host.act("undo").status_code == 200
    assert analysis(client, p2).json["analysis"] == {"score_sum": 2}
    other = started(client)
    assert analysis(client, other[0]).status_code == 200

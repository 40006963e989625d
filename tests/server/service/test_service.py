"""The service layer without HTTP: seats, the pipeline, platform dispatch, reads,
and what a contended table turns into (HTTP and socket)."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest
import redis

from server import live
from server.errors import ServiceError
from server.live import route
from server.model import TableDoc
from server.service import Tables, change, platform, platform_actions, seats
from server.service.joining import Joining
from server.service.pipeline import Pipeline
from server.service.write import Conflict
from server.store import Commit, Store, Verdict
from server.store.keys import doc_key, version_key
from tests.server.conftest import open_table
from tests.toy_engine import TOY
from tests.words import texts

_ids = itertools.count()


def engines(name: str) -> Any:
    return TOY if name == "toy" else None


@pytest.fixture
def tables(store: Store) -> Tables:
    return Tables(store, engines, fixed_random=True, rng=random.Random(7))


def expect(code: str, fn: Any, *args: Any) -> ServiceError:
    with pytest.raises(ServiceError) as exc:
        fn(*args)
    assert exc.value.code == code, exc.value.envelope()
    return exc.value


def body(atype: str, request_id: str | None = None, version: int | None = None, **payload: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"action": {"type": atype, **payload}, "request_id": request_id or f"s{next(_ids)}"}
    if version is not None:
        out["version"] = version
    return out


def lobby(tables: Tables, joiners: int = 1) -> tuple[str, list[str]]:
    """A toy table in its lobby: its id and the seat tokens, host first."""
    doc, token = tables.create({"game": "toy", "name": "Host", "options": {"start": 0}})
    tokens = [token]
    for i in range(joiners):
        tokens.append(tables.join(doc["id"], {"name": f"P{i + 2}"})[1])
    return doc["id"], tokens


# -- seats ---------------------------------------------------------------------


def test_authenticate_is_spectator_seat_or_401(tables: Tables) -> None:
    tid, (host, guest) = lobby(tables)
    doc = tables.load(tid)
    assert seats.authenticate(doc, None) is None
    assert seats.authenticate(doc, host)["id"] == "p1"  # type: ignore[index]
    assert seats.authenticate(doc, guest, seated=True)["id"] == "p2"
    for token in ("", "nope", "\x00invalid", host + "x"):
        assert expect("bad_token", seats.authenticate, doc, token).kind == "unauthorized"
    # Where a seat is required, no token is a bad token, not the spectator.
    with pytest.raises(ServiceError) as exc:
        seats.authenticate(doc, None, seated=True)
    assert exc.value.kind == "unauthorized"


def test_tokens_are_kept_only_as_hashes(tables: Tables, store: Store) -> None:
    tid, (host, _) = lobby(tables)
    raw = store.r.get(doc_key(tid))
    assert host not in raw and seats.token_hash(host) in raw


def test_seat_helpers() -> None:
    doc: Any = {"seats": [{"id": "p1", "name": "A", "th": seats.token_hash("t1")}]}
    assert seats.find_seat(doc, "t1") is doc["seats"][0]
    assert seats.find_seat(doc, "t2") is None and seats.find_seat(doc, None) is None
    assert seats.seat_of(doc, "p1")["name"] == "A"
    assert expect("no_such_player", seats.seat_of, doc, "p9").kind == "not_found"
    assert expect("bad_name", seats.clean_name, "a\u202eb").kind == "invalid"
    assert seats.clean_name("👩\u200d👩") == "👩\u200d👩"
    code = seats.new_code()
    assert seats.plausible_code(code) and set(code) <= set(seats.CODE_ALPHABET)
    assert seats.plausible_id(seats.new_table_id()) and not seats.plausible_id("../../etc")


# -- the pipeline ----------------------------------------------------------------


def test_a_retried_request_id_applies_once(tables: Tables, store: Store) -> None:
    tid, (host, guest) = lobby(tables)
    tables.act(tid, host, body("start"))
    first = tables.act(tid, host, body("add", "same", n=2))
    log_len = len(store.log(tid))
    again = tables.act(tid, host, body("add", "same", n=3))  # a retry: the payload is not re-read
    assert again == first
    assert len(store.log(tid)) == log_len
    assert tables.load(tid)["version"] == first["version"]
    e = expect("request_id_reused", tables.act, tid, guest, body("add", "same", n=1))
    assert e.kind == "conflict"


def test_stale_version_and_unknown_action(tables: Tables) -> None:
    tid, (host, _) = lobby(tables)
    v = tables.load(tid)["version"]
    assert expect("stale_version", tables.act, tid, host, body("start", version=v - 1)).kind == "conflict"
    assert expect("unknown_action", tables.act, tid, host, body("fly")).kind == "invalid"
    assert expect("invalid_payload", tables.act, tid, host, body("add", n=9)).kind == "invalid"
    assert expect("bad_token", tables.act, tid, None, body("start")).kind == "unauthorized"
    assert tables.act(tid, host, body("start", version=v))["version"] == v + 1


def test_every_change_raises_the_version_by_one(tables: Tables, store: Store) -> None:
    tid, (host, guest) = lobby(tables)
    tables.act(tid, host, body("rename", player="p2", name="Bo"))
    tables.rejoin(tid, host, "p2")
    tables.act(tid, host, body("start"))
    tables.act(tid, host, body("add", n=1))
    versions = [e["v"] for e in store.log(tid)]
    assert versions == list(range(1, tables.load(tid)["version"] + 1))
    assert [e["kind"] for e in store.log(tid)][-1] == "game"
    assert tables.load(tid)["undoable"] == [versions[-1]]


def test_random_outcomes_need_fixed_random(store: Store) -> None:
    t = Tables(store, engines, fixed_random=False)
    assert expect("fixed_random_off", t.create,
                  {"game": "toy", "name": "H", "options": {"start": 1}}).kind == "invalid"
    doc, host = t.create({"game": "toy", "name": "H", "options": {"min_players": 1}})
    t.act(doc["id"], host, body("start"))
    assert expect("fixed_random_off", t.act, doc["id"], host, body("roll", die=6)).kind == "invalid"
    assert t.act(doc["id"], host, body("roll"))["events"][0]["type"] == "added"


def test_rejoin_replaces_the_token(tables: Tables) -> None:
    tid, (host, guest) = lobby(tables)
    expect("not_host", tables.rejoin, tid, guest, "p1")
    expect("bad_token", tables.rejoin, tid, None, "p2")
    expect("no_such_player", tables.rejoin, tid, host, "p7")
    code = tables.rejoin(tid, host, "p2")
    doc = tables.load(tid)
    expect("bad_token", tables.authenticate, doc, code)  # a code is not a token
    assert tables.authenticate(doc, guest) == seats.seat_of(doc, "p2"), "until it is redeemed"
    pid, new = tables.claim(tid, {"claim": code})
    doc = tables.load(tid)
    expect("bad_token", tables.authenticate, doc, guest)
    assert pid == "p2" and tables.authenticate(doc, new) == seats.seat_of(doc, "p2")
    assert expect("claim_not_found", tables.claim, tid, {"claim": code}).kind == "not_found"


# -- platform actions --------------------------------------------------------------


def test_platform_actions_dispatch_through_the_table(tables: Tables, monkeypatch) -> None:
    seen: list[change.Call] = []

    def spy(c: change.Call) -> change.Outcome:
        seen.append(c)
        return change.Outcome(c.doc, {"type": "host", "player": c.payload["player"]}, [])

    monkeypatch.setitem(platform_actions.HANDLERS, "host", spy)
    tid, (_, guest) = lobby(tables)
    result = tables.act(tid, guest, body("host", player="p1"))
    assert [(c.me, c.host, c.payload) for c in seen] == [("p2", False, {"player": "p1"})]
    assert result == {"version": 3, "events": []}


def call(doc: Any, me: str = "p1", **payload: Any) -> change.Call:
    return change.Call(TOY, doc, me, doc["host"] == me, payload, random.Random(1))


def test_platform_handlers_directly(tables: Tables) -> None:
    tid, _ = lobby(tables, joiners=2)
    doc: TableDoc = tables.load(tid)
    with pytest.raises(ServiceError, match="Only the host can reorder seats"):
        platform.reorder_seats(call(doc, "p2", order=["p1", "p2", "p3"]))
    expect("bad_order", platform.reorder_seats, call(doc, order=["p1", "p1", "p2"]))
    out = platform.reorder_seats(call(doc, order=["p3", "p1", "p2"]))
    assert [s["id"] for s in out.doc["seats"]] == ["p3", "p1", "p2"]
    expect("cannot_remove_host", platform.remove_seat, call(doc, player="p1"))
    expect("nothing_to_undo", platform.undo_last, call(doc))
    out = platform.rename_seat(call(doc, "p2", player="p2", name="  Bo "))
    assert out.events == [{"type": "renamed", "player": "p2", "old": "P2", "name": "Bo"}]
    out = platform.start_game(call(doc))
    assert out.doc["code"] is None and out.doc["status"] == "playing"
    assert out.doc["start"] == {"players": ["p3", "p1", "p2"], "options": out.action["options"],
                                "v": out.doc["version"] + 1}
    expect("not_in_lobby", platform.remove_seat, call(doc, player="p2"))


def test_undo_replays_the_log(tables: Tables) -> None:
    tid, (host, guest) = lobby(tables)
    tables.act(tid, host, body("start"))
    before = tables.load(tid)["state"]
    tables.act(tid, host, body("add", n=3))
    assert expect("not_host", tables.act, tid, guest, body("undo")).kind == "forbidden"
    result = tables.act(tid, host, body("undo"))
    assert result["events"] == [{"type": "undone", "target": result["version"] - 1, "action": "add"}]
    assert tables.load(tid)["state"] == before
    expect("nothing_to_undo", tables.act, tid, host, body("undo"))


def test_undo_takes_back_only_the_action_its_sheet_named(tables: Tables) -> None:
    """The sheet says what undo takes back (`snap.undo.target`) and sends it:
    an undo queued while another action landed (offline, a reload) is refused
    rather than take back one the host never saw."""
    tid, (host, guest) = lobby(tables)
    tables.act(tid, host, body("start"))
    tables.act(tid, host, body("add", n=2))
    seen = tables.snapshot(tables.load(tid), "p1")["undo"]["target"]
    tables.act(tid, guest, body("add", n=3))                  # lands before the host's undo
    doc = tables.load(tid)
    assert expect("undo_moved", tables.act, tid, host, body("undo", target=seen)).kind == "conflict"
    assert tables.load(tid) == doc, "refused: the table exactly as it was"
    now = tables.snapshot(doc, "p1")["undo"]["target"]
    assert now != seen
    result = tables.act(tid, host, body("undo", target=now))
    assert result["events"][0]["target"] == now
    expect("invalid_payload", tables.act, tid, host, body("undo", target="last"))


# -- reads -------------------------------------------------------------------------


def test_snapshot_history_and_analysis(tables: Tables) -> None:
    tid, (host, guest) = lobby(tables)
    doc = tables.load(tid)
    snap = tables.snapshot(doc, "p1")
    assert snap["legal"] == [{"type": "seats"}, {"type": "start"}] and snap["view"] == {}
    assert tables.snapshot(doc, "p2")["legal"] == []
    tables.act(tid, host, body("start"))
    tables.act(tid, host, body("add", n=2))
    doc = tables.load(tid)
    assert {"type": "undo"} in tables.snapshot(doc, "p1")["legal"]
    assert tables.snapshot(doc, None)["players"][0] == {"id": "p1", "name": "Host", "host": True, "score": 2,
                                                        "connected": False}
    lines = texts(tables.history(tid), "ko")
    assert lines == ["Host님이 테이블을 만들었습니다.", "P2님이 참가했습니다.", "게임 시작!", "Host +2"]
    a = tables.analysis(doc, "p2")
    assert a == {"version": doc["version"], "analysis": None}
    assert tables.analysis(doc, "p2") is a  # one computation per version and viewer


# -- a contended table ---------------------------------------------------------------


class ContendedStore(Store):
    """Another writer commits to the table between every read and write, so
    every attempt's commit is refused, as under a real storm of writers."""

    def __init__(self, client: Any, ttl: int) -> None:
        super().__init__(client, ttl)
        plain = self.commit

        def commit(table_id: str, base: int, commit: Commit[Any], assumed: list[str],
                   hits: Any = (), told: bool = False) -> Verdict:
            # Another writer's commit bumps the version: the commit's
            # compare-and-set sees that it came in between.
            redis.Redis(connection_pool=self.r.connection_pool).incr(version_key(table_id))
            return plain(table_id, base, commit, assumed, hits, told)

        self.commit = commit


def test_contention_is_503_busy_with_retry_after(store: Store, monkeypatch) -> None:
    monkeypatch.setattr("server.service.write.MAX_ATTEMPTS", 3)
    tid, (host, _) = lobby(Tables(store, engines, fixed_random=True))
    contended = Tables(ContendedStore(store.r, ttl=600), engines, fixed_random=True)
    version = contended.load(tid)["version"]
    for attempt in (lambda: contended.act(tid, host, body("start")),
                    lambda: contended.join(tid, {"name": "Late"}),
                    lambda: contended.rejoin(tid, host, "p2")):
        with pytest.raises(ServiceError) as exc:
            attempt()
        assert (exc.value.kind, exc.value.code) == ("unavailable", "busy")
        assert exc.value.retry_after == 1
    assert contended.load(tid)["version"] == version  # nothing was written


def test_contention_over_http(client, app, monkeypatch) -> None:
    host, _p2, _p3 = open_table(client)

    def always_conflicts(store: Any, table_id: str, fn: Any, hits: Any = (), wrote: Any = None) -> Any:
        raise Conflict(f"table {table_id} too contended")

    monkeypatch.setattr("server.service.write.update", always_conflicts)
    r = host.act("start")
    assert r.status_code == 503
    assert r.headers["Retry-After"] == "1"
    assert r.json["error"]["code"] == "busy" and r.json["error"]["message"]


class FakeSocket:
    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []

    def send(self, data: str) -> None:
        self.frames.append(json.loads(data))


def test_contention_over_the_socket(tables: Tables, monkeypatch) -> None:
    tid, (host, _) = lobby(tables)

    def always_conflicts(store: Any, table_id: str, fn: Any, hits: Any = (), wrote: Any = None) -> Any:
        raise Conflict(table_id)

    monkeypatch.setattr("server.service.write.update", always_conflicts)
    ws = FakeSocket()
    conn = live.Connection(ws, tid, "p1", host)
    route._handle(conn, tables, json.dumps({"type": "action", **body("start", "r-1")}))
    assert ws.frames == [{"type": "error", "request_id": "r-1", "error": {
        "code": "busy", "message": "This table is busy right now; try again in a moment."}}]


def test_socket_hub_uses_authenticate(tables: Tables) -> None:
    tid, (host, guest) = lobby(tables)
    hub = live.Hub(tables, tables.store)
    doc = tables.load(tid)
    keep = live.Connection(FakeSocket(), tid, "p2", guest)
    spectator = live.Connection(FakeSocket(), tid, None, None)
    wrong_seat = live.Connection(FakeSocket(), tid, "p1", guest)
    assert hub.still_seated(doc, keep) and hub.still_seated(doc, spectator)
    assert not hub.still_seated(doc, wrong_seat)
    tables.claim(tid, {"claim": tables.rejoin(tid, host, "p2")})
    assert not hub.still_seated(tables.load(tid), keep)


def test_games_publish_the_platform_actions(client) -> None:
    games = client.get("/api/games").json["games"]
    assert games and all(g["platform_actions"] == list(platform_actions.SCHEMAS) for g in games)


def test_pipeline_alone(store: Store) -> None:
    """The pipeline and the joins need no facade: Tables only routes to them."""
    p = Pipeline(store, engines, fixed_random=True)
    j = Joining(p)
    doc, token = j.create({"game": "toy", "name": "Solo", "options": {"min_players": 1}})
    assert j.table_for_code(doc["code"].lower()) == (doc["id"], "lobby")  # type: ignore[union-attr]
    assert p.act(doc["id"], token, body("start"))["version"] == 2
    assert j.table_for_code(doc["code"]) == (doc["id"], "playing")  # type: ignore[arg-type]
    expect("code_not_found", j.table_for_code, "ZZZZZZ")
    expect("unknown_game", p.engine, "chess")
    expect("table_not_found", p.load, "x" * 20)

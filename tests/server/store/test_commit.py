"""The one-round-trip commit (server/store/commit.py): what it checks, what it writes,
what it publishes, on a real redis-server and on the embedded store alike."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
import redis
import redis.connection

from server import live
from server.errors import ServiceError
from server.live import liveness, route
from server.service import Tables
from server.service.write import RateLimited, update
from server.store import Commit, Primed, Store, Tx, resp
from server.store.keys import doc_key, req_key, split_change, version_key
from server.store.listen import Callbacks
from server.store.writes import Latest
from tests.server.service.test_service import body, engines, lobby


@pytest.fixture(params=["redis", "embedded"])
def store(request: pytest.FixtureRequest, redis_url: str) -> Store:
    return Store.connect(redis_url if request.param == "redis" else None, ttl=600)


def make_doc(tid: str = "table-0001") -> dict[str, Any]:
    return {"id": tid, "version": 1, "code": None, "n": 0}


def once(rid: str) -> Any:
    """An update that applies ``rid`` once: a retry gets the first result back."""

    def fn(tx: Tx) -> Commit[Any]:
        cached = tx.cached_result(rid)
        if cached is not None:
            return Commit(None, result=("cached", cached["v"]))
        doc = {**tx.doc, "version": tx.doc["version"] + 1}
        return Commit(doc, {"v": doc["version"]}, (rid, {"v": doc["version"]}), result=("new", doc["version"]))

    return fn


def test_a_request_id_applies_once(store: Store) -> None:
    store.create(make_doc(), {"v": 1})
    assert update(store, "table-0001", once("a")) == ("new", 2)
    assert update(store, "table-0001", once("a")) == ("cached", 2)
    assert update(store, "table-0001", once("b")) == ("new", 3)
    assert store.load("table-0001")["version"] == 3
    assert [e["v"] for e in store.log("table-0001")] == [1, 2, 3]


def test_a_primed_update_on_a_stale_document_reads_again(store: Store) -> None:
    store.create(make_doc(), {"v": 1})
    stale = store.load_raw("table-0001")
    assert stale is not None
    update(store, "table-0001", once("a"))
    seen: list[int] = []

    def fn(tx: Tx) -> Commit[int]:
        seen.append(tx.doc["version"])
        return once("b")(tx)

    assert update(store, "table-0001", Primed(fn, stale)) == ("new", 3)
    assert seen == [1, 2], "built on the stale copy, refused, built again on the current one"


def test_records_found_by_the_commit_come_back_to_the_update(store: Store) -> None:
    """The records an update took for unseen without reading (an undo retires
    earlier requests) reach its next attempt when they exist after all."""
    store.create(make_doc(), {"v": 1})
    update(store, "table-0001", once("old"))
    attempts: list[Any] = []

    def retire(tx: Tx) -> Commit[None]:
        rec = tx.cached_result("old")
        attempts.append(rec)
        doc = {**tx.doc, "version": tx.doc["version"] + 1}
        more = [("old", {**rec, "undone": True})] if rec is not None else []
        return Commit(doc, {"v": doc["version"]}, more_requests=more)

    update(store, "table-0001", retire)
    assert attempts == [None, {"v": 2}]
    assert update(store, "table-0001", once("old")) == ("cached", 2)
    assert '"undone":true' in store.r.hget(req_key("table-0001"), "old")


def test_a_refusal_on_a_retried_request_gives_the_first_result(store: Store) -> None:
    store.create(make_doc(), {"v": 1})
    update(store, "table-0001", once("a"))

    def picky(tx: Tx) -> Commit[Any]:
        if tx.cached_result("a") is None and tx.doc["version"] > 1:
            raise ValueError("not your turn")  # what a replayed move meets
        return once("a")(tx)

    assert update(store, "table-0001", picky) == ("cached", 2)


def test_the_message_carries_the_document(store: Store) -> None:
    store.create(make_doc(), {"v": 1})
    got: list[tuple[str, int, str | None]] = []
    stop, ready = threading.Event(), threading.Event()
    callbacks = Callbacks(on_change=lambda t, v, raw: got.append((t, v, raw)), ready=ready)
    t = threading.Thread(target=store.changes.listen, daemon=True, args=(callbacks, stop))
    t.start()
    assert ready.wait(5)
    store.changes.watch("table-0001")
    update(store, "table-0001", once("a"))
    deadline = time.time() + 5
    while not got and time.time() < deadline:
        time.sleep(0.02)
    stop.set()
    t.join(5)
    assert got == [("table-0001", 2, store.load_raw("table-0001"))]


def test_split_change_reads_the_head_without_the_document() -> None:
    assert split_change('{"t":"x1","v":3,"d":{"id":"x1","v":{"d":1}}}') == ({"t": "x1", "v": 3}, '{"id":"x1","v":{"d":1}}')
    assert split_change('{"t":"x1","p":1}') == ({"t": "x1", "p": 1}, None)


def test_a_commit_on_a_version_no_longer_stored_is_refused_and_runs_again(store: Store) -> None:
    """Another writer got in between (as a commit does: the document and its
    version key together): the commit built on the old version is refused, and
    the update runs again on the stored one. The embedded store runs the same
    script."""
    store.create(make_doc(), {"v": 1})
    calls = 0

    def racing(tx: Tx) -> Commit[Any]:
        nonlocal calls
        calls += 1
        if calls == 1:
            update(store, "table-0001", once("other"))  # lands first: version 2
        return once("a")(tx)

    assert update(store, "table-0001", racing) == ("new", 3)
    assert calls == 2
    assert [e["v"] for e in store.log("table-0001")] == [1, 2, 3]


def test_a_table_stored_before_its_version_key_still_commits(store: Store) -> None:
    """A table written before the version key existed (a deploy mid-game): the
    script reads the document's version once, then keeps the key."""
    store.create(make_doc(), {"v": 1})
    store.r.delete(version_key("table-0001"))
    assert update(store, "table-0001", once("a")) == ("new", 2)
    assert store.r.get(version_key("table-0001")) == "2"


@pytest.mark.parametrize("embedded", [False, True], ids=["redis", "embedded"])
def test_rate_counters_ride_with_the_commit(redis_url: str, embedded: bool) -> None:
    """Counted once per update, with the write; over a limit nothing is written,
    and only the counter that was over stays counted (Rates.hit_many's rule)."""
    store = Store.connect(None if embedded else redis_url, ttl=600)
    tid = f"table-rate-{embedded}"
    store.latest.watch(tid)  # as its listener does once it hears the table
    store.create(make_doc(tid), {"v": 1})
    hits = [("t-seat", f"{tid}:p1", 2), ("t-table", tid, 10)]
    assert update(store, tid, once("a"), hits) == ("new", 2)
    assert update(store, tid, once("b"), hits) == ("new", 3)
    with pytest.raises(RateLimited) as over:
        update(store, tid, once("c"), hits)
    assert 1 <= over.value.wait <= 61
    assert store.load(tid)["version"] == 3 and store.latest.get(tid) == store.load_raw(tid)
    # On the table's slot (its hash tag), as the commit script counts them.
    counts = {k.split(":")[3]: int(store.r.get(k)) for k in store.r.keys(f"tm:{{{tid}}}:rl:t-*")}
    assert counts == {"t-seat": 3, "t-table": 2}


def test_latest_keeps_copies_only_of_the_tables_its_process_hears() -> None:
    latest = Latest()
    latest.put("a", 1, "a1")  # not heard yet: a copy could miss changes for good
    assert latest.get("a") is None
    latest.watch("a")
    latest.put("a", 2, "a2")
    latest.put("b", 2, "b2")  # another table, not heard
    assert (latest.get("a"), latest.get("b")) == ("a2", None)
    latest.unwatch("a")  # its last socket here closed
    assert latest.get("a") is None
    latest.watch("a")
    latest.put("a", 3, "a3")
    latest.stop()  # the listener lost its connection
    assert latest.get("a") is None
    latest.put("a", 4, "a4")  # until it is heard again, nothing is kept
    assert latest.get("a") is None


def test_latest_keeps_the_newest_document_of_tables_it_writes() -> None:
    latest = Latest(size=2)
    for table in "abcd":
        latest.watch(table)
    latest.seen("a", 5, "a5")  # a message for a table this process never wrote
    assert latest.get("a") is None
    latest.put("a", 5, "a5")
    latest.seen("a", 4, "a4")  # late
    latest.put("a", 3, "a3")  # a slower writer's older commit
    assert latest.get("a") == "a5"
    latest.seen("a", 6, "a6")
    assert latest.get("a") == "a6"
    latest.seen("a", 7, None)  # a change without its document: forget, read next time
    assert latest.get("a") is None
    latest.put("b", 1, "b1")
    latest.put("c", 1, "c1")
    latest.put("d", 1, "d1")  # over its size: the longest unwritten goes
    assert (latest.get("b"), latest.get("c"), latest.get("d")) == (None, "c1", "d1")


# -- round trips -------------------------------------------------------------------


#: What a client sends to keep a connection, not to serve a request: a new
#: connection's handshake (redis-py's HELLO / CLIENT SETINFO, AUTH, SELECT),
#: an idle one's health check (PING) and a cluster client's layout
#: (CLUSTER SLOTS...). A connection re-made mid-test (a busy machine) sends them.
UPKEEP = {"HELLO", "CLIENT", "AUTH", "SELECT", "PING", "CLUSTER", "READONLY", "COMMAND"}


@pytest.fixture
def round_trips(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every request a client sends to redis-server (a pipeline is one), by
    redis-py or by the hot paths' own client (server/store/resp.py), but a
    connection's upkeep (``UPKEEP``): what serves the test's calls, the
    same however many connections were re-made meanwhile. Only the test's own
    thread counts: a listener thread's reads (a cluster's layout, its
    subscriptions) are not the calls under test, and made the count flaky."""
    sent: list[str] = []
    mine = threading.get_ident()
    real = redis.connection.Connection.send_packed_command
    real_lean = resp.Link.send

    def counting(self: Any, command: Any, check_health: bool = True) -> None:
        first = command[0] if isinstance(command, list) else command
        name = bytes(first).split(b"\r\n")[2].decode()
        if name.upper() not in UPKEEP and threading.get_ident() == mine:
            sent.append(name)
        real(self, command, check_health)

    def counting_lean(self: resp.Link, command: tuple[Any, ...]) -> None:
        if str(command[0]).upper() not in UPKEEP and threading.get_ident() == mine:
            sent.append(str(command[0]))
        real_lean(self, command)

    monkeypatch.setattr(redis.connection.Connection, "send_packed_command", counting)
    monkeypatch.setattr(resp.Link, "send", counting_lean)
    yield sent


def test_an_action_is_one_round_trip_to_commit(redis_url: str, round_trips: list[str]) -> None:
    store = Store.connect(redis_url, ttl=600)
    tables = Tables(store, engines, fixed_random=True, rng=random.Random(7))
    tid, (host, _) = lobby(tables)
    store.latest.watch(tid)  # as the process's listener does once it hears the table
    tables.act(tid, host, body("start"))  # the script is loaded on first use
    round_trips.clear()
    tables.act(tid, host, body("note", text="hi"))
    # The document is the one this process committed; the rate limits are
    # counted in the commit script: nothing else.
    assert round_trips == ["EVALSHA"]


def test_the_first_action_after_a_load_is_one_round_trip(redis_url: str, round_trips: list[str]) -> None:
    """A table made on another instance, loaded here (as a phone's socket
    loads it to connect): its first action here reads it no more."""
    other = Tables(Store.connect(redis_url, ttl=600), engines, fixed_random=True, rng=random.Random(7))
    tid, (host, _) = lobby(other)
    store = Store.connect(redis_url, ttl=600)
    store.latest.watch(tid)
    tables = Tables(store, engines, fixed_random=True, rng=random.Random(7))
    assert tables.load(tid)["version"] == 2  # created, joined
    round_trips.clear()
    tables.act(tid, host, body("start"))
    assert round_trips == ["EVALSHA"]  # the script is known: the other instance ran it


def test_an_action_takes_the_state_this_process_committed(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The state this process's last commit made is the next action's, not
    decoded again; one another instance committed since is decoded."""
    decoded: list[Any] = []
    toy = engines("toy")
    real_load = toy.load
    monkeypatch.setattr(toy, "load", lambda data: decoded.append(data) or real_load(data))
    one = Tables(Store.connect(redis_url, ttl=600), engines, fixed_random=True, rng=random.Random(7))
    two = Tables(Store.connect(redis_url, ttl=600), engines, fixed_random=True, rng=random.Random(7))
    tid, (host, p2) = lobby(one)
    one.act(tid, host, body("start"))  # start, undo and phoneless keep theirs too
    one.act(tid, host, body("add", n=2))
    one.act(tid, host, body("undo"))
    one.act(tid, host, body("add", n=2))
    assert decoded == []
    one.act(tid, p2, body("note", text="mine"))
    one.act(tid, host, body("note", text="mine too"))
    assert decoded == []
    two.act(tid, p2, body("note", text="theirs"))  # two has no state of its own for it
    assert len(decoded) == 1
    decoded.clear()
    one.act(tid, host, body("note", text="after"))  # one's state is a version behind
    assert len(decoded) == 1
    scores = one.load(tid)["state"]["scores"]
    assert sorted(scores.values()) == [0, 2]
    assert one.store.states.get(tid, one.load(tid)["version"]) is not None


def test_an_action_parses_its_document_only_to_change_it(
        redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The document the action checks the seat on is the one the last
    commit encoded, shared (``writes.Parsed``), and it is the commit's to read
    (``Primed.doc``); only the copy the action changes is parsed. A table
    this process did not write is parsed once for every action on its version."""
    from server.service import write
    from server.store import commit as commit_module
    from server.store import store as store_module
    from server.store import writes as writes_module

    store = Store.connect(redis_url, ttl=600)
    tables = Tables(store, engines, fixed_random=True, rng=random.Random(7))
    tid, (host, _) = lobby(tables)
    store.latest.watch(tid)
    tables.act(tid, host, body("start"))
    store.shared.check = False  # the suite's check parses each copy again
    parsed: list[str] = []
    real = writes_module.loads

    def counting(raw: Any) -> Any:
        if isinstance(raw, str) and raw.startswith('{"id":'):
            parsed.append(raw)
        return real(raw)

    for module in (store_module, writes_module, commit_module, write):
        monkeypatch.setattr(module, "loads", counting)
    tables.act(tid, host, body("note", text="hi"))
    assert len(parsed) == 1
    assert tables.load(tid)["version"] == 4
    # Refused actions on the new version (a roll's links read it the same way).
    parsed.clear()
    for i in range(3):
        with pytest.raises(ServiceError):
            tables.act(tid, host, body("no_such_action", f"r-refused-{i}"))
    assert parsed == []
    # Written by another process: parsed once, for all three.
    other = Tables(Store.connect(redis_url, ttl=600), engines, fixed_random=True, rng=random.Random(7))
    other.act(tid, host, body("note", "r-other", text="from another"))
    parsed.clear()
    store.latest.drop(tid)
    for i in range(3):
        with pytest.raises(ServiceError):
            tables.act(tid, host, body("no_such_action", f"r-refused-again-{i}"))
    assert len(parsed) == 2  # the version read from the store (Latest) and the one shared parse


def test_an_action_on_a_document_another_instance_changed(redis_url: str, round_trips: list[str]) -> None:
    """This process's latest document is one change behind (the other
    instance's message is not in yet): the commit refuses it, the table is read
    and the action runs again on the current document."""
    one = Tables(Store.connect(redis_url, ttl=600), engines, fixed_random=True, rng=random.Random(7))
    two = Tables(Store.connect(redis_url, ttl=600), engines, fixed_random=True, rng=random.Random(7))
    tid, (host, p2) = lobby(one)
    one.store.latest.watch(tid)
    one.act(tid, host, body("start"))
    two.act(tid, p2, body("note", "r-two", text="from two"))  # one's copy is now behind
    round_trips.clear()
    result = one.act(tid, host, body("note", "r-one", text="from one"))
    assert round_trips == ["EVALSHA", "GET", "EVALSHA"]
    assert result["version"] == 5  # create, join, start, two's note, this one
    notes = [e for e in one.store.log(tid) if e.get("rid") in ("r-two", "r-one")]
    assert [e["rid"] for e in notes] == ["r-two", "r-one"]


def test_a_retry_of_an_action_reads_no_more(redis_url: str, round_trips: list[str]) -> None:
    store = Store.connect(redis_url, ttl=600)
    tables = Tables(store, engines, fixed_random=True, rng=random.Random(7))
    tid, (host, _) = lobby(tables)
    store.latest.watch(tid)
    first = tables.act(tid, host, body("start", "r-1"))
    round_trips.clear()
    assert tables.act(tid, host, body("start", "r-1")) == first
    # Refused on the replay ("started"), then the record read and the first
    # result given once the kept document is seen to be the stored one; the
    # replay counted against the rate limits on its own.
    assert round_trips == ["HMGET", "GET", "INCRBY"]


def test_a_refusal_on_a_kept_document_one_change_behind_is_judged_again() -> None:
    """Another instance started the game; this process's copy still says lobby
    (the message is not in yet). A move it would refuse there ("not started")
    is judged on the stored document instead, and goes through."""
    store = Store.connect(None, ttl=600)
    one = Tables(store, engines, fixed_random=True, rng=random.Random(7))
    tid, (host, p2) = lobby(one)
    store.latest.watch(tid)
    one.load(tid)
    behind = store.latest.get(tid)
    one.act(tid, host, body("start"))
    store.latest.docs[tid] = (2, str(behind))  # as if "start" had come from elsewhere
    assert one.act(tid, host, body("add", n=1))["version"] == 4


def test_a_seat_that_joined_elsewhere_is_known_though_the_kept_copy_predates_it() -> None:
    """The seat is checked on the kept copy first; refused there, on the stored one."""
    store = Store.connect(None, ttl=600)
    one = Tables(store, engines, fixed_random=True, rng=random.Random(7))
    tid, (host,) = lobby(one, joiners=0)
    store.latest.watch(tid)
    before = str(store.load_raw(tid))
    late = one.join(tid, {"name": "Late"})[1]
    one.act(tid, host, body("start"))
    store.latest.docs[tid] = (1, before)  # as if the join and start had come from elsewhere
    assert one.act(tid, late, body("note", text="hi"))["version"] == 4



def reconnect(store: Store) -> None:
    """Every connection the store's clients hold closed: the next command opens one."""
    if store.cluster:
        for node in store.r.get_nodes():
            if node.redis_connection is not None:
                node.redis_connection.connection_pool.disconnect()
    else:
        store.r.connection_pool.disconnect()
    if store.lean is not None:
        store.lean.close()


def test_the_fan_out_does_not_load_the_table(redis_url: str, round_trips: list[str]) -> None:
    store = Store.connect(redis_url, ttl=600)
    tables = Tables(store, engines, fixed_random=True, rng=random.Random(7))
    tid, (host, _) = lobby(tables)
    hub = live.Hub(tables, tables.store)
    frames: list[str] = []

    class Socket:
        def send(self, data: str) -> None:
            frames.append(data)

    hub.add(live.Connection(Socket(), tid, "p1", host))
    result = tables.act(tid, host, body("start"))
    message = f'{{"t":"{tid}","v":{result["version"]},"d":{store.load_raw(tid)}}}'
    head, raw = split_change(message)
    round_trips.clear()
    reconnect(store)  # as after a blip: a connection's handshake is no load
    hub.push(tid, False, orjson.loads(str(raw)))
    # No load: the document came with the message. (Presence is read once,
    # here or by the listener's own push of the same change, whichever ran first.)
    assert set(round_trips) <= {"ZRANGEBYSCORE"}, round_trips
    assert f'"version":{head["v"]}' in frames[-1]
    round_trips.clear()
    sent = len(frames)
    hub.push(tid, True, orjson.loads(str(raw)))
    assert round_trips == [], "presence as last read"
    assert frames[sent:] == frames[sent - 1:sent], "the same snapshot again (a resync)"


class Socket:
    def __init__(self) -> None:
        self.frames: list[str] = []

    def send(self, data: str) -> None:
        self.frames.append(data)


def test_a_ping_costs_no_round_trip(redis_url: str, round_trips: list[str]) -> None:
    store = Store.connect(redis_url, ttl=600)
    tables = Tables(store, engines, fixed_random=True, rng=random.Random(7))
    tid, (host, _) = lobby(tables)
    sock = Socket()
    conn = live.Connection(sock, tid, "p1", host)
    conn.sent_version = 3
    round_trips.clear()
    for raw in (route.PING, '{ "type": "ping" }'):  # the phone's bytes, and any other spelling
        for _ in range(5):
            route._handle(conn, tables, raw)
    assert round_trips == [], "presence is refreshed for all sockets together, not per ping"
    assert [orjson.loads(f) for f in sock.frames] == [{"type": "pong", "version": 3}] * 10


@pytest.mark.parametrize("embedded", [False, True])
def test_one_refresh_is_one_round_trip_per_hundred_tables(redis_url: str, round_trips: list[str],
                                                         embedded: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store.connect(None if embedded else redis_url, ttl=600)
    tables = Tables(store, engines, fixed_random=True, rng=random.Random(7))
    hub = live.Hub(tables, tables.store)
    # The test drives every refresh itself: a sweep on its own thread would race it.
    monkeypatch.setattr(hub.liveness, "sweep", lambda: None)
    conns = []
    for _ in range(3):
        tid, (host, guest) = lobby(tables)
        for seat, token in (("p1", host), ("p2", guest)):
            conn = live.Connection(Socket(), tid, seat, token)
            conn.listed = True
            store.presence.touch(tid, str(conn.member))
            hub.add(conn)
            conns.append(conn)
    hub.liveness.refresh()  # the script is loaded on first use
    silent = conns[-1]
    silent.heard -= liveness.PRESENCE_SILENT + 1  # its phone went quiet; the socket is still open
    round_trips.clear()
    hub.liveness.refresh()
    if store.cluster:  # one pipeline, sent to each master in one round trip
        assert 1 <= len(round_trips) - 1 <= 3 and round_trips[-1] == "SPUBLISH", round_trips
    else:
        assert embedded or round_trips == ["EVALSHA", "SPUBLISH"], \
            "one script call for all tables; the seat that went quiet is told to every instance"
    assert store.presence.present(silent.table_id) == {"p1"}
    assert all(store.presence.present(c.table_id) == {"p1", "p2"} for c in conns[:4])
    assert orjson.loads(silent.ws.frames[-1]) == {"type": "presence", "version": 0, "connected": ["p1"]}
    silent.heard = time.monotonic()  # heard again: listed again
    hub.liveness.refresh()
    assert store.presence.present(silent.table_id) == {"p1", "p2"}
    # Batched (hub.REFRESH_BATCH tables a call), with a yield between calls.
    monkeypatch.setattr(liveness, "REFRESH_BATCH", 2)
    round_trips.clear()
    hub.liveness.refresh()
    assert embedded or store.cluster or round_trips == ["EVALSHA", "EVALSHA"]
    assert all(store.presence.present(c.table_id) == {"p1", "p2"} for c in conns)


def test_the_refresh_slices_visit_every_table_once_a_round(redis_url: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The sweep refreshes one of ``REFRESH_SLICES`` slices a tick: a round of
    them touches every local table exactly once, and a table whose last
    socket left is in none."""
    store = Store.connect(redis_url, ttl=600)
    tables = Tables(store, engines, fixed_random=True, rng=random.Random(7))
    hub = live.Hub(tables, tables.store)
    tids = []
    for _ in range(6):
        tid, (host, _) = lobby(tables)
        hub.add(live.Connection(Socket(), tid, "p1", host))
        tids.append(tid)
    gone = live.Connection(Socket(), tids[-1], "p1", host)
    hub.add(gone)
    hub.remove(gone)
    hub.remove(next(iter(hub.sockets.conns[tids[-1]])))
    refreshed: list[str] = []
    monkeypatch.setattr(store.presence, "refresh", lambda plan: (refreshed.extend(plan), {})[1])
    for part in range(liveness.REFRESH_SLICES):
        hub.liveness.refresh(part)
    assert sorted(refreshed) == sorted(tids[:-1])


def test_the_sweep_refreshes_each_slice_once_per_refresh_period(redis_url: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``REFRESH_TICKS``-th tick refreshes the next slice: one
    ``PRESENCE_REFRESH`` of ticks visits each slice once, in few calls."""
    store = Store.connect(redis_url, ttl=600)
    hub = live.Hub(Tables(store, engines, fixed_random=True, rng=random.Random(7)), store)
    ticks = round(liveness.PRESENCE_REFRESH * liveness.BEAT_SLICES)
    beats: list[int] = []

    class Ticks:
        def wait(self, _: float) -> bool:
            return len(beats) >= ticks  # a wake may visit several slices (liveness.sweep_step)

    parts: list[int | None] = []
    monkeypatch.setattr(hub.liveness, "stop", Ticks())
    monkeypatch.setattr(hub.liveness, "beat_all", lambda _every, part: beats.append(part))
    monkeypatch.setattr(hub.liveness, "refresh", parts.append)
    hub.liveness.sweep()
    assert sorted(parts[:liveness.REFRESH_SLICES]) == list(range(liveness.REFRESH_SLICES))
    assert len(parts) == len(beats) // liveness.REFRESH_TICKS


@pytest.mark.parametrize("embedded", [False, True])
def test_the_refresh_tells_phones_their_table_expired(redis_url: str, embedded: bool) -> None:
    store = Store.connect(None if embedded else redis_url, ttl=600)
    tables = Tables(store, engines, fixed_random=True, rng=random.Random(7))
    hub = live.Hub(tables, tables.store)
    tid, (host, _) = lobby(tables)
    conn = live.Connection(Socket(), tid, "p1", host)
    hub.add(conn)
    hub.liveness.refresh()
    assert conn.outbox.open
    store.r.delete(doc_key(tid))  # its TTL ran out
    hub.liveness.refresh()
    assert not conn.outbox.open
    assert orjson.loads(conn.ws.frames[-1])["error"]["code"] == "table_not_found"


def fanned_out(store: Store) -> tuple[Tables, live.Hub]:
    """A service with a hub as its fan-out, as ``create_app`` makes them."""
    tables = Tables(store, engines, fixed_random=True, rng=random.Random(7))
    hub = live.Hub(tables, tables.store)
    tables.fan_out(hub.wrote)
    return tables, hub


def test_the_fan_out_sends_from_the_state_the_commit_made(redis_url: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A commit made here is pushed from the engine state the action made (no
    second decode), and the frame is the one a decoded state gives."""
    store = Store.connect(redis_url, ttl=600)
    tables, hub = fanned_out(store)
    tid, (host, _) = lobby(tables)
    sock = Socket()
    hub.add(live.Connection(sock, tid, "p1", host))
    started = tables.act(tid, host, body("start"))["version"]
    deadline = time.monotonic() + 5
    while f'"version":{started}' not in "".join(sock.frames) and time.monotonic() < deadline:
        time.sleep(0.01)  # the start's push is done
    engine = tables.engine("toy")
    decodes: list[Any] = []
    real = engine.load
    monkeypatch.setattr(engine, "load", lambda s: (decodes.append(s), real(s))[1])
    sent = len(sock.frames)
    v = tables.act(tid, host, body("note", text="hi"))["version"]
    deadline = time.monotonic() + 5
    while len(sock.frames) == sent and time.monotonic() < deadline:
        time.sleep(0.01)
    assert decodes == [], "the action takes the state the start made, and its push the action's"
    doc = orjson.loads(str(store.load_raw(tid)))
    assert doc["version"] == v
    decoded = live.Hub(tables, tables.store).frame(doc, "p1", frozenset(hub.sockets.online.get(tid, frozenset())))
    assert orjson.loads(sock.frames[-1]) == orjson.loads(decoded)


def test_a_change_committed_here_reaches_its_phones_without_the_message(redis_url: str) -> None:
    """The committing process pushes its own change at once (``Hub.wrote``),
    and the change message for that version, when it comes back, is skipped
    unparsed; a newer version's message is still pushed."""
    store = Store.connect(redis_url, ttl=600)
    tables, hub = fanned_out(store)
    tid, (host, _) = lobby(tables)
    assert tables.pipeline.wrote == hub.wrote, "the service pushes this process's commits through its hub"
    hub.ensure_listening()
    hub.stop.set()  # the listener stops; the commit's own push is tested below
    sock = Socket()
    hub.add(live.Connection(sock, tid, "p1", host))
    v = tables.act(tid, host, body("start"))["version"]
    deadline = time.monotonic() + 5
    while not sock.frames and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [orjson.loads(f)["version"] for f in sock.frames] == [v], "pushed by the commit itself"
    hub.heard.committed(tid, v, "{not json: never parsed")
    time.sleep(0.05)
    assert len(sock.frames) == 1, "its own message: nothing more to send"
    newer = orjson.loads(str(store.load_raw(tid)))
    newer["version"] = v + 1
    hub.heard.committed(tid, v + 1, orjson.dumps(newer).decode())
    deadline = time.monotonic() + 5
    while len(sock.frames) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert orjson.loads(sock.frames[-1])["version"] == v + 1, "another instance's change"


# -- contention --------------------------------------------------------------------


def test_a_contended_table_is_503_busy(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.service.write.MAX_ATTEMPTS", 4)
    tables = Tables(store, engines, fixed_random=True, rng=random.Random(7))
    tid, (host, _) = lobby(tables)
    other = store.r
    real = store.committer.run

    def behind_its_back(change: Any, ttl: int) -> Any:
        other.incr(version_key(tid))  # another writer, as a commit bumps it
        return real(change, ttl)

    monkeypatch.setattr(store.committer, "run", behind_its_back)
    version = tables.load(tid)["version"]
    with pytest.raises(ServiceError) as exc:
        tables.act(tid, host, body("start"))
    assert (exc.value.kind, exc.value.code) == ("unavailable", "busy")
    assert tables.load(tid)["version"] == version, "nothing was written"


def test_a_late_message_does_not_unseat_a_phone_that_joined_since(redis_url: str) -> None:
    """The listener may lag: a message from before a seat existed must not
    tell that seat's new phone it was removed (the stored document decides)."""
    store = Store.connect(redis_url, ttl=600)
    tables = Tables(store, engines, fixed_random=True, rng=random.Random(7))
    doc, _host = tables.create({"game": "toy", "name": "Host", "options": {"start": 0}})
    old = orjson.loads(str(store.load_raw(doc["id"])))
    pid, token = tables.join(doc["id"], {"name": "Late"})
    hub = live.Hub(tables, tables.store)
    frames: list[str] = []

    class Socket:
        def send(self, data: str) -> None:
            frames.append(data)

        def close(self, **_: Any) -> None:
            frames.append("closed")

    conn = live.Connection(Socket(), doc["id"], pid, token)
    hub.add(conn)
    hub.push(doc["id"], False, old)
    assert conn.outbox.open and "closed" not in frames
    assert conn.sent_version == 2 and '"version":2' in frames[-1]


def test_json_with_a_key_that_is_not_a_string_is_still_written() -> None:
    """``keys.dumps`` tries orjson's plain (faster) encoding first, and writes a
    non-string key as Python's json did, as a string."""
    from server.wire import dumps

    assert dumps({"a": [1, {"b": None}]}) == b'{"a":[1,{"b":null}]}'
    assert dumps({"odds": {1: 0.5, 2: 0.25}}) == b'{"odds":{"1":0.5,"2":0.25}}'
    with pytest.raises(TypeError):
        dumps({"a": object()})


def test_a_shared_parsed_document_is_handed_out_only_for_its_own_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Parsed`` hands out one parsed copy per text (an equal text found by
    value too), parses a new text afresh, keeps a fixed few tables, and with
    the suite's check on refuses a copy changed in place."""
    from server.store.writes import Parsed

    monkeypatch.setenv("TABLEMATE_CHECK_SHARED", "1")
    shared = Parsed(size=2)
    one = '{"id":"t1","version":1,"seats":[]}'
    doc = shared.get("t1", one)
    assert shared.get("t1", "".join(['{"id":"t1",', '"version":1,"seats":[]}'])) is doc
    newer = shared.get("t1", '{"id":"t1","version":2,"seats":[]}')
    assert newer is not doc and newer["version"] == 2
    shared.get("t2", '{"id":"t2","version":1}')
    shared.get("t3", '{"id":"t3","version":1}')
    assert set(shared.held) == {"t2", "t3"}
    held = shared.get("t3", '{"id":"t3","version":1}')
    held["version"] = 9
    with pytest.raises(AssertionError, match="changed in place"):
        shared.get("t3", '{"id":"t3","version":1}')

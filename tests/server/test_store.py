"""The store against a real redis-server: versioned updates, TTL, pub/sub."""

from __future__ import annotations

import threading
import time

import pytest

from server.store import Commit, Store, code_key, doc_key, log_key, req_key


def make_doc(tid: str = "table-0001", version: int = 1) -> dict:
    return {"id": tid, "version": version, "code": None, "n": 0}


@pytest.fixture
def store(redis_url: str) -> Store:
    return Store.connect(redis_url, ttl=60)


def bump(tx):
    doc = dict(tx.doc)
    doc["version"] += 1
    doc["n"] += 1
    return Commit(doc, {"v": doc["version"]}, result=doc["version"])


def test_create_and_load_round_trip(store: Store) -> None:
    assert store.create(make_doc(), {"v": 1})
    assert store.load("table-0001") == make_doc()
    assert store.log("table-0001") == [{"v": 1}]
    assert not store.create(make_doc(), {"v": 1}), "an existing id is never overwritten"


def test_update_raises_version_and_appends_log(store: Store) -> None:
    store.create(make_doc(), {"v": 1})
    assert store.update("table-0001", bump) == 2
    assert store.update("table-0001", bump) == 3
    assert store.load("table-0001")["version"] == 3
    assert [e["v"] for e in store.log("table-0001")] == [1, 2, 3]


def test_update_of_unknown_table_raises_key_error(store: Store) -> None:
    with pytest.raises(KeyError):
        store.update("missing-table", bump)


def test_refusal_inside_update_writes_nothing(store: Store) -> None:
    store.create(make_doc(), {"v": 1})

    def refuse(tx):
        raise ValueError("no")

    with pytest.raises(ValueError):
        store.update("table-0001", refuse)
    assert store.load("table-0001")["version"] == 1
    assert len(store.log("table-0001")) == 1


def test_concurrent_updates_lose_nothing(store: Store) -> None:
    store.create(make_doc(), {"v": 1})
    results: list[int] = []
    lock = threading.Lock()

    def worker() -> None:
        for _ in range(10):
            v = store.update("table-0001", bump)
            with lock:
                results.append(v)

    threads = [threading.Thread(target=worker) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == list(range(2, 202)), "every version handed out exactly once"
    doc = store.load("table-0001")
    assert doc["n"] == 200 and doc["version"] == 201
    assert [e["v"] for e in store.log("table-0001")] == list(range(1, 202))


def test_every_key_gets_the_ttl_and_expires(redis_url: str) -> None:
    store = Store.connect(redis_url, ttl=1)
    doc = make_doc()
    doc["code"] = "ABCDEF"
    store.reserve_code("ABCDEF", "table-0001")
    store.create(doc, {"v": 1})
    store.update("table-0001", lambda tx: Commit({**tx.doc, "version": 2}, {"v": 2}, ("rid", {"x": 1})))
    r = store.r
    for key in (doc_key("table-0001"), log_key("table-0001"), req_key("table-0001"), code_key("ABCDEF")):
        assert 0 < r.pttl(key) <= 1000, key
    time.sleep(1.3)
    assert store.load("table-0001") is None
    assert store.code_table("ABCDEF") is None
    with pytest.raises(KeyError):
        store.update("table-0001", bump)


def test_ttl_is_refreshed_by_each_change(redis_url: str) -> None:
    store = Store.connect(redis_url, ttl=2)
    store.create(make_doc(), {"v": 1})
    time.sleep(1.2)
    store.update("table-0001", bump)
    assert store.r.pttl(doc_key("table-0001")) > 1500
    time.sleep(1.2)
    assert store.load("table-0001") is not None, "the change kept the table alive"


def test_pubsub_delivers_each_commit(store: Store) -> None:
    got: list[tuple[str, int]] = []
    stop = threading.Event()
    t = threading.Thread(target=store.listen, args=(lambda t, v: got.append((t, v)), lambda: None, stop))
    t.start()
    time.sleep(0.3)  # let the listener subscribe
    store.create(make_doc(), {"v": 1})
    store.update("table-0001", bump)
    store.update("table-0001", bump)
    deadline = time.time() + 5
    while len(got) < 3 and time.time() < deadline:
        time.sleep(0.02)
    stop.set()
    t.join(5)
    assert got == [("table-0001", 1), ("table-0001", 2), ("table-0001", 3)]


def test_rate_limit_counts_across_clients_of_one_redis(redis_url: str) -> None:
    a = Store.connect(redis_url, ttl=60)
    b = Store.connect(redis_url, ttl=60)  # a second instance
    assert [a.hit("join", "1.2.3.4", 3) for _ in range(2)] == [None, None]
    assert b.hit("join", "1.2.3.4", 3) is None
    wait = a.hit("join", "1.2.3.4", 3)
    assert wait is not None and 1 <= wait <= 61
    assert b.hit("join", "5.6.7.8", 3) is None, "another client has its own budget"


def test_embedded_store_works_without_redis() -> None:
    store = Store.connect(None, ttl=60)
    assert store.embedded and store.ping()
    store.create(make_doc(), {"v": 1})
    assert store.update("table-0001", bump) == 2

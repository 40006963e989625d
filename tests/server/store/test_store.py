"""The store against a real redis-server: versioned updates, TTL, pub/sub."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
import redis

from server.service.write import update
from server.store import Commit, Store
from server.store.keys import code_key, doc_key, log_key, req_key, version_key
from server.store.listen import Callbacks


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
    assert update(store, "table-0001", bump) == 2
    assert update(store, "table-0001", bump) == 3
    assert store.load("table-0001")["version"] == 3
    assert [e["v"] for e in store.log("table-0001")] == [1, 2, 3]


def test_update_of_unknown_table_raises_key_error(store: Store) -> None:
    with pytest.raises(KeyError):
        update(store, "missing-table", bump)


def test_refusal_inside_update_writes_nothing(store: Store) -> None:
    store.create(make_doc(), {"v": 1})

    def refuse(tx):
        raise ValueError("no")

    with pytest.raises(ValueError):
        update(store, "table-0001", refuse)
    assert store.load("table-0001")["version"] == 1
    assert len(store.log("table-0001")) == 1


def test_concurrent_updates_lose_nothing(store: Store) -> None:
    store.create(make_doc(), {"v": 1})
    results: list[int] = []
    lock = threading.Lock()

    def worker() -> None:
        for _ in range(10):
            v = update(store, "table-0001", bump)
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
    update(store, "table-0001", lambda tx: Commit({**tx.doc, "version": 2}, {"v": 2}, ("rid", {"x": 1})))
    r = store.r
    for key in (doc_key("table-0001"), version_key("table-0001"), log_key("table-0001"), req_key("table-0001")):
        assert 0 < r.pttl(key) <= 1000, key
    # A code is its own key, on its own slot: it lives four table lifetimes
    # from its table's creation or its last lookup, then goes too.
    assert 1000 < r.pttl(code_key("ABCDEF")) <= 4000
    time.sleep(1.3)
    assert store.load("table-0001") is None
    assert store.code_table("ABCDEF") == "table-0001", "it outlives its table, to say it has gone"
    time.sleep(4.1)
    assert store.code_table("ABCDEF") is None
    with pytest.raises(KeyError):
        update(store, "table-0001", bump)


def test_ttl_is_refreshed_by_each_change(redis_url: str) -> None:
    store = Store.connect(redis_url, ttl=2)
    store.create(make_doc(), {"v": 1})
    time.sleep(1.2)
    update(store, "table-0001", bump)
    assert store.r.pttl(doc_key("table-0001")) > 1500
    time.sleep(1.2)
    assert store.load("table-0001") is not None, "the change kept the table alive"


def test_pubsub_delivers_each_commit_of_a_watched_table(store: Store) -> None:
    got: list[tuple[str, int]] = []
    stop, ready = threading.Event(), threading.Event()
    callbacks = Callbacks(on_change=lambda t, v, raw: got.append((t, v)), ready=ready)
    t = threading.Thread(target=store.changes.listen, args=(callbacks, stop))
    t.start()
    assert ready.wait(5)
    store.changes.watch("table-0001")
    store.create(make_doc(), {"v": 1})
    store.create(make_doc("table-0002"), {"v": 1})  # not watched: never heard here
    update(store, "table-0002", bump)
    update(store, "table-0001", bump)
    update(store, "table-0001", bump)
    deadline = time.time() + 5
    while len(got) < 3 and time.time() < deadline:
        time.sleep(0.02)
    stop.set()
    t.join(5)
    assert got == [("table-0001", 1), ("table-0001", 2), ("table-0001", 3)]


class Listening:
    """``store.changes.listen`` in a thread, watching ``table-0001``, and the commits
    an update's ``wrote`` told, recorded."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.commits: list[tuple[str, int, str | None]] = []
        self.wrote: list[tuple[str, int]] = []
        self.stop, self.ready = threading.Event(), threading.Event()
        callbacks = Callbacks(on_change=lambda t, v, raw: self.commits.append((t, v, raw)), ready=self.ready)
        self.thread = threading.Thread(target=store.changes.listen, args=(callbacks, self.stop))
        self.thread.start()
        assert self.ready.wait(5)
        store.changes.watch("table-0001")

    def push(self, table_id: str, version: int, doc: Any, state: Any) -> None:
        """An update's ``wrote``: what a process's fan-out is told."""
        self.wrote.append((table_id, version))

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)


def message_first(store: Store, monkeypatch: pytest.MonkeyPatch, fail: bool = False) -> None:
    """The commit's reply is held back until the listener has the change's
    message (the usual order: Redis writes a script's PUBLISH first); with
    ``fail`` the link then fails, as if Redis went away before the reply."""
    real = store.committer.run

    def run(change, ttl):
        reply = real(change, ttl)
        deadline = time.time() + 5
        while store.in_flight.messages.get((change.table_id, change.version)) is None and time.time() < deadline:
            time.sleep(0.01)
        assert store.in_flight.messages[(change.table_id, change.version)] is not None, "no message came"
        if fail:
            raise redis.ConnectionError("gone after the script ran")
        return reply

    monkeypatch.setattr(store.committer, "run", run)


def test_a_commits_own_message_is_left_to_the_commit(store: Store, monkeypatch) -> None:
    listening = Listening(store)
    try:
        store.create(make_doc(), {"v": 1})
        message_first(store, monkeypatch)
        assert update(store, "table-0001", bump, wrote=listening.push) == 2
        time.sleep(0.2)
        # Pushed once, by the commit, from the document it made: the listener
        # neither parsed the message nor handed it on.
        assert listening.wrote == [("table-0001", 2)]
        assert [(t, v) for t, v, _ in listening.commits] == [("table-0001", 1)]  # the create's
        assert store.in_flight.messages == {}
    finally:
        listening.close()


def test_a_commit_that_fails_after_the_script_ran_hands_its_message_on(store: Store, monkeypatch) -> None:
    listening = Listening(store)
    try:
        store.create(make_doc(), {"v": 1})
        message_first(store, monkeypatch, fail=True)
        with pytest.raises(redis.ConnectionError):
            update(store, "table-0001", bump, wrote=listening.push)
        # It did land: the phones hear of it from the message, as from any instance's.
        assert store.load("table-0001")["version"] == 2
        assert listening.wrote == []
        assert [(t, v) for t, v, _ in listening.commits] == [("table-0001", 1), ("table-0001", 2)]
        assert '"n":1' in (listening.commits[-1][2] or "")
        assert store.in_flight.messages == {}
    finally:
        listening.close()


def test_a_message_held_for_one_commit_survives_another_of_the_same_version(store: Store, monkeypatch) -> None:
    """Two commits of one version in one process (two phones, one document):
    the second to start must not drop the message the first holds, or a first
    whose link fails after its script ran would leave the change unheard."""
    from server.store.commit import CHANGED

    listening = Listening(store)
    try:
        store.create(make_doc(), {"v": 1})
        real = store.committer.run
        calls: list[int] = []

        def run(change, ttl):
            calls.append(change.version)
            if len(calls) == 2:  # the other greenlet's commit: it lost the race
                return CHANGED, {}
            real(change, ttl)  # written and published; its reply is never read
            deadline = time.time() + 5
            while store.in_flight.messages.get((change.table_id, change.version)) is None and time.time() < deadline:
                time.sleep(0.01)
            assert store.in_flight.messages[(change.table_id, change.version)] is not None, "no message came"
            store.writes._run(change, False)  # the other one starts and ends while this one waits
            raise redis.ConnectionError("gone after the script ran")

        monkeypatch.setattr(store.committer, "run", run)
        with pytest.raises(redis.ConnectionError):
            update(store, "table-0001", bump, wrote=listening.push)
        assert calls == [2, 2]
        assert [(t, v) for t, v, _ in listening.commits] == [("table-0001", 1), ("table-0001", 2)]
        assert store.in_flight.messages == {}
    finally:
        listening.close()


def test_another_processs_commit_is_handed_on_at_once(redis_url: str) -> None:
    one, two = Store.connect(redis_url, ttl=60), Store.connect(redis_url, ttl=60)
    listening = Listening(one)
    try:
        two.create(make_doc(), {"v": 1})
        update(two, "table-0001", bump)
        deadline = time.time() + 5
        while len(listening.commits) < 2 and time.time() < deadline:
            time.sleep(0.01)
        assert [(t, v) for t, v, _ in listening.commits] == [("table-0001", 1), ("table-0001", 2)]
        assert listening.wrote == []
    finally:
        listening.close()


def test_rate_limit_counts_across_clients_of_one_redis(redis_url: str) -> None:
    a = Store.connect(redis_url, ttl=60)
    b = Store.connect(redis_url, ttl=60)  # a second instance
    assert [a.rates.hit("join", "1.2.3.4", 3) for _ in range(2)] == [None, None]
    assert b.rates.hit("join", "1.2.3.4", 3) is None
    wait = a.rates.hit("join", "1.2.3.4", 3)
    assert wait is not None and 1 <= wait <= 61
    assert b.rates.hit("join", "5.6.7.8", 3) is None, "another client has its own budget"


def test_embedded_store_works_without_redis() -> None:
    store = Store.connect(None, ttl=60)
    assert store.embedded and store.ping()
    store.create(make_doc(), {"v": 1})
    assert update(store, "table-0001", bump) == 2


# A reader thread that dies of the closed connection is a warning pytest would only print.
@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_table_watched_again_after_its_last_unwatch_is_heard(store: Store) -> None:
    """Unwatching a table's channel may close its node's connection under the
    reader (the last channel there, on a cluster): the reader lives on, and
    the same table watched again is heard."""
    store.create(make_doc(), {"v": 1})
    listening = Listening(store)
    for _ in range(3):
        time.sleep(0.3)  # the reader is inside its read when the channel goes
        store.changes.unwatch("table-0001")
        time.sleep(0.3)
        store.changes.watch("table-0001")
    time.sleep(0.3)
    update(store, "table-0001", bump)
    deadline = time.time() + 5
    while not listening.commits and time.time() < deadline:
        time.sleep(0.02)
    listening.close()
    assert [(t, v) for t, v, _ in listening.commits] == [("table-0001", 2)]

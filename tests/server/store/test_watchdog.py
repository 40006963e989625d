"""The listener through its faults on one Redis: a Redis killed and started
again, a read that never returns. It says it is deaf meanwhile
(``Callbacks.deaf``, what ``/healthz`` reads), logs the loss and the recovery
once each, and hears its tables again afterwards, with a resync."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest
import redis

from conftest import RedisServer, wait_for
from server.service.write import update
from server.store import Store, listen
from server.store.feeds import LeanFeed
from server.store.listen import Callbacks
from tests.server.store.test_store import bump, make_doc


class Heard:
    """``store.changes.listen`` in a thread, watching ``table-0001``."""

    def __init__(self, store: Store) -> None:
        self.versions: list[int] = []
        self.resyncs = self.downs = 0
        self.stop = threading.Event()
        self.callbacks = Callbacks(on_change=lambda t, v, raw: self.versions.append(v),
                                   on_down=self._down, on_resync=self._resync)
        self.thread = threading.Thread(target=store.changes.listen, args=(self.callbacks, self.stop), daemon=True)
        self.thread.start()
        assert self.callbacks.ready.wait(5)
        store.changes.watch("table-0001")

    def _down(self) -> None:
        self.downs += 1

    def _resync(self) -> None:
        self.resyncs += 1

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10)


def hang_next_read(store: Store) -> None:
    """The store's listener's next read blocks until its socket is shut (as
    on a lock, or a socket that never answers: no timeout, no ping); reads
    after it (a new subscription's) are real. Only this store's: other tests'
    listeners may still be reading."""
    wait_for(lambda: store.changes._watching().feed is not None, what="the listener's feed")
    feed = store.changes._watching().feed
    assert isinstance(feed, LeanFeed)
    sub = feed.sub
    real_get = sub.get

    def get() -> Any:
        sub.get = real_get  # type: ignore[method-assign]
        sub.link.sock.settimeout(None)
        if not sub.link.sock.recv(65536):
            raise ConnectionResetError("closed under the read")
        return real_get()

    sub.get = get  # type: ignore[method-assign]


def messages(caplog: pytest.LogCaptureFixture, text: str) -> int:
    return sum(text in r.getMessage() for r in caplog.records if r.name == listen.__name__)


def test_a_redis_killed_and_started_again(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    server = RedisServer(extra_args=("--appendonly", "yes"))
    try:
        store = Store.connect(server.url, ttl=60)
        store.create(make_doc(), {"v": 1})
        heard = Heard(store)
        assert heard.callbacks.deaf() is None
        server.kill()
        wait_for(lambda: heard.callbacks.deaf() is not None, what="deaf")
        wait_for(lambda: not heard.callbacks.ready.is_set(), what="not ready")
        threading.Event().wait(2.5)  # several reconnects fail meanwhile (0.2, 0.4, 0.8 s...)
        assert heard.callbacks.deaf() is not None
        server.start()
        wait_for(lambda: heard.resyncs == 1, what="the resync")
        assert heard.callbacks.deaf() is None and heard.downs == 1
        other = Store.connect(server.url, ttl=60)
        update(other, "table-0001", bump)  # another instance's commit
        wait_for(lambda: heard.versions == [2], what="a change heard again")
        heard.close()
        assert messages(caplog, "subscription lost") == 1
        assert messages(caplog, "hearing its 1 tables again") == 1
    finally:
        server.close()


def test_a_read_that_never_returns_is_broken_by_the_watchdog(single_redis_url: str, monkeypatch: pytest.MonkeyPatch,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    monkeypatch.setattr(listen, "STALL", 1.5)
    store = Store.connect(single_redis_url, ttl=60)
    store.create(make_doc(), {"v": 1})
    heard = Heard(store)
    hang_next_read(store)
    wait_for(lambda: heard.callbacks.deaf() is not None, what="the stall seen")
    wait_for(lambda: heard.resyncs == 1, what="the watchdog's restart")
    assert heard.callbacks.deaf() is None
    update(store, "table-0001", bump)
    wait_for(lambda: 2 in heard.versions, what="a change heard again")
    heard.close()
    assert messages(caplog, "stuck for over") == 1


def test_healthz_says_503_while_the_listener_is_stuck(single_redis_url: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The store answers its ping throughout: only the listener is deaf."""
    from server import create_app
    from tests.toy_engine import TOY

    monkeypatch.setattr(listen, "STALL", 1.5)
    app = create_app({"REDIS_URL": single_redis_url, "EXTRA_ENGINES": [TOY], "WEB_BUILD": None})
    client = app.test_client()
    hub = app.extensions["tablemate"].hub
    assert client.get("/healthz").status_code == 200  # no table yet: nothing to hear
    hub.ensure_listening()
    assert client.get("/healthz").status_code == 200
    hang_next_read(app.extensions["tablemate"].store)
    try:
        wait_for(lambda: client.get("/healthz").status_code == 503, what="503 while stuck")
        r = client.get("/healthz")
        assert r.json["error"]["code"] == "store_unavailable"
        wait_for(lambda: client.get("/healthz").status_code == 200, what="200 once restarted")
    finally:
        hub.stop.set()


def test_a_watch_that_times_out_leaves_nothing_watched(single_redis_url: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Its caller registers no socket and will never unwatch: the channel must
    not stay counted (and subscribed once confirmed) for good."""
    store = Store.connect(single_redis_url, ttl=60)
    heard = Heard(store)  # watches table-0001
    monkeypatch.setattr(listen, "WATCH_TIMEOUT", 0.3)
    monkeypatch.setattr(LeanFeed, "add", lambda self, channels: None)  # never confirmed
    with pytest.raises(redis.TimeoutError):
        store.changes.watch("table-0002")
    assert store.changes.heard()["channels"] == 1
    assert store.changes._watching().users == {"tm:{table-0001}:ch": 1}
    heard.close()

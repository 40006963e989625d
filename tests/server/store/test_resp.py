"""The hot paths' own Redis client (server/store/resp.py), against a real Redis."""

from __future__ import annotations

import ssl
import threading
import time
from urllib.parse import urlparse

import pytest
import redis

from conftest import RedisServer, free_port
from server.service.write import update
from server.store import Commit, Store, feeds
from server.store.feeds import Subscription
from server.store.resp import Lean
from tests.server.tcpproxy import TcpProxy

SCRIPT = "redis.call('SET', KEYS[1], ARGV[1]); return {3, redis.call('GET', KEYS[1]), false}"


def lean_for(url: str, **kw: float) -> Lean:
    u = urlparse(url)
    return Lean(u.hostname or "127.0.0.1", u.port or 6379, **kw)  # type: ignore[arg-type]


def test_a_script_runs_and_is_loaded_when_redis_does_not_know_it(single_redis_url: str) -> None:
    lean, r = lean_for(single_redis_url), redis.Redis.from_url(single_redis_url, decode_responses=True)
    r.script_flush()
    assert lean.evalsha(SCRIPT, ["k"], ["v1"]) == [3, "v1", None]  # NOSCRIPT, then EVAL
    assert r.script_exists(lean.shas[SCRIPT]) == [True]
    assert lean.evalsha(SCRIPT, ["k"], [b"v2"]) == [3, "v2", None]  # EVALSHA now
    assert r.get("k") == "v2"


def test_an_error_reply_raises_and_the_link_stays_usable(single_redis_url: str) -> None:
    lean = lean_for(single_redis_url)
    with pytest.raises(redis.ResponseError, match="boom"):
        lean.evalsha("return redis.error_reply('boom')", [], [])
    assert len(lean.idle) == 1  # the reply was whole: the link is in step
    assert lean.evalsha("return 7", [], []) == 7


def test_a_link_killed_while_idle_is_replaced_without_an_error(single_redis_url: str) -> None:
    """As after a Redis restart: every pooled link is dead, the command goes
    through on a new one."""
    lean, r = lean_for(single_redis_url), redis.Redis.from_url(single_redis_url)
    for _ in range(2):
        assert lean.evalsha("return 1", [], []) == 1
    r.client_kill_filter(_type="normal", skipme=True)
    assert lean.evalsha("return 2", [], []) == 2


def test_no_redis_is_a_connection_error() -> None:
    lean = Lean("127.0.0.1", 1, connect_timeout=0.5)  # nothing listens on port 1
    with pytest.raises(redis.ConnectionError):
        lean.evalsha("return 1", [], [])


def test_a_silent_redis_is_a_timeout_not_a_hang(single_redis_url: str) -> None:
    proxy = TcpProxy([urlparse(single_redis_url).port or 6379])
    try:
        lean = Lean("127.0.0.1", proxy.port, socket_timeout=0.5)
        assert lean.evalsha("return 1", [], []) == 1
        proxy.silent.set()
        t = time.monotonic()
        with pytest.raises(redis.TimeoutError):
            lean.evalsha("return 1", [], [])
        assert time.monotonic() - t < 3  # not retried: a timeout is not a dead idle link
        assert lean.idle == []  # out of step: dropped
    finally:
        proxy.close()


def test_the_pool_is_bounded_and_waits(single_redis_url: str) -> None:
    lean = lean_for(single_redis_url)
    lean.slots = threading.BoundedSemaphore(1)
    lean.pool_timeout = 0.2
    assert lean.slots.acquire()  # the one link is taken
    with pytest.raises(redis.ConnectionError, match="No connection available"):
        lean.evalsha("return 1", [], [])
    threading.Timer(0.05, lean.slots.release).start()
    assert lean.evalsha("return 1", [], []) == 1  # waited for it


def confirmed(sub: Subscription, *channels: str) -> None:
    """Waits for Redis to confirm each of ``channels`` (nothing else may come first)."""
    deadline = time.monotonic() + 5
    left = set(channels)
    while left and time.monotonic() < deadline:
        event = sub.get()
        if event is not None:
            assert event[0] == "confirmed", event
            left.discard(event[1])
    assert not left


def test_a_subscription_hands_over_every_message_in_order(single_redis_url: str) -> None:
    lean, r = lean_for(single_redis_url), redis.Redis.from_url(single_redis_url)
    sub = Subscription(lean)
    try:
        sub.send(("SSUBSCRIBE", "tm:{a}:ch", "tm:{b}:ch"))
        confirmed(sub, "tm:{a}:ch", "tm:{b}:ch")
        with r.pipeline() as p:  # arrive together, likely in one read
            for i in range(50):
                p.spublish("tm:{a}:ch" if i % 2 else "tm:{b}:ch", f'{{"t":"x","v":{i}}}')
            p.spublish("tm:{c}:ch", "not ours")
            p.publish("tm:{a}:ch", "a classic channel of the same name: not ours either")
            p.execute()
        got: list[tuple[str, str, str]] = []
        deadline = time.monotonic() + 5
        while len(got) < 50 and time.monotonic() < deadline:
            if (m := sub.get()) is not None:
                got.append(m)
        assert got == [("message", "tm:{a}:ch" if i % 2 else "tm:{b}:ch", f'{{"t":"x","v":{i}}}')
                       for i in range(50)]
        # A channel dropped is heard no more; one added later is.
        sub.send(("SUNSUBSCRIBE", "tm:{b}:ch"))
        sub.send(("SSUBSCRIBE", "tm:{c}:ch"))
        deadline = time.monotonic() + 5
        while r.execute_command("PUBSUB", "SHARDNUMSUB", "tm:{b}:ch", "tm:{c}:ch") != [b"tm:{b}:ch", 0, b"tm:{c}:ch", 1]:
            assert time.monotonic() < deadline
            sub.get()
        r.spublish("tm:{b}:ch", "dropped")
        r.spublish("tm:{c}:ch", "added")
        events = [e for _ in range(20) if (e := sub.get()) is not None]
        assert [e for e in events if e[0] == "message"] == [("message", "tm:{c}:ch", "added")]
    finally:
        sub.close()


def test_a_subscription_pings_a_quiet_redis_and_gives_a_silent_one_up(
        single_redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(feeds, "HEALTH_CHECK", 0.3)
    proxy = TcpProxy([urlparse(single_redis_url).port or 6379])
    try:
        sub = Subscription(Lean("127.0.0.1", proxy.port, socket_timeout=0.5))
        sub.send(("SSUBSCRIBE", "tm:{a}:ch"))
        sub.link.sock.settimeout(0.1)
        deadline = time.monotonic() + 3
        while sub.pinged is None and time.monotonic() < deadline:
            sub.get()
        assert sub.pinged is not None  # quiet past HEALTH_CHECK: pinged
        while sub.pinged is not None and time.monotonic() < deadline:
            sub.get()
        assert sub.pinged is None  # the pong came: healthy
        proxy.silent.set()
        with pytest.raises(redis.TimeoutError):
            while time.monotonic() < deadline + 3:
                sub.get()
        sub.close()
    finally:
        proxy.close()


def test_the_store_uses_it_for_a_single_redis_over_tcp_or_tls_only(single_redis_url: str, tmp_path) -> None:
    store = Store.connect(single_redis_url, ttl=60)
    assert store.lean is not None and store.committer.path is store.path and store.path.lean is store.lean
    u = urlparse(single_redis_url)
    assert (store.lean.host, store.lean.port, store.lean.socket_timeout) == (u.hostname, u.port, 5.0)
    # redis-py keeps its own parser for everything else (hiredis's polls every
    # connection it takes from the pool under gevent).
    parser = store.r.connection_pool.make_connection()._parser
    assert type(parser).__name__ in ("_RESP2Parser", "_RESP3Parser")
    assert Store.connect(None, ttl=60).lean is None  # the embedded store
    assert Store(redis.Redis(unix_socket_path=str(tmp_path / "r.sock")), ttl=60).lean is None
    tls = Store(redis.Redis(ssl=True), ttl=60).lean
    assert tls is not None and tls.tls is not None  # rediss://: production's
    db = Lean.for_client(redis.Redis.from_url("redis://u:pw@h:7000/3"))
    assert db is not None
    assert (db.host, db.port, db.username, db.password, db.db) == ("h", 7000, "u", "pw", 3)


def test_it_selects_the_database_of_the_url(single_redis_url: str) -> None:
    lean = Lean.for_client(redis.Redis.from_url(single_redis_url + "/5"))
    assert lean is not None
    lean.evalsha("redis.call('SET', KEYS[1], 'here')", ["in5"], [])
    assert redis.Redis.from_url(single_redis_url + "/5").get("in5") == b"here"
    assert redis.Redis.from_url(single_redis_url).get("in5") is None




def test_it_speaks_tls_for_a_rediss_url(certificate: tuple[str, str]) -> None:
    """Production's Redis is reached over TLS (``rediss://``): the store's own
    client runs the commit script and the table channels there too."""
    cert, key = certificate
    tls_port = free_port()
    server = RedisServer(extra_args=("--tls-port", str(tls_port), "--tls-cert-file", cert, "--tls-key-file", key,
                                     "--tls-ca-cert-file", cert, "--tls-auth-clients", "no"))
    try:
        store = Store.connect(f"rediss://127.0.0.1:{tls_port}/0?ssl_ca_certs={cert}", ttl=60)
        assert store.lean is not None and store.lean.tls is not None
        assert store.lean.tls.verify_mode == ssl.CERT_REQUIRED and store.lean.tls.check_hostname
        store.create({"id": "table-tls1", "version": 1, "code": None}, {"v": 1})
        sub = Subscription(store.lean)
        sub.send(("SSUBSCRIBE", "tm:{table-tls1}:ch"))
        confirmed(sub, "tm:{table-tls1}:ch")
        update(store, "table-tls1", lambda tx: Commit({**tx.doc, "version": 2}, {"v": 2}))
        event = None
        deadline = time.monotonic() + 5
        while event is None and time.monotonic() < deadline:
            event = sub.get()
        assert event is not None and event[0] == "message" and '"v":2' in event[2]
        sub.close()
        # A certificate nobody vouched for is refused, as redis-py refuses it.
        untrusted = Store.connect(f"rediss://127.0.0.1:{tls_port}/0", ttl=60)
        assert untrusted.lean is not None
        with pytest.raises(redis.ConnectionError):
            untrusted.lean.call(("PING",))
    finally:
        server.close()


def test_a_redis_call_under_gevent_lets_no_other_greenlet_in_for_its_pool_slot() -> None:
    """The pool's slot is gevent's own semaphore under gevent: taking and
    giving it back switches to no other greenlet (``threading.BoundedSemaphore``,
    patched, yields to the hub on every release: a switch per Redis call)."""
    import subprocess
    import sys

    code = (
        "from gevent import monkey; monkey.patch_all()\n"
        "import gevent\n"
        "from server.store.resp import Lean\n"
        "lean = Lean('127.0.0.1', 1)\n"
        "ran = []\n"
        "gevent.spawn(ran.append, 1)\n"
        "for _ in range(3):\n"
        "    assert lean.slots.acquire(timeout=1)\n"
        "    lean.slots.release()\n"
        "print('switched' if ran else 'stayed')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "stayed", out.stderr

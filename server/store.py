"""Everything Tablemate keeps in Redis: keys, JSON, TTL, atomic updates, fan-out.

No other module builds a key or talks to Redis. A table is three keys that share
a hash tag (so a cluster keeps them on one slot) and one TTL, refreshed on every
change:

- ``tm:{<id>}:doc``  the table document (seats, options, engine state, version)
- ``tm:{<id>}:log``  the action log, one JSON entry per applied change
- ``tm:{<id>}:req``  request_id → the first result, so retries apply once
- ``tm:{<id>}:here`` presence: one member per open socket (``<seat>/<socket>``),
  scored by when it was last heard from; members older than ``PRESENCE_TTL``
  count as gone, so an instance that dies takes its phones offline by itself
  (records older than the request window are pruned: ``Tx.stale_requests``)

plus ``tm:code:<CODE>`` (lobby join codes) and ``tm:rl:*`` (rate-limit counters).
Every committed change publishes ``{"t": id, "v": version}`` on ``tm:changes``;
one listener per process fans it out to that process's sockets. A socket that
opens or closes publishes ``{"t": id, "p": 1}`` there (presence, no version).
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

import orjson
import redis

from server.model import LogEntry, TableDoc

log = logging.getLogger(__name__)

CHANNEL = "tm:changes"
MAX_ATTEMPTS = 200
#: Seconds a socket counts as present after it was last heard from. Phones
#: ping every ~2 s and the server refreshes at most every ``live.PRESENCE_REFRESH``.
PRESENCE_TTL = 12.0

R = TypeVar("R")


def dumps(value: Any) -> bytes:
    """JSON for Redis. orjson: the table document is encoded and parsed on every
    action, and the stdlib's encoder was a tenth of the worker's CPU under load."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


loads = orjson.loads


def doc_key(table_id: str) -> str:
    return f"tm:{{{table_id}}}:doc"


def log_key(table_id: str) -> str:
    return f"tm:{{{table_id}}}:log"


def req_key(table_id: str) -> str:
    return f"tm:{{{table_id}}}:req"


def presence_key(table_id: str) -> str:
    return f"tm:{{{table_id}}}:here"


def code_key(code: str) -> str:
    return f"tm:code:{code}"


def rate_key(bucket: str, client: str, window: int) -> str:
    return f"tm:rl:{bucket}:{client}:{window}"


class Conflict(Exception):
    """Raised by ``update`` when the table stayed too contended to commit
    within ``MAX_ATTEMPTS`` (nothing was written)."""


@dataclass
class Commit(Generic[R]):
    """What one update writes, all in one MULTI/EXEC; ``doc=None`` writes nothing."""

    doc: TableDoc | None
    entry: LogEntry | None = None
    #: (request_id, what a retry of it gets back)
    request: tuple[str, Any] | None = None
    #: Further request records to (re)write, e.g. those undo retires.
    more_requests: list[tuple[str, Any]] = field(default_factory=list)
    #: request_ids to forget (out of the window; written after the records above).
    drop_requests: list[str] = field(default_factory=list)
    #: What ``update`` returns; left None by updates that return nothing (``Commit[None]``).
    result: R = cast(R, None)


@dataclass
class Tx:
    """The read side of an update: the document and lazy reads under WATCH."""

    pipe: Any
    table_id: str
    doc: TableDoc
    raw: str = field(default="", repr=False)
    _log: list[LogEntry] | None = field(default=None, repr=False)

    def copy(self) -> TableDoc:
        """A private copy of the document to change (parsing the JSON again is
        several times faster than ``copy.deepcopy``)."""
        return cast(TableDoc, loads(self.raw))

    def cached_result(self, request_id: str) -> Any:
        """What ``Commit.request`` recorded for ``request_id``; None if unseen."""
        raw = self.pipe.hget(req_key(self.table_id), request_id)
        return loads(raw) if raw else None

    def stale_requests(self, before: int) -> list[str]:
        """The request_ids recorded at a version below ``before`` (a record
        without one predates the window and counts as stale)."""
        found = self.pipe.hgetall(req_key(self.table_id))
        return [rid for rid, raw in found.items() if loads(raw).get("v", 0) < before]

    def log(self) -> list[LogEntry]:
        if self._log is None:
            self._log = [loads(x) for x in self.pipe.lrange(log_key(self.table_id), 0, -1)]
        return self._log


def _text(raw: bytes | str | None) -> str | None:
    # Clients are made with decode_responses=True; a bytes value means a client
    # passed in without it, and is decoded rather than mistyped.
    return raw.decode() if isinstance(raw, bytes) else raw


class Store:
    def __init__(self, client: redis.Redis, ttl: int) -> None:
        self.r = client
        self.ttl = ttl

    @classmethod
    def connect(cls, url: str | None, ttl: int) -> Store:
        if url:
            # A blocking pool: under a burst, greenlets wait for a connection
            # (up to 5 s) instead of failing with "too many connections".
            pool = redis.BlockingConnectionPool.from_url(
                url, decode_responses=True, socket_timeout=5, socket_connect_timeout=3,
                health_check_interval=30, max_connections=int(os.environ.get("TABLEMATE_REDIS_POOL", "256")),
                timeout=5,
            )
            client = redis.Redis(connection_pool=pool)
        else:
            # The embedded store: an in-process Redis, so one command runs the app.
            import fakeredis

            client = fakeredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
        return cls(client, ttl)

    @property
    def embedded(self) -> bool:
        return type(self.r).__module__.startswith("fakeredis")

    def ping(self) -> bool:
        try:
            return bool(self.r.ping())
        except redis.RedisError:
            return False

    # -- tables ---------------------------------------------------------------

    def create(self, doc: TableDoc, entry: LogEntry) -> bool:
        """Stores a new table; False if the id is taken (never in practice)."""
        tid = doc["id"]
        if not self.r.set(doc_key(tid), dumps(doc), nx=True, ex=self.ttl):
            return False
        with self.r.pipeline() as p:
            p.rpush(log_key(tid), dumps(entry))
            p.expire(log_key(tid), self.ttl)
            p.publish(CHANNEL, dumps({"t": tid, "v": doc["version"]}))
            p.execute()
        return True

    def reserve_code(self, code: str, table_id: str) -> bool:
        return bool(self.r.set(code_key(code), table_id, nx=True, ex=self.ttl))

    def code_table(self, code: str) -> str | None:
        return _text(self.r.get(code_key(code)))

    def load(self, table_id: str) -> TableDoc | None:
        raw = self.r.get(doc_key(table_id))
        return cast(TableDoc, loads(raw)) if raw else None

    def log(self, table_id: str) -> list[LogEntry]:
        return [loads(x) for x in self.r.lrange(log_key(table_id), 0, -1)]

    def log_tail(self, table_id: str, n: int) -> list[LogEntry]:
        """The last ``n`` log entries, oldest first."""
        return [loads(x) for x in self.r.lrange(log_key(table_id), -n, -1)] if n > 0 else []

    def update(self, table_id: str, fn: Callable[[Tx], Commit[R]]) -> R:
        """Read-modify-write of one table with optimistic locking.

        ``fn`` sees the current document and returns a ``Commit``; if another
        writer committed in between, EXEC fails and ``fn`` runs again on the new
        document. ``fn`` raises to refuse (nothing is written). Returns
        ``Commit.result``. A ``Commit`` whose ``doc`` is None writes nothing.
        Raises ``Conflict`` after ``MAX_ATTEMPTS`` lost races.
        """
        dk = doc_key(table_id)
        for attempt in range(MAX_ATTEMPTS):
            with self.r.pipeline() as pipe:
                try:
                    pipe.watch(dk)
                    raw = _text(pipe.get(dk))
                    if raw is None:
                        pipe.unwatch()
                        raise KeyError(table_id)
                    commit = fn(Tx(pipe, table_id, loads(raw), raw))
                    if commit.doc is None:
                        pipe.unwatch()
                        return commit.result
                    pipe.multi()
                    self._write(pipe, table_id, commit.doc, commit)
                    pipe.execute()
                    return commit.result
                except redis.WatchError:
                    pass
            # Jittered backoff, with the connection back in the pool, so twenty
            # phones hammering one table all get through.
            time.sleep(random.uniform(0, 0.001 * min(attempt + 1, 20)))
        raise Conflict(f"table {table_id} too contended")

    def _write(self, pipe: Any, table_id: str, doc: TableDoc, c: Commit[Any]) -> None:
        ttl = self.ttl
        pipe.set(doc_key(table_id), dumps(doc), ex=ttl)
        if c.entry is not None:
            pipe.rpush(log_key(table_id), dumps(c.entry))
        pipe.expire(log_key(table_id), ttl)
        for rid, record in ([c.request] if c.request is not None else []) + c.more_requests:
            pipe.hset(req_key(table_id), rid, dumps(record))
        if c.drop_requests:
            pipe.hdel(req_key(table_id), *c.drop_requests)
        pipe.expire(req_key(table_id), ttl)
        code = doc.get("code")
        if code:
            pipe.expire(code_key(code), ttl)
        pipe.publish(CHANNEL, dumps({"t": table_id, "v": doc["version"]}))

    # -- rate limits ----------------------------------------------------------

    def hit(self, bucket: str, client: str, limit: int, window: int = 60) -> int | None:
        """Counts one request; returns seconds to wait when over ``limit``."""
        return self.hit_many([(bucket, client, limit)], window)

    def hit_many(self, hits: Sequence[tuple[str, str, int]], window: int = 60) -> int | None:
        """Counts one request in every ``(bucket, client, limit)`` at once, in
        one round trip; returns seconds to wait when any is over its limit.

        Fixed windows in Redis, so the limits hold across instances. A refused
        request stays counted only where it was over the limit: a seat
        flooding past its own limit does not use up its table's.
        """
        now = time.time()
        slot = int(now // window)
        keys = [rate_key(bucket, client, slot) for bucket, client, _ in hits]
        # No MULTI: the keys may live on different cluster slots, and each
        # INCR is atomic on its own.
        with self.r.pipeline(transaction=False) as p:
            for key in keys:
                p.incr(key)
                p.expire(key, window + 1)
            counts = p.execute()[::2]
        over = [count > limit for count, (_, _, limit) in zip(counts, hits, strict=True)]
        if not any(over):
            return None
        if not all(over):
            with self.r.pipeline(transaction=False) as p:
                for key, refused in zip(keys, over, strict=True):
                    if not refused:
                        p.decr(key)
                p.execute()
        return max(1, int((slot + 1) * window - now) + 1)

    # -- presence -------------------------------------------------------------

    def presence_touch(self, table_id: str, member: str, now: float | None = None) -> None:
        """Marks one socket (``<seat>/<socket id>``) as heard from just now."""
        now = time.time() if now is None else now
        key = presence_key(table_id)
        with self.r.pipeline(transaction=False) as p:
            p.zadd(key, {member: now})
            p.zremrangebyscore(key, "-inf", now - PRESENCE_TTL)
            # Outlives its members by a little; a table nobody watches leaves nothing behind.
            p.expire(key, int(PRESENCE_TTL) + 5)
            p.execute()

    def presence_drop(self, table_id: str, member: str, announce: bool = True) -> None:
        """Forgets one socket; ``announce`` tells every instance's phones."""
        with self.r.pipeline(transaction=False) as p:
            p.zrem(presence_key(table_id), member)
            if announce:
                p.publish(CHANNEL, dumps({"t": table_id, "p": 1}))
            p.execute()

    def presence_announce(self, table_id: str) -> None:
        self.r.publish(CHANNEL, dumps({"t": table_id, "p": 1}))

    def present(self, table_id: str, now: float | None = None) -> set[str]:
        """The seats with at least one socket heard from within ``PRESENCE_TTL``."""
        now = time.time() if now is None else now
        members = self.r.zrangebyscore(presence_key(table_id), now - PRESENCE_TTL, "+inf")
        return {str(_text(m)).rpartition("/")[0] for m in cast(list[str], members)}

    # -- fan-out --------------------------------------------------------------

    def listen(self, on_change: Callable[[str, int], None], on_resync: Callable[[], None],
               stop: threading.Event, on_down: Callable[[], None] | None = None,
               ready: threading.Event | None = None,
               on_presence: Callable[[str], None] | None = None) -> None:
        """Blocking loop: calls ``on_change(table_id, version)`` per change, and
        ``on_presence(table_id)`` when a socket of the table opened or closed.

        Reconnects with backoff when Redis goes away; after a reconnect it calls
        ``on_resync`` because changes may have been missed meanwhile.
        """
        delay = 0.2
        first = True
        while not stop.is_set():
            pubsub = self.r.pubsub()
            try:
                pubsub.subscribe(CHANNEL)
                # Wait for the server's confirmation: only then is no change missed.
                while pubsub.get_message(timeout=1.0) is None and not stop.is_set():
                    pass
                if ready is not None:
                    ready.set()
                if not first:
                    on_resync()
                first = False
                delay = 0.2
                while not stop.is_set():
                    msg = pubsub.get_message(timeout=1.0)
                    if msg is None or msg.get("type") != "message":
                        continue
                    try:
                        data = loads(msg["data"])
                        if "p" in data:
                            if on_presence is not None:
                                on_presence(str(data["t"]))
                        else:
                            on_change(str(data["t"]), int(data["v"]))
                    except Exception:  # one bad message or socket must not stop fan-out
                        log.exception("fan-out of a change failed")
            except (redis.RedisError, OSError) as exc:
                log.warning("pub/sub connection lost (%s); retrying in %.1fs", type(exc).__name__, delay)
                if on_down is not None and delay == 0.2:  # once per outage
                    on_down()
                stop.wait(delay)
                delay = min(delay * 2, 5.0)
            finally:
                try:
                    pubsub.close()
                except Exception:  # closing a dead connection may fail; nothing to do
                    pass

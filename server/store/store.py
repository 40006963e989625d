"""Everything Tablemate keeps in Redis: atomic updates, TTL, presence, fan-out.

No other module talks to Redis; the key layout and the change messages are
described in ``server/store/keys.py``, the one-round-trip commit in ``server/store/commit.py``.
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

import redis
from redis._parsers import _RESP2Parser

from server.model import LogEntry, TableDoc
from server.store.commit import CHANGED, DONE, GONE, RATED, RECORDED, Change, Committer, encode
from server.store.keys import (
    CHANNEL,
    code_key,
    doc_key,
    dumps,
    loads,
    log_key,
    presence_key,
    rate_key,
    req_key,
    split_change,
)
from server.store.keys import text as _text
from server.store.presence import PRESENCE_TTL, Presence
from server.store.resp import Lean, Subscription

# Kept importable from here: the tests and older callers name the keys through the store.
__all__ = ["CHANNEL", "PRESENCE_TTL", "Commit", "Conflict", "Primed", "Store", "Tx", "code_key", "doc_key",
           "dumps", "loads", "log_key", "presence_key", "rate_key", "req_key"]

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 200

R = TypeVar("R")


#: Tables whose latest document a process keeps (``Latest``): ~6 KB each.
LATEST_TABLES = 4096


class Conflict(Exception):
    """Raised by ``update`` when the table stayed too contended to commit
    within ``MAX_ATTEMPTS`` (nothing was written)."""


class RateLimited(Exception):
    """Raised by ``update`` when a rate counter it was given is over its
    limit (nothing was written); ``wait``: seconds until the next window."""

    def __init__(self, wait: int) -> None:
        super().__init__(wait)
        self.wait = wait


class Latest:
    """The newest document this process has seen of the tables it writes
    (its own commits, and every instance's through the change messages, which
    carry the document): an action starts from it instead of reading the
    table. Being behind costs nothing but a round trip: the commit compares
    the stored document with the one the change was built on, and a refused
    commit reads the table and runs again (``Store.update``)."""

    def __init__(self, size: int = LATEST_TABLES) -> None:
        self.size = size
        self.docs: dict[str, tuple[int, str]] = {}
        self.lock = threading.Lock()
        #: Kept only while this process hears every change (its listener is
        #: subscribed): a process that does not could keep a copy for good.
        self.live = False

    def start(self) -> None:
        """The listener is subscribed: from now on no change goes unheard."""
        with self.lock:
            self.docs.clear()  # anything kept before may have missed changes
            self.live = True

    def stop(self) -> None:
        """The listener lost its subscription: changes may go unheard."""
        with self.lock:
            self.live = False
            self.docs.clear()

    def get(self, table_id: str) -> str | None:
        found = self.docs.get(table_id) if self.live else None
        return found[1] if found is not None else None

    def put(self, table_id: str, version: int, raw: str) -> None:
        """Keeps ``raw`` unless a newer version is kept already."""
        if not self.live:
            return
        with self.lock:
            held = self.docs.pop(table_id, None)
            if held is not None and held[0] > version:
                raw, version = held[1], held[0]
            self.docs[table_id] = (version, raw)
            if len(self.docs) > self.size:
                del self.docs[next(iter(self.docs))]  # the one written longest ago

    def seen(self, table_id: str, version: int, raw: str | None) -> None:
        """A change message: kept only for a table already held (the process
        writes it), and forgotten when the message has no document."""
        held = self.docs.get(table_id)
        if held is None or held[0] >= version:
            return
        if raw is None:
            self.drop(table_id)
        else:
            self.put(table_id, version, raw)

    def drop(self, table_id: str) -> None:
        with self.lock:
            self.docs.pop(table_id, None)


@dataclass
class Commit(Generic[R]):
    """What one update writes, all at once (``server/store/commit.py``); ``doc=None`` writes nothing."""

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
    #: The engine state ``doc["state"]`` encodes, as an object, when the update
    #: made it: this process's fan-out sends from it (``Store.wrote``) instead of
    #: decoding it again. Engine states are never changed in place.
    state: Any = None


class States:
    """The engine state, as an object, of the version of a table this process
    last committed, for the table's next action: decoding it from the document
    was ~8 % of an action (``bench/action_cpu.py``). A state is found only for
    the very version it was made at (a version is one document: the commit
    compares), and engine states are never changed in place, so sharing it is
    safe. Bounded like ``Latest``."""

    def __init__(self, size: int = LATEST_TABLES) -> None:
        self.size = size
        self.held: dict[str, tuple[int, Any]] = {}
        self.lock = threading.Lock()

    def get(self, table_id: str, version: int) -> Any:
        found = self.held.get(table_id)
        return found[1] if found is not None and found[0] == version else None

    def put(self, table_id: str, version: int, state: Any) -> None:
        with self.lock:
            held = self.held.pop(table_id, None)
            if held is not None and held[0] > version:
                version, state = held
            self.held[table_id] = (version, state)
            if len(self.held) > self.size:
                del self.held[next(iter(self.held))]  # the one committed longest ago


@dataclass
class Tx:
    """The read side of an update: the document and lazy reads.

    The reads are plain reads; the commit checks that the document is still
    the one they were made at (every write of the log or the request records
    also writes the document). A request id is not read at all: it counts as
    unseen (``assumed``) and the commit checks that, or brings its record
    back (``known``) for the next attempt.
    """

    r: Any
    table_id: str
    doc: TableDoc
    raw: str = field(default="", repr=False)
    known: dict[str, Any] = field(default_factory=dict, repr=False)
    assumed: list[str] = field(default_factory=list, repr=False)
    _log: list[LogEntry] | None = field(default=None, repr=False)

    def copy(self) -> TableDoc:
        """A private copy of the document to change (parsing the JSON again is
        several times faster than ``copy.deepcopy``)."""
        return cast(TableDoc, loads(self.raw))

    def cached_result(self, request_id: str) -> Any:
        """What ``Commit.request`` recorded for ``request_id``; None if unseen."""
        if request_id in self.known:
            return self.known[request_id]
        if request_id not in self.assumed:
            self.assumed.append(request_id)
        return None

    def stale_requests(self, before: int) -> list[str]:
        """The request_ids recorded at a version below ``before`` (a record
        without one predates the window and counts as stale)."""
        found = self.r.hgetall(req_key(self.table_id))
        return [rid for rid, raw in found.items() if loads(raw).get("v", 0) < before]

    def log(self) -> list[LogEntry]:
        if self._log is None:
            self._log = [loads(x) for x in self.r.lrange(log_key(self.table_id), 0, -1)]
        return self._log


@dataclass
class Primed(Generic[R]):
    """An update's function with the raw document its caller has just read,
    so the first attempt needs no read of its own (one round trip in all)."""

    fn: Callable[[Tx], Commit[R]]
    raw: str
    #: ``raw`` parsed, when the caller has it and changes nothing in it: the
    #: first attempt's ``Tx.doc`` (a table's document parses in ~8 µs, and an
    #: action's caller has parsed it to check the seat before the update).
    doc: TableDoc | None = None

    def __call__(self, tx: Tx) -> Commit[R]:
        return self.fn(tx)


#: The fixed window (s) of every rate counter.
RATE_WINDOW = 60


def _wait(now: float, window: int) -> int:
    """Seconds until the rate window after the one ``now`` is in."""
    return max(1, int((int(now // window) + 1) * window - now) + 1)


class Store(Presence):
    def __init__(self, client: redis.Redis, ttl: int) -> None:
        self.r = client
        self.ttl = ttl
        self.lean = None if self.embedded else Lean.for_client(client)
        self.committer = Committer(client, self.embedded, self.lean)
        self.latest = Latest()
        self.states = States()
        #: Called with each document this process has just committed (table id,
        #: version, the document, its engine state or None), before the change
        #: message comes back: the hub pushes it to this process's phones at once
        #: (``Hub.wrote``).
        self.wrote: Callable[[str, int, TableDoc, Any], None] | None = None
        #: The commits this process has sent and not yet heard back: (table id,
        #: version) → the change message if it came first, else None. Redis
        #: writes a script's PUBLISH to the subscriber before the script's reply
        #: to its caller, so the listener would usually see this process's own
        #: change first and fan it out by parsing the document and decoding its
        #: engine state again; it leaves it to the commit's ``wrote`` instead
        #: (and hands it on itself if the commit fails after all).
        self.in_flight: dict[tuple[str, int], str | None] = {}
        self.in_flight_lock = threading.Lock()
        self.on_commit: Callable[[str, int, str | None], None] | None = None

    @classmethod
    def connect(cls, url: str | None, ttl: int) -> Store:
        if url:
            # A blocking pool: under a burst, greenlets queue for a connection
            # instead of failing with "too many connections". Redis runs one
            # command at a time, so more connections add no throughput; a
            # connect storm of 5,000 phones queues for a while (at 5 s some
            # phones were closed with 1013, and their reconnects made it worse).
            pool = redis.BlockingConnectionPool.from_url(
                # redis-py's own parser, not hiredis's, although hiredis is
                # installed (for server/store/resp.py): under gevent hiredis's parser
                # polls every pooled connection taken, which cost more than its
                # parsing saved (docs/performance.md, "Not hiredis").
                url, parser_class=_RESP2Parser,
                decode_responses=True, socket_timeout=5, socket_connect_timeout=3,
                health_check_interval=30, max_connections=int(os.environ.get("TABLEMATE_REDIS_POOL", "256")),
                timeout=float(os.environ.get("TABLEMATE_REDIS_POOL_TIMEOUT", "30")),
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
        raw = _text(self.r.get(doc_key(table_id)))
        if not raw:
            return None
        doc = cast(TableDoc, loads(raw))
        # Kept for the table's next action (a phone's socket loads its table
        # first): without it that action read the table again.
        self.latest.put(table_id, int(doc["version"]), raw)
        return doc

    def log(self, table_id: str) -> list[LogEntry]:
        return [loads(x) for x in self.r.lrange(log_key(table_id), 0, -1)]

    def log_tail(self, table_id: str, n: int) -> list[LogEntry]:
        """The last ``n`` log entries, oldest first."""
        return [loads(x) for x in self.r.lrange(log_key(table_id), -n, -1)] if n > 0 else []

    def load_raw(self, table_id: str) -> str | None:
        """The document's JSON as stored, for ``Primed``."""
        return _text(self.r.get(doc_key(table_id)))

    def latest_raw(self, table_id: str) -> str | None:
        """The newest document this process knows of (``Latest``), else as
        stored: for ``Primed``, which may start from a document one change
        behind (its commit then reads the table and runs again)."""
        raw = self.latest.get(table_id)
        if raw is None:
            raw = self.load_raw(table_id)
            if raw is not None:
                self.latest.put(table_id, int(loads(raw)["version"]), raw)
        return raw

    def update(self, table_id: str, fn: Callable[[Tx], Commit[R]],
               hits: Sequence[tuple[str, str, int]] = ()) -> R:
        """Read-modify-write of one table with optimistic locking.

        ``fn`` sees the current document and returns a ``Commit``; if another
        writer committed in between, the commit is refused and ``fn`` runs
        again on the new document. ``fn`` raises to refuse (nothing is
        written). Returns ``Commit.result``. A ``Commit`` whose ``doc`` is None
        writes nothing. Raises ``Conflict`` after ``MAX_ATTEMPTS`` lost races.
        A ``Primed`` function starts from its document: one round trip when
        nobody else wrote in between.

        ``hits`` (as for ``hit_many``) are counted once per call: with the
        write, in the same round trip, or by ``hit_many`` when nothing is
        written (a refusal, a retry answered from its record). Over a limit,
        nothing is written and ``RateLimited`` is raised instead.
        """
        try:
            return self._update(table_id, fn, hits)
        except (RateLimited, KeyError):
            raise
        except Exception:
            self._count_unwritten(hits)
            raise

    def _count_unwritten(self, hits: Sequence[tuple[str, str, int]]) -> None:
        if hits:
            wait = self.hit_many(hits)
            if wait is not None:
                raise RateLimited(wait)

    def _update(self, table_id: str, fn: Callable[[Tx], Commit[R]],
                hits: Sequence[tuple[str, str, int]]) -> R:
        raw = fn.raw if isinstance(fn, Primed) else None
        parsed = fn.doc if isinstance(fn, Primed) else None
        # A primed document may be this process's kept copy (Latest), one change
        # behind: a commit finds that out itself, but a refusal or a write-nothing
        # answer made on it is checked against the stored document first.
        verified = raw is None
        known: dict[str, Any] = {}
        now = time.time()
        counters = [(rate_key(b, c, int(now // RATE_WINDOW)), limit) for b, c, limit in hits]
        for attempt in range(MAX_ATTEMPTS):
            if raw is None:
                raw = self.load_raw(table_id)
                verified = True
                if raw is None:
                    self.latest.drop(table_id)
                    raise KeyError(table_id)
            tx = Tx(self.r, table_id, loads(raw) if parsed is None else parsed, raw, known)
            parsed = None  # only the first attempt's document was given
            refused: Exception | None = None
            try:
                commit: Commit[R] | None = fn(tx)
            except Exception as exc:
                commit, refused = None, exc
            if commit is None or commit.doc is None:
                # Nothing to write: a refusal, or an answer (a replay's). It may
                # come of a request id taken for unseen that has a record after
                # all (a retry of an applied action is "not your turn" now), or
                # of a kept document that is no longer the stored one: then fn
                # runs again.
                if self._recorded(tx):
                    continue
                if not verified:
                    stored, verified = self._stored(table_id), True
                    if stored != raw:
                        raw, known = stored, {}
                        continue
                if refused is not None:
                    raise refused
                assert commit is not None
                self._count_unwritten(hits)
                return commit.result
            change = encode(table_id, raw, commit, tx.assumed, counters, RATE_WINDOW)
            status, found = self._run(change)
            if status == DONE:
                self.latest.put(table_id, change.version, change.doc.decode())
                if commit.state is not None:
                    self.states.put(table_id, change.version, commit.state)
                if self.wrote is not None:
                    self.wrote(table_id, change.version, commit.doc, commit.state)
                return commit.result
            if status == RATED:
                raise RateLimited(_wait(now, RATE_WINDOW))
            if status == GONE:
                self.latest.drop(table_id)
                raise KeyError(table_id)
            if status == RECORDED:
                # The document is unchanged: run again at once, knowing the records.
                known.update({rid: loads(rec) for rid, rec in found.items()})
                continue
            assert status == CHANGED
            raw, known = None, {}
            # Jittered backoff, with the connection back in the pool, so twenty
            # phones hammering one table all get through.
            time.sleep(random.uniform(0, 0.001 * min(attempt + 1, 20)))
        raise Conflict(f"table {table_id} too contended")

    def _run(self, change: Change) -> tuple[int, dict[str, Any]]:
        """``committer.run``, with this process's listener told to leave the
        change's message to this call (``in_flight``)."""
        key = (change.table_id, change.version)
        with self.in_flight_lock:
            # setdefault: another greenlet of this process may be committing the
            # same version (built on the same document); its message is kept.
            self.in_flight.setdefault(key, None)
        status: int | None = None
        try:
            status, found = self.committer.run(change, self.ttl)
            return status, found
        finally:
            with self.in_flight_lock:
                message = self.in_flight.pop(key, None)
            # Committed but not heard back (the link failed after the script
            # ran), or nobody here pushes commits: the message is the only news
            # of it, so it goes out as the listener would have sent it.
            if message is not None and self.on_commit is not None and (status != DONE or self.wrote is None):
                self.on_commit(change.table_id, change.version, message)

    def _mine(self, table_id: str, version: int, raw: str | None) -> bool:
        """Whether a change message is of a commit this process is still
        waiting on (then kept for it, see ``in_flight``)."""
        with self.in_flight_lock:
            key = (table_id, version)
            if key not in self.in_flight:
                return False
            self.in_flight[key] = raw
            return True

    def _stored(self, table_id: str) -> str:
        """The stored document (kept in ``latest``); KeyError when gone."""
        stored = self.load_raw(table_id)
        if stored is None:
            self.latest.drop(table_id)
            raise KeyError(table_id)
        self.latest.put(table_id, int(loads(stored)["version"]), stored)
        return stored

    def _recorded(self, tx: Tx) -> bool:
        """Whether a request id ``fn`` took for unseen has a record after all
        (then ``tx.known`` holds it); a write checks this in its commit."""
        if not tx.assumed:
            return False
        seen = self.r.hmget(req_key(tx.table_id), tx.assumed)
        found = {rid: loads(rec) for rid, rec in zip(tx.assumed, seen, strict=True) if rec is not None}
        tx.known.update(found)
        return bool(found)

    # -- rate limits ----------------------------------------------------------

    def hit(self, bucket: str, client: str, limit: int, window: int = RATE_WINDOW) -> int | None:
        """Counts one request; returns seconds to wait when over ``limit``."""
        return self.hit_many([(bucket, client, limit)], window)

    def hit_many(self, hits: Sequence[tuple[str, str, int]], window: int = RATE_WINDOW) -> int | None:
        """Counts one request in every ``(bucket, client, limit)`` at once, in
        one round trip; returns seconds to wait when any is over its limit.

        Fixed windows in Redis, so the limits hold across instances. A refused
        request stays counted only where it was over the limit: a seat
        flooding past its own limit does not use up its table's.
        """
        now = time.time()
        keys = [rate_key(bucket, client, int(now // window)) for bucket, client, _ in hits]
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
        return _wait(now, window)

    # -- fan-out --------------------------------------------------------------

    def listen(self, on_change: Callable[[str, int], None], on_resync: Callable[[], None],
               stop: threading.Event, on_down: Callable[[], None] | None = None,
               ready: threading.Event | None = None,
               on_presence: Callable[[str], None] | None = None,
               on_commit: Callable[[str, int, str | None], None] | None = None) -> None:
        """Blocking loop: calls ``on_change(table_id, version)`` per change (or
        ``on_commit(table_id, version, raw document or None)`` when given), and
        ``on_presence(table_id)`` when a socket of the table opened or closed.

        Reconnects with backoff when Redis goes away; after a reconnect it calls
        ``on_resync`` because changes may have been missed meanwhile.
        """
        self.on_commit = on_commit
        delay = 0.2
        first = True
        while not stop.is_set():
            feed: Feed | None = None
            try:
                feed = self.lean.subscribe(CHANNEL) if self.lean is not None else PubSubFeed(self.r)
                # Wait for the server's confirmation: only then is no change missed.
                # (Until it is, ``get`` answers None: there is no message before it.)
                while not feed.confirmed and not stop.is_set():
                    feed.get()
                self.latest.start()
                if ready is not None:
                    ready.set()
                if not first:
                    on_resync()
                first = False
                delay = 0.2
                while not stop.is_set():
                    message = feed.get()
                    if message is None:
                        continue
                    try:
                        data, raw = split_change(message)
                        if "p" not in data:
                            self.latest.seen(str(data["t"]), int(data["v"]), raw)
                        if "p" in data:
                            if on_presence is not None:
                                on_presence(str(data["t"]))
                        elif on_commit is not None:
                            if not self._mine(str(data["t"]), int(data["v"]), raw):
                                on_commit(str(data["t"]), int(data["v"]), raw)
                        else:
                            on_change(str(data["t"]), int(data["v"]))
                    except Exception:  # one bad message or socket must not stop fan-out
                        log.exception("fan-out of a change failed")
            except (redis.RedisError, OSError) as exc:
                self.latest.stop()
                log.warning("pub/sub connection lost (%s); retrying in %.1fs", type(exc).__name__, delay)
                if on_down is not None and delay == 0.2:  # once per outage
                    on_down()
                stop.wait(delay)
                delay = min(delay * 2, 5.0)
            finally:
                if stop.is_set():
                    self.latest.stop()
                if feed is not None:
                    try:
                        feed.close()
                    except Exception:  # closing a dead connection may fail; nothing to do
                        pass


class PubSubFeed:
    """The change channel through redis-py (the embedded store, TLS, a Unix
    socket): the same face as ``resp.Subscription``."""

    def __init__(self, client: Any) -> None:
        self.pubsub = client.pubsub()
        self.pubsub.subscribe(CHANNEL)
        self.confirmed = False

    def get(self) -> str | None:
        msg = self.pubsub.get_message(timeout=1.0)
        if msg is None:
            return None
        if msg.get("type") == "subscribe":
            self.confirmed = True
        if msg.get("type") != "message":
            return None
        return str(_text(msg["data"]))

    def close(self) -> None:
        self.pubsub.close()


Feed = Subscription | PubSubFeed

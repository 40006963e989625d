"""``Store``: the tables Tablemate keeps in Redis and the versioned atomic
update of one (``update``), with TTLs; presence, rate counters and the
change channel's listener are its mixins (``presence.py``, ``rates.py``,
``listen.py``). No code outside this package talks to Redis; the key layout
and the change messages are ``keys.py``'s, the one-round-trip commit
``commit.py``'s.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, cast

import redis
from redis._parsers import _RESP2Parser

from server.model import LogEntry, TableDoc
from server.store import instances
from server.store.cache import Latest, States
from server.store.commit import CHANGED, DONE, GONE, RATED, RECORDED, Change, Committer, encode
from server.store.keys import (
    channel_key,
    code_key,
    doc_key,
    dumps,
    loads,
    log_key,
    rate_key,
    req_key,
    version_key,
)
from server.store.keys import text as _text
from server.store.listen import Callbacks, Listener
from server.store.presence import Presence
from server.store.rates import RATE_WINDOW, Rates, wait_for
from server.store.resp import Lean
from server.store.tx import Commit, Primed, R, Tx

#: ``REDIS_URL`` schemes that name a Redis Cluster, and the scheme of a seed
#: node for redis-py's ``RedisCluster`` (which takes ``redis://``/``rediss://``).
CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}


def cluster_seed(url: str) -> str | None:
    """The seed node's URL when ``url`` names a cluster, else None.

    >>> cluster_seed("redis+cluster://:pw@10.0.0.5:7000"), cluster_seed("redis://localhost")
    ('redis://:pw@10.0.0.5:7000', None)
    """
    scheme, sep, rest = url.partition("://")
    return f"{CLUSTER_SCHEMES[scheme]}://{rest}" if sep and scheme in CLUSTER_SCHEMES else None


#: What ``Store.update`` tells of a commit once Redis has it: table id,
#: version, the document, its engine state (None when the update made none).
Wrote = Callable[[str, int, TableDoc, Any], None]

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 200


class Conflict(Exception):
    """Raised by ``update`` when the table stayed too contended to commit
    within ``MAX_ATTEMPTS`` (nothing was written)."""


class RateLimited(Exception):
    """Raised by ``update`` when a rate counter it was given is over its
    limit (nothing was written); ``wait``: seconds until the next window."""

    def __init__(self, wait: int) -> None:
        super().__init__(wait)
        self.wait = wait


def pool_timeout() -> float:
    """Seconds a command waits for a free pooled connection (``TABLEMATE_REDIS_POOL_TIMEOUT``)."""
    return float(os.environ.get("TABLEMATE_REDIS_POOL_TIMEOUT", "30"))


class Store(Presence, Listener, Rates):
    def __init__(self, client: redis.Redis, ttl: int) -> None:
        self.r = client
        self.ttl = ttl
        self.lean = None if self.embedded or self.cluster else Lean.for_client(client)
        # TABLEMATE_REDIS_WAIT: replicas a change must reach before it is
        # acknowledged (docs/deploy.md, "During a fault"); not on the embedded store.
        # Not on the embedded store, nor through redis-py alone (a Unix socket).
        wait = int(os.environ.get("TABLEMATE_REDIS_WAIT", "0")) if self.lean or self.cluster else 0
        self.committer = Committer(client, self.lean, replicas=wait)
        self.latest = Latest()
        self.states = States()
        #: The commits this process has sent and not yet heard back: (table id,
        #: version) → the change message if it came first, else None. Redis
        #: writes a script's SPUBLISH to the subscriber before the script's reply
        #: to its caller, so the listener would usually see this process's own
        #: change first and fan it out by parsing the document and decoding its
        #: engine state again; it leaves it to the commit's ``wrote`` instead
        #: (and hands it on itself if the commit fails after all).
        self.in_flight: dict[tuple[str, int], str | None] = {}
        self.in_flight_lock = threading.Lock()
        self.listener: Callbacks | None = None
        #: Changes this process has committed (``stats``).
        self.commits = 0

    @classmethod
    def connect(cls, url: str | None, ttl: int) -> Store:
        seed = cluster_seed(url) if url else None
        if seed is not None:
            # A Redis Cluster, named by any one of its masters: the client finds
            # the others and sends each key (and each table's channel) to the
            # node that owns its slot. Its pools are per node.
            from redis.cluster import RedisCluster

            # Each node's pool blocks like the single Redis's (below): past
            # TABLEMATE_REDIS_POOL a burst waits up to the pool timeout for a free
            # connection, where redis-py's default pool failed it at once.
            client: Any = RedisCluster.from_url(
                seed, decode_responses=True, socket_timeout=5, socket_connect_timeout=3,
                max_connections=int(os.environ.get("TABLEMATE_REDIS_POOL", "256")),
                connection_pool_class=redis.BlockingConnectionPool, timeout=pool_timeout())
            return cls(client, ttl)
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
                # parsing saved (docs/performance.md, "Why each fast path exists").
                url, parser_class=_RESP2Parser,
                decode_responses=True, socket_timeout=5, socket_connect_timeout=3,
                health_check_interval=30, max_connections=int(os.environ.get("TABLEMATE_REDIS_POOL", "256")),
                timeout=pool_timeout(),
            )
            client = redis.Redis(connection_pool=pool)
        else:
            # The embedded store: an in-process Redis, so one command runs the
            # app. It runs the store's Lua scripts as Redis does (lupa).
            import fakeredis

            client = fakeredis.FakeRedis(server=fakeredis.FakeServer(version=(7,)), decode_responses=True)
        return cls(client, ttl)

    @property
    def embedded(self) -> bool:
        return type(self.r).__module__.startswith("fakeredis")

    @property
    def cluster(self) -> bool:
        return type(self.r).__name__ == "RedisCluster"

    def stats(self) -> dict[str, int]:
        """This process's own figures: what its listener heard, and its commits."""
        return {**self.heard(), "commits": self.commits}

    def ping(self) -> bool:
        try:
            return bool(self.r.ping())
        except redis.RedisError:
            return False

    def instances_beat(self, me: str) -> list[str]:
        """Instance ``me`` is alive; back, every instance alive (table routing)."""
        return instances.beat(self.r, me)

    # -- tables ---------------------------------------------------------------

    def create(self, doc: TableDoc, entry: LogEntry) -> bool:
        """Stores a new table; False if the id is taken (never in practice)."""
        tid = doc["id"]
        if not self.r.set(doc_key(tid), dumps(doc), nx=True, ex=self.ttl):
            return False
        # One slot (the table's tag): no MULTI needed, and none across slots.
        with self.r.pipeline(transaction=False) as p:
            p.set(version_key(tid), doc["version"], ex=self.ttl)
            p.rpush(log_key(tid), dumps(entry))
            p.expire(log_key(tid), self.ttl)
            p.spublish(channel_key(tid), dumps({"t": tid, "v": doc["version"]}))
            p.execute()
        return True

    def reserve_code(self, code: str, table_id: str) -> bool:
        return bool(self.r.set(code_key(code), table_id, nx=True, ex=self.code_ttl))

    def code_table(self, code: str) -> str | None:
        """The table a join code names; each lookup keeps the code for another
        ``code_ttl`` (a code is its own key, on its own slot: the table's
        commits cannot refresh it on a cluster; the caller checks that the
        table itself is still there)."""
        return _text(self.r.getex(code_key(code), ex=self.code_ttl))

    @property
    def code_ttl(self) -> int:
        """How long a join code lives after its table's creation or its last
        lookup: four table lifetimes, longer than any evening of play (the
        code outlives its table only to say it has gone)."""
        return 4 * self.ttl

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
               hits: Sequence[tuple[str, str, int]] = (), wrote: Wrote | None = None) -> R:
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

        ``wrote`` is called with what was committed (table id, version, the
        document, its engine state or None) as soon as Redis has it, before
        this returns and before the change message comes back: the caller's
        fan-out pushes it to this process's phones at once, and the listener
        then skips that message (it hands it on only when nobody is told).
        """
        try:
            return self._update(table_id, fn, hits, wrote)
        except (RateLimited, KeyError):
            raise
        except Exception:
            self._count_unwritten(hits, table_id)
            raise

    def _count_unwritten(self, hits: Sequence[tuple[str, str, int]], table_id: str) -> None:
        if hits:
            wait = self.hit_many(hits, table=table_id)
            if wait is not None:
                raise RateLimited(wait)

    def _update(self, table_id: str, fn: Callable[[Tx], Commit[R]],
                hits: Sequence[tuple[str, str, int]], wrote: Wrote | None) -> R:
        raw = fn.raw if isinstance(fn, Primed) else None
        parsed = fn.doc if isinstance(fn, Primed) else None
        # A primed document may be this process's kept copy (Latest), one change
        # behind: a commit finds that out itself, but a refusal or a write-nothing
        # answer made on it is checked against the stored document first.
        verified = raw is None
        known: dict[str, Any] = {}
        now = time.time()
        counters = [(rate_key(b, c, int(now // RATE_WINDOW), table_id), limit) for b, c, limit in hits]
        for attempt in range(MAX_ATTEMPTS):
            if raw is None:
                raw = self.load_raw(table_id)
                verified = True
                if raw is None:
                    self.latest.drop(table_id)
                    raise KeyError(table_id)
            tx = Tx(self.r, table_id, loads(raw) if parsed is None else parsed, raw, known)
            parsed = None  # only the first attempt's document was given
            base = int(tx.doc["version"])  # what the commit checks is still stored
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
                self._count_unwritten(hits, table_id)
                return commit.result
            change = encode(table_id, base, commit, tx.assumed, counters, RATE_WINDOW)
            status, found = self._run(change, wrote)
            if status == DONE:
                self.commits += 1
                self.latest.put(table_id, change.version, change.doc.decode())
                if commit.state is not None:
                    self.states.put(table_id, change.version, commit.state)
                if wrote is not None:
                    wrote(table_id, change.version, commit.doc, commit.state)
                return commit.result
            if status == RATED:
                raise RateLimited(wait_for(now, RATE_WINDOW))
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

    def _run(self, change: Change, wrote: Wrote | None = None) -> tuple[int, dict[str, Any]]:
        """``committer.run``, with this process's listener told to leave the
        change's message to this call (``in_flight``), which ``wrote`` tells."""
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
            listener = self.listener
            if message is not None and listener is not None and (status != DONE or wrote is None):
                listener.on_change(change.table_id, change.version, message)

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

    # -- fan-out --------------------------------------------------------------

"""``Store``: the tables Tablemate keeps in Redis, with TTLs, made once at
connect: the client path is chosen here (``paths.py``). What one action's
write runs on, the reads its loop starts from and the compare-and-set
``commit``, is ``Store.writes`` (``writes.py``: ``Writes``, with what a
process keeps of its tables; its methods are the store's); here are the rest of the tables' reads and
writes (create, load, log, join codes, the pending draw's links and its
frame, request records, the instances alive) and its parts, each with a
job of its own: ``presence`` (who is connected, ``presence.py``), ``rates``
(rate counters, ``rates.py``) and ``changes`` (the listener on the change
channels, ``listen.py``). The store never calls back up: it answers, and the
caller acts. No code outside this package talks to Redis; the key layout and
the change messages are ``keys.py``'s, the one-round-trip commit
``commit.py``'s.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any, cast

import redis

from server.errors import StoreDown
from server.model import LogEntry, TableDoc
from server.store import instances
from server.store.connect import client_for
from server.store.keys import (
    channel_key,
    code_key,
    doc_key,
    dumps,
    links_key,
    loads,
    log_key,
    rate_key,
    req_key,
    version_key,
)
from server.store.keys import text as _text
from server.store.links import RATED as RATED_LINK
from server.store.links import DrawFrame, Link, Taken, draw_frame, fields_of, take
from server.store.listen import Listener
from server.store.paths import Cluster, Plain, path_for
from server.store.presence import Presence
from server.store.rates import RATE_WINDOW, Rates, wait_for
from server.store.writes import Writes


class Store:
    def __init__(self, client: redis.Redis, ttl: int) -> None:
        path = path_for(client)
        # TABLEMATE_REDIS_WAIT: replicas a change must reach before it is
        # acknowledged (docs/deploy.md, "During a fault"); not on the embedded
        # store, nor through redis-py alone (a Unix socket).
        wait = int(os.environ.get("TABLEMATE_REDIS_WAIT", "0")) if not isinstance(path, Plain) \
            or isinstance(path, Cluster) else 0
        self.r, self.ttl, self.path = client, ttl, path
        #: The store's own client, on the path that has one.
        self.lean = path.lean
        #: What one action's write runs on (``writes.py``): its reads, the
        #: compare-and-set and what this process keeps of its tables. Its
        #: methods are the store's own, with no forwarder between: the write
        #: loop calls ``writes.py`` straight from ``service/write.py``. Being
        #: bound here, they are replaced on an instance (a test's wrapper),
        #: never by a subclass's method of the same name.
        w = self.writes = Writes(client, ttl, path, wait)
        self.commit, self.records, self.stored = w.commit, w.records, w.stored
        self.load_raw, self.latest_raw, self.parsed = w.load_raw, w.latest_raw, w.parsed
        self.latest, self.states, self.shared, self.in_flight = w.latest, w.states, w.shared, w.in_flight
        self.committer = w.committer
        #: Who is connected (``presence.py``), the rate counters (``rates.py``)
        #: and the listener on the tables' changes (``listen.py``): the parts
        #: the live adapter and the limits use, each with its own job.
        self.presence = Presence(client, path)
        self.rates = Rates(client)
        self.changes = w.changes = Listener(path, self.latest, self.in_flight)

    @classmethod
    def connect(cls, url: str | None, ttl: int) -> Store:
        """The store on the client ``url`` names (``connect.client_for``)."""
        return cls(client_for(url), ttl)

    @property
    def embedded(self) -> bool:
        return type(self.r).__module__.startswith("fakeredis")

    @property
    def cluster(self) -> bool:
        return type(self.r).__name__ == "RedisCluster"

    @property
    def commits(self) -> int:
        """Changes this process has committed."""
        return self.writes.commits

    def stats(self) -> dict[str, int]:
        """This process's own figures: what its listener heard, and its commits."""
        return {**self.changes.heard(), "commits": self.commits}

    def ping(self) -> bool:
        try:
            return bool(self.r.ping())
        except StoreDown:
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

    # -- the pending draw's links (links.py) ------------------------------------

    def take_link(self, table_id: str, link: Link, hits: Sequence[tuple[str, str, int]] = ()) -> Taken:
        """Keeps one link of the pending draw (``links.LINK``, one round trip,
        no version of the table), ``hits`` counted with it."""
        now = time.time()
        counters = [(rate_key(b, c, int(now // RATE_WINDOW), table_id), limit) for b, c, limit in hits]
        taken = take(self.path, table_id, link, self.ttl, counters, RATE_WINDOW)
        return Taken(taken.status, wait=wait_for(now, RATE_WINDOW)) if taken.status == RATED_LINK else taken

    def links(self, table_id: str) -> dict[str, Any]:
        """The links key's fields, parsed (``links.fields_of``)."""
        return fields_of([_text(x) for kv in self.r.hgetall(links_key(table_id)).items() for x in kv])

    def draw_frame(self, table_id: str) -> DrawFrame | None:
        """The ``draw`` frame of the draw that waits now (``links.draw_frame``),
        or None; one round trip."""
        with self.r.pipeline(transaction=False) as p:
            p.hgetall(links_key(table_id))
            p.get(version_key(table_id))
            found, version = p.execute()
        return draw_frame(fields_of([_text(x) for kv in found.items() for x in kv]), int(_text(version) or 0))

    def load_with_links(self, table_id: str) -> tuple[TableDoc | None, dict[str, Any]]:
        """The document and the links key's fields, in one round trip (one
        slot: the table's hash tag): a reader's view of a table shows the
        draw that waits (``fair.pending``)."""
        with self.r.pipeline(transaction=False) as p:
            p.get(doc_key(table_id))
            p.hgetall(links_key(table_id))
            raw, found = p.execute()
        raw = _text(raw)
        if not raw:
            return None, {}
        doc = cast(TableDoc, loads(raw))
        self.latest.put(table_id, int(doc["version"]), raw)
        return doc, fields_of([_text(x) for kv in found.items() for x in kv])

    def record_once(self, table_id: str, rid: str, record: Any) -> Any:
        """``record`` for ``rid`` unless it has one; back: the one it has."""
        key = req_key(table_id)
        with self.r.pipeline(transaction=False) as p:
            p.hsetnx(key, rid, dumps(record))
            p.hget(key, rid)
            p.expire(key, self.ttl)
            _, raw, _ = p.execute()
        return loads(raw)

    def stale_requests(self, table_id: str, before: int) -> list[str]:
        """The request_ids recorded at a version below ``before`` (a record
        without one predates the window and counts as stale)."""
        found: dict[Any, Any] = self.r.hgetall(req_key(table_id))
        return [str(_text(rid)) for rid, raw in found.items() if loads(raw).get("v", 0) < before]

"""``Store``: the tables Tablemate keeps in Redis and a plain compare-and-set
of one (``commit``; the retry loop is the service's, ``service/write.py``),
with TTLs. Its parts, each with a job of its own: ``presence`` (who is
connected, ``presence.py``), ``rates`` (rate counters, ``rates.py``) and
``changes`` (the listener on the change channels, ``listen.py``). The store
never calls back up: it answers, and the caller acts. No code outside this package talks to Redis; the key layout
and the change messages are ``keys.py``'s, the one-round-trip commit
``commit.py``'s.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import redis

from server.errors import StoreDown
from server.model import LogEntry, TableDoc
from server.store import instances
from server.store.cache import InFlight, Latest, Parsed, States
from server.store.commit import DONE, GONE, RATED, Change, Commit, Committer, encode
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
from server.store.links import (
    Announce,
    DrawFrame,
    Link,
    Taken,
    announce,
    draw_frame,
    fields_of,
    take,
)
from server.store.listen import Listener
from server.store.paths import Cluster, Plain, path_for
from server.store.presence import Presence
from server.store.rates import RATE_WINDOW, Rates, wait_for

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Verdict:
    """What ``Store.commit`` answers: ``status`` (``commit.py``'s ``DONE``,
    ``CHANGED``, ``RECORDED``, ``RATED``, ``GONE``), the version the change
    would have made, the records found (``RECORDED``: request id → record)
    and the seconds until the rate window turns (``RATED``)."""

    status: int
    version: int
    found: dict[str, Any]
    wait: int = 0


class Store:
    def __init__(self, client: redis.Redis, ttl: int) -> None:
        self.r = client
        self.ttl = ttl
        #: The one client path for scripts and the listener, chosen here (``paths.py``).
        self.path = path_for(client)
        #: The store's own client, on the path that has one.
        self.lean = self.path.lean
        # TABLEMATE_REDIS_WAIT: replicas a change must reach before it is
        # acknowledged (docs/deploy.md, "During a fault"); not on the embedded
        # store, nor through redis-py alone (a Unix socket).
        wait = int(os.environ.get("TABLEMATE_REDIS_WAIT", "0")) if not isinstance(self.path, Plain) \
            or isinstance(self.path, Cluster) else 0
        self.committer = Committer(self.path, replicas=wait)
        self.latest = Latest()
        self.states = States()
        self.shared = Parsed()
        #: Who is connected (``presence.py``), the rate counters (``rates.py``)
        #: and the listener on the tables' changes (``listen.py``): the parts
        #: the live adapter and the limits use, each with its own job.
        self.presence = Presence(client, self.path)
        self.rates = Rates(client)
        self.in_flight = InFlight()
        self.changes = Listener(self.path, self.latest, self.in_flight)
        #: Changes this process has committed (``stats``).
        self.commits = 0

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

    def parsed(self, table_id: str, raw: str) -> TableDoc:
        """``raw`` parsed, shared with every other caller of the same text
        (``cache.Parsed``): only to read, never to change."""
        return cast(TableDoc, self.shared.get(table_id, raw))

    def stored(self, table_id: str, keep: bool = True) -> str:
        """The stored document (with ``keep``, kept in ``latest``: that parses
        it for its version); KeyError when gone."""
        stored = self.load_raw(table_id)
        if stored is None:
            self.latest.drop(table_id)
            raise KeyError(table_id)
        if keep:
            self.latest.put(table_id, int(loads(stored)["version"]), stored)
        return stored

    def records(self, table_id: str, ids: Sequence[str]) -> dict[str, Any]:
        """The request records stored for ``ids`` (those that have one), parsed."""
        if not ids:
            return {}
        seen = self.r.hmget(req_key(table_id), list(ids))
        return {rid: loads(rec) for rid, rec in zip(ids, seen, strict=True) if rec is not None}

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

    def commit(self, table_id: str, base: int, commit: Commit[Any], assumed: list[str],
               hits: Sequence[tuple[str, str, int]] = (), told: bool = False) -> Verdict:
        """Compare-and-set: writes ``commit`` (a document) if the table is
        still at version ``base`` and none of the ``assumed`` request ids has
        a record, counting ``hits`` with the write (``commit.py``'s script,
        one round trip). Back: ``DONE``, or why not (``CHANGED``, ``RECORDED``
        with the records found, ``RATED`` with the wait, ``GONE``); nothing is
        retried here. ``told``: the caller tells this process's phones of a
        commit itself, so the listener leaves this change's message to it
        (``InFlight``); when the commit fails after the script ran (the
        link), the message is handed on as any instance's would be."""
        now = time.time()
        counters = [(rate_key(b, c, int(now // RATE_WINDOW), table_id), limit) for b, c, limit in hits]
        if commit.announce is not None:
            return self._announce(table_id, base, commit, assumed, counters, now)
        change = encode(table_id, base, commit, assumed, counters, RATE_WINDOW)
        status, found = self._run(change, told)
        if status == DONE:
            self.commits += 1
            raw = change.doc.decode()
            self.latest.put(table_id, change.version, raw)
            # The table's next action (the roll's links, the next roll) reads it parsed.
            self.shared.put(table_id, raw, commit.doc)
            if commit.state is not None:
                self.states.put(table_id, change.version, commit.state)
        elif status == GONE:
            self.latest.drop(table_id)
        return Verdict(status, change.version, {rid: loads(rec) for rid, rec in found.items()},
                       wait_for(now, RATE_WINDOW) if status == RATED else 0)

    def _announce(self, table_id: str, base: int, commit: Commit[Any], assumed: list[str],
                  counters: list[tuple[str, int]], now: float) -> Verdict:
        """``commit``'s draw held (``links.ANNOUNCE``): no version, no document
        written; the table is told by the draw frame its script publishes."""
        a: Announce = commit.announce
        assert commit.request is not None
        rid, record = commit.request
        reply = announce(self.path, table_id, base, a, rid, record, assumed, self.ttl, counters, RATE_WINDOW)
        status = int(reply[0])
        found = {str(_text(reply[k])): loads(str(_text(reply[k + 1]))) for k in range(1, len(reply), 2)}
        if status == GONE:
            self.latest.drop(table_id)
        return Verdict(status, base, found, wait_for(now, RATE_WINDOW) if status == RATED else 0)

    def _run(self, change: Change, told: bool) -> tuple[int, dict[str, Any]]:
        """``committer.run``, with this process's listener told to leave the
        change's message to this call (``InFlight``)."""
        self.in_flight.hold(change.table_id, change.version)
        status: int | None = None
        try:
            status, found = self.committer.run(change, self.ttl)
            return status, found
        finally:
            message = self.in_flight.release(change.table_id, change.version)
            # Committed but not heard back (the link failed after the script
            # ran), or nobody here pushes commits: the message is the only news
            # of it.
            if message is not None and not (told and status == DONE):
                self.changes.hand_on(change.table_id, change.version, message)

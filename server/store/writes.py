"""What one action's write runs on in the store: the reads the write loop
(``service/write.py``) starts from, the compare-and-set ``commit`` it ends
with (``Writes``, the store's part ``Store.writes``), and what a process keeps
of the tables it writes, so an action needs no read of its own: the newest
document it knows of each (``Latest``, parsed: ``Parsed``), the engine state,
as an object, of the version it last committed (``States``), and the change
messages of the commits it awaits (``InFlight``). The change itself, its
encoding and the script that writes it are ``commit.py``'s.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from server.model import TableDoc
from server.store.commit import DONE, GONE, RATED, Change, Commit, Committer, encode
from server.store.keys import doc_key, loads, rate_key, req_key
from server.store.keys import text as _text
from server.store.links import Announce, announce
from server.store.paths import Path
from server.store.rates import RATE_WINDOW, wait_for

#: Tables whose latest document a process keeps (``Latest``), as text (a few KB each).
LATEST_TABLES = 4096
#: Tables whose newest document a process keeps parsed (``Parsed``): a
#: parsed document is several times its text, and the actions that share one
#: (a roll's links) come within milliseconds, so a few of the most recent do.
PARSED_TABLES = 32


class Latest:
    """The newest document this process has seen of the tables it hears
    (``Listener.watch``: its own commits, and every instance's through the
    table's change channel, whose messages carry the document): an action
    starts from it instead of reading the table. Kept only for a watched
    table, while the listener is connected: a table this process does not
    hear could change under a kept copy for good. Being behind costs nothing
    but a round trip: the commit compares the stored version with the one the
    change was built on, and a refused commit reads the table and runs again
    (``service/write.py``)."""

    def __init__(self, size: int = LATEST_TABLES) -> None:
        self.size = size
        self.docs: dict[str, tuple[int, str]] = {}
        self.lock = threading.Lock()
        #: The tables whose every change this process hears now.
        self.heard: set[str] = set()

    def watch(self, table_id: str) -> None:
        """The table's channel is confirmed: from now on no change of it goes unheard."""
        with self.lock:
            self.heard.add(table_id)

    def unwatch(self, table_id: str) -> None:
        with self.lock:
            self.heard.discard(table_id)
            self.docs.pop(table_id, None)

    def stop(self) -> None:
        """The listener lost its connection: changes may go unheard."""
        with self.lock:
            self.heard.clear()
            self.docs.clear()

    def get(self, table_id: str) -> str | None:
        found = self.docs.get(table_id)
        return found[1] if found is not None else None

    def put(self, table_id: str, version: int, raw: str) -> None:
        """Keeps ``raw`` (of a heard table) unless a newer version is kept already."""
        if table_id not in self.heard:
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


class Parsed:
    """One parsed copy of the newest document, shared by every action that
    starts from it (``Store.parsed``): the phones' links of one roll and the
    roll after it all read the same version, and each parsed the whole
    document to find its seat (the ``Parsed`` row of docs/performance.md, "Why
    each fast path exists"). Keyed by the raw JSON itself, so a copy is
    only ever handed out for the very text it was parsed from.

    Whoever gets one only reads it (the seat, the version; ``Tx.doc``): a
    change is made on ``Tx.copy()``. ``TABLEMATE_CHECK_SHARED`` (set by the
    test suite) compares each copy with its text again when handed out, so
    a change in place fails a test instead of leaking into the next action."""

    def __init__(self, size: int = PARSED_TABLES) -> None:
        self.size = size
        self.held: dict[str, tuple[str, Any]] = {}
        self.lock = threading.Lock()
        self.check = os.environ.get("TABLEMATE_CHECK_SHARED") == "1"

    def get(self, table_id: str, raw: str) -> Any:
        found = self.held.get(table_id)
        if found is not None and (found[0] is raw or found[0] == raw):
            if self.check and loads(raw) != found[1]:
                raise AssertionError(f"table {table_id}: a shared parsed document was changed in place")
            return found[1]
        doc = loads(raw)
        self.put(table_id, raw, doc)
        return doc

    def put(self, table_id: str, raw: str, doc: Any) -> None:
        """``doc`` is ``raw`` parsed (a commit's own document, as it was encoded): shared from now on."""
        with self.lock:
            self.held.pop(table_id, None)
            self.held[table_id] = (raw, doc)
            if len(self.held) > self.size:
                del self.held[next(iter(self.held))]  # the one parsed longest ago


class States:
    """The engine state, as an object, of the version of a table this process
    last committed, for the table's next action: decoding it from the document
    is the ``States`` row of docs/performance.md, "Why each fast path exists". A state is found only for
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


class InFlight:
    """The commits this process has sent and not yet heard back: (table id,
    version) → the change message if it came first, else None. Redis writes a
    script's SPUBLISH to the subscriber before the script's reply to its
    caller, so the listener would usually see this process's own change first
    and fan it out by parsing the document and decoding its engine state
    again; it leaves it to the committing caller instead (``keep``), who
    hands it on if nobody else tells it (``Store.commit``)."""

    def __init__(self) -> None:
        self.messages: dict[tuple[str, int], str | None] = {}
        self.lock = threading.Lock()

    def hold(self, table_id: str, version: int) -> None:
        """A commit of this version is on its way: its message is left to it."""
        with self.lock:
            # setdefault: another greenlet of this process may be committing the
            # same version (built on the same document); its message is kept.
            self.messages.setdefault((table_id, version), None)

    def keep(self, table_id: str, version: int, raw: str | None) -> bool:
        """Whether a change message is of a commit this process still awaits
        (then kept for it)."""
        with self.lock:
            key = (table_id, version)
            if key not in self.messages:
                return False
            self.messages[key] = raw
            return True

    def release(self, table_id: str, version: int) -> str | None:
        """The commit of this version came back: the message kept for it, if one came."""
        with self.lock:
            return self.messages.pop((table_id, version), None)


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


class HandsOn(Protocol):
    """Whoever tells this process's phones of a change message nobody else
    tells: ``listen.Listener``, named by its face only, as the listener is
    made on this module's caches (``Latest``, ``InFlight``) and imports them."""

    def hand_on(self, table_id: str, version: int, message: str) -> None: ...


class Writes:
    """The store's side of one action's write (``Store.writes``): the reads
    the write loop needs, kept per process where they can be, and a plain
    compare-and-set of one table (``commit``; the retry loop is the
    service's). ``path`` is the client path chosen at connect (``paths.py``),
    ``replicas`` those a change must reach (``TABLEMATE_REDIS_WAIT``)."""

    #: The listener on the tables' changes, made on these caches by ``Store``
    #: and set right after.
    changes: HandsOn

    def __init__(self, client: Any, ttl: int, path: Path, replicas: int) -> None:
        self.r = client
        self.ttl = ttl
        #: The one client path for scripts and the listener, chosen at connect (``paths.py``).
        self.path = path
        self.committer = Committer(path, replicas=replicas)
        self.latest = Latest()
        self.states = States()
        self.shared = Parsed()
        self.in_flight = InFlight()
        #: Changes this process has committed (``Store.stats``).
        self.commits = 0

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
        (``Parsed``): only to read, never to change."""
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

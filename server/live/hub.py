"""Per-process fan-out: the registry of this process's sockets and what it sends them.

Each process has one ``Hub`` and one pub/sub listener, which hears the
channels of the tables this process has sockets on (a table is watched at its
first socket here and dropped at its last: ``add`` / ``remove``). A change
committed by any instance reaches the listeners of the instances with phones
at that table, with the table's document in the message; the hub builds each
seat's view of that version once, encodes it once (spectators share one), and
sends it to the seat's phones (``Frames``). Presence
(which seats have a live socket, on any instance) is pushed as ``presence``
frames, coalesced per table, without a version bump (``heard.py``); a draw
that waits for the phones' links as ``draw`` frames (``drawwatch.py``).

The hub is the service's fan-out (``wrote``, each commit of this process,
registered with ``Tables.fan_out``) and starts the listener, whose callbacks
(``Callbacks``: every instance's changes, presence, outages) are ``heard.py``'s;
it reaches the store only through the service.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from typing import Any, Protocol

from server.errors import ServiceError, StoreDown
from server.live.connection import Connection, encode_state
from server.live.drawwatch import DrawWatch
from server.live.heard import Heard
from server.live.liveness import BEAT_SLICES, REFRESH_SLICES, Liveness, refresh_slice
from server.model import TableDoc
from server.service import Callbacks, Tables
from server.service.seats import hidden
from server.service.snapshot import Common
from server.store.listen import Listener
from server.store.presence import Presence

log = logging.getLogger(__name__)


class StoreParts(Protocol):
    """What the live adapter holds of the store itself: who is connected on
    every instance and the listener on the tables' changes (both are the
    sockets' own business, and ask nothing of the rules); everything else it
    asks the service (``Tables``)."""

    @property
    def presence(self) -> Presence: ...

    @property
    def changes(self) -> Listener: ...


class Sockets:
    """This process's sockets: by table, by heartbeat slice, and by presence
    refresh slice of their tables, with each local table's presence as last
    read, newest version heard and host as pushed. The hub adds and removes
    them and pushes to them; the rounds (``liveness.py``) visit them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.conns: dict[str, set[Connection]] = defaultdict(set)
        #: The same sockets by heartbeat slice (``BEAT_SLICES``), in turn as they came.
        self.slices: list[set[Connection]] = [set() for _ in range(BEAT_SLICES)]
        #: The local tables by presence refresh slice (``REFRESH_SLICES``, by id).
        self.table_slices: list[set[str]] = [set() for _ in range(REFRESH_SLICES)]
        self.next_slice = 0
        #: Each local table's presence as last read: every change of it comes with
        #: a message (or expiry, which the sweep reads), so a push need not read it.
        self.online: dict[str, frozenset[str]] = {}
        #: Each local table's newest version this process was told of, and when.
        self.versions: dict[str, tuple[int, float]] = {}
        #: Each local table's newest document pushed here that carries a waiting
        #: draw (a change that passed it, a rename say): its version and the
        #: draw's id. The draw watch goes on past that version (live/drawwatch.py).
        self.passed: dict[str, tuple[int, int]] = {}
        #: Each local table as last pushed: its host, stand-in, and the seats whose
        #: phone could hold host powers (on their phone, not sealed or paused); the
        #: rounds time a holder without a live phone from it (``Liveness.check_host``).
        self.hosts: dict[str, tuple[str, str | None, frozenset[str]]] = {}

    def add(self, conn: Connection) -> None:
        with self.lock:
            if conn.table_id not in self.conns:
                self.table_slices[refresh_slice(conn.table_id)].add(conn.table_id)
            self.conns[conn.table_id].add(conn)
            conn.slice = self.next_slice
            self.slices[conn.slice].add(conn)
            self.next_slice = (self.next_slice + 1) % BEAT_SLICES

    def news(self, table_id: str, version: int) -> bool:
        """Whether ``version`` is newer than any this process was told of for
        a table with phones here; if so it is told of it now."""
        with self.lock:
            if table_id not in self.conns or version <= self.versions.get(table_id, (0, 0.0))[0]:
                return False
            self.versions[table_id] = (version, time.monotonic())
            return True

    def note_host(self, doc: TableDoc) -> None:
        """Keeps who holds host powers at a table, and who could, as pushed."""
        able = frozenset(s["id"] for s in doc["seats"] if s.get("phone") is not False and not hidden(s))
        with self.lock:
            if doc["id"] in self.conns:
                self.hosts[doc["id"]] = (doc["host"], doc.get("stand_in"), able)

    def note_passed(self, table_id: str, doc: TableDoc) -> None:
        """A document that carries a waiting draw (a change passed it): the
        draw watch goes on past its version (``passed``)."""
        fair = doc.get("fair")
        pending = fair.get("pending") if fair is not None else None
        if pending is None:
            return
        with self.lock:
            if doc["version"] > self.passed.get(table_id, (0, 0))[0]:
                self.passed[table_id] = (doc["version"], int(pending["draw"]))

    def of(self, table_id: str) -> list[Connection]:
        """The table's sockets here, now (a copy: sends happen outside the lock)."""
        with self.lock:
            return list(self.conns.get(table_id, ()))

    def remove(self, conn: Connection) -> bool | None:
        """Whether ``conn`` was its table's last socket here; None when it was never added."""
        with self.lock:
            self.slices[conn.slice].discard(conn)
            peers = self.conns.get(conn.table_id)
            if peers is None or conn not in peers:
                return None
            peers.discard(conn)
            if peers:
                return False
            del self.conns[conn.table_id]
            self.table_slices[refresh_slice(conn.table_id)].discard(conn.table_id)
            self.online.pop(conn.table_id, None)
            self.versions.pop(conn.table_id, None)
            self.passed.pop(conn.table_id, None)
            self.hosts.pop(conn.table_id, None)
            return True


class Frames:
    """One push's encoded ``state`` frames of a document, per seat (None:
    spectators): each built and encoded once, however many phones share it.
    Not kept past the push: keeping the latest version's frames of every
    table cost memory a phone and saved little (presence
    changes with every connect, so a connect storm would miss them anyway)."""

    def __init__(self, tables: Tables, doc: TableDoc, online: frozenset[str], state: Any = None) -> None:
        self.tables, self.doc, self.online, self.state = tables, doc, online, state
        self.by_seat: dict[str | None, bytes] = {}
        #: What every seat's snapshot shares (the state, decoded once if the
        #: push was not given it; the seat list; the engine's viewer; the
        #: table's fair dice, waits and evening), built at the first seat.
        self.common: Common | None = None

    def get(self, player: str | None) -> bytes:
        data = self.by_seat.get(player)
        if data is None:
            online = set(self.online)
            if self.common is None:
                self.common = self.tables.common(self.doc, self.state, online)
            data = self.by_seat[player] = encode_state(
                self.tables.snapshot(self.doc, player, online=online, shared=self.common))
        return data


class Hub:
    def __init__(self, tables: Tables, store: StoreParts) -> None:
        self.tables = tables
        #: Who is connected, on every instance (``store.presence``).
        self.presence = store.presence
        #: The listener on the tables' changes (``store.changes``).
        self.changes = store.changes
        #: This process's sockets, which the fan-out sends to and the rounds visit.
        self.sockets = Sockets()
        self.lock = self.sockets.lock
        self.stop = threading.Event()
        self.ready = threading.Event()
        #: The heartbeat and presence rounds over the sockets (``liveness.py``).
        self.liveness = Liveness(self.sockets, self.presence, tables, self.push, self.stop)
        #: The draws that wait for the phones' links, as this hub tells them (``drawwatch.py``).
        self.draws = DrawWatch(self.sockets, tables, self.stop)
        #: What the listener hears, as the phones here are told (``heard.py``).
        self.heard = Heard(self.sockets, self.push, self.read_presence)
        self._listener: threading.Thread | None = None
        self._sweeper: threading.Thread | None = None
        #: The listener's callbacks, once it runs: what ``deaf`` reads.
        self.callbacks: Callbacks | None = None

    def ensure_listening(self) -> None:
        # Started on first use, not at import: a forking server must start it
        # in the worker, after gevent has patched threading. The first socket
        # waits until the subscription is confirmed, or a change committed in
        # between would never reach it.
        with self.lock:
            if self._listener is None:
                heard = self.heard
                callbacks = self.callbacks = Callbacks(
                    on_change=heard.committed, on_presence=heard.presence_changed, on_draw=self.draws.announced,
                    on_down=heard.store_down, on_resync=heard.resync_all,
                    on_table_down=heard.table_down, on_table_back=heard.table_back, ready=self.ready)
                self._listener = threading.Thread(target=self.changes.listen, args=(callbacks, self.stop),
                                                  name="tablemate-fanout", daemon=True)
                self._listener.start()
                self._sweeper = threading.Thread(target=self.liveness.sweep, name="tablemate-presence", daemon=True)
                self._sweeper.start()
        self.ready.wait(5)

    def add(self, conn: Connection) -> None:
        """Registers a socket, and hears its table's changes from now on:
        returns once none can be missed (``StoreDown`` when the store cannot
        confirm it; the socket is then not registered)."""
        # Every socket watches: the listener counts them, and its
        # subscription is made at the table's first and dropped at its last.
        self.ensure_listening()
        self.changes.watch(conn.table_id)
        self.sockets.add(conn)

    def remove(self, conn: Connection) -> None:
        last = self.sockets.remove(conn)
        if last is None:
            return  # never registered (its watch failed)
        if last:
            self.liveness.forget(conn.table_id)
        self.changes.unwatch(conn.table_id)

    def deaf(self) -> str | None:
        """Why this process cannot hear its tables' changes now (its listener
        reconnecting, or stuck), or None when it can or has no table yet:
        ``/healthz`` answers 503 meanwhile, so a load balancer routes phones
        elsewhere and an operator sees it."""
        callbacks = self.callbacks
        return None if callbacks is None else callbacks.deaf()

    def count(self) -> int:
        with self.lock:
            return sum(len(v) for v in self.sockets.conns.values())

    def wrote(self, table_id: str, version: int, doc: TableDoc, state: Any = None) -> None:
        """A change this process has just committed (``service.write.Wrote``): pushed to
        its phones here at once, from the document and engine state the commit
        made, not when the change message comes back from the store (that
        message is then skipped, unparsed): the pub/sub hop sooner on every
        phone of the table, and neither the document nor the state is decoded
        again. On the committing greenlet itself, once the commit has returned
        and before the action's result goes out, so the table's phones see the
        change first: a greenlet of its own for every push (``runtime.start``)
        cost switching between two deep stacks and mapping the new one's frame
        memory. The figures: the committing greenlet's row of
        docs/performance.md, "Why each fast path exists". Like every push it never waits on a phone
        (``Connection``)."""
        if self.sockets.news(table_id, version):
            try:
                self.push(table_id, False, doc, state)
            except Exception:  # the commit stands: never fail the action for its push
                log.exception("push of a commit failed")

    def read_presence(self, table_id: str, online: set[str] | None = None) -> frozenset[str]:
        """The table's presence from the store (or as just read: ``online``), remembered."""
        found = frozenset(self.presence.present(table_id) if online is None else online)
        with self.lock:
            if table_id in self.sockets.conns:
                self.sockets.online[table_id] = found
        return found

    def push(self, table_id: str, force: bool = False, doc: TableDoc | None = None,
             state: Any = None) -> None:
        """Sends the table's phones their views of ``doc`` (None: loaded now);
        ``state``: its engine state when the caller has it decoded. It never
        waits on a phone: a socket that cannot take its frame at once is sent
        it later by its own writer (``Connection.offer``)."""
        conns = self.sockets.of(table_id)
        if not conns:
            return
        seated = [self.still_seated(doc, c) for c in conns] if doc is not None else []
        try:
            if doc is None or not all(seated):
                # A phone is told its seat is gone only on the stored document:
                # a message may come late, from before that phone's seat existed.
                doc, state = self.tables.find(table_id), None
                seated = [doc is not None and self.still_seated(doc, c) for c in conns]
            known = self.sockets.online.get(table_id)
            online = known if known is not None else self.read_presence(table_id)
        except StoreDown:
            return  # the listener reconnects and resyncs everyone
        if doc is None:
            for c in conns:
                c.kick("table_not_found", "This table has expired.")
            return
        self.sockets.note_host(doc)
        self.sockets.note_passed(table_id, doc)
        frames = Frames(self.tables, doc, online, state)
        for c, ok in zip(conns, seated, strict=True):
            if ok:
                c.offer(doc["version"], frames.get(c.player), force, online)
            else:
                c.kick("bad_token", "This seat was removed or re-issued to another phone.")

    def frame(self, doc: TableDoc, player: str | None, online: frozenset[str]) -> bytes:
        """``player``'s encoded snapshot of ``doc`` (a socket's first)."""
        self.sockets.note_host(doc)
        return Frames(self.tables, doc, online).get(player)

    def still_seated(self, doc: TableDoc, conn: Connection) -> bool:
        """Whether ``conn``'s token still opens the seat it connected to."""
        if conn.player is None:
            return True
        # The token's hash was checked against this seat before: the same hash
        # on the same seat still opens it (one hash per socket, not per push).
        seat = next((s for s in doc["seats"] if s["id"] == conn.player), None)
        if seat is not None and conn.seat_hash is not None and seat.get("th") == conn.seat_hash:
            return True
        try:
            found = self.tables.authenticate(doc, conn.token)
        except ServiceError:
            return False
        ok = found is not None and found["id"] == conn.player
        conn.seat_hash = found.get("th") if ok and found is not None else None
        return ok

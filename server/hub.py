"""Per-process fan-out: the registry of this process's sockets and what it sends them.

Each process has one ``Hub`` and one pub/sub listener. A change committed by
any instance reaches every instance's listener with the table's document in
the message; the hub builds each seat's view of that version once, encodes it
once (spectators share one), and sends it to the seat's phones. Presence
(which seats have a live socket, on any instance) is pushed as ``presence``
frames, coalesced per table, without a version bump.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, cast

import orjson
import redis

from server import reads
from server.errors import ApiError, store_unavailable
from server.keys import dumps
from server.model import Snapshot, TableDoc
from server.offload import start
from server.sockio import send_whole
from server.tables import Tables

log = logging.getLogger(__name__)

CLOSE_BAD_TOKEN = 4401
#: How often (s) each process refreshes the presence of all its live sockets and
#: reads back its tables' presence (a phone on another, dead instance expires),
#: all in one pipeline: a ping itself costs no store round trip.
PRESENCE_REFRESH = 3.0
#: The server's heartbeat (s): a socket that was sent nothing for this long gets
#: a ``pong``, so a phone hears from a live server this often and can give a
#: silent socket up after 5 s. The hub visits each of its sockets once a
#: second, a fiftieth of them every 20 ms (``Hub.beat_all``): per socket, a timer
#: waking its own loop cost several times more than the write.
BEAT = 2.0
#: Seconds without any message after which the server gives a socket up (phones
#: ping at least every ~8 s); ``WS_SILENT_LIMIT`` in the config.
SILENT_LIMIT = 25.0
#: A socket silent this long (s) is no longer shown as connected, though it is
#: kept open until ``SILENT_LIMIT``: phones ping every ~8 s (and give a
#: socket up after 5 s without the server's heartbeat), so it is one ping
#: late by more than any network's jitter.
PRESENCE_SILENT = 12.0
#: A version this process was told of (s ago) that a socket still lacks is sent
#: again by the refresh: a push that failed (a store error loading it) heals.
HEAL_AFTER = 1.0
#: The heartbeat's round is cut into this many slices, one every 1/BEAT_SLICES
#: s, each visiting the sockets of its slice: one round over 5,000 sockets at
#: once held the worker ~100 ms every second (and sent 2,500 frames in one
#: burst), and the actions that came in meanwhile waited for it: most of the
#: p99 of docs/performance.md. A tenth of them still held it ~7 ms ten times a
#: second (~250 beats at ~27 us each in a py-spy profile at 5,000 phones), which
#: an action arriving then waited out; a fiftieth is ~1.4 ms. The presence
#: refresh runs every ``REFRESH_TICKS`` ticks, over one of ``REFRESH_SLICES``
#: slices of the tables (each table every PRESENCE_REFRESH s), in calls of at
#: most ``REFRESH_BATCH`` tables. A script call's fixed cost outweighs its
#: tables': right after the sweep's 20 ms asleep, a call of 6 tables cost the
#: client ~94 us of CPU a table, one of 30 ~30 us and one of 100 ~18 us
#: (bench/host.py says why), so a slice on every tick (~6 tables of 958 at
#: 5,000 phones) made the refresh the largest part of an idle worker's CPU.
#: Every tenth tick (~64 tables a call there) it holds the worker about as
#: long as a heartbeat slice does.
BEAT_SLICES = 50
REFRESH_TICKS = 10
REFRESH_SLICES = round(PRESENCE_REFRESH * BEAT_SLICES / REFRESH_TICKS)
REFRESH_BATCH = 100
#: Seconds a presence change waits for others of the same table (phones of one
#: table tend to connect together) so a burst costs one read, not one per phone.
PRESENCE_COALESCE = 0.05


def encode(msg: dict[str, Any]) -> bytes:
    return dumps(msg)


def encode_state(snapshot: Snapshot) -> bytes:
    return encode({"type": "state", **snapshot})


def refresh_slice(table_id: str) -> int:
    """The presence refresh slice of a table (``REFRESH_SLICES``)."""
    return zlib.crc32(table_id.encode()) % REFRESH_SLICES


def text_frame(payload: bytes) -> bytes:
    """A whole, unmasked text frame as a server sends it (RFC 6455 §5.2): FIN +
    opcode 1, the length in 7, 7+16 or 7+64 bits, the payload. Every frame the
    hub sends goes out this way: through the WebSocket library (wsproto's
    framing, and a str the library encodes again) each cost more than the
    message's own encoding, and a finished frame needs no protocol state, only
    the socket's send lock. It is uncompressed, which permessage-deflate also
    allows (RFC 7692 §6: a message without RSV1 is sent as is)."""
    n = len(payload)
    if n < 126:
        head = bytes((0x81, n))
    elif n < 1 << 16:
        head = bytes((0x81, 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x81, 127)) + n.to_bytes(8, "big")
    return head + payload


class Connection:
    """One phone's socket. Sends are serialized: fan-out and the socket's own
    loop may send at the same time."""

    def __init__(self, ws: Any, table_id: str, player: str | None, token: str | None) -> None:
        self.ws = ws
        self.table_id = table_id
        self.player = player
        self.token = token
        self.sent_version = 0
        self.lock = threading.Lock()
        self.open = True
        #: Presence member: several phones may hold one seat; each counts.
        self.member = f"{player}/{secrets.token_hex(4)}" if player is not None else None
        #: The seats this phone was last told are connected.
        self.presence: frozenset[str] | None = None
        #: When (monotonic) anything last came from the phone; the refresh lists
        #: the socket as present only while this is recent.
        self.heard = time.monotonic()
        #: When the last frame went out: the socket loop beats when it is old.
        self.sent_at = self.heard
        #: Whether this process last wrote the member into the store's presence.
        self.listed = False
        #: The seat's token hash this socket's token was last found to open.
        self.seat_hash: str | None = None
        #: Where the hub's heartbeat writes; None: the socket's loop beats.
        self.fd = self.beat_fd()
        #: Its heartbeat slice (``Hub.add``).
        self.slice = 0
        #: Frames held while the phone's own action runs (``corked``).
        self.held: list[bytes] | None = None

    @contextmanager
    def corked(self) -> Iterator[None]:
        """Holds what is written to this socket meanwhile and sends it in one
        go at the end: while its own action runs, the table's new state (the
        push runs before the commit returns) and then the action's result,
        two frames in one system call instead of two, in that order. The
        heartbeat still beats it meanwhile (a commit may wait seconds on a
        slow store, and the phone gives a silent socket up after 5), sending
        what is held first, since its pong names the version that brings.
        Only for the hub's own framing."""
        if self.fd is None:
            yield
            return
        with self.lock:
            self.held = []
        try:
            yield
        finally:
            with self.lock:
                frames, self.held = self.held, None
                if frames and self.open:
                    try:
                        send_whole(self.ws.sock, b"".join(frames))
                        self.sent_at = time.monotonic()
                    except Exception:  # a dead peer; its own loop notices and cleans up
                        self.open = False

    def send_presence(self, online: frozenset[str]) -> None:
        """A ``presence`` frame, only when it tells this phone something new."""
        with self.lock:
            if online == self.presence:
                return
            self.presence = online
        self.send({"type": "presence", "version": self.sent_version, "connected": sorted(online)})

    def send(self, msg: dict[str, Any]) -> None:
        self.send_raw(encode(msg))

    def _write(self, payload: bytes) -> None:
        """One whole text message; the caller holds the send lock. Past the
        library as a finished frame when the hub may write the socket."""
        if self.fd is None:
            self.ws.send(payload.decode())
        elif not self.ws.connected:
            raise ConnectionError("closed")
        elif self.held is not None:
            self.held.append(text_frame(payload))
        else:
            send_whole(self.ws.sock, text_frame(payload))

    def beat_fd(self) -> int | None:
        """The socket's file descriptor when the hub's heartbeat can write to it
        without ever blocking (gevent's sockets are non-blocking underneath); None
        when this socket's own loop must beat (a blocking server, a stand-in)."""
        try:
            fd = int(self.ws.sock.fileno())
            return None if os.get_blocking(fd) else fd
        except (AttributeError, OSError, ValueError):
            return None

    def beat(self, fd: int | None = None, now: float | None = None) -> None:
        """The heartbeat: a ``pong`` with the version this socket holds. With
        ``fd`` (the hub's round over every socket) it is one non-blocking write
        of a finished frame, skipped when a send is under way (that send is
        news enough) or the socket's buffer is full (a peer that stopped
        reading; the silence limit closes it)."""
        payload = b'{"type":"pong","version":%d}' % self.sent_version
        if not self.lock.acquire(blocking=fd is None):
            return
        try:
            if not self.open or not getattr(self.ws, "connected", True):
                return
            if fd is None:
                self._write(payload)
            else:
                if self.ws.sock.fileno() != fd:
                    # Closed (a closed socket's number is -1), so the number may
                    # now be another connection's: never write to it.
                    self.open = False
                    return
                # Frames held for the phone's own action go first: the pong
                # names the version they bring.
                frame = b"".join((*self.held, text_frame(payload))) if self.held else text_frame(payload)
                if os.write(fd, frame) != len(frame):
                    # Half a frame on the wire: this stream cannot go on.
                    self.open = False
                    return
                if self.held:
                    self.held.clear()
            self.sent_at = time.monotonic() if now is None else now
        except BlockingIOError:
            pass
        except Exception:  # a dead peer; its own loop notices and cleans up
            self.open = False
        finally:
            self.lock.release()

    def send_raw(self, data: bytes) -> None:
        with self.lock:
            if not self.open:
                return
            try:
                self._write(data)
                self.sent_at = time.monotonic()
            except Exception:  # a dead peer; its own loop notices and cleans up
                self.open = False

    def send_state(self, snapshot: Snapshot, force: bool = False) -> None:
        online = frozenset(p["id"] for p in snapshot["players"] if p.get("connected"))
        self.send_encoded(snapshot["version"], encode_state(snapshot), force, online)

    def send_encoded(self, version: int, data: bytes, force: bool = False,
                     online: frozenset[str] | None = None) -> None:
        with self.lock:
            if self._stale(version, force) or not self.open:
                return
            self.sent_version = version
            if online is not None:
                self.presence = online
            try:
                self._write(data)
                self.sent_at = time.monotonic()
            except Exception:  # a dead peer; its own loop notices and cleans up
                self.open = False

    def _stale(self, version: int, force: bool) -> bool:
        """Whether ``version`` would take this socket back, or send again what it
        has (unless ``force``): snapshots may race (two changes fanned out at once)."""
        return version < self.sent_version or (version == self.sent_version and not force)

    def offer(self, version: int, data: bytes, force: bool = False,
              online: frozenset[str] | None = None) -> bool:
        """``send_encoded`` that never waits, for a push made on the committing
        greenlet (``Hub.wrote``): True when done with (written, held for the
        phone's own action, stale, or the socket is closed); False when it
        would have to wait (another send holds the lock, the socket's buffer
        is full, or the hub cannot write this socket without blocking), and
        the caller then sends it with ``send_encoded`` on a greenlet of its
        own. A frame the buffer takes only part of is finished on a greenlet
        that keeps the send lock until it is, so no other frame cuts in."""
        if self.fd is None or not self.lock.acquire(blocking=False):
            return False
        finishing = False
        try:
            if self._stale(version, force) or not self.open or not getattr(self.ws, "connected", True):
                return True  # nothing to send: an old version, or a socket being closed
            frame = text_frame(data)
            if self.held is not None:
                self.held.append(frame)
                written = len(frame)
            else:
                if self.ws.sock.fileno() != self.fd:  # closed: the number may be another's now
                    self.open = False
                    return True
                try:
                    written = os.write(self.fd, frame)
                except BlockingIOError:
                    return False
                except OSError:  # a dead peer; its own loop notices and cleans up
                    self.open = False
                    return True
            self.sent_version = version
            if online is not None:
                self.presence = online
            self.sent_at = time.monotonic()
            if written < len(frame):
                finishing = True
                start(self._finish, memoryview(frame)[written:])
            return True
        finally:
            if not finishing:
                self.lock.release()

    def _finish(self, rest: memoryview) -> None:
        """The rest of a frame ``offer`` began, sent under the lock it took."""
        try:
            self.ws.sock.sendall(rest)
        except Exception:  # a dead peer; its own loop notices and cleans up
            self.open = False
        finally:
            self.lock.release()

    def give_up(self) -> None:
        """Ends a socket the phone has gone silent on: its handler, waiting in
        a read without a timeout (server/wsread.py), wakes up to a closed
        stream. No close frame: a silent peer would not read it, and writing
        to it could block the heartbeat round this runs in."""
        self.open = False
        try:
            self.ws.sock.shutdown(socket.SHUT_RDWR)
        except (AttributeError, OSError):
            pass

    def kick(self, code: str, message: str, close: int = CLOSE_BAD_TOKEN) -> None:
        self.send({"type": "error", "error": {"code": code, "message": message}})
        with self.lock:
            self.open = False
            try:
                self.ws.close(reason=close, message=code)
            except Exception:  # already closed
                pass


class Frames:
    """One push's encoded ``state`` frames of a document, per seat (None:
    spectators): each built and encoded once, however many phones share it.
    Not kept past the push: at ~5 KB a seat, keeping the latest version's
    frames of every table cost ~7 KB per phone and saved little (presence
    changes with every connect, so a connect storm would miss them anyway)."""

    def __init__(self, hub: Hub, doc: TableDoc, online: frozenset[str], state: Any = None) -> None:
        self.hub, self.doc, self.online = hub, doc, online
        self.by_seat: dict[str | None, bytes] = {}
        #: The seat list with presence: the same in every seat's snapshot.
        self.players: list[Any] | None = None
        #: The document's engine state, decoded once if the push was not given it.
        self.state: list[Any] = [] if state is None else [state]
        #: The engine's viewer of that state: what every seat sees, built once.
        self.viewer: Callable[[str | None], dict[str, Any]] | None = None

    def get(self, player: str | None) -> bytes:
        data = self.by_seat.get(player)
        if data is None:
            doc, tables = self.doc, self.hub.tables
            if not self.state:
                self.state.append(None if doc["state"] is None else tables.engine(doc["game"]).load(doc["state"]))
            online = set(self.online)
            if self.players is None:
                self.players = reads.players(tables.engine(doc["game"]), doc, self.state[0], online)
            if self.viewer is None and self.state[0] is not None:
                self.viewer = tables.engine(doc["game"]).viewer(self.state[0])
            data = self.by_seat[player] = encode_state(
                tables.snapshot(doc, player, self.state[0], online, self.players, self.viewer))
        return data


class Hub:
    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.conns: dict[str, set[Connection]] = defaultdict(set)
        #: The same sockets by heartbeat slice (``BEAT_SLICES``), in turn as they came.
        self.slices: list[set[Connection]] = [set() for _ in range(BEAT_SLICES)]
        #: The local tables by presence refresh slice (``REFRESH_SLICES``, by id).
        self.table_slices: list[set[str]] = [set() for _ in range(REFRESH_SLICES)]
        self._next_slice = 0
        #: Each local table's presence as last read: every change of it comes with
        #: a message (or expiry, which the sweep reads), so a push need not read it.
        self.online: dict[str, frozenset[str]] = {}
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.ready = threading.Event()
        self._presence_due: set[str] = set()
        #: Each local table's newest version this process was told of, and when.
        self.versions: dict[str, tuple[int, float]] = {}
        self.beat_every = BEAT
        #: Seconds without a message after which a socket the hub beats is given up.
        self.silent_limit = SILENT_LIMIT
        self._listener: threading.Thread | None = None
        self._sweeper: threading.Thread | None = None

    def ensure_listening(self) -> None:
        # Started on first use, not at import: a forking server must start it
        # in the worker, after gevent has patched threading. The first socket
        # waits until the subscription is confirmed, or a change committed in
        # between would never reach it.
        with self.lock:
            if self._listener is None:
                self._listener = threading.Thread(
                    target=self.tables.store.listen,
                    args=(self.changed, self.resync_all, self.stop, self.store_down, self.ready,
                          self.presence_changed, self.committed),
                    name="tablemate-fanout", daemon=True,
                )
                self._listener.start()
                self._sweeper = threading.Thread(target=self.sweep, name="tablemate-presence", daemon=True)
                self._sweeper.start()
                self.tables.store.wrote = self.wrote
        self.ready.wait(5)

    def add(self, conn: Connection) -> None:
        with self.lock:
            if conn.table_id not in self.conns:
                self.table_slices[refresh_slice(conn.table_id)].add(conn.table_id)
            self.conns[conn.table_id].add(conn)
            conn.slice = self._next_slice
            self.slices[conn.slice].add(conn)
            self._next_slice = (self._next_slice + 1) % BEAT_SLICES

    def remove(self, conn: Connection) -> None:
        with self.lock:
            self.slices[conn.slice].discard(conn)
            peers = self.conns.get(conn.table_id)
            if peers is not None:
                peers.discard(conn)
                if not peers:
                    del self.conns[conn.table_id]
                    self.table_slices[refresh_slice(conn.table_id)].discard(conn.table_id)
                    self.online.pop(conn.table_id, None)
                    self.versions.pop(conn.table_id, None)

    def count(self) -> int:
        with self.lock:
            return sum(len(v) for v in self.conns.values())

    def _local(self, table_id: str) -> list[Connection]:
        with self.lock:
            return list(self.conns.get(table_id, ()))

    def _news(self, table_id: str, version: int) -> bool:
        """Whether ``version`` is newer than any this process was told of for
        a table with phones here; if so it is told of it now."""
        with self.lock:
            if table_id not in self.conns or version <= self.versions.get(table_id, (0, 0.0))[0]:
                return False
            self.versions[table_id] = (version, time.monotonic())
            return True

    def wrote(self, table_id: str, version: int, doc: TableDoc, state: Any = None) -> None:
        """A change this process has just committed (``Store.wrote``): pushed to
        its phones here at once, from the document and engine state the commit
        made, not when the change message comes back from the store (that
        message is then skipped, unparsed). The pub/sub hop sooner on every
        phone of the table (p50 ~0.2 ms lower in docs/performance.md), and
        neither the document nor the state is decoded again. On the committing
        greenlet itself, before the commit returns, so the table's phones see
        the change before the action's result goes out: a greenlet of its own
        for every push (``offload.start``) cost ~0.06 ms of an action's ~0.54
        (``bench/action_cpu.py --gevent``), switching between two deep stacks
        and mapping the new one's frame memory. It never waits on a phone:
        what a socket cannot take at once goes on a greenlet after all
        (``Connection.offer``)."""
        if self._news(table_id, version):
            try:
                self.push(table_id, False, doc, state, waits=False)
            except Exception:  # the commit stands: never fail the action for its push
                log.exception("push of a commit failed")

    def changed(self, table_id: str, version: int) -> None:
        if self._news(table_id, version):
            # Off the listener thread, so one slow phone never delays other tables.
            start(self.push, table_id)

    def committed(self, table_id: str, version: int, raw: str | None) -> None:
        """A change whose message carries the document: no load in the fan-out.
        Parsed only here, for a table with phones on this instance, and only
        when no push of this version (or a newer one) has started yet: one this
        process committed itself went out already (``wrote``)."""
        if self._news(table_id, version):
            doc = cast(TableDoc, orjson.loads(raw)) if raw is not None else None
            start(self.push, table_id, False, doc)

    def presence_changed(self, table_id: str) -> None:
        if not self._local(table_id):
            return
        with self.lock:
            if table_id in self._presence_due:
                return  # a push is already on its way and will read the latest
            self._presence_due.add(table_id)
        start(self._push_presence_soon, table_id)

    def _push_presence_soon(self, table_id: str) -> None:
        time.sleep(PRESENCE_COALESCE)
        with self.lock:
            self._presence_due.discard(table_id)
        self.push_presence(table_id)

    def push_presence(self, table_id: str) -> None:
        """Tells the table's local phones who is connected, if that changed for them."""
        conns = self._local(table_id)
        if not conns:
            return
        try:
            online = self.read_presence(table_id)
        except redis.RedisError:
            return  # the store's outage is told to phones by the listener
        for c in conns:
            c.send_presence(online)

    def read_presence(self, table_id: str, online: set[str] | None = None) -> frozenset[str]:
        """The table's presence from the store (or as just read: ``online``), remembered."""
        found = frozenset(self.tables.store.present(table_id) if online is None else online)
        with self.lock:
            if table_id in self.conns:
                self.online[table_id] = found
        return found

    def beat_all(self, every: float = BEAT, part: int | None = None) -> None:
        """The heartbeat over one slice of the sockets (``part``; None: all):
        a socket sent nothing for about ``every`` s gets a beat (half a round
        early, as each socket is visited once a second), and one not heard
        from for ``silent_limit`` s is given up (its handler reads without a
        timeout: a timer per read cost more than this visit)."""
        now = time.monotonic()
        with self.lock:
            parts = self.slices if part is None else [self.slices[part]]
            conns = [c for p in parts for c in p]
        for c in conns:
            if c.fd is not None:
                if now - c.heard > self.silent_limit:
                    c.give_up()
                elif now - c.sent_at >= every - 0.5:
                    c.beat(c.fd, now)

    def sweep(self) -> None:
        ticks = 0
        while not self.stop.wait(1.0 / BEAT_SLICES):
            ticks += 1
            try:
                self.beat_all(self.beat_every, ticks % BEAT_SLICES)
            except Exception:  # the heartbeat must go on for every other socket
                log.exception("heartbeat failed")
            if ticks % REFRESH_TICKS:
                continue
            try:
                # Each table once per PRESENCE_REFRESH, a slice of them every REFRESH_TICKS.
                self.refresh(ticks // REFRESH_TICKS % REFRESH_SLICES)
            except redis.RedisError:
                pass  # the listener tells phones of the outage; the next round retries
            except Exception:  # the refresh must go on for every other table
                log.exception("presence refresh failed")

    def refresh(self, part: int | None = None) -> None:
        """The presence of the local sockets of one slice of the tables
        (``part`` of ``REFRESH_SLICES``; None: every table), in one round trip per
        ``REFRESH_BATCH`` tables: the live ones touched, the silent ones
        forgotten (their phone has given them up), each table's presence read
        back and pushed where it changed. Also resends a version a socket
        lacks (a push that failed to load)."""
        now = time.monotonic()
        with self.lock:
            wanted: Iterable[str] = self.conns if part is None else self.table_slices[part]
            by_table = {tid: list(self.conns[tid]) for tid in wanted if tid in self.conns}
            versions = {tid: self.versions[tid] for tid in by_table if tid in self.versions}
        plan: dict[str, tuple[list[str], list[str]]] = {}
        moved: list[str] = []
        for tid, conns in by_table.items():
            live: list[str] = []
            gone: list[str] = []
            for c in conns:
                if c.member is None:
                    continue
                fresh = c.open and now - c.heard <= PRESENCE_SILENT
                if fresh:
                    live.append(c.member)
                elif c.listed:
                    gone.append(c.member)
                if fresh != c.listed:
                    c.listed = fresh
                    moved.append(tid)
            plan[tid] = (live, gone)
            v, seen = versions.get(tid, (0, now))
            if now - seen >= HEAL_AFTER and any(c.open and c.sent_version < v for c in conns):
                start(self.push, tid)
        if not plan:
            return
        found: dict[str, set[str] | None] = {}
        tids = list(plan)
        for at in range(0, len(tids), REFRESH_BATCH):
            if at:
                time.sleep(0)  # a yield, as in beat_all
            found.update(self.tables.store.presence_refresh({t: plan[t] for t in tids[at:at + REFRESH_BATCH]}))
        for tid in dict.fromkeys(moved):  # other instances' phones learn it now, not next round
            self.tables.store.presence_announce(tid)
        for tid, seats in found.items():
            if seats is None:  # expired with phones still watching
                for c in by_table[tid]:
                    c.kick("table_not_found", "This table has expired.")
                continue
            online = frozenset(seats)
            with self.lock:
                if tid not in self.conns:
                    continue
                known, self.online[tid] = self.online.get(tid), online
            if online != known:  # else every phone of it was told already
                for c in by_table[tid]:
                    c.send_presence(online)

    def store_down(self) -> None:
        """Tell every local phone to show "reconnecting"; a resync follows."""
        with self.lock:
            conns = [c for peers in self.conns.values() for c in peers]
        msg = {"type": "error", **store_unavailable().envelope()}
        for c in conns:
            c.send(msg)

    def resync_all(self) -> None:
        # Phones were told the store was down and wait for a snapshot to clear
        # it, so resend even at an unchanged version.
        with self.lock:
            ids = list(self.conns)
        for tid in ids:
            start(self.push, tid, True)

    def push(self, table_id: str, force: bool = False, doc: TableDoc | None = None,
             state: Any = None, waits: bool = True) -> None:
        """Sends the table's phones their views of ``doc`` (None: loaded now);
        ``state``: its engine state when the caller has it decoded. Without
        ``waits`` (a push on the committing greenlet) a socket that cannot
        take its frame at once is sent it on a greenlet of its own."""
        conns = self._local(table_id)
        if not conns:
            return
        seated = [self.still_seated(doc, c) for c in conns] if doc is not None else []
        try:
            if doc is None or not all(seated):
                # A phone is told its seat is gone only on the stored document:
                # a message may come late, from before that phone's seat existed.
                doc, state = self.tables.store.load(table_id), None
                seated = [doc is not None and self.still_seated(doc, c) for c in conns]
            known = self.online.get(table_id)
            online = known if known is not None else self.read_presence(table_id)
        except redis.RedisError:
            return  # the listener reconnects and resyncs everyone
        if doc is None:
            for c in conns:
                c.kick("table_not_found", "This table has expired.")
            return
        frames = Frames(self, doc, online, state)
        waiting: list[tuple[Connection, bytes | None]] = []
        for c, ok in zip(conns, seated, strict=True):
            data = frames.get(c.player) if ok else None
            if waits:
                self._deliver(c, doc["version"], data, force, online)
            elif data is None or not c.offer(doc["version"], data, force, online):
                waiting.append((c, data))
        if waiting:
            start(self._deliver_all, doc["version"], waiting, force, online)

    def _deliver(self, c: Connection, version: int, data: bytes | None,
                 force: bool, online: frozenset[str]) -> None:
        """One socket's part of a push: its frame, or None: its seat is gone."""
        if data is None:
            c.kick("bad_token", "This seat was removed or re-issued to another phone.")
        else:
            c.send_encoded(version, data, force=force, online=online)

    def _deliver_all(self, version: int, waiting: list[tuple[Connection, bytes | None]],
                     force: bool, online: frozenset[str]) -> None:
        for c, data in waiting:
            self._deliver(c, version, data, force, online)

    def frame(self, doc: TableDoc, player: str | None, online: frozenset[str]) -> bytes:
        """``player``'s encoded snapshot of ``doc`` (a socket's first)."""
        return Frames(self, doc, online).get(player)

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
        except ApiError:
            return False
        ok = found is not None and found["id"] == conn.player
        conn.seat_hash = found.get("th") if ok and found is not None else None
        return ok

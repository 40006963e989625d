"""Per-process fan-out: the registry of this process's sockets and what it sends them.

Each process has one ``Hub`` and one pub/sub listener. A change committed by
any instance reaches every instance's listener with the table's document in
the message; the hub builds each seat's view of that version once, encodes it
once (spectators share one), and sends it to the seat's phones. Presence
(which seats have a live socket, on any instance) is pushed as ``presence``
frames, coalesced per table, without a version bump.
"""

from __future__ import annotations

import fcntl
import logging
import os
import secrets
import select
import socket
import sys
import termios
import threading
import time
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, cast

import orjson
import redis

from server.errors import ApiError, store_unavailable
from server.model import Snapshot, TableDoc
from server.runtime import start
from server.service import Tables, reads
from server.store.keys import dumps

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
#: Seconds a socket may take nothing of what waits for it before it is given
#: up (``Connection``). A phone gives a socket up after 5 s without a frame
#: (web/net.js, ``DEAD_MS``; the server beats every 2 s), so one that still
#: reads has reconnected long before; twice that leaves a slow link alone
#: (any byte the phone takes starts the count again). Until then such a socket costs a
#: frame or two in its outbox and one greenlet waiting on it; then its phone,
#: if it is there, reconnects and resyncs by version.
STALL_LIMIT = 10.0
#: The kernel's send buffer of a socket the hub writes (bytes; Linux counts
#: twice this, with its overhead). Left alone, Linux grows it up to
#: ``tcp_wmem``'s maximum (4 MB) even for a peer that reads nothing, so such a
#: socket could take megabytes of stale frames before anything waited for it
#: and ``STALL_LIMIT`` began to count. A phone's frames are a few KB.
SEND_BUFFER = 64 * 1024
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


def close_frame(code: int, reason: str) -> bytes:
    """A close frame as a server sends it (RFC 6455 §5.5.1): the status code,
    then the reason (a control frame's payload is at most 125 bytes)."""
    body = code.to_bytes(2, "big") + reason.encode()[:123]
    return bytes((0x88, len(body))) + body


#: A frame waiting in a socket's outbox: its kind ("state", "presence",
#: "pong": complete, so a newer one replaces it; None: any other, or the
#: rest of a frame begun) and its bytes.
Waiting = tuple[str | None, bytes | memoryview]


class Connection:
    """One phone's socket, and what waits to be written to it.

    Nothing sent to a socket the hub writes itself (``fd``) ever waits for
    the phone, except on the socket's own handler: a frame goes into the
    socket's outbox (``out``), as much of it as the socket takes at once is
    written, and what is left is written by the socket's one writer greenlet
    (``_drain``), which waits until the socket takes more. A push (``offer``,
    ``send_presence``, ``tell``, ``kick``, the hub's heartbeat) so never
    waits on one phone; the handler's own frames (``send``, ``send_encoded``,
    ``beat()``, the end of ``corked``) wait for their own phone, so a phone
    that does not read stops being read. The outbox stays small: snapshots,
    presence and pongs are complete, so a newer one replaces the one still
    waiting. A socket that takes nothing of what waits for ``STALL_LIMIT`` s
    is given up: its phone reconnects and resyncs by version.
    """

    def __init__(self, ws: Any, table_id: str, player: str | None, token: str | None) -> None:
        self.ws = ws
        self.table_id = table_id
        self.player = player
        self.token = token
        #: The newest version this socket was given (written, or waiting in ``out``).
        self.sent_version = 0
        #: Guards the outbox and each write; never held while waiting for a phone.
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
        #: Where the hub writes; None: through the library, blocking (``beat_fd``).
        self.fd = self.beat_fd()
        if self.fd is not None:
            self.ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        #: Its heartbeat slice (``Hub.add``).
        self.slice = 0
        #: The frames the socket has not taken yet, oldest first.
        self.out: list[Waiting] = []
        #: Whether the outbox is held while the phone's own action runs (``corked``).
        self.holding = False
        #: Whether the socket's writer greenlet is on its way.
        self.writer = False
        #: Bytes the hub wrote to the socket, and how many of them its peer had
        #: taken when last seen, since when (monotonic): a socket with frames
        #: waiting whose peer takes nothing for ``STALL_LIMIT`` s is given up.
        self.written = 0
        self.taken = 0
        self.stalled: float | None = None
        #: Kicked: the outbox ends with a close frame, and takes nothing more.
        self.closing = False

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
            self.holding = True
        try:
            yield
        finally:
            with self.lock:
                self.holding = False
            self._drain()

    def send(self, msg: dict[str, Any]) -> None:
        """A message of the socket's own handler (a result, an error): waits
        until this phone has taken it, so a phone that does not read is not
        read either."""
        self._put(None, encode(msg), wait=True)

    def tell(self, msg: dict[str, Any]) -> None:
        """A message pushed to this phone: never waits."""
        self._put(None, encode(msg))

    def send_presence(self, online: frozenset[str]) -> None:
        """A ``presence`` frame, only when it tells this phone something new; never waits."""
        with self.lock:
            if online == self.presence:
                return
            self.presence = online
        self._put("presence", encode({"type": "presence", "version": self.sent_version,
                                      "connected": sorted(online)}))

    def send_state(self, snapshot: Snapshot, force: bool = False) -> None:
        online = frozenset(p["id"] for p in snapshot["players"] if p.get("connected"))
        self.send_encoded(snapshot["version"], encode_state(snapshot), force, online)

    def send_encoded(self, version: int, data: bytes, force: bool = False,
                     online: frozenset[str] | None = None) -> None:
        """``offer`` from the socket's own handler (its first snapshot, a
        sync): waits until this phone has taken it."""
        self._put("state", data, True, version, force, online)

    def offer(self, version: int, data: bytes, force: bool = False,
              online: frozenset[str] | None = None) -> None:
        """A pushed snapshot (``data``, encoded) of ``version``: never waits.
        Nothing is sent that would take the socket back, or send again what
        it was given (unless ``force``): snapshots may race."""
        self._put("state", data, False, version, force, online)

    def _stale(self, version: int, force: bool) -> bool:
        return version < self.sent_version or (version == self.sent_version and not force)

    def _accepts(self) -> bool:
        """Whether a frame may still be sent: not on a closed socket, nor
        after a close frame (ours, or the library's close handshake)."""
        return self.open and not self.closing and getattr(self.ws, "connected", True)

    def _put(self, kind: str | None, payload: bytes, wait: bool = False, version: int | None = None,
             force: bool = False, online: frozenset[str] | None = None) -> None:
        """One whole text message (a ``state`` of ``version`` when given) for
        this socket. ``wait``: the socket's own handler, which waits for its
        own phone to take it."""
        with self.lock:
            if not self._accepts() or (version is not None and self._stale(version, force)):
                return
            if version is not None:
                self.sent_version = version
                if online is not None:
                    self.presence = online
            if self.fd is None:
                # Through the library, blocking: a server whose sockets the hub
                # cannot write without blocking (the debugging server), a stand-in.
                try:
                    self.ws.send(payload.decode())
                    self.sent_at = time.monotonic()
                except Exception:  # a dead peer; its own loop notices and cleans up
                    self.open = False
                return
            self._queue(kind, text_frame(payload))
            spawn = not wait and self._hand_on(self._flush())
        if wait:
            self._drain()
        elif spawn:
            start(self._drain, True)

    def _queue(self, kind: str | None, frame: bytes) -> None:
        """Adds a frame to the outbox (the lock held). A state replaces the
        state waiting, in its place (so before a result that names its
        version), and the presence frames waiting (it says who is connected
        as of now); a presence or a pong replaces the one waiting and goes
        last. A frame begun is kind None: nothing replaces it."""
        if kind is None or not self.out:
            self.out.append((kind, frame))
        elif kind == "state":
            kept = [(k, f) if k != "state" else (kind, frame) for k, f in self.out if k != "presence"]
            if not any(k == "state" for k, _ in self.out):
                kept.append((kind, frame))
            self.out = kept
        else:
            self.out = [w for w in self.out if w[0] != kind]
            self.out.append((kind, frame))

    def _hand_on(self, left: float | None) -> bool:
        """Whether to start the socket's writer (the lock held), after a flush
        that left something waiting (``left`` not None); at most one runs."""
        if left is None or self.writer or self.holding:
            return False
        self.writer = True
        return True

    def _flush(self, now: float | None = None, held_too: bool = False) -> float | None:
        """Writes what waits, as much as the socket takes at once, in one
        system call (the lock held), and gives the socket up if its peer has
        taken nothing for ``STALL_LIMIT`` s. The seconds left until then when
        some still waits; None when nothing does, or it is held for the
        phone's own action (unless ``held_too``)."""
        if (not self.out and self.stalled is None) or (self.holding and not held_too):
            return None
        if not self.open or not getattr(self.ws, "connected", True) or self.ws.sock.fileno() != self.fd:
            # Closed, or its close handshake begun: nothing more goes on this
            # stream (and a closed socket's number may be another's now).
            self.open = False
            self.out.clear()
            return None
        now = time.monotonic() if now is None else now
        if self.out:
            try:
                n = self._writev([frame for _, frame in self.out])
            except BlockingIOError:
                n = 0
            except OSError:  # a dead peer; its own loop notices and cleans up
                self.open = False
                self.out.clear()
                return None
            if n:
                self.sent_at = now
                self.written += n
                self._took(n)
        if self.stalled is not None or self.out:
            # What the socket's buffer takes is no sign of life (it takes a
            # little now and then from a peer that reads nothing), so a socket
            # that once kept frames waiting is watched until its peer takes some.
            taken = self.written - self._unread()
            if self.stalled is None or taken > self.taken:
                self.stalled = now if self.out else None
                self.taken = taken
            elif now - self.stalled >= STALL_LIMIT:  # its phone reconnects and resyncs by version
                self.give_up()
                self.out.clear()
                return None
        if not self.out:
            if self.closing:
                self.give_up()
            return None
        return cast(float, self.stalled) + STALL_LIMIT - now

    def _unread(self) -> int:
        """Bytes in the socket's send buffer its peer has not taken (TCP: not
        sent or not acknowledged yet); 0 where the system cannot tell (Linux
        can), and then what the buffer took counts as taken."""
        try:
            return int.from_bytes(fcntl.ioctl(cast(int, self.fd), termios.TIOCOUTQ, bytes(4)), sys.byteorder)
        except (AttributeError, OSError):
            return 0

    def _writev(self, frames: list[bytes | memoryview]) -> int:
        """One non-blocking write of ``frames`` (gevent's sockets are
        non-blocking underneath); the number of bytes the socket took."""
        return os.writev(cast(int, self.fd), frames)

    def _took(self, n: int) -> None:
        """Drops the ``n`` bytes written from the front of the outbox; a frame
        written in part stays first, as kind None: finished before any other."""
        while n:
            kind, frame = self.out[0]
            if n < len(frame):
                self.out[0] = (None, memoryview(frame)[n:])
                return
            n -= len(frame)
            del self.out[0]

    def _drain(self, writer: bool = False) -> None:
        """Writes what waits as the socket takes it, waiting (this greenlet
        alone) until it takes more. ``writer``: the socket's writer greenlet."""
        try:
            while True:
                with self.lock:
                    left = self._flush()
                    if left is None:
                        if writer:
                            self.writer = False
                        return
                poller = select.poll()  # gevent's, under gevent
                poller.register(cast(int, self.fd), select.POLLOUT)
                poller.poll(left * 1000)
        except Exception:  # never a writer's flag left set on a socket still written
            self.open = False
            log.exception("socket writer failed")

    def beat_fd(self) -> int | None:
        """The socket's file descriptor when the hub can write to it without
        ever blocking (gevent's sockets are non-blocking underneath); None
        when only the library can, blocking (a blocking server, a stand-in):
        then the socket's own loop beats."""
        try:
            fd = int(self.ws.sock.fileno())
            return None if os.get_blocking(fd) else fd
        except (AttributeError, OSError, ValueError):
            return None

    def beat(self, fd: int | None = None, now: float | None = None) -> None:
        """The heartbeat: a ``pong`` with the version this socket holds,
        after what waits (its version is what that brings). Without ``fd``:
        the socket's own handler (a ping's answer). With it (the hub's round
        over every socket) it never waits, and is skipped when another send
        is under way (that send is news enough); frames held for the phone's
        own action go out with it."""
        payload = b'{"type":"pong","version":%d}' % self.sent_version
        if fd is None:
            self._put("pong", payload, wait=True)
            return
        if not self.lock.acquire(blocking=False):
            return
        try:
            if not self._accepts():
                return
            self._queue("pong", text_frame(payload))
            spawn = self._hand_on(self._flush(now, held_too=True))
        finally:
            self.lock.release()
        if spawn:
            start(self._drain, True)

    def give_up(self) -> None:
        """Ends a socket its phone has gone silent on, or takes nothing from:
        its handler, waiting in a read without a timeout (server/live/wsread.py),
        wakes up to a closed stream. No close frame: such a peer would not
        read it."""
        self.open = False
        try:
            self.ws.sock.shutdown(socket.SHUT_RDWR)
        except (AttributeError, OSError):
            pass

    def kick(self, code: str, message: str, close: int = CLOSE_BAD_TOKEN) -> None:
        """Tells the phone why and closes the socket (``close``: 4401 by
        default, and the phone stops reconnecting). Never waits: the error and
        the close frame go as any push, and the socket is shut once the phone
        has taken them."""
        msg = {"type": "error", "error": {"code": code, "message": message}}
        if self.fd is None:
            self.tell(msg)
            with self.lock:
                self.open = False
                try:
                    self.ws.close(reason=close, message=code)
                except Exception:  # already closed
                    pass
            return
        with self.lock:
            if not self._accepts():
                return
            self._queue(None, text_frame(encode(msg)))
            self._queue(None, close_frame(close, code))
            self.closing = True
            spawn = self._hand_on(self._flush())
        if spawn:
            start(self._drain, True)


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
        and mapping the new one's frame memory. Like every push it never
        waits on a phone (``Connection``)."""
        if self._news(table_id, version):
            try:
                self.push(table_id, False, doc, state)
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
            c.tell(msg)

    def resync_all(self) -> None:
        # Phones were told the store was down and wait for a snapshot to clear
        # it, so resend even at an unchanged version.
        with self.lock:
            ids = list(self.conns)
        for tid in ids:
            start(self.push, tid, True)

    def push(self, table_id: str, force: bool = False, doc: TableDoc | None = None,
             state: Any = None) -> None:
        """Sends the table's phones their views of ``doc`` (None: loaded now);
        ``state``: its engine state when the caller has it decoded. It never
        waits on a phone: a socket that cannot take its frame at once is sent
        it later by its own writer (``Connection.offer``)."""
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
        for c, ok in zip(conns, seated, strict=True):
            if ok:
                c.offer(doc["version"], frames.get(c.player), force, online)
            else:
                c.kick("bad_token", "This seat was removed or re-issued to another phone.")

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

"""One phone's socket (``Connection``): its outbox, and the writes that never
wait on the phone (a push) or wait on it alone (its own handler's frames);
what it sends, as bytes: a message's JSON, a seat's ``state``, whole
WebSocket frames (``text_frame``, ``close_frame``)."""

from __future__ import annotations

import logging
import os
import secrets
import socket
import time
from typing import Any

from server.errors import envelope
from server.live.outbox import Outbox
from server.model import Snapshot
from server.runtime import start
from server.wire import dumps

log = logging.getLogger(__name__)

CLOSE_BAD_TOKEN = 4401
#: The kernel's send buffer of a socket the hub writes (bytes; Linux counts
#: twice this, with its overhead). Left alone, Linux grows it up to
#: ``tcp_wmem``'s maximum (4 MB) even for a peer that reads nothing, so such a
#: socket could take megabytes of stale frames before anything waited for it
#: and ``STALL_LIMIT`` began to count. A phone's frames are a few KB.
SEND_BUFFER = 64 * 1024


def encode(msg: dict[str, Any]) -> bytes:
    return dumps(msg)


def encode_state(snapshot: Snapshot) -> bytes:
    return encode({"type": "state", **snapshot})


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


class Connection:
    """One phone's socket, and what waits to be written to it.

    Nothing sent to a socket the hub writes itself (``outbox.fd``) ever waits
    for the phone, except on the socket's own handler: a frame goes into the
    socket's ``Outbox``, as much of it as the socket takes at once is
    written, and what is left is written by the socket's one writer greenlet
    (``Outbox.drain``), which waits until the socket takes more. A push (``offer``,
    ``send_presence``, ``tell``, ``kick``, the hub's heartbeat) so never
    waits on one phone; the handler's own frames (``send``, ``send_encoded``,
    ``beat()``, the end of ``outbox.corked``) wait for their own phone, so a phone
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
        #: Presence member: several phones may hold one seat; each counts.
        self.member = f"{player}/{secrets.token_hex(4)}" if player is not None else None
        #: The seats this phone was last told are connected.
        self.presence: frozenset[str] | None = None
        #: When (monotonic) anything last came from the phone; the refresh lists
        #: the socket as present only while this is recent.
        self.heard = time.monotonic()
        #: Whether this process last wrote the member into the store's presence.
        self.listed = False
        #: The seat's token hash this socket's token was last found to open.
        self.seat_hash: str | None = None
        #: What waits for the phone, and how it is written: where the hub
        #: writes (None: through the library, blocking, ``beat_fd``).
        self.outbox = Outbox(ws, self.beat_fd())
        if self.outbox.fd is not None:
            self.ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        #: Its heartbeat slice (``Hub.add``).
        self.slice = 0

    def send(self, msg: dict[str, Any]) -> None:
        """A message of the socket's own handler (a result, an error): waits
        until this phone has taken it, so a phone that does not read is not
        read either."""
        self._put(None, encode(msg), wait=True)

    def tell(self, msg: dict[str, Any]) -> None:
        """A message pushed to this phone: never waits."""
        self._put(None, encode(msg))

    def tell_encoded(self, data: bytes, version: int | None = None) -> None:
        """A message pushed to this phone, encoded once for its table (a
        ``draw`` frame): never waits. ``version``: the table version it stands
        for (a draw announced): this socket counts as told of it, so the
        heal (``liveness.py``) does not send it again."""
        with self.outbox.lock:
            if version is not None and version > self.sent_version:
                self.sent_version = version
        self._put(None, data)

    def send_presence(self, online: frozenset[str]) -> None:
        """A ``presence`` frame, only when it tells this phone something new; never waits."""
        with self.outbox.lock:
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

    def _put(self, kind: str | None, payload: bytes, wait: bool = False, version: int | None = None,
             force: bool = False, online: frozenset[str] | None = None) -> None:
        """One whole text message (a ``state`` of ``version`` when given) for
        this socket. ``wait``: the socket's own handler, which waits for its
        own phone to take it."""
        ob = self.outbox
        with ob.lock:
            if not ob.accepts() or (version is not None and self._stale(version, force)):
                return
            if version is not None:
                self.sent_version = version
                if online is not None:
                    self.presence = online
            if ob.fd is None:
                # Through the library, blocking: a server whose sockets the hub
                # cannot write without blocking (the debugging server), a stand-in.
                try:
                    self.ws.send(payload.decode())
                    ob.sent_at = time.monotonic()
                except Exception:  # a dead peer; its own loop notices and cleans up
                    ob.open = False
                return
            frame = text_frame(payload)
            if not ob.direct(frame, time.monotonic()):
                ob.queue(kind, frame)
            elif not ob.out:
                return  # taken whole (or the socket is dead): nothing waits
            spawn = not wait and ob.hand_on(ob.flush())
        if wait:
            ob.drain()
        elif spawn:
            start(ob.drain, True)

    def beat_fd(self) -> int | None:
        """The socket's file descriptor when the hub can write to it without
        ever blocking (gevent's sockets are non-blocking underneath); None
        when only the library can, blocking (a blocking server, a stand-in):
        then the socket's own loop beats. Under TLS served by the app itself
        (``TABLEMATE_TLS_CERT``) the descriptor only says when the socket
        takes more: what is written goes through the TLS layer (``_writev``)."""
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
        ob = self.outbox
        if not ob.lock.acquire(blocking=False):
            return
        try:
            if not ob.accepts():
                return
            now = time.monotonic() if now is None else now
            frame = text_frame(payload)
            if not ob.direct(frame, now):
                ob.queue("pong", frame)
            spawn = ob.hand_on(ob.flush(now, held_too=True))
        finally:
            ob.lock.release()
        if spawn:
            start(ob.drain, True)

    def kick(self, code: str, message: str, close: int = CLOSE_BAD_TOKEN) -> None:
        """Tells the phone why and closes the socket (``close``: 4401 by
        default, and the phone stops reconnecting). Never waits: the error and
        the close frame go as any push, and the socket is shut once the phone
        has taken them."""
        msg = {"type": "error", **envelope(code, message)}
        ob = self.outbox
        if ob.fd is None:
            self.tell(msg)
            with ob.lock:
                ob.open = False
                try:
                    self.ws.close(reason=close, message=code)
                except Exception:  # already closed
                    pass
            return
        with ob.lock:
            if not ob.accepts():
                return
            ob.queue(None, text_frame(encode(msg)))
            ob.queue(None, close_frame(close, code))
            ob.closing = True
            spawn = ob.hand_on(ob.flush())
        if spawn:
            start(ob.drain, True)

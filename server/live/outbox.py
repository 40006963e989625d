"""What waits to be written to one socket (``Outbox``), and the writes that
never wait on its phone: a frame goes out at once as far as the socket's
buffer takes it (one non-blocking write), and what is left is written by the
socket's one writer greenlet as the phone reads. Each ``Connection`` has one.
"""

from __future__ import annotations

import fcntl
import logging
import os
import select
import socket
import ssl
import sys
import termios
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

log = logging.getLogger(__name__)

#: Seconds a socket may take nothing of what waits for it before it is given
#: up (``Connection``). A phone gives a socket up after 5 s without a frame
#: (web/live.js, ``DEAD_MS``; the server beats every 2 s), so one that still
#: reads has reconnected long before; twice that leaves a slow link alone
#: (any byte the phone takes starts the count again). Until then such a socket costs a
#: frame or two in its outbox and one greenlet waiting on it; then its phone,
#: if it is there, reconnects and resyncs by version.
STALL_LIMIT = 10.0

#: A frame waiting in a socket's outbox: its kind ("state", "presence",
#: "pong": complete, so a newer one replaces it; None: any other, or the
#: rest of a frame begun) and its bytes.
Waiting = tuple[str | None, bytes | memoryview]


class Outbox:
    """A socket's frames not taken yet, and how they are written: ``ws`` the
    library's socket, ``fd`` its descriptor when the hub may write it without
    blocking (``Connection.beat_fd``; None: only through the library)."""

    def __init__(self, ws: Any, fd: int | None) -> None:
        self.ws, self.fd = ws, fd
        #: Guards the outbox and each write; never held while waiting for a phone.
        self.lock = threading.Lock()
        self.open = True
        #: When the last frame went out: the heartbeat beats when it is old.
        self.sent_at = time.monotonic()
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
        #: Whether frames go straight to the descriptor (not through the app's own TLS).
        self.plain = fd is not None and not isinstance(getattr(ws, "sock", None), ssl.SSLSocket)

    def accepts(self) -> bool:
        """Whether a frame may still be sent: not on a closed socket, nor
        after a close frame (ours, or the library's close handshake)."""
        return self.open and not self.closing and getattr(self.ws, "connected", True)

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
            self.drain()

    def queue(self, kind: str | None, frame: bytes) -> None:
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

    def direct(self, frame: bytes, now: float) -> bool:
        """Writes ``frame`` at once when nothing waits or is held (the lock
        held): a heartbeat, a ping's answer, most pushed snapshots. True when
        done: the socket took it (what it did not take waits, as a frame
        begun, for ``flush``), or it is dead; False when the frame is for the
        outbox (``queue``). The queue and ``flush``'s bookkeeping around one
        write were about half of a heartbeat's CPU (the ``Outbox.direct`` row
        of docs/performance.md, "Why each fast path exists")."""
        if self.out or self.holding or self.stalled is not None or not self.plain:
            return False
        fd = cast(int, self.fd)
        if self.ws.sock.fileno() != fd:
            return False  # closed: ``flush`` tells (another socket may hold the number now)
        try:
            n = os.write(fd, frame)
        except BlockingIOError:
            return False
        except OSError:  # a dead peer; its own loop notices and cleans up
            self.open = False
            return True
        self.sent_at = now
        self.written += n
        if n < len(frame):
            self.out.append((None, memoryview(frame)[n:]))
        return True

    def hand_on(self, left: float | None) -> bool:
        """Whether to start the socket's writer (the lock held), after a flush
        that left something waiting (``left`` not None); at most one runs."""
        if left is None or self.writer or self.holding:
            return False
        self.writer = True
        return True

    def flush(self, now: float | None = None, held_too: bool = False) -> float | None:
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
        tls = self._tls()
        if tls is None:
            return os.writev(cast(int, self.fd), frames)
        data = b"".join(frames)
        try:
            # Through TLS: bytes written to the descriptor would skip the encryption.
            return int(tls.write(data))
        except (ssl.SSLWantWriteError, ssl.SSLWantReadError):
            # OpenSSL may have taken part of it, and must be given these very
            # bytes again: from now on they are one frame begun, which nothing
            # replaces and which goes first.
            self.out[:] = [(None, data)]
            return 0

    def _tls(self) -> Any:
        """The socket's TLS object when the app serves TLS itself, else None."""
        sock = self.ws.sock
        return getattr(sock, "_sslobj", None) if isinstance(sock, ssl.SSLSocket) else None

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

    def drain(self, writer: bool = False) -> None:
        """Writes what waits as the socket takes it, waiting (this greenlet
        alone) until it takes more. ``writer``: the socket's writer greenlet."""
        try:
            while True:
                with self.lock:
                    left = self.flush()
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

    def give_up(self) -> None:
        """Ends a socket its phone has gone silent on, or takes nothing from:
        its handler, waiting in a read without a timeout (route.py's ``receive``),
        wakes up to a closed stream. No close frame: such a peer would not
        read it."""
        self.open = False
        try:
            self.ws.sock.shutdown(socket.SHUT_RDWR)
        except (AttributeError, OSError):
            pass

"""A socket's frames read by the socket's own handler, not by a reader thread.

simple-websocket starts a reader thread per connection (a greenlet under
gevent): it reads the socket, feeds wsproto, queues whole messages and wakes
the handler, which takes them off the queue. For a phone that sends a ping
every ~8 s and an action now and then, that second greenlet was ~11 KB of the
phone's server memory and every frame paid a wake-up and a hand-over
(docs/performance.md, "Why each fast path exists"). Here the handler reads:

- ``NoThread`` is the library's documented ``thread_class`` hook (flask-sock
  passes it through ``SOCK_SERVER_OPTIONS``): the reader it is given is
  never started;
- ``receive`` is ``Server.receive`` with the reading done in the caller's own
  greenlet: recv, feed wsproto, and let the library's own event handling
  (``_handle_events``: answering protocol pings and the close handshake,
  assembling fragments, enforcing the size limit) queue the messages.
  It is the one private name used; tests/server/live/test_wsread.py runs it on the
  real library, so an upgrade that renames it fails there, not on a phone;
- a read that is exactly one whole, small, masked text frame, as a phone's
  ping or action is, is unmasked and decoded here (``whole_text``), at a
  fraction of wsproto's and the library's cost a frame (the ``wsread.py``
  row of docs/performance.md, "Why each fast path exists"; ``bench/wsread.py``). Anything
  else (a fragment, two frames in one read, a control frame, a bad frame,
  invalid UTF-8, over the size limit) goes to wsproto, which from then on
  reads that socket for good (it may hold part of a frame);
- ``finish`` closes the socket once the handler is done (the reader thread
  used to, after the peer answered the close frame; RFC 6455 §7.1.1 lets the
  server close the TCP connection first).

Sends are unchanged: the fan-out writes while the handler waits in ``recv``
(gevent lets one greenlet read a socket while another writes it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simple_websocket import ConnectionClosed

#: The shortest wait ``receive`` hands the socket: 0 would make it non-blocking.
MIN_WAIT = 0.001
#: Set on a ``simple_websocket.Server`` once wsproto has read from its socket.
LIBRARY_READS = "tablemate_library_reads"
#: The first byte of an unfragmented text frame (FIN, no RSV bits, opcode 1).
FIN_TEXT = 0x81


class NoThread:
    """simple-websocket's ``thread_class``: the reader it is given never runs."""

    def __init__(self, target: Callable[[], None]) -> None:
        self.target = target
        self.name = "simple_websocket.Base._thread (not started: server/live/wsread.py)"

    def start(self) -> None:
        pass


def receive(ws: Any, timeout: float | None) -> str | bytes | None:
    """The next whole message of ``ws`` (a ``simple_websocket.Server`` made
    with ``NoThread``), or None when none came within ``timeout`` seconds.
    Raises ``ConnectionClosed`` when the peer closed or the socket failed."""
    while not ws.input_buffer:
        if not ws.connected:
            raise ConnectionClosed(ws.close_reason, ws.close_message)
        ws.sock.settimeout(None if timeout is None else max(MIN_WAIT, timeout))
        try:
            data = ws.sock.recv(ws.receive_bytes)
        except TimeoutError:
            return None
        except OSError:
            data = b""
        if not data:
            ws.connected = False
            raise ConnectionClosed(ws.close_reason, ws.close_message)
        if not getattr(ws, LIBRARY_READS, False):
            text = whole_text(data, ws.max_message_size)
            if text is not None:
                return text
            setattr(ws, LIBRARY_READS, True)
        ws.ws.receive_data(data)
        try:
            ws.connected = ws._handle_events()
        except OSError:
            # Answering a close or a ping of a phone that already hung up breaks
            # the pipe: the phone is gone, which is a close, not a failure.
            ws.connected = False
            raise ConnectionClosed(ws.close_reason, ws.close_message) from None
    message: str | bytes = ws.input_buffer.pop(0)
    return message


def whole_text(data: bytes, limit: int | None) -> str | None:
    """The text of ``data`` when it is exactly one unfragmented, masked text
    frame (RFC 6455 §5.2) with a payload under 64 KB and ``limit``, and valid
    UTF-8; else None (and the library parses it)."""
    if len(data) < 6 or data[0] != FIN_TEXT or not data[1] & 0x80:
        return None
    size, head = data[1] & 0x7F, 6
    if size == 126:
        size, head = int.from_bytes(data[2:4], "big"), 8
        if size < 126:  # not the shortest length encoding: the library refuses it
            return None
    elif size == 127:
        return None
    if len(data) != head + size or (limit and size > limit):
        return None
    # Unmasking as one big-integer XOR: a loop over the bytes costs ~50× more.
    mask = data[head - 4:head] * (size // 4 + 1)
    payload = (int.from_bytes(data[head:], "big") ^ int.from_bytes(mask[:size], "big")).to_bytes(size, "big")
    try:
        return payload.decode()
    except UnicodeDecodeError:
        return None


def finish(ws: Any, reason: int | None = None, message: str | None = None) -> None:
    """Sends the close frame (if not sent yet) and closes the socket."""
    try:
        if ws.connected:
            ws.close(reason=reason, message=message)
    except Exception:  # noqa: BLE001 - a dead peer: nothing left to tell it
        pass
    try:
        ws.sock.close()
    except OSError:
        pass

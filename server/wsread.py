"""A socket's frames read by the socket's own handler, not by a reader thread.

simple-websocket starts a reader thread per connection (a greenlet under
gevent): it reads the socket, feeds wsproto, queues whole messages and wakes
the handler, which takes them off the queue. For a phone that sends a ping
every ~8 s and an action now and then, that second greenlet was ~11 KB of the
phone's server memory and every frame paid a wake-up and a hand-over
(docs/performance.md, "One greenlet per socket"). Here the handler reads:

- ``NoThread`` is the library's documented ``thread_class`` hook (flask-sock
  passes it through ``SOCK_SERVER_OPTIONS``): the reader it is given is
  never started;
- ``receive`` is ``Server.receive`` with the reading done in the caller's own
  greenlet: recv, feed wsproto, and let the library's own event handling
  (``_handle_events``: answering protocol pings and the close handshake,
  assembling fragments, enforcing the size limit) queue the messages.
  It is the one private name used; tests/server/test_wsread.py runs it on the
  real library, so an upgrade that renames it fails there, not on a phone;
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


class NoThread:
    """simple-websocket's ``thread_class``: the reader it is given never runs."""

    def __init__(self, target: Callable[[], None]) -> None:
        self.target = target
        self.name = "simple_websocket.Base._thread (not started: server/wsread.py)"

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
        ws.ws.receive_data(data)
        ws.connected = ws._handle_events()
    message: str | bytes = ws.input_buffer.pop(0)
    return message


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

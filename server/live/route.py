"""WebSocket adapter: one socket's life, from its upgrade to its close: the
first snapshot, then its frames read and handled (actions, syncs, pings)
until it closes. Who may open one is ``admission.py``; the fan-out (which
sockets this process holds, what a change sends them) is ``hub.py``.

Liveness: the server sends every socket a frame at least every ``liveness.BEAT`` s
(a ``pong`` when nothing else went out, a fiftieth of the sockets every 20 ms or, with
few sockets, more at once: ``liveness.sweep_step``), and a phone
gives a socket up after 5 s of silence; phones ``ping`` every ~8 s, each
answered at once (no store round trip), and the server closes a socket it has
not heard from for ``SILENT_LIMIT`` s. Presence (which seats have a live
socket, on any instance) is kept in the store: written on connect and close,
and refreshed for all of a process's recently heard sockets together
(``Liveness.refresh``); a change is pushed to the table's phones as a ``presence``
frame, without a version bump.

A socket's frames are read by the socket's own handler, not by a reader thread.
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
  fraction of wsproto's and the library's cost a frame (the ``route.py``
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

import logging
import time
from collections.abc import Callable
from typing import Any, cast

from flask import Flask, g
from flask_sock import Sock
from simple_websocket import ConnectionClosed

from server import wire
from server.errors import ServiceError, StoreDown, envelope, store_unavailable
from server.live.admission import CLOSE_TOO_MANY, PROTOCOL, check_handshakes
from server.live.connection import Connection
from server.live.hub import Hub
from server.live.liveness import BEAT, SILENT_LIMIT
from server.service import Tables

log = logging.getLogger(__name__)

RATE_PER_SECOND = 20.0
RATE_BURST = 40.0
FLOOD_STRIKES = 40
#: The web client's ping, byte for byte (web/live.js sends ``{type: 'ping'}``).
PING = '{"type":"ping"}'

SocketView = Callable[[Any, str], None]

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
        self.name = "simple_websocket.Base._thread (not started: server/live/route.py)"

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


class TokenBucket:
    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.level = burst
        self.t = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.t) * self.rate)
        self.t = now
        if self.level >= 1:
            self.level -= 1
            return True
        return False


def _error(code: str, message: str, request_id: Any = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"type": "error", **envelope(code, message)}
    if request_id is not None:
        msg["request_id"] = request_id
    return msg


def _handle(conn: Connection, tables: Tables, raw: Any) -> None:
    if raw == PING:  # what every phone sends: skip the parser
        # No store round trip: the hub refreshes every socket's presence together
        # (Liveness.refresh). The pong is the heartbeat's: this socket's version.
        conn.beat()
        return
    if not isinstance(raw, str):
        # The protocol is JSON text; a binary frame is some other client's data,
        # never an action, even when its bytes happen to be JSON.
        conn.send(_error("binary_frame", "Messages must be text frames of JSON, not binary."))
        return
    try:
        msg = wire.parse(raw)
    except ServiceError as exc:  # not JSON, or nested too deep to parse safely
        conn.send({"type": "error", **exc.envelope()})
        return
    if not isinstance(msg, dict):
        conn.send(_error("invalid_json", "Messages must be JSON objects."))
        return
    kind = msg.get("type")
    rid = msg.get("request_id") if isinstance(msg.get("request_id"), str) else None
    try:
        if kind == "action":
            body = {k: msg[k] for k in ("action", "request_id", "version", "as") if k in msg}
            with conn.outbox.corked():  # the table's new state and this result: one send
                result = tables.act(conn.table_id, conn.token, body)
                conn.send({"type": "result", "request_id": rid, **result})
        elif kind == "sync":
            doc = tables.load(conn.table_id)
            if msg.get("version") != doc["version"]:
                conn.send_state(tables.snapshot(doc, conn.player), force=True)
        elif kind == "ping":
            conn.beat()
        else:
            conn.send(_error("unknown_type", f"Unknown message type {kind!r}.", rid))
    except ServiceError as exc:
        frame: dict[str, Any] = {"type": "error", **({"request_id": rid} if rid else {}), **exc.envelope()}
        if exc.kind == "rate_limited" and exc.retry_after is not None:  # HTTP's Retry-After
            frame["retry_after"] = exc.retry_after
        conn.send(frame)
    except StoreDown as exc:
        log.warning("store error on a socket action: %s: %s", type(exc).__name__, exc)
        conn.send({"type": "error", **store_unavailable().envelope()})


def leave(conn: Connection, hub: Hub) -> None:
    if conn.member is None:
        return
    try:
        hub.presence.drop(conn.table_id, conn.member)
    except StoreDown:
        pass  # the member expires by itself within PRESENCE_TTL


def init_app(app: Flask, hub: Hub) -> None:
    sock = Sock(app)
    admission = check_handshakes(app, hub.tables)
    silent_limit = hub.liveness.silent_limit = float(app.config.get("WS_SILENT_LIMIT", SILENT_LIMIT))
    # The phones' own pings (each a frame to parse) can be rare: the server's
    # heartbeat tells a phone it is there (liveness.BEAT).
    beat = hub.liveness.beat_every = float(app.config.get("WS_BEAT", BEAT))
    hub.liveness.host_away = float(app.config.get("HOST_AWAY", hub.liveness.host_away))
    app.config["SOCK_SERVER_OPTIONS"] = {
        "max_message_size": app.config["WS_MAX_MESSAGE"],
        # The protocol the server answers with; the token's entry is never echoed.
        "subprotocols": [PROTOCOL],
        # Each socket's handler reads its own frames (``receive``).
        "thread_class": NoThread,
    }

    # flask_sock is untyped: name the decorator's type so the view stays typed.
    route: Callable[[SocketView], SocketView] = sock.route("/api/tables/<table_id>/ws", endpoint="table_socket")

    @route
    def table_socket(ws: Any, table_id: str) -> None:
        tables: Tables = hub.tables
        player, token = g.ws_auth
        hub.ensure_listening()
        conn = Connection(ws, table_id, player, token)
        bucket = TokenBucket(RATE_PER_SECOND, RATE_BURST)
        strikes = 0
        try:
            try:
                # Registered, and the table's channel heard, before the snapshot
                # is loaded, so no change can fall in between.
                hub.add(conn)
                for old in admission.seated(conn):
                    cast(Connection, old).kick("too_many_sockets", "This seat is open on too many phones; "
                                               "this one was the oldest.", CLOSE_TOO_MANY)
                # Presence touched and read in one round trip; the snapshot's
                # frame is shared with the seat's other phones (hub.frame).
                online = hub.read_presence(table_id, hub.presence.touch(
                    table_id, conn.member, read=True) if conn.member is not None else None)
                conn.listed = conn.member is not None
                doc = tables.load(table_id)
                conn.send_encoded(doc["version"], hub.frame(doc, player, online), online=online)
                # This frame lives as long as the socket: keep no document in it.
                del doc
                if conn.member is not None:
                    hub.presence.announce(table_id)
            except StoreDown:
                # No snapshot to start from: tell the phone and let it come back
                # (1013 = try again later); its reconnect backoff spreads the load.
                conn.send({"type": "error", **store_unavailable().envelope()})
                ws.close(reason=1013, message="store unavailable")
                return
            conn.heard = time.monotonic()
            while conn.outbox.open:
                # A phone that went silent (its Wi-Fi dropped without a FIN) is
                # given up after SILENT_LIMIT: the close handshake could take minutes.
                now = time.monotonic()
                left = silent_limit - (now - conn.heard)
                if left <= 0:
                    ws.close(reason=1001, message="silent")
                    break
                # The hub beats this socket and gives it up when silent
                # (Liveness.beat_all), so the read needs no timer of its own.
                wait: float | None = None
                if conn.outbox.fd is None:  # the hub cannot beat this one without blocking
                    quiet = beat - (now - conn.outbox.sent_at)
                    if quiet <= 0:
                        conn.beat()
                        continue
                    wait = min(left, quiet)
                raw = receive(ws, wait)
                if raw is None:
                    continue
                conn.heard = time.monotonic()
                if not bucket.take():
                    strikes += 1
                    if strikes >= FLOOD_STRIKES:
                        ws.close(reason=1008, message="flood")
                        break
                    conn.send(_error("rate_limited", "Too many messages; slow down."))
                    continue
                _handle(conn, tables, raw)
        except ServiceError as exc:
            conn.send({"type": "error", **exc.envelope()})
        except ConnectionClosed:
            pass
        except Exception:
            # Never let an error escape after the upgrade: the server would
            # write an HTTP 500 onto the socket and read frames as requests.
            log.exception("socket handler failed")
            conn.send(_error("internal", "Something went wrong on the server; reconnecting."))
        finally:
            admission.left(conn)
            hub.remove(conn)
            leave(conn, hub)
            finish(ws)

    app.extensions["tablemate.sock"] = sock

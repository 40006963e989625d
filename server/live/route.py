"""WebSocket adapter: the socket route, its messages, liveness.

The fan-out (which sockets this process holds, what a change sends them) is
``server/live/hub.py``; this module is one socket's life: authenticate before the
upgrade, the first snapshot, then actions, syncs and pings until it closes.

Liveness: the server sends every socket a frame at least every ``liveness.BEAT`` s
(a ``pong`` when nothing else went out, a fiftieth of the sockets every 20 ms or, with
few sockets, more at once: ``liveness.sweep_step``), and a phone
gives a socket up after 5 s of silence; phones ``ping`` every ~8 s, each
answered at once (no store round trip), and the server closes a socket it has
not heard from for ``SILENT_LIMIT`` s. Presence (which seats have a live
socket, on any instance) is kept in the store: written on connect and close,
and refreshed for all of a process's recently heard sockets together
(``hub.refresh``); a change is pushed to the table's phones as a ``presence``
frame, without a version bump.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, cast

from flask import Flask, current_app, g, request
from flask_sock import Sock
from simple_websocket import ConnectionClosed

from server import wire
from server.client import client_address, origin_ok
from server.errors import ServiceError, StoreDown, envelope, store_unavailable
from server.live import wsread
from server.live.admission import CLOSE_TOO_MANY, Admission, Caps
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

#: The socket's subprotocol. A seated phone also offers ``TOKEN_PROTOCOL`` +
#: its seat token (``new WebSocket(url, ["tablemate", "tablemate.token." +
#: token])``): the handshake's headers, unlike its URL, are not kept by
#: proxies, browser histories or access logs. Seat tokens are URL-safe base64,
#: which a subprotocol may hold as it is.
PROTOCOL = "tablemate"
TOKEN_PROTOCOL = "tablemate.token."


def socket_token(header: str | None) -> str | None:
    """The seat token a handshake's ``Sec-WebSocket-Protocol`` offers, None
    for a spectator.

    >>> socket_token("tablemate, tablemate.token.abc_D-1")
    'abc_D-1'
    >>> socket_token("tablemate") is None, socket_token(None) is None
    (True, True)
    >>> socket_token("tablemate.token.")  # an empty token opens no seat
    '\\x00invalid'
    """
    for entry in (header or "").split(","):
        entry = entry.strip()
        if entry.startswith(TOKEN_PROTOCOL):
            # Like a malformed Authorization header: a bad token, never the spectator.
            return entry[len(TOKEN_PROTOCOL):] or "\x00invalid"
    return None


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
        # (hub.refresh). The pong is the heartbeat's: this socket's version.
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
    admission = Admission(Caps(per_seat=int(app.config["WS_PER_SEAT"]),
                               per_address=int(app.config["WS_PER_ADDRESS"]),
                               total=int(app.config["WS_MAX"])))
    app.extensions["tablemate.admission"] = admission
    silent_limit = hub.liveness.silent_limit = float(app.config.get("WS_SILENT_LIMIT", SILENT_LIMIT))
    # The phones' own pings (each a frame to parse) can be rare: the server's
    # heartbeat tells a phone it is there (liveness.BEAT).
    beat = hub.liveness.beat_every = float(app.config.get("WS_BEAT", BEAT))
    hub.liveness.host_away = float(app.config.get("HOST_AWAY", hub.liveness.host_away))
    app.config["SOCK_SERVER_OPTIONS"] = {
        "max_message_size": app.config["WS_MAX_MESSAGE"],
        # The protocol the server answers with; the token's entry is never echoed.
        "subprotocols": [PROTOCOL],
        # Each socket's handler reads its own frames (server/live/wsread.py).
        "thread_class": wsread.NoThread,
    }

    @app.before_request
    def authenticate_socket() -> Any:
        # Refuse before the upgrade, so a client sees a real 401/404/403.
        if request.endpoint != "table_socket":
            return None
        if not origin_ok():
            raise ServiceError("forbidden", "bad_origin", "This socket must be opened from this site.")
        if not current_app.config["WS_COMPRESSION"]:
            # simple-websocket accepts permessage-deflate whenever a client
            # offers it, and its compressor state cost most of a phone's memory
            # for messages of a few KB (docs/performance.md, "Why each fast path
            # exists", the per-message deflate row). Declining is the
            # client's offer not reaching the handshake: no library patched.
            request.environ.pop("HTTP_SEC_WEBSOCKET_EXTENSIONS", None)
        if "token" in request.args:
            # A URL is kept by proxies, browser histories and access logs: the
            # seat token travels in the handshake's subprotocol list instead.
            raise ServiceError("invalid", "token_in_url",
                           f"Send the seat token as the subprotocol '{TOKEN_PROTOCOL}<token>', not in the URL.")
        table_id = request.view_args["table_id"] if request.view_args else ""
        doc = hub.tables.load(table_id)
        token = socket_token(request.headers.get("Sec-WebSocket-Protocol"))
        seat = hub.tables.authenticate(doc, token)
        address = client_address()
        admission.admit(address)  # released when the request ends (below)
        g.ws_address = address
        # Not the document: ``g`` lives as long as the socket, and a decoded
        # document per phone was about half of a phone's server memory
        # (docs/performance.md, "Why each fast path exists").
        g.ws_auth = (seat["id"] if seat else None, token)
        return None

    @app.teardown_request
    def release_socket(_exc: BaseException | None) -> None:
        address = g.pop("ws_address", None)
        if address is not None:
            admission.release(address)

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
                # (Hub.beat_all), so the read needs no timer of its own.
                wait: float | None = None
                if conn.outbox.fd is None:  # the hub cannot beat this one without blocking
                    quiet = beat - (now - conn.outbox.sent_at)
                    if quiet <= 0:
                        conn.beat()
                        continue
                    wait = min(left, quiet)
                raw = wsread.receive(ws, wait)
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
            wsread.finish(ws)

    app.extensions["tablemate.sock"] = sock

"""Who may open a socket on this process: the handshake's checks before the
upgrade (Origin, the seat's token, no token in the URL: ``check_handshakes``), and
caps per seat, per client address and in all, so no phone, and no address,
can take what the others need.

Checked before the upgrade (a refusal is a real HTTP answer with the error
envelope). The process cap stays below gunicorn's ``worker_connections``
(``TABLEMATE_MAX_CONNECTIONS``): a greenlet serves each connection, sockets
and HTTP alike, and with every greenlet held by a socket no page, join or
action over HTTP would be served at all. Per process, not across instances:
what one address or seat can hold is then bounded by the instance count, and
a socket's life needs no store round trip of its own.
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Protocol

from flask import Flask, current_app, g, request

from server.client import client_address, origin_ok
from server.errors import ServiceError
from server.service import Tables

#: The close code of a socket pushed out by a newer one of the same seat
#: (``SEAT_SOCKETS`` reached): the phone says so instead of reconnecting.
CLOSE_TOO_MANY = 4409

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


class Seated(Protocol):
    table_id: str
    player: str | None


@dataclass(frozen=True)
class Caps:
    #: Sockets one seat may hold on this process; a newer one pushes the
    #: oldest out (it is usually one the phone's dropped Wi-Fi left behind).
    per_seat: int = 5
    #: Sockets from one client address (a family or a café behind one NAT).
    per_address: int = 64
    #: Sockets in all on this process.
    total: int = 9000


class Admission:
    def __init__(self, caps: Caps) -> None:
        self.caps = caps
        self.lock = threading.Lock()
        self.total = 0
        self.by_address: Counter[str] = Counter()
        self.by_seat: dict[tuple[str, str], list[Seated]] = defaultdict(list)

    def admit(self, address: str) -> None:
        """Takes a socket's place for ``address``, or refuses it: ``503
        server_full`` at the process cap, ``429 too_many_sockets`` at the
        address's. ``release`` gives the place back."""
        with self.lock:
            if self.total >= self.caps.total:
                raise ServiceError("unavailable", "server_full", "This server holds all the live connections it can; "
                               "retrying shortly.", retry_after=5)
            if self.by_address[address] >= self.caps.per_address:
                raise ServiceError("rate_limited", "too_many_sockets", "Too many live connections from this network.",
                               retry_after=10)
            self.total += 1
            self.by_address[address] += 1

    def release(self, address: str) -> None:
        with self.lock:
            self.total -= 1
            self.by_address[address] -= 1
            if self.by_address[address] <= 0:
                del self.by_address[address]

    def seated(self, conn: Seated) -> list[Seated]:
        """Registers a seated socket; what it pushes out of its seat's cap (oldest first)."""
        if conn.player is None:
            return []
        with self.lock:
            held = self.by_seat[(conn.table_id, conn.player)]
            held.append(conn)
            over = len(held) - self.caps.per_seat
            out, held[:] = (held[:over], held[over:]) if over > 0 else ([], held)
            return out

    def left(self, conn: Seated) -> None:
        if conn.player is None:
            return
        with self.lock:
            key = (conn.table_id, conn.player)
            held = self.by_seat.get(key)
            if held is not None:
                if conn in held:
                    held.remove(conn)
                if not held:
                    del self.by_seat[key]


def check_handshakes(app: Flask, tables: Tables) -> Admission:
    """Checks every socket's handshake before its upgrade (``table_socket``'s
    endpoint) and takes its place under the caps until its request ends; the
    socket's handler finds its seat and token in ``g.ws_auth``."""
    admission = Admission(Caps(per_seat=int(app.config["WS_PER_SEAT"]),
                               per_address=int(app.config["WS_PER_ADDRESS"]),
                               total=int(app.config["WS_MAX"])))
    app.extensions["tablemate.admission"] = admission

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
        doc = tables.load(table_id)
        token = socket_token(request.headers.get("Sec-WebSocket-Protocol"))
        seat = tables.authenticate(doc, token)
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

    return admission

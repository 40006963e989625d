"""Talking to a live server process like a phone does: HTTP + WebSocket."""

from __future__ import annotations

import itertools
import json
import ssl
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import websocket

from tests.words import worded

_ids = itertools.count()


def http(base: str, method: str, path: str, body: Any = None, token: str | None = None,
         context: ssl.SSLContext | None = None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=10, context=context) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def history_entries(base: str, table: str, token: str | None = None, lang: str = "en") -> list[dict[str, Any]]:
    """Every history entry, oldest first, read page by page (``next_before``),
    each with its ``text`` as a phone in ``lang`` words it."""
    entries: list[dict[str, Any]] = []
    query = ""
    while True:
        status, page = http(base, "GET", f"/api/tables/{table}/history{query}", None, token)
        assert status == 200, page
        entries[:0] = [e for r in worded(page, lang)["rounds"] for e in r["entries"]]
        if not page["more"]:
            return entries
        query = f"?before={page['next_before']}"


def socket_protocols(token: str | None) -> list[str]:
    """What a phone offers as the socket's subprotocols: its seat token rides there, not in the URL."""
    return ["tablemate", f"tablemate.token.{token}"] if token else ["tablemate"]


class LivePhone:
    def __init__(self, base: str, table: str, pid: str | None, token: str | None) -> None:
        self.base, self.table, self.id, self.token = base, table, pid, token
        #: For a server that serves TLS itself: the client's TLS context and websocket-client's sslopt.
        self.ssl: ssl.SSLContext | None = None
        self.sslopt: dict[str, Any] | None = None
        self.ws: websocket.WebSocket | None = None
        self.version = 0
        self.last: dict[str, Any] | None = None
        self.inbox: list[dict[str, Any]] = []
        #: ``presence`` frames, kept aside: they arrive whenever a phone comes or goes.
        self.presence: list[dict[str, Any]] = []
        self._pinger: threading.Event | None = None

    def keep_alive(self, every: float = 2.0) -> None:
        """Pings from a thread of its own until closed, as a real phone does
        (``web/live.js``, every 8 s): a socket silent for the server's presence
        limit counts as gone, so a test whose phones never ping passed or failed
        by how fast the machine ran it."""
        stop = self._pinger = threading.Event()

        def ping() -> None:
            while not stop.wait(every):
                ws = self.ws
                if ws is None:
                    return
                try:
                    ws.send(json.dumps({"type": "ping"}))
                except (websocket.WebSocketException, OSError):
                    return
        threading.Thread(target=ping, daemon=True).start()

    def connect(self, base: str | None = None) -> dict[str, Any]:
        base = base or self.base
        url = base.replace("http", "ws", 1) + f"/api/tables/{self.table}/ws"
        self.ws = websocket.create_connection(url, timeout=10, subprotocols=socket_protocols(self.token),
                                              sslopt=self.sslopt)
        return self.wait_state(lambda s: True)

    def recv(self, timeout: float = 10, presence: bool = False) -> dict[str, Any]:
        """The next message; ``presence`` frames are set aside unless asked for."""
        assert self.ws is not None
        deadline = time.monotonic() + timeout
        while True:
            self.ws.settimeout(max(0.01, deadline - time.monotonic()))
            raw = self.ws.recv()
            if not raw:  # websocket-client returns "" on a close frame
                raise ConnectionError("socket closed by the server")
            msg = json.loads(raw)
            if msg.get("type") != "presence" or presence:
                break
            self.presence.append(msg)
        if msg.get("type") == "state":
            # A resync after a store outage may repeat the current version; never an older one.
            assert msg["version"] >= self.version, f"socket went back: {msg['version']} after {self.version}"
            self.version = msg["version"]
            self.last = msg
        return msg

    def wait_state(self, pred, timeout: float = 10) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching state; last version {self.version}")
            msg = self.recv(left)
            if msg["type"] == "state" and pred(msg):
                return msg
            self.inbox.append(msg)

    def wait_message(self, kind: str, timeout: float = 10) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {kind} message")
            msg = self.recv(left, presence=kind == "presence")
            if msg["type"] == kind:
                return msg

    def wait_version(self, version: int, timeout: float = 10) -> dict[str, Any]:
        if self.version >= version and self.last is not None:
            return self.last
        return self.wait_state(lambda s: s["version"] >= version, timeout)

    def send(self, msg: dict[str, Any]) -> None:
        assert self.ws is not None
        self.ws.send(json.dumps(msg))

    def act_http(self, type_: str, request_id: str | None = None, **payload: Any) -> tuple[int, Any]:
        return http(self.base, "POST", f"/api/tables/{self.table}/actions",
                    {"action": {"type": type_, **payload}, "request_id": request_id or f"r{next(_ids)}"},
                    self.token, self.ssl)

    def close(self) -> None:
        if self._pinger is not None:
            self._pinger.set()
            self._pinger = None
        if self.ws is not None:
            self.ws.close()
            self.ws = None


def take_seat(base: str, host: LivePhone, pid: str) -> str:
    """A new phone's token for seat ``pid``, redeemed with the host's rejoin code."""
    status, body = http(base, "POST", f"/api/tables/{host.table}/players/{pid}/rejoin", {}, host.token)
    assert status == 200, body
    status, body = http(base, "POST", f"/api/tables/{host.table}/claim", {"claim": body["claim"]})
    assert status == 201, body
    return str(body["player"]["token"])


def open_live_table(base: str, joiners: int = 2, options: dict | None = None,
                    ssl_context: ssl.SSLContext | None = None, game: str = "toy",
                    names: list[str] | None = None) -> list[LivePhone]:
    """A table of ``game`` made by "Host" and joined by ``names`` (default
    ``joiners`` seats P2, P3, ...): one phone per seat, host first, none connected."""
    status, body = http(base, "POST", "/api/tables", {"game": game, "name": "Host", "options": options or {}},
                        context=ssl_context)
    assert status == 201, body
    table = body["table"]
    phones = [LivePhone(base, table, "p1", body["player"]["token"])]
    for name in names if names is not None else [f"P{i + 2}" for i in range(joiners)]:
        status, j = http(base, "POST", f"/api/tables/{table}/players", {"name": name}, context=ssl_context)
        assert status == 201, j
        phones.append(LivePhone(base, table, j["player"]["id"], j["player"]["token"]))
    for p in phones:
        p.ssl = ssl_context
    return phones

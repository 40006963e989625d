"""The phones: each seat of a table as a WebSocket client that speaks the server's
protocol as web/ does. It takes snapshots (``state``), pings every 8 s and gets the
server's heartbeat, reconnects with the web client's backoff after a close, answers
a draw waiting for it with the next link of its own hash chain (web/screens/fair-chain.js),
and tells when a driven action has reached every phone of its table, the latency
a run measures."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any, cast

import orjson
import picows

from tests.sealed_votes import VoteSeals

#: The web client's liveness ping (web/live.js PING_MS): part of what a phone costs.
PING_S = 8.0
PING = '{"type":"ping"}'
PONG = b'{"type":"pong"'
#: Links per phone's hash chain (web/screens/fair-chain.js's CHAIN_LENGTH).
CHAIN_LENGTH = 256

@dataclass
class Phone:
    table: Table
    pid: str
    token: str
    base: str
    ws: Any = None
    version: int = 0
    legal: list[dict[str, Any]] = field(default_factory=list)
    view: dict[str, Any] = field(default_factory=dict)
    #: The snapshot's fair part (``to_seal``, ``sealed``): a King Up vote is sealed from it.
    fair: dict[str, Any] = field(default_factory=dict)
    #: This phone's hash chain ([anchor, c_1, ...]) and links revealed so far.
    chain: list[str] = field(default_factory=list)
    used: int = 0
    #: The draw it answered last (a draw is answered once).
    answered: int = -1


@dataclass
class Table:
    id: str
    game: str
    phones: list[Phone] = field(default_factory=list)
    #: The King Up votes its phones sealed, kept until they open them (the app's sealing.js).
    seals: VoteSeals = field(default_factory=VoteSeals)
    busy: bool = False
    sent_at: float = 0.0
    want: int = 0          # the version the in-flight action produced (0: unknown yet)
    #: The in-flight action was announced as a draw (this id): it is done when
    #: the draw is made, after every phone's link, not at the announce.
    drawing: int = 0
    #: The newest version a phone of it saw with no draw pending.
    settled: int = 0


class Stats:
    """What the phones and the driver count over a run."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        #: (when sent, perf_counter s; latency s; game; seats) of every action, for --samples.
        self.samples: list[tuple[float, float, str, int]] = []
        self.errors: dict[str, int] = {}
        self.actions = 0
        self.connect_errors = 0
        self.connected = 0
        self.reconnects = 0
        #: The first few error messages, as the server wrote them.
        self.error_samples: list[str] = []

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1


@dataclass
class Crowd:
    """What every phone of a run shares: its counts, how a socket carries the seat
    token, and whether the run is over (closes from then on are ours, not the server's)."""
    stats: Stats
    #: The token in the socket's URL, as servers before issue 30 read it (``--token-in-url``).
    token_in_url: bool = False
    stopping: bool = False


class Link(picows.WSListener):
    """One phone's socket (picows: parsing in compiled code, a callback per frame).

    The generator plays thousands of phones in one event loop, so whatever it spends
    on a frame delays every other phone's frames, and that delay lands in the
    measured latency of any action then in flight. With websockets' asyncio client
    (a queue and a task wake-up per message) the generator took 23-24 % of a core
    and paused for up to 26-29 ms at 5,000 phones / 100/s; with this one 13-15 % and
    5-7 ms (alternated on 2026-12-02; the A/B is in docs/performance.md's git
    history). A frame is handled here in the read callback, with no task in
    between."""

    def __init__(self, phone: Phone, stats: Stats) -> None:
        super().__init__()
        self.phone, self.stats = phone, stats
        self.transport: Any = None
        self.close_code: picows.WSCloseCode | None = None
        self.parts: list[bytes] = []

    def on_ws_connected(self, transport: picows.WSTransport) -> None:
        self.transport = transport

    async def send(self, text: str) -> None:
        """Like websockets' ``send``: raises ``ConnectionError`` once closed."""
        if self.transport is None or self.transport.is_disconnected:
            raise ConnectionError("closed")
        self.transport.send(picows.WSMsgType.TEXT, text.encode())

    async def close(self) -> None:
        if self.transport is not None and not self.transport.is_disconnected:
            self.transport.send_close(picows.WSCloseCode.OK)
            self.transport.disconnect()

    async def closed(self) -> None:
        await self.transport.wait_disconnected()

    def on_ws_frame(self, transport: picows.WSTransport, frame: picows.WSFrame) -> None:
        kind = frame.msg_type
        if kind == picows.WSMsgType.CLOSE:
            self.close_code = frame.get_close_code()
            transport.send_close(self.close_code or picows.WSCloseCode.OK)
            transport.disconnect()
            return
        if kind == picows.WSMsgType.PING:
            transport.send_pong(frame.get_payload_as_bytes())
            return
        if kind == picows.WSMsgType.CONTINUATION or not frame.fin:
            # The server sends whole frames; a fragmented message is still read right.
            self.parts.append(frame.get_payload_as_bytes())
            if not frame.fin:
                return
            raw, self.parts = b"".join(self.parts), []
        elif kind == picows.WSMsgType.TEXT:
            raw = frame.get_payload_as_bytes()
        else:
            return
        try:
            self.message(raw)
        except Exception as exc:  # a bug in this client must show, not hide as latency
            self.stats.error(f"client_{type(exc).__name__}")

    def message(self, raw: bytes) -> None:
        if raw.startswith(PONG):  # the server's heartbeat: nothing to measure
            return
        # orjson: the stdlib parsed a snapshot in twice the time (32 vs 15 us for
        # 2.5 KB), and every phone's parse is in the latency.
        msg = orjson.loads(raw)
        phone, stats = self.phone, self.stats
        table = phone.table
        kind = msg["type"]
        if kind == "state":
            v = msg["version"]
            if v <= phone.version:
                return
            phone.version, phone.legal, phone.view = v, msg["legal"], msg["view"]
            phone.fair = msg.get("fair") or {}
            pending = (msg.get("fair") or {}).get("pending")
            if pending is not None:
                _answer(phone, stats, pending)  # a (re)load while a draw waits
            else:
                table.settled = max(table.settled, v)
                if table.drawing and v > table.drawing and not table.want:
                    table.want = v  # the draw is made: the roll lands on every phone at this version
            _maybe_finish(table, stats)
        elif kind == "draw":
            # A draw announced, or a link of it taken: one small frame for the
            # table (docs/api.md), answered as the web client does.
            if msg["version"] >= phone.version and msg.get("pending"):
                _answer(phone, stats, msg["pending"])
        elif kind == "result":
            rid = msg.get("request_id") or ""
            if rid.startswith("L"):
                return  # a phone's link, not the driven action
            if any(e.get("type") == "draw_pending" for e in msg.get("events", ())):
                table.drawing = msg["version"]
                if table.settled > table.drawing:  # made before this answer came
                    table.want = table.settled
            else:
                table.want = msg["version"]
            _maybe_finish(table, stats)
        elif kind == "error":
            stats.error(msg["error"]["code"])
            if len(stats.error_samples) < 5:
                stats.error_samples.append(f"{table.game}: {msg['error']}")
            if msg.get("request_id"):
                table.busy = False


_link_ids = itertools.count()


def _answer(phone: Phone, stats: Stats, pending: dict[str, Any]) -> None:
    """As the web client: a draw waiting for this phone gets its next link at once."""
    if phone.pid in pending["waiting"] and phone.answered != pending["draw"] and phone.chain:
        phone.answered = pending["draw"]
        phone.used += 1
        _send(phone, stats, {"type": "link", "draw": pending["draw"], "link": phone.chain[phone.used]})


def _send(phone: Phone, stats: Stats, action: dict[str, Any]) -> None:
    """An action this phone sends by itself (its link), not a driven one."""
    try:
        phone.ws.transport.send(picows.WSMsgType.TEXT, json.dumps(
            {"type": "action", "action": action, "request_id": f"L{next(_link_ids)}"}).encode())
    except Exception:
        stats.error("link_send_failed")


async def _connect(phone: Phone, crowd: Crowd, url: str, attempts: int) -> Link | None:
    for attempt in range(attempts):
        try:
            _, link = await asyncio.wait_for(picows.ws_connect(
                lambda: Link(phone, crowd.stats), url, max_frame_size=2**22,
                websocket_handshake_timeout=60,
                # The seat token rides in the subprotocols, as the web client sends it.
                extra_headers=None if crowd.token_in_url else
                {"Sec-WebSocket-Protocol": f"tablemate, tablemate.token.{phone.token}"}), 60)
            return cast(Link, link)
        except Exception:
            if crowd.stopping or attempt == attempts - 1:
                return None
            await asyncio.sleep(0.2 * (attempt + 1))
    return None


async def phone_loop(phone: Phone, crowd: Crowd) -> None:
    """One phone for the whole run: connects, and reconnects after any close the
    run did not make."""
    stats = crowd.stats
    url = phone.base.replace("http", "ws", 1) + f"/api/tables/{phone.table.id}/ws"
    if crowd.token_in_url:  # a build from before the token rode in the subprotocol
        url += f"?token={phone.token}"
    phone.ws = await _connect(phone, crowd, url, 5)
    if phone.ws is None:
        stats.connect_errors += 1
        return
    stats.connected += 1
    while True:
        await phone.ws.closed()
        if crowd.stopping:
            return
        code: picows.WSCloseCode | str = phone.ws.close_code or "abnormal"
        # Like the web client after 1013 (try again later): back off, reconnect and
        # resync from the fresh snapshot the server sends at connect.
        stats.error(f"closed_{code}")
        ws = None
        for attempt in range(1, 11):
            # web/net.js's backoff: equal jitter, doubling from 0.5 s up to 15 s; its count
            # restarts once a socket opens, so a 1013 right after opening waits 0.25-0.5 s.
            cap = min(15.0, 0.5 * 2 ** (attempt - 1))
            await asyncio.sleep(cap / 2 + random.random() * cap / 2)
            if crowd.stopping:
                return
            ws = await _connect(phone, crowd, url, 1)
            if ws is not None:
                break
        if ws is None:
            stats.error("reconnect_failed")
            return
        phone.ws = ws
        stats.reconnects += 1


async def pinger(phones: list[Phone], crowd: Crowd, every: float = PING_S) -> None:
    """Every phone pings every ``every`` s like web/net.js (the server closes a socket
    silent for 25 s with 1001), spread evenly: one slice of the phones per tick."""
    slices = 100
    for tick in itertools.count():
        await asyncio.sleep(every / slices)
        if crowd.stopping:
            return
        for phone in phones[tick % slices::slices]:
            if phone.ws is not None:
                try:
                    await phone.ws.send(PING)
                except ConnectionError:
                    pass  # its phone_loop sees the close and reconnects


def _maybe_finish(table: Table, stats: Stats) -> None:
    # Done when every phone of the table holds the new version (or a newer one:
    # the server never sends an older snapshot after a newer one).
    if table.busy and table.want and all(p.version >= table.want for p in table.phones):
        stats.latencies.append(time.perf_counter() - table.sent_at)
        stats.samples.append((table.sent_at, stats.latencies[-1], table.game, len(table.phones)))
        stats.actions += 1
        table.busy = False

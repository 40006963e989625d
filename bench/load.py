"""Load benchmark: N phones on WebSockets over real games, on 1..k instances.

    python bench/load.py --phones 5000 --rate 100 --duration 60 --instances 1
    python bench/load.py --short          # a few hundred phones for a few seconds

It starts its own redis-server (or uses --redis-url) and the server in its
production serving model (gunicorn + gevent, server/gunicorn_conf.py), creates
tables of 3-8 seats across every registered game, connects every seat's phone
as a WebSocket client, then drives real legal actions at --rate per second (at
most one in flight per table, like a real table). Latency is measured from an
action being sent to the LAST phone of that table receiving the new version.
Prints phones connected, connect errors, reconnects, actions/s, latency
percentiles (p50/p95/p99/max), errors, server CPU (per cent of a core and ms per
action), server RSS (total and per phone), and Redis memory per table. Only
loopback traffic. Per instance (``per_instance``, from each one's /healthz with
the operator's token): its own actions (the changes it committed), the messages
and bytes its listener heard from Redis, each per own action, and its CPU per
own action; with ``--affinity table`` (every phone of a table on that table's
instance) these show what scaling out costs each instance:

    python bench/load.py --phones 2000 --rate 100 --instances 4 --affinity table

The generator must not distort what it measures:
- its garbage collector is frozen and disabled for the driven period (a full
  collection over 5,000 phones' objects paused it for up to 0.5 s);
- its phones are picows sockets, each frame handled in the read callback: with
  websockets' asyncio client (a queue and a task per message) its longest pause
  was ~30 ms at 5,000 phones, charged to whatever action was in flight;
- actions follow a fixed-rate schedule; after a stall the missed slots are
  dropped and counted (`schedule_skipped`), never fired back to back;
- a 1 ms ticker reports the generator's own longest pause (`loadgen_max_pause_ms`),
  a bound on what the generator itself added to any latency;
- every phone pings every 8 s like the web client (without it the server
  closes every socket after 25 s of silence, and a run measures reconnects),
  and gets the server's heartbeat (a frame at least every 2 s) like a phone;
- a phone whose socket closes (e.g. 1013 in a connect storm) is counted and
  reconnects with backoff like the web client, and an action that never lands
  on every phone times out (`action_timeout`) instead of stalling its table;
- a warm-up (`--warmup`, 2 s) at the same rate comes before the measured
  period, so a fresh server's first code paths are not in the figures.

`--root DIR` runs the server of another checkout (e.g. a `git worktree` of the
parent revision) with this same generator: an A/B of a server change.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import json
import os
import random
import resource
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import orjson
import picows
import psutil
import redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import replay_proxy  # noqa: E402
from tablemate_verify.chain import make_chain  # noqa: E402
from tests import api_client  # noqa: E402  (after the path: the bench runs as a script)

PLATFORM = {"start", "seats", "rename", "remove", "host", "undo", "play_again"}
# Seats per table by game, within each game's limits.
SEATS = {"camelup": (3, 8), "kingup": (3, 6), "countup": (3, 8)}
#: The web client's liveness ping (web/live.js PING_MS): part of what a phone costs.
PING_S = 8.0
PING = '{"type":"ping"}'
PONG = b'{"type":"pong"'
#: Links per phone's hash chain (web/screens/fair-chain.js's CHAIN_LENGTH).
CHAIN_LENGTH = 256
#: Whether the phones anchor chains and answer draws (``--no-chains``: a build
#: from before issue 38, timed with --root, knows neither).
CHAINS = True


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def http(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    return api_client.call(base, method, path, body, token, timeout=30)


def wait_http(url: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(url)


# Set when the run is over: closes from then on are ours, not the server's.
stopping = False


# -- phones ---------------------------------------------------------------------

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
    busy: bool = False
    sent_at: float = 0.0
    want: int = 0          # the version the in-flight action produced (0: unknown yet)
    #: The in-flight action was announced as a draw (this id): it is done when
    #: the draw is made, after every phone's link, not at the announce.
    drawing: int = 0
    #: The newest version a phone of it saw with no draw pending.
    settled: int = 0


def fill(game: str, template: dict[str, Any], view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A concrete action from a template; free inputs filled like a person would."""
    t = template["type"]
    if t in PLATFORM:
        return None
    if t == "skip":
        # The host's stall tool: offered with the time it opens (the snapshot's
        # step_in), and never needed here, where every seat's phone plays.
        return None
    if game == "kingup" and t == "goal":
        return {**template, "characters": rng.sample("ABCDEFGHIJKLM", 6)}
    if game == "kingup" and t == "score_round":
        return None
    if game == "camelup" and t in ("set_stack", "copy_choice"):
        return None  # host corrections and partnership choices are rare, hand-made acts
    if game == "countup":
        if t == "numbers":
            lo, hi = view["number_range"]
            banned = set(view["restricted_digits"])
            pool = [n for n in range(lo, hi + 1) if n % 10 not in banned]
            return {**template, "numbers": sorted(rng.sample(pool, 5))}
        if t in ("restriction", "danger", "declare", "bonus"):
            return None
        if t == "call" and template.get("until"):
            return None  # keep rounds going: one number per action
    return template


class Stats:
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


async def _connect(phone: Phone, stats: Stats, url: str, attempts: int) -> Link | None:
    for attempt in range(attempts):
        try:
            _, link = await asyncio.wait_for(picows.ws_connect(
                lambda: Link(phone, stats), url, max_frame_size=2**22,
                websocket_handshake_timeout=60,
                # The seat token rides in the subprotocols, as the web client sends it.
                extra_headers=None if TOKEN_IN_URL else
                {"Sec-WebSocket-Protocol": f"tablemate, tablemate.token.{phone.token}"}), 60)
            return cast(Link, link)
        except Exception:
            if stopping or attempt == attempts - 1:
                return None
            await asyncio.sleep(0.2 * (attempt + 1))
    return None


async def phone_loop(phone: Phone, stats: Stats) -> None:
    url = phone.base.replace("http", "ws", 1) + f"/api/tables/{phone.table.id}/ws"
    if TOKEN_IN_URL:  # a build from before the token rode in the subprotocol
        url += f"?token={phone.token}"
    phone.ws = await _connect(phone, stats, url, 5)
    if phone.ws is None:
        stats.connect_errors += 1
        return
    stats.connected += 1
    while True:
        await phone.ws.closed()
        if stopping:
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
            if stopping:
                return
            ws = await _connect(phone, stats, url, 1)
            if ws is not None:
                break
        if ws is None:
            stats.error("reconnect_failed")
            return
        phone.ws = ws
        stats.reconnects += 1


async def pinger(phones: list[Phone], every: float = PING_S) -> None:
    """Every phone pings every ``every`` s like web/net.js (the server closes a socket
    silent for 25 s with 1001), spread evenly: one slice of the phones per tick."""
    slices = 100
    for tick in itertools.count():
        await asyncio.sleep(every / slices)
        if stopping:
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


@dataclass
class Schedule:
    """What the fixed-rate schedule did: the slots it dropped after stalls, its worst lateness."""
    driven_s: float = 0.0
    sent: int = 0
    skipped: int = 0
    max_late_s: float = 0.0


#: Request ids of every driven action: unique across the warm-up and the
#: measured run (a reused id is a replay, which the server answers from its record).
_request_ids = itertools.count()


async def driver(tables: list[Table], rate: float, duration: float, stats: Stats, seed: int,
                 action_timeout: float = 10.0, prefer: str = "") -> Schedule:
    rng = random.Random(seed)
    ids = _request_ids
    start = time.perf_counter()
    tick = 1.0 / rate
    next_at = start
    sched = Schedule()
    in_flight: set[int] = set()
    by_index = dict(enumerate(tables))
    last_sweep = start
    while time.perf_counter() - start < duration:
        now = time.perf_counter()
        if now < next_at:
            await asyncio.sleep(next_at - now)
            now = time.perf_counter()
        late = now - next_at
        sched.max_late_s = max(sched.max_late_s, late)
        # A stall must not turn into a burst the schedule never asked for: the
        # slots it missed are dropped and counted, not fired back to back.
        if late >= tick:
            missed = int(late / tick)
            sched.skipped += missed
            next_at += missed * tick
        next_at += tick
        if now - last_sweep > 0.5:
            last_sweep = now
            for i in list(in_flight):
                t = by_index[i]
                if not t.busy:
                    in_flight.discard(i)
                elif now - t.sent_at > action_timeout:
                    stats.error("action_timeout")
                    t.busy = False
                    in_flight.discard(i)
        for _ in range(50):  # find an idle table with something to do
            i = rng.randrange(len(tables))
            table = tables[i]
            if table.busy:
                continue
            options = [(p, a) for p in table.phones for t in p.legal
                       if (a := fill(table.game, t, p.view, rng)) is not None]
            if not options:
                continue
            # --prefer: that action type whenever it is legal (e.g. a Camel Up roll).
            options = [o for o in options if o[1]["type"] == prefer] or options
            phone, action = rng.choice(options)
            table.busy, table.want, table.drawing, table.sent_at = True, 0, 0, time.perf_counter()
            in_flight.add(i)
            try:
                await phone.ws.send(json.dumps({"type": "action", "action": action,
                                                "request_id": f"b{next(ids)}"}))
                sched.sent += 1
            except Exception:
                stats.error("send_failed")
                table.busy = False
            break
    sched.driven_s = time.perf_counter() - start
    # Let in-flight actions land.
    deadline = time.perf_counter() + 5
    while any(t.busy for t in tables) and time.perf_counter() < deadline:
        await asyncio.sleep(0.05)
    unfinished = [t for t in tables if t.busy]
    if unfinished:
        stats.errors["unfinished"] = len(unfinished)
        for t in unfinished[:3]:
            print(f"unfinished: {t.game} want={t.want} versions={[p.version for p in t.phones]}", file=sys.stderr)
    return sched


class Ticker:
    """Wakes every `period` seconds and keeps its worst lateness: the longest time this
    generator's event loop could not look at its sockets, which it would add to latency."""

    def __init__(self, period: float = 0.001) -> None:
        self.period = period
        self.max_pause_s = 0.0
        self.max_pause_at_s: float | None = None  # when, from the ticker's start
        self.over_5ms = 0
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        start = time.perf_counter()
        due = start + self.period
        while True:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            now = time.perf_counter()
            late = now - due
            if late > self.max_pause_s:
                self.max_pause_s, self.max_pause_at_s = late, now - start
            if late > 0.005:
                self.over_5ms += 1
            due = now + self.period

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    def stop(self) -> None:
        if self._task:
            self._task.cancel()


# -- processes ------------------------------------------------------------------

def start_redis(port: int) -> subprocess.Popen[bytes]:
    binary = shutil.which("redis-server")
    if not binary:
        sys.exit("redis-server not found (make test installs it)")
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", tempfile.mkdtemp()],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if redis.Redis(port=port).ping():
                return proc
        except redis.RedisError:
            time.sleep(0.05)
    raise TimeoutError("redis")


#: Sends the seat token in the socket's URL, as servers before issue 30 read it
#: (``--token-in-url``, to time such a build with this generator).
TOKEN_IN_URL = False
#: Shows the server's own figures on /healthz (its collector's longest pause).
STATS_TOKEN = secrets.token_urlsafe(16)
#: One key for every instance: each must read the sheets another encrypted at
#: rest (server/service/atrest.py, docs/deploy.md).
SEAL_KEY = os.environ.get("TABLEMATE_SEAL_KEY") or secrets.token_hex(32)


def start_instance(redis_url: str, port: int, root: Path = ROOT,
                   extra: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    env = {**os.environ, **(extra or {}), "REDIS_URL": redis_url, "BIND": f"127.0.0.1:{port}", "PYTHONPATH": str(root),
           "TABLEMATE_RATE_CREATE": "1000000000", "TABLEMATE_RATE_JOIN": "1000000000",
           "TABLEMATE_RATE_CODE": "1000000000", "LOG_LEVEL": "warning",
           "TABLEMATE_STATS_TOKEN": STATS_TOKEN, "TABLEMATE_SEAL_KEY": SEAL_KEY,
           # A few phones at a high --rate play far faster than people: measure
           # the server, not its flood limits (which real play stays far below).
           "TABLEMATE_RATE_ACTIONS_SEAT": "1000000000", "TABLEMATE_MAX_SEAT_LOG": "1000000000",
           "TABLEMATE_MAX_LOG": "1000000000",
           # Every phone of the generator comes from one address: lift the
           # per-address socket cap (server/live/admission.py), which a real
           # crowd of phones never shares.
           "TABLEMATE_WS_PER_ADDRESS": "1000000000"}
    log = open(Path(tempfile.gettempdir()) / f"tablemate-bench-{port}.log", "w")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", str(root / "server/gunicorn_conf.py"),
                             "server:create_app()"], cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    wait_http(f"http://127.0.0.1:{port}/healthz")
    return proc


def workers(master: subprocess.Popen[bytes]) -> list[psutil.Process]:
    children: list[psutil.Process] = psutil.Process(master.pid).children(recursive=True)
    return children


def setup_tables(bases: list[str], phones: int, seed: int, affinity: bool = False,
                 only: frozenset[str] = frozenset()) -> list[Table]:
    """Tables of real games over ``phones`` phones. A table's phones go to
    the instances in turn (every change crosses instances), or with
    ``affinity`` all to the table's own instance (as a load balancer with
    table affinity would put them): an instance's actions are then its tables'."""
    rng = random.Random(seed)
    games = [g["name"] for g in http(bases[0], "GET", "/api/games")["games"]
             if g["name"] in SEATS and (not only or g["name"] in only)]
    plans: list[tuple[str, int]] = []
    total = 0
    while total < phones:
        game = games[len(plans) % len(games)]
        lo, hi = SEATS[game]
        n = min(rng.randint(lo, hi), max(lo, phones - total))
        plans.append((game, n))
        total += n

    def make(i: int) -> Table:
        game, n = plans[i]
        base = bases[i % len(bases)]
        created = http(base, "POST", "/api/tables", {"game": game, "name": "Host"})
        table = Table(created["table"], game)
        seats = [(created["player"]["id"], created["player"]["token"])]
        def at(k: int) -> str:
            return base if affinity else bases[(i + k) % len(bases)]

        for k in range(n - 1):
            j = http(at(k + 1), "POST", f"/api/tables/{table.id}/players", {"name": f"P{k + 2}"})
            seats.append((j["player"]["id"], j["player"]["token"]))
        http(base, "POST", f"/api/tables/{table.id}/actions",
             {"action": {"type": "start"}, "request_id": "start"}, seats[0][1])
        table.phones = [Phone(table, pid, tok, at(k)) for k, (pid, tok) in enumerate(seats)]
        if CHAINS:
            # As the web client at a table: each phone anchors its own chain.
            for p in table.phones:
                p.chain = make_chain(CHAIN_LENGTH)
                http(p.base, "POST", f"/api/tables/{table.id}/actions",
                     {"action": {"type": "anchor", "anchor": p.chain[0], "length": CHAIN_LENGTH},
                      "request_id": f"anchor-{p.pid}"}, p.token)
        return table

    with ThreadPoolExecutor(16) as pool:
        return list(pool.map(make, range(len(plans))))


def _per(x: float, n: int, digits: int = 2) -> float | None:
    return round(x / n, digits) if n else None


def instance_figures(before: list[dict[str, int] | None], after: list[dict[str, int] | None],
                     cpu_s: list[float], one_worker_each: bool) -> list[dict[str, Any]] | None:
    """Per instance, over the measured period: the changes it committed (its
    own actions), what its listener heard from Redis (messages, bytes, those
    of tables it has no phone at), each per own action, and its CPU per own
    action (with one worker per instance, else None)."""
    out: list[dict[str, Any]] = []
    for k, (a, b) in enumerate(zip(before, after, strict=True)):
        if a is None or b is None:
            return None  # a build whose /healthz has no such figures
        own = b["commits"] - a["commits"]
        msgs, size = b["messages"] - a["messages"], b["bytes"] - a["bytes"]
        out.append({"instance": k, "own_actions": own, "redis_messages": msgs, "redis_bytes": size,
                    "foreign_messages": b["foreign"] - a["foreign"], "channels": b["channels"],
                    "messages_per_own_action": _per(msgs, own), "bytes_per_own_action": _per(size, own, 0),
                    "cpu_ms_per_own_action": _per(cpu_s[k] * 1000, own) if one_worker_each else None})
    return out


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def raise_fd_limit() -> tuple[int, int]:
    """Soft file-descriptor limit up to the hard one; the servers started later inherit it.
    Every phone is a socket on each side, so 5,000 phones need well over 5,000 per process."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def cpu_s(p: psutil.Process) -> float:
    t = p.cpu_times()
    total: float = t.user + t.system
    return total


async def idle_cpu(procs: list[psutil.Process], seconds: float) -> list[float] | None:
    """Each process's CPU in ms per second over ``seconds`` of no actions (None for 0).
    The phones keep pinging meanwhile: this loop only sleeps."""
    if seconds <= 0:
        return None
    before = [thread_cpu_ns(p) for p in procs]
    await asyncio.sleep(seconds)
    after = [thread_cpu_ns(p) for p in procs]
    # A thread that ended meanwhile is left out (its last moments uncounted);
    # one that started counts from zero.
    return [round(sum(ns - b.get(tid, 0) for tid, ns in a.items()) / 1e6 / seconds, 2)
            for b, a in zip(before, after, strict=True)]


def thread_cpu_ns(p: psutil.Process) -> dict[str, int]:
    """CPU ns of each of the process's threads, from the scheduler (/proc/PID/task/*/schedstat):
    ``cpu_times`` counts 10 ms ticks, too coarse for an idle process over a few seconds."""
    found = {}
    for task in Path(f"/proc/{p.pid}/task").iterdir():
        try:
            found[task.name] = int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError):
            continue  # the thread ended
    return found


def kernel_s(p: psutil.Process) -> float:
    """The process's CPU in the kernel: on loopback a send also runs the receiving
    side's TCP stack, which no change of the server's own language removes."""
    return float(p.cpu_times().system)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    global stopping
    stopping = False
    nofile = raise_fd_limit()
    procs: list[subprocess.Popen[bytes]] = []
    redis_proc = None
    proxy: replay_proxy.Running | None = None
    try:
        if args.redis_url:
            redis_url = args.redis_url
        else:
            rport = free_port()
            redis_proc = start_redis(rport)
            redis_url = f"redis://127.0.0.1:{rport}/0"
        r = redis.Redis.from_url(redis_url)
        r.flushall()
        mem0 = r.info("memory")["used_memory"]
        ports = [free_port() for _ in range(args.instances)]
        names = [f"m{k + 1}" for k in range(args.instances)]
        routed = args.route == "fly"
        procs = [start_instance(redis_url, p, args.root, replay_proxy.routing_env(n) if routed else None)
                 for p, n in zip(ports, names, strict=True)]
        bases = [f"http://127.0.0.1:{p}" for p in ports]
        clients = bases  # where the phones send their requests and sockets
        if routed:
            # As deployed on Fly: every phone talks to the proxy, which lands it
            # on any instance and replays a table's request to the table's owner.
            replay_proxy.wait_routed(dict(zip(names, bases, strict=True)))
            proxy = replay_proxy.start(dict(zip(names, bases, strict=True)), free_port())
            clients = [proxy.base]
        server_procs = [w for m in procs for w in workers(m)] or [psutil.Process(m.pid) for m in procs]
        # Each instance's CPU with nothing to do: what it spends however few its actions.
        idle_bare = await idle_cpu(server_procs, args.idle)
        t0 = time.perf_counter()
        tables = setup_tables(clients, args.phones, args.seed, args.affinity == "table",
                              frozenset(filter(None, args.games.split(","))))
        setup_s = time.perf_counter() - t0
        mem_per_table = (r.info("memory")["used_memory"] - mem0) / max(1, len(tables))
        rss_idle = sum(p.memory_info().rss for p in server_procs) / 2**20
        stats = Stats()
        all_phones = [p for t in tables for p in t.phones]
        tasks = [asyncio.create_task(pinger(all_phones, args.ping))]
        t0 = time.perf_counter()
        for i in range(0, len(all_phones), 200):  # connect in waves, like a café filling up
            tasks += [asyncio.create_task(phone_loop(p, stats)) for p in all_phones[i:i + 200]]
            await asyncio.sleep(0.05)
        deadline = time.perf_counter() + 120
        while stats.connected + stats.connect_errors < len(all_phones) and time.perf_counter() < deadline:
            await asyncio.sleep(0.1)
        connect_s = time.perf_counter() - t0
        while any(p.version == 0 for p in all_phones if p.ws) and time.perf_counter() < deadline:
            await asyncio.sleep(0.1)
        # The same holding every phone (their pings, the heartbeats, presence), no actions.
        idle_phones = await idle_cpu(server_procs, args.idle)
        if args.warmup > 0:
            # The first actions of a fresh process pay for what it has not done
            # yet (first code paths, caches, allocator growth): a warm-up at the
            # same rate, not measured (its errors are still counted).
            await driver(tables, args.rate, args.warmup, stats, args.seed + 1, args.action_timeout, args.prefer)
            stats.latencies.clear()
            stats.samples.clear()
            stats.actions = 0
        me = psutil.Process()
        redis_p = psutil.Process(redis_proc.pid) if redis_proc else None
        # Everything built so far lives for the whole run: move it out of the
        # collector's reach, then keep the collector out of the hot loop.
        gc.collect()
        gc.freeze()
        gc.disable()
        collections0 = sum(g["collections"] for g in gc.get_stats())
        ticker = Ticker(args.ticker_ms / 1000)
        ticker.start()
        heard0 = [http(b, "GET", "/healthz", token=STATS_TOKEN).get("redis") for b in bases]
        cpu0 = [cpu_s(p) for p in server_procs]
        sys0 = sum(kernel_s(p) for p in server_procs)
        me0, r0 = cpu_s(me), cpu_s(redis_p) if redis_p else 0.0
        proxy_p = psutil.Process(proxy.proc.pid) if proxy else None
        px0 = cpu_s(proxy_p) if proxy_p else 0.0
        try:
            sched = await driver(tables, args.rate, args.duration, stats, args.seed, args.action_timeout, args.prefer)
        finally:
            ticker.stop()
            collections = sum(g["collections"] for g in gc.get_stats()) - collections0
            gc.enable()
            gc.unfreeze()
        cpu1 = [cpu_s(p) for p in server_procs]
        sys1 = sum(kernel_s(p) for p in server_procs)
        me1, r1 = cpu_s(me), cpu_s(redis_p) if redis_p else 0.0
        px1 = cpu_s(proxy_p) if proxy_p else 0.0
        wall = sched.driven_s
        cpu = [(b - a) / wall * 100 for a, b in zip(cpu0, cpu1, strict=True)]
        server_cpu_s = sum(cpu1) - sum(cpu0)
        rss = [p.memory_info().rss / 2**20 for p in server_procs]
        health = [http(b, "GET", "/healthz", token=STATS_TOKEN) for b in bases]
        per_instance = instance_figures(heard0, [h.get("redis") for h in health],
                                        [b - a for a, b in zip(cpu0, cpu1, strict=True)],
                                        len(server_procs) == len(bases))
        if per_instance and len(server_procs) == len(bases):
            for k, row in enumerate(per_instance):
                row["idle_cpu_ms_per_s"] = idle_bare[k] if idle_bare else None
                row["idle_with_phones_cpu_ms_per_s"] = idle_phones[k] if idle_phones else None
        stopping = True
        silent = sum(1 for p in all_phones if p.ws is not None and p.version == 0)
        if silent:
            stats.errors["never_got_state"] = silent
        for p in all_phones:
            if p.ws is not None:
                await p.ws.close()
        for task in tasks:
            task.cancel()
        proxy_counts = proxy.stop() if proxy else None
        proxy = None
        lat = [x * 1000 for x in stats.latencies]
        if args.samples:
            # When the slow ones were sent (s from the first action) tells a
            # periodic stall (a round every 1 or 3 s) from a steady queue.
            t0 = min((t for t, *_ in stats.samples), default=0.0)
            Path(args.samples).write_text("".join(f"{t - t0:.4f} {x * 1000:.2f} {game} {seats}\n"
                                                  for t, x, game, seats in stats.samples))
        sizes: dict[str, int] = {}
        for t in tables:
            sizes[str(len(t.phones))] = sizes.get(str(len(t.phones)), 0) + 1

        def per_action(cpu_seconds: float) -> float | None:
            return round(cpu_seconds * 1000 / stats.actions, 2) if stats.actions else None

        return {
            "instances": args.instances, "phones": len(all_phones), "tables": len(tables),
            "table_sizes": dict(sorted(sizes.items(), key=lambda kv: int(kv[0]))),
            "games": sorted({t.game for t in tables}),
            "phones_connected": stats.connected, "connect_errors": stats.connect_errors,
            "reconnects": stats.reconnects,
            "setup_s": round(setup_s, 1), "connect_s": round(connect_s, 1), "warmup_s": args.warmup,
            "target_rate": args.rate, "actions": stats.actions, "sent": sched.sent,
            "actions_per_s": round(stats.actions / wall, 1),
            "latency_ms": {"p50": round(pct(lat, .5), 1), "p95": round(pct(lat, .95), 1),
                           "p99": round(pct(lat, .99), 1), "max": round(max(lat), 1) if lat else None,
                           "mean": round(statistics.fmean(lat), 1) if lat else None},
            "errors": stats.errors, "error_samples": stats.error_samples,
            "server_cpu_percent": [round(c) for c in cpu],
            "server_cpu_ms_per_action": per_action(server_cpu_s),
            "server_kernel_ms_per_action": per_action(sys1 - sys0),
            "server_rss_mb": [round(m) for m in rss],
            "server_rss_idle_mb": round(rss_idle),
            "rss_per_phone_kb": round((sum(rss) - rss_idle) * 1024 / stats.connected) if stats.connected else None,
            "loadgen_cpu_percent": round((me1 - me0) / wall * 100),
            "loadgen_max_pause_ms": round(ticker.max_pause_s * 1000, 1),
            "loadgen_max_pause_at_s": round(ticker.max_pause_at_s, 1) if ticker.max_pause_at_s else None,
            "loadgen_pauses_over_5ms": ticker.over_5ms,
            "loadgen_gc_collections": collections,
            "schedule_max_late_ms": round(sched.max_late_s * 1000, 1),
            "schedule_skipped": sched.skipped,
            "redis_cpu_percent": round((r1 - r0) / wall * 100) if redis_p else None,
            "redis_cpu_ms_per_action": per_action(r1 - r0) if redis_p else None,
            "redis_bytes_per_table": round(mem_per_table),
            "server_gc_max_pause_ms": [h.get("gc_max_pause_ms") for h in health],
            "affinity": args.affinity,
            "per_instance": per_instance,
            "route": args.route,
            "proxy": None if proxy_counts is None else {
                **proxy_counts, "cpu_percent": round((px1 - px0) / wall * 100),
                "cpu_ms_per_action": per_action(px1 - px0)},
            "fd_limit": nofile[0],
        }
    finally:
        if proxy:
            proxy.stop()
        for proc in procs:
            proc.send_signal(signal.SIGINT)
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        if redis_proc:
            redis_proc.terminate()


def load_args(ap: argparse.ArgumentParser, *, phones: int, rate: float, duration: float,
              each: str = "") -> None:
    """The driven load's flags: this script's, and compare.py's, which hands the
    same values on to this script and to the boardgame.io peer (``each``: how
    its help says that)."""
    ap.add_argument("--phones", type=int, default=phones)
    ap.add_argument("--rate", type=float, default=rate, help="actions per second, all tables together")
    ap.add_argument("--duration", type=float, default=duration, help=f"seconds of driven actions{each}")
    ap.add_argument("--warmup", type=float, default=2.0,
                    help=f"seconds of actions driven first at the same rate{each}, not measured")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--redis-url", help="a Redis for the Tablemate server (default: its own redis-server)")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    load_args(ap, phones=5000, rate=100.0, duration=60.0)
    ap.add_argument("--instances", type=int, default=1)
    ap.add_argument("--affinity", choices=("spread", "table"), default="spread",
                    help="spread: a table's phones on the instances in turn (every change crosses "
                         "instances); table: all on the table's own instance (per_instance figures "
                         "then show what scaling out costs each instance)")
    ap.add_argument("--root", type=Path, default=ROOT,
                    help="the checkout whose server runs (an A/B against another revision, same generator)")
    ap.add_argument("--ping", type=float, default=PING_S,
                    help="seconds between one phone's pings (the web client's by default)")
    ap.add_argument("--short", action="store_true", help="smoke run: 300 phones, 20 actions/s, 5 s")
    ap.add_argument("--action-timeout", type=float, default=10.0,
                    help="seconds before an action that never reached every phone frees its table")
    ap.add_argument("--ticker-ms", type=float, default=1.0, help="period of the pause-measuring ticker")
    ap.add_argument("--out", help="also write the JSON result to this file")
    ap.add_argument("--token-in-url", action="store_true",
                    help="send the seat token in the socket's URL, as builds before issue 30 read it "
                         "(to time such a build with --root)")
    ap.add_argument("--games", default="", help="comma-separated games to play (default: all three)")
    ap.add_argument("--prefer", default="",
                    help="an action type played whenever it is legal: --games camelup --prefer pyramid "
                         "times rolls, each phone answering every roll with its chain link as the web client does")
    ap.add_argument("--no-chains", action="store_true",
                    help="phones anchor no hash chains and answer no draws (a build from before issue 38, with --root)")
    ap.add_argument("--route", choices=("off", "fly"), default="off",
                    help="fly: table routing as deployed on Fly (TABLEMATE_ROUTE=fly), every phone through "
                         "bench/replay_proxy.py, which replays a table's request to its owner as Fly's "
                         "proxy does (--affinity then has no effect)")
    ap.add_argument("--idle", type=float, default=0.0,
                    help="seconds of no actions to measure each instance's idle CPU over, before the "
                         "tables are made and again with every phone connected (per_instance)")
    ap.add_argument("--samples", help="also write every action's send time, latency (s, ms), game and seats to this file")
    args = ap.parse_args(argv)
    global TOKEN_IN_URL, CHAINS
    TOKEN_IN_URL = args.token_in_url
    CHAINS = not args.no_chains
    if args.short:
        args.phones, args.rate, args.duration = min(args.phones, 300), 20.0, 5.0
    result = asyncio.run(run(args))
    text = json.dumps(result, indent=2)
    if args.out:
        Path(args.out).write_text(text)
    print(text)
    return result


if __name__ == "__main__":
    main()

"""WebSocket adapter and per-process fan-out.

Each process has one ``Hub``: a registry of its sockets by table and one
pub/sub listener. A change committed by any instance reaches every instance's
listener, which loads the table once and sends each local phone its own view.

Liveness: phones send ``ping`` every ~2 s and give a socket up after ~5 s of
silence; the server closes a socket it has not heard from for
``SILENT_LIMIT`` s. Presence (which seats have a live socket, on any instance)
is kept in the store, refreshed by those pings; a change is pushed to the
table's phones as a ``presence`` frame, without a version bump.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import orjson
import redis
from flask import Flask, current_app, g, request
from flask_sock import Sock
from simple_websocket import ConnectionClosed

from server import payload
from server.errors import ApiError, store_unavailable
from server.model import Snapshot, TableDoc
from server.tables import Tables

log = logging.getLogger(__name__)

RATE_PER_SECOND = 20.0
RATE_BURST = 40.0
FLOOD_STRIKES = 40
CLOSE_BAD_TOKEN = 4401
#: Seconds without any message after which the server gives a socket up (phones
#: ping every ~2 s); ``WS_SILENT_LIMIT`` in the config.
SILENT_LIMIT = 15.0
#: At most this often (s) a socket refreshes its presence and checks the table's version.
PRESENCE_REFRESH = 3.0
#: How often (s) each process looks for presence that expired (a phone on another,
#: dead instance) on its own tables.
PRESENCE_SWEEP = 4.0

SocketView = Callable[[Any, str], None]


class Connection:
    """One phone's socket. Sends are serialized: fan-out and the socket's own
    loop may send at the same time."""

    def __init__(self, ws: Any, table_id: str, player: str | None, token: str | None) -> None:
        self.ws = ws
        self.table_id = table_id
        self.player = player
        self.token = token
        self.sent_version = 0
        self.lock = threading.Lock()
        self.open = True
        #: Presence member: several phones may hold one seat; each counts.
        self.member = f"{player}/{secrets.token_hex(4)}" if player is not None else None
        #: The seats this phone was last told are connected.
        self.presence: frozenset[str] | None = None
        self.refreshed = 0.0

    def send_presence(self, online: frozenset[str]) -> None:
        """A ``presence`` frame, only when it tells this phone something new."""
        with self.lock:
            if online == self.presence:
                return
            self.presence = online
        self.send({"type": "presence", "version": self.sent_version, "connected": sorted(online)})

    def send(self, msg: dict[str, Any]) -> None:
        data = orjson.dumps(msg, option=orjson.OPT_NON_STR_KEYS).decode()
        with self.lock:
            if not self.open:
                return
            try:
                self.ws.send(data)
            except Exception:  # a dead peer; its own loop notices and cleans up
                self.open = False

    def send_state(self, snapshot: Snapshot, force: bool = False) -> None:
        online = frozenset(p["id"] for p in snapshot["players"] if p.get("connected"))
        self.send_encoded(snapshot["version"], encode_state(snapshot), force, online)

    def send_encoded(self, version: int, data: str, force: bool = False,
                     online: frozenset[str] | None = None) -> None:
        with self.lock:
            # Snapshots may race (two changes fanned out at once): never go back.
            stale = version < self.sent_version or (version == self.sent_version and not force)
            if stale or not self.open:
                return
            self.sent_version = version
            if online is not None:
                self.presence = online
            try:
                self.ws.send(data)
            except Exception:  # a dead peer; its own loop notices and cleans up
                self.open = False

    def kick(self, code: str, message: str) -> None:
        self.send({"type": "error", "error": {"code": code, "message": message}})
        with self.lock:
            self.open = False
            try:
                self.ws.close(reason=CLOSE_BAD_TOKEN, message=code)
            except Exception:  # already closed
                pass


def encode_state(snapshot: Snapshot) -> str:
    # Encoded once per seat and version, however many phones that seat has.
    return orjson.dumps({"type": "state", **snapshot}, option=orjson.OPT_NON_STR_KEYS).decode()


class Hub:
    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.conns: dict[str, set[Connection]] = defaultdict(set)
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.ready = threading.Event()
        self._listener: threading.Thread | None = None
        self._sweeper: threading.Thread | None = None

    def ensure_listening(self) -> None:
        # Started on first use, not at import: a forking server must start it
        # in the worker, after gevent has patched threading. The first socket
        # waits until the subscription is confirmed, or a change committed in
        # between would never reach it.
        with self.lock:
            if self._listener is None:
                self._listener = threading.Thread(
                    target=self.tables.store.listen,
                    args=(self.changed, self.resync_all, self.stop, self.store_down, self.ready,
                          self.presence_changed),
                    name="tablemate-fanout", daemon=True,
                )
                self._listener.start()
                self._sweeper = threading.Thread(target=self.sweep, name="tablemate-presence", daemon=True)
                self._sweeper.start()
        self.ready.wait(5)

    def add(self, conn: Connection) -> None:
        with self.lock:
            self.conns[conn.table_id].add(conn)

    def remove(self, conn: Connection) -> None:
        with self.lock:
            peers = self.conns.get(conn.table_id)
            if peers is not None:
                peers.discard(conn)
                if not peers:
                    del self.conns[conn.table_id]

    def count(self) -> int:
        with self.lock:
            return sum(len(v) for v in self.conns.values())

    def changed(self, table_id: str, version: int) -> None:
        with self.lock:
            if not self.conns.get(table_id):
                return
        # Off the listener thread, so one slow phone never delays other tables.
        threading.Thread(target=self.push, args=(table_id,), daemon=True).start()

    def presence_changed(self, table_id: str) -> None:
        with self.lock:
            if not self.conns.get(table_id):
                return
        threading.Thread(target=self.push_presence, args=(table_id,), daemon=True).start()

    def push_presence(self, table_id: str) -> None:
        """Tells the table's local phones who is connected, if that changed for them."""
        with self.lock:
            conns = list(self.conns.get(table_id, ()))
        if not conns:
            return
        try:
            online = frozenset(self.tables.store.present(table_id))
        except redis.RedisError:
            return  # the store's outage is told to phones by the listener
        for c in conns:
            c.send_presence(online)

    def sweep(self) -> None:
        """Presence also changes without a message: a phone whose instance died
        just stops being refreshed. Looks again now and then."""
        while not self.stop.wait(PRESENCE_SWEEP):
            with self.lock:
                ids = list(self.conns)
            for tid in ids:
                try:
                    self.push_presence(tid)
                except Exception:  # one table must not stop the sweep for the others
                    log.exception("presence sweep failed")

    def store_down(self) -> None:
        """Tell every local phone to show "reconnecting"; a resync follows."""
        with self.lock:
            conns = [c for peers in self.conns.values() for c in peers]
        msg = {"type": "error", **store_unavailable().envelope()}
        for c in conns:
            c.send(msg)

    def resync_all(self) -> None:
        # Phones were told the store was down and wait for a snapshot to clear
        # it, so resend even at an unchanged version.
        with self.lock:
            ids = list(self.conns)
        for tid in ids:
            threading.Thread(target=self.push, args=(tid, True), daemon=True).start()

    def push(self, table_id: str, force: bool = False) -> None:
        with self.lock:
            conns = list(self.conns.get(table_id, ()))
        if not conns:
            return
        try:
            doc = self.tables.store.load(table_id)
        except redis.RedisError:
            return  # the listener reconnects and resyncs everyone
        if doc is None:
            for c in conns:
                c.kick("table_not_found", "This table has expired.")
            return
        engine = self.tables.engine(doc["game"])
        state = engine.load(doc["state"]) if doc["state"] is not None else None
        try:
            online = self.tables.store.present(table_id)
        except redis.RedisError:
            return
        frozen = frozenset(online)
        # One snapshot, encoded once, per seat (a seat may have several phones).
        cache: dict[str | None, str] = {}
        for c in conns:
            if not self.still_seated(doc, c):
                c.kick("bad_token", "This seat was removed or re-issued to another phone.")
                continue
            if c.player not in cache:
                cache[c.player] = encode_state(self.tables.snapshot(doc, c.player, state, online))
            c.send_encoded(doc["version"], cache[c.player], force=force, online=frozen)


    def still_seated(self, doc: TableDoc, conn: Connection) -> bool:
        """Whether ``conn``'s token still opens the seat it connected to."""
        if conn.player is None:
            return True
        try:
            seat = self.tables.authenticate(doc, conn.token)
        except ApiError:
            return False
        return seat is not None and seat["id"] == conn.player


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
    msg: dict[str, Any] = {"type": "error", "error": {"code": code, "message": message}}
    if request_id is not None:
        msg["request_id"] = request_id
    return msg


def _handle(conn: Connection, tables: Tables, raw: Any) -> None:
    try:
        msg = payload.parse(raw)
    except ApiError as exc:  # not JSON, or nested too deep to parse safely
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
            result = tables.act(conn.table_id, conn.token, body)
            conn.send({"type": "result", "request_id": rid, **result})
        elif kind == "sync":
            doc = tables.load(conn.table_id)
            if msg.get("version") != doc["version"]:
                conn.send_state(tables.snapshot(doc, conn.player), force=True)
        elif kind == "ping":
            # Phones ping every ~2 s: the store is asked (presence, the table's
            # version) only every PRESENCE_REFRESH s; in between the pong
            # carries the version this socket was last sent.
            now = time.monotonic()
            if now - conn.refreshed >= PRESENCE_REFRESH:
                conn.refreshed = now
                touch(conn, tables)
                version = tables.load(conn.table_id)["version"]
            else:
                version = conn.sent_version
            conn.send({"type": "pong", "version": version})
        else:
            conn.send(_error("unknown_type", f"Unknown message type {kind!r}.", rid))
    except ApiError as exc:
        frame: dict[str, Any] = {"type": "error", **({"request_id": rid} if rid else {}), **exc.envelope()}
        if exc.status == 429:  # what HTTP says in its Retry-After header
            frame["retry_after"] = int(exc.headers["Retry-After"])
        conn.send(frame)
    except redis.RedisError as exc:
        log.warning("store error on a socket action: %s: %s", type(exc).__name__, exc)
        conn.send({"type": "error", **store_unavailable().envelope()})


def touch(conn: Connection, tables: Tables) -> None:
    """Refreshes this socket's presence (a spectator has none)."""
    if conn.member is not None:
        tables.store.presence_touch(conn.table_id, conn.member)


def leave(conn: Connection, tables: Tables) -> None:
    if conn.member is None:
        return
    try:
        tables.store.presence_drop(conn.table_id, conn.member)
    except redis.RedisError:
        pass  # the member expires by itself within PRESENCE_TTL


def init_app(app: Flask, hub: Hub) -> None:
    sock = Sock(app)
    silent_limit = float(app.config.get("WS_SILENT_LIMIT", SILENT_LIMIT))
    app.config["SOCK_SERVER_OPTIONS"] = {
        "ping_interval": app.config["WS_PING_INTERVAL"],
        "max_message_size": app.config["WS_MAX_MESSAGE"],
    }

    @app.before_request
    def authenticate_socket() -> Any:
        # Refuse before the upgrade, so a client sees a real 401/404/403.
        if request.endpoint != "table_socket":
            return None
        from server.security import origin_ok

        if not origin_ok():
            raise ApiError(403, "bad_origin", "This socket must be opened from this site.")
        if not current_app.config["WS_COMPRESSION"]:
            # simple-websocket accepts permessage-deflate whenever a client
            # offers it, and its compressor state costs ~190 KB per phone for
            # messages of a few KB (docs/performance.md). Declining is the
            # client's offer not reaching the handshake: no library patched.
            request.environ.pop("HTTP_SEC_WEBSOCKET_EXTENSIONS", None)
        table_id = request.view_args["table_id"] if request.view_args else ""
        doc = hub.tables.load(table_id)
        token = request.args.get("token") or None
        seat = hub.tables.authenticate(doc, token)
        g.ws_auth = (doc, seat["id"] if seat else None, token)
        return None

    # flask_sock is untyped: name the decorator's type so the view stays typed.
    route: Callable[[SocketView], SocketView] = sock.route("/api/tables/<table_id>/ws", endpoint="table_socket")

    @route
    def table_socket(ws: Any, table_id: str) -> None:
        tables: Tables = hub.tables
        doc, player, token = g.ws_auth
        hub.ensure_listening()
        conn = Connection(ws, table_id, player, token)
        hub.add(conn)
        bucket = TokenBucket(RATE_PER_SECOND, RATE_BURST)
        strikes = 0
        try:
            # Load again after registering, so no change can fall in between.
            try:
                touch(conn, tables)
                conn.refreshed = time.monotonic()
                conn.send_state(tables.snapshot(tables.load(table_id), player))
                if conn.member is not None:
                    tables.store.presence_announce(table_id)
            except redis.RedisError:
                # No snapshot to start from: tell the phone and let it come back
                # (1013 = try again later); its reconnect backoff spreads the load.
                conn.send({"type": "error", **store_unavailable().envelope()})
                ws.close(reason=1013, message="store unavailable")
                return
            heard = time.monotonic()
            while conn.open:
                # A phone that went silent (its Wi-Fi dropped without a FIN) is
                # given up after SILENT_LIMIT: the close handshake could take minutes.
                left = silent_limit - (time.monotonic() - heard)
                if left <= 0:
                    ws.close(reason=1001, message="silent")
                    break
                raw = ws.receive(timeout=min(left, 5.0))
                if raw is None:
                    continue
                heard = time.monotonic()
                if not bucket.take():
                    strikes += 1
                    if strikes >= FLOOD_STRIKES:
                        ws.close(reason=1008, message="flood")
                        break
                    conn.send(_error("rate_limited", "Too many messages; slow down."))
                    continue
                _handle(conn, tables, raw)
        except ApiError as exc:
            conn.send({"type": "error", **exc.envelope()})
        except ConnectionClosed:
            pass
        except Exception:
            # Never let an error escape after the upgrade: the server would
            # write an HTTP 500 onto the socket and read frames as requests.
            log.exception("socket handler failed")
            conn.send(_error("internal", "Something went wrong on the server; reconnecting."))
        finally:
            hub.remove(conn)
            leave(conn, tables)

    app.extensions["tablemate.sock"] = sock

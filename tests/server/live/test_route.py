"""Live sync over real sockets, on real server processes sharing one Redis."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
import websocket

from tests.server.livehelpers import (
    LivePhone,
    history_entries,
    http,
    open_live_table,
    socket_protocols,
    take_seat,
)


@pytest.fixture
def server(app_server_factory):
    return app_server_factory({"TABLEMATE_FIXED_RANDOM": "1"})


def test_two_phones_stay_in_sync(server) -> None:
    host, a = open_live_table(server.url, joiners=1)
    s_host, s_a = host.connect(), a.connect()
    assert s_host["me"] == "p1" and s_a["me"] == "p2" and s_host["version"] == s_a["version"] == 2
    # An action over the socket: the actor gets a result, everyone the new state.
    host.send({"type": "action", "action": {"type": "start"}, "request_id": "go"})
    res = None
    st = host.wait_state(lambda s: s["status"] == "playing")
    res = next(m for m in host.inbox if m["type"] == "result") if any(
        m["type"] == "result" for m in host.inbox) else host.recv()
    assert res["type"] == "result" and res["request_id"] == "go" and res["version"] == st["version"]
    assert a.wait_version(st["version"])["status"] == "playing"
    # An action over HTTP reaches both sockets too.
    status, body = host.act_http("add", n=2)
    assert status == 200
    assert a.wait_version(body["version"])["view"]["scores"]["p1"] >= 2
    assert host.wait_version(body["version"])["legal"][0]["type"] == "note"


def test_each_phone_gets_its_own_view(server) -> None:
    host, a, b = open_live_table(server.url)
    for p in (host, a, b):
        p.connect()
    host.act_http("start")
    status, body = a.act_http("note", text="only-for-p2")
    for p in (host, a, b):
        p.wait_version(body["version"])
    assert a.last["view"]["my_note"] == "only-for-p2"
    for p in (host, b):
        assert "only-for-p2" not in json.dumps(p.last)


def test_socket_errors_use_the_envelope(server) -> None:
    host, a = open_live_table(server.url, joiners=1)
    host.connect()
    for raw, code in (("garbage", "invalid_json"), ("[1,2]", "invalid_json"),
                      (json.dumps({"type": "dance"}), "unknown_type")):
        host.ws.send(raw)
        msg = host.recv()
        assert msg["type"] == "error" and msg["error"]["code"] == code
    host.send({"type": "action", "action": {"type": "add", "n": 1}, "request_id": "early"})
    msg = host.recv()
    assert msg == {"type": "error", "request_id": "early",
                   "error": {"code": "not_started", "message": "The game has not started yet."}}
    host.send({"type": "ping"})
    assert host.recv() == {"type": "pong", "version": 2}


def test_spectator_socket_is_read_only(server) -> None:
    host, a = open_live_table(server.url, joiners=1)
    spectator = LivePhone(server.url, host.table, None, None)
    snap = spectator.connect()
    assert snap["me"] is None and snap["legal"] == []
    spectator.send({"type": "action", "action": {"type": "start"}, "request_id": "s"})
    assert spectator.recv()["error"]["code"] == "bad_token"
    host.act_http("start")
    assert spectator.wait_state(lambda s: s["status"] == "playing")


def test_bad_token_and_unknown_table_refused_before_upgrade(server) -> None:
    host, _ = open_live_table(server.url, joiners=1)
    base = server.url.replace("http", "ws", 1)
    other, = open_live_table(server.url, joiners=0)
    here = f"{base}/api/tables/{host.table}/ws"
    for url, token, status in ((here, "nope", 401), (here, other.token, 401),
                               (f"{base}/api/tables/nosuchtable0000/ws", None, 404)):
        with pytest.raises(websocket.WebSocketBadStatusException) as exc:
            websocket.create_connection(url, timeout=5, subprotocols=socket_protocols(token))
        assert exc.value.status_code == status
    with pytest.raises(websocket.WebSocketBadStatusException) as exc:
        websocket.create_connection(here, origin="https://evil.example", timeout=5,
                                    subprotocols=socket_protocols(host.token))
    assert exc.value.status_code == 403


def test_the_seat_token_never_rides_in_the_socket_url(server) -> None:
    """The token is offered as a subprotocol; one in the URL (which proxies and
    browser histories keep) is refused, even a valid one, so no client keeps
    sending it there."""
    host, _ = open_live_table(server.url, joiners=1)
    here = server.url.replace("http", "ws", 1) + f"/api/tables/{host.table}/ws"
    with pytest.raises(websocket.WebSocketBadStatusException) as exc:
        websocket.create_connection(f"{here}?token={host.token}", timeout=5)
    assert exc.value.status_code == 400 and b"token_in_url" in (exc.value.resp_body or b"")
    ws = websocket.create_connection(here, timeout=5, subprotocols=socket_protocols(host.token))
    try:
        # The server answers with the bare protocol, never echoing the token back.
        assert ws.getsubprotocol() == "tablemate"
        first = json.loads(ws.recv())
        assert first["type"] == "state" and first["me"] == "p1"
    finally:
        ws.close()


def test_replaced_token_closes_the_old_socket(server) -> None:
    host, a = open_live_table(server.url, joiners=1)
    a.connect()
    take_seat(server.url, host, "p2")
    msg = a.recv()
    while msg["type"] == "state":
        msg = a.recv()
    assert msg["type"] == "error" and msg["error"]["code"] == "bad_token"


def test_sync_resends_snapshot_when_behind(server) -> None:
    host, a = open_live_table(server.url, joiners=1)
    host.connect()
    host.version = 0  # pretend this phone missed everything
    host.send({"type": "sync", "version": 1})
    assert host.recv()["version"] == 2


def test_two_server_processes_share_one_redis(app_server_factory) -> None:
    one = app_server_factory({"TABLEMATE_FIXED_RANDOM": "1"})
    two = app_server_factory({"TABLEMATE_FIXED_RANDOM": "1"})
    host, a, b = open_live_table(one.url)
    host.connect(one.url)
    a.connect(two.url)
    b.connect(two.url)
    # Changes made through instance B reach a phone on instance A at once, and back.
    a.base = two.url
    host.base = one.url
    status, body = host.act_http("start")
    assert status == 200
    for p in (host, a, b):
        assert p.wait_version(body["version"])["status"] == "playing"
    a.send({"type": "action", "action": {"type": "note", "text": "x"}, "request_id": "n1"})
    v = a.wait_state(lambda s: s["version"] > body["version"])["version"]
    assert host.wait_version(v)["version"] == v


def test_twenty_threads_acting_at_once_lose_nothing(app_server_factory) -> None:
    one = app_server_factory({"TABLEMATE_FIXED_RANDOM": "1"})
    two = app_server_factory({"TABLEMATE_FIXED_RANDOM": "1"})
    phones = open_live_table(one.url, joiners=7)
    phones[0].act_http("start")
    start_version = http(one.url, "GET", f"/api/tables/{phones[0].table}", None, phones[0].token)[1]["version"]
    results: list[tuple[int, str, int]] = []
    errors: list[object] = []
    lock = threading.Lock()
    per_thread = 10

    def worker(i: int) -> None:
        p = phones[i % len(phones)]
        base = (one.url, two.url)[i % 2]
        for k in range(per_thread):
            rid = f"t{i}-{k}"
            status, body = http(base, "POST", f"/api/tables/{p.table}/actions",
                                {"action": {"type": "note", "text": rid}, "request_id": rid}, p.token)
            with lock:
                if status == 200:
                    results.append((body["version"], rid, status))
                else:
                    errors.append(body)
            if k == 0:  # a retry of an applied request must not apply again
                s2, b2 = http(base, "POST", f"/api/tables/{p.table}/actions",
                              {"action": {"type": "note", "text": rid}, "request_id": rid}, p.token)
                assert s2 == 200 and b2["version"] == body["version"]

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    versions = sorted(v for v, _, _ in results)
    assert versions == list(range(start_version + 1, start_version + 1 + 20 * per_thread))
    final = http(one.url, "GET", f"/api/tables/{phones[0].table}", None, phones[0].token)[1]
    assert final["version"] == start_version + 200
    logged = [e["version"] for e in history_entries(two.url, phones[0].table)]
    assert logged == list(range(1, final["version"] + 1)), "the log is contiguous, no duplicates"


@pytest.mark.parametrize("size", [0, 35, 125, 126, 5000, 65535, 65536, 200_000])
def test_the_hubs_frames_are_whole_text_frames(size: int) -> None:
    """The hub writes its frames finished, past the WebSocket library: a
    client's parser must read exactly one final text message from each, at
    every length encoding (7, 16 and 64 bits)."""
    from wsproto.frame_protocol import FrameProtocol, Opcode

    from server.live.connection import text_frame

    client = FrameProtocol(client=True, extensions=[])
    payload = ("한" * (size // 6)).encode() + b"x" * (size - size // 6 * 3)  # exactly size bytes
    assert len(payload) == size
    client.receive_bytes(text_frame(payload) * 2)
    frames = list(client.received_frames())
    text = "".join(f.payload for f in frames)
    assert all(f.opcode in (Opcode.TEXT, Opcode.CONTINUATION) for f in frames)
    assert text == payload.decode() * 2
    assert sum(f.message_finished for f in frames) == 2


def test_the_hub_beats_a_socket_with_one_write_and_never_a_closed_one() -> None:
    """The heartbeat writes a whole frame to the socket's descriptor without
    blocking; once the socket is closed its number may be another connection's,
    so the beat stops there instead of writing."""
    import socket

    from server.live.connection import Connection

    server_side, phone = socket.socketpair()
    server_side.setblocking(False)  # as gevent's sockets are underneath

    class WS:
        connected = True
        sock = server_side

    conn = Connection(WS(), "t", "p1", "token")
    assert conn.outbox.fd == server_side.fileno()
    conn.sent_version = 7
    conn.beat(conn.outbox.fd)
    assert phone.recv(100) == b'\x81\x1b{"type":"pong","version":7}'
    server_side.close()
    conn.beat(conn.outbox.fd)
    assert not conn.outbox.open
    phone.close()


def test_an_open_socket_keeps_no_table_document(redis_url: str) -> None:
    """A socket's handler lives as long as the phone stays: a decoded table
    document kept in it (or in the request's ``g``) was about half of what a
    phone cost the server (docs/performance.md, "Why each fast path exists"). With four
    phones on a table, no decoded document of it is left in the process but
    the one the store shares among the actions of its most recent tables
    (``writes.Parsed``, a fixed few, not one a phone)."""
    import gc

    from werkzeug.serving import make_server

    from server import create_app
    from tests.toy_engine import TOY

    app = create_app({"REDIS_URL": redis_url, "EXTRA_ENGINES": [TOY], "FIXED_RANDOM": True})
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{srv.server_port}"
    phones = open_live_table(base, joiners=3)
    try:
        for p in phones:
            p.connect()
        status, body = phones[0].act_http("start")
        assert status == 200
        for p in phones:
            p.wait_version(body["version"])
        gc.collect()
        shared = app.extensions["tablemate"].store.shared
        assert shared.size <= 64
        kept = {id(doc) for _raw, doc in shared.held.values()}
        docs = [o for o in gc.get_objects()
                if isinstance(o, dict) and o.get("id") == phones[0].table and "seats" in o and id(o) not in kept]
        assert docs == []
    finally:
        for p in phones:
            p.close()
        srv.shutdown()
        # Its listener and watchers stop with the test: left running, they polled the
        # session's cluster after it was torn down (a page of "Topology refresh failed").
        app.extensions["tablemate"].hub.stop.set()


def test_a_frame_goes_out_whole_when_the_first_send_takes_part_of_it() -> None:
    """``send_whole`` makes one ``send`` and hands only what is left to ``sendall``."""
    from server.store.resp import send_whole

    class Sock:
        def __init__(self, takes: int) -> None:
            self.takes, self.wire, self.calls = takes, b"", []

        def send(self, data: bytes) -> int:
            self.calls.append("send")
            self.wire += bytes(data[:self.takes])
            return min(self.takes, len(data))

        def sendall(self, data: memoryview) -> None:
            self.calls.append("sendall")
            self.wire += bytes(data)

    whole, part = Sock(1 << 20), Sock(3)
    send_whole(whole, b"frame")
    send_whole(part, b"frame")
    assert (whole.wire, whole.calls) == (b"frame", ["send"])
    assert (part.wire, part.calls) == (b"frame", ["send", "sendall"])


def test_an_action_s_state_and_result_leave_in_one_send_and_a_beat_never_overtakes_them() -> None:
    """``Outbox.corked``: while a phone's own action runs, the table's new
    state and the result are held and go out in one send, in that order. The
    heartbeat still beats the socket meanwhile (a slow store may hold the action
    for seconds): with nothing held its pong goes out at once, and with a state
    held it goes out after that state, whose version it names."""
    import socket

    from server.live.connection import Connection, text_frame
    from server.live.outbox import Outbox

    ours, phone = socket.socketpair()
    ours.setblocking(False)
    phone.settimeout(5)

    class WS:
        sock = ours
        connected = True

    class Recording(Outbox):
        """Each system call's bytes, as the socket took them."""

        sends: list[bytes] = []

        def _writev(self, frames: list[Any]) -> int:
            n = super()._writev(frames)
            self.sends.append(b"".join(frames)[:n])
            return n

    def read(n: int) -> bytes:
        got = b""
        while len(got) < n:
            got += phone.recv(65536)
        return got

    try:
        conn = Connection(WS(), "t1", "p1", "token")
        assert conn.outbox.fd == ours.fileno()
        conn.outbox = recording = Recording(conn.ws, conn.outbox.fd)
        state = b'{"type":"state","version":2}'
        result = b'{"type":"result","request_id":"r1","version":2}'
        with conn.outbox.corked():
            conn.send_encoded(2, state)
            conn.send({"type": "result", "request_id": "r1", "version": 2})
            assert recording.sends == []
        assert recording.sends == [text_frame(state) + text_frame(result)]
        assert read(len(recording.sends[0])) == text_frame(state) + text_frame(result)

        with conn.outbox.corked():  # a slow commit: nothing held yet, the beat goes out
            conn.beat(conn.outbox.fd)
            pong2 = text_frame(b'{"type":"pong","version":2}')
            assert read(len(pong2)) == pong2
            conn.send_encoded(3, b'{"type":"state","version":3}')
            conn.beat(conn.outbox.fd)  # the held state first, then the pong naming it
            both = text_frame(b'{"type":"state","version":3}') + text_frame(b'{"type":"pong","version":3}')
            assert recording.sends[-1] == both and read(len(both)) == both
            conn.send({"type": "result", "request_id": "r2", "version": 3})
        later = text_frame(b'{"type":"result","request_id":"r2","version":3}')
        assert recording.sends[-1] == later and read(len(later)) == later
        sent = len(recording.sends)
        with conn.outbox.corked():  # nothing written: nothing sent
            pass
        assert len(recording.sends) == sent
    finally:
        ours.close()
        phone.close()

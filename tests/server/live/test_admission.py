"""Socket caps (issue 30): 500 sockets on one seat token were all accepted and
slowed every table of the instance, and with the connection cap reached by
token-less sockets no HTTP request was served at all. Caps per seat, per
client address and per process, checked before the upgrade."""

from __future__ import annotations

import json
import time

import pytest
import websocket

from tests.server.livehelpers import LivePhone, http, open_live_table, socket_protocols


def open_socket(base: str, table: str, token: str | None) -> websocket.WebSocket:
    url = base.replace("http", "ws", 1) + f"/api/tables/{table}/ws"
    ws = websocket.create_connection(url, timeout=10, subprotocols=socket_protocols(token))
    first = json.loads(ws.recv())
    assert first["type"] == "state"
    return ws


def refused(base: str, table: str, token: str | None) -> tuple[int, bytes]:
    url = base.replace("http", "ws", 1) + f"/api/tables/{table}/ws"
    with pytest.raises(websocket.WebSocketBadStatusException) as exc:
        websocket.create_connection(url, timeout=10, subprotocols=socket_protocols(token))
    return exc.value.status_code, exc.value.resp_body or b""


def closed_with(ws: websocket.WebSocket, timeout: float = 10) -> tuple[list[dict], int | None]:
    """The frames until the server closes ``ws``, and its close code."""
    ws.settimeout(timeout)
    frames: list[dict] = []
    while True:
        op, data = ws.recv_data(control_frame=True)
        if op == websocket.ABNF.OPCODE_CLOSE:
            return frames, int.from_bytes(data[:2], "big") if len(data) >= 2 else None
        if op == websocket.ABNF.OPCODE_TEXT:
            frames.append(json.loads(data))


def test_a_seat_holds_a_few_sockets_and_a_newer_one_pushes_the_oldest_out(app_server_factory) -> None:
    server = app_server_factory({"TABLEMATE_WS_PER_SEAT": "3"})
    host, a = open_live_table(server.url, joiners=1)
    socks = [open_socket(server.url, a.table, a.token) for _ in range(3)]
    newest = open_socket(server.url, a.table, a.token)
    frames, code = closed_with(socks[0])
    assert code == 4409 and any(f.get("error", {}).get("code") == "too_many_sockets" for f in frames)
    # The others, the newest among them, still get every change.
    assert host.act_http("rename", player=host.id, name="Hana")[0] == 200
    for ws in (*socks[1:], newest):
        ws.settimeout(10)
        while (msg := json.loads(ws.recv()))["type"] != "state":
            pass
        assert msg["players"][0]["name"] == "Hana"
    for ws in (*socks[1:], newest):
        ws.close()


def test_an_address_holds_a_bounded_number_of_sockets(app_server_factory) -> None:
    server = app_server_factory({"TABLEMATE_WS_PER_ADDRESS": "4"})
    host, _a = open_live_table(server.url, joiners=1)
    socks = [open_socket(server.url, host.table, None) for _ in range(4)]
    status, body = refused(server.url, host.table, None)
    assert status == 429 and b"too_many_sockets" in body
    status, body = refused(server.url, host.table, host.token)
    assert status == 429, "seated sockets count against the address too"
    socks.pop().close()
    deadline = time.monotonic() + 10
    while True:  # the server sees the close a moment later
        try:
            socks.append(open_socket(server.url, host.table, None))
            break
        except websocket.WebSocketBadStatusException:
            assert time.monotonic() < deadline, "a closed socket gave its place back"
            time.sleep(0.1)
    for ws in socks:
        ws.close()


def test_http_is_served_while_sockets_are_at_the_process_cap(app_server_factory) -> None:
    """gunicorn's worker_connections is the process's greenlets, HTTP and
    sockets together: sockets stop at a tenth below it, so HTTP still works."""
    server = app_server_factory({"TABLEMATE_MAX_CONNECTIONS": "40", "TABLEMATE_WS_PER_ADDRESS": "1000"})
    host, _a = open_live_table(server.url, joiners=1)
    socks = [open_socket(server.url, host.table, None) for _ in range(36)]
    status, body = refused(server.url, host.table, None)
    assert status == 503 and b"server_full" in body
    # (each request times out after 10 s: blocked accepts would fail them)
    assert http(server.url, "GET", "/api/games")[0] == 200
    assert http(server.url, "POST", "/api/tables", {"game": "toy", "name": "Late"})[0] == 201
    assert host.act_http("rename", player=host.id, name="Still")[0] == 200
    phone = LivePhone(server.url, host.table, host.id, host.token)
    with pytest.raises(websocket.WebSocketBadStatusException):
        phone.connect()
    for ws in socks:
        ws.close()

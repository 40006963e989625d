"""A phone that stops reading holds up no other phone (issue 30, item 5): two
live server processes on one Redis, a change committed on one and pushed by
the other's listener to a table where some sockets never read."""

from __future__ import annotations

import fcntl
import socket
import termios
import time

import websocket

from conftest import AppServer
from server.live.outbox import STALL_LIMIT
from tests.server.livehelpers import LivePhone, open_live_table

#: How soon (s) a phone that reads must have each new version.
PROMPT = 2.0
#: Changes made as fast as they go first: enough to fill a stuck socket's buffers.
FAST = 250


def stuck_socket(base: str, table: str, sslopt: dict | None = None) -> websocket.WebSocket:
    """A spectator that completes the handshake and then never reads. A
    receive buffer of a few KB and a small segment size, as a phone's network
    has: with loopback's 64 KB segments the server's kernel would buffer
    megabytes for it before its send buffer filled."""
    url = base.replace("http", "ws", 1) + f"/api/tables/{table}/ws"
    small = ((socket.SOL_SOCKET, socket.SO_RCVBUF, 4096), (socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536))
    return websocket.create_connection(url, timeout=10, sockopt=small, sslopt=sslopt)


def unread(ws: websocket.WebSocket) -> int:
    """Bytes the server sent that wait, unread, in this socket's receive buffer."""
    return int.from_bytes(fcntl.ioctl(ws.sock.fileno(), termios.FIONREAD, b"\0" * 4), "little")


def play_until_given_up(phones: list[LivePhone], stuck: list[websocket.WebSocket]) -> None:
    """Changes fast (the stuck sockets' buffers fill), then every quarter
    second, as a game goes on, until every stuck socket has been given up:
    every phone that reads has each version within ``PROMPT`` s all along,
    and no stuck socket is given up before ``STALL_LIMIT``."""
    began = time.monotonic()
    closed: dict[int, float] = {}
    i = 0
    while len(closed) < len(stuck):
        assert time.monotonic() < began + STALL_LIMIT + 20, f"{len(closed)} of {len(stuck)} stuck sockets closed"
        status, body = phones[i % len(phones)].act_http("note", text=f"note {i} " + "x" * 30)
        assert status == 200, body
        for p in phones:
            assert p.wait_version(body["version"], timeout=PROMPT)["version"] == body["version"]
        i += 1
        if i == FAST:
            assert all(unread(s) >= 4096 for s in stuck), "the stuck sockets took a few frames, then none"
        if i < FAST:
            continue
        # A stuck socket pings (it is not silent, so only taking nothing can
        # close it); a ping to a closed socket fails once the server reset it.
        for k, s in enumerate(stuck):
            if k not in closed:
                try:
                    s.send('{"type":"ping"}')
                except (OSError, websocket.WebSocketException):
                    closed[k] = time.monotonic()
        time.sleep(0.25)
    assert all(t - began >= STALL_LIMIT for t in closed.values()), "not before STALL_LIMIT"
    for s in stuck:
        s.sock.close()
    for p in phones:
        p.close()


def test_a_socket_that_never_reads_holds_up_no_other_phone_and_is_given_up(app_server_factory) -> None:
    one = app_server_factory({"TABLEMATE_FIXED_RANDOM": "1"})
    # A silence limit the test never reaches: only a socket that takes nothing is closed.
    two = app_server_factory({"TABLEMATE_FIXED_RANDOM": "1", "TABLEMATE_WS_SILENT": "300"})
    phones = open_live_table(one.url, joiners=3)
    for p in phones:
        p.connect(two.url)
    status, body = phones[0].act_http("start")
    assert status == 200
    for p in phones:
        p.wait_version(body["version"])
    # Three of them, so nearly every order of the table's sockets puts one
    # before a phone that reads (a push used to go socket by socket).
    play_until_given_up(phones, [stuck_socket(two.url, phones[0].table) for _ in range(3)])


def test_under_tls_served_by_the_app_a_stuck_socket_holds_up_no_other_phone(redis_url, certificate) -> None:
    """With TABLEMATE_TLS_CERT (LAN play) the hub writes through TLS, still
    without ever waiting on one phone, and still gives a stuck socket up."""
    cert, key = certificate
    server = AppServer(redis_url, {"TABLEMATE_FIXED_RANDOM": "1", "TABLEMATE_WS_SILENT": "300",
                                   "TABLEMATE_TLS_CERT": cert, "TABLEMATE_TLS_KEY": key})
    tls = {"ca_certs": cert}
    try:
        phones = open_live_table(server.url, joiners=2, ssl_context=server.ssl)
        for p in phones:
            p.sslopt = tls
            p.connect()
        status, body = phones[0].act_http("start")
        assert status == 200
        play_until_given_up(phones, [stuck_socket(server.url, phones[0].table, tls) for _ in range(2)])
    finally:
        server.stop()

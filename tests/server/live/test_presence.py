"""Presence and liveness over real sockets: which seats have a live phone,
across instances on one Redis, and what the server does with a silent socket."""

from __future__ import annotations

import json
import signal
import time

import psutil
import websocket

from tests.server.livehelpers import LivePhone, http, open_live_table
from tests.server.tcpproxy import TcpProxy


def connected(snap: dict) -> dict[str, bool]:
    return {p["id"]: p["connected"] for p in snap["players"]}


def wait_presence(phone: LivePhone, want: set[str], timeout: float = 15) -> dict:
    deadline = time.monotonic() + timeout
    for msg in phone.presence:
        if set(msg["connected"]) == want:
            return msg
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"no presence {want}; got {phone.presence}"
        try:
            msg = phone.wait_message("presence", left)
        except websocket.WebSocketTimeoutException:
            continue
        phone.presence.append(msg)
        if set(msg["connected"]) == want:
            return msg


def test_presence_across_two_instances(app_server_factory) -> None:
    one, two = app_server_factory(), app_server_factory()
    host, a, b = open_live_table(one.url)
    snap = host.connect(one.url)
    host.keep_alive()
    # A phone counts itself: it is connected the moment its socket is.
    assert connected(snap) == {"p1": True, "p2": False, "p3": False}
    a.connect(two.url)
    a.keep_alive()
    msg = wait_presence(host, {"p1", "p2"})
    # Presence is not a change of the table: the version stays.
    assert msg["version"] == snap["version"] and host.version == snap["version"]
    assert connected(b.connect(one.url)) == {"p1": True, "p2": True, "p3": True}
    b.keep_alive()
    wait_presence(a, {"p1", "p2", "p3"})
    # HTTP readers see it too.
    status, body = http(two.url, "GET", f"/api/tables/{host.table}", None, host.token)
    assert status == 200 and connected(body) == {"p1": True, "p2": True, "p3": True}
    a.close()
    wait_presence(host, {"p1", "p3"})
    wait_presence(b, {"p1", "p3"})
    a.connect(two.url)
    wait_presence(host, {"p1", "p2", "p3"})


def test_a_spectator_is_not_a_seat(app_server_factory) -> None:
    one = app_server_factory()
    host, _ = open_live_table(one.url, joiners=1)
    host.connect()
    spectator = LivePhone(one.url, host.table, None, None)
    assert connected(spectator.connect()) == {"p1": True, "p2": False}


def test_a_dead_instance_takes_its_phones_offline(app_server_factory) -> None:
    one, two = app_server_factory(), app_server_factory()
    host, a = open_live_table(one.url, joiners=1)
    host.connect(one.url)
    a.connect(two.url)
    wait_presence(host, {"p1", "p2"})
    # Killed outright, workers first: no close, no goodbye in Redis; the entry expires.
    master = psutil.Process(two.proc.pid)
    for proc in [*master.children(recursive=True), master]:
        proc.send_signal(signal.SIGKILL)
    two.proc.wait(5)
    start = time.monotonic()
    # Keep host's own presence fresh meanwhile, as its phone's pings would.
    deadline = start + 30
    while True:
        host.send({"type": "ping"})
        try:
            msg = host.wait_message("presence", 2)
        except (TimeoutError, websocket.WebSocketTimeoutException):
            assert time.monotonic() < deadline, "the dead instance's phone still shows connected"
            continue
        if msg["connected"] == ["p1"]:
            break
    assert time.monotonic() - start < 30


def test_server_drops_a_silent_socket(app_server_factory) -> None:
    one = app_server_factory({"TABLEMATE_WS_SILENT": "3"})
    host, a = open_live_table(one.url, joiners=1)
    host.connect()
    proxy = TcpProxy([one.port])
    try:
        a.connect(proxy.url)
        wait_presence(host, {"p1", "p2"})
        proxy.silent.set()  # a's Wi-Fi goes quiet: no FIN, no RST, nothing
        t0 = time.monotonic()
        while True:
            host.send({"type": "ping"})  # host itself stays alive
            try:
                msg = host.wait_message("presence", 1)
            except (TimeoutError, websocket.WebSocketTimeoutException):
                assert time.monotonic() - t0 < 12, "the silent socket was never dropped"
                continue
            if msg["connected"] == ["p1"]:
                break
        assert time.monotonic() - t0 >= 2.5, "dropped before its silence limit"
    finally:
        proxy.close()


def test_a_pinging_socket_is_kept(app_server_factory) -> None:
    one = app_server_factory({"TABLEMATE_WS_SILENT": "2"})
    host, _ = open_live_table(one.url, joiners=1)
    host.connect()
    for _ in range(6):
        time.sleep(0.7)
        host.send({"type": "ping"})
        assert host.wait_message("pong", 5)["version"] == 2
    host.ws.settimeout(5)
    with_silence = time.monotonic()
    try:
        while host.ws.recv():
            pass
    except (websocket.WebSocketException, ConnectionError, OSError):
        pass
    assert 1.5 <= time.monotonic() - with_silence < 5, "a quiet socket is closed after the limit"


def test_presence_frame_shape(app_server_factory) -> None:
    one = app_server_factory()
    host, a = open_live_table(one.url, joiners=1)
    host.connect()
    a.connect()
    msg = wait_presence(host, {"p1", "p2"})
    assert set(msg) == {"type", "version", "connected"}
    json.dumps(msg)


def test_the_server_beats_on_a_quiet_socket(app_server_factory) -> None:
    """A phone that sends nothing still hears from a live server every ~2 s
    (live.BEAT), so it can tell a silent network within 5 s without pinging often."""
    one = app_server_factory()
    host, _ = open_live_table(one.url, joiners=1)
    host.connect()
    last = time.monotonic()
    gaps = []
    for _ in range(3):
        beat = host.wait_message("pong", 4)
        now = time.monotonic()
        gaps.append(now - last)
        last = now
        assert beat["version"] == 2, "the beat carries the version this socket holds"
    assert max(gaps) < 3.5, f"the server went quiet for {max(gaps):.1f} s"

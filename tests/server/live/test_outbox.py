"""What the hub writes to one socket (``server.live.connection.Connection``), on a socket
pair: nothing it pushes waits on the phone, what waits stays small, a frame
begun is finished first, and a socket that takes nothing is given up."""

from __future__ import annotations

import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from server.live import connection as conn_module
from server.live import outbox
from server.live.connection import Connection, close_frame, text_frame


class WS:
    """The parts of a ``simple_websocket.Server`` the hub uses."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.connected = True


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    """The server's end (non-blocking, as gevent's sockets are underneath)
    and the phone's."""
    ours, phone = socket.socketpair()
    ours.setblocking(False)
    yield ours, phone
    ours.close()
    phone.close()


@pytest.fixture
def writers(monkeypatch: pytest.MonkeyPatch) -> list[Callable[..., Any]]:
    """Every greenlet (here: thread) the hub starts, recorded."""
    started: list[Callable[..., Any]] = []
    real = conn_module.start

    def start(fn: Callable[..., Any], *args: Any) -> None:
        started.append(fn)
        real(fn, *args)

    monkeypatch.setattr(conn_module, "start", start)
    return started


def fill(ours: socket.socket) -> int:
    """Fills the server's send buffer as a phone that stopped reading does."""
    n = 0
    try:
        while True:
            n += ours.send(b"x" * 1024)
    except BlockingIOError:
        return n


def read_all(phone: socket.socket, settle: float = 0.3) -> bytes:
    got = b""
    while select.select([phone], [], [], settle)[0]:
        chunk = phone.recv(1 << 20)
        if not chunk:
            break
        got += chunk
    return got


def state(version: int, pad: int = 0) -> bytes:
    return b'{"type":"state","version":%d,"pad":"%s"}' % (version, b"y" * pad)


def test_a_push_never_waits_and_a_newer_snapshot_replaces_the_one_waiting(pair, writers) -> None:
    ours, phone = pair
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
    conn = Connection(WS(ours), "t1", None, None)
    assert conn.outbox.fd == ours.fileno()
    # The kernel may hold no more than this for a phone (Linux counts it twice).
    assert ours.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) <= 2 * conn_module.SEND_BUFFER
    conn.offer(2, state(2))  # the socket takes it at once: written at once
    assert conn.sent_version == 2 and conn.outbox.out == [] and writers == []
    assert read_all(phone) == text_frame(state(2))
    conn.offer(2, state(2))  # stale: nothing sent
    conn.offer(1, state(1))
    assert read_all(phone) == b""

    filled = fill(ours)  # the phone stops reading
    began = time.monotonic()
    for v in range(3, 203):
        conn.offer(v, state(v, 100))
        conn.send_presence(frozenset({"p1"} if v % 2 else {"p1", "p2"}))
        conn.beat(conn.outbox.fd)
    conn.offer(203, state(203, 100))
    assert time.monotonic() - began < 1.0, "no push waited on the phone"
    # What waits: one snapshot, the newest, in the place of the first (the
    # presence waiting went with it: a snapshot says who is connected), and
    # one pong; one writer for them all.
    assert [kind for kind, _ in conn.outbox.out] == ["state", "pong"]
    assert bytes(conn.outbox.out[0][1]) == text_frame(state(203, 100))
    assert conn.sent_version == 203
    assert writers == [conn.outbox.drain]

    got = read_all(phone)  # the phone reads again: the writer sends what waits
    assert got[:filled].strip(b"x") == b""
    assert got[filled:] == text_frame(state(203, 100)) + text_frame(b'{"type":"pong","version":202}')
    assert conn.outbox.out == [] and not conn.outbox.writer and conn.outbox.open


def test_a_frame_begun_is_finished_before_any_other(pair, writers) -> None:
    ours, phone = pair
    conn = Connection(WS(ours), "t1", "p1", "token")
    big = state(4, 300_000)
    conn.offer(4, big)  # the buffer takes part of it
    assert conn.outbox.out and conn.outbox.out[0][0] is None, "the rest of a frame begun: nothing replaces it"
    conn.offer(5, state(5))
    conn.offer(6, state(6))  # replaces 5, never the rest of 4
    conn.send_presence(frozenset({"p1"}))
    assert [kind for kind, _ in conn.outbox.out] == [None, "state", "presence"]
    assert len(writers) == 1
    presence = text_frame(b'{"type":"presence","version":6,"connected":["p1"]}')
    assert read_all(phone) == text_frame(big) + text_frame(state(6)) + presence
    assert conn.outbox.out == [] and not conn.outbox.writer


def test_a_socket_that_takes_nothing_is_given_up(pair, writers, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outbox, "STALL_LIMIT", 0.3)
    ours, phone = pair
    conn = Connection(WS(ours), "t1", None, None)
    filled = fill(ours)
    conn.offer(2, state(2))
    assert conn.outbox.out and conn.outbox.open
    deadline = time.monotonic() + 5
    while conn.outbox.writer and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not conn.outbox.open and conn.outbox.out == [] and not conn.outbox.writer, "given up, its frames let go"
    assert len(read_all(phone)) == filled, "then the phone sees the stream end"
    conn.offer(3, state(3))
    assert conn.outbox.out == [] and len(writers) == 1


def test_a_buffer_that_takes_frames_is_no_sign_of_life(pair, writers, monkeypatch: pytest.MonkeyPatch) -> None:
    """A socket's buffer may take a little more now and then though its peer
    reads nothing (TCP coalesces, or grows the buffer): it is what the peer
    takes that keeps the socket, not what the buffer takes."""
    monkeypatch.setattr(outbox, "STALL_LIMIT", 0.5)
    ours, phone = pair
    conn = Connection(WS(ours), "t1", None, None)
    fill(ours)
    conn.offer(2, state(2))
    assert conn.outbox.out and conn.outbox.stalled is not None
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)  # room again, nothing read
    deadline = time.monotonic() + 0.4
    v = 3
    while time.monotonic() < deadline:
        conn.offer(v, state(v))
        v += 1
        time.sleep(0.02)
    assert conn.outbox.out == [] and conn.outbox.open, "the buffer took them all"
    time.sleep(0.2)
    conn.offer(v, state(v))
    assert not conn.outbox.open, "yet the phone took nothing for STALL_LIMIT s"


def test_a_slow_phone_that_keeps_reading_is_kept(pair, writers, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outbox, "STALL_LIMIT", 0.3)
    ours, phone = pair
    conn = Connection(WS(ours), "t1", None, None)
    fill(ours)
    got: list[bytes] = []
    done = threading.Event()

    def slow_reader() -> None:
        while not done.is_set():
            got.append(phone.recv(2048))
            time.sleep(0.05)

    reader = threading.Thread(target=slow_reader, daemon=True)
    reader.start()
    for v in range(2, 40):  # 1.5 s of snapshots, each bigger than the phone reads a tick
        conn.offer(v, state(v, 5000))
        time.sleep(0.04)
    assert conn.outbox.open, "slow, but taking: kept"
    done.set()
    reader.join()
    rest = read_all(phone)
    assert (b"".join(got) + rest).endswith(text_frame(state(39, 5000)))


def test_a_kick_waits_on_no_phone_and_closes_the_socket_after_its_frames(pair, writers) -> None:
    ours, phone = pair
    conn = Connection(WS(ours), "t1", "p1", "token")
    filled = fill(ours)
    conn.offer(2, state(2))
    conn.kick("bad_token", "gone")
    conn.offer(3, state(3))  # nothing after the close frame
    assert conn.outbox.open and conn.outbox.closing and len(conn.outbox.out) == 3 and len(writers) == 1
    got = read_all(phone)
    error = text_frame(b'{"type":"error","error":{"code":"bad_token","message":"gone"}}')
    assert got[filled:] == text_frame(state(2)) + error + close_frame(4401, "bad_token")
    assert not conn.outbox.open and phone.recv(10) == b"", "shut once the phone took them"


def test_nothing_is_written_once_the_close_handshake_began(pair, writers) -> None:
    ours, phone = pair
    conn = Connection(WS(ours), "t1", "p1", "token")
    conn.ws.connected = False
    conn.offer(2, state(2))
    conn.beat(conn.outbox.fd)
    assert read_all(phone) == b"" and conn.outbox.out == [] and writers == []


def test_the_socket_s_own_handler_waits_for_its_phone(pair, writers) -> None:
    """A result goes out after what waits, and its sender (the socket's own
    handler) returns only once the phone took it: a phone that does not read
    is not read either."""
    ours, phone = pair
    conn = Connection(WS(ours), "t1", "p1", "token")
    filled = fill(ours)
    conn.offer(2, state(2))
    got: list[bytes] = []
    reader = threading.Timer(0.3, lambda: got.append(read_all(phone)))
    reader.start()
    began = time.monotonic()
    conn.send({"type": "result", "request_id": "r1", "version": 2})
    assert time.monotonic() - began >= 0.25 and conn.outbox.out == []
    reader.join()
    result = text_frame(b'{"type":"result","request_id":"r1","version":2}')
    assert got[0][filled:] == text_frame(state(2)) + result


def test_a_frame_with_nothing_waiting_is_one_write_past_the_outbox(pair, writers, monkeypatch) -> None:
    """A heartbeat, a ping's answer and a snapshot, with nothing waiting or
    held, are one write of their own (``Outbox.direct``), never the queue's
    write; anything held or waiting keeps its order through the outbox."""
    ours, phone = pair
    conn = Connection(WS(ours), "t1", "p1", "token")
    queued: list[int] = []
    real = outbox.Outbox._writev

    def writev(self: outbox.Outbox, frames: list[Any]) -> int:
        queued.append(len(frames))
        return real(self, frames)

    monkeypatch.setattr(outbox.Outbox, "_writev", writev)
    conn.offer(2, state(2))
    conn.beat(conn.outbox.fd)
    conn.beat()  # the answer to the phone's ping, from its own handler
    conn.send({"type": "result", "request_id": "r1", "version": 2})
    assert queued == [] and writers == [] and conn.outbox.out == []
    pong = text_frame(b'{"type":"pong","version":2}')
    result = text_frame(b'{"type":"result","request_id":"r1","version":2}')
    assert read_all(phone) == text_frame(state(2)) + pong + pong + result

    with conn.outbox.corked():  # the phone's own action: held, then one write
        conn.offer(3, state(3))
        conn.send({"type": "result", "request_id": "r2", "version": 3})
    assert queued == [2]
    assert read_all(phone) == text_frame(state(3)) + text_frame(b'{"type":"result","request_id":"r2","version":3}')

    other = socket.socket()  # the descriptor now someone else's: nothing written to it
    try:
        conn.outbox.fd = other.fileno()
        conn.offer(4, state(4))
        assert not conn.outbox.open and read_all(phone) == b""
    finally:
        other.close()

"""A socket's frames read by its own handler (server/live/route.py's
``receive``) on the real simple-websocket, over a socket pair: the server end
reads in the caller's own thread; the phone end is a wsproto client."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest
import simple_websocket
from hypothesis import given
from hypothesis import strategies as st
from simple_websocket import ConnectionClosed
from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    CloseConnection,
    Message,
    Ping,
    Pong,
    Request,
    TextMessage,
)
from wsproto.frame_protocol import CloseReason, FrameProtocol

from server.live import route


class Phone:
    """The client end: wsproto over the other half of the pair."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.ws = WSConnection(ConnectionType.CLIENT)
        # The upgrade request as a browser sends it; the server reads it from the
        # WSGI environ (the HTTP server parsed it), so only its key is needed.
        request = self.ws.send(Request(host="x", target="/")).decode()
        self.key = next(line.split(":", 1)[1].strip() for line in request.split("\r\n")
                        if line.lower().startswith("sec-websocket-key:"))

    def send(self, *events: Message | Ping | CloseConnection) -> None:
        self.sock.sendall(b"".join(self.ws.send(e) for e in events))

    def events(self, timeout: float = 2.0) -> list[object]:
        self.sock.settimeout(timeout)
        self.ws.receive_data(self.sock.recv(65536))
        return list(self.ws.events())


@pytest.fixture
def pair() -> Iterator[tuple[simple_websocket.Server, Phone]]:
    server_end, phone_end = socket.socketpair()
    phone = Phone(phone_end)
    environ = {"werkzeug.socket": server_end, "HTTP_HOST": "x", "HTTP_UPGRADE": "websocket",
               "HTTP_CONNECTION": "Upgrade", "HTTP_SEC_WEBSOCKET_KEY": phone.key,
               "HTTP_SEC_WEBSOCKET_VERSION": "13"}
    before = threading.active_count()
    ws = simple_websocket.Server(environ, max_message_size=1024, thread_class=route.NoThread)
    assert threading.active_count() == before  # no reader thread started
    assert any(isinstance(e, AcceptConnection) for e in phone.events())  # the 101
    yield ws, phone
    server_end.close()
    phone_end.close()


def test_messages_arrive_whole_in_the_callers_thread(pair) -> None:
    ws, phone = pair
    phone.send(TextMessage('{"type":"ping"}'), TextMessage("a"))
    assert route.receive(ws, 1) == '{"type":"ping"}'
    assert route.receive(ws, 1) == "a"  # already read: no wait
    # A message in fragments is handed over once, whole.
    phone.send(TextMessage("he", message_finished=False), TextMessage("llo"))
    assert route.receive(ws, 1) == "hello"


def test_nothing_within_the_timeout_is_none(pair) -> None:
    ws, _ = pair
    assert route.receive(ws, 0.05) is None
    assert route.receive(ws, 0) is None  # never a non-blocking read that fails
    assert ws.connected


def test_protocol_ping_is_answered_while_reading(pair) -> None:
    ws, phone = pair
    phone.send(Ping(b"hi"), TextMessage("x"))
    assert route.receive(ws, 1) == "x"
    assert any(isinstance(e, Pong) and e.payload == b"hi" for e in phone.events())


def test_peer_close_is_answered_and_raises(pair) -> None:
    ws, phone = pair
    phone.send(CloseConnection(CloseReason.GOING_AWAY, "bye"))
    with pytest.raises(ConnectionClosed):
        route.receive(ws, 1)
    assert any(isinstance(e, CloseConnection) for e in phone.events())
    assert not ws.connected


def test_a_close_whose_answer_finds_the_peer_gone_is_a_close_not_a_failure(pair) -> None:
    # The phone's close frame is read after it hung up: answering it breaks the
    # pipe. That is a phone gone, which the handler must not log as its failure.
    ws, phone = pair
    phone.send(CloseConnection(CloseReason.GOING_AWAY, "bye"))
    phone.sock.close()
    with pytest.raises(ConnectionClosed):
        route.receive(ws, 1)
    assert not ws.connected


def test_hang_up_without_close_raises(pair) -> None:
    ws, phone = pair
    phone.sock.close()
    with pytest.raises(ConnectionClosed):
        route.receive(ws, 1)


def assert_closed_with(ws: simple_websocket.Server, phone: Phone, code: int) -> None:
    """The read raises, and the phone got a close frame with ``code``."""
    with pytest.raises(ConnectionClosed):
        route.receive(ws, 1)
    closes = [e for e in phone.events() if isinstance(e, CloseConnection)]
    assert closes and closes[0].code == code


def test_too_big_closes_with_1009(pair) -> None:
    ws, phone = pair
    phone.send(TextMessage("x" * 2000))
    assert_closed_with(ws, phone, CloseReason.MESSAGE_TOO_BIG)


def test_finish_sends_close_then_closes_the_socket(pair) -> None:
    ws, phone = pair
    route.finish(ws, 1001, "silent")
    closes = [e for e in phone.events() if isinstance(e, CloseConnection)]
    assert closes and closes[0].code == 1001
    assert ws.sock.fileno() == -1
    route.finish(ws)  # twice is harmless


# -- the whole-frame fast path ------------------------------------------------------


def library_must_not_read(ws: simple_websocket.Server, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(data: bytes) -> None:
        raise AssertionError("wsproto was handed a frame the fast path reads")

    monkeypatch.setattr(ws.ws, "receive_data", refuse)


@pytest.mark.parametrize("text", ['{"type":"ping"}', "", "세 번째 낙타 ✓" * 20, "x" * 1000])
def test_one_whole_text_frame_is_read_without_the_library(pair, monkeypatch, text: str) -> None:
    ws, phone = pair
    library_must_not_read(ws, monkeypatch)
    phone.send(TextMessage(text))
    assert route.receive(ws, 1) == text
    assert not getattr(ws, route.LIBRARY_READS, False)


def test_two_frames_in_one_read_go_to_the_library_for_good(pair) -> None:
    ws, phone = pair
    phone.send(TextMessage("a"), TextMessage("b"))
    assert (route.receive(ws, 1), route.receive(ws, 1)) == ("a", "b")
    assert getattr(ws, route.LIBRARY_READS)
    phone.send(TextMessage("c"))  # whole, but the library may hold part of a frame
    assert route.receive(ws, 1) == "c"


def test_invalid_utf8_is_the_librarys_to_refuse(pair) -> None:
    ws, phone = pair
    phone.sock.sendall(masked(0x81, b"\xff\xfe"))
    assert_closed_with(ws, phone, CloseReason.INVALID_FRAME_PAYLOAD_DATA)


def test_an_unmasked_frame_is_the_librarys_to_refuse(pair) -> None:
    ws, phone = pair
    phone.sock.sendall(bytes([0x81, 1]) + b"x")
    assert_closed_with(ws, phone, CloseReason.PROTOCOL_ERROR)


def masked(first: int, payload: bytes, mask: bytes = b"\x01\x02\x03\x04", long: bool = False) -> bytes:
    n = len(payload)
    head = bytes([first, 0x80 | 126]) + n.to_bytes(2, "big") if long or n > 125 else bytes([first, 0x80 | n])
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def test_whole_text_reads_only_what_it_should() -> None:
    assert route.whole_text(masked(0x81, "낙타".encode()), None) == "낙타"
    assert route.whole_text(masked(0x81, b"x" * 300), None) == "x" * 300
    assert route.whole_text(masked(0x81, b"x" * 300), 299) is None  # over the limit
    assert route.whole_text(masked(0x01, b"he"), None) is None  # a first fragment
    assert route.whole_text(masked(0x80, b"lo"), None) is None  # a continuation
    assert route.whole_text(masked(0x82, b"\x00"), None) is None  # binary
    assert route.whole_text(masked(0x89, b"hi"), None) is None  # a protocol ping
    assert route.whole_text(masked(0xC1, b"z"), None) is None  # RSV1 (compression)
    assert route.whole_text(masked(0x81, b"abc")[:-1], None) is None  # partial
    assert route.whole_text(masked(0x81, b"a") + masked(0x81, b"b"), None) is None  # two
    assert route.whole_text(masked(0x81, b"short", long=True), None) is None  # not minimal
    assert route.whole_text(bytes([0x81, 0x80 | 127]) + bytes(8) + b"mask", None) is None


@given(st.text(max_size=400))
def test_whole_text_agrees_with_a_real_clients_frames(text: str) -> None:
    frame = FrameProtocol(client=True, extensions=[]).send_data(text, fin=True)  # a random mask
    assert route.whole_text(frame, None) == text

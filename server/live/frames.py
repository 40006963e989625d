"""What the hub sends, as bytes: a message's JSON, a seat's ``state``, whole
WebSocket frames (``text_frame``, ``close_frame``), and ``Frames``, the
per-seat snapshots of one version of a table, each built once per push."""

from __future__ import annotations

from typing import Any

from server.model import Snapshot, TableDoc
from server.service import Tables
from server.service.snapshot import Common
from server.wire import dumps


def encode(msg: dict[str, Any]) -> bytes:
    return dumps(msg)


def encode_state(snapshot: Snapshot) -> bytes:
    return encode({"type": "state", **snapshot})


def text_frame(payload: bytes) -> bytes:
    """A whole, unmasked text frame as a server sends it (RFC 6455 §5.2): FIN +
    opcode 1, the length in 7, 7+16 or 7+64 bits, the payload. Every frame the
    hub sends goes out this way: through the WebSocket library (wsproto's
    framing, and a str the library encodes again) each cost more than the
    message's own encoding, and a finished frame needs no protocol state, only
    the socket's send lock. It is uncompressed, which permessage-deflate also
    allows (RFC 7692 §6: a message without RSV1 is sent as is)."""
    n = len(payload)
    if n < 126:
        head = bytes((0x81, n))
    elif n < 1 << 16:
        head = bytes((0x81, 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x81, 127)) + n.to_bytes(8, "big")
    return head + payload


def close_frame(code: int, reason: str) -> bytes:
    """A close frame as a server sends it (RFC 6455 §5.5.1): the status code,
    then the reason (a control frame's payload is at most 125 bytes)."""
    body = code.to_bytes(2, "big") + reason.encode()[:123]
    return bytes((0x88, len(body))) + body


class Frames:
    """One push's encoded ``state`` frames of a document, per seat (None:
    spectators): each built and encoded once, however many phones share it.
    Not kept past the push: keeping the latest version's frames of every
    table cost memory a phone and saved little (presence
    changes with every connect, so a connect storm would miss them anyway)."""

    def __init__(self, tables: Tables, doc: TableDoc, online: frozenset[str], state: Any = None) -> None:
        self.tables, self.doc, self.online, self.state = tables, doc, online, state
        self.by_seat: dict[str | None, bytes] = {}
        #: What every seat's snapshot shares (the state, decoded once if the
        #: push was not given it; the seat list; the engine's viewer; the
        #: table's fair dice, waits and evening), built at the first seat.
        self.common: Common | None = None

    def get(self, player: str | None) -> bytes:
        data = self.by_seat.get(player)
        if data is None:
            online = set(self.online)
            if self.common is None:
                self.common = self.tables.common(self.doc, self.state, online)
            data = self.by_seat[player] = encode_state(
                self.tables.snapshot(self.doc, player, online=online, shared=self.common))
        return data

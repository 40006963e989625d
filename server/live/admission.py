"""Who may open a socket on this process: caps per seat, per client address
and in all, so no phone, and no address, can take what the others need.

Checked before the upgrade (a refusal is a real HTTP answer with the error
envelope). The process cap stays below gunicorn's ``worker_connections``
(``TABLEMATE_MAX_CONNECTIONS``): a greenlet serves each connection, sockets
and HTTP alike, and with every greenlet held by a socket no page, join or
action over HTTP would be served at all. Per process, not across instances:
what one address or seat can hold is then bounded by the instance count, and
a socket's life needs no store round trip of its own.
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Protocol

from server.errors import ServiceError

#: The close code of a socket pushed out by a newer one of the same seat
#: (``SEAT_SOCKETS`` reached): the phone says so instead of reconnecting.
CLOSE_TOO_MANY = 4409


class Seated(Protocol):
    table_id: str
    player: str | None


@dataclass(frozen=True)
class Caps:
    #: Sockets one seat may hold on this process; a newer one pushes the
    #: oldest out (it is usually one the phone's dropped Wi-Fi left behind).
    per_seat: int = 5
    #: Sockets from one client address (a family or a café behind one NAT).
    per_address: int = 64
    #: Sockets in all on this process.
    total: int = 9000


class Admission:
    def __init__(self, caps: Caps) -> None:
        self.caps = caps
        self.lock = threading.Lock()
        self.total = 0
        self.by_address: Counter[str] = Counter()
        self.by_seat: dict[tuple[str, str], list[Seated]] = defaultdict(list)

    def admit(self, address: str) -> None:
        """Takes a socket's place for ``address``, or refuses it: ``503
        server_full`` at the process cap, ``429 too_many_sockets`` at the
        address's. ``release`` gives the place back."""
        with self.lock:
            if self.total >= self.caps.total:
                raise ServiceError("unavailable", "server_full", "This server holds all the live connections it can; "
                               "retrying shortly.", retry_after=5)
            if self.by_address[address] >= self.caps.per_address:
                raise ServiceError("rate_limited", "too_many_sockets", "Too many live connections from this network.",
                               retry_after=10)
            self.total += 1
            self.by_address[address] += 1

    def release(self, address: str) -> None:
        with self.lock:
            self.total -= 1
            self.by_address[address] -= 1
            if self.by_address[address] <= 0:
                del self.by_address[address]

    def seated(self, conn: Seated) -> list[Seated]:
        """Registers a seated socket; what it pushes out of its seat's cap (oldest first)."""
        if conn.player is None:
            return []
        with self.lock:
            held = self.by_seat[(conn.table_id, conn.player)]
            held.append(conn)
            over = len(held) - self.caps.per_seat
            out, held[:] = (held[:over], held[over:]) if over > 0 else ([], held)
            return out

    def left(self, conn: Seated) -> None:
        if conn.player is None:
            return
        with self.lock:
            key = (conn.table_id, conn.player)
            held = self.by_seat.get(key)
            if held is not None:
                if conn in held:
                    held.remove(conn)
                if not held:
                    del self.by_seat[key]

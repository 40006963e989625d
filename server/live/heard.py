"""What this process's listener hears, told to its phones: the listener's
callbacks (``service.Callbacks``) but for a waiting draw's (``drawwatch.py``).
Every instance's changes (``committed``), presence changes coalesced per
table, and the store's outages and their end, which phones show as
"reconnecting" until a fresh snapshot clears it. The hub wires them to its
listener (``Hub.ensure_listening``) and lends them its registry and its push.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from server.errors import StoreDown, store_unavailable
from server.model import TableDoc
from server.runtime import start
from server.wire import loads

if TYPE_CHECKING:  # the hub holds the registry and this part over it
    from server.live.hub import Sockets

#: Seconds a presence change waits for others of the same table (phones of one
#: table tend to connect together) so a burst costs one read, not one per phone.
PRESENCE_COALESCE = 0.05

Push = Callable[[str, bool, TableDoc | None], None]


class Heard:
    """The listener's callbacks over ``sockets``: ``push`` the hub's (a
    table's views sent to its phones here), ``read_presence`` the hub's (a
    table's presence read from the store, remembered)."""

    def __init__(self, sockets: Sockets, push: Push, read_presence: Callable[[str], frozenset[str]]) -> None:
        self.sockets, self.push, self.read_presence = sockets, push, read_presence
        self.lock = sockets.lock
        #: The tables whose presence push is on its way (``presence_changed``).
        self._presence_due: set[str] = set()

    def committed(self, table_id: str, version: int, raw: str | None) -> None:
        """A change message (the listener's ``on_change``): its document, when
        it carries one, spares the push a load. Parsed only here, for a table
        with phones on this instance, and only when no push of this version
        (or a newer one) has started yet: one this process committed itself
        went out already (``Hub.wrote``). The push runs off the listener's
        thread, so one slow phone never delays other tables."""
        if self.sockets.news(table_id, version):
            doc = cast(TableDoc, loads(raw)) if raw is not None else None
            start(self.push, table_id, False, doc)

    def presence_changed(self, table_id: str) -> None:
        if not self.sockets.of(table_id):
            return
        with self.lock:
            if table_id in self._presence_due:
                return  # a push is already on its way and will read the latest
            self._presence_due.add(table_id)
        start(self._push_presence_soon, table_id)

    def _push_presence_soon(self, table_id: str) -> None:
        time.sleep(PRESENCE_COALESCE)
        with self.lock:
            self._presence_due.discard(table_id)
        self.push_presence(table_id)

    def push_presence(self, table_id: str) -> None:
        """Tells the table's local phones who is connected, if that changed for them."""
        conns = self.sockets.of(table_id)
        if not conns:
            return
        try:
            online = self.read_presence(table_id)
        except StoreDown:
            return  # the store's outage is told to phones by the listener
        for c in conns:
            c.send_presence(online)

    def store_down(self) -> None:
        """Tell every local phone to show "reconnecting"; a resync follows."""
        with self.lock:
            conns = [c for peers in self.sockets.conns.values() for c in peers]
        msg = {"type": "error", **store_unavailable().envelope()}
        for c in conns:
            c.tell(msg)

    def table_down(self, table_id: str) -> None:
        """One table's channel was lost (its master's fault): its phones show
        "reconnecting" until ``table_back``."""
        msg = {"type": "error", **store_unavailable().envelope()}
        for c in self.sockets.of(table_id):
            c.tell(msg)

    def table_back(self, table_id: str) -> None:
        start(self.push, table_id, True)

    def resync_all(self) -> None:
        # Phones were told the store was down and wait for a snapshot to clear
        # it, so resend even at an unchanged version.
        with self.lock:
            ids = list(self.sockets.conns)
        for tid in ids:
            start(self.push, tid, True)

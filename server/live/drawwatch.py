"""The draws that wait for the phones' links, as one process tells its
phones (issue 38; docs/api.md, the ``draw`` frame): the announce's frame
to every phone of the table here at once, then a look at the draw's links now
and then while it waits, so the phones see whom it still waits for. A link
publishes nothing (a roll's links come within milliseconds and its snapshot
follows): only a slow draw costs the looks' reads.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from server.runtime import start
from server.service import Tables
from server.wire import loads

if TYPE_CHECKING:  # the hub holds the registry and this part over it
    from server.live.hub import Sockets

log = logging.getLogger(__name__)

#: Seconds between two looks at a draw that still waits (``_watch_draw``):
#: links publish nothing (a roll's come within milliseconds and its snapshot
#: follows), so a slow draw's phones learn whom it still waits for from here,
#: this late at most. The first look comes sooner: most draws are made by then.
DRAW_WATCH = 0.5
DRAW_WATCH_FIRST = 0.3
#: Seconds a hub watches one draw at most (a draw waits
#: ``TABLEMATE_DRAW_WAIT``, 3 s by default, before any phone may make it).
DRAW_WATCH_FOR = 30.0


class DrawWatch:
    """The hub's part for waiting draws: ``announced`` is the listener's
    ``on_draw``; the looks run on a greenlet per watched table."""

    def __init__(self, sockets: Sockets, tables: Tables, stop: threading.Event) -> None:
        self.sockets, self.tables, self.stop = sockets, tables, stop
        self.lock = sockets.lock
        #: Per table, the waiting draw watched here: its id, the table's version
        #: at its announce, and whom the phones here were last told it waits for.
        self.watching: dict[str, tuple[int, int, list[str]]] = {}

    def announced(self, table_id: str, version: int, frame: str) -> None:
        """A draw announced (the listener's ``on_draw``): its ``draw`` frame,
        encoded once by the store's script, to every phone here at once (their
        links wait on it), off the listener's thread; then the draw is watched
        until it is made (``_watch_draw``). A link frame (published by an
        instance from before links published nothing) goes out the same way."""
        with self.lock:
            if version < self.sockets.versions.get(table_id, (0, 0.0))[0] or table_id not in self.sockets.conns:
                return
        p = loads(frame)["pending"]
        start(self._push_draw, table_id, version, frame, int(p["draw"]), list(p["waiting"]))

    def _tell_draw(self, table_id: str, version: int, frame: str) -> None:
        with self.lock:
            if version < self.sockets.versions.get(table_id, (0, 0.0))[0]:
                return  # the draw was made meanwhile: its snapshot went out
        data = frame.encode()
        for c in self.sockets.of(table_id):
            c.tell_encoded(data)

    def _push_draw(self, table_id: str, version: int, frame: str, draw: int, waiting: list[str]) -> None:
        self._tell_draw(table_id, version, frame)
        with self.lock:
            running = table_id in self.watching
            self.watching[table_id] = (draw, version, waiting)
        if not running:
            self._watch_draw(table_id)

    def _watch_draw(self, table_id: str) -> None:
        """While the table's draw waits, a look at its links every ``DRAW_WATCH``
        s: when whom it waits for changed, the phones here are told (a ``draw``
        frame). Most draws are made before the first look: the version this
        process was told of moved on, and the look reads nothing. A change that
        passed the waiting draw (a rename say: its document, pushed here,
        carries the draw, ``Sockets.passed``) does not end the watch. A draw
        announced meanwhile is watched on (``watching``)."""
        with self.lock:
            target = self.watching[table_id]
        until = time.monotonic() + DRAW_WATCH_FOR
        delay = DRAW_WATCH_FIRST
        while True:
            time.sleep(delay)
            delay = DRAW_WATCH
            here = bool(self.sockets.of(table_id))
            with self.lock:
                newest = self.sockets.versions.get(table_id, (0, 0.0))[0]
                moved = newest > self.watching[table_id][1] and self.sockets.passed.get(table_id) != (newest, target[0])
            now = None
            if here and not moved:
                try:
                    now = self.tables.draw_frame(table_id)
                except Exception:  # a store fault ends the watch: the draw's snapshot still comes
                    log.warning("a look at table %s's waiting draw failed", table_id, exc_info=True)
            with self.lock:
                latest = self.watching[table_id]
                if latest[0] != target[0]:
                    # Another draw was announced since: watched from its start.
                    target, until, delay = latest, time.monotonic() + DRAW_WATCH_FOR, DRAW_WATCH_FIRST
                    continue
                if (now is None or now.draw != target[0] or not here or moved or self.stop.is_set()
                        or time.monotonic() >= until):
                    # Made (its snapshot went out), or a newer draw (its own
                    # announce starts its watch), or nobody here to tell.
                    del self.watching[table_id]
                    return
                changed = now.waiting != target[2]
                if changed:
                    target = self.watching[table_id] = (target[0], target[1], now.waiting)
            if changed:
                self._tell_draw(table_id, now.version, now.frame)

"""Liveness and presence, in small slices: the server's heartbeat over every
socket of the process (``beat_all``), and the presence refresh of every local
table (``refresh``), both driven by one sweeper thread (``sweep``) that visits
a slice of them every 20 ms (several slices a wake, up to every 200 ms, when
the process has few sockets: ``sweep_step``), so no round holds the worker
long. The hub holds one ``Liveness`` over its registry of sockets
(``hub.Sockets``), which keeps what the rounds read of each table as pushed.
"""

from __future__ import annotations

import logging
import threading
import time
import zlib
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from server.errors import RefusedOrDown, StoreDown
from server.runtime import start
from server.service import Tables
from server.service.hostship import HOST_AWAY
from server.store.presence import Presence

if TYPE_CHECKING:  # the hub holds the registry and these rounds over it
    from server.live.hub import Sockets

log = logging.getLogger(__name__)

#: How often (s) each process refreshes the presence of all its live sockets and
#: reads back its tables' presence (a phone on another, dead instance expires),
#: all in one pipeline: a ping itself costs no store round trip.
PRESENCE_REFRESH = 3.0
#: The server's heartbeat (s): a socket that was sent nothing for this long gets
#: a ``pong``, so a phone hears from a live server this often and can give a
#: silent socket up after 5 s. The hub visits each of its sockets once a
#: second, a fiftieth of them every 20 ms (``Liveness.beat_all``; ``sweep_step``: with
#: few sockets several fiftieths a wake): per socket, a timer
#: waking its own loop cost several times more than the write.
BEAT = 2.0
#: Seconds without any message after which the server gives a socket up (phones
#: ping at least every ~8 s); ``WS_SILENT_LIMIT`` in the config.
SILENT_LIMIT = 25.0
#: A socket silent this long (s) is no longer shown as connected, though it is
#: kept open until ``SILENT_LIMIT``: phones ping every ~8 s (and give a
#: socket up after 5 s without the server's heartbeat), so it is one ping
#: late by more than any network's jitter.
PRESENCE_SILENT = 12.0
#: A version this process was told of (s ago) that a socket still lacks is sent
#: again by the refresh: a push that failed (a store error loading it) heals.
HEAL_AFTER = 1.0
#: The heartbeat's round is cut into this many slices, one every 1/BEAT_SLICES
#: s, each visiting the sockets of its slice: a round over every socket at
#: once held the worker long enough that the actions coming in meanwhile
#: waited it out (most of the p99), and a tenth of them still did. The presence
#: refresh runs every ``REFRESH_TICKS`` ticks, over one of ``REFRESH_SLICES``
#: slices of the tables (each table every PRESENCE_REFRESH s), in calls of at
#: most ``REFRESH_BATCH`` tables: a script call's fixed cost outweighs its
#: tables' right after the sweep's sleep (bench/host.py says why), so a slice
#: on every tick made the refresh the largest part of an idle worker's CPU;
#: every tenth tick it holds the worker about as long as a heartbeat slice
#: does. The figures: the heartbeat and presence row of
#: docs/performance.md, "Why each fast path exists".
BEAT_SLICES = 50
REFRESH_TICKS = 10
REFRESH_SLICES = round(PRESENCE_REFRESH * BEAT_SLICES / REFRESH_TICKS)
REFRESH_BATCH = 100
#: Sockets a wake of the sweep visits, about, before it takes several slices a
#: wake (at most ``MAX_STEP``): a wake is a fixed cost of every instance with a
#: socket, whatever its phones: at 4 instances each paid fifty a second over a
#: quarter of the actions, most of why CPU per own action grew from 1 to 4
#: instances (bench/scale.py; docs/performance.md, "Scaling out", and the
#: slices row of "Why each fast path exists"). The
#: slices and the refresh keep their order and rate; few sockets are visited in
#: fewer, larger wakes, at most every 200 ms (a beat is sent 0.5 s early).
PER_WAKE = 100
MAX_STEP = 10


def sweep_step(sockets: int) -> int:
    """Slices the sweep visits a wake for ``sockets`` live sockets.

    >>> [sweep_step(n) for n in (0, 500, 1000, 2500, 5000, 20000)]
    [10, 10, 5, 2, 1, 1]
    """
    return max(1, min(MAX_STEP, BEAT_SLICES * PER_WAKE // max(1, sockets)))


def refresh_slice(table_id: str) -> int:
    """The presence refresh slice of a table (``REFRESH_SLICES``)."""
    return zlib.crc32(table_id.encode()) % REFRESH_SLICES


class Liveness:
    """The heartbeat and presence rounds over ``sockets``: ``presence`` the
    store's, ``tables`` the service (host powers settled), ``push`` the
    hub's (a version a socket lacks sent again), ``stop`` ends the sweep."""

    def __init__(self, sockets: Sockets, presence: Presence, tables: Tables,
                 push: Callable[[str], None], stop: threading.Event) -> None:
        self.sockets, self.presence, self.tables, self.push, self.stop = sockets, presence, tables, push, stop
        self.lock = sockets.lock
        self.beat_every = BEAT
        #: Seconds without a message after which a socket the hub beats is given up.
        self.silent_limit = SILENT_LIMIT
        #: Seconds the holder of host powers has no live phone before they pass on
        #: (``service/hostship.py``; the config's ``HOST_AWAY``).
        self.host_away = HOST_AWAY
        #: Per local table whose holder of host powers has no live phone: which
        #: seat, and since when (monotonic) this process has seen it so.
        self.away: dict[str, tuple[str, float]] = {}
        self.host_due: set[str] = set()

    def forget(self, table_id: str) -> None:
        """The table's last local socket closed."""
        with self.lock:
            self.away.pop(table_id, None)

    def beat_all(self, every: float = BEAT, part: int | None = None) -> None:
        """The heartbeat over one slice of the sockets (``part``; None: all):
        a socket sent nothing for about ``every`` s gets a beat (half a round
        early, as each socket is visited once a second), and one not heard
        from for ``silent_limit`` s is given up (its handler reads without a
        timeout: a timer per read cost more than this visit)."""
        now = time.monotonic()
        with self.lock:
            parts = self.sockets.slices if part is None else [self.sockets.slices[part]]
            conns = [c for p in parts for c in p]
        for c in conns:
            ob = c.outbox
            if ob.fd is not None:
                if now - c.heard > self.silent_limit:
                    ob.give_up()
                elif now - ob.sent_at >= every - 0.5:
                    c.beat(ob.fd, now)

    def sweep(self) -> None:
        ticks = 0
        step = 1
        while not self.stop.wait(step / BEAT_SLICES):
            for _ in range(step):
                ticks += 1
                self.tick(ticks)
            step = sweep_step(sum(len(s) for s in self.sockets.slices))

    def tick(self, ticks: int) -> None:
        """One slice of the heartbeat and, every ``REFRESH_TICKS``, of the refresh."""
        try:
            self.beat_all(self.beat_every, ticks % BEAT_SLICES)
        except Exception:  # the heartbeat must go on for every other socket
            log.exception("heartbeat failed")
        if ticks % REFRESH_TICKS:
            return
        try:
            # Each table once per PRESENCE_REFRESH, a slice of them every REFRESH_TICKS.
            self.refresh(ticks // REFRESH_TICKS % REFRESH_SLICES)
        except StoreDown:
            pass  # the listener tells phones of the outage; the next round retries
        except Exception:  # the refresh must go on for every other table
            log.exception("presence refresh failed")

    def refresh(self, part: int | None = None) -> None:
        """The presence of the local sockets of one slice of the tables
        (``part`` of ``REFRESH_SLICES``; None: every table), in one round trip per
        ``REFRESH_BATCH`` tables: the live ones touched, the silent ones
        forgotten (their phone has given them up), each table's presence read
        back and pushed where it changed. Also resends a version a socket
        lacks (a push that failed to load)."""
        now = time.monotonic()
        with self.lock:
            wanted: Iterable[str] = self.sockets.conns if part is None else self.sockets.table_slices[part]
            by_table = {tid: list(self.sockets.conns[tid]) for tid in wanted if tid in self.sockets.conns}
            versions = {tid: self.sockets.versions[tid] for tid in by_table if tid in self.sockets.versions}
        plan: dict[str, tuple[list[str], list[str]]] = {}
        moved: list[str] = []
        for tid, conns in by_table.items():
            live: list[str] = []
            gone: list[str] = []
            for c in conns:
                if c.member is None:
                    continue
                fresh = c.outbox.open and now - c.heard <= PRESENCE_SILENT
                if fresh:
                    live.append(c.member)
                elif c.listed:
                    gone.append(c.member)
                if fresh != c.listed:
                    c.listed = fresh
                    moved.append(tid)
            plan[tid] = (live, gone)
            v, seen = versions.get(tid, (0, now))
            if now - seen >= HEAL_AFTER and any(c.outbox.open and c.sent_version < v for c in conns):
                start(self.push, tid)
        if not plan:
            return
        found: dict[str, set[str] | None] = {}
        tids = list(plan)
        for at in range(0, len(tids), REFRESH_BATCH):
            if at:
                time.sleep(0)  # a yield, as in beat_all
            found.update(self.presence.refresh({t: plan[t] for t in tids[at:at + REFRESH_BATCH]}))
        for tid in dict.fromkeys(moved):  # other instances' phones learn it now, not next round
            self.presence.announce(tid)
        for tid, seats in found.items():
            if seats is None:  # expired with phones still watching
                for c in by_table[tid]:
                    c.kick("table_not_found", "This table has expired.")
                continue
            online = frozenset(seats)
            with self.lock:
                if tid not in self.sockets.conns:
                    continue
                known, self.sockets.online[tid] = self.sockets.online.get(tid), online
            if online != known:  # else every phone of it was told already
                for c in by_table[tid]:
                    c.send_presence(online)
            self.check_host(tid, online, now)

    def check_host(self, table_id: str, online: frozenset[str], now: float) -> None:
        """Host powers follow presence: once the holder (the stand-in, else
        the host) has had no live phone for ``host_away`` s in this process's
        rounds, they pass to the next seat with one; once the host's seat has
        one again, they go back. The hub only times it: the service reads
        presence again in the store and decides (``Tables.settle_host``), and
        no phone's word counts."""
        with self.lock:
            known = self.sockets.hosts.get(table_id)
        if known is None:
            return
        host, stand_in, able = known
        live = online & able
        holder = stand_in or host
        if stand_in is not None and host in live:
            self.away.pop(table_id, None)
            away = False
        elif holder in live or not live - {holder, host}:
            self.away.pop(table_id, None)  # present, or nobody to hand on to
            return
        else:
            seen = self.away.get(table_id)
            if seen is None or seen[0] != holder:
                self.away[table_id] = (holder, now)
                return
            if now - seen[1] < self.host_away:
                return
            away = True
        with self.lock:
            if table_id in self.host_due:
                return
            self.host_due.add(table_id)
        start(self._settle_host, table_id, away)

    def _settle_host(self, table_id: str, away: bool) -> None:
        try:
            self.tables.settle_host(table_id, away)
        except RefusedOrDown:
            pass  # the next round tries again
        except Exception:
            log.exception("host hand-on failed")
        finally:
            with self.lock:
                self.host_due.discard(table_id)

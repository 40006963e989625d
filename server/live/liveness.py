"""Liveness and presence, in small slices: the server's heartbeat over every
socket of the process (``beat_all``), and the presence refresh of every local
table (``refresh``), both driven by one sweeper thread (``sweep``) that visits
a slice of them every 20 ms, so no round holds the worker long. ``Hub``
inherits these rounds; they read its registry of sockets and tables.
"""

from __future__ import annotations

import logging
import threading
import time
import zlib
from collections.abc import Iterable
from typing import Any

from server.errors import ServiceError, StoreDown
from server.live.connection import Connection
from server.model import TableDoc
from server.runtime import start
from server.service import Tables
from server.service.seats import hidden
from server.store.presence import Presence

log = logging.getLogger(__name__)

#: How often (s) each process refreshes the presence of all its live sockets and
#: reads back its tables' presence (a phone on another, dead instance expires),
#: all in one pipeline: a ping itself costs no store round trip.
PRESENCE_REFRESH = 3.0
#: The server's heartbeat (s): a socket that was sent nothing for this long gets
#: a ``pong``, so a phone hears from a live server this often and can give a
#: silent socket up after 5 s. The hub visits each of its sockets once a
#: second, a fiftieth of them every 20 ms (``Hub.beat_all``): per socket, a timer
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
#: s, each visiting the sockets of its slice: one round over 5,000 sockets at
#: once held the worker ~100 ms every second (and sent 2,500 frames in one
#: burst), and the actions that came in meanwhile waited for it: most of the
#: p99 of docs/performance.md. A tenth of them still held it ~7 ms ten times a
#: second (~250 beats at ~27 us each in a py-spy profile at 5,000 phones), which
#: an action arriving then waited out; a fiftieth is ~1.4 ms. The presence
#: refresh runs every ``REFRESH_TICKS`` ticks, over one of ``REFRESH_SLICES``
#: slices of the tables (each table every PRESENCE_REFRESH s), in calls of at
#: most ``REFRESH_BATCH`` tables. A script call's fixed cost outweighs its
#: tables': right after the sweep's 20 ms asleep, a call of 6 tables cost the
#: client ~94 us of CPU a table, one of 30 ~30 us and one of 100 ~18 us
#: (bench/host.py says why), so a slice on every tick (~6 tables of 958 at
#: 5,000 phones) made the refresh the largest part of an idle worker's CPU.
#: Every tenth tick (~64 tables a call there) it holds the worker about as
#: long as a heartbeat slice does.
BEAT_SLICES = 50
REFRESH_TICKS = 10
REFRESH_SLICES = round(PRESENCE_REFRESH * BEAT_SLICES / REFRESH_TICKS)
REFRESH_BATCH = 100


def refresh_slice(table_id: str) -> int:
    """The presence refresh slice of a table (``REFRESH_SLICES``)."""
    return zlib.crc32(table_id.encode()) % REFRESH_SLICES


class Liveness:
    """The heartbeat and presence rounds of ``Hub`` (a mixin: the hub holds
    the sockets, tables and versions these rounds visit)."""

    tables: Tables
    presence: Presence
    lock: threading.Lock
    stop: threading.Event
    conns: dict[str, set[Connection]]
    slices: list[set[Connection]]
    table_slices: list[set[str]]
    online: dict[str, frozenset[str]]
    versions: dict[str, tuple[int, float]]
    beat_every: float
    silent_limit: float
    #: Seconds the holder of host powers has no live phone before they pass on
    #: (``service/hostship.py``; the config's ``HOST_AWAY``).
    host_away: float
    #: Per local table, as last pushed: its host, stand-in, and the seats
    #: whose phone could hold host powers (on their phone, not sealed or paused).
    hosts: dict[str, tuple[str, str | None, frozenset[str]]]
    #: Per local table whose holder of host powers has no live phone: which
    #: seat, and since when (monotonic) this process has seen it so.
    away: dict[str, tuple[str, float]]
    host_due: set[str]

    def push(self, table_id: str, force: bool = False, doc: Any = None, state: Any = None) -> None:
        raise NotImplementedError  # the hub's

    def beat_all(self, every: float = BEAT, part: int | None = None) -> None:
        """The heartbeat over one slice of the sockets (``part``; None: all):
        a socket sent nothing for about ``every`` s gets a beat (half a round
        early, as each socket is visited once a second), and one not heard
        from for ``silent_limit`` s is given up (its handler reads without a
        timeout: a timer per read cost more than this visit)."""
        now = time.monotonic()
        with self.lock:
            parts = self.slices if part is None else [self.slices[part]]
            conns = [c for p in parts for c in p]
        for c in conns:
            if c.fd is not None:
                if now - c.heard > self.silent_limit:
                    c.give_up()
                elif now - c.sent_at >= every - 0.5:
                    c.beat(c.fd, now)

    def sweep(self) -> None:
        ticks = 0
        while not self.stop.wait(1.0 / BEAT_SLICES):
            ticks += 1
            try:
                self.beat_all(self.beat_every, ticks % BEAT_SLICES)
            except Exception:  # the heartbeat must go on for every other socket
                log.exception("heartbeat failed")
            if ticks % REFRESH_TICKS:
                continue
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
            wanted: Iterable[str] = self.conns if part is None else self.table_slices[part]
            by_table = {tid: list(self.conns[tid]) for tid in wanted if tid in self.conns}
            versions = {tid: self.versions[tid] for tid in by_table if tid in self.versions}
        plan: dict[str, tuple[list[str], list[str]]] = {}
        moved: list[str] = []
        for tid, conns in by_table.items():
            live: list[str] = []
            gone: list[str] = []
            for c in conns:
                if c.member is None:
                    continue
                fresh = c.open and now - c.heard <= PRESENCE_SILENT
                if fresh:
                    live.append(c.member)
                elif c.listed:
                    gone.append(c.member)
                if fresh != c.listed:
                    c.listed = fresh
                    moved.append(tid)
            plan[tid] = (live, gone)
            v, seen = versions.get(tid, (0, now))
            if now - seen >= HEAL_AFTER and any(c.open and c.sent_version < v for c in conns):
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
                if tid not in self.conns:
                    continue
                known, self.online[tid] = self.online.get(tid), online
            if online != known:  # else every phone of it was told already
                for c in by_table[tid]:
                    c.send_presence(online)
            self.check_host(tid, online, now)

    def note_host(self, doc: TableDoc) -> None:
        """Keeps what ``check_host`` needs of a table's document as pushed."""
        able = frozenset(s["id"] for s in doc["seats"] if s.get("phone") is not False and not hidden(s))
        with self.lock:
            if doc["id"] in self.conns:
                self.hosts[doc["id"]] = (doc["host"], doc.get("stand_in"), able)

    def check_host(self, table_id: str, online: frozenset[str], now: float) -> None:
        """Host powers follow presence: once the holder (the stand-in, else
        the host) has had no live phone for ``host_away`` s in this process's
        rounds, they pass to the next seat with one; once the host's seat has
        one again, they go back. The hub only times it: the service reads
        presence again in the store and decides (``Tables.settle_host``), and
        no phone's word counts."""
        with self.lock:
            known = self.hosts.get(table_id)
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
        except (ServiceError, StoreDown):
            pass  # the next round tries again
        except Exception:
            log.exception("host hand-on failed")
        finally:
            with self.lock:
                self.host_due.discard(table_id)

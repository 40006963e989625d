"""The listener's feed on a Redis Cluster (``feeds.Feed``): the store's own
client (``feeds.Subscription``), one subscription per master that owns a
watched channel's slot, each read by a thread of its own (one reader for all
would wait its timeout on every quiet master in turn).

A fault costs the tables of the master it touches, not the others: a master
that closes its connection or misses its ping, an ``SSUBSCRIBE`` answered
``MOVED``, an ``SUNSUBSCRIBE`` this process never sent (the master gave the
channel's slot away: resharding, a failover). Each channel it cost is handed
to the listener as ("lost", channel, "") and subscribed again, with backoff,
on its master of now once the cluster's layout is learnt again; its
``confirmed`` then tells the listener to resend that table. (redis-py's
cluster pub/sub, before issue 39, held a node's I/O lock across reads, and a
fault left the whole process deaf.)
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import Any

import redis

from server.store.feeds import READ_WAIT, Subscription
from server.store.resp import Lean

log = logging.getLogger(__name__)

#: The backoff between attempts to subscribe a lost master's channels again.
RETRY_FIRST, RETRY_MAX = 0.2, 5.0


class ClusterFeed:
    def __init__(self, client: Any) -> None:
        self.client = client
        self.lock = threading.Lock()
        #: Master ("host:port") → its subscription.
        self.subs: dict[str, Subscription] = {}
        #: Channel → the master it is subscribed on (sent, maybe not yet confirmed).
        self.where: dict[str, str] = {}
        #: Channels added and not removed since: what a recovery subscribes.
        self.wanted: set[str] = set()
        #: Channels waiting for their master (a recovery thread has them).
        self.recovering: set[str] = set()
        #: Channel → how many of this process's SUNSUBSCRIBEs are unanswered
        #: (an answer beyond them is the master's own: the slot moved).
        self.leaving: dict[str, int] = {}
        self.events: deque[tuple[str, str, str]] = deque()
        self.arrived = threading.Event()
        self.closed = False
        self.closing = threading.Event()

    def add(self, channels: list[str]) -> None:
        with self.lock:
            self.wanted.update(channels)
        self._recover(self._subscribe(channels))

    def remove(self, channel: str) -> None:
        lost: list[str] = []
        with self.lock:
            self.wanted.discard(channel)
            name = self.where.pop(channel, None)
            sub = self.subs.get(name) if name is not None else None
            if sub is None:
                return  # waiting for its master: the recovery leaves it out
            self.leaving[channel] = self.leaving.get(channel, 0) + 1
            try:
                sub.send(("SUNSUBSCRIBE", channel))
            except Exception as exc:
                lost = self._drop(str(name), sub, exc)
        self._recover(lost)

    def _subscribe(self, channels: list[str]) -> list[str]:
        """Subscribes each wanted channel on its master of now (a cluster takes
        one slot per SSUBSCRIBE: a command per channel, a master's all in one
        write); returns those whose master could not be reached."""
        failed: list[str] = []
        lost: list[str] = []
        with self.lock:
            groups: dict[str, list[str]] = {}
            for c in channels:
                if c not in self.wanted or c in self.where:
                    continue  # unwatched meanwhile, or subscribed already
                try:
                    groups.setdefault(self.client.get_node_from_key(c).name, []).append(c)
                except Exception:  # its slot has no master now (SlotNotCoveredError)
                    failed.append(c)
            for name, chans in groups.items():
                sub = self.subs.get(name)
                try:
                    if sub is None:
                        sub = self._connect(name)
                    sub.send(*(("SSUBSCRIBE", c) for c in chans))
                except Exception as exc:
                    if sub is not None:
                        lost += self._drop(name, sub, exc)
                    failed += chans
                    continue
                for c in chans:
                    self.where[c] = name
        return failed + lost

    def _connect(self, name: str) -> Subscription:
        """A subscription to the master ``name`` and its reader (under ``lock``)."""
        lean = Lean.for_client(self.client.get_redis_connection(self.client.get_node(node_name=name)))
        if lean is None:
            raise redis.ConnectionError(f"no TCP connection to the cluster's node {name}")
        sub = self.subs[name] = Subscription(lean, READ_WAIT)
        threading.Thread(target=self._read, args=(name, sub), name="tablemate-feed", daemon=True).start()
        return sub

    def _drop(self, name: str, sub: Subscription, exc: BaseException) -> list[str]:
        """Gives up a master's subscription (under ``lock``): its channels are
        lost, and returned for ``_recover``."""
        if self.subs.get(name) is sub:
            del self.subs[name]
        sub.close()
        lost = [c for c, m in self.where.items() if m == name]
        for c in lost:
            del self.where[c]
            self.events.append(("lost", c, ""))
        if lost and not self.closed:
            log.warning("store listener: lost the master %s (%s: %s); its %d tables are unheard until "
                        "it or its replica answers", name, type(exc).__name__, exc, len(lost))
        self.arrived.set()
        return lost

    def _recover(self, channels: list[str]) -> None:
        with self.lock:
            new = [c for c in channels if c not in self.recovering]
            self.recovering.update(new)
        if new and not self.closed:
            threading.Thread(target=self._retry, args=(new,), name="tablemate-feed-retry", daemon=True).start()

    def _retry(self, channels: list[str]) -> None:
        """Subscribes lost channels again, with backoff, on their master of now."""
        began, delay, todo = time.monotonic(), RETRY_FIRST, channels
        mine = set(channels)
        try:
            while todo and not self.closing.wait(delay):
                delay = min(delay * 2, RETRY_MAX)
                try:
                    # A failover or a moved slot changed the layout: learnt again.
                    self.client.nodes_manager.initialize()
                except Exception:  # the cluster is not answering yet: wait longer
                    continue
                todo = self._subscribe(todo)
                with self.lock:  # a master dropped meanwhile: its channels are this thread's too
                    extra = {c for c in todo if c not in mine and c not in self.recovering}
                    self.recovering.update(extra)
                    mine |= extra
                    todo = [c for c in todo if c in mine]
            if not self.closed:
                log.warning("store listener: %d tables of a lost master subscribed again after %.1fs",
                            len(mine), time.monotonic() - began)
        finally:
            with self.lock:
                self.recovering.difference_update(mine)

    def _read(self, name: str, sub: Subscription) -> None:
        while not self.closed:
            try:
                event = sub.get()
            except Exception as exc:
                with self.lock:
                    lost = [] if self.closed else self._drop(name, sub, exc)
                self._recover(lost)
                return
            if event is None:
                continue
            kind, channel, _ = event
            moved = False
            with self.lock:
                if self.subs.get(name) is not sub:
                    return  # given up meanwhile
                if kind != "left":
                    self.events.append(event)
                elif (mine := self.leaving.get(channel, 0)) == 0:
                    # The master gave the slot away: this channel only.
                    moved = self.where.pop(channel, None) is not None
                    if moved:
                        self.events.append(("lost", channel, ""))
                elif mine == 1:
                    del self.leaving[channel]
                else:
                    self.leaving[channel] = mine - 1
            self.arrived.set()
            if moved:
                self._recover([channel])

    def get(self) -> tuple[str, str, str] | None:
        for waited in (False, True):
            with self.lock:
                if self.events:
                    return self.events.popleft()
                self.arrived.clear()
            if not waited:
                self.arrived.wait(READ_WAIT)
        return None

    def close(self) -> None:
        self.closed = True
        self.closing.set()
        with self.lock:
            subs = list(self.subs.values())
        for sub in subs:
            sub.close()


__all__ = ["ClusterFeed"]

"""The feeds the store's listener reads its tables' change channels from
(``listen.Listener``): one face, three connections.

- ``LeanFeed``: the store's own client (``resp.Subscription``) on a plain
  Redis, ``redis://`` or ``rediss://``: hiredis parses a 3 KB change in ~65 µs
  of client CPU, redis-py in ~150 (``bench/resp.py``);
- ``PubSubFeed``: redis-py's pub/sub on one Redis (the embedded store);
- ``ClusterFeed``: the store's own client on a Redis Cluster, one
  subscription per master that holds a watched channel.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any, Protocol

import redis

from server.store.keys import text as _text
from server.store.resp import Lean, Subscription

#: Seconds one read waits before the loop looks at its stop flag again.
READ_WAIT = 1.0


class Feed(Protocol):
    """A connection subscribed to some of the tables' channels."""

    def add(self, channels: list[str]) -> None: ...
    def remove(self, channel: str) -> None: ...
    #: The next event: ("message" | "confirmed", channel, data or ""), or None;
    #: raises ``redis.RedisError`` / ``OSError`` once the feed is broken.
    def get(self) -> tuple[str, str, str] | None: ...
    def close(self) -> None: ...


class LeanFeed:
    """The store's own client (``resp.Subscription``) on a plain Redis."""

    def __init__(self, lean: Lean) -> None:
        self.sub = lean.subscription(READ_WAIT)

    def add(self, channels: list[str]) -> None:
        self.sub.send(("SSUBSCRIBE", *channels))

    def remove(self, channel: str) -> None:
        self.sub.send(("SUNSUBSCRIBE", channel))

    def get(self) -> tuple[str, str, str] | None:
        event = self.sub.get()
        # One Redis gives no channel away: a "left" answers this process's own SUNSUBSCRIBE.
        return None if event is not None and event[0] == "left" else event

    def close(self) -> None:
        self.sub.close()


class PubSubFeed:
    """redis-py's pub/sub on one Redis (the embedded store, TLS, a Unix socket)."""

    def __init__(self, client: Any) -> None:
        self.pubsub = client.pubsub()
        self.lock = threading.Lock()

    def add(self, channels: list[str]) -> None:
        with self.lock:
            self.pubsub.ssubscribe(*channels)

    def remove(self, channel: str) -> None:
        with self.lock:
            self.pubsub.sunsubscribe(channel)

    def get(self) -> tuple[str, str, str] | None:
        if not self.pubsub.subscribed:
            # Nothing to read yet (no watched table): wait without spinning.
            threading.Event().wait(READ_WAIT)
            return None
        return _event(self.pubsub.get_sharded_message(timeout=READ_WAIT))

    def close(self) -> None:
        self.pubsub.close()


class ClusterFeed:
    """The store's own client (``resp.Subscription``) on a Redis Cluster: one
    subscription per master that owns a watched channel's slot, each read by
    a thread of its own (one reader for all would wait its timeout on every
    quiet master in turn).

    Every fault ends the whole feed (``get`` raises): a master that closes
    its connection or stops answering its ping, an ``SSUBSCRIBE`` answered
    ``MOVED`` (a slot moved before this process learnt of it), an
    ``SUNSUBSCRIBE`` this process never sent (the master gave the channel's
    slot away: resharding, a failover). The listener then learns the
    cluster's layout again, subscribes every watched channel on its master
    of now and resends every table: one path for every fault, all of it ours
    (redis-py's cluster pub/sub held a node's I/O lock across reads, and a
    fault left the process deaf)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.lock = threading.Lock()
        #: Master ("host:port") → its subscription.
        self.subs: dict[str, Subscription] = {}
        #: Channel → how many of this process's SUNSUBSCRIBEs are unanswered
        #: (an answer beyond them is the master's own: the slot moved).
        self.leaving: dict[str, int] = {}
        self.events: deque[tuple[str, str, str]] = deque()
        self.error: BaseException | None = None
        self.arrived = threading.Event()
        self.closed = False

    def _sub(self, channel: str) -> Subscription:
        """The subscription to the master of ``channel``'s slot (under ``lock``)."""
        node = self.client.get_node_from_key(channel)
        sub = self.subs.get(node.name)
        if sub is None:
            lean = Lean.for_client(self.client.get_redis_connection(node))
            if lean is None:
                raise redis.ConnectionError(f"no TCP connection to the cluster's node {node.name}")
            sub = self.subs[node.name] = lean.subscription(READ_WAIT)
            threading.Thread(target=self._read, args=(sub,), name="tablemate-feed", daemon=True).start()
        return sub

    def add(self, channels: list[str]) -> None:
        # A cluster takes one slot per SSUBSCRIBE: one command per channel,
        # a master's all in one write.
        try:
            with self.lock:
                by_sub: dict[Subscription, list[tuple[str, str]]] = {}
                for c in channels:
                    by_sub.setdefault(self._sub(c), []).append(("SSUBSCRIBE", c))
                for sub, commands in by_sub.items():
                    sub.send(*commands)
        except Exception as exc:
            # Never the caller's to handle: the listener reconnects, and the
            # channel (watched already) is subscribed again with the rest.
            self._fail(exc)

    def remove(self, channel: str) -> None:
        try:
            with self.lock:
                sub = self._sub(channel)
                self.leaving[channel] = self.leaving.get(channel, 0) + 1
                sub.send(("SUNSUBSCRIBE", channel))
        except Exception as exc:
            self._fail(exc)

    def _fail(self, exc: BaseException) -> None:
        with self.lock:
            if self.error is None:
                self.error = exc
        self.arrived.set()

    def _read(self, sub: Subscription) -> None:
        while not self.closed:
            try:
                event = sub.get()
            except Exception as exc:
                if not self.closed:
                    self._fail(exc)
                return
            if event is None:
                continue
            kind, channel, _ = event
            with self.lock:
                if kind != "left":
                    self.events.append(event)
                elif (mine := self.leaving.get(channel, 0)) == 0:
                    self.error = self.error or redis.ConnectionError(f"{channel} was moved off its master")
                elif mine == 1:
                    del self.leaving[channel]
                else:
                    self.leaving[channel] = mine - 1
                broken = self.error is not None
            self.arrived.set()
            if broken:
                return

    def get(self) -> tuple[str, str, str] | None:
        for waited in (False, True):
            with self.lock:
                if self.error is not None:
                    raise self.error
                if self.events:
                    return self.events.popleft()
                self.arrived.clear()
            if not waited:
                self.arrived.wait(READ_WAIT)
        return None

    def close(self) -> None:
        self.closed = True
        with self.lock:
            subs = list(self.subs.values())
        for sub in subs:
            sub.close()


def _event(msg: Any) -> tuple[str, str, str] | None:
    """A redis-py pub/sub message as a feed's event."""
    if msg is None:
        return None
    kind = msg.get("type")
    channel = str(_text(msg.get("channel")))
    if kind == "ssubscribe":
        return ("confirmed", channel, "")
    if kind == "smessage":
        return ("message", channel, str(_text(msg["data"])))
    return None


__all__ = ["ClusterFeed", "Feed", "LeanFeed", "PubSubFeed"]

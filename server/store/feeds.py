"""The feeds the store's listener reads its tables' change channels from
(``listen.Listener``): one face, three connections.

- ``LeanFeed``: the store's own client (``resp.Subscription``) on a plain
  Redis, ``redis://`` or ``rediss://``: hiredis parses a 3 KB change in ~65 µs
  of client CPU, redis-py in ~150 (``bench/resp.py``);
- ``PubSubFeed``: redis-py's pub/sub on one Redis (the embedded store);
- ``ClusterFeed``: redis-py's sharded pub/sub on a Redis Cluster, one reader
  per node that holds a watched channel.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol

from server.store.keys import text as _text
from server.store.resp import Lean

#: Seconds one read waits before the loop looks at its stop flag again.
READ_WAIT = 1.0


class Feed(Protocol):
    """A connection subscribed to some of the tables' channels."""

    def add(self, channels: list[str]) -> None: ...
    def remove(self, channel: str) -> None: ...
    #: The next event: ("message" | "confirmed", channel, data or ""), or None.
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
        return self.sub.get()

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
    """redis-py's sharded pub/sub on a Redis Cluster: one connection per node
    that owns a watched channel's slot, each read by a greenlet of its own
    (one reader for all would wait its timeout on every quiet node in turn)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.pubsub = client.pubsub()
        self.lock = threading.Lock()
        self.readers: set[str] = set()
        self.events: list[tuple[str, str, str]] = []
        self.error: BaseException | None = None
        self.arrived = threading.Event()
        self.closed = False

    def add(self, channels: list[str]) -> None:
        with self.lock:
            self.pubsub.ssubscribe(*channels)
            nodes = {self.client.get_node_from_key(c).name for c in channels}
            new = nodes - self.readers
            self.readers |= new
        for node in new:
            threading.Thread(target=self._read, args=(node,), daemon=True).start()

    def remove(self, channel: str) -> None:
        with self.lock:
            self.pubsub.sunsubscribe(channel)

    def _read(self, name: str) -> None:
        node = self.client.get_node(node_name=name)
        while not self.closed:
            try:
                # Unbounded: redis-py (8.2) holds a node's I/O lock across a
                # bounded read, and this loop took it again at once, so the
                # lock was never free for ``add``/``remove``: the first
                # unwatch hung, holding ``self.lock``, and the instance went
                # deaf (no presence drop, no new table heard). An unbounded
                # read takes no lock; ``close`` ends it by closing the socket.
                event = _event(self.pubsub.get_sharded_message(timeout=None, target_node=node))
            except Exception as exc:
                # redis-py closes a node's connection when its last channel
                # goes (sunsubscribe, close), under this read: hiredis then
                # fails on a socket that is None (TypeError), not a RedisError.
                if self.closed:
                    return
                if name not in self.pubsub.node_pubsub_mapping:
                    threading.Event().wait(READ_WAIT)
                    continue
                self.error = exc
                self.arrived.set()
                return
            if event is None:
                if name not in self.pubsub.node_pubsub_mapping:
                    threading.Event().wait(READ_WAIT)  # no channel of ours there: never spin
                continue
            with self.lock:
                self.events.append(event)
            self.arrived.set()

    def get(self) -> tuple[str, str, str] | None:
        for waited in (False, True):
            with self.lock:
                if self.error is not None:
                    raise self.error
                if self.events:
                    return self.events.pop(0)
                self.arrived.clear()
            if not waited:
                self.arrived.wait(READ_WAIT)
        return None

    def close(self) -> None:
        self.closed = True
        self.pubsub.close()


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

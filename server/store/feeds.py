"""The feeds the store's listener reads its tables' change channels from
(``listen.Listener``): one face, three connections.

- ``LeanFeed``: the store's own client (``resp.Subscription``) on a plain
  Redis, ``redis://`` or ``rediss://``: hiredis parses a change with less
  client CPU than redis-py (``bench/resp.py``; the own RESP client's row of
  docs/performance.md, "Why each fast path exists");
- ``PubSubFeed``: redis-py's pub/sub on one Redis (the embedded store);
- ``ClusterFeed`` (``clusterfeed.py``): the store's own client on a Redis
  Cluster, one subscription per master that holds a watched channel, each
  master's faults its own.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol

from server.store.clusterfeed import READ_WAIT, ClusterFeed
from server.store.keys import text as _text
from server.store.resp import Lean


class Feed(Protocol):
    """A connection subscribed to some of the tables' channels."""

    def add(self, channels: list[str]) -> None: ...
    def remove(self, channel: str) -> None: ...
    #: The next event: ("message" | "confirmed" | "lost", channel, data or ""),
    #: or None; raises ``redis.RedisError`` / ``OSError`` once the feed is
    #: broken. "lost": the channel's master let it go (``ClusterFeed`` only),
    #: and it will be "confirmed" again on its master of now.
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


__all__ = ["READ_WAIT", "ClusterFeed", "Feed", "LeanFeed", "PubSubFeed"]

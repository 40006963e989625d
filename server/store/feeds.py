"""The feeds the store's listener reads its tables' change channels from
(``listen.Listener``): one face, three connections.

- ``LeanFeed``: the store's own client (``Subscription``, a link of
  ``resp.py``'s) on a plain Redis, ``redis://`` or ``rediss://``: hiredis
  parses a change with less client CPU than redis-py (``bench/resp.py``; the
  own RESP client's row of docs/performance.md, "Why each fast path exists");
- ``PubSubFeed``: redis-py's pub/sub on one Redis (the embedded store);
- ``ClusterFeed`` (``clusterfeed.py``): the store's own client on a Redis
  Cluster, one subscription per master that holds a watched channel, each
  master's faults its own (a ``Subscription`` per master).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Protocol

import hiredis
import redis

from server.store.keys import text as _text
from server.store.resp import Lean, Link, redis_error, send_whole

#: Seconds one read waits before the loop looks at its stop flag again.
READ_WAIT = 1.0
#: Without a byte from Redis for this long, the listener pings it, and gives
#: the connection up when the pong does not come within ``socket_timeout``:
#: a Redis that stops answering (SIGSTOP, a host frozen, a dropped route) is
#: noticed within ``HEALTH_CHECK`` + ``socket_timeout``, never only at the
#: kernel's TCP timeout (minutes), during which the tables would go unheard.
HEALTH_CHECK = 5.0


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
    """The store's own client (``Subscription``) on a plain Redis."""

    def __init__(self, lean: Lean) -> None:
        self.sub = Subscription(lean, READ_WAIT)

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


class Subscription:
    """A link for sharded channels: ``send`` (re)subscribes, ``get`` hands
    over what comes: ("message", channel, data), ("confirmed", channel, "")
    or ("left", channel, ""): an SUNSUBSCRIBE's answer, or the server's own
    when the channel's slot moved to another node (a cluster)."""

    def __init__(self, lean: Lean, wait: float = 1.0) -> None:
        self.timeout = lean.socket_timeout
        try:
            self.link = Link(lean)
        except OSError as exc:
            raise redis_error(exc) from exc
        # Short reads so the caller can look at its stop flag between them.
        self.link.sock.settimeout(wait)
        self.heard = time.monotonic()
        self.pinged: float | None = None
        self.pending: list[tuple[str, str, str]] = []
        # A subscription is sent by the greenlet that asks for it while the
        # listener's may be reading: one command at a time on the wire.
        self.sending = threading.Lock()

    def send(self, *commands: tuple[Any, ...]) -> None:
        """The commands in one write (a resubscription of many channels)."""
        data = b"".join(hiredis.pack_command(c) for c in commands)
        try:
            with self.sending:
                send_whole(self.link.sock, data)
        except OSError as exc:
            raise redis_error(exc) from exc

    def get(self) -> tuple[str, str, str] | None:
        """The next event, or None when none came within the wait."""
        if self.pending:
            return self.pending.pop(0)
        try:
            data = self.link.sock.recv(65536)
        except TimeoutError:
            self._health()
            return None
        except OSError as exc:
            raise redis_error(exc) from exc
        if not data:
            raise redis.ConnectionError("Connection closed by server.")
        self.heard, self.pinged = time.monotonic(), None
        reader = self.link.reader
        reader.feed(data)
        while (rep := reader.gets()) is not False:
            if isinstance(rep, hiredis.ReplyError):
                raise redis.ResponseError(str(rep))
            if isinstance(rep, list) and len(rep) == 3:
                if rep[0] == "smessage":
                    self.pending.append(("message", rep[1], rep[2]))
                elif rep[0] == "ssubscribe":
                    self.pending.append(("confirmed", rep[1], ""))
                elif rep[0] == "sunsubscribe":
                    self.pending.append(("left", rep[1], ""))
        return self.pending.pop(0) if self.pending else None

    def _health(self) -> None:
        now = time.monotonic()
        if self.pinged is not None:
            if now - self.pinged > self.timeout:
                raise redis.TimeoutError("Redis did not answer the subscription's ping.")
        elif now - self.heard > HEALTH_CHECK:
            # A subscribed connection answers PING with ["pong", ""] (RESP2).
            self.send(("PING",))
            self.pinged = now

    def close(self) -> None:
        self.link.close()

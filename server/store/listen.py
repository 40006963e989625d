"""The store's listener: one blocking loop per process on the change channel
(``Listener.listen``), which reconnects with backoff, and the feeds it reads
(``resp.Subscription`` on a plain TCP Redis, ``PubSubFeed`` through redis-py
elsewhere). A message of a commit this process is still waiting on is left
to that commit (``in_flight``)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import redis

from server.store.cache import Latest
from server.store.keys import CHANNEL, split_change
from server.store.keys import text as _text
from server.store.resp import Lean, Subscription

log = logging.getLogger(__name__)


class Listener:
    """The listening half of ``Store`` (a mixin: ``Store`` provides ``r``,
    ``lean``, ``latest`` and the ``in_flight`` records)."""

    r: Any
    lean: Lean | None
    latest: Latest
    in_flight: dict[tuple[str, int], str | None]
    in_flight_lock: threading.Lock
    on_commit: Callable[[str, int, str | None], None] | None

    def _mine(self, table_id: str, version: int, raw: str | None) -> bool:
        """Whether a change message is of a commit this process is still
        waiting on (then kept for it, see ``in_flight``)."""
        with self.in_flight_lock:
            key = (table_id, version)
            if key not in self.in_flight:
                return False
            self.in_flight[key] = raw
            return True

    def listen(self, on_change: Callable[[str, int], None], on_resync: Callable[[], None],
               stop: threading.Event, on_down: Callable[[], None] | None = None,
               ready: threading.Event | None = None,
               on_presence: Callable[[str], None] | None = None,
               on_commit: Callable[[str, int, str | None], None] | None = None) -> None:
        """Blocking loop: calls ``on_change(table_id, version)`` per change (or
        ``on_commit(table_id, version, raw document or None)`` when given), and
        ``on_presence(table_id)`` when a socket of the table opened or closed.

        Reconnects with backoff when Redis goes away; after a reconnect it calls
        ``on_resync`` because changes may have been missed meanwhile.
        """
        self.on_commit = on_commit
        delay = 0.2
        first = True
        while not stop.is_set():
            feed: Feed | None = None
            try:
                feed = self.lean.subscribe(CHANNEL) if self.lean is not None else PubSubFeed(self.r)
                # Wait for the server's confirmation: only then is no change missed.
                # (Until it is, ``get`` answers None: there is no message before it.)
                while not feed.confirmed and not stop.is_set():
                    feed.get()
                self.latest.start()
                if ready is not None:
                    ready.set()
                if not first:
                    on_resync()
                first = False
                delay = 0.2
                while not stop.is_set():
                    message = feed.get()
                    if message is None:
                        continue
                    try:
                        data, raw = split_change(message)
                        if "p" not in data:
                            self.latest.seen(str(data["t"]), int(data["v"]), raw)
                        if "p" in data:
                            if on_presence is not None:
                                on_presence(str(data["t"]))
                        elif on_commit is not None:
                            if not self._mine(str(data["t"]), int(data["v"]), raw):
                                on_commit(str(data["t"]), int(data["v"]), raw)
                        else:
                            on_change(str(data["t"]), int(data["v"]))
                    except Exception:  # one bad message or socket must not stop fan-out
                        log.exception("fan-out of a change failed")
            except (redis.RedisError, OSError) as exc:
                self.latest.stop()
                log.warning("pub/sub connection lost (%s); retrying in %.1fs", type(exc).__name__, delay)
                if on_down is not None and delay == 0.2:  # once per outage
                    on_down()
                stop.wait(delay)
                delay = min(delay * 2, 5.0)
            finally:
                if stop.is_set():
                    self.latest.stop()
                if feed is not None:
                    try:
                        feed.close()
                    except Exception:  # closing a dead connection may fail; nothing to do
                        pass


class PubSubFeed:
    """The change channel through redis-py (the embedded store, TLS, a Unix
    socket): the same face as ``resp.Subscription``."""

    def __init__(self, client: Any) -> None:
        self.pubsub = client.pubsub()
        self.pubsub.subscribe(CHANNEL)
        self.confirmed = False

    def get(self) -> str | None:
        msg = self.pubsub.get_message(timeout=1.0)
        if msg is None:
            return None
        if msg.get("type") == "subscribe":
            self.confirmed = True
        if msg.get("type") != "message":
            return None
        return str(_text(msg["data"]))

    def close(self) -> None:
        self.pubsub.close()


Feed = Subscription | PubSubFeed

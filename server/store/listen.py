"""The store's listener: one blocking loop per process on the change channel
(``Listener.listen``), which reconnects with backoff and tells what it hears
to one ``Callbacks`` object (the process's fan-out: ``live.Hub``), and the
feeds it reads (``resp.Subscription`` on a plain TCP Redis, ``PubSubFeed``
through redis-py elsewhere). A message of a commit this process is still
waiting on is left to that commit (``in_flight``, ``Store._run``)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis

from server.store.cache import Latest
from server.store.keys import CHANNEL, split_change
from server.store.keys import text as _text
from server.store.resp import Lean, Subscription

log = logging.getLogger(__name__)


def _nothing(*_: Any) -> None:
    pass


@dataclass
class Callbacks:
    """What the listener tells its process, each on the listener's thread
    (so each must hand slow work on, as the hub does)."""

    #: A committed change: the table, its new version, and the document's
    #: JSON as the message carried it (None: a message without one, a new
    #: table's). Not called for a commit this process is still waiting on:
    #: that commit hands it on itself when it must (``Store.update``'s ``wrote``).
    on_change: Callable[[str, int, str | None], None]
    #: A socket of the table opened or closed, on any instance.
    on_presence: Callable[[str], None] = _nothing
    #: The subscription was lost (once per outage): changes may go unheard.
    on_down: Callable[[], None] = _nothing
    #: Subscribed again after an outage: whatever changed meanwhile was missed.
    on_resync: Callable[[], None] = _nothing
    #: Set once the first subscription is confirmed: from then on no change
    #: goes unheard.
    ready: threading.Event = field(default_factory=threading.Event)


class Listener:
    """The listening half of ``Store`` (a mixin: ``Store`` provides ``r``,
    ``lean``, ``latest`` and the ``in_flight`` records)."""

    r: Any
    lean: Lean | None
    latest: Latest
    in_flight: dict[tuple[str, int], str | None]
    in_flight_lock: threading.Lock
    #: What ``listen`` was given, while it runs.
    listener: Callbacks | None

    def _mine(self, table_id: str, version: int, raw: str | None) -> bool:
        """Whether a change message is of a commit this process is still
        waiting on (then kept for it, see ``in_flight``)."""
        with self.in_flight_lock:
            key = (table_id, version)
            if key not in self.in_flight:
                return False
            self.in_flight[key] = raw
            return True

    def listen(self, callbacks: Callbacks, stop: threading.Event) -> None:
        """Blocking loop until ``stop``: tells ``callbacks`` of every change
        and presence message. Reconnects with backoff when Redis goes away,
        and then calls ``on_resync``, as changes may have been missed."""
        self.listener = callbacks
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
                callbacks.ready.set()
                if not first:
                    callbacks.on_resync()
                first = False
                delay = 0.2
                while not stop.is_set():
                    message = feed.get()
                    if message is None:
                        continue
                    try:
                        data, raw = split_change(message)
                        table_id = str(data["t"])
                        if "p" in data:
                            callbacks.on_presence(table_id)
                        else:
                            version = int(data["v"])
                            self.latest.seen(table_id, version, raw)
                            if not self._mine(table_id, version, raw):
                                callbacks.on_change(table_id, version, raw)
                    except Exception:  # one bad message or socket must not stop fan-out
                        log.exception("fan-out of a change failed")
            except (redis.RedisError, OSError) as exc:
                self.latest.stop()
                log.warning("pub/sub connection lost (%s); retrying in %.1fs", type(exc).__name__, delay)
                if delay == 0.2:  # once per outage
                    callbacks.on_down()
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

"""The store's listener: this process hears the change channels of the tables
it has sockets on, and only those (``watch`` at a table's first local socket,
``unwatch`` at its last), so an instance pays for its own tables, not for
every table of every instance.

Each table has its own sharded channel (``keys.channel_key``: SSUBSCRIBE /
SPUBLISH, Redis 7), which on a Redis Cluster lives on the table's node. The
listener (``Listener.listen``, one loop per process) reads what comes, and
tells one ``Callbacks`` object (the process's fan-out: ``live.Hub``). It
reconnects with backoff when Redis goes away, subscribes again to every
watched channel, and then calls ``on_resync``, as changes may have been
missed. A message of a commit this process is still waiting on is left to
that commit (``writes.InFlight``, ``Store.commit``).

It reads through one of the feeds of ``feeds.py``: the store's own client
on a plain Redis and on a cluster (``clusterfeed.py``, where one master's
fault costs only its tables: ``on_table_down`` / ``on_table_back``),
redis-py's pub/sub on the embedded store.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis

from server.errors import StoreOrSocketDown
from server.store.clusterfeed import ClusterFeed
from server.store.feeds import Feed
from server.store.keys import channel_key, split_change, table_of
from server.store.paths import Path
from server.store.writes import InFlight, Latest

log = logging.getLogger(__name__)

#: Seconds ``watch`` waits for the listener and then for Redis's confirmation.
WATCH_TIMEOUT = 5.0
#: Seconds the listener may go without coming back from a read, a connect or
#: a subscription (each returns within about ``resp`` 's ``socket_timeout``)
#: before its watchdog restarts it, and ``/healthz`` says it is deaf.
STALL = 20.0


def _nothing(*_: Any) -> None:
    pass


@dataclass
class Callbacks:
    """What the listener tells its process, each on the listener's thread
    (so each must hand slow work on, as the hub does)."""

    #: A committed change: the table, its new version, and the document's
    #: JSON as the message carried it (None: a message without one, a new
    #: table's). Not called for a commit this process is still waiting on:
    #: that commit hands it on itself when it must (``Listener.hand_on``).
    on_change: Callable[[str, int, str | None], None]
    #: A socket of the table opened or closed, on any instance.
    on_presence: Callable[[str], None] = _nothing
    #: A link of the table's pending draw was taken (``links.py``): the table,
    #: its version then, and the ``draw`` frame's JSON (no version of its own).
    on_draw: Callable[[str, int, str], None] = _nothing
    #: The subscription was lost (once per outage): changes may go unheard.
    on_down: Callable[[], None] = _nothing
    #: Subscribed again after an outage: whatever changed meanwhile was missed.
    on_resync: Callable[[], None] = _nothing
    #: A table's channel was let go by its master (one master's fault on a
    #: cluster): its phones miss changes until ``on_table_back``.
    on_table_down: Callable[[str], None] = _nothing
    #: That table's channel is confirmed again: whatever changed meanwhile was missed.
    on_table_back: Callable[[str], None] = _nothing
    #: Set while the listener is connected: ``watch`` can then subscribe.
    ready: threading.Event = field(default_factory=threading.Event)
    #: When the listener last came back from a read (``time.monotonic``), or
    #: the end of its backoff wait: older than ``STALL`` is a stuck listener.
    tick: float = field(default_factory=time.monotonic)
    #: Since when the subscription has been lost (None: it is not).
    down_since: float | None = None

    def deaf(self) -> str | None:
        """Why this process cannot hear its tables now, or None when it can."""
        if self.down_since is not None:
            return f"the store's listener has been reconnecting for {time.monotonic() - self.down_since:.0f}s"
        if time.monotonic() - self.tick > STALL:
            return f"the store's listener has been stuck for {time.monotonic() - self.tick:.0f}s"
        return None


class Listener:
    """The listener on the tables' change channels (``Store.changes``):
    ``path`` gives its feeds (``paths.py``), ``latest`` the documents the
    process keeps (fed by every message heard)."""

    def __init__(self, path: Path, latest: Latest, in_flight: InFlight) -> None:
        self.path, self.latest = path, latest
        #: The commits this process awaits: their messages are left to them.
        self.in_flight = in_flight
        self._w = _Watching()
        #: What ``listen`` was given, while it runs.
        self.callbacks: Callbacks | None = None

    def _watching(self) -> _Watching:
        return self._w

    def hand_on(self, table_id: str, version: int, message: str) -> None:
        """A change message a commit of this process held and nobody told
        (``Store.commit``): it goes out as the listener would have sent it."""
        callbacks = self.callbacks
        if callbacks is not None:
            callbacks.on_change(table_id, version, message)

    def watch(self, table_id: str) -> None:
        """Hears the table's changes from now on: returns once Redis has
        confirmed the subscription (a change committed after it is never
        missed). Raises ``redis.TimeoutError`` when it cannot."""
        w = self._watching()
        listener = self.callbacks
        if listener is None or not listener.ready.wait(WATCH_TIMEOUT):
            raise redis.TimeoutError("the store's listener is not connected")
        channel = channel_key(table_id)
        with w.lock:
            w.users[channel] = w.users.get(channel, 0) + 1
            done = w.confirmed.get(channel)
            if done is None:
                done = w.confirmed[channel] = threading.Event()
                feed = w.feed
                if feed is not None:
                    feed.add([channel])
        if not done.wait(WATCH_TIMEOUT):
            # The caller registers no socket, so nobody would unwatch it: the
            # channel would stay subscribed, and counted, for good.
            self._drop_watcher(channel)
            raise redis.TimeoutError(f"no confirmation of {channel}")
        self.latest.watch(table_id)

    def unwatch(self, table_id: str) -> None:
        """Stops hearing the table (its last local socket closed)."""
        if self._drop_watcher(channel_key(table_id)):
            self.latest.unwatch(table_id)

    def _drop_watcher(self, channel: str) -> bool:
        """One watcher of ``channel`` fewer; True when it was the last."""
        w = self._watching()
        with w.lock:
            left = w.users.get(channel, 0) - 1
            if left > 0:
                w.users[channel] = left
                return False
            w.users.pop(channel, None)
            w.confirmed.pop(channel, None)
            w.lost.pop(channel, None)
            feed = w.feed
            if feed is not None:
                try:
                    feed.remove(channel)
                except StoreOrSocketDown:
                    pass  # the listener's reconnect subscribes only what is watched
        return True

    def heard(self) -> dict[str, int]:
        """What the listener has heard since the process started: messages,
        their bytes, those of tables not watched (``foreign``), and how many
        tables it watches now: the per-instance figures ``bench/load.py``
        reads (``/healthz`` with the operator's token)."""
        w = self._watching()
        with w.lock:
            return {"messages": w.messages, "bytes": w.bytes, "foreign": w.foreign,
                    "channels": len(w.confirmed), "lost": len(w.lost)}

    def _feed(self, fresh: bool) -> Feed:
        return self.path.feed(fresh)

    def listen(self, callbacks: Callbacks, stop: threading.Event) -> None:
        """Blocking loop until ``stop``: tells ``callbacks`` of every change
        and presence message of the watched tables. Reconnects with backoff
        when Redis goes away or stops answering, subscribes again to every
        watched table, and then calls ``on_resync``, as changes may have been
        missed. A watchdog (``_watchdog``) breaks a loop stuck longer than
        ``STALL``."""
        self.callbacks = callbacks
        w = self._watching()
        threading.Thread(target=self._watchdog, args=(callbacks, stop), name="tablemate-watchdog",
                         daemon=True).start()
        delay = 0.2
        first = True
        while not stop.is_set():
            feed: Feed | None = None
            callbacks.tick = time.monotonic()
            try:
                feed = self._feed(fresh=not first)
                with w.lock:
                    channels = list(w.confirmed)
                    for done in w.confirmed.values():
                        done.clear()
                    w.feed = feed
                    if channels:
                        feed.add(channels)
                # Every watched channel confirmed again before anything is
                # resent: only then is no change missed.
                deadline = time.monotonic() + 2 * WATCH_TIMEOUT
                while channels and not all(w.confirmed[c].is_set() for c in channels if c in w.confirmed):
                    self._deliver(feed.get(), callbacks)
                    callbacks.tick = time.monotonic()
                    if stop.is_set():
                        return
                    if callbacks.tick > deadline:
                        if not isinstance(feed, ClusterFeed):
                            raise redis.TimeoutError("the watched channels were not confirmed again")
                        # Their masters are down: the feed keeps trying them, and
                        # each is resent once it is confirmed (``_deliver``).
                        with w.lock:
                            for c in channels:
                                if c in w.confirmed and not w.confirmed[c].is_set():
                                    w.lost.setdefault(c, time.monotonic())
                        break
                callbacks.ready.set()
                if callbacks.down_since is not None:
                    log.warning("store listener: hearing its %d tables again after %.1fs",
                                len(channels), time.monotonic() - callbacks.down_since)
                    callbacks.down_since = None
                if not first:
                    callbacks.on_resync()
                first = False
                delay = 0.2
                while not stop.is_set():
                    self._deliver(feed.get(), callbacks)
                    callbacks.tick = time.monotonic()
            except Exception as exc:  # noqa: BLE001 -- any fault: the listener must outlive it
                callbacks.ready.clear()
                self.latest.stop()
                if callbacks.down_since is None:  # once per outage
                    callbacks.down_since = time.monotonic()
                    if isinstance(exc, StoreOrSocketDown):
                        log.warning("store listener: subscription lost (%s: %s); its tables are unheard "
                                    "until it reconnects", type(exc).__name__, exc)
                    else:
                        log.exception("store listener: failed; its tables are unheard until it reconnects")
                    callbacks.on_down()
                else:
                    log.debug("store listener: still down (%s); retrying in %.1fs", type(exc).__name__, delay)
                callbacks.tick = time.monotonic() + delay  # a backoff wait is not a stall
                stop.wait(delay)
                delay = min(delay * 2, 5.0)
            finally:
                with w.lock:
                    if w.feed is feed:
                        w.feed = None
                if stop.is_set():
                    callbacks.ready.clear()
                    self.latest.stop()
                if feed is not None:
                    try:
                        feed.close()
                    except Exception:  # closing a dead connection may fail; nothing to do
                        pass

    def _watchdog(self, callbacks: Callbacks, stop: threading.Event) -> None:
        """Closes the feed under a listener that has not come back from a read,
        a subscription or a connect for ``STALL`` seconds: whatever it was
        stuck on (a lock, a socket that never answers) then fails, and the
        loop reconnects. The first fault of the kind on a fresh clone
        (redis-py's lock) left the instance deaf until it was restarted."""
        w = self._watching()
        while not stop.wait(1.0):
            if time.monotonic() - callbacks.tick <= STALL:
                continue
            log.error("store listener: stuck for over %.0fs; closing its connections to restart it", STALL)
            callbacks.tick = time.monotonic()
            feed = w.feed  # not under w.lock: the stuck one may hold it
            if feed is not None:
                try:
                    feed.close()
                except Exception:  # a connection already gone: the loop is freed all the same
                    pass

    def _deliver(self, event: tuple[str, str, str] | None, callbacks: Callbacks) -> None:
        if event is None:
            return
        kind, channel, message = event
        w = self._watching()
        with w.lock:
            done = w.confirmed.get(channel)
            if kind == "message":
                w.messages += 1
                w.bytes += len(message)
                w.foreign += done is None
        if kind == "lost":
            # One master's fault (a cluster): its tables go unheard until the
            # channel is confirmed on the slot's master of now.
            with w.lock:
                if done is None or channel in w.lost:
                    return
                done.clear()
                w.lost[channel] = time.monotonic()
            callbacks.on_table_down(table_of(channel))
            return
        if kind == "confirmed":
            if done is not None:
                done.set()
                with w.lock:
                    back = w.lost.pop(channel, None) is not None
                if back:
                    # Whatever was committed meanwhile (on a replica that took
                    # over, say) was missed: the table is resent as stored.
                    callbacks.on_table_back(table_of(channel))
            return
        try:
            data, raw = split_change(message)
            table_id = str(data["t"])
            if "p" in data:
                callbacks.on_presence(table_id)
            elif "w" in data:
                if raw is not None:
                    callbacks.on_draw(table_id, int(data["w"]), raw)
            else:
                version = int(data["v"])
                self.latest.seen(table_id, version, raw)
                if not self.in_flight.keep(table_id, version, raw):
                    callbacks.on_change(table_id, version, raw)
        except Exception:  # one bad message or socket must not stop fan-out
            log.exception("fan-out of a change failed")


class _Watching:
    """Which channels this process listens on, the connection it uses, and
    what it has heard (``Store.stats``)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        #: Change and presence messages heard, their bytes, and how many of
        #: them were of a table no longer watched (an unsubscribe's race).
        self.messages = self.bytes = self.foreign = 0
        #: Watched channels → set once Redis confirmed the subscription.
        self.confirmed: dict[str, threading.Event] = {}
        #: How many watchers each channel has (``watch`` / ``unwatch``).
        self.users: dict[str, int] = {}
        #: Watched channels whose master let them go (a cluster), and since when.
        self.lost: dict[str, float] = {}
        self.feed: Feed | None = None


__all__ = ["Callbacks", "Listener", "table_of"]

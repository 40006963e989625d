"""The store's one client path, chosen once at connect (``path_for``): how a
script runs, how a replicated commit waits, and what the listener reads.

- ``Own``: one Redis over TCP or TLS (production's ``redis://`` or
  ``rediss://``): the store's own RESP client (``resp.Lean``) runs the scripts
  and reads the channels (the own RESP client's row of docs/performance.md,
  "Why each fast path exists").
- ``Plain``: redis-py alone: the embedded store (fakeredis) and a Unix socket,
  where no figure asks for more.
- ``Cluster``: redis-py's ``RedisCluster``, which routes each key to its
  slot's master: a script touches one slot, so the presence refresh of many
  tables is a pipeline there (``presence.py``); the listener reads each master
  (``clusterfeed.py``); a replicated commit goes through the own client to
  the table's master.

Everything else (reads, presence touches, rate counters) is redis-py's API,
which all three clients speak, and needs no path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import redis

from server.errors import StoreDown
from server.store.clusterfeed import ClusterFeed
from server.store.feeds import Feed, LeanFeed, PubSubFeed
from server.store.resp import Lean


class Path(Protocol):
    #: The own client, where this path has one (``Own``).
    lean: Lean | None
    #: Whether one script may touch many tables' keys (not on a cluster).
    spans_tables: bool

    def script(self, source: str, keys: list[Any], args: list[Any]) -> list[Any]:
        """The script's reply (EVALSHA; EVAL when Redis does not know it yet)."""

    def script_wait(self, source: str, keys: list[Any], args: list[Any], replicas: int,
                    ms: int) -> tuple[list[Any], int]:
        """The script's reply and how many replicas acknowledged its writes within ``ms``."""

    def feed(self, fresh: bool) -> Feed:
        """A new feed for the listener; ``fresh``: after a fault."""


class Plain:
    """redis-py alone (the embedded store, a Unix socket)."""

    lean: Lean | None = None
    spans_tables = True

    def __init__(self, r: Any) -> None:
        self.r = r
        self.scripts: dict[str, Any] = {}

    def script(self, source: str, keys: list[Any], args: list[Any]) -> list[Any]:
        found = self.scripts.get(source)
        if found is None:
            found = self.scripts[source] = self.r.register_script(source)
        return list(found(keys=keys, args=args))

    def script_wait(self, source: str, keys: list[Any], args: list[Any], replicas: int,
                    ms: int) -> tuple[list[Any], int]:
        raise redis.RedisError("waiting for replicas needs a Redis over TCP (TABLEMATE_REDIS_WAIT)")

    def feed(self, fresh: bool) -> Feed:
        return PubSubFeed(self.r)


class Own:
    """The store's own RESP client, to one Redis: its scripts are the client's
    own calls (``Lean.evalsha``), so a commit on this path runs no code but
    the client's between the store and the socket."""

    spans_tables = True

    def __init__(self, lean: Lean) -> None:
        self.lean: Lean | None = lean
        self._lean = lean
        self.script: Callable[[str, list[Any], list[Any]], list[Any]] = lean.evalsha
        self.script_wait: Callable[[str, list[Any], list[Any], int, int], tuple[list[Any], int]] = \
            lean.evalsha_wait

    def feed(self, fresh: bool) -> Feed:
        return LeanFeed(self._lean)


class Cluster(Plain):
    """redis-py's ``RedisCluster``; the own client to a master only to wait for its replicas."""

    spans_tables = False

    def __init__(self, r: Any) -> None:
        super().__init__(r)
        #: A cluster's masters ("host:port") → the store's own client to each.
        self.masters: dict[str, Lean] = {}

    def script_wait(self, source: str, keys: list[Any], args: list[Any], replicas: int,
                    ms: int) -> tuple[list[Any], int]:
        node = self.r.get_node_from_key(keys[0])
        name = node.name
        lean = self.masters.get(name)
        if lean is None:
            lean = Lean.for_client(self.r.get_redis_connection(node))
            if lean is None:
                raise redis.ConnectionError(f"no TCP connection to the cluster's node {name}")
            self.masters[name] = lean
        try:
            reply, acked = lean.evalsha_wait(source, keys, args, replicas, ms)
        except redis.RedisError as exc:
            if isinstance(exc, redis.ConnectionError) or str(exc).startswith(("MOVED", "ASK")):
                # The slot has another master now (a failover, a reshard): the
                # next attempt goes there. This one is refused, never guessed.
                self.masters.pop(name, None)
                try:
                    self.r.nodes_manager.initialize()
                except StoreDown:
                    pass  # the cluster is not answering yet: the next attempt asks again
                raise redis.ConnectionError(f"the table's master {name} moved or failed: {exc}") from exc
            raise
        return list(reply), acked

    def feed(self, fresh: bool) -> Feed:
        if fresh:
            # After a fault the cluster's layout may have changed (a replica
            # took over, a slot moved): learnt again before subscribing.
            self.r.nodes_manager.initialize()
        return ClusterFeed(self.r)


def path_for(r: Any) -> Plain | Own | Cluster:
    """The one path for the client ``r`` (``Store.connect`` made it)."""
    if type(r).__name__ == "RedisCluster":
        return Cluster(r)
    if type(r).__module__.startswith("fakeredis"):
        return Plain(r)
    lean = Lean.for_client(r)
    return Own(lean) if lean is not None else Plain(r)

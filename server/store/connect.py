"""The Redis client a store runs on, chosen once from ``REDIS_URL``: a Redis
Cluster (named by any one master), one Redis, or the embedded in-process
store (no URL). The client path for scripts and the listener is then chosen
from the client (``paths.py``)."""

from __future__ import annotations

import os
from typing import Any

import redis
from redis._parsers import _RESP2Parser

#: ``REDIS_URL`` schemes that name a Redis Cluster, and the scheme of a seed
#: node for redis-py's ``RedisCluster`` (which takes ``redis://``/``rediss://``).
CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}


def cluster_seed(url: str) -> str | None:
    """The seed node's URL when ``url`` names a cluster, else None.

    >>> cluster_seed("redis+cluster://:pw@10.0.0.5:7000"), cluster_seed("redis://localhost")
    ('redis://:pw@10.0.0.5:7000', None)
    """
    scheme, sep, rest = url.partition("://")
    return f"{CLUSTER_SCHEMES[scheme]}://{rest}" if sep and scheme in CLUSTER_SCHEMES else None


def pool_timeout() -> float:
    """Seconds a command waits for a free pooled connection (``TABLEMATE_REDIS_POOL_TIMEOUT``)."""
    return float(os.environ.get("TABLEMATE_REDIS_POOL_TIMEOUT", "30"))


def client_for(url: str | None) -> Any:
    """The client for ``url``: ``RedisCluster``, ``Redis`` on a blocking pool,
    or ``fakeredis`` (no URL)."""
    seed = cluster_seed(url) if url else None
    if seed is not None:
        # A Redis Cluster, named by any one of its masters: the client finds
        # the others and sends each key (and each table's channel) to the
        # node that owns its slot. Its pools are per node.
        from redis.cluster import RedisCluster

        # Each node's pool blocks like the single Redis's (below): past
        # TABLEMATE_REDIS_POOL a burst waits up to the pool timeout for a free
        # connection, where redis-py's default pool failed it at once.
        return RedisCluster.from_url(
            seed, decode_responses=True, socket_timeout=5, socket_connect_timeout=3,
            max_connections=int(os.environ.get("TABLEMATE_REDIS_POOL", "256")),
            connection_pool_class=redis.BlockingConnectionPool, timeout=pool_timeout())
    if url:
        # A blocking pool: under a burst, greenlets queue for a connection
        # instead of failing with "too many connections". Redis runs one
        # command at a time, so more connections add no throughput; a
        # connect storm of 5,000 phones queues for a while (at 5 s some
        # phones were closed with 1013, and their reconnects made it worse).
        pool = redis.BlockingConnectionPool.from_url(
            # redis-py's own parser, not hiredis's, although hiredis is
            # installed (for server/store/resp.py): under gevent hiredis's parser
            # polls every pooled connection taken, which cost more than its
            # parsing saved (docs/performance.md, "Why each fast path exists").
            url, parser_class=_RESP2Parser,
            decode_responses=True, socket_timeout=5, socket_connect_timeout=3,
            health_check_interval=30, max_connections=int(os.environ.get("TABLEMATE_REDIS_POOL", "256")),
            timeout=pool_timeout(),
        )
        return redis.Redis(connection_pool=pool)
    # The embedded store: an in-process Redis, so one command runs the app.
    # It runs the store's Lua scripts as Redis does (lupa).
    import fakeredis

    return fakeredis.FakeRedis(server=fakeredis.FakeServer(version=(7,)), decode_responses=True)

"""The local Redis Cluster the store tests will also run on (conftest.RedisCluster).

These pin what the cluster work of issue 32 leans on: the fixture really is three
masters that split the key space, Redis refuses anything that spans two hash slots,
and sharded pub/sub reaches a subscriber through redis-py's cluster client."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
import redis
import redis.cluster
from redis.exceptions import (
    ClusterCrossSlotError,
    MovedError,
    RedisClusterException,
    ResponseError,
)

from conftest import RedisCluster, cluster_seed_url

# A commit script's shape: a write and a publish of one table, by hash tag.
COMMIT_LIKE = """
redis.call('SET', KEYS[1], ARGV[1])
return redis.call('SPUBLISH', KEYS[2], ARGV[1])
"""


def tag_per_master(rc: redis.cluster.RedisCluster) -> dict[int, str]:
    """One table-like hash tag owned by each master: port -> tag."""
    tags: dict[int, str] = {}
    for i in range(1000):
        tag = f"{{t{i}}}"
        tags.setdefault(rc.get_node_from_key(tag).port, tag)
        if len(tags) == 3:
            return tags
    raise AssertionError(f"1,000 tags did not cover three masters: {tags}")


def read_until(read: Callable[[], Any], count: int, timeout: float = 5.0) -> list[Any]:
    got: list[Any] = []
    deadline = time.monotonic() + timeout
    while len(got) < count and time.monotonic() < deadline:
        message = read()
        if message is not None:
            got.append(message)
    return got


def test_the_url_names_a_cluster_and_a_plain_client_refuses_it(redis_cluster: RedisCluster,
                                                                redis_cluster_url: str) -> None:
    assert redis_cluster_url == f"redis+cluster://127.0.0.1:{redis_cluster.ports[0]}"
    assert cluster_seed_url(redis_cluster_url) == f"redis://127.0.0.1:{redis_cluster.ports[0]}"
    assert cluster_seed_url("rediss+cluster://u:p@h:7000") == "rediss://u:p@h:7000"
    # A plain client given the cluster form fails at once, not later with MOVED.
    with pytest.raises(ValueError):
        redis.Redis.from_url(redis_cluster_url)
    with pytest.raises(ValueError, match="not a cluster URL"):
        cluster_seed_url("redis://127.0.0.1:6379/0")
    # One seed node is enough: the client discovers every master.
    primaries = {n.port for n in redis_cluster.client().get_primaries()}
    assert primaries == set(redis_cluster.ports)


def test_hash_tags_land_on_different_masters(redis_cluster: RedisCluster,
                                             redis_cluster_url: str) -> None:
    rc = redis_cluster.client()
    tags = tag_per_master(rc)
    for tag in tags.values():
        rc.set(f"tm:{tag}:doc", "d")
        rc.rpush(f"tm:{tag}:log", "e")
    for port, tag in tags.items():
        # Each master holds exactly its own table's keys, both of them.
        assert set(redis_cluster.node_client(port).keys("*")) == {f"tm:{tag}:doc", f"tm:{tag}:log"}
    # A plain client of a master that does not own a key is redirected, not served.
    port, tag = next(iter(tags.items()))
    stranger = next(p for p in redis_cluster.ports if p != port)
    with pytest.raises(MovedError) as moved:
        redis_cluster.node_client(stranger).get(f"tm:{tag}:doc")
    assert moved.value.node_addr == ("127.0.0.1", port)


def test_flush_empties_every_master(redis_cluster: RedisCluster, redis_cluster_url: str) -> None:
    rc = redis_cluster.client()
    for tag in tag_per_master(rc).values():
        rc.set(f"tm:{tag}:doc", "d")
    assert sum(redis_cluster.node_client(p).dbsize() for p in redis_cluster.ports) == 3
    redis_cluster.flush()
    assert [redis_cluster.node_client(p).dbsize() for p in redis_cluster.ports] == [0, 0, 0]


def test_two_slots_in_one_transaction_or_script_are_refused(redis_cluster: RedisCluster,
                                                            redis_cluster_url: str) -> None:
    rc = redis_cluster.client()
    tags = tag_per_master(rc)
    port, tag = next(iter(tags.items()))
    # Two keys on the same master but in different slots: only the slot rule refuses them.
    other = next(f"{{n{i}}}" for i in range(1000)
                 if rc.get_node_from_key(f"{{n{i}}}").port == port
                 and rc.keyslot(f"{{n{i}}}") != rc.keyslot(tag))
    node = redis_cluster.node_client(port)
    with pytest.raises(ClusterCrossSlotError), node.pipeline(transaction=True) as p:
        p.set(f"tm:{tag}:doc", 1)
        p.set(f"tm:{other}:doc", 1)
        p.execute()
    with pytest.raises(ClusterCrossSlotError):
        node.eval(COMMIT_LIKE, 2, f"tm:{tag}:doc", f"tm:{other}:ch", "x")
    assert node.dbsize() == 0
    # redis-py's cluster client refuses a two-slot script before sending it.
    with pytest.raises(RedisClusterException, match="same key slot"):
        rc.eval(COMMIT_LIKE, 2, f"tm:{tag}:doc", f"tm:{other}:ch", "x")
    # A script that reaches an undeclared key on another master is stopped there.
    far = next(t for p, t in tags.items() if p != port)
    reach = "redis.call('SET', KEYS[1], 1); return redis.call('SET', ARGV[1], 1)"
    with pytest.raises(ResponseError, match="non local key"):
        rc.eval(reach, 1, f"tm:{tag}:doc", f"tm:{far}:doc")


def test_a_one_tag_script_runs_on_its_tags_master(redis_cluster: RedisCluster,
                                                  redis_cluster_url: str) -> None:
    rc = redis_cluster.client()
    script = rc.register_script(COMMIT_LIKE)
    for port, tag in tag_per_master(rc).items():
        # EVALSHA goes to the first key's master (loaded there on first use).
        assert script(keys=[f"tm:{tag}:doc", f"tm:{tag}:ch"], args=["v1"]) == 0
        assert redis_cluster.node_client(port).get(f"tm:{tag}:doc") == "v1"


def test_sharded_pubsub_delivers_through_the_cluster_client(redis_cluster: RedisCluster,
                                                            redis_cluster_url: str) -> None:
    rc = redis_cluster.client()
    channels = {port: f"tm:{tag}:ch" for port, tag in tag_per_master(rc).items()}
    pubsub = rc.pubsub()
    try:
        # One pubsub object holds channels on every master: one connection each.
        pubsub.ssubscribe(*channels.values())
        assert len(pubsub.node_pubsub_mapping) == 3
        nodes = {port: rc.get_node(host="127.0.0.1", port=port) for port in channels}
        for port in channels:  # the SSUBSCRIBE confirmations, one per master
            got = read_until(lambda p=port: pubsub.get_sharded_message(
                timeout=0.2, target_node=nodes[p]), 1)
            assert [(m["type"], m["channel"]) for m in got] == [("ssubscribe", channels[port])]
        # A classic PUBLISH is another namespace: a shard subscriber never sees it.
        assert rc.publish(channels[redis_cluster.ports[0]], "classic") == 0
        for port, channel in channels.items():
            assert rc.spublish(channel, f"to {port}") == 1
        for port, channel in channels.items():
            got = read_until(lambda p=port: pubsub.get_sharded_message(
                timeout=0.2, target_node=nodes[p]), 1)
            assert [(m["type"], m["channel"], m["data"]) for m in got] == [
                ("smessage", channel, f"to {port}")]
        # The script's own SPUBLISH reaches the subscriber too (same slot as its keys).
        port, channel = next(iter(channels.items()))
        doc = channel.replace(":ch", ":doc")
        assert rc.register_script(COMMIT_LIKE)(keys=[doc, channel], args=["v2"]) == 1
        got = read_until(lambda: pubsub.get_sharded_message(timeout=0.2, target_node=nodes[port]), 1)
        assert [m["data"] for m in got] == ["v2"]
    finally:
        pubsub.close()

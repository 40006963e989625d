"""Fault tests: a Redis (or a master of a Redis Cluster) killed, restarted or
paused under two live instances with phones on both. Each test starts its own
Redis or cluster (a fault must not leak into the next test) with persistence
on, so a restarted node comes back with its tables."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from conftest import AppServer, RedisCluster, RedisServer

#: The instances' settings: test phones do not ping, so a socket is not given
#: up for silence while a fault lasts (the silent limit is the liveness
#: tests' business, not these).
APP_ENV = {"TABLEMATE_FIXED_RANDOM": "1", "TABLEMATE_WS_SILENT": "600"}


@pytest.fixture
def aof_redis() -> Iterator[RedisServer]:
    server = RedisServer(extra_args=("--appendonly", "yes", "--appendfsync", "always"))  # as RedisCluster(aof=True)
    yield server
    server.close()


@pytest.fixture
def aof_cluster() -> Iterator[RedisCluster]:
    """Three masters, no replicas, AOF on: a killed master comes back with its tables."""
    cluster = RedisCluster(aof=True)
    yield cluster
    cluster.close()


@pytest.fixture
def partial_cluster() -> Iterator[RedisCluster]:
    """As ``aof_cluster``, with ``cluster-require-full-coverage no``: the other
    masters serve their slots while one master is down."""
    cluster = RedisCluster(aof=True, full_coverage=False)
    yield cluster
    cluster.close()


@pytest.fixture
def replica_cluster() -> Iterator[RedisCluster]:
    """Three masters with one replica each: a killed master's replica takes over
    (the node timeout short, so a failover takes a few seconds)."""
    cluster = RedisCluster(replicas=1, node_timeout_ms=2000)
    yield cluster
    cluster.close()


@pytest.fixture
def two_instances() -> Iterator[Callable[[str], tuple[AppServer, AppServer]]]:
    started: list[AppServer] = []

    def start(url: str) -> tuple[AppServer, AppServer]:
        for _ in range(2):
            started.append(AppServer(url, APP_ENV))
        return started[-2], started[-1]

    yield start
    for s in started:
        s.close()
